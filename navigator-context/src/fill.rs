//! Filling the budget a policy left unspent: a model that finalises on the satellite view (or
//! after a zoom or two) would otherwise hand over a context of a few hundred tokens out of
//! ten thousand. The offline ranking's packed plan then shows the files the policy set no rule
//! for; every file a policy rule matches keeps the policy's choice.

use crate::error::Result;
use crate::flight_plan::{FlightPlan, Rule};
use crate::pack::pack;
use crate::relevance::Scored;
use crate::render::render;
use crate::scan::RepoMap;
use crate::verbosity::RuleSet;

/// A context under this share of the token budget is filled.
const FILL_BELOW: f64 = 0.75;

/// What [`fill_unspent`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Filled {
    /// The context's tokens before the fill.
    pub before: usize,
    /// Rules of the packed plan added.
    pub rules: usize,
}

/// `plan` with the packed plan of `ranking` for the files no rule the policy set matches
/// (`initial`: the rules the exploration started from, which are not the policy's), when the
/// context of `plan` takes less than [`FILL_BELOW`] of its budget; `None` otherwise. The
/// result may exceed the budget: the caller fits it.
pub(crate) fn fill_unspent(
    map: &RepoMap,
    plan: &FlightPlan,
    initial: &[Rule],
    ranking: &[Scored],
) -> Result<Option<(FlightPlan, Filled)>> {
    let before = render(map, plan)?.tokens;
    if ranking.is_empty() || before as f64 >= FILL_BELOW * plan.token_budget as f64 {
        return Ok(None);
    }
    // Matched as a plan's rules are (`RuleSet`: plain paths looked up, only real globs
    // compiled): thousands of path rules compiled into one glob set, at a budget of millions
    // of tokens, passed the regex engine's size limit ("error building NFA").
    let own: Vec<Rule> = plan
        .rules
        .iter()
        .filter(|r| !initial.contains(r))
        .cloned()
        .collect();
    let own_set = RuleSet::compile(&own)?;
    // The files a rule of the policy matches, found once.
    let decided: Vec<&str> = map
        .files()
        .iter()
        .map(|f| f.path.as_str())
        .filter(|p| own_set.resolve(p).is_some())
        .collect();
    let packed = pack(map, ranking, plan);
    let mut rules = Vec::new();
    for rule in packed.rules {
        let one = RuleSet::compile(std::slice::from_ref(&rule))?;
        if !decided.iter().any(|p| one.resolve(p).is_some()) {
            rules.push(rule);
        }
    }
    let added = rules.len();
    if added == 0 {
        return Ok(None);
    }
    rules.extend(own);
    let mut filled = plan.clone();
    filled.rules = rules;
    Ok(Some((
        filled,
        Filled {
            before,
            rules: added,
        },
    )))
}
