//! Fusion: merging the keyword and vector candidate lists and turning their raw scores into
//! one calibrated relevance in `[0, 1]`. The formula is documented in the crate docs.
//!
//! Every signal is computed from the item and the query alone (plus, for keyword, the best
//! BM25 score of the same query), never from the rank of other results, so the same item and
//! query always score the same.

use crate::catalog::{normalize_title, ItemMeta};
use chrono::{DateTime, Utc};
use navigator_core::{Item, ResultMetadata, SearchMode, SearchResult};
use std::collections::HashMap;

/// The RRF constant (the usual 60): dampens the weight of the very first ranks.
pub const RRF_K: f64 = 60.0;

/// The weights and calibration constants of the relevance formula.
#[derive(Debug, Clone, PartialEq)]
pub struct Calibration {
    /// Weight of the normalised vector similarity (hybrid).
    pub vector_weight: f64,
    /// Weight of the keyword score (hybrid).
    pub keyword_weight: f64,
    /// Weight of recency (hybrid), scaled by how well the item matches.
    pub recency_weight: f64,
    /// Weight of access frequency (hybrid), scaled by how well the item matches.
    pub access_weight: f64,
    /// Cosine similarity that maps to 0 (what unrelated texts reach with the model).
    pub similarity_floor: f64,
    /// Cosine similarity that maps to 1 (a near paraphrase).
    pub similarity_ceiling: f64,
    /// Keyword saturation per query term: `k = bm25 / (best_bm25 + c * terms)`.
    pub keyword_saturation: f64,
    /// Days after which an item's recency signal halves.
    pub recency_half_life_days: f64,
    /// Access count at which the access signal reaches 1 (log scale).
    pub access_saturation: u64,
    /// Added when the query equals the item's title (case- and spacing-insensitive).
    pub exact_title_boost: f64,
    /// Added when the title contains the whole query as a phrase.
    pub title_phrase_boost: f64,
}

impl Default for Calibration {
    fn default() -> Self {
        Self {
            vector_weight: 0.4,
            keyword_weight: 0.3,
            recency_weight: 0.2,
            access_weight: 0.1,
            similarity_floor: 0.15,
            similarity_ceiling: 0.75,
            keyword_saturation: 1.0,
            recency_half_life_days: 90.0,
            access_saturation: 100,
            exact_title_boost: 0.2,
            title_phrase_boost: 0.1,
        }
    }
}

/// One fused candidate with its raw signals and final score.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Scored {
    pub(crate) key: u64,
    pub(crate) score: f64,
    pub(crate) rrf: f64,
    /// Raw BM25, when the keyword index matched the item.
    pub(crate) keyword: Option<f32>,
    /// Cosine similarity, when the query was embedded.
    pub(crate) similarity: Option<f32>,
}

impl Scored {
    /// The contract's search hit for `item` with this score and a snippet (`(text, field)`),
    /// as both backends return it.
    pub(crate) fn to_result(
        &self,
        item: &Item,
        (snippet, field): (String, &'static str),
    ) -> navigator_core::Result<SearchResult> {
        let hit = SearchResult::new(
            item.id.clone(),
            item.item_type,
            item.title.clone(),
            item.category,
            self.score,
        )?;
        Ok(hit
            .with_snippet(snippet, field)
            .with_metadata(ResultMetadata {
                created_at: Some(item.created_at),
                updated_at: Some(item.updated_at),
                parent_id: item.parent_id.clone(),
                status: item.status.clone(),
            }))
    }
}

/// What fusion needs besides the two lists.
pub(crate) struct FusionInput<'a> {
    pub(crate) mode: SearchMode,
    pub(crate) query: &'a str,
    pub(crate) query_terms: usize,
    pub(crate) now: DateTime<Utc>,
}

impl Calibration {
    /// Cosine similarity mapped affinely from `[floor, ceiling]` onto `[0, 1]`.
    pub(crate) fn vector_signal(&self, cosine: f32) -> f64 {
        let span = (self.similarity_ceiling - self.similarity_floor).max(f64::EPSILON);
        ((f64::from(cosine) - self.similarity_floor) / span).clamp(0.0, 1.0)
    }

