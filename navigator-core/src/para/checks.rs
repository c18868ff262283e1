//! Field rules shared by the contract types: used both by `deserialize_with` (so bad JSON is
//! rejected while parsing, with the field's path) and by `validate()` (so values built in code
//! obey the same rules).

use crate::{Error, Result};
use serde::{de::Error as _, Deserialize, Deserializer};

/// Scores outside this range are rejected.
pub(crate) const SCORE_RANGE: std::ops::RangeInclusive<f64> = 0.0..=1.0;
/// Page sizes outside this range are rejected.
pub const LIMIT_RANGE: std::ops::RangeInclusive<u32> = 1..=50;

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

pub(crate) fn query<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<String, D::Error> {
    let q = String::deserialize(d)?;
    check_non_empty("query", &q).map_err(D::Error::custom)?;
    Ok(q)
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
