//! Code context over the repository given with `--repo`: `build_context` (explore for a goal
//! within a token and USD budget, return the context, the Flight Plan and the turn reports)
//! and `replay_flight_plan` (regenerate a plan's context, or re-fit it when the code moved).
//! The exploration runs on a blocking thread: scanning and outlining a repository is CPU work
//! that must not hold up the reads served meanwhile.

use super::errors::{input_schema, output_schema, parse, respond, ToolError, ToolResult};
use super::uri;
use super::{cancellable, McpServer, Progress, SessionPlan};
use crate::context::{self, LlmKind};
use navigator_context::{
    render, replay, Approver, Budgets, Explorer, FlightPlan, Rendered, RepoMap, TurnReport, Verdict,
};
use rmcp::model::{CallToolResult, JsonObject};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, RoleServer};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// The largest token budget accepted.
const MAX_TOKENS: usize = 1_000_000;

/// Who decides each exploration turn.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Llm {
    /// The offline heuristic policy: no key, no cost.
    #[default]
    None,
    /// The Anthropic Messages API (`ANTHROPIC_API_KEY` in the server's environment).
    Anthropic,
    /// An OpenAI-compatible server (`OPENAI_API_KEY`, or a local one at `baseUrl`).
    Openai,
}

/// `build_context`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct BuildContextArgs {
    /// What the context is for: a task, a bug report with its traceback, a commit subject.
    pub goal: String,
    /// The most tokens the context may take, 1..=1000000 (default 8000).
    #[serde(default)]
    pub tokens: Option<usize>,
    /// The most USD the LLM policy may spend (checked before every call).
    #[serde(default)]
    pub usd: Option<f64>,
    /// The policy's model provider (default `none`: offline).
    #[serde(default)]
    pub llm: Llm,
    /// The provider's base URL (a local OpenAI-compatible server).
    #[serde(default)]
    pub base_url: Option<String>,
    /// The model name.
    #[serde(default)]
    pub model: Option<String>,
}

/// `replay_flight_plan`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ReplayArgs {
    /// The Flight Plan: its YAML, or the URI of one made in this session
    /// (`navigator://flight-plan/1`).
    pub plan: String,
    /// When the repository changed since the plan: fit it again within its budget instead
    /// of failing with `plan_drift`.
    #[serde(default)]
    pub refit: bool,
}

/// A file in the context.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ContextFile {
    /// Its path in the repository.
    pub path: String,
    /// How much is shown: 1 path, 2 top-level outline, 3 signatures, 4 full source.
    pub level: u8,
    /// Its tokens in the context.
    pub tokens: usize,
}

/// One exploration turn.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Turn {
    /// The turn's number, from 1.
    pub step: usize,
    /// What the policy did.
    pub action: String,
    /// What the turn cost.
    pub turn_usd: f64,
    /// What all turns so far cost.
    pub total_usd: f64,
    /// The map's tokens after the turn.
    pub map_tokens: usize,
    /// The paths the turn zoomed into.
    pub focus: Vec<String>,
    /// Why.
    pub reasoning: String,
}

/// `build_context`'s and `replay_flight_plan`'s answer.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ContextOutput {
    /// The goal.
    pub goal: String,
    /// The context's exact token count.
    pub tokens: usize,
    /// The budget it fits in.
    pub token_budget: usize,
    /// What the exploration spent.
    pub usd: f64,
    /// Why the exploration stopped, or what the replay found changed.
    pub stop: String,
    /// The turn reports (empty for a replay).
    pub turns: Vec<Turn>,
    /// The files shown, in context order.
    pub files: Vec<ContextFile>,
    /// The context text.
    pub context: String,
    /// The Flight Plan (YAML), pinned to the files' content: replay it later.
    pub flight_plan: String,
    /// The plan as a resource of this session.
    pub plan_uri: String,
}

