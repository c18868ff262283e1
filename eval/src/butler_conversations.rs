//! The Butler end to end over multi-step conversations: the real specialists (the embedded
//! search engine over the sample knowledge base, the context explorer over a sample
//! repository, the workflow engine through its own MCP server) driven by any
//! [`Llm`] — recorded responses replayed by a [`ScriptedLlm`], or a live server.
//!
//! Each conversation (`examples/data/butler/conversations.json`) is a few turns; each turn
//! says what must be true after it ([`Expect`]): the intent, the specialist, the tools that ran
//! successfully, the sources the answer cites, words of the answer, an `unavailable` notice,
//! task statuses in the workflow engine. Only the model's words are recorded: every tool
//! result is computed afresh, so an expectation fails when a tool starts returning something
//! else.
//!
//! Three figures ([`Report`]):
//! - **intent accuracy**: turns whose classification matched, over all turns;
//! - **tool-call validity**: calls that reached the tool (status `ok`, or `failed` by the tool
//!   itself) over all calls — `invalid_arguments` and `unknown_tool` are the model's mistakes;
//! - **task success**: conversations in which every turn met every expectation.

use anyhow::{bail, Context as _};
use navigator_butler::{
    knowledge_tools, Butler, ButlerResponse, CallStatus, CodeContextTool, DecidedBy, ExecutedCall,
    LlmAgent, McpToolset, Orchestrator, Tool, ToolAgent, ToolCatalog,
};
use navigator_core::{
    ChatRequest, ChatResponse, Embedder, Interaction, Item, JsonMode, Llm, ScriptedLlm, Usage,
};
use navigator_search::{EngineConfig, FixedClock, SearchEngine};
use navigator_workflow::mcp::NavigatorServer;
use navigator_workflow::{Navigator, Task, WorkflowDefinition};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The date of the sample knowledge base; the Butler's "today".
pub const TODAY: &str = "2026-11-21T09:00:00Z";

/// The id the sample workflow is loaded under (the tasks' `workflowType`).
pub const WORKFLOW_ID: &str = "release";

/// One conversation of the evaluation set.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Conversation {
    /// Unique id.
    pub id: String,
    /// What it exercises (`search_drilldown`, `code`, `tasks`, ...): the report's rows.
    pub kind: String,
    /// The turns, in order.
    pub turns: Vec<Turn>,
}

/// One message of the person and what must follow.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Turn {
    /// What the person says.
    pub user: String,
    /// What must be true after the turn.
    pub expect: Expect,
    /// The model's recorded answers for this turn, in call order.
    #[serde(default)]
    pub recorded: Vec<Interaction>,
}

/// What must be true after a turn.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Expect {
    /// The classified intent (`delegate_search`, ...).
    pub intent: String,
    /// The specialists that ran, comma-separated in order (`navigator,communicator`).
    #[serde(default)]
    pub agent: Option<String>,
    /// Tools that must have run with status `ok`.
    #[serde(default)]
    pub tools: Vec<String>,
    /// Source ids the specialists must cite.
    #[serde(default)]
    pub sources: Vec<String>,
    /// When set, [`sources`](Self::sources) must be among the first `within` cited (a tool
    /// ranks what it returns; the context explorer shows every file of a small repository).
    #[serde(default)]
    pub within: Option<usize>,
    /// Case-insensitive parts of the answer (or of the follow-up questions).
    #[serde(default)]
    pub contains: Vec<String>,
    /// The answer must say that a capability is not available here.
    #[serde(default)]
    pub unavailable: bool,
    /// Task id → status (`PENDING`, `COMPLETED`, ...) in the workflow engine after the turn.
    #[serde(default)]
    pub task_status: BTreeMap<String, String>,
}

/// Reads the conversations at `path`.
pub fn load(path: &Path) -> anyhow::Result<Vec<Conversation>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let conversations: Vec<Conversation> =
        serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
    let mut seen = std::collections::HashSet::new();
    for c in &conversations {
        if !seen.insert(c.id.as_str()) {
            bail!(
                "{}: conversation id `{}` appears twice",
                path.display(),
                c.id
            );
        }
        if c.turns.is_empty() {
            bail!("{}: conversation `{}` has no turns", path.display(), c.id);
        }
    }
    Ok(conversations)
}

