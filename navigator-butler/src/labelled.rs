//! The labelled utterance set the pre-router learns from and is measured on, and its fixed
//! three-way split.

use super::{ButlerError, Intent, Result};
use serde::Deserialize;
use std::collections::BTreeMap;

/// The bundled labelled set: 250 utterances, 25 per intent, JSON lines
/// `{"text": "...", "intent": "delegate_search"}`.
pub const BUNDLED_UTTERANCES: &str = include_str!("../../examples/data/butler/utterances.jsonl");

/// One utterance and its intent.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LabelledUtterance {
    /// What the person said.
    pub text: String,
    /// What the Butler should do with it.
    pub intent: Intent,
}

/// Which part of the set an utterance belongs to.
///
/// Within each intent, in file order, every third utterance (`i mod 3 == 2`) is held out for
/// evaluation; the rest are the router's exemplars, on which its threshold is also calibrated
/// (leave-one-out). A fixed rule rather than a random split: the figures in `docs/` can be
/// reproduced exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Split {
    /// Embedded as the router's exemplars and used to calibrate its threshold.
    Exemplars,
    /// Held out for the reported figures.
    Evaluation,
}

/// A labelled set.
///
/// ```
/// use navigator_butler::{LabelledSet, Split};
/// let set = LabelledSet::bundled()?;
/// assert_eq!(set.len(), 250);
/// assert_eq!(set.split(Split::Evaluation).len(), 80);
/// # Ok::<(), navigator_butler::ButlerError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabelledSet {
    items: Vec<LabelledUtterance>,
}

impl LabelledSet {
    /// Parses JSON lines; blank lines are skipped, a bad line is an error naming its number.
    pub fn parse(jsonl: &str) -> Result<Self> {
        let mut items = Vec::new();
        for (i, line) in jsonl.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let item: LabelledUtterance =
                serde_json::from_str(line).map_err(|e| ButlerError::LabelledSet {
                    line: i + 1,
                    message: e.to_string(),
                })?;
            if item.text.trim().is_empty() {
                return Err(ButlerError::LabelledSet {
                    line: i + 1,
                    message: "empty text".into(),
                });
            }
            items.push(item);
        }
        Ok(Self { items })
    }

    /// The set shipped with the crate.
    pub fn bundled() -> Result<Self> {
        Self::parse(BUNDLED_UTTERANCES)
    }

    /// Every utterance, in file order.
    pub fn items(&self) -> &[LabelledUtterance] {
        &self.items
    }

    /// How many utterances.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The utterances of one split, in file order.
    pub fn split(&self, split: Split) -> Vec<LabelledUtterance> {
        let mut seen: BTreeMap<Intent, usize> = BTreeMap::new();
        self.items
            .iter()
            .filter(|item| {
                let n = seen.entry(item.intent).or_default();
                *n += 1;
                ((*n - 1) % 3 == 2) == (split == Split::Evaluation)
            })
            .cloned()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_set_covers_every_intent_with_25_distinct_utterances() {
        let set = LabelledSet::bundled().unwrap();
        for intent in Intent::ALL {
            let texts: std::collections::BTreeSet<_> = set
                .items()
                .iter()
                .filter(|u| u.intent == intent)
                .map(|u| u.text.as_str())
                .collect();
            assert_eq!(texts.len(), 25, "{intent}");
        }
    }

    #[test]
    fn splits_are_disjoint_and_cover_the_set() {
        let set = LabelledSet::bundled().unwrap();
        let (train, held_out) = (set.split(Split::Exemplars), set.split(Split::Evaluation));
        assert_eq!((train.len(), held_out.len()), (170, 80));
        for u in &held_out {
            assert!(!train.contains(u), "{}", u.text);
        }
    }

    #[test]
    fn bad_lines_are_named() {
        let err = LabelledSet::parse("{\"text\":\"hi\",\"intent\":\"direct_answer\"}\n\n{\"text\":\"x\",\"intent\":\"nope\"}").unwrap_err();
        assert!(err.to_string().starts_with("labelled set line 3:"), "{err}");
        assert!(LabelledSet::parse("{\"text\":\" \",\"intent\":\"clarify\"}").is_err());
    }
}
