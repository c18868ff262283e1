//! Building the time hierarchy from timestamped session summaries.
//!
//! Each [`SessionSummary`] (a stretch of agent activity with its bullets and their grips)
//! becomes a segment; segments are grouped into days, ISO weeks, months and years. Only
//! periods with activity get a node.
//!
//! The builder is *extractive*: a parent's bullets are all the bullets of the segments below
//! it (grips included) and its keywords the union of theirs, most frequent first. Term search
//! at a coarse level therefore sees every fact below it, which is what lets a drill-down route
//! a specific question to the right month; an LLM summariser can later condense a node's
//! bullets (`put_toc_node` bumps the version).
//!
//! ISO weeks can straddle two months. Such a week is a child of *each* month it has activity
//! in (the hierarchy is a DAG at that one level), so "December" reaches 29–31 December even
//! though that week is `2026-W01`. A week's own bullets cover its whole span.

use super::calendar::{self, Period};
use crate::{Error, Result};
use chrono::{DateTime, Datelike, NaiveDate, Utc};
use navigator_core::{from_json, Grip, Store, TocBullet, TocLevel, TocNode};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// One stretch of activity (an agent session) summarised into bullets: the builder's input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionSummary {
    /// Unique id; letters, digits, `-`, `_` and `.` only. The segment is `toc:segment:{id}`.
    pub id: String,
    /// What the session was about.
    pub title: String,
    /// When it started; the segment belongs to this instant's UTC day.
    pub start_time: DateTime<Utc>,
    /// When it ended (after `start_time`).
    pub end_time: DateTime<Utc>,
    /// Salient terms.
    #[serde(default)]
    pub keywords: Vec<String>,
    /// The summary lines, each with its evidence.
    pub bullets: Vec<SummaryBullet>,
}

/// A summary line and the grips that back it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SummaryBullet {
    /// The summary text.
    pub text: String,
    /// The evidence; ids must be unique across all sessions.
    #[serde(default)]
    pub grips: Vec<Grip>,
}

/// A JSON memory file: `{"sessions": [SessionSummary, ...]}` (other top-level keys are
/// ignored, so a file can describe itself).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionLog {
    /// The sessions, in any order.
    pub sessions: Vec<SessionSummary>,
}

/// Collects sessions, validating each, and builds the hierarchy.
#[derive(Debug, Clone, Default)]
pub struct TocBuilder {
    sessions: Vec<SessionSummary>,
    session_ids: HashSet<String>,
    grip_ids: HashSet<String>,
}

/// A built hierarchy, ready to be written to a [`Store`].
#[derive(Debug, Clone, PartialEq)]
pub struct TocTree {
    /// Every node, finest level first (segments, days, weeks, months, years).
    pub nodes: Vec<TocNode>,
    /// Every grip of every bullet.
    pub grips: Vec<Grip>,
}

