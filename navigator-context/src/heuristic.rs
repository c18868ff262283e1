//! [`HeuristicPolicy`]: an offline policy that needs no API key.
//!
//! Turn one zooms from the satellite view straight to a packed plan built from the offline
//! ranking (BM25 over paths, symbols, docs and bodies plus the reference graph): full source
//! for the few files that matter, outlines for the next, collapsed directories for the rest.
//! The next turn finalises, unless the approver gave feedback, which re-ranks and re-packs.

use crate::error::Result;
use crate::flight_plan::Level;
use crate::pack::pack;
use crate::policy::{Action, Decision, Policy, RuleChange, TurnInput};
use async_trait::async_trait;
use navigator_core::Usage;
use std::collections::HashSet;

/// The offline policy.
///
/// ```
/// use navigator_context::{HeuristicPolicy, Policy};
/// assert_eq!(HeuristicPolicy::new().name(), "heuristic");
/// ```
#[derive(Debug, Clone, Default)]
pub struct HeuristicPolicy {
    packed: bool,
}

impl HeuristicPolicy {
    /// A fresh policy.
    pub fn new() -> Self {
        Self::default()
    }
}

#[async_trait]
impl Policy for HeuristicPolicy {
    fn name(&self) -> &str {
        "heuristic"
    }

    fn projected_usd(&self, _input: &TurnInput<'_>) -> Result<f64> {
        Ok(0.0)
    }

    async fn decide(&mut self, input: &TurnInput<'_>) -> Result<Decision> {
        let action = if !self.packed || input.feedback.is_some() {
            self.packed = true;
            repack(input)
        } else {
            let used = input.current.tokens as f64 / input.plan.token_budget as f64;
            Action::FinalizeContext {
                reasoning: format!(
                    "the map uses {:.0}% of the token budget with the best-ranked files at full source; more turns would not change the ranking",
                    used * 100.0
                ),
            }
        };
        Ok(Decision {
            action,
            usage: Usage::default(),
            usd: 0.0,
        })
    }
}

fn repack(input: &TurnInput<'_>) -> Action {
    let packed = pack(input.map, input.ranking, input.plan);
    let new_paths: HashSet<&str> = packed.rules.iter().map(|r| r.path.as_str()).collect();
    let mut changes: Vec<RuleChange> = packed
        .rules
        .iter()
        .map(|r| RuleChange {
            path: r.path.clone(),
            level: r.level.into(),
            collapse: r.collapse,
        })
        .collect();
    // Zoom out of whatever an earlier turn zoomed in on and the new ranking dropped.
    changes.extend(
        input
            .plan
            .rules
            .iter()
            .filter(|r| !new_paths.contains(r.path.as_str()))
            .map(|r| RuleChange {
                path: r.path.clone(),
                level: 0,
                collapse: false,
            }),
    );
    let full: Vec<&str> = packed
        .rules
        .iter()
        .filter(|r| r.level == Level::Full)
        .map(|r| r.path.as_str())
        .collect();
    let outlined = packed
        .rules
        .iter()
        .filter(|r| matches!(r.level, Level::TopLevel | Level::Signatures))
        .count();
    let why = match input.feedback {
        Some(f) => format!("re-ranked with the feedback \"{f}\"; "),
        None => String::new(),
    };
    Action::UpdateFlightPlan {
        changes,
        reasoning: format!(
            "{why}zoom in: full source for {} ({}), outlines for {outlined} more relevant files; zoom out: everything else collapsed to directory counts",
            full.len(),
            if full.is_empty() { "none fit".to_string() } else { full.join(", ") },
        ),
    }
}