#[tool_router(router = context_tools, vis = "pub(crate)")]
impl McpServer {
    #[tool(
        description = "Build the best code context for a goal from the server's repository, within a token budget (and a USD budget when an LLM policy explores): ranked files shown at the level of detail that fits. Returns the context, its files, the turn reports and the Flight Plan (YAML) that regenerates it.",
        input_schema = input_schema::<BuildContextArgs>(),
        output_schema = output_schema::<ContextOutput>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = false, open_world_hint = true)
    )]
    async fn build_context(
        &self,
        arguments: JsonObject,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let progress = Progress::of(&context);
        let result = cancellable(&context, self.do_build_context(arguments, &progress)).await;
        progress.flushed().await;
        respond(result)
    }

    #[tool(
        description = "Regenerate the context of a Flight Plan (its YAML, or a navigator://flight-plan/N URI of this session). Fails with plan_drift naming changed files when the repository moved on, unless refit is true.",
        input_schema = input_schema::<ReplayArgs>(),
        output_schema = output_schema::<ContextOutput>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn replay_flight_plan(
        &self,
        arguments: JsonObject,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        respond(cancellable(&context, self.do_replay(arguments)).await)
    }
}

impl McpServer {
    fn repo(&self) -> ToolResult<PathBuf> {
        self.shared.repo.clone().ok_or_else(|| {
            ToolError::new(
                "not_configured",
                "this server has no repository: start it with `navigator mcp --repo <folder>`",
            )
        })
    }

    async fn do_build_context(
        &self,
        arguments: JsonObject,
        progress: &Progress,
    ) -> ToolResult<ContextOutput> {
        let args: BuildContextArgs = parse(arguments)?;
        if args.goal.trim().is_empty() {
            return Err(ToolError::bad_request("goal: must not be empty"));
        }
        let tokens = args.tokens.unwrap_or(8000);
        if !(1..=MAX_TOKENS).contains(&tokens) {
            return Err(ToolError::bad_request(format!(
                "tokens: must be 1..={MAX_TOKENS}, got {tokens}"
            )));
        }
        if let Some(usd) = args.usd {
            if !(usd.is_finite() && usd >= 0.0) {
                return Err(ToolError::bad_request(format!(
                    "usd: must be a non-negative amount, got {usd}"
                )));
            }
        }
        let repo = self.repo()?;
        let cli_args = context::Args {
            goal: Some(args.goal.clone()),
            repo: Some(repo.clone()),
            tokens: Some(tokens),
            usd: args.usd,
            mode: context::Mode::Autonomous,
            llm: match args.llm {
                Llm::None => LlmKind::None,
                Llm::Anthropic => LlmKind::Anthropic,
                Llm::Openai => LlmKind::Openai,
            },
            base_url: args.base_url,
            model: args.model,
            llm_timeout: None,
            goal_file: None,
            plan: None,
            replay: None,
            refit: false,
            json: false,
            no_history: false,
            no_fill: false,
        };
        let total = budgets_turns(tokens) + 2;
        progress.report(0, Some(total), format!("mapping {}", repo.display()));
        let handle = tokio::runtime::Handle::current();
        let turns_progress = TurnProgress {
            progress: progress.clone(),
            total,
        };
        let (out, rendered, policy_name) = tokio::task::spawn_blocking(move || {
            let mut policy =
                context::policy(&cli_args).map_err(|e| ToolError::bad_request(format!("{e:#}")))?;
            let map = open(&repo)?;
            turns_progress.mapped(&map)?;
            let mut budgets = Budgets::tokens(tokens);
            budgets.usd = cli_args.usd;
            let cancelled = turns_progress.progress.clone();
            let out = handle.block_on(async {
                let goal = cli_args.goal.as_deref().unwrap_or_default();
                Explorer::new(&map, budgets)
                    .interactive(turns_progress)
                    .explore(goal, policy.as_mut())
                    .await
            })?;
            if cancelled.is_cancelled() {
                return Err(cancelled_error());
            }
            let rendered = render(&map, &out.plan)?;
            Ok::<_, ToolError>((out, rendered, policy.name().to_string()))
        })
        .await
        .map_err(|e| ToolError::new("internal", format!("the exploration stopped: {e}")))??;
        progress.report(
            total,
            Some(total),
            format!("explored in {}", context::turns(out.turns.len())),
        );
        let comments = [
            format!(
                "explored with policy `{policy_name}`: {}, ${:.4}",
                context::turns(out.turns.len()),
                out.usd
            ),
            format!("stopped: {}", out.stop.describe()),
        ];
        let yaml = out.plan.to_yaml(&comments);
        let turns = out
            .turns
            .iter()
            .map(|t| Turn {
                step: t.step,
                action: t.action.clone(),
                turn_usd: t.turn_usd,
                total_usd: t.total_usd,
                map_tokens: t.map_tokens,
                focus: t.focus.clone(),
                reasoning: t.reasoning.clone(),
            })
            .collect();
        Ok(self.output(
            &out.plan,
            &rendered,
            yaml,
            out.usd,
            out.stop.describe(),
            turns,
        ))
    }

