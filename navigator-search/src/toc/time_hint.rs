//! Time hints in natural queries ("last week", "in January", "2025") and the node they name.
//!
//! "Now" is always a parameter: the same query and `now` give the same hint, so tests and
//! replays are deterministic. Recognised, case-insensitively (the first hint in the query
//! wins; later ones stay in the text):
//!
//! | phrase | level | meaning |
//! |---|---|---|
//! | `today`, `yesterday` | day | the UTC day of `now`, the one before |
//! | `this week`, `last week` (`previous week`) | week | the ISO week of `now`, the one before |
//! | `this month`, `last month` | month | calendar months |
//! | `this year`, `last year` | year | calendar years |
//! | `3 days ago`, `a week ago`, `two months ago`, `one year ago` | day/week/month/year | counted back from `now` |
//! | `January`, `in Jan`, `December 2025` | month | without a year: the latest such month not after `now` |
//! | `2025`, `in 2025` | year | a year from 1970 to 2199 |
//! | `2026-01-27`, `2026-01`, `2026-W04` | day, month, week | ISO forms |
//!
//! `may`, `march` and `mar` are also ordinary words ("we may ship"), so they count as months
//! only after `in`, `during`, `since`, `of` or `on`, or before a year. A leading `in`,
//! `during`, `since`, `of` or `on` is consumed with the hint.

use super::calendar::{self, Period};
use chrono::{DateTime, Datelike, Duration, Months, NaiveDate, Utc};
use navigator_core::TocLevel;

/// A period named by a query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeHint {
    /// The words that named it, as written ("last month").
    pub phrase: String,
    /// The granularity.
    pub level: TocLevel,
    /// The id of the node that covers the period (it may not exist in a store).
    pub node_id: String,
    /// Start of the period (inclusive).
    pub start: DateTime<Utc>,
    /// End of the period (exclusive).
    pub end: DateTime<Utc>,
}

/// A query split into its time hint and the rest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HintedQuery {
    /// The first time hint, if any.
    pub hint: Option<TimeHint>,
    /// The query words that were not part of the hint, joined by single spaces.
    pub text: String,
}

