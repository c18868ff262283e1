//! [`Clock`]: where "now" comes from. Recency scoring and phrases like "last month" depend on
//! the current time; injecting it keeps scores and query understanding deterministic in tests.

use chrono::{DateTime, Utc};

/// A source of the current time.
pub trait Clock: Send + Sync + std::fmt::Debug {
    /// The current instant.
    fn now(&self) -> DateTime<Utc>;
}

/// The system clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

/// A clock stopped at one instant (tests, demos, evaluations).
///
/// ```
/// use navigator_search::{Clock, FixedClock};
/// let t = chrono::DateTime::parse_from_rfc3339("2026-11-21T12:00:00Z").unwrap().to_utc();
/// assert_eq!(FixedClock(t).now(), t);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct FixedClock(pub DateTime<Utc>);

impl Clock for FixedClock {
    fn now(&self) -> DateTime<Utc> {
        self.0
    }
}
