//! The [`Policy`] trait: what decides the next change to the Flight Plan each turn.

use crate::error::{Error, Result};
use crate::flight_plan::{FlightPlan, Level, Rule};
use crate::relevance::Scored;
use crate::render::Rendered;
use crate::report::{DecisionLog, LogEntry};
use crate::scan::RepoMap;
use async_trait::async_trait;
use navigator_core::Usage;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One rule the policy wants set (replacing a rule with the same path).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RuleChange {
    /// Glob, exact file path, or directory ending in `/`, relative to the repository root.
    pub path: String,
    /// 0 hidden, 1 path only, 2 top-level signatures, 3 all signatures + docs, 4 full source.
    pub level: u8,
    /// Fold the matched files into one line per directory with a file count.
    #[serde(default)]
    pub collapse: bool,
    /// At levels 2 and 3: items to show at full source inside the outline, by qualified name
    /// (`Class.method`, `Type::method`), for files too big to show whole.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub focus: Vec<String>,
    /// At levels 2 and 3 without `focus`: show at most this many outline entries (those
    /// sharing a word with the goal first) and count the rest, for a long outline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u32>,
}

/// What a policy decided.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum Action {
    /// Zoom in or out: set these rules, then take another turn.
    UpdateFlightPlan {
        /// Rules to set.
        changes: Vec<RuleChange>,
        /// Why, in a sentence or two.
        reasoning: String,
    },
    /// The context is good enough: stop.
    FinalizeContext {
        /// Why.
        reasoning: String,
    },
}

impl Action {
    /// `update_flight_plan` or `finalize_context`.
    pub fn name(&self) -> &'static str {
        match self {
            Action::UpdateFlightPlan { .. } => "update_flight_plan",
            Action::FinalizeContext { .. } => "finalize_context",
        }
    }

    /// The reasoning given.
    pub fn reasoning(&self) -> &str {
        match self {
            Action::UpdateFlightPlan { reasoning, .. } | Action::FinalizeContext { reasoning } => {
                reasoning
            }
        }
    }

    /// The paths the action targets.
    pub fn targets(&self) -> Vec<String> {
        match self {
            Action::UpdateFlightPlan { changes, .. } => {
                changes.iter().map(|c| c.path.clone()).collect()
            }
            Action::FinalizeContext { .. } => Vec::new(),
        }
    }

    /// The decision log's record of this action at turn `step`.
    pub(crate) fn log_entry(&self, step: usize) -> LogEntry {
        LogEntry {
            step,
            action: self.name().to_string(),
            targets: self.targets(),
            reasoning: self.reasoning().to_string(),
        }
    }
}

/// A policy's answer for one turn, with what it cost.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// The action.
    pub action: Action,
    /// Tokens the decision consumed (zero for offline policies).
    pub usage: Usage,
    /// What the decision cost in USD.
    pub usd: f64,
    /// Set when the policy could not decide and stands in `action` (a finalise) for it: why
    /// (a model that answered every try with no valid action). The explorer reports it as
    /// [`StopReason::PolicyFailed`](crate::StopReason::PolicyFailed), not as a finalised context.
    pub gave_up: Option<String>,
}

/// Everything a policy may look at in one turn: the state, never the history of maps.
#[derive(Debug, Clone, Copy)]
pub struct TurnInput<'a> {
    /// 1-based turn number.
    pub step: usize,
    /// The immutable goal.
    pub goal: &'a str,
    /// The prompt built from goal, current map and decision log.
    pub prompt: &'a str,
    /// The repository.
    pub map: &'a RepoMap,
    /// The current Flight Plan.
    pub plan: &'a FlightPlan,
    /// The current map, rendered.
    pub current: &'a Rendered,
    /// Past decisions.
    pub log: &'a DecisionLog,
    /// The offline relevance ranking of the goal (plus any feedback).
    pub ranking: &'a [Scored],
    /// Feedback from the person approving turns, if they gave some.
    pub feedback: Option<&'a str>,
    /// USD left in the budget before this turn (`None`: no limit); a policy that retries
    /// within a turn must not pass it.
    pub usd_left: Option<f64>,
}

/// Decides each turn's change to the Flight Plan.
#[async_trait]
pub trait Policy: Send {
    /// A short name for reports and errors.
    fn name(&self) -> &str;

    /// A conservative projection of what [`decide`](Policy::decide) will cost on this input,
    /// in USD; the explorer does not run a turn whose projection would exceed the budget.
    fn projected_usd(&self, input: &TurnInput<'_>) -> Result<f64>;

    /// Decides the next action.
    async fn decide(&mut self, input: &TurnInput<'_>) -> Result<Decision>;
}

/// Applies rule changes to a plan, validating each path (inside the root, valid glob).
pub(crate) fn apply(
    plan: &mut FlightPlan,
    changes: &[RuleChange],
    policy: &str,
    step: usize,
) -> Result<()> {
    for c in changes {
        let err = |message: String| Error::Policy {
            policy: policy.to_string(),
            step,
            message,
        };
        let level = Level::try_from(i64::from(c.level))
            .map_err(|m| err(format!("path `{}`: {m}", c.path)))?;
        crate::flight_plan::check_rule_path(&c.path).map_err(&err)?;
        crate::flight_plan::compile_glob(&c.path).map_err(&err)?;
        if c.max_items == Some(0) {
            return Err(err(format!(
                "path `{}`: max_items must be at least 1",
                c.path
            )));
        }
        let rule = Rule {
            path: c.path.clone(),
            level,
            collapse: c.collapse,
            focus: c.focus.clone(),
            max_items: c.max_items,
        };
        match plan.rules.iter_mut().find(|r| r.path == c.path) {
            Some(r) => *r = rule,
            None => plan.rules.push(rule),
        }
    }
    Ok(())
}
