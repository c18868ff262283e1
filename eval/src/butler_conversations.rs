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

mod report;

pub use report::{CallStats, Report, Tally};

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