const PREPOSITIONS: &[&str] = &["in", "during", "since", "of", "on"];
const MONTHS: &[&str] = &[
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// Finds the first time hint in `query`, relative to `now`.
///
/// ```
/// use chrono::{TimeZone, Utc};
/// use navigator_search::toc::parse_time_hint;
/// let now = Utc.with_ymd_and_hms(2026, 2, 2, 9, 0, 0).unwrap();
/// let q = parse_time_hint("what did we decide about JWT last month?", now);
/// assert_eq!(q.hint.unwrap().node_id, "toc:month:2026-01");
/// assert_eq!(q.text, "what did we decide about JWT");
/// ```
pub fn parse_time_hint(query: &str, now: DateTime<Utc>) -> HintedQuery {
    let raw: Vec<&str> = query.split_whitespace().collect();
    let words: Vec<String> = raw
        .iter()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .collect();
    for i in 0..words.len() {
        let found = if PREPOSITIONS.contains(&words[i].as_str()) {
            hint_at(&words[i + 1..], true, now).map(|(len, p)| (len + 1, p))
        } else {
            hint_at(&words[i..], false, now)
        };
        if let Some((len, period)) = found {
            let end = i + len;
            let phrase = raw[i..end].join(" ");
            return HintedQuery {
                hint: Some(TimeHint {
                    phrase: phrase
                        .trim_end_matches(|c: char| !c.is_alphanumeric())
                        .to_string(),
                    level: period.level,
                    node_id: period.node_id,
                    start: period.start,
                    end: period.end,
                }),
                text: raw[..i]
                    .iter()
                    .chain(&raw[end..])
                    .copied()
                    .collect::<Vec<_>>()
                    .join(" "),
            };
        }
    }
    HintedQuery {
        hint: None,
        text: raw.join(" "),
    }
}

/// The hint that starts at `w[0]`: how many words it takes and its period.
fn hint_at(w: &[String], after_preposition: bool, now: DateTime<Utc>) -> Option<(usize, Period)> {
    let first = w.first()?.as_str();
    let today = now.date_naive();
    match first {
        "today" => return Some((1, calendar::day(today))),
        "yesterday" => return Some((1, calendar::day(today - Duration::days(1)))),
        "this" | "last" | "previous" => return relative(first != "this", w.get(1)?, today),
        _ => {}
    }
    if let (Some(n), Some(unit), Some("ago")) =
        (count(first), w.get(1), w.get(2).map(String::as_str))
    {
        return ago(n, unit, today).map(|p| (3, p));
    }
    if let Some(m) = month_number(first) {
        let year = w.get(1).and_then(|y| parse_year(y));
        if matches!(first, "may" | "march" | "mar") && !after_preposition && year.is_none() {
            return None;
        }
        let (y, len) = match year {
            Some(y) => (y, 2),
            None if m <= today.month() => (today.year(), 1),
            None => (today.year() - 1, 1),
        };
        return calendar::month(y, m).map(|p| (len, p));
    }
    if let Some(y) = parse_year(first) {
        return calendar::year(y).map(|p| (1, p));
    }
    iso_form(first).map(|p| (1, p))
}

fn relative(back: bool, unit: &str, today: NaiveDate) -> Option<(usize, Period)> {
    let period = match unit {
        "week" if back => calendar::week_of(today - Duration::days(7)),
        "week" => calendar::week_of(today),
        "month" => {
            let d = if back {
                today.with_day(1)? - Duration::days(1)
            } else {
                today
            };
            calendar::month(d.year(), d.month())
        }
        "year" => calendar::year(today.year() - i32::from(back)),
        _ => None,
    }?;
    Some((2, period))
}

fn ago(n: u32, unit: &str, today: NaiveDate) -> Option<Period> {
    match unit.trim_end_matches('s') {
        "day" => Some(calendar::day(today - Duration::days(i64::from(n)))),
        "week" => calendar::week_of(today - Duration::weeks(i64::from(n))),
        "month" => {
            let d = today.checked_sub_months(Months::new(n))?;
            calendar::month(d.year(), d.month())
        }
        "year" => calendar::year(today.year() - i32::try_from(n).ok()?),
        _ => None,
    }
}

fn count(word: &str) -> Option<u32> {
    const WORDS: &[&str] = &[
        "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
        "twelve",
    ];
    match word {
        "a" | "an" => Some(1),
        _ => WORDS
            .iter()
            .position(|w| *w == word)
            .map(|i| i as u32 + 1)
            .or_else(|| word.parse().ok().filter(|n| (1..1000).contains(n))),
    }
}

fn month_number(word: &str) -> Option<u32> {
    MONTHS
        .iter()
        .position(|m| {
            *m == word
                || (word.len() == 3 && m.starts_with(word))
                || word == "sept" && *m == "september"
        })
        .map(|i| i as u32 + 1)
}

fn parse_year(word: &str) -> Option<i32> {
    if word.len() != 4 || !word.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    word.parse().ok().filter(|y| (1970..2200).contains(y))
}

fn iso_form(word: &str) -> Option<Period> {
    if let Ok(d) = NaiveDate::parse_from_str(word, "%Y-%m-%d") {
        return Some(calendar::day(d));
    }
    let (y, rest) = word.split_once('-')?;
    let y = parse_year(y)?;
    match rest.strip_prefix('w') {
        Some(week) if week.len() == 2 => calendar::iso_week(y, week.parse().ok()?),
        None if rest.len() == 2 => calendar::month(y, rest.parse().ok()?),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    /// Monday 2 February 2026, 09:00 UTC.
    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 2, 2, 9, 0, 0).unwrap()
    }

    fn node(query: &str) -> Option<String> {
        parse_time_hint(query, now()).hint.map(|h| h.node_id)
    }

    #[test]
    fn relative_periods_count_back_from_now() {
        assert_eq!(node("today").as_deref(), Some("toc:day:2026-02-02"));
        assert_eq!(node("yesterday").as_deref(), Some("toc:day:2026-02-01"));
        assert_eq!(node("this week").as_deref(), Some("toc:week:2026-W06"));
        assert_eq!(node("last week").as_deref(), Some("toc:week:2026-W05"));
        assert_eq!(node("last month").as_deref(), Some("toc:month:2026-01"));
        assert_eq!(node("this month").as_deref(), Some("toc:month:2026-02"));
        assert_eq!(node("last year").as_deref(), Some("toc:year:2025"));
        assert_eq!(node("3 days ago").as_deref(), Some("toc:day:2026-01-30"));
        assert_eq!(node("two months ago").as_deref(), Some("toc:month:2025-12"));
        assert_eq!(node("a week ago").as_deref(), Some("toc:week:2026-W05"));
    }

    #[test]
    fn month_names_pick_the_latest_such_month_not_after_now() {
        assert_eq!(node("in January").as_deref(), Some("toc:month:2026-01"));
        assert_eq!(node("deploys in Nov").as_deref(), Some("toc:month:2025-11"));
        assert_eq!(
            node("December 2024 outage").as_deref(),
            Some("toc:month:2024-12")
        );
        assert_eq!(node("sept").as_deref(), Some("toc:month:2025-09"));
    }

    #[test]
    fn years_and_iso_forms_are_recognised() {
        assert_eq!(node("in 2025").as_deref(), Some("toc:year:2025"));
        assert_eq!(node("2026-01-27").as_deref(), Some("toc:day:2026-01-27"));
        assert_eq!(node("2025-12").as_deref(), Some("toc:month:2025-12"));
        assert_eq!(node("2026-W04").as_deref(), Some("toc:week:2026-W04"));
        assert_eq!(node("port 8080"), None);
    }

    #[test]
    fn ambiguous_month_words_need_a_preposition_or_a_year() {
        assert_eq!(node("we may ship the fix"), None);
        assert_eq!(node("in May").as_deref(), Some("toc:month:2025-05"));
        assert_eq!(node("march 2025").as_deref(), Some("toc:month:2025-03"));
    }

    #[test]
    fn hint_words_leave_the_text_and_last_as_adjective_stays() {
        let q = parse_time_hint("JWT rotation in January, please", now());
        let hint = q.hint.unwrap();
        assert_eq!(hint.phrase, "in January");
        assert_eq!(hint.level, TocLevel::Month);
        assert_eq!(q.text, "JWT rotation please");
        let q = parse_time_hint("the last deploy", now());
        assert_eq!(q.hint, None);
        assert_eq!(q.text, "the last deploy");
    }

    #[test]
    fn the_first_hint_wins() {
        let q = parse_time_hint("2025 vs last month", now());
        assert_eq!(q.hint.unwrap().node_id, "toc:year:2025");
        assert_eq!(q.text, "vs last month");
    }

    #[test]
    fn hint_spans_cover_the_period() {
        let h = parse_time_hint("last week", now()).hint.unwrap();
        assert_eq!(h.start, Utc.with_ymd_and_hms(2026, 1, 26, 0, 0, 0).unwrap());
        assert_eq!(h.end, Utc.with_ymd_and_hms(2026, 2, 2, 0, 0, 0).unwrap());
    }
}
