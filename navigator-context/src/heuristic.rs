//! [`HeuristicPolicy`]: an offline policy that needs no API key.
//!
//! It moves the way a person reads a map, one zoom per turn, from the offline ranking (BM25
//! over paths, symbols, docs and bodies plus the reference graph):
//! 1. from the satellite view, zoom in on the areas (directories) holding the best matches and
//!    out of everything else, with the best files' signatures;
//! 2. zoom in on the files: full source for the few that matter, as the packed plan will have
//!    them;
//! 3. spend the rest of the budget: the packed plan, with outlines for the next files and
//!    collapsed directories for the rest, zooming out of areas that did not make it;
//! 4. finalise.
//!
//! Feedback from an approver re-ranks and re-packs, then finalises on the next turn.

use crate::error::Result;
use crate::flight_plan::{FlightPlan, Level};
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
    /// Turns taken so far.
    stage: usize,
}

impl HeuristicPolicy {
    /// A fresh policy.
    pub fn new() -> Self {
        Self::default()
    }
}

/// Areas (directories) zoomed into on the first turn.
const AREAS: usize = 3;
/// Files whose signatures the first turn shows.
const FIRST_FILES: usize = 5;
/// How far down the ranking the first turn looks for areas.
const AREA_FILES: usize = 12;

#[async_trait]
impl Policy for HeuristicPolicy {
    fn name(&self) -> &str {
        "heuristic"
    }

    fn projected_usd(&self, _input: &TurnInput<'_>) -> Result<f64> {
        Ok(0.0)
    }

    async fn decide(&mut self, input: &TurnInput<'_>) -> Result<Decision> {
        let action = if input.feedback.is_some() {
            self.stage = 3;
            repack(input)
        } else {
            self.stage += 1;
            match self.stage {
                1 => zoom_areas(input),
                2 => zoom_files(input),
                3 => repack(input),
                _ => {
                    let used = input.current.tokens as f64 / input.plan.token_budget as f64;
                    Action::FinalizeContext {
                        reasoning: format!(
                            "the map uses {:.0}% of the token budget; {}; more turns would not change the ranking",
                            used * 100.0,
                            best_file_shown(input)
                        ),
                    }
                }
            }
        };
        Ok(Decision {
            action,
            usage: Usage::default(),
            usd: 0.0,
            gave_up: None,
        })
    }
}

/// How the context shows the best-ranked file: whole, zoomed into items, or only as an
/// outline or its path (it did not fit the budget whole).
fn best_file_shown(input: &TurnInput<'_>) -> String {
    let Some(best) = input.ranking.first() else {
        return "no file matches the goal".into();
    };
    let path = &best.path;
    let level = input
        .current
        .levels
        .iter()
        .find(|(p, _)| p == path)
        .map_or(Level::Hidden, |&(_, l)| l);
    let focus = input
        .plan
        .rules
        .iter()
        .find(|r| r.path == *path)
        .map_or(&[][..], |r| r.focus.as_slice());
    match level {
        Level::Full => format!("the best-ranked file, {path}, at full source"),
        Level::TopLevel | Level::Signatures if !focus.is_empty() => format!(
            "the best-ranked file, {path}, too big to show whole, zoomed into {}",
            focus.join(", ")
        ),
        Level::TopLevel | Level::Signatures => format!(
            "the best-ranked file, {path}, as an outline: too big to show whole, and no item of it both matches the goal and fits"
        ),
        _ => format!("the best-ranked file, {path}, by its path only: not even its outline fits"),
    }
}