impl TocBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// A builder holding the sessions of a [`SessionLog`] JSON document.
    pub fn from_json(json: &str) -> Result<Self> {
        let log: SessionLog = from_json(json)?;
        let mut builder = Self::new();
        for s in log.sessions {
            builder.add_session(s)?;
        }
        Ok(builder)
    }

    /// Adds a session after checking it: a well-formed unused id, `start_time < end_time`, at
    /// least one bullet, no blank bullet text, grip ids non-empty and unused.
    pub fn add_session(&mut self, session: SessionSummary) -> Result<&mut Self> {
        let bad = |msg: String| Error::Toc(format!("session `{}`: {msg}", session.id));
        if session.id.is_empty()
            || !session
                .id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        {
            return Err(bad(
                "id must be non-empty and use only letters, digits, `-`, `_` and `.`".into(),
            ));
        }
        if self.session_ids.contains(&session.id) {
            return Err(bad("id is used by another session".into()));
        }
        if session.start_time >= session.end_time {
            return Err(bad(format!(
                "start_time {} is not before end_time {}",
                session.start_time, session.end_time
            )));
        }
        if session.bullets.is_empty() {
            return Err(bad("has no bullets".into()));
        }
        let mut new_grips = HashSet::new();
        for (i, b) in session.bullets.iter().enumerate() {
            if b.text.trim().is_empty() {
                return Err(bad(format!("bullets[{i}].text is blank")));
            }
            for g in &b.grips {
                if g.grip_id.is_empty() {
                    return Err(bad(format!(
                        "bullets[{i}] has a grip with an empty grip_id"
                    )));
                }
                if self.grip_ids.contains(&g.grip_id) || !new_grips.insert(g.grip_id.clone()) {
                    return Err(bad(format!("grip id `{}` is used twice", g.grip_id)));
                }
            }
        }
        self.grip_ids.extend(new_grips);
        self.session_ids.insert(session.id.clone());
        self.sessions.push(session);
        Ok(self)
    }

    /// How many sessions were added.
    pub fn len(&self) -> usize {
        self.sessions.len()
    }

    /// Whether no session was added.
    pub fn is_empty(&self) -> bool {
        self.sessions.is_empty()
    }

    /// Builds every node; `created_at` stamps them (passed in so builds are reproducible).
    pub fn build(&self, created_at: DateTime<Utc>) -> Result<TocTree> {
        let mut sessions: Vec<&SessionSummary> = self.sessions.iter().collect();
        sessions.sort_by(|a, b| (a.start_time, &a.id).cmp(&(b.start_time, &b.id)));

        let segments: Vec<TocNode> = sessions.iter().map(|s| segment(s, created_at)).collect();
        let day_of = |i: usize| sessions[i].start_time.date_naive();

        let mut days: BTreeMap<NaiveDate, Vec<usize>> = BTreeMap::new();
        for i in 0..segments.len() {
            days.entry(day_of(i)).or_default().push(i);
        }

        let mut nodes = segments.clone();
        let mut weeks: BTreeMap<String, (Period, Vec<NaiveDate>)> = BTreeMap::new();
        let mut months: BTreeMap<(i32, u32), BTreeSet<NaiveDate>> = BTreeMap::new();
        for (date, segs) in &days {
            let period = calendar::day(*date);
            let children = segs.iter().map(|&i| segments[i].node_id.clone()).collect();
            nodes.push(rollup(period, children, segs, &segments, created_at));
            let week = calendar::week_of(*date).ok_or_else(|| out_of_range(*date))?;
            weeks
                .entry(week.node_id.clone())
                .or_insert_with(|| (week, Vec::new()))
                .1
                .push(*date);
            months
                .entry((date.year(), date.month()))
                .or_default()
                .insert(*date);
        }

        let segs_of = |dates: &[NaiveDate]| -> Vec<usize> {
            dates.iter().flat_map(|d| days[d].iter().copied()).collect()
        };
        let mut month_weeks: BTreeMap<(i32, u32), Vec<String>> = BTreeMap::new();
        for (week_id, (period, dates)) in &weeks {
            let children = dates.iter().map(|d| calendar::day(*d).node_id).collect();
            let segs = segs_of(dates);
            nodes.push(rollup(
                period.clone(),
                children,
                &segs,
                &segments,
                created_at,
            ));
            let touched: BTreeSet<(i32, u32)> =
                dates.iter().map(|d| (d.year(), d.month())).collect();
            for m in touched {
                month_weeks.entry(m).or_default().push(week_id.clone());
            }
        }

        let mut years: BTreeMap<i32, (Vec<String>, Vec<NaiveDate>)> = BTreeMap::new();
        for ((y, m), dates) in months {
            let dates: Vec<NaiveDate> = dates.into_iter().collect();
            let period = calendar::month(y, m).ok_or_else(|| out_of_range(dates[0]))?;
            let mut children = month_weeks.remove(&(y, m)).unwrap_or_default();
            children.sort_by_key(|id| weeks[id].0.start);
            let year = years.entry(y).or_default();
            year.0.push(period.node_id.clone());
            year.1.extend(&dates);
            nodes.push(rollup(
                period,
                children,
                &segs_of(&dates),
                &segments,
                created_at,
            ));
        }
        for (y, (children, dates)) in years {
            let period = calendar::year(y).ok_or_else(|| out_of_range(dates[0]))?;
            nodes.push(rollup(
                period,
                children,
                &segs_of(&dates),
                &segments,
                created_at,
            ));
        }

        let grips = sessions
            .iter()
            .flat_map(|s| s.bullets.iter().flat_map(|b| b.grips.iter().cloned()))
            .collect();
        Ok(TocTree { nodes, grips })
    }
}

