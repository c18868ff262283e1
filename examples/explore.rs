//! Explores a repository for a goal and writes the context, its Flight Plan, the reasoning
//! and the turn reports.
//!
//! ```text
//! cargo run --release --example explore -- --repo . --goal "Refactor the auth middleware" \
//!     --tokens 10000 [--usd 0.50] [--mode autonomous|interactive] [--llm none|anthropic|openai]
//!     [--model NAME] [--out DIR]
//! ```
//! Writes `context.txt`, `flight_plan.yaml`, `reasoning.md` and `turns.jsonl` into `--out`
//! (default: the current directory). `--llm anthropic` reads `ANTHROPIC_API_KEY`,
//! `--llm openai` reads `OPENAI_API_KEY`; `none` (the default) needs no key.

use anyhow::{bail, Context};
use navigator_context::{
    Budgets, Explorer, HeuristicPolicy, LlmPolicy, Policy, RepoMap, TerminalApprover,
};
use navigator_core::{
    AnthropicClient, AnthropicConfig, Llm, OpenAiClient, OpenAiConfig, PricingTable,
};
use std::path::PathBuf;
use std::sync::Arc;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let (mut repo, mut goal, mut tokens, mut usd) = (".".to_string(), None, 10_000usize, None);
    let (mut mode, mut llm, mut model, mut out) = (
        "autonomous".to_string(),
        "none".to_string(),
        None,
        PathBuf::from("."),
    );
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().with_context(|| format!("{a} needs a value"));
        match a.as_str() {
            "--repo" => repo = val()?,
            "--goal" => goal = Some(val()?),
            "--tokens" => tokens = val()?.parse().context("--tokens")?,
            "--usd" => usd = Some(val()?.parse::<f64>().context("--usd")?),
            "--mode" => mode = val()?,
            "--llm" => llm = val()?,
            "--model" => model = Some(val()?),
            "--out" => out = PathBuf::from(val()?),
            other => bail!("unknown option {other}"),
        }
    }
    let goal = goal.context("--goal is required")?;
    let map = RepoMap::open(&repo)?;
    let mut budgets = Budgets::tokens(tokens);
    budgets.usd = usd;
    let mut policy: Box<dyn Policy> = match llm.as_str() {
        "none" => Box::new(HeuristicPolicy::new()),
        "anthropic" => {
            let m = model.unwrap_or_else(|| "claude-sonnet-4-5".into());
            let client: Arc<dyn Llm> = Arc::new(AnthropicClient::new(AnthropicConfig::new(m))?);
            Box::new(LlmPolicy::new(client, PricingTable::default()))
        }
        "openai" => {
            let m = model.unwrap_or_else(|| "gpt-5-mini".into());
            let client: Arc<dyn Llm> = Arc::new(OpenAiClient::new(OpenAiConfig::openai(m))?);
            Box::new(LlmPolicy::new(client, PricingTable::default()))
        }
        other => bail!("--llm must be none, anthropic or openai, not {other}"),
    };
    let mut explorer = Explorer::new(&map, budgets);
    explorer = match mode.as_str() {
        "autonomous" => explorer,
        "interactive" => explorer.interactive(TerminalApprover),
        other => bail!("--mode must be autonomous or interactive, not {other}"),
    };
    let result = explorer.explore(&goal, policy.as_mut()).await?;
    std::fs::create_dir_all(&out)?;
    let (state, history) = result.prompt_tokens();
    let comments = vec![
        format!(
            "goal explored with policy `{}`: {} turns, ${:.4}",
            policy.name(),
            result.turns.len(),
            result.usd
        ),
        format!("stopped: {}", result.stop.describe()),
    ];
    std::fs::write(out.join("context.txt"), &result.context)?;
    std::fs::write(out.join("flight_plan.yaml"), result.plan.to_yaml(&comments))?;
    std::fs::write(out.join("reasoning.md"), &result.reasoning)?;
    let jsonl: String = result
        .turns
        .iter()
        .map(|t| serde_json::to_string(t).map(|s| s + "\n"))
        .collect::<Result<_, _>>()?;
    std::fs::write(out.join("turns.jsonl"), jsonl)?;
    eprintln!(
        "{} tokens of {} budget, {} turns, ${:.4}; prompts: {} tokens state-over-history vs {} with full history ({:.0}% saved); {}",
        result.tokens,
        tokens,
        result.turns.len(),
        result.usd,
        state,
        history,
        if history > 0 { 100.0 * (1.0 - state as f64 / history as f64) } else { 0.0 },
        result.stop.describe()
    );
    eprintln!(
        "wrote context.txt, flight_plan.yaml, reasoning.md, turns.jsonl to {}",
        out.display()
    );
    Ok(())
}
