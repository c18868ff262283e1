//! The embedding pre-router: decides confident delegations without an LLM call.
//!
//! Exemplar utterances per intent are embedded once. A message is embedded and each intent
//! scored as the mean cosine similarity of its three closest exemplars of that intent (one
//! near-duplicate exemplar alone is weaker evidence than three); the best intent wins. The
//! router decides only when the winner is a **delegation** whose score reaches the threshold:
//! a `direct_answer` still needs the LLM to write the answer and `clarify` / `cannot_help` need
//! its wording, so routing those would save no call. Everything else goes to the LLM.
//! (Measured alternatives — the closest exemplar alone, five, or the margin over the runner-up
//! intent as the confidence — routed no more at the same precision; see `docs/`.)
//!
//! The threshold is calibrated ([`PreRouter::calibrate`]) by leave-one-out over the exemplars:
//! each exemplar is scored against all the others, and the threshold is the lowest score at
//! which the routed decisions are at least `target_precision` correct. Held-out utterances
//! play no part. A router that cannot reach the target routes nothing.

use super::{Intent, LabelledUtterance, Result};
use navigator_core::{cosine, Embedder};
use std::sync::Arc;

/// Exemplars per intent averaged into its score.
const TOP_K: usize = 3;

/// A threshold no cosine mean reaches: the router never decides.
const NEVER: f32 = 1.01;

/// The router's view of one message.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RouteScore {
    /// The best-scoring intent.
    pub intent: Intent,
    /// Its score (mean cosine similarity of its closest exemplars).
    pub score: f32,
    /// Whether the router decides this message (a delegation at or above the threshold).
    pub routed: bool,
}

/// What calibration found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Calibration {
    /// The chosen threshold.
    pub threshold: f32,
    /// Precision of the routed leave-one-out decisions at that threshold.
    pub precision: f64,
    /// Share of exemplars routed (leave-one-out) at that threshold.
    pub coverage: f64,
}

/// The router measured on labelled utterances.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Evaluation {
    /// Utterances measured.
    pub total: usize,
    /// Utterances the router decided (each one a classification call saved).
    pub routed: usize,
    /// Routed utterances it got right.
    pub routed_correct: usize,
    /// Utterances whose best-scoring intent was right, routed or not.
    pub top1_correct: usize,
}

impl Evaluation {
    /// Share of routed decisions that were right.
    pub fn routed_accuracy(&self) -> f64 {
        ratio(self.routed_correct, self.routed)
    }

    /// Share of utterances routed without an LLM call.
    pub fn routed_share(&self) -> f64 {
        ratio(self.routed, self.total)
    }

    /// Nearest-exemplar accuracy over all utterances.
    pub fn top1_accuracy(&self) -> f64 {
        ratio(self.top1_correct, self.total)
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// Embedded exemplars and a threshold.
#[derive(Clone)]
pub struct PreRouter {
    embedder: Arc<dyn Embedder>,
    exemplars: Vec<(Intent, Vec<f32>)>,
    threshold: f32,
}

impl std::fmt::Debug for PreRouter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PreRouter")
            .field("model", &self.embedder.model_id())
            .field("exemplars", &self.exemplars.len())
            .field("threshold", &self.threshold)
            .finish()
    }
}

impl PreRouter {
    /// Embeds `exemplars`; messages scoring at least `threshold` for a delegation are routed.
    pub async fn new(
        embedder: Arc<dyn Embedder>,
        exemplars: &[LabelledUtterance],
        threshold: f32,
    ) -> Result<Self> {
        if exemplars.is_empty() {
            return Err(super::ButlerError::invalid(
                "exemplars",
                "at least one exemplar is needed",
            ));
        }
        if !threshold.is_finite() {
            return Err(super::ButlerError::invalid(
                "threshold",
                format!("must be finite, got {threshold}"),
            ));
        }
        let texts: Vec<&str> = exemplars.iter().map(|u| u.text.as_str()).collect();
        let vectors = embedder.embed(&texts).await?;
        let exemplars = exemplars.iter().map(|u| u.intent).zip(vectors).collect();
        Ok(Self {
            embedder,
            exemplars,
            threshold,
        })
    }

    /// Builds a router from `exemplars` and picks the lowest threshold at which its
    /// leave-one-out decisions on them are at least `target_precision` right.
    pub async fn calibrate(
        embedder: Arc<dyn Embedder>,
        exemplars: &[LabelledUtterance],
        target_precision: f64,
    ) -> Result<(Self, Calibration)> {
        let mut router = Self::new(embedder, exemplars, NEVER).await?;
        let mut scored = Vec::with_capacity(exemplars.len());
        for (i, (label, v)) in router.exemplars.iter().enumerate() {
            let (intent, score) = router.best(v, Some(i));
            if intent.is_delegation() {
                scored.push((score, intent == *label));
            }
        }
        // Highest first: lowering the threshold past each score admits one more decision.
        scored.sort_by(|a, b| b.0.total_cmp(&a.0));
        let mut best = Calibration {
            threshold: NEVER,
            precision: 0.0,
            coverage: 0.0,
        };
        let mut correct = 0;
        for (i, &(score, right)) in scored.iter().enumerate() {
            correct += usize::from(right);
            let precision = ratio(correct, i + 1);
            let tie_follows = scored.get(i + 1).is_some_and(|n| n.0 == score);
            if precision >= target_precision && !tie_follows {
                best = Calibration {
                    threshold: score,
                    precision,
                    coverage: ratio(i + 1, exemplars.len()),
                };
            }
        }
        router.threshold = best.threshold;
        Ok((router, best))
    }

