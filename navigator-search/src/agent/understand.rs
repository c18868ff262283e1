//! Rule-based query understanding: turns the phrases people use ("that design doc from last
//! month", "in my archive") into a cleaner query plus filters, with no LLM. Time phrases are
//! resolved against an injected "now".

use chrono::{DateTime, Datelike, Duration, NaiveDate, TimeZone, Utc};
use navigator_core::{Category, DateRange};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What a natural-language query asks for: the words to search plus the scope and filters its
/// phrases imply. Also the shape an LLM is asked to produce.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UnderstoodQuery {
    /// The words to search for, without the scope and time phrases.
    pub query: String,
    /// Categories the query scopes itself to ("in my archive" → archive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub categories: Option<Vec<Category>>,
    /// A window on the items' updated time ("last month").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date_range: Option<DateRange>,
}

/// The rule-based understanding.
#[derive(Debug, Clone, Copy, Default)]
pub struct QueryUnderstanding;

/// Scope phrases, longest first so "in my archive" wins over "archive".
const SCOPES: &[(&str, Category)] = &[
    ("in my archive", Category::Archive),
    ("in the archive", Category::Archive),
    ("in archive", Category::Archive),
    ("from my archive", Category::Archive),
    ("archived", Category::Archive),
    ("in my projects", Category::Project),
    ("in projects", Category::Project),
    ("in my areas", Category::Area),
    ("in areas", Category::Area),
    ("in my resources", Category::Resource),
    ("in resources", Category::Resource),
];

impl QueryUnderstanding {
    /// Understands `text` relative to `now`.
    ///
    /// ```
    /// use navigator_search::QueryUnderstanding;
    /// let now = chrono::DateTime::parse_from_rfc3339("2026-11-21T10:00:00Z").unwrap().to_utc();
    /// let u = QueryUnderstanding.understand("that design doc from last month", now);
    /// assert_eq!(u.query, "that design doc");
    /// let r = u.date_range.unwrap();
    /// assert_eq!(r.start.unwrap().to_rfc3339(), "2026-10-01T00:00:00+00:00");
    /// ```
    pub fn understand(&self, text: &str, now: DateTime<Utc>) -> UnderstoodQuery {
        let mut rest = format!(
            " {} ",
            text.to_lowercase()
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        );
        let mut categories = None;
        for (phrase, cat) in SCOPES {
            if let Some(stripped) = strip_phrase(&rest, phrase) {
                rest = stripped;
                categories = Some(vec![*cat]);
                break;
            }
        }
        let mut date_range = None;
        for (phrase, range) in time_phrases(now) {
            if let Some(stripped) = strip_phrase(&rest, phrase) {
                rest = stripped;
                date_range = Some(range);
                break;
            }
        }
        // Everything but the scope and time phrases stays: embedding models read whole
        // phrases better than keyword lists, and BM25 gives filler words little weight.
        let kept = rest.split_whitespace().collect::<Vec<_>>().join(" ");
        // A query made only of a phrase is searched as written rather than emptied.
        let query = if kept.is_empty() {
            text.trim().to_string()
        } else {
            kept
        };
        UnderstoodQuery {
            query,
            categories,
            date_range,
        }
    }
}

fn strip_phrase(haystack: &str, phrase: &str) -> Option<String> {
    let needle = format!(" {phrase} ");
    haystack
        .find(&needle)
        .map(|i| format!("{} {}", &haystack[..i], &haystack[i + needle.len()..]))
}

fn day_start(d: NaiveDate) -> DateTime<Utc> {
    Utc.from_utc_datetime(&d.and_hms_opt(0, 0, 0).unwrap_or_default())
}

fn range(start: NaiveDate, end_exclusive: NaiveDate) -> DateRange {
    DateRange {
        start: Some(day_start(start)),
        end: Some(day_start(end_exclusive) - Duration::seconds(1)),
    }
}

fn month_start(year: i32, month: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(year, month, 1).unwrap_or_default()
}

/// The time phrases understood, with the window each means at `now` (calendar periods in
/// UTC; "last week" is the previous Monday–Sunday week).
fn time_phrases(now: DateTime<Utc>) -> Vec<(&'static str, DateRange)> {
    let today = now.date_naive();
    let (y, m) = (today.year(), today.month());
    let this_month = month_start(y, m);
    let last_month = if m == 1 {
        month_start(y - 1, 12)
    } else {
        month_start(y, m - 1)
    };
    let next_month = if m == 12 {
        month_start(y + 1, 1)
    } else {
        month_start(y, m + 1)
    };
    let week_start = today - Duration::days(i64::from(today.weekday().num_days_from_monday()));
    let tomorrow = today + Duration::days(1);
    vec![
        ("from last month", range(last_month, this_month)),
        ("last month", range(last_month, this_month)),
        ("this month", range(this_month, next_month)),
        (
            "from last week",
            range(week_start - Duration::days(7), week_start),
        ),
        (
            "last week",
            range(week_start - Duration::days(7), week_start),
        ),
        ("this week", range(week_start, tomorrow)),
        ("from yesterday", range(today - Duration::days(1), today)),
        ("yesterday", range(today - Duration::days(1), today)),
        ("today", range(today, tomorrow)),
        ("last year", range(month_start(y - 1, 1), month_start(y, 1))),
        ("this year", range(month_start(y, 1), tomorrow)),
        ("recently", range(today - Duration::days(30), tomorrow)),
        ("recent", range(today - Duration::days(30), tomorrow)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-11-21T10:00:00Z")
            .unwrap()
            .to_utc()
    }

    #[test]
    fn last_month_is_the_previous_calendar_month() {
        let u = QueryUnderstanding.understand("that design doc from last month", now());
        assert_eq!(u.query, "that design doc");
        assert_eq!(u.categories, None);
        let r = u.date_range.unwrap();
        assert_eq!(r.start.unwrap().to_rfc3339(), "2026-10-01T00:00:00+00:00");
        assert_eq!(r.end.unwrap().to_rfc3339(), "2026-10-31T23:59:59+00:00");
        let jan = DateTime::parse_from_rfc3339("2027-01-05T00:00:00Z")
            .unwrap()
            .to_utc();
        let r = QueryUnderstanding
            .understand("notes last month", jan)
            .date_range
            .unwrap();
        assert_eq!(r.start.unwrap().to_rfc3339(), "2026-12-01T00:00:00+00:00");
    }

    #[test]
    fn archive_phrases_scope_the_search() {
        let u = QueryUnderstanding.understand("Legacy migration in my archive", now());
        assert_eq!(u.query, "legacy migration");
        assert_eq!(u.categories, Some(vec![Category::Archive]));
        assert_eq!(u.date_range, None);
    }

    #[test]
    fn last_week_is_monday_to_sunday() {
        // 2026-11-21 is a Saturday: last week is Mon 9th .. Sun 15th.
        let r = QueryUnderstanding
            .understand("meeting notes last week", now())
            .date_range
            .unwrap();
        assert_eq!(r.start.unwrap().to_rfc3339(), "2026-11-09T00:00:00+00:00");
        assert_eq!(r.end.unwrap().to_rfc3339(), "2026-11-15T23:59:59+00:00");
    }

    #[test]
    fn plain_queries_pass_through() {
        let u = QueryUnderstanding.understand("quarterly report", now());
        assert_eq!(
            u,
            UnderstoodQuery {
                query: "quarterly report".into(),
                ..Default::default()
            }
        );
        assert_eq!(
            QueryUnderstanding.understand("Last month", now()).query,
            "Last month"
        );
    }
}