    /// BM25 relative to the query's best BM25, damped when even the best match is weak.
    pub(crate) fn keyword_signal(&self, bm25: f32, best: f32, terms: usize) -> f64 {
        let c = self.keyword_saturation * terms.max(1) as f64;
        (f64::from(bm25) / (f64::from(best) + c)).clamp(0.0, 1.0)
    }

    /// Exponential decay of the time since the last update (1 for future dates).
    pub(crate) fn recency_signal(&self, updated: DateTime<Utc>, now: DateTime<Utc>) -> f64 {
        let age_days = (now - updated).num_seconds().max(0) as f64 / 86_400.0;
        0.5f64.powf(age_days / self.recency_half_life_days.max(f64::EPSILON))
    }

    /// `ln(1 + n) / ln(1 + saturation)`, capped at 1.
    pub(crate) fn access_signal(&self, count: u64) -> f64 {
        let sat = (1.0 + self.access_saturation.max(1) as f64).ln();
        ((1.0 + count as f64).ln() / sat).min(1.0)
    }

    /// The exact-match boost for `query` against a title.
    #[cfg(test)]
    pub(crate) fn exact_boost(&self, query: &str, title: &str) -> f64 {
        self.normalized_exact_boost(&normalize_title(query), &normalize_title(title))
    }

    /// [`exact_boost`](Self::exact_boost) on an already normalised query and title.
    fn normalized_exact_boost(&self, q: &str, t: &str) -> f64 {
        if q.is_empty() {
            0.0
        } else if q == t {
            self.exact_title_boost
        } else if q.chars().count() >= 3 && t.contains(q) {
            self.title_phrase_boost
        } else {
            0.0
        }
    }

