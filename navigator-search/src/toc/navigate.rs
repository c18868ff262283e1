//! The agent loop: from a natural question to bullets with grips, by drilling down the time
//! hierarchy ([`navigate`], which documents the loop and its fallbacks).

use super::calendar;
use super::field::{match_node, SearchField};
use super::score::QueryTerms;
use super::search::{rank_children, EmptyReason};
use super::time_hint::{parse_time_hint, TimeHint};
use crate::{Error, Result};
use chrono::{DateTime, Utc};
use navigator_core::{Grip, Store, TocLevel, TocNode};
use std::fmt;

/// How [`navigate`] drills down.
#[derive(Debug, Clone, PartialEq)]
pub struct NavigateOptions {
    /// The average match score, in `[0, 1]`, a child needs to be followed. Default 0.3: with
    /// two terms a child matching one of them everywhere (0.5) is followed; with four terms,
    /// one matching a single term (0.25) is not.
    pub threshold: f32,
    /// How many children are followed per level (at least 1). Default 3: enough to survive
    /// a near-tie between periods, few enough to keep the result focused.
    pub beam_width: usize,
    /// The most bullets returned (at least 1). Default 10.
    pub max_findings: usize,
    /// The fields children are ranked on; empty = all. Findings always come from bullets.
    pub fields: Vec<SearchField>,
}

impl Default for NavigateOptions {
    fn default() -> Self {
        Self {
            threshold: 0.3,
            beam_width: 3,
            max_findings: 10,
            fields: Vec::new(),
        }
    }
}

impl NavigateOptions {
    fn validate(&self) -> Result<()> {
        if !(0.0..=1.0).contains(&self.threshold) {
            return Err(Error::Toc(format!(
                "threshold must be in [0, 1], got {}",
                self.threshold
            )));
        }
        if self.beam_width == 0 || self.max_findings == 0 {
            return Err(Error::Toc(format!(
                "beam_width and max_findings must be at least 1, got {} and {}",
                self.beam_width, self.max_findings
            )));
        }
        Ok(())
    }
}

/// The outcome of [`navigate`].
#[derive(Debug, Clone, PartialEq)]
pub struct Navigation {
    /// The query as asked.
    pub query: String,
    /// The search terms left after the time hint and question words.
    pub terms: Vec<String>,
    /// The time hint, if the query had one.
    pub time_hint: Option<TimeHint>,
    /// Where the drill-down started (`""` = the year level).
    pub start_node_id: String,
    /// Every level searched, in order, including attempts that widened.
    pub path: Vec<PathStep>,
    /// The degradations applied, in order.
    pub fallbacks: Vec<Fallback>,
    /// The bullets found, best first.
    pub findings: Vec<Finding>,
    /// Why `findings` is empty; `None` when it is not.
    pub empty_reason: Option<EmptyReason>,
}

impl Navigation {
    /// The grip ids of all findings, de-duplicated, in finding order: what to pass to
    /// [`expand_grips`].
    pub fn grip_ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = Vec::new();
        for id in self.findings.iter().flat_map(|f| &f.grip_ids) {
            if !ids.contains(id) {
                ids.push(id.clone());
            }
        }
        ids
    }
}

/// One level of the drill-down.
#[derive(Debug, Clone, PartialEq)]
pub struct PathStep {
    /// The nodes whose children were searched (`""` = the year level).
    pub parent_ids: Vec<String>,
    /// The level of those children; `None` when there were none.
    pub level: Option<TocLevel>,
    /// How many children (within the time span) were scored.
    pub examined: usize,
    /// The children followed, best first.
    pub chosen: Vec<ChosenNode>,
    /// How the children were chosen.
    pub outcome: StepOutcome,
}

/// A node followed by the drill-down.
#[derive(Debug, Clone, PartialEq)]
pub struct ChosenNode {
    /// Its id.
    pub node_id: String,
    /// Its title.
    pub title: String,
    /// Its average match score.
    pub score: f32,
}