    async fn do_replay(&self, arguments: JsonObject) -> ToolResult<ContextOutput> {
        let args: ReplayArgs = parse(arguments)?;
        let yaml = match args.plan.trim().strip_prefix(uri::FLIGHT_PLAN) {
            Some(n) => self.plan_yaml(n)?,
            None => args.plan.clone(),
        };
        let plan = FlightPlan::from_yaml(&yaml)?;
        let repo = self.repo()?;
        let replayed = tokio::task::spawn_blocking(move || {
            let map = open(&repo)?;
            Ok::<_, ToolError>(replay(&map, &plan, args.refit)?)
        })
        .await
        .map_err(|e| ToolError::new("internal", format!("the replay stopped: {e}")))??;
        let stop = if replayed.drift.is_empty() {
            "replayed: the repository matches the plan".to_string()
        } else {
            format!(
                "refit: {}; {} file(s) lowered",
                replayed.drift.describe(),
                replayed.degraded.len()
            )
        };
        let yaml = replayed
            .plan
            .to_yaml(&["replayed by navigator mcp".to_string()]);
        Ok(self.output(
            &replayed.plan,
            &replayed.rendered,
            yaml,
            0.0,
            stop,
            Vec::new(),
        ))
    }

    /// The YAML of the session's plan number `n` (from 1).
    pub(crate) fn plan_yaml(&self, n: &str) -> ToolResult<String> {
        let plans = self.plans.lock().unwrap_or_else(|p| p.into_inner());
        n.parse::<usize>()
            .ok()
            .and_then(|i| i.checked_sub(1))
            .and_then(|i| plans.get(i))
            .map(|p| p.yaml.clone())
            .ok_or_else(|| {
                ToolError::not_found(format!(
                    "no Flight Plan `{n}` in this session ({} made so far)",
                    plans.len()
                ))
            })
    }

    /// Keeps the plan as a session resource and builds the answer.
    fn output(
        &self,
        plan: &FlightPlan,
        rendered: &Rendered,
        yaml: String,
        usd: f64,
        stop: String,
        turns: Vec<Turn>,
    ) -> ContextOutput {
        let plan_uri = {
            let mut plans = self.plans.lock().unwrap_or_else(|p| p.into_inner());
            plans.push(SessionPlan {
                goal: plan.goal.clone(),
                yaml: yaml.clone(),
            });
            format!("{}{}", uri::FLIGHT_PLAN, plans.len())
        };
        ContextOutput {
            goal: plan.goal.clone(),
            tokens: rendered.tokens,
            token_budget: plan.token_budget,
            usd,
            stop,
            turns,
            files: rendered
                .shown
                .iter()
                .map(|s| ContextFile {
                    path: s.path.clone(),
                    level: s.level as u8,
                    tokens: s.tokens,
                })
                .collect(),
            context: rendered.text.clone(),
            flight_plan: yaml,
            plan_uri,
        }
    }
}

