//! Searching one node ([`search_node`]) and ranking a node's children ([`search_children`]).
//!
//! # Why children are ranked by the *average* of their match scores
//!
//! A coarse node (a month) carries many bullets, a fine one (a day) few. Summing match scores
//! would rank nodes by how much they say rather than by how well they match: a busy month with
//! forty bullets that each share one word with the query would beat a quiet week whose single
//! bullet is exactly the question. The average measures how well a node matches *where it
//! matches*, independent of its size. Consequences, pinned down by tests:
//!
//! - one perfect match (1.0) outranks any number of weak ones (three matches at 0.5 average
//!   0.5);
//! - a node whose perfect match comes with weaker partial matches averages below a node with
//!   the perfect match alone — the price of size independence; ties on the average are broken
//!   by the best single match, then by the number of matches, then by time (earlier first).

use super::field::{match_node, SearchField, SearchMatch};
use super::score::QueryTerms;
use crate::{Error, Result};
use navigator_core::{Store, TocNode};
use std::fmt;

/// Why a search came back empty: a search never returns a silent nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EmptyReason {
    /// Every word of the query was shorter than three characters (or, for
    /// [`navigate`](super::navigate()), a question word or part of the time hint).
    NoSearchTerms {
        /// The query as given.
        query: String,
    },
    /// The parent has no children to rank.
    NoChildren {
        /// The parent searched (`""` = the year level).
        parent_id: String,
    },
    /// There were terms and text, but no term occurred in any searched field.
    NoMatch {
        /// The terms looked for.
        terms: Vec<String>,
    },
}

impl fmt::Display for EmptyReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EmptyReason::NoSearchTerms { query } => write!(
                f,
                "query `{query}` has no search terms (words of 3+ characters that are not \
                 question words or time hints)"
            ),
            EmptyReason::NoChildren { parent_id } if parent_id.is_empty() => {
                f.write_str("the table of contents has no year nodes")
            }
            EmptyReason::NoChildren { parent_id } => {
                write!(f, "node `{parent_id}` has no children")
            }
            EmptyReason::NoMatch { terms } => {
                write!(
                    f,
                    "no searched field contains any of [{}]",
                    terms.join(", ")
                )
            }
        }
    }
}

/// What [`search_node`] found in one node.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeSearch {
    /// The matches, in field order then bullet order.
    pub matches: Vec<SearchMatch>,
    /// Why `matches` is empty; `None` when it is not.
    pub empty_reason: Option<EmptyReason>,
}

/// A child of the searched parent with its matches and aggregate score.
#[derive(Debug, Clone, PartialEq)]
pub struct ChildHit {
    /// The child node.
    pub node: TocNode,
    /// Average of the match scores, in `(0, 1]`.
    pub score: f32,
    /// The matches behind the score.
    pub matches: Vec<SearchMatch>,
}

/// What [`search_children`] found under one parent.
#[derive(Debug, Clone, PartialEq)]
pub struct ChildSearch {
    /// The parent searched (`""` = the year level).
    pub parent_id: String,
    /// Matching children, best first, at most `limit`.
    pub hits: Vec<ChildHit>,
    /// How many children were examined.
    pub examined: usize,
    /// Why `hits` is empty; `None` when it is not.
    pub empty_reason: Option<EmptyReason>,
}

/// Searches `fields` of `node` for `query`; an empty `fields` means every field.
///
/// Each matching title, joined summary, bullet or joined keyword list becomes one
/// [`SearchMatch`]; texts that share no term with the query are left out.
pub fn search_node(node: &TocNode, query: &str, fields: &[SearchField]) -> NodeSearch {
    let terms = QueryTerms::parse(query);
    if terms.is_empty() {
        return NodeSearch {
            matches: Vec::new(),
            empty_reason: Some(EmptyReason::NoSearchTerms {
                query: query.to_string(),
            }),
        };
    }
    let matches = match_node(node, &terms, fields);
    let empty_reason = matches.is_empty().then(|| EmptyReason::NoMatch {
        terms: terms.words().to_vec(),
    });
    NodeSearch {
        matches,
        empty_reason,
    }
}

/// Ranks the children of `parent_id` (`""` = the year nodes) by the average score of their
/// matches for `query` and returns the best `limit`; children without a match are left out.
///
/// Errors: `limit` of 0 ([`Error::Toc`]); an unknown parent or a store failure
/// ([`Error::Core`]).
pub async fn search_children(
    store: &dyn Store,
    parent_id: &str,
    query: &str,
    fields: &[SearchField],
    limit: usize,
) -> Result<ChildSearch> {
    check_limit(limit)?;
    let terms = QueryTerms::parse(query);
    if terms.is_empty() {
        return Ok(ChildSearch {
            parent_id: parent_id.to_string(),
            hits: Vec::new(),
            examined: 0,
            empty_reason: Some(EmptyReason::NoSearchTerms {
                query: query.to_string(),
            }),
        });
    }
    let children = store.toc_children(parent_id).await?;
    Ok(rank_children(parent_id, children, &terms, fields, limit))
}