/// How a [`PathStep`] chose its children.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum StepOutcome {
    /// Only children reaching the threshold were followed.
    AboveThreshold,
    /// None reached the threshold; the best ones were followed anyway.
    BelowThreshold {
        /// The best child's score.
        best_score: f32,
    },
    /// No child matched any term (or there were no children).
    NoMatch,
}

/// A degradation [`navigate`] applied instead of returning a silent nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fallback {
    /// Memory has no node for the hinted period; the drill-down started at `used` (`""` = the
    /// year level), restricted to the hinted span.
    HintNodeMissing {
        /// The hinted node.
        wanted: String,
        /// The node used instead.
        used: String,
    },
    /// Nothing matched under `from`; the search moved to `to` without time restriction.
    Widened {
        /// The node searched before.
        from: String,
        /// The node searched next (`""` = all of memory).
        to: String,
    },
    /// The followed nodes had no matching children; their own bullets were returned.
    StoppedEarly {
        /// The level navigation stopped at.
        level: TocLevel,
    },
    /// The query named a period but no subject; the period's bullets were listed.
    Listed {
        /// The node listed.
        node_id: String,
    },
}

impl fmt::Display for Fallback {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = |id: &str| {
            if id.is_empty() {
                "all of memory".to_string()
            } else {
                format!("`{id}`")
            }
        };
        match self {
            Fallback::HintNodeMissing { wanted, used } => write!(
                f,
                "no memory for `{wanted}`; started from {} within that period",
                name(used)
            ),
            Fallback::Widened { from, to } => {
                write!(
                    f,
                    "nothing matched in {}; widened to {}",
                    name(from),
                    name(to)
                )
            }
            Fallback::StoppedEarly { level } => write!(
                f,
                "no {} below the chosen nodes matched; returned their own bullets",
                level.child().map_or("child", TocLevel::as_str)
            ),
            Fallback::Listed { node_id } => {
                write!(f, "no subject terms; listed the bullets of `{node_id}`")
            }
        }
    }
}

/// A bullet found by [`navigate`].
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// The node the bullet was read from: a segment, unless navigation stopped early.
    pub node_id: String,
    /// That node's title.
    pub node_title: String,
    /// That node's start.
    pub start_time: DateTime<Utc>,
    /// The bullet.
    pub text: String,
    /// Its evidence.
    pub grip_ids: Vec<String>,
    /// Its term overlap with the search terms (0 for listed bullets).
    pub score: f32,
}