/// The most turns an exploration with `tokens` may take (the progress total).
fn budgets_turns(tokens: usize) -> usize {
    Budgets::tokens(tokens).max_turns
}

fn cancelled_error() -> ToolError {
    ToolError::new("cancelled", "the client cancelled the call")
}

/// Watches an exploration on its blocking thread: each turn is a progress notification (step,
/// action, tokens so far), and a cancelled call stops the exploration at the next turn (the
/// turn is declined) instead of letting the thread run on unseen.
struct TurnProgress {
    progress: Progress,
    /// Mapping, every possible turn, rendering.
    total: usize,
}

impl TurnProgress {
    /// After the repository is mapped: reports its size, or stops when cancelled meanwhile.
    fn mapped(&self, map: &RepoMap) -> ToolResult<()> {
        if self.progress.is_cancelled() {
            return Err(cancelled_error());
        }
        self.progress.report(
            1,
            Some(self.total),
            format!("mapped {} files; exploring", map.files().len()),
        );
        Ok(())
    }
}

impl Approver for TurnProgress {
    fn review(&mut self, report: &TurnReport) -> Verdict {
        self.progress.report(
            1 + report.step,
            Some(self.total),
            format!(
                "turn {}: {} ({} of {} tokens)",
                report.step, report.action, report.map_tokens, report.token_budget
            ),
        );
        if self.progress.is_cancelled() {
            Verdict::Decline
        } else {
            Verdict::Approve
        }
    }
}

fn open(repo: &std::path::Path) -> ToolResult<RepoMap> {
    RepoMap::open(repo).map_err(|e| {
        ToolError::new(
            "io",
            format!("opening the repository {}: {e}", repo.display()),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use navigator_context::HeuristicPolicy;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    fn repo_root() -> &'static std::path::Path {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .unwrap()
    }

    /// A call whose cancellation the test flips.
    fn progress(flag: &Arc<AtomicBool>) -> Progress {
        let flag = Arc::clone(flag);
        Progress {
            cancelled: Some(Arc::new(move || flag.load(Ordering::Relaxed))),
            ..Progress::none()
        }
    }

    /// Explores this repository for a fixed goal, watched by a `TurnProgress` on `flag`.
    async fn explore(map: &RepoMap, flag: &Arc<AtomicBool>) -> navigator_context::Exploration {
        Explorer::new(map, Budgets::tokens(6000))
            .interactive(TurnProgress {
                progress: progress(flag),
                total: 10,
            })
            .explore(
                "How does the engine repair its indexes on open?",
                &mut HeuristicPolicy::new(),
            )
            .await
            .unwrap()
    }

    #[tokio::test]
    async fn a_cancelled_call_stops_the_exploration_at_the_next_turn() {
        let map = RepoMap::open(repo_root()).unwrap();
        let flag = Arc::new(AtomicBool::new(false));
        let full = explore(&map, &flag).await;
        assert!(full.turns.len() > 1, "{} turns", full.turns.len());
        assert_ne!(full.stop, navigator_context::StopReason::Declined);

        flag.store(true, Ordering::Relaxed);
        let cut = explore(&map, &flag).await;
        assert_eq!(cut.turns.len(), 1);
        assert_eq!(cut.stop, navigator_context::StopReason::Declined);
    }

    #[test]
    fn a_map_opened_after_the_cancel_is_not_explored() {
        let flag = Arc::new(AtomicBool::new(true));
        let watch = TurnProgress {
            progress: progress(&flag),
            total: 10,
        };
        let map = RepoMap::open(repo_root()).unwrap();
        let err = watch.mapped(&map).unwrap_err();
        assert_eq!(err.code, "cancelled");
    }
}