/// The sample world: the knowledge base indexed once, the repository, the workflow and its
/// tasks (loaded afresh for every conversation, so conversations are independent).
pub struct World {
    engine: Arc<SearchEngine>,
    _index: tempfile::TempDir,
    repo: PathBuf,
    workflow: String,
    tasks: Vec<Task>,
    clock: Arc<FixedClock>,
}

impl fmt::Debug for World {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("World")
            .field("items", &self.engine.len())
            .field("repo", &self.repo)
            .field("tasks", &self.tasks.len())
            .finish()
    }
}

/// A Butler over fresh specialists, and the workflow engine's state to check.
pub struct Session {
    /// The Butler.
    pub butler: Butler,
    /// The workflow engine behind the planner's MCP tools.
    pub tasks: Arc<Mutex<Navigator>>,
}

impl World {
    /// Indexes the knowledge base `kb` (a JSON array of items) with `embedder` in a temporary
    /// directory; reads `sample_repo/`, `workflow.yaml` and `tasks.json` from `data`.
    pub async fn open(data: &Path, kb: &Path, embedder: Arc<dyn Embedder>) -> anyhow::Result<Self> {
        let clock = Arc::new(FixedClock(TODAY.parse()?));
        let items: Vec<Item> = navigator_core::from_json(
            &std::fs::read_to_string(kb).with_context(|| format!("reading {}", kb.display()))?,
        )?;
        let dir = tempfile::tempdir()?;
        let config = EngineConfig {
            clock: clock.clone(),
            ..EngineConfig::default()
        };
        let engine = SearchEngine::open_with(dir.path(), embedder, config).await?;
        engine.bulk_load(&items, |_| {}).await?;
        let read = |name: &str| {
            let path = data.join(name);
            std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))
        };
        let workflow = read("workflow.yaml")?;
        let tasks: Vec<Task> = serde_json::from_str(&read("tasks.json")?)
            .with_context(|| format!("parsing {}", data.join("tasks.json").display()))?;
        let world = Self {
            engine: Arc::new(engine),
            _index: dir,
            repo: data.join("sample_repo"),
            workflow,
            tasks,
            clock,
        };
        world.task_queue()?;
        Ok(world)
    }

    /// A fresh workflow engine with the workflow and its tasks loaded.
    fn task_queue(&self) -> anyhow::Result<Navigator> {
        let mut queue = Navigator::new();
        queue.load_workflow(WORKFLOW_ID, WorkflowDefinition::from_yaml(&self.workflow)?)?;
        queue.load_tasks(self.tasks.clone(), true)?;
        Ok(queue)
    }

    /// A Butler with the four specialists (navigator, coder, planner, communicator), all
    /// answering through `llm`; the person approves every task change.
    pub async fn session(&self, llm: Arc<dyn Llm>, json_mode: JsonMode) -> anyhow::Result<Session> {
        let clock = self.clock.clone();
        let server = NavigatorServer::new(self.task_queue()?);
        let state = server.navigator();
        let workflow = McpToolset::workflow(server).await?;
        let knowledge = knowledge_tools(
            self.engine.clone(),
            Some(Arc::new(self.engine.store().clone())),
            clock.clone(),
        );
        let code: Vec<Arc<dyn Tool>> = vec![Arc::new(CodeContextTool::new(&self.repo))];
        let planner_tools = ToolCatalog::new()
            .with_tools(workflow.tools())
            .with_approver(|_| true);
        let orchestrator = Orchestrator::new()
            .register(Arc::new(
                ToolAgent::navigator(
                    llm.clone(),
                    ToolCatalog::new().with_tools(knowledge.clone()),
                )
                .clock(clock.clone()),
            ))
            .register(Arc::new(
                ToolAgent::coder(llm.clone(), ToolCatalog::new().with_tools(code.clone()))
                    .clock(clock.clone()),
            ))
            .register(Arc::new(
                ToolAgent::planner(llm.clone(), planner_tools).clock(clock.clone()),
            ))
            .register(Arc::new(
                LlmAgent::communicator(llm.clone()).with_clock(clock.clone()),
            ));
        let catalog = ToolCatalog::new()
            .with_tools(knowledge)
            .with_tools(code)
            .with_tools(workflow.tools());
        let butler = Butler::builder(llm)
            .orchestrator(orchestrator)
            .tools(catalog)
            .clock(clock)
            .user_name("Ada")
            .json_mode(json_mode)
            .build()?;
        Ok(Session {
            butler,
            tasks: state,
        })
    }
}

