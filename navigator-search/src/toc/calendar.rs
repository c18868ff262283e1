//! The calendar periods behind node ids: which span, id and title a year, month, ISO week or
//! day has. Shared by the builder (which creates nodes) and the time hints (which name them),
//! so both agree on every id.

use chrono::{DateTime, Datelike, Duration, NaiveDate, Utc, Weekday};
use navigator_core::TocLevel;

/// A calendar period at one level of the hierarchy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Period {
    pub level: TocLevel,
    pub node_id: String,
    pub title: String,
    pub start: DateTime<Utc>,
    pub end: DateTime<Utc>,
}

fn midnight(date: NaiveDate) -> DateTime<Utc> {
    date.and_hms_opt(0, 0, 0)
        .map(|t| t.and_utc())
        .unwrap_or(DateTime::<Utc>::MIN_UTC)
}

/// The year `year`; `None` outside chrono's range.
pub(crate) fn year(year: i32) -> Option<Period> {
    let start = NaiveDate::from_ymd_opt(year, 1, 1)?;
    let end = NaiveDate::from_ymd_opt(year + 1, 1, 1)?;
    Some(Period {
        level: TocLevel::Year,
        node_id: format!("toc:year:{year}"),
        title: year.to_string(),
        start: midnight(start),
        end: midnight(end),
    })
}

/// Month `month` (1-12) of `year`; `None` when out of range.
pub(crate) fn month(year: i32, month: u32) -> Option<Period> {
    let start = NaiveDate::from_ymd_opt(year, month, 1)?;
    let end = if month == 12 {
        NaiveDate::from_ymd_opt(year + 1, 1, 1)?
    } else {
        NaiveDate::from_ymd_opt(year, month + 1, 1)?
    };
    Some(Period {
        level: TocLevel::Month,
        node_id: format!("toc:month:{year}-{month:02}"),
        title: start.format("%B %Y").to_string(),
        start: midnight(start),
        end: midnight(end),
    })
}

/// ISO week `week` of ISO year `iso_year` (Monday to Monday); `None` when out of range.
pub(crate) fn iso_week(iso_year: i32, week: u32) -> Option<Period> {
    let monday = NaiveDate::from_isoywd_opt(iso_year, week, Weekday::Mon)?;
    let sunday = monday + Duration::days(6);
    Some(Period {
        level: TocLevel::Week,
        node_id: format!("toc:week:{iso_year}-W{week:02}"),
        title: format!(
            "Week {week}, {iso_year} ({} – {})",
            monday.format("%-d %b"),
            sunday.format("%-d %b")
        ),
        start: midnight(monday),
        end: midnight(monday + Duration::days(7)),
    })
}

/// The day `date`.
pub(crate) fn day(date: NaiveDate) -> Period {
    Period {
        level: TocLevel::Day,
        node_id: format!("toc:day:{}", date.format("%Y-%m-%d")),
        title: date.format("%A %-d %B %Y").to_string(),
        start: midnight(date),
        end: midnight(date + Duration::days(1)),
    }
}

/// The ISO week containing `date`.
pub(crate) fn week_of(date: NaiveDate) -> Option<Period> {
    let w = date.iso_week();
    iso_week(w.year(), w.week())
}

/// The period of `level` that contains `date` (segments have no calendar period).
pub(crate) fn containing(level: TocLevel, date: NaiveDate) -> Option<Period> {
    match level {
        TocLevel::Year => year(date.year()),
        TocLevel::Month => month(date.year(), date.month()),
        TocLevel::Week => week_of(date),
        TocLevel::Day => Some(day(date)),
        TocLevel::Segment => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_spans_follow_the_node_id_scheme() {
        let m = month(2025, 12).unwrap();
        assert_eq!(m.node_id, "toc:month:2025-12");
        assert_eq!(m.title, "December 2025");
        assert_eq!(m.end, year(2026).unwrap().start);
        let d = day(NaiveDate::from_ymd_opt(2026, 1, 27).unwrap());
        assert_eq!(d.node_id, "toc:day:2026-01-27");
        assert_eq!(d.title, "Tuesday 27 January 2026");
    }

    #[test]
    fn iso_week_crossing_the_year_belongs_to_the_year_of_its_thursday() {
        let w = week_of(NaiveDate::from_ymd_opt(2025, 12, 30).unwrap()).unwrap();
        assert_eq!(w.node_id, "toc:week:2026-W01");
        assert_eq!(w.title, "Week 1, 2026 (29 Dec – 4 Jan)");
        assert_eq!((w.end - w.start).num_days(), 7);
    }

    #[test]
    fn out_of_range_periods_are_none() {
        assert!(month(2026, 13).is_none());
        assert!(iso_week(2026, 54).is_none());
    }
}