fn check_limit(limit: usize) -> Result<()> {
    if limit == 0 {
        return Err(Error::Toc("limit must be at least 1, got 0".into()));
    }
    Ok(())
}

/// Scores and ranks already-loaded children; `terms` must not be empty.
pub(crate) fn rank_children(
    parent_id: &str,
    children: Vec<TocNode>,
    terms: &QueryTerms,
    fields: &[SearchField],
    limit: usize,
) -> ChildSearch {
    let examined = children.len();
    let mut hits: Vec<ChildHit> = children
        .into_iter()
        .filter_map(|node| {
            let matches = match_node(&node, terms, fields);
            (!matches.is_empty()).then(|| ChildHit {
                score: average(&matches),
                node,
                matches,
            })
        })
        .collect();
    // Stable sort: children arrive sorted by start time, so time breaks the remaining ties.
    hits.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| best(&b.matches).total_cmp(&best(&a.matches)))
            .then_with(|| b.matches.len().cmp(&a.matches.len()))
    });
    hits.truncate(limit);
    let empty_reason = if !hits.is_empty() {
        None
    } else if examined == 0 {
        Some(EmptyReason::NoChildren {
            parent_id: parent_id.to_string(),
        })
    } else {
        Some(EmptyReason::NoMatch {
            terms: terms.words().to_vec(),
        })
    };
    ChildSearch {
        parent_id: parent_id.to_string(),
        hits,
        examined,
        empty_reason,
    }
}

fn average(matches: &[SearchMatch]) -> f32 {
    matches.iter().map(|m| m.score).sum::<f32>() / matches.len() as f32
}