/// One model call as [`Metered`] saw it.
#[derive(Debug, Clone, PartialEq)]
pub struct CallRecord {
    /// The Butler's classification call (not a specialist's or the synthesis).
    pub classification: bool,
    /// Tokens (cached prompt tokens in `cache_read_tokens`).
    pub usage: Usage,
    /// Wall time of the call.
    pub wall: Duration,
    /// The error, when the call failed.
    pub error: Option<String>,
}

/// An [`Llm`] that records every call's usage and wall time.
pub struct Metered {
    inner: Arc<dyn Llm>,
    calls: Mutex<Vec<CallRecord>>,
}

impl Metered {
    /// Meters `inner`.
    pub fn new(inner: Arc<dyn Llm>) -> Self {
        Self {
            inner,
            calls: Mutex::new(Vec::new()),
        }
    }

    /// The calls recorded since the last take.
    pub fn take(&self) -> Vec<CallRecord> {
        std::mem::take(&mut *self.calls.lock().unwrap())
    }
}

#[async_trait::async_trait]
impl Llm for Metered {
    fn provider(&self) -> &str {
        self.inner.provider()
    }

    fn model(&self) -> &str {
        self.inner.model()
    }

    async fn chat(&self, request: &ChatRequest) -> navigator_core::Result<ChatResponse> {
        let start = Instant::now();
        let out = self.inner.chat(request).await;
        self.calls.lock().unwrap().push(CallRecord {
            classification: request.system_text().contains("Classify every message"),
            usage: out.as_ref().map(|r| r.usage).unwrap_or_default(),
            wall: start.elapsed(),
            error: out.as_ref().err().map(|e| e.to_string()),
        });
        out
    }
}

/// How one turn went.
#[derive(Debug, Clone)]
pub struct TurnResult {
    /// The expected intent.
    pub expected_intent: String,
    /// The classified intent (`None` when the turn failed with an error).
    pub intent: Option<String>,
    /// The classification fell back to `clarify`: the model's answer failed twice (invalid
    /// JSON, a failed call).
    pub fallback: bool,
    /// Every tool call of every specialist, in order.
    pub calls: Vec<ExecutedCall>,
    /// Expectations not met.
    pub failures: Vec<String>,
    /// The Butler's error, when the turn did not complete.
    pub error: Option<String>,
    /// The answer.
    pub response: String,
    /// Tokens of the turn.
    pub usage: Usage,
    /// The model calls of the turn.
    pub llm_calls: Vec<CallRecord>,
}

/// How one conversation went.
#[derive(Debug, Clone)]
pub struct ConversationResult {
    /// Its id.
    pub id: String,
    /// Its kind.
    pub kind: String,
    /// The turns.
    pub turns: Vec<TurnResult>,
}

impl ConversationResult {
    /// Every turn completed and met its expectations.
    pub fn succeeded(&self) -> bool {
        self.turns
            .iter()
            .all(|t| t.error.is_none() && t.failures.is_empty())
    }
}

