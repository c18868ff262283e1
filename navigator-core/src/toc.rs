//! The vocabulary of a table of contents over time: [`TocNode`]s at five [`TocLevel`]s with
//! [`TocBullet`]s that point at source evidence through [`Grip`]s.
//!
//! The types live here, beside the [`Store`](crate::Store) that persists them; searching and
//! navigating them is `navigator-search`'s `toc` module.

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The level of a node in the time hierarchy, coarsest first.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum TocLevel {
    /// A calendar year (`toc:year:2026`).
    Year,
    /// A calendar month (`toc:month:2026-01`).
    Month,
    /// An ISO week (`toc:week:2026-W04`).
    Week,
    /// A day (`toc:day:2026-01-27`).
    Day,
    /// A stretch of activity within a day (`toc:segment:...`).
    Segment,
}

impl TocLevel {
    /// The next finer level; `None` for segments.
    pub fn child(self) -> Option<TocLevel> {
        match self {
            TocLevel::Year => Some(TocLevel::Month),
            TocLevel::Month => Some(TocLevel::Week),
            TocLevel::Week => Some(TocLevel::Day),
            TocLevel::Day => Some(TocLevel::Segment),
            TocLevel::Segment => None,
        }
    }

    /// The name used in node ids (`year`, `month`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            TocLevel::Year => "year",
            TocLevel::Month => "month",
            TocLevel::Week => "week",
            TocLevel::Day => "day",
            TocLevel::Segment => "segment",
        }
    }
}

/// One summary line of a node, with the grips that back it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TocBullet {
    /// The summary text.
    pub text: String,
    /// Ids of the [`Grip`]s that hold the evidence.
    #[serde(default)]
    pub grip_ids: Vec<String>,
}

/// A node of the time hierarchy. There is no stored summary: the bullets are the summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TocNode {
    /// `toc:{level}:{key}`, e.g. `toc:day:2026-01-27`.
    pub node_id: String,
    /// The level.
    pub level: TocLevel,
    /// A human title ("January 2026", "Week 4, 2026", ...).
    pub title: String,
    /// Start of the covered span (inclusive).
    pub start_time: DateTime<Utc>,
    /// End of the covered span (exclusive).
    pub end_time: DateTime<Utc>,
    /// Summary lines.
    #[serde(default)]
    pub bullets: Vec<TocBullet>,
    /// Salient terms.
    #[serde(default)]
    pub keywords: Vec<String>,
    /// Ids of the children one level down.
    #[serde(default)]
    pub child_node_ids: Vec<String>,
    /// Bumped by the store on every write.
    #[serde(default)]
    pub version: u64,
    /// When the node was first written.
    pub created_at: DateTime<Utc>,
}

/// A pointer from a summary to the source evidence: an excerpt and the range of events it
/// came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Grip {
    /// Unique id (`grip:...`).
    pub grip_id: String,
    /// The excerpt of the source (a quote from the conversation or event).
    pub excerpt: String,
    /// First event of the range.
    pub event_id_start: String,
    /// Last event of the range.
    pub event_id_end: String,
    /// When the evidence happened.
    pub timestamp: DateTime<Utc>,
    /// Where the evidence lives (session id, file, ...).
    #[serde(default)]
    pub source: String,
}