/// Turn one: directories of the best matches at top-level signatures, the best files with all
/// signatures and docs, everything else folded into directory counts.
fn zoom_areas(input: &TurnInput<'_>) -> Action {
    let mut areas: Vec<(String, f64)> = Vec::new();
    for s in input.ranking.iter().take(AREA_FILES) {
        let dir = match s.path.rfind('/') {
            Some(i) => s.path[..=i].to_string(),
            None => continue,
        };
        match areas.iter_mut().find(|(d, _)| *d == dir) {
            Some(a) => a.1 += s.score,
            None => areas.push((dir, s.score)),
        }
    }
    areas.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    areas.truncate(AREAS);
    let files: Vec<&str> = input
        .ranking
        .iter()
        .take(FIRST_FILES)
        .map(|s| s.path.as_str())
        .collect();
    let mut changes = vec![RuleChange {
        path: "**".into(),
        level: Level::Path as u8,
        collapse: true,
        focus: Vec::new(),
        max_items: None,
    }];
    changes.extend(areas.iter().map(|(d, _)| RuleChange {
        path: d.clone(),
        level: Level::TopLevel as u8,
        collapse: false,
        focus: Vec::new(),
        max_items: None,
    }));
    changes.extend(files.iter().map(|p| RuleChange {
        path: p.to_string(),
        level: Level::Signatures as u8,
        collapse: false,
        focus: Vec::new(),
        max_items: None,
    }));
    let names: Vec<&str> = areas.iter().map(|(d, _)| d.as_str()).collect();
    Action::UpdateFlightPlan {
        changes,
        reasoning: format!(
            "zoom in on the areas holding the best matches ({}) and on the signatures of {}; zoom out of the rest (directory counts)",
            if names.is_empty() { "none".to_string() } else { names.join(", ") },
            files.join(", ")
        ),
    }
}

/// The paths a packed plan shows at full source.
fn full_source_paths(packed: &FlightPlan) -> Vec<&str> {
    packed
        .rules
        .iter()
        .filter(|r| r.level == Level::Full)
        .map(|r| r.path.as_str())
        .collect()
}

/// The rules of a packed plan that zoom into items of a file too big to show whole.
fn focused_rules(packed: &FlightPlan) -> Vec<&crate::flight_plan::Rule> {
    packed
        .rules
        .iter()
        .filter(|r| !r.focus.is_empty() && r.level < Level::Full)
        .collect()
}

/// Turn two: full source for the files the packed plan gives full source to, and for the
/// items it shows of files too big to show whole.
fn zoom_files(input: &TurnInput<'_>) -> Action {
    let packed = pack(input.map, input.ranking, input.plan);
    let full = full_source_paths(&packed);
    let focused = focused_rules(&packed);
    let mut changes: Vec<RuleChange> = full
        .iter()
        .map(|p| RuleChange {
            path: p.to_string(),
            level: Level::Full as u8,
            collapse: false,
            focus: Vec::new(),
            max_items: None,
        })
        .collect();
    changes.extend(focused.iter().map(|r| RuleChange {
        path: r.path.clone(),
        level: r.level.into(),
        collapse: false,
        focus: r.focus.clone(),
        max_items: r.max_items,
    }));
    let mut what: Vec<String> = full.iter().map(|p| p.to_string()).collect();
    what.extend(
        focused
            .iter()
            .map(|r| format!("{} ({})", r.path, r.focus.join(", "))),
    );
    Action::UpdateFlightPlan {
        changes,
        reasoning: format!(
            "zoom in: full source for {}",
            if what.is_empty() {
                "none (no file fits whole)".to_string()
            } else {
                what.join(", ")
            }
        ),
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
            focus: r.focus.clone(),
            max_items: r.max_items,
        })
        .collect();
    // Zoom out of whatever an earlier turn zoomed in on and the new ranking dropped: back into
    // the directory counts, like everything else outside the plan.
    changes.extend(
        input
            .plan
            .rules
            .iter()
            .filter(|r| !new_paths.contains(r.path.as_str()))
            .map(|r| RuleChange {
                path: r.path.clone(),
                level: Level::Path as u8,
                collapse: r.path.ends_with('/'),
                focus: Vec::new(),
                max_items: None,
            }),
    );
    let full = full_source_paths(&packed);
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
