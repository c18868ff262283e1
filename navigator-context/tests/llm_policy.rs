//! LlmPolicy against recorded answers (ScriptedLlm): JSON actions, state-over-history
//! prompts, re-asks, and the USD budget checked before every turn.

mod fixture;

use navigator_context::{Budgets, Explorer, Level, LlmPolicy, RepoMap, StopReason};
use navigator_core::{Cassette, Interaction, Pricing, PricingTable, ScriptedLlm, Usage};
use std::sync::Arc;

const UPDATE: &str = r#"{"action":"update_flight_plan","changes":[{"path":"src/auth/","level":4},{"path":"src/db/","level":1,"collapse":true}],"reasoning":"auth is what the goal is about; the ledger tables are not"}"#;
const FINALIZE: &str = r#"{"action":"finalize_context","reasoning":"auth files at full source"}"#;

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(f)
}

fn prices() -> PricingTable {
    let mut t = PricingTable::empty();
    t.set("m", Pricing::new(3.0, 15.0, 3.75, 0.3));
    t
}

fn usage(input: u64, output: u64) -> Usage {
    Usage {
        input_tokens: input,
        output_tokens: output,
        ..Usage::default()
    }
}

fn scripted(answers: &[&str]) -> Arc<ScriptedLlm> {
    let cassette = Cassette {
        model: "m".into(),
        interactions: answers
            .iter()
            .map(|a| Interaction::text(*a).with_usage(usage(2_000, 100)))
            .collect(),
    };
    Arc::new(ScriptedLlm::new(cassette).unwrap())
}

fn repo() -> (tempfile::TempDir, RepoMap) {
    let dir = tempfile::tempdir().unwrap();
    fixture::write_repo(dir.path());
    let map = RepoMap::open(dir.path()).unwrap();
    (dir, map)
}

#[test]
fn follows_the_models_actions_and_prices_each_turn() {
    let (_dir, map) = repo();
    let llm = scripted(&[UPDATE, FINALIZE]);
    let mut policy = LlmPolicy::new(llm.clone(), prices());
    let out = block_on(
        Explorer::new(&map, Budgets::tokens(3_000))
            .explore("Refactor the auth middleware", &mut policy),
    )
    .unwrap();
    assert_eq!(out.stop, StopReason::Finalized);
    let r = navigator_context::render(&map, &out.plan).unwrap();
    assert_eq!(r.level_of("src/auth/middleware.rs"), Level::Full);
    assert!(
        out.context.contains("src/db/ (40 files)"),
        "{}",
        out.context
    );
    // Two calls of 2,000 input + 100 output tokens at $3 / $15 per million.
    let expected = 2.0 * (2_000.0 * 3.0 + 100.0 * 15.0) / 1e6;
    assert!(
        (out.usd - expected).abs() < 1e-12,
        "{} vs {expected}",
        out.usd
    );
    assert!((out.turns[1].total_usd - expected).abs() < 1e-12);
    // State over history: the second prompt holds one map and the decision log, not the first map.
    let requests = llm.requests();
    let second = &requests[1].messages.last().unwrap().content;
    assert_eq!(second.matches("## Current map").count(), 1);
    assert!(
        second.contains("1. update_flight_plan [src/auth/, src/db/]"),
        "{second}"
    );
    assert!(
        !second.contains("pub fn ledger_0_0"),
        "the satellite view leaked into turn 2"
    );
    let (state, history) = out.prompt_tokens();
    assert!(state < history);
}

#[test]
fn a_turn_whose_projection_passes_the_budget_never_runs() {
    let (_dir, map) = repo();
    let llm = scripted(&[UPDATE, FINALIZE]);
    let mut policy = LlmPolicy::new(llm.clone(), prices());
    let out = block_on(
        Explorer::new(&map, Budgets::tokens(3_000).with_usd(0.001))
            .explore("auth middleware", &mut policy),
    )
    .unwrap();
    assert!(
        matches!(out.stop, StopReason::UsdBudget { spent, .. } if spent == 0.0),
        "{:?}",
        out.stop
    );
    assert!(llm.requests().is_empty());
    assert_eq!(out.usd, 0.0);
    // The offline ranking still gives a useful context.
    assert!(out.context.contains("src/auth/middleware.rs"));
}