/// Runs `conversation` turn by turn through a fresh session over `llm`.
pub async fn run(
    world: &World,
    conversation: &Conversation,
    llm: Arc<dyn Llm>,
    json_mode: JsonMode,
) -> anyhow::Result<ConversationResult> {
    let metered = Arc::new(Metered::new(llm));
    let session = world.session(metered.clone(), json_mode).await?;
    let mut turns = Vec::with_capacity(conversation.turns.len());
    for turn in &conversation.turns {
        let outcome = session
            .butler
            .handle_message(&conversation.id, &turn.user)
            .await;
        let llm_calls = metered.take();
        turns.push(match outcome {
            Ok(r) => score(&turn.expect, &r, &session.tasks, llm_calls),
            Err(e) => TurnResult {
                expected_intent: turn.expect.intent.clone(),
                intent: None,
                fallback: false,
                calls: Vec::new(),
                failures: Vec::new(),
                error: Some(e.to_string()),
                response: String::new(),
                usage: Usage::default(),
                llm_calls,
            },
        });
    }
    Ok(ConversationResult {
        id: conversation.id.clone(),
        kind: conversation.kind.clone(),
        turns,
    })
}

/// Runs `conversation` with its recorded answers; also returns how many recorded answers
/// were left unused (0 when the Butler made exactly the recorded calls).
pub async fn run_recorded(
    world: &World,
    conversation: &Conversation,
) -> anyhow::Result<(ConversationResult, usize)> {
    let llm = Arc::new(ScriptedLlm::from_texts(
        "claude-sonnet-4-5",
        Vec::<String>::new(),
    ));
    for turn in &conversation.turns {
        for interaction in &turn.recorded {
            llm.push(interaction.clone());
        }
    }
    let result = run(world, conversation, llm.clone(), JsonMode::JsonSchema).await?;
    Ok((result, llm.remaining()))
}

/// Checks one turn's response against its expectations.
fn score(
    expect: &Expect,
    r: &ButlerResponse,
    tasks: &Mutex<Navigator>,
    llm_calls: Vec<CallRecord>,
) -> TurnResult {
    let mut failures = Vec::new();
    let intent = r.classification.intent.as_str().to_string();
    if intent != expect.intent {
        failures.push(format!("intent {intent}, expected {}", expect.intent));
    }
    if let Some(agent) = &expect.agent {
        if r.delegated_agent.as_deref() != Some(agent.as_str()) {
            failures.push(format!(
                "delegated to {:?}, expected {agent}",
                r.delegated_agent
            ));
        }
    }
    let calls: Vec<ExecutedCall> = r
        .sub_results
        .iter()
        .filter_map(|o| o.data.get("calls"))
        .filter_map(|c| serde_json::from_value::<Vec<ExecutedCall>>(c.clone()).ok())
        .flatten()
        .collect();
    for tool in &expect.tools {
        if !calls
            .iter()
            .any(|c| &c.tool == tool && c.status == CallStatus::Ok)
        {
            failures.push(format!("no successful {tool} call"));
        }
    }
    let cited: Vec<&str> = r
        .sub_results
        .iter()
        .filter_map(|o| o.data.get("sources").and_then(|s| s.as_array()))
        .flatten()
        .filter_map(|s| s.get("id").and_then(|i| i.as_str()))
        .collect();
    let top = &cited[..expect.within.unwrap_or(cited.len()).min(cited.len())];
    for id in &expect.sources {
        if !top.contains(&id.as_str()) {
            failures.push(format!(
                "source {id} not among the first {} cited ({cited:?})",
                top.len()
            ));
        }
    }
    let response = r
        .response
        .clone()
        .or_else(|| r.follow_up_questions.as_ref().map(|q| q.join(" ")))
        .unwrap_or_default();
    let lower = response.to_lowercase();
    for part in &expect.contains {
        if !lower.contains(&part.to_lowercase()) {
            failures.push(format!("answer lacks {part:?}"));
        }
    }
    if expect.unavailable && r.unavailable.is_empty() {
        failures.push("no unavailable notice".into());
    }
    let queue = tasks.lock().unwrap();
    for (id, wanted) in &expect.task_status {
        let got = queue
            .task(id)
            .map(|t| serde_json::to_value(t.status).unwrap_or_default());
        match got {
            Ok(s) if s.as_str() == Some(wanted.as_str()) => {}
            Ok(s) => failures.push(format!("task {id} is {s}, expected {wanted}")),
            Err(e) => failures.push(format!("task {id}: {e}")),
        }
    }
    TurnResult {
        expected_intent: expect.intent.clone(),
        intent: Some(intent),
        fallback: r.decided_by == DecidedBy::Fallback,
        calls,
        failures,
        error: None,
        response,
        usage: r.usage,
        llm_calls,
    }
}