/// Answers `query` by drilling down the hierarchy in `store`; `now` anchors relative time
/// hints.
///
/// 1. **Parse** the time hint ([`parse_time_hint`]) against the injected `now`; the remaining
///    words minus [`QUESTION_WORDS`](super::QUESTION_WORDS) are the search terms.
/// 2. **Start** at the hint's node, or — when memory has no node for that period — at the
///    nearest enclosing one that exists, still restricted to the hint's span; with no hint,
///    at the year level.
/// 3. **Drill down** a level at a time: rank the children of the current nodes
///    (average match score, see [`search_children`](super::search_children())) and keep the
///    best `beam_width` whose score reaches `threshold`.
/// 4. At the **segments**, return their matching bullets with grip ids; [`expand_grips`]
///    turns grip ids into the quoted evidence.
///
/// It degrades instead of failing silently, and every step is recorded in
/// [`Navigation::path`]:
/// - no child reaches the threshold → the best children are kept anyway
///   ([`StepOutcome::BelowThreshold`]);
/// - nothing matches under the start node → the search **widens** to the enclosing period,
///   then the year, then all of memory, dropping the time restriction ([`Fallback::Widened`]);
/// - the chosen nodes have no matching child (they matched by title or keyword only) →
///   navigation stops there and returns those nodes' own bullets ([`Fallback::StoppedEarly`]);
/// - a query with a time hint but no subject ("what happened last week") lists the period's
///   bullets ([`Fallback::Listed`]); one with neither is empty with
///   [`EmptyReason::NoSearchTerms`].
///
/// Errors: invalid `options` ([`Error::Toc`]); store failures ([`Error::Core`]).
pub async fn navigate(
    store: &dyn Store,
    query: &str,
    now: DateTime<Utc>,
    options: &NavigateOptions,
) -> Result<Navigation> {
    options.validate()?;
    let hinted = parse_time_hint(query, now);
    let terms = QueryTerms::parse_without_question_words(&hinted.text);
    let mut nav = Navigation {
        query: query.to_string(),
        terms: terms.words().to_vec(),
        time_hint: hinted.hint.clone(),
        start_node_id: String::new(),
        path: Vec::new(),
        fallbacks: Vec::new(),
        findings: Vec::new(),
        empty_reason: None,
    };
    let span = hinted.hint.as_ref().map(|h| (h.start, h.end));
    let (start, mut ancestors) = match &hinted.hint {
        Some(h) => {
            let mut chain = enclosing(h.level, h.start, h.end);
            chain.insert(0, h.node_id.clone());
            let mut chain = existing(store, chain).await?;
            let start = chain.remove(0);
            if start != h.node_id {
                nav.fallbacks.push(Fallback::HintNodeMissing {
                    wanted: h.node_id.clone(),
                    used: start.clone(),
                });
            }
            (start, chain)
        }
        None => (String::new(), Vec::new()),
    };
    nav.start_node_id = start.clone();

    if terms.is_empty() {
        let listable = hinted.hint.as_ref().is_some_and(|h| h.node_id == start);
        match store.get_toc_node(&start).await? {
            Some(node) if listable => {
                nav.findings = findings(std::slice::from_ref(&node), None, options);
                nav.fallbacks.push(Fallback::Listed {
                    node_id: node.node_id,
                });
            }
            _ => {
                nav.empty_reason = Some(EmptyReason::NoSearchTerms {
                    query: query.to_string(),
                })
            }
        }
        return Ok(nav);
    }

    let mut from = start;
    let mut span = span;
    loop {
        let reached = drill(store, &from, span, &terms, options, &mut nav).await?;
        if !reached.is_empty() {
            nav.findings = findings(&reached, Some(&terms), options);
            return Ok(nav);
        }
        if from.is_empty() {
            nav.empty_reason = Some(EmptyReason::NoMatch {
                terms: terms.words().to_vec(),
            });
            return Ok(nav);
        }
        let to = if ancestors.is_empty() {
            String::new()
        } else {
            ancestors.remove(0)
        };
        nav.fallbacks.push(Fallback::Widened {
            from: from.clone(),
            to: to.clone(),
        });
        from = to;
        span = None;
    }
}

/// The quoted evidence behind `grip_ids`, in the same order.
///
/// Errors: an unknown grip id ([`navigator_core::Error::NotFound`] naming it).
pub async fn expand_grips(store: &dyn Store, grip_ids: &[String]) -> Result<Vec<Grip>> {
    let mut grips = Vec::with_capacity(grip_ids.len());
    for id in grip_ids {
        let grip = store
            .get_grip(id)
            .await?
            .ok_or_else(|| navigator_core::Error::NotFound {
                kind: "grip",
                id: id.clone(),
            })?;
        grips.push(grip);
    }
    Ok(grips)
}