    /// The threshold.
    pub fn threshold(&self) -> f32 {
        self.threshold
    }

    /// Scores `text` against every intent.
    pub async fn score(&self, text: &str) -> Result<RouteScore> {
        let v = self.embedder.embed_query(text).await?;
        let (intent, score) = self.best(&v, None);
        Ok(RouteScore {
            intent,
            score,
            routed: intent.is_delegation() && score >= self.threshold,
        })
    }

    /// The best intent for `v` and its score, ignoring exemplar `skip`.
    fn best(&self, v: &[f32], skip: Option<usize>) -> (Intent, f32) {
        let mut scores: Vec<(Intent, f32)> = Vec::with_capacity(Intent::ALL.len());
        for intent in Intent::ALL {
            let mut sims: Vec<f32> = self
                .exemplars
                .iter()
                .enumerate()
                .filter(|&(n, (i, _))| *i == intent && Some(n) != skip)
                .map(|(_, (_, e))| cosine(v, e))
                .collect();
            if sims.is_empty() {
                continue;
            }
            sims.sort_by(|a, b| b.total_cmp(a));
            let k = sims.len().min(TOP_K);
            scores.push((intent, sims[..k].iter().sum::<f32>() / k as f32));
        }
        scores
            .into_iter()
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .unwrap_or((Intent::Clarify, 0.0))
    }

    /// Measures the router on `items`.
    pub async fn evaluate(&self, items: &[LabelledUtterance]) -> Result<Evaluation> {
        let mut e = Evaluation {
            total: items.len(),
            routed: 0,
            routed_correct: 0,
            top1_correct: 0,
        };
        for u in items {
            let s = self.score(&u.text).await?;
            e.top1_correct += usize::from(s.intent == u.intent);
            if s.routed {
                e.routed += 1;
                e.routed_correct += usize::from(s.intent == u.intent);
            }
        }
        Ok(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use async_trait::async_trait;

    /// One dimension per known word: texts sharing words are similar, others orthogonal.
    struct Words;

    const VOCAB: [&str; 6] = ["inbox", "email", "meeting", "calendar", "hello", "find"];

    #[async_trait]
    impl Embedder for Words {
        fn model_id(&self) -> &str {
            "words"
        }
        fn dimensions(&self) -> usize {
            VOCAB.len() + 1
        }
        async fn embed(&self, texts: &[&str]) -> navigator_core::Result<Vec<Vec<f32>>> {
            Ok(texts
                .iter()
                .map(|t| {
                    let mut v: Vec<f32> = VOCAB
                        .iter()
                        .map(|w| f32::from(u8::from(t.contains(w))))
                        .collect();
                    v.push(0.1);
                    navigator_core::l2_normalize(&mut v);
                    v
                })
                .collect())
        }
    }

    fn u(text: &str, intent: Intent) -> LabelledUtterance {
        LabelledUtterance {
            text: text.into(),
            intent,
        }
    }

    fn exemplars() -> Vec<LabelledUtterance> {
        vec![
            u("inbox email", Intent::DelegateTriage),
            u("inbox", Intent::DelegateTriage),
            u("email inbox now", Intent::DelegateTriage),
            u("meeting calendar", Intent::DelegateSchedule),
            u("calendar", Intent::DelegateSchedule),
            u("meeting", Intent::DelegateSchedule),
            u("hello", Intent::DirectAnswer),
            u("hello hello", Intent::DirectAnswer),
        ]
    }

    #[tokio::test]
    async fn calibrated_router_routes_clear_delegations_and_never_answers() {
        let (router, cal) = PreRouter::calibrate(Arc::new(Words), &exemplars(), 0.95)
            .await
            .unwrap();
        assert!(cal.precision >= 0.95 && cal.threshold < NEVER, "{cal:?}");
        let s = router.score("check my inbox email").await.unwrap();
        assert_eq!((s.intent, s.routed), (Intent::DelegateTriage, true));
        let hello = router.score("hello").await.unwrap();
        assert_eq!((hello.intent, hello.routed), (Intent::DirectAnswer, false));
        let e = router
            .evaluate(&[
                u("inbox please", Intent::DelegateTriage),
                u("hello", Intent::DirectAnswer),
            ])
            .await
            .unwrap();
        assert_eq!(
            (e.total, e.routed, e.routed_correct, e.top1_correct),
            (2, 1, 1, 2)
        );
    }

    #[tokio::test]
    async fn an_unreachable_precision_routes_nothing() {
        // Mislabelled exemplars: leave-one-out can never be right.
        let wrong = vec![
            u("inbox", Intent::DelegateTriage),
            u("inbox", Intent::DelegateSchedule),
        ];
        let (router, cal) = PreRouter::calibrate(Arc::new(Words), &wrong, 0.95)
            .await
            .unwrap();
        assert_eq!(cal.threshold, NEVER);
        assert!(!router.score("inbox").await.unwrap().routed);
    }

    #[tokio::test]
    async fn empty_exemplars_and_non_finite_thresholds_are_rejected() {
        assert!(PreRouter::new(Arc::new(Words), &[], 0.5).await.is_err());
        let err = PreRouter::new(Arc::new(Words), &exemplars(), f32::NAN)
            .await
            .unwrap_err();
        assert!(err.to_string().contains("threshold"), "{err}");
    }
}