#[test]
fn the_budget_stops_between_turns_without_overrun() {
    let (_dir, map) = repo();
    let llm = scripted(&[UPDATE, UPDATE, UPDATE, UPDATE, FINALIZE]);
    let mut policy = LlmPolicy::new(llm.clone(), prices());
    let budget = 0.03;
    let out = block_on(
        Explorer::new(&map, Budgets::tokens(3_000).with_usd(budget))
            .explore("auth middleware", &mut policy),
    )
    .unwrap();
    assert!(
        matches!(out.stop, StopReason::UsdBudget { .. }),
        "{:?}",
        out.stop
    );
    assert!(!out.turns.is_empty());
    assert!(out.usd <= budget, "{} > {budget}", out.usd);
}

#[test]
fn invalid_answers_are_re_asked_with_the_error_and_charged() {
    let (_dir, map) = repo();
    let llm = scripted(&[
        r#"{"action":"update_flight_plan","changes":[{"path":"../../etc","level":4}],"reasoning":"x"}"#,
        FINALIZE,
    ]);
    let mut policy = LlmPolicy::new(llm.clone(), prices());
    let out = block_on(
        Explorer::new(&map, Budgets::tokens(3_000)).explore("auth middleware", &mut policy),
    )
    .unwrap();
    assert_eq!(out.stop, StopReason::Finalized);
    let requests = llm.requests();
    assert_eq!(requests.len(), 2);
    assert!(requests[1]
        .messages
        .last()
        .unwrap()
        .content
        .contains("leaves the repository root"));
    // The rejected call is charged at its (conservative) projection, so more than the valid one.
    let valid = (2_000.0 * 3.0 + 100.0 * 15.0) / 1e6;
    assert!(out.usd > 2.0 * valid, "{}", out.usd);
}

#[test]
fn a_zero_cap_is_re_asked_and_a_valid_cap_is_kept() {
    let (_dir, map) = repo();
    let llm = scripted(&[
        r#"{"action":"update_flight_plan","changes":[{"path":"src/","level":2,"max_items":0}],"reasoning":"x"}"#,
        r#"{"action":"update_flight_plan","changes":[{"path":"src/","level":2,"max_items":1}],"reasoning":"x"}"#,
        FINALIZE,
    ]);
    let mut policy = LlmPolicy::new(llm.clone(), prices());
    let out = block_on(
        Explorer::new(&map, Budgets::tokens(3_000))
            .fill_unspent(false)
            .explore("auth middleware", &mut policy),
    )
    .unwrap();
    assert_eq!(out.stop, StopReason::Finalized);
    let requests = llm.requests();
    assert!(requests[1]
        .messages
        .last()
        .unwrap()
        .content
        .contains("max_items of `src/` must be at least 1"));
    let rule = out.plan.rules.iter().find(|r| r.path == "src/").unwrap();
    assert_eq!(rule.max_items, Some(1));
}

#[test]
fn a_model_that_finalises_at_once_still_gets_the_budget_spent_unless_asked_not_to() {
    let (_dir, map) = repo();
    let explore = |fill: bool| {
        let mut policy = LlmPolicy::new(scripted(&[FINALIZE]), prices());
        block_on(
            Explorer::new(&map, Budgets::tokens(3_000))
                .fill_unspent(fill)
                .explore("Refactor the auth middleware", &mut policy),
        )
        .unwrap()
    };
    let (filled, bare) = (explore(true), explore(false));
    let level = |out: &navigator_context::Exploration, path: &str| {
        navigator_context::render(&map, &out.plan)
            .unwrap()
            .level_of(path)
    };
    assert_eq!(bare.stop, StopReason::Finalized);
    assert!(level(&bare, "src/auth/middleware.rs") < Level::Full);
    assert!(!bare.reasoning.contains("filled the rest"));
    assert_eq!(filled.stop, StopReason::Finalized);
    assert_eq!(level(&filled, "src/auth/middleware.rs"), Level::Full);
    assert!(filled.tokens > bare.tokens && filled.tokens <= 3_000);
    assert!(
        filled.reasoning.contains("filled the rest"),
        "{}",
        filled.reasoning
    );
}