/// Drills down from `start` and returns the nodes reached (segments, or the deepest matched
/// nodes when stopped early); empty when nothing below `start` matched.
async fn drill(
    store: &dyn Store,
    start: &str,
    span: Option<(DateTime<Utc>, DateTime<Utc>)>,
    terms: &QueryTerms,
    options: &NavigateOptions,
    nav: &mut Navigation,
) -> Result<Vec<TocNode>> {
    let mut frontier: Vec<String> = vec![start.to_string()];
    let mut reached: Vec<TocNode> = Vec::new();
    loop {
        let mut children: Vec<TocNode> = Vec::new();
        for parent in &frontier {
            for child in store.toc_children(parent).await? {
                let in_span = span.is_none_or(|(s, e)| child.start_time < e && child.end_time > s);
                if in_span && !children.iter().any(|c| c.node_id == child.node_id) {
                    children.push(child);
                }
            }
        }
        if children.is_empty() && !reached.is_empty() {
            // The frontier is made of leaves: the drill-down is complete.
            return Ok(reached);
        }
        children.sort_by(|a, b| (a.start_time, &a.node_id).cmp(&(b.start_time, &b.node_id)));
        let level = children.first().map(|c| c.level);
        let ranked = rank_children("", children, terms, &options.fields, usize::MAX);
        let mut step = PathStep {
            parent_ids: frontier.clone(),
            level,
            examined: ranked.examined,
            chosen: Vec::new(),
            outcome: StepOutcome::NoMatch,
        };
        if ranked.hits.is_empty() {
            nav.path.push(step);
            if let Some(level) = reached.first().map(|n| n.level) {
                nav.fallbacks.push(Fallback::StoppedEarly { level });
            }
            return Ok(reached);
        }
        let best_score = ranked.hits[0].score;
        let above = ranked
            .hits
            .iter()
            .filter(|h| h.score >= options.threshold)
            .count();
        step.outcome = if above > 0 {
            StepOutcome::AboveThreshold
        } else {
            StepOutcome::BelowThreshold { best_score }
        };
        let keep = if above > 0 { above } else { ranked.hits.len() };
        let chosen: Vec<_> = ranked
            .hits
            .into_iter()
            .take(keep.min(options.beam_width))
            .collect();
        step.chosen = chosen
            .iter()
            .map(|h| ChosenNode {
                node_id: h.node.node_id.clone(),
                title: h.node.title.clone(),
                score: h.score,
            })
            .collect();
        nav.path.push(step);
        frontier = chosen.iter().map(|h| h.node.node_id.clone()).collect();
        reached = chosen.into_iter().map(|h| h.node).collect();
    }
}

/// The bullets of `nodes` for `terms`: those reaching the threshold, else the best-scoring
/// ones, else (nodes matched by title or keyword only, or no terms) all of them.
fn findings(
    nodes: &[TocNode],
    terms: Option<&QueryTerms>,
    options: &NavigateOptions,
) -> Vec<Finding> {
    let mut all: Vec<Finding> = Vec::new();
    for node in nodes {
        let scored: Vec<(String, Vec<String>, f32)> = match terms {
            Some(t) => match_node(node, t, &[SearchField::Bullets])
                .into_iter()
                .map(|m| (m.text, m.grip_ids, m.score))
                .collect(),
            None => Vec::new(),
        };
        let scored = if scored.is_empty() {
            node.bullets
                .iter()
                .map(|b| (b.text.clone(), b.grip_ids.clone(), 0.0))
                .collect()
        } else {
            scored
        };
        all.extend(scored.into_iter().map(|(text, grip_ids, score)| Finding {
            node_id: node.node_id.clone(),
            node_title: node.title.clone(),
            start_time: node.start_time,
            text,
            grip_ids,
            score,
        }));
    }
    let best = all.iter().map(|f| f.score).fold(0.0, f32::max);
    let floor = if best >= options.threshold {
        options.threshold
    } else {
        best
    };
    all.retain(|f| f.score >= floor);
    // Best first; among equals the most recent, which is what "what did we decide" wants.
    all.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then(b.start_time.cmp(&a.start_time))
    });
    all.truncate(options.max_findings);
    all
}

/// The ids of the periods enclosing a node of `level` spanning `start..end`, finest first,
/// ending with `""` (all of memory).
fn enclosing(level: TocLevel, start: DateTime<Utc>, end: DateTime<Utc>) -> Vec<String> {
    // The midpoint decides: a week belongs to the month and year of its Thursday.
    let mid = (start + (end - start) / 2).date_naive();
    let mut ids: Vec<String> = [TocLevel::Week, TocLevel::Month, TocLevel::Year]
        .into_iter()
        .filter(|l| *l < level)
        .filter_map(|l| calendar::containing(l, mid).map(|p| p.node_id))
        .collect();
    ids.push(String::new());
    ids
}

/// The ids in `chain` that exist in `store` (`""` always does).
async fn existing(store: &dyn Store, chain: Vec<String>) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for id in chain {
        if id.is_empty() || store.get_toc_node(&id).await?.is_some() {
            out.push(id);
        }
    }
    Ok(out)
}