    /// Merges the lists by reciprocal rank fusion, scores every candidate with the
    /// calibrated formula, and sorts best first (ties: higher RRF, then lower key).
    ///
    /// `keyword` and `vector` are best-first `(key, raw score)` lists; `similarity` gives the
    /// cosine of any candidate (the vector list's own, or computed exactly), `meta` the
    /// item's catalog entry (candidates without one are dropped).
    pub(crate) fn fuse<'m>(
        &self,
        input: &FusionInput<'_>,
        keyword: &[(u64, f32)],
        vector: &[(u64, f32)],
        similarity: &HashMap<u64, f32>,
        meta: impl Fn(u64) -> Option<&'m ItemMeta>,
    ) -> Vec<Scored> {
        let mut rrf: HashMap<u64, f64> = HashMap::new();
        for list in [keyword, vector] {
            for (rank, (key, _)) in list.iter().enumerate() {
                *rrf.entry(*key).or_default() += 1.0 / (RRF_K + rank as f64 + 1.0);
            }
        }
        let bm25: HashMap<u64, f32> = keyword.iter().copied().collect();
        let best = keyword.iter().map(|(_, s)| *s).fold(0.0f32, f32::max);
        let query = normalize_title(input.query);
        let mut out: Vec<Scored> = rrf
            .into_iter()
            .filter_map(|(key, rrf)| {
                let m = meta(key)?;
                let kw = bm25.get(&key).copied();
                let sim = similarity.get(&key).copied();
                let k = kw.map_or(0.0, |s| self.keyword_signal(s, best, input.query_terms));
                let v = sim.map_or(0.0, |c| self.vector_signal(c));
                let base = match input.mode {
                    SearchMode::Keyword => k,
                    SearchMode::Semantic => v,
                    SearchMode::Hybrid => {
                        let matched = self.vector_weight * v + self.keyword_weight * k;
                        // Recency and access order the items that match; scaled by how well
                        // the item matches, they cannot lift a fresh but unrelated item.
                        let gate = matched / (self.vector_weight + self.keyword_weight);
                        matched
                            + gate
                                * (self.recency_weight
                                    * self.recency_signal(m.updated_at, input.now)
                                    + self.access_weight * self.access_signal(m.access_count))
                    }
                };
                let score = (base
                    + self.normalized_exact_boost(&query, &normalize_title(&m.title)))
                .clamp(0.0, 1.0);
                Some(Scored {
                    key,
                    score,
                    rrf,
                    keyword: kw,
                    similarity: sim,
                })
            })
            .collect();
        out.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then(b.rrf.total_cmp(&a.rrf))
                .then(a.key.cmp(&b.key))
        });
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use navigator_core::{Item, ItemType};

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().to_utc()
    }

    fn meta(key: u64, title: &str, updated: &str, access: u64) -> ItemMeta {
        let mut item =
            Item::new(format!("i{key}"), ItemType::Resource, title, at(updated)).unwrap();
        item.access_count = access;
        ItemMeta::new(key, &item)
    }

    #[test]
    fn hybrid_scores_are_deterministic_bounded_and_sorted() {
        let c = Calibration::default();
        let metas = [
            meta(1, "Quarterly report", "2026-11-01T00:00:00Z", 50),
            meta(2, "Budget", "2025-01-01T00:00:00Z", 0),
            meta(3, "Report template", "2026-10-01T00:00:00Z", 3),
        ];
        let input = FusionInput {
            mode: SearchMode::Hybrid,
            query: "quarterly report",
            query_terms: 2,
            now: at("2026-11-21T00:00:00Z"),
        };
        let kw = [(1, 12.0), (3, 4.0)];
        let vec = [(1, 0.8), (2, 0.3), (3, 0.5)];
        let sims: HashMap<u64, f32> = vec.iter().copied().collect();
        let lookup = |k: u64| metas.iter().find(|m| m.key == k);
        let a = c.fuse(&input, &kw, &vec, &sims, lookup);
        let b = c.fuse(&input, &kw, &vec, &sims, lookup);
        assert_eq!(a, b);
        assert_eq!(a.iter().map(|s| s.key).collect::<Vec<_>>(), vec![1, 3, 2]);
        assert!(a.windows(2).all(|w| w[0].score >= w[1].score));
        assert!(a.iter().all(|s| (0.0..=1.0).contains(&s.score)));
        // Exact title + the best keyword and vector scores + fresh + popular: capped at 1.
        assert_eq!(a[0].score, 1.0);
    }

    #[test]
    fn single_mode_uses_only_its_signal() {
        let c = Calibration::default();
        let metas = [meta(1, "Alpha", "2020-01-01T00:00:00Z", 0)];
        let sims = HashMap::from([(1, 0.45f32)]);
        let input = FusionInput {
            mode: SearchMode::Semantic,
            query: "beta",
            query_terms: 1,
            now: at("2026-11-21T00:00:00Z"),
        };
        let s = c.fuse(&input, &[], &[(1, 0.45)], &sims, |k| {
            metas.iter().find(|m| m.key == k)
        });
        assert!((s[0].score - 0.5).abs() < 1e-6, "{}", s[0].score);
    }

    #[test]
    fn signals_follow_their_definitions() {
        let c = Calibration::default();
        let now = at("2026-11-21T00:00:00Z");
        assert!((c.recency_signal(now - chrono::Duration::days(90), now) - 0.5).abs() < 1e-9);
        assert_eq!(c.recency_signal(now + chrono::Duration::days(3), now), 1.0);
        assert_eq!(c.access_signal(0), 0.0);
        assert_eq!(c.access_signal(100), 1.0);
        assert_eq!(c.vector_signal(0.1), 0.0);
        assert_eq!(c.vector_signal(0.9), 1.0);
        assert!((c.keyword_signal(10.0, 10.0, 1) - 10.0 / 11.0).abs() < 1e-9);
        assert_eq!(c.exact_boost("project  PHOENIX", "Project Phoenix"), 0.2);
        assert_eq!(c.exact_boost("phoenix", "Project Phoenix"), 0.1);
        assert_eq!(c.exact_boost("x", "Project Phoenix"), 0.0);
    }
}