#[test]
fn filling_the_budget_keeps_every_file_a_rule_of_the_model_matches() {
    let (_dir, map) = repo();
    let lower = r#"{"action":"update_flight_plan","changes":[{"path":"src/auth/middleware.rs","level":1}],"reasoning":"the path is enough"}"#;
    let mut policy = LlmPolicy::new(scripted(&[lower, FINALIZE]), prices());
    let out = block_on(
        Explorer::new(&map, Budgets::tokens(3_000))
            .explore("Refactor the auth middleware", &mut policy),
    )
    .unwrap();
    let r = navigator_context::render(&map, &out.plan).unwrap();
    assert_eq!(r.level_of("src/auth/middleware.rs"), Level::Path);
    assert!(
        r.level_of("src/auth/session.rs") >= Level::TopLevel,
        "{}",
        out.context
    );
    assert!(out.reasoning.contains("filled the rest"));
}

#[test]
fn a_model_that_never_gives_a_valid_action_is_reported_as_failing_not_finalising() {
    let (_dir, map) = repo();
    let prose = "I would look at the auth middleware first.";
    let llm = scripted(&[UPDATE, prose, prose, prose]);
    let mut policy = LlmPolicy::new(llm.clone(), prices());
    let out = block_on(
        Explorer::new(&map, Budgets::tokens(3_000))
            .explore("Refactor the auth middleware", &mut policy),
    )
    .unwrap();
    let StopReason::PolicyFailed { step, message } = &out.stop else {
        panic!("expected a failed policy, got {:?}", out.stop);
    };
    assert_eq!(*step, 2);
    assert!(message.contains("no valid action in 3 tries"), "{message}");
    assert_eq!(llm.requests().len(), 4);
    // The first turn's plan is kept, and the summary says the policy failed.
    let r = navigator_context::render(&map, &out.plan).unwrap();
    assert_eq!(r.level_of("src/auth/middleware.rs"), Level::Full);
    assert!(
        out.reasoning.contains("the policy failed at turn 2"),
        "{}",
        out.reasoning
    );
    assert!(!out.reasoning.contains("finalis"), "{}", out.reasoning);
}

#[test]
fn a_model_failing_after_a_turn_keeps_that_turn_and_one_failing_at_once_is_an_error() {
    let (_dir, map) = repo();
    // One answer recorded: the second call fails (nothing left to replay).
    let mut policy = LlmPolicy::new(scripted(&[UPDATE]), prices());
    let out = block_on(
        Explorer::new(&map, Budgets::tokens(3_000))
            .fill_unspent(false)
            .explore("Refactor the auth middleware", &mut policy),
    )
    .unwrap();
    assert!(
        matches!(&out.stop, StopReason::PolicyFailed { step: 2, .. }),
        "{:?}",
        out.stop
    );
    assert_eq!(out.turns.len(), 1);
    let r = navigator_context::render(&map, &out.plan).unwrap();
    assert_eq!(r.level_of("src/auth/middleware.rs"), Level::Full);
    assert!(
        out.reasoning.contains("the policy failed at turn 2"),
        "{}",
        out.reasoning
    );
    let mut failing = LlmPolicy::new(scripted(&[]), prices());
    let err = block_on(
        Explorer::new(&map, Budgets::tokens(3_000)).explore("auth middleware", &mut failing),
    );
    assert!(err.is_err());
}