/// Counts of one group of conversations.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// Conversations.
    pub conversations: usize,
    /// Conversations in which every turn met its expectations.
    pub succeeded: usize,
    /// Turns.
    pub turns: usize,
    /// Turns classified as expected.
    pub intents_correct: usize,
    /// Turns that ended in an error.
    pub errors: usize,
    /// Turns whose classification fell back to `clarify`.
    pub fallbacks: usize,
    /// Model calls that failed (the Butler may have recovered: a fallback, a retry).
    pub failed_llm_calls: usize,
    /// Tool calls.
    pub calls: usize,
    /// Tool calls that reached the tool (`ok` or `failed`).
    pub valid_calls: usize,
}

impl Tally {
    fn add(&mut self, c: &ConversationResult) {
        self.conversations += 1;
        self.succeeded += usize::from(c.succeeded());
        for t in &c.turns {
            self.turns += 1;
            self.intents_correct += usize::from(t.intent.as_deref() == Some(&t.expected_intent));
            self.errors += usize::from(t.error.is_some());
            self.fallbacks += usize::from(t.fallback);
            self.failed_llm_calls += t.llm_calls.iter().filter(|c| c.error.is_some()).count();
            self.calls += t.calls.len();
            self.valid_calls += t
                .calls
                .iter()
                .filter(|c| matches!(c.status, CallStatus::Ok | CallStatus::Failed))
                .count();
        }
    }

    /// Turns classified as expected, over all turns.
    pub fn intent_accuracy(&self) -> f64 {
        ratio(self.intents_correct, self.turns)
    }

    /// Calls that reached the tool, over all calls (1 when there were none).
    pub fn tool_call_validity(&self) -> f64 {
        match self.calls {
            0 => 1.0,
            n => ratio(self.valid_calls, n),
        }
    }

    /// Conversations that met every expectation, over all conversations.
    pub fn task_success(&self) -> f64 {
        ratio(self.succeeded, self.conversations)
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    match b {
        0 => 0.0,
        b => a as f64 / b as f64,
    }
}

/// Mean cached prompt tokens and wall time of a group of classification calls.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CallStats {
    /// Calls.
    pub calls: usize,
    /// Mean prompt tokens served from the server's cache.
    pub cached_tokens: f64,
    /// Mean prompt tokens, cached or not.
    pub input_tokens: f64,
    /// Mean wall time, in milliseconds.
    pub wall_ms: f64,
}

impl CallStats {
    fn of<'a>(calls: impl Iterator<Item = &'a CallRecord>) -> Self {
        let calls: Vec<_> = calls.filter(|c| c.error.is_none()).collect();
        let n = calls.len().max(1) as f64;
        Self {
            calls: calls.len(),
            cached_tokens: calls
                .iter()
                .map(|c| c.usage.cache_read_tokens as f64)
                .sum::<f64>()
                / n,
            input_tokens: calls
                .iter()
                .map(|c| c.usage.total_input() as f64)
                .sum::<f64>()
                / n,
            wall_ms: calls
                .iter()
                .map(|c| c.wall.as_secs_f64() * 1e3)
                .sum::<f64>()
                / n,
        }
    }
}

/// The evaluation's figures, overall and by kind.
#[derive(Debug, Clone)]
pub struct Report {
    /// Over every conversation.
    pub total: Tally,
    /// By conversation kind.
    pub by_kind: BTreeMap<String, Tally>,
    /// Tool calls by status (`ok`, `invalid_arguments`, ...).
    pub call_statuses: BTreeMap<String, usize>,
    /// Tokens over every turn.
    pub usage: Usage,
    /// The classification call of each conversation's first turn.
    pub first_turn: CallStats,
    /// The classification calls of the later turns.
    pub later_turns: CallStats,
    /// The conversations that failed, with why (`id turn N: ...`).
    pub failures: Vec<String>,
    /// The distinct errors of failed model calls, with how often each came.
    pub llm_errors: BTreeMap<String, usize>,
}