fn best(matches: &[SearchMatch]) -> f32 {
    matches.iter().map(|m| m.score).fold(0.0, f32::max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{DateTime, Duration, TimeZone, Utc};
    use navigator_core::{MemoryStore, TocBullet, TocLevel, TocStore};

    fn at(day: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 1, day, 0, 0, 0).unwrap()
    }

    fn node(id: &str, day: u32, title: &str, bullets: &[(&str, &[&str])], kw: &[&str]) -> TocNode {
        TocNode {
            node_id: id.into(),
            level: TocLevel::Day,
            title: title.into(),
            start_time: at(day),
            end_time: at(day) + Duration::days(1),
            bullets: bullets
                .iter()
                .map(|(t, g)| TocBullet {
                    text: (*t).into(),
                    grip_ids: g.iter().map(|s| (*s).into()).collect(),
                })
                .collect(),
            keywords: kw.iter().map(|s| (*s).into()).collect(),
            child_node_ids: Vec::new(),
            version: 0,
            created_at: at(1),
        }
    }

    fn sample() -> TocNode {
        node(
            "toc:day:2026-01-27",
            27,
            "Tuesday 27 January 2026",
            &[
                ("Chose JWT access tokens", &["g1"]),
                ("Redis cache sizing", &["g2", "g3"]),
            ],
            &["jwt", "redis"],
        )
    }

    #[test]
    fn title_field_matches_the_title_without_grips() {
        let r = search_node(&sample(), "january", &[SearchField::Title]);
        assert_eq!(r.matches.len(), 1);
        assert_eq!(r.matches[0].field, SearchField::Title);
        assert!(r.matches[0].grip_ids.is_empty());
        assert_eq!(r.matches[0].score, 1.0);
    }

    #[test]
    fn summary_field_joins_bullets_and_carries_all_their_grips() {
        let r = search_node(&sample(), "jwt redis", &[SearchField::Summary]);
        assert_eq!(r.matches.len(), 1);
        assert_eq!(r.matches[0].score, 1.0);
        assert_eq!(r.matches[0].grip_ids, ["g1", "g2", "g3"]);
    }

    #[test]
    fn bullets_field_yields_one_match_per_matching_bullet() {
        let r = search_node(&sample(), "jwt redis", &[SearchField::Bullets]);
        let texts: Vec<_> = r.matches.iter().map(|m| m.text.as_str()).collect();
        assert_eq!(texts, ["Chose JWT access tokens", "Redis cache sizing"]);
        assert_eq!(r.matches[1].grip_ids, ["g2", "g3"]);
        assert!(r.matches.iter().all(|m| m.score == 0.5));
    }

    #[test]
    fn keywords_field_scores_the_keyword_list_as_one_text() {
        let r = search_node(&sample(), "JWT Redis", &[SearchField::Keywords]);
        assert_eq!(r.matches.len(), 1);
        assert_eq!(r.matches[0].text, "jwt, redis");
        assert_eq!(r.matches[0].score, 1.0);
    }

    #[test]
    fn empty_field_list_searches_every_field() {
        let r = search_node(&sample(), "jwt january", &[]);
        let fields: Vec<_> = r.matches.iter().map(|m| m.field).collect();
        assert_eq!(
            fields,
            [
                SearchField::Title,
                SearchField::Summary,
                SearchField::Bullets,
                SearchField::Keywords
            ]
        );
    }

    #[test]
    fn query_without_terms_returns_a_reason() {
        let r = search_node(&sample(), "to be or no", &[]);
        assert!(r.matches.is_empty());
        assert_eq!(
            r.empty_reason,
            Some(EmptyReason::NoSearchTerms {
                query: "to be or no".into()
            })
        );
    }

    #[test]
    fn query_that_matches_nothing_says_which_terms_were_looked_for() {
        let r = search_node(&sample(), "kubernetes", &[]);
        assert_eq!(
            r.empty_reason,
            Some(EmptyReason::NoMatch {
                terms: vec!["kubernetes".into()]
            })
        );
    }

    async fn store_with_children(children: Vec<TocNode>) -> MemoryStore {
        let store = MemoryStore::new();
        let mut parent = node("toc:week:2026-W05", 26, "Week 5", &[], &[]);
        parent.level = TocLevel::Week;
        parent.child_node_ids = children.iter().map(|c| c.node_id.clone()).collect();
        store.put_toc_node(parent).await.unwrap();
        for c in children {
            store.put_toc_node(c).await.unwrap();
        }
        store
    }

    #[tokio::test]
    async fn one_perfect_match_outranks_many_weak_ones() {
        let weak = node(
            "toc:day:2026-01-26",
            26,
            "Monday",
            &[
                ("jwt expiry", &[]),
                ("jwt library", &[]),
                ("rotation of on-call", &[]),
            ],
            &[],
        );
        let perfect = node(
            "toc:day:2026-01-28",
            28,
            "Wednesday",
            &[("jwt rotation", &[])],
            &[],
        );
        let store = store_with_children(vec![weak, perfect]).await;
        let r = search_children(
            &store,
            "toc:week:2026-W05",
            "jwt rotation",
            &[SearchField::Bullets],
            5,
        )
        .await
        .unwrap();
        let ranked: Vec<_> = r
            .hits
            .iter()
            .map(|h| (h.node.title.as_str(), h.score))
            .collect();
        assert_eq!(ranked, [("Wednesday", 1.0), ("Monday", 0.5)]);
    }

    #[tokio::test]
    async fn perfect_match_diluted_by_weak_ones_ranks_below_perfect_match_alone() {
        let diluted = node(
            "toc:day:2026-01-26",
            26,
            "Monday",
            &[("jwt rotation", &[]), ("jwt expiry", &[])],
            &[],
        );
        let alone = node(
            "toc:day:2026-01-28",
            28,
            "Wednesday",
            &[("jwt rotation", &[])],
            &[],
        );
        let store = store_with_children(vec![diluted, alone]).await;
        let r = search_children(
            &store,
            "toc:week:2026-W05",
            "jwt rotation",
            &[SearchField::Bullets],
            5,
        )
        .await
        .unwrap();
        assert_eq!(r.hits[0].node.title, "Wednesday");
        assert_eq!(r.hits[1].score, 0.75);
    }

    #[tokio::test]
    async fn children_without_match_are_dropped_and_limit_applies() {
        let days: Vec<TocNode> = (26..=30)
            .map(|d| {
                let text = if d == 29 {
                    "nothing here"
                } else {
                    "deploy went fine"
                };
                node(
                    &format!("toc:day:2026-01-{d}"),
                    d,
                    "day",
                    &[(text, &[])],
                    &[],
                )
            })
            .collect();
        let store = store_with_children(days).await;
        let r = search_children(&store, "toc:week:2026-W05", "deploy", &[], 3)
            .await
            .unwrap();
        assert_eq!(r.examined, 5);
        let ids: Vec<_> = r.hits.iter().map(|h| h.node.node_id.as_str()).collect();
        // Equal scores keep time order.
        assert_eq!(
            ids,
            [
                "toc:day:2026-01-26",
                "toc:day:2026-01-27",
                "toc:day:2026-01-28"
            ]
        );
    }

    #[tokio::test]
    async fn zero_limit_is_an_error_naming_the_limit() {
        let store = store_with_children(vec![sample()]).await;
        let err = search_children(&store, "toc:week:2026-W05", "jwt", &[], 0)
            .await
            .unwrap_err();
        assert!(err.to_string().contains("limit"), "{err}");
    }

    #[tokio::test]
    async fn unknown_parent_is_a_not_found_error() {
        let store = store_with_children(vec![]).await;
        let err = search_children(&store, "toc:week:1999-W01", "jwt", &[], 5)
            .await
            .unwrap_err();
        assert!(err.to_string().contains("toc:week:1999-W01"), "{err}");
    }

    #[tokio::test]
    async fn empty_results_always_carry_a_reason() {
        let store = store_with_children(vec![]).await;
        let none = search_children(&store, "toc:week:2026-W05", "jwt", &[], 5)
            .await
            .unwrap();
        assert_eq!(
            none.empty_reason,
            Some(EmptyReason::NoChildren {
                parent_id: "toc:week:2026-W05".into()
            })
        );
        let short = search_children(&store, "", "a b", &[], 5).await.unwrap();
        assert!(matches!(
            short.empty_reason,
            Some(EmptyReason::NoSearchTerms { .. })
        ));
    }
}
