//! Property tests: budgets are never overrun and regeneration is byte-identical.

mod fixture;

use async_trait::async_trait;
use navigator_context::{
    render, Action, Budgets, Decision, Explorer, FlightPlan, HeuristicPolicy, Policy, RepoMap,
    RuleChange, StopReason, TurnInput,
};
use navigator_core::Usage;
use proptest::prelude::*;
use std::sync::OnceLock;

fn repo() -> &'static (tempfile::TempDir, RepoMap) {
    static REPO: OnceLock<(tempfile::TempDir, RepoMap)> = OnceLock::new();
    REPO.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        fixture::write_repo(dir.path());
        let map = RepoMap::open(dir.path()).unwrap();
        (dir, map)
    })
}

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(f)
}

/// Projects a random cost per turn and then spends any share of it, never more.
struct RandomCost {
    projections: Vec<f64>,
    shares: Vec<f64>,
    turn: usize,
}

#[async_trait]
impl Policy for RandomCost {
    fn name(&self) -> &str {
        "random-cost"
    }

    fn projected_usd(&self, _input: &TurnInput<'_>) -> navigator_context::Result<f64> {
        Ok(self.projections[self.turn % self.projections.len()])
    }

    async fn decide(&mut self, input: &TurnInput<'_>) -> navigator_context::Result<Decision> {
        let i = self.turn % self.projections.len();
        self.turn += 1;
        let level = (input.step % 5) as u8;
        Ok(Decision {
            action: Action::UpdateFlightPlan {
                changes: vec![RuleChange {
                    path: "src/auth/".into(),
                    level,
                    collapse: false,
                    focus: Vec::new(),
                    max_items: (input.step % 2 == 1).then_some(2),
                }],
                reasoning: "probe".into(),
            },
            usage: Usage::default(),
            usd: self.projections[i] * self.shares[i],
            gave_up: None,
        })
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn random_turn_costs_never_overrun_the_usd_budget(
        budget in 0.0f64..2.0,
        projections in proptest::collection::vec(0.0f64..0.8, 1..6),
        shares in proptest::collection::vec(0.0f64..=1.0, 6),
    ) {
        let (_, map) = repo();
        let mut policy = RandomCost { projections, shares, turn: 0 };
        let out = block_on(Explorer::new(map, Budgets { tokens: 2_000, usd: Some(budget), max_turns: 8 }).explore("auth middleware", &mut policy)).unwrap();
        prop_assert!(out.usd <= budget, "spent {} of {budget}", out.usd);
        if let StopReason::UsdBudget { spent, projected, .. } = out.stop {
            prop_assert!(spent + projected > budget);
        }
    }

    #[test]
    fn contexts_never_exceed_the_token_budget_and_regenerate_exactly(
        tokens in 30usize..6_000,
        goal in prop::sample::select(vec!["Refactor the auth middleware", "ledger table sums", "invoice rendering", "migrate schema"]),
    ) {
        let (_, map) = repo();
        let out = block_on(Explorer::new(map, Budgets::tokens(tokens)).explore(goal, &mut HeuristicPolicy::new())).unwrap();
        prop_assert!(out.tokens <= tokens, "{} > {tokens}", out.tokens);
        let plan = FlightPlan::from_yaml(&out.plan.to_yaml(&["metadata".into()])).unwrap();
        let again = render(map, &plan).unwrap();
        prop_assert_eq!(&again.text, &out.context);
        prop_assert_eq!(again.tokens, out.tokens);
        // Renders sum memoised block counts; that must equal counting the whole text.
        prop_assert_eq!(out.tokens, navigator_context::Tokenizer::default().count(&out.context));
    }

    /// The fuzz target's logic (fuzz/fuzz_targets/flight_plan.rs) over arbitrary strings and
    /// over YAML-shaped ones, so it runs in CI without a nightly toolchain.
    #[test]
    fn the_flight_plan_parser_never_panics_and_round_trips_what_it_accepts(
        text in prop_oneof![
            any::<String>(),
            (
                "[ -~]{0,40}",
                any::<i64>(),
                proptest::collection::vec(("[ -~]{0,20}", -2i64..7, any::<bool>()), 0..4),
                prop::sample::select(vec!["cl100k_base", "o200k_base", "gpt2", ""]),
            )
                .prop_map(|(goal, budget, rules, tok)| {
                    let mut y = format!("goal: {goal:?}\ntoken_budget: {budget}\ntokenizer: {tok}\nrules:\n");
                    for (path, level, collapse) in rules {
                        y.push_str(&format!("  - path: {path:?}\n    level: {level}\n    collapse: {collapse}\n"));
                    }
                    y
                }),
        ],
    ) {
        if let Ok(plan) = FlightPlan::from_yaml(&text) {
            let again = FlightPlan::from_yaml(&plan.to_yaml(&["fuzz".into()]));
            prop_assert_eq!(again.ok(), Some(plan));
        }
    }
}