impl TocTree {
    /// Writes the grips, then the nodes finest level first, so a reader never meets a parent
    /// whose children or evidence are missing. Returns how many nodes were written.
    pub async fn write_to(&self, store: &dyn Store) -> Result<usize> {
        store.put_grips(&self.grips).await?;
        for node in &self.nodes {
            store.put_toc_node(node.clone()).await?;
        }
        Ok(self.nodes.len())
    }
}

fn out_of_range(date: NaiveDate) -> Error {
    Error::Toc(format!(
        "date {date} is outside the supported calendar range"
    ))
}

fn segment(s: &SessionSummary, created_at: DateTime<Utc>) -> TocNode {
    TocNode {
        node_id: format!("toc:segment:{}", s.id),
        level: TocLevel::Segment,
        title: s.title.clone(),
        start_time: s.start_time,
        end_time: s.end_time,
        bullets: s
            .bullets
            .iter()
            .map(|b| TocBullet {
                text: b.text.clone(),
                grip_ids: b.grips.iter().map(|g| g.grip_id.clone()).collect(),
            })
            .collect(),
        keywords: s.keywords.clone(),
        child_node_ids: Vec::new(),
        version: 0,
        created_at,
    }
}

/// A node for `period` whose bullets and keywords are those of the segments `segs`.
fn rollup(
    period: Period,
    child_node_ids: Vec<String>,
    segs: &[usize],
    segments: &[TocNode],
    created_at: DateTime<Utc>,
) -> TocNode {
    let mut order: Vec<String> = Vec::new();
    let mut counts: HashMap<String, (usize, String)> = HashMap::new();
    for kw in segs.iter().flat_map(|&i| &segments[i].keywords) {
        let key = kw.to_lowercase();
        let entry = counts.entry(key.clone()).or_insert_with(|| {
            order.push(key);
            (0, kw.clone())
        });
        entry.0 += 1;
    }
    // `order` is first appearance; the stable sort keeps it among equal counts.
    order.sort_by_key(|k| std::cmp::Reverse(counts[k].0));
    TocNode {
        node_id: period.node_id,
        level: period.level,
        title: period.title,
        start_time: period.start,
        end_time: period.end,
        bullets: segs
            .iter()
            .flat_map(|&i| segments[i].bullets.iter().cloned())
            .collect(),
        keywords: order.into_iter().map(|k| counts[&k].1.clone()).collect(),
        child_node_ids,
        version: 0,
        created_at,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{Duration, TimeZone};
    use navigator_core::{MemoryStore, TocStore};

    fn at(y: i32, m: u32, d: u32, h: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(y, m, d, h, 0, 0).unwrap()
    }

    fn session(id: &str, start: DateTime<Utc>, kw: &[&str]) -> SessionSummary {
        SessionSummary {
            id: id.into(),
            title: format!("session {id}"),
            start_time: start,
            end_time: start + Duration::hours(1),
            keywords: kw.iter().map(|k| (*k).into()).collect(),
            bullets: vec![SummaryBullet {
                text: format!("worked on {id}"),
                grips: vec![Grip {
                    grip_id: format!("grip:{id}"),
                    excerpt: format!("quote from {id}"),
                    event_id_start: format!("evt:{id}:1"),
                    event_id_end: format!("evt:{id}:2"),
                    timestamp: start,
                    source: format!("session:{id}"),
                }],
            }],
        }
    }

    fn tree() -> TocTree {
        let mut b = TocBuilder::new();
        b.add_session(session("s4", at(2026, 1, 27, 14), &["redis"]))
            .unwrap();
        b.add_session(session("s1", at(2025, 12, 30, 10), &["jwt"]))
            .unwrap();
        b.add_session(session("s2", at(2026, 1, 2, 9), &["JWT", "deploy"]))
            .unwrap();
        b.add_session(session("s3", at(2026, 1, 27, 9), &["redis", "jwt"]))
            .unwrap();
        b.build(at(2026, 2, 1, 0)).unwrap()
    }

    fn get<'a>(t: &'a TocTree, id: &str) -> &'a TocNode {
        t.nodes.iter().find(|n| n.node_id == id).unwrap()
    }

    #[test]
    fn every_active_period_gets_one_node() {
        let t = tree();
        let count = |l: TocLevel| t.nodes.iter().filter(|n| n.level == l).count();
        assert_eq!(count(TocLevel::Segment), 4);
        assert_eq!(count(TocLevel::Day), 3);
        assert_eq!(count(TocLevel::Week), 2);
        assert_eq!(count(TocLevel::Month), 2);
        assert_eq!(count(TocLevel::Year), 2);
        assert_eq!(t.grips.len(), 4);
    }

    #[test]
    fn week_straddling_months_is_a_child_of_both() {
        let t = tree();
        assert_eq!(
            get(&t, "toc:month:2025-12").child_node_ids,
            ["toc:week:2026-W01"]
        );
        assert_eq!(
            get(&t, "toc:month:2026-01").child_node_ids,
            ["toc:week:2026-W01", "toc:week:2026-W05"]
        );
        assert_eq!(get(&t, "toc:week:2026-W01").bullets.len(), 2);
        assert_eq!(get(&t, "toc:month:2025-12").bullets.len(), 1);
    }

    #[test]
    fn parents_roll_up_bullets_with_grips_and_keywords_by_frequency() {
        let t = tree();
        let day = get(&t, "toc:day:2026-01-27");
        assert_eq!(day.child_node_ids, ["toc:segment:s3", "toc:segment:s4"]);
        assert_eq!(day.bullets[0].grip_ids, ["grip:s3"]);
        let year = get(&t, "toc:year:2026");
        assert_eq!(year.keywords, ["JWT", "redis", "deploy"]);
        assert_eq!(year.child_node_ids, ["toc:month:2026-01"]);
    }

    #[tokio::test]
    async fn written_tree_is_navigable_and_rewrites_bump_versions() {
        let store = MemoryStore::new();
        let t = tree();
        assert_eq!(t.write_to(&store).await.unwrap(), 13);
        let years = store.toc_children("").await.unwrap();
        let ids: Vec<_> = years.iter().map(|n| n.node_id.as_str()).collect();
        assert_eq!(ids, ["toc:year:2025", "toc:year:2026"]);
        assert!(store.get_grip("grip:s2").await.unwrap().is_some());
        t.write_to(&store).await.unwrap();
        let again = store.get_toc_node("toc:year:2026").await.unwrap().unwrap();
        assert_eq!(again.version, 2);
    }

    #[test]
    fn invalid_sessions_are_rejected_with_the_session_named() {
        let mut b = TocBuilder::new();
        b.add_session(session("ok", at(2026, 1, 1, 9), &[]))
            .unwrap();
        let err = |b: &mut TocBuilder, s| b.add_session(s).unwrap_err().to_string();

        assert!(err(&mut b, session("ok", at(2026, 1, 2, 9), &[])).contains("used by another"));
        assert!(err(&mut b, session("has space", at(2026, 1, 2, 9), &[])).contains("`has space`"));
        let mut backwards = session("back", at(2026, 1, 2, 9), &[]);
        backwards.end_time = backwards.start_time;
        assert!(err(&mut b, backwards).contains("not before"));
        let mut blank = session("blank", at(2026, 1, 2, 9), &[]);
        blank.bullets[0].text = "  ".into();
        assert!(err(&mut b, blank).contains("bullets[0].text"));
        let mut reused = session("reused", at(2026, 1, 2, 9), &[]);
        reused.bullets[0].grips[0].grip_id = "grip:ok".into();
        assert!(err(&mut b, reused).contains("grip:ok"));
        assert_eq!(b.len(), 1);
    }

    #[test]
    fn malformed_json_names_the_offending_path() {
        let err = TocBuilder::from_json(r#"{"sessions":[{"id":"a","title":"t"}]}"#).unwrap_err();
        assert!(err.to_string().contains("sessions[0]"), "{err}");
    }
}