impl Report {
    /// Tallies `results`.
    pub fn of(results: &[ConversationResult]) -> Self {
        let mut total = Tally::default();
        let mut by_kind: BTreeMap<String, Tally> = BTreeMap::new();
        let mut call_statuses = BTreeMap::new();
        let mut usage = Usage::default();
        let mut failures = Vec::new();
        let mut llm_errors = BTreeMap::new();
        for c in results {
            total.add(c);
            by_kind.entry(c.kind.clone()).or_default().add(c);
            for (i, t) in c.turns.iter().enumerate() {
                usage += t.usage;
                for e in t.llm_calls.iter().filter_map(|c| c.error.as_deref()) {
                    let short: String = e.chars().take(200).collect();
                    *llm_errors.entry(short).or_insert(0) += 1;
                }
                for call in &t.calls {
                    let status = serde_json::to_value(call.status).unwrap_or_default();
                    *call_statuses
                        .entry(status.as_str().unwrap_or("?").to_string())
                        .or_insert(0) += 1;
                }
                let mut why = t.failures.clone();
                why.extend(t.error.iter().map(|e| format!("error: {e}")));
                if !why.is_empty() {
                    failures.push(format!("{} turn {}: {}", c.id, i + 1, why.join("; ")));
                }
            }
        }
        let classification = |first: bool| {
            results
                .iter()
                .flat_map(|c| c.turns.iter().enumerate())
                .filter(move |(i, _)| (*i == 0) == first)
                .flat_map(|(_, t)| t.llm_calls.iter().filter(|c| c.classification).take(1))
        };
        Self {
            total,
            by_kind,
            call_statuses,
            usage,
            first_turn: CallStats::of(classification(true)),
            later_turns: CallStats::of(classification(false)),
            failures,
            llm_errors,
        }
    }
}

impl fmt::Display for Report {
    /// A markdown table by kind with the totals, then call statuses, tokens, prompt reuse and
    /// the failures.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "| kind | conversations | turns | intent accuracy | tool calls | tool-call validity | task success | errors |"
        )?;
        writeln!(f, "|---|---:|---:|---:|---:|---:|---:|---:|")?;
        let row = |f: &mut fmt::Formatter<'_>, name: &str, t: &Tally| {
            writeln!(
                f,
                "| {name} | {} | {} | {:.3} ({}/{}) | {} | {:.3} ({}/{}) | {:.3} ({}/{}) | {} |",
                t.conversations,
                t.turns,
                t.intent_accuracy(),
                t.intents_correct,
                t.turns,
                t.calls,
                t.tool_call_validity(),
                t.valid_calls,
                t.calls,
                t.task_success(),
                t.succeeded,
                t.conversations,
                t.errors
            )
        };
        for (kind, t) in &self.by_kind {
            row(f, kind, t)?;
        }
        row(f, "**all**", &self.total)?;
        let statuses: Vec<String> = self
            .call_statuses
            .iter()
            .map(|(s, n)| format!("{s} {n}"))
            .collect();
        writeln!(f, "\ntool calls by status: {}", statuses.join(", "))?;
        writeln!(
            f,
            "classifications fallen back to clarify: {}; failed model calls: {}",
            self.total.fallbacks, self.total.failed_llm_calls
        )?;
        for (e, n) in &self.llm_errors {
            writeln!(f, "- {n}× {e}")?;
        }
        writeln!(
            f,
            "tokens: {} input, {} cached input, {} output",
            self.usage.input_tokens, self.usage.cache_read_tokens, self.usage.output_tokens
        )?;
        for (name, s) in [("first", &self.first_turn), ("later", &self.later_turns)] {
            writeln!(
                f,
                "classification calls, {name} turns: {} calls, mean {:.0} prompt tokens of which {:.0} cached, mean {:.0} ms",
                s.calls, s.input_tokens, s.cached_tokens, s.wall_ms
            )?;
        }
        if !self.failures.is_empty() {
            writeln!(f, "\nfailed turns ({}):", self.failures.len())?;
            for line in &self.failures {
                writeln!(f, "- {line}")?;
            }
        }
        Ok(())
    }
}
