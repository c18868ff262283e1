//! Field rules shared by the contract types: used both by `deserialize_with` (so bad JSON is
//! rejected while parsing, with the field's path) and by `validate()` (so values built in code
//! obey the same rules).

use crate::{Error, Result};
use chrono::{DateTime, Datelike, Utc};
use serde::{de::Error as _, Deserialize, Deserializer};

/// Scores outside this range are rejected.
pub(crate) const SCORE_RANGE: std::ops::RangeInclusive<f64> = 0.0..=1.0;
/// Page sizes outside this range are rejected.
pub const LIMIT_RANGE: std::ops::RangeInclusive<u32> = 1..=50;

/// Calendar years a date may fall in (UTC), on items and in date-range filters.
///
/// The narrowest index decides: tantivy keeps dates as signed 64-bit nanoseconds since
/// 1970, which reach from 1677-09-21 to 2262-04-11; PostgreSQL's `timestamptz` reaches from
/// 4713 BC to 294276 AD. Whole years inside the intersection keep the rule easy to state.
/// A date outside it is rejected where it enters, so it never reaches an index (where it
/// would overflow the conversion).
pub const SUPPORTED_YEARS: std::ops::RangeInclusive<i32> = 1678..=2261;

/// The longest `id`, `parentId` and `status` (and their filters), in bytes.
///
/// These values are indexed as single exact terms. tantivy drops a term longer than 65,530
/// bytes without an error (the item could never be found by it) and a PostgreSQL B-tree
/// entry must stay under about 2,700 bytes; 1 KiB is far from both and from any real id or
/// status.
pub const MAX_TERM_BYTES: usize = 1024;

/// The deepest page a search may reach: `offset + limit` at most this (as Elasticsearch's
/// `index.max_result_window`). Every ranked result before the page is computed, so an
/// unbounded offset would let one request allocate without limit.
pub const MAX_RESULT_WINDOW: u32 = 10_000;

pub(crate) fn check_date(field: &str, t: DateTime<Utc>) -> Result<DateTime<Utc>> {
    if SUPPORTED_YEARS.contains(&t.year()) {
        Ok(t)
    } else {
        Err(Error::invalid(
            field,
            format!(
                "{} is outside the supported years {}..={}",
                t.to_rfc3339(),
                SUPPORTED_YEARS.start(),
                SUPPORTED_YEARS.end()
            ),
        ))
    }
}

pub(crate) fn check_term(field: &str, v: &str) -> Result<()> {
    if v.len() > MAX_TERM_BYTES {
        Err(Error::invalid(
            field,
            format!(
                "is {} bytes long; at most {MAX_TERM_BYTES} bytes are allowed (starts {:?})",
                v.len(),
                prefix(v)
            ),
        ))
    } else {
        Ok(())
    }
}

/// The first few characters of a too-long value, for the error message.
fn prefix(v: &str) -> &str {
    v.char_indices().nth(40).map_or(v, |(i, _)| &v[..i])
}

pub(crate) fn check_window(offset: u32, limit: u32) -> Result<()> {
    if u64::from(offset) + u64::from(limit) > u64::from(MAX_RESULT_WINDOW) {
        Err(Error::invalid(
            "offset",
            format!(
                "offset {offset} + limit {limit} goes past the deepest page, {MAX_RESULT_WINDOW} results"
            ),
        ))
    } else {
        Ok(())
    }
}

/// While parsing, `limit` may not be known yet: the offset alone must leave room for one
/// result; `validate` checks the sum.
pub(crate) fn offset<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<u32, D::Error> {
    let offset = u32::deserialize(d)?;
    check_window(offset, 1).map_err(D::Error::custom)?;
    Ok(offset)
}

pub(crate) fn date<'de, D: Deserializer<'de>>(
    d: D,
) -> std::result::Result<DateTime<Utc>, D::Error> {
    check_date("date", DateTime::<Utc>::deserialize(d)?).map_err(D::Error::custom)
}

pub(crate) fn optional_date<'de, D: Deserializer<'de>>(
    d: D,
) -> std::result::Result<Option<DateTime<Utc>>, D::Error> {
    Option::<DateTime<Utc>>::deserialize(d)?
        .map(|t| check_date("date", t))
        .transpose()
        .map_err(D::Error::custom)
}

pub(crate) fn check_score(field: &str, v: f64) -> Result<f64> {
    if SCORE_RANGE.contains(&v) {
        Ok(v)
    } else {
        Err(Error::invalid(
            field,
            format!("must be within 0.0..=1.0, got {v}"),
        ))
    }
}

pub(crate) fn check_limit(field: &str, v: u32) -> Result<u32> {
    if LIMIT_RANGE.contains(&v) {
        Ok(v)
    } else {
        Err(Error::invalid(
            field,
            format!("must be within 1..=50, got {v}"),
        ))
    }
}

pub(crate) fn check_non_empty(field: &str, v: &str) -> Result<()> {
    if v.trim().is_empty() {
        Err(Error::invalid(field, "must not be empty"))
    } else {
        Ok(())
    }
}

pub(crate) fn score<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<f64, D::Error> {
    check_score("relevanceScore", f64::deserialize(d)?).map_err(D::Error::custom)
}

pub(crate) fn limit<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<u32, D::Error> {
    check_limit("limit", u32::deserialize(d)?).map_err(D::Error::custom)
}

pub(crate) fn non_empty<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<String, D::Error> {
    let s = String::deserialize(d)?;
    if s.trim().is_empty() {
        return Err(D::Error::custom("must not be empty"));
    }
    Ok(s)
}

pub(crate) fn categories<'de, D: Deserializer<'de>>(
    d: D,
) -> std::result::Result<Option<Vec<crate::Category>>, D::Error> {
    let cats = Option::<Vec<crate::Category>>::deserialize(d)?;
    if cats.as_ref().is_some_and(|c| c.is_empty()) {
        return Err(D::Error::custom(
            "must name at least one category when present",
        ));
    }
    Ok(cats)
}
