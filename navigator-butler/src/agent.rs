//! [`Butler`]: one message in, one [`ButlerResponse`] out.
//!
//! A turn runs idle → initializing → loading_context (the session's history) → processing
//! (pre-router, else LLM classification) and then, by intent: completing → idle for answers
//! the Butler gives itself; waiting_for_user → idle for `clarify`; delegating ⇄ processing per
//! sub-task, then completing → idle for delegations. A failed delegation enters `error` and
//! returns the error; the next turn resets to idle. Turns are serialised per Butler, so the
//! observable state is never interleaved.

use super::history::{HistoryStore, SessionHistory};
use super::prompt::butler_system;
use super::{
    default_templates, ButlerDecision, ButlerError, ButlerResponse, DecidedBy, Intent,
    IntentClassification, Orchestrator, PreRouter, Result, SubTask, ToolCatalog, Unavailable,
};
use navigator_core::{
    AgentContext, AgentOutcome, AgentState, ChatRequest, ConversationStore, Extractor, JsonMode,
    Lifecycle, Llm, Message, PricingTable, SystemBlock, TemplateSet, Usage, Vars,
};
use navigator_search::{Clock, SystemClock};
use std::sync::Arc;
use tokio::sync::{broadcast, watch, Mutex};

/// Default history budget per session, in tokens.
pub const DEFAULT_HISTORY_TOKENS: u64 = 4_000;

/// State changes buffered per [`Butler::transitions`] receiver; a full turn makes at most
/// a dozen, so a receiver drained once per turn never lags.
const TRANSITION_BUFFER: usize = 256;

/// The question asked when the Butler could not classify a message.
const FALLBACK_QUESTION: &str =
    "Sorry, I didn't quite get that. Could you say what you would like me to do, and about what?";

/// The main orchestrator agent.
///
/// ```
/// use navigator_butler::{Butler, DecidedBy, Intent};
/// use navigator_core::ScriptedLlm;
/// use std::sync::Arc;
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let llm = Arc::new(ScriptedLlm::from_texts("m", [r#"{"classification":{"intent":"direct_answer",
///   "confidence":0.95,"reasoning":"greeting"},"response":"Hello! How can I help?"}"#]));
/// let butler = Butler::builder(llm).user_name("Ada").build()?;
/// let r = butler.handle_message("s1", "Hi!").await?;
/// assert_eq!((r.classification.intent, r.decided_by), (Intent::DirectAnswer, DecidedBy::Llm));
/// assert_eq!(r.response.as_deref(), Some("Hello! How can I help?"));
/// # Ok::<(), navigator_butler::ButlerError>(()) }).unwrap();
/// ```
pub struct Butler {
    llm: Arc<dyn Llm>,
    orchestrator: Orchestrator,
    tools: ToolCatalog,
    templates: TemplateSet,
    router: Option<PreRouter>,
    clock: Arc<dyn Clock>,
    user_name: String,
    json_mode: JsonMode,
    history: HistoryStore,
    pricing: PricingTable,
    lifecycle: Lifecycle,
    transitions: broadcast::Sender<AgentState>,
    turn: Mutex<()>,
}

impl std::fmt::Debug for Butler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Butler")
            .field("model", &self.llm.model())
            .field("orchestrator", &self.orchestrator)
            .field("tools", &self.tools)
            .field("router", &self.router)
            .field("state", &self.lifecycle.state())
            .finish()
    }
}

/// Configures a [`Butler`].
pub struct ButlerBuilder {
    llm: Arc<dyn Llm>,
    orchestrator: Orchestrator,
    tools: ToolCatalog,
    templates: TemplateSet,
    router: Option<PreRouter>,
    clock: Arc<dyn Clock>,
    user_name: String,
    json_mode: JsonMode,
    history_tokens: u64,
    conversations: Option<Arc<dyn ConversationStore>>,
}

impl ButlerBuilder {
    /// The sub-agents.
    pub fn orchestrator(mut self, orchestrator: Orchestrator) -> Self {
        self.orchestrator = orchestrator;
        self
    }

    /// The tool catalog.
    pub fn tools(mut self, tools: ToolCatalog) -> Self {
        self.tools = tools;
        self
    }

    /// Templates (to override `butler`, `butler_synthesis` or `specialist`).
    pub fn templates(mut self, templates: TemplateSet) -> Self {
        self.templates = templates;
        self
    }

    /// The embedding pre-router.
    pub fn pre_router(mut self, router: PreRouter) -> Self {
        self.router = Some(router);
        self
    }

    /// Where "today" comes from (`{{current_date}}`); inject a fixed clock in tests.
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// The person's name (`{{user_name}}`).
    pub fn user_name(mut self, name: impl Into<String>) -> Self {
        self.user_name = name.into();
        self
    }

    /// How JSON is requested besides the prompt (`PromptOnly` for Anthropic).
    pub fn json_mode(mut self, mode: JsonMode) -> Self {
        self.json_mode = mode;
        self
    }

    /// History budget per session, in tokens (at least 100).
    pub fn history_tokens(mut self, tokens: u64) -> Self {
        self.history_tokens = tokens;
        self
    }

    /// Persists every conversation in `store` (window, digest, spend) after each turn and
    /// resumes a conversation id it has not seen in this process from it.
    pub fn conversations(mut self, store: Arc<dyn ConversationStore>) -> Self {
        self.conversations = Some(store);
        self
    }

    /// Checks the configuration (the prompt renders) and builds the Butler.
    pub fn build(self) -> Result<Butler> {
        if self.history_tokens < 100 {
            return Err(super::ButlerError::invalid(
                "historyTokens",
                format!("must be at least 100, got {}", self.history_tokens),
            ));
        }
        self.tools.check()?;
        let butler = Butler {
            llm: self.llm,
            orchestrator: self.orchestrator,
            tools: self.tools,
            templates: self.templates,
            router: self.router,
            clock: self.clock,
            user_name: self.user_name,
            json_mode: self.json_mode,
            history: HistoryStore::new(self.history_tokens, self.conversations),
            pricing: PricingTable::default(),
            lifecycle: Lifecycle::new("butler"),
            transitions: broadcast::Sender::new(TRANSITION_BUFFER),
            turn: Mutex::new(()),
        };
        butler.system_blocks(&SessionHistory::default())?;
        Ok(butler)
    }
}

impl Butler {
    /// A builder with no sub-agents, no tools, no pre-router, the system clock and the
    /// embedded templates.
    pub fn builder(llm: Arc<dyn Llm>) -> ButlerBuilder {
        ButlerBuilder {
            llm,
            orchestrator: Orchestrator::new(),
            tools: ToolCatalog::new(),
            templates: default_templates(),
            router: None,
            clock: Arc::new(SystemClock),
            user_name: "the user".into(),
            json_mode: JsonMode::default(),
            history_tokens: DEFAULT_HISTORY_TOKENS,
            conversations: None,
        }
    }

    /// The current lifecycle state.
    pub fn state(&self) -> AgentState {
        self.lifecycle.state()
    }

    /// Watches the current state (a watch channel: a slow reader sees the latest state, not
    /// every step).
    pub fn subscribe(&self) -> watch::Receiver<AgentState> {
        self.lifecycle.subscribe()
    }

    /// Receives every state change, in order, from now on.
    pub fn transitions(&self) -> broadcast::Receiver<AgentState> {
        self.transitions.subscribe()
    }

    /// Moves the lifecycle and tells [`transitions`](Self::transitions) receivers.
    fn enter(&self, state: AgentState) -> Result<()> {
        self.lifecycle.transition(state)?;
        // No receiver is not an error: nobody is watching.
        let _ = self.transitions.send(state);
        Ok(())
    }

    fn fail(&self) {
        if self.lifecycle.state() != AgentState::Error {
            self.lifecycle.fail();
            let _ = self.transitions.send(AgentState::Error);
        }
    }

    /// The session's history window, digest of dropped requests and spend (read from the
    /// conversation store the first time a session is asked for).
    pub async fn history(&self, session: &str) -> Result<SessionHistory> {
        Ok(self.history.load(session).await?)
    }

    /// The tool catalog.
    pub fn tools(&self) -> &ToolCatalog {
        &self.tools
    }

    /// The system prompt blocks for a session: the cached static block, then the dynamic one.
    pub async fn system_prompt(&self, session: &str) -> Result<Vec<SystemBlock>> {
        self.system_blocks(&self.history.load(session).await?)
    }

    /// Handles one message of `session`.
    ///
    /// An LLM that fails or keeps answering invalid JSON (one retry) does not fail the turn:
    /// it ends as `clarify` decided by [`DecidedBy::Fallback`]. A delegation that fails (no
    /// such agent, the agent erred) returns the error with the Butler in `error` state.
    pub async fn handle_message(&self, session: &str, text: &str) -> Result<ButlerResponse> {
        if text.trim().is_empty() {
            return Err(super::ButlerError::invalid("text", "the message is empty"));
        }
        let _turn = self.turn.lock().await;
        if self.lifecycle.state() == AgentState::Error {
            self.enter(AgentState::Idle)?;
        }
        match self.run_turn(session, text).await {
            Ok(response) => Ok(response),
            Err(e) => {
                self.fail();
                Err(e)
            }
        }
    }

    async fn run_turn(&self, session: &str, text: &str) -> Result<ButlerResponse> {
        self.enter(AgentState::Initializing)?;
        self.enter(AgentState::LoadingContext)?;
        let history = self.history.load(session).await?;
        let mut context = AgentContext::new(session, session).with_user_name(&self.user_name);
        context.history = history.turns.clone();
        self.enter(AgentState::Processing)?;
        let (decision, decided_by, usage) = self.decide(&history, text).await?;
        let mut response = match decision.classification.intent {
            Intent::Clarify => {
                self.enter(AgentState::WaitingForUser)?;
                self.answer_self(decision, decided_by)
            }
            i if i.is_delegation() => self.delegate(decision, decided_by, text, &context).await?,
            _ => {
                self.enter(AgentState::Completing)?;
                self.answer_self(decision, decided_by)
            }
        };
        response.usage += usage;
        let said = response
            .response
            .clone()
            .or_else(|| response.follow_up_questions.as_ref().map(|q| q.join(" ")))
            .unwrap_or_default();
        let usd = self
            .pricing
            .cost(self.llm.model(), &response.usage)
            .unwrap_or(0.0);
        self.history
            .record(session, text, &said, response.usage, usd)
            .await?;
        self.enter(AgentState::Idle)?;
        Ok(response)
    }

    async fn decide(
        &self,
        history: &SessionHistory,
        text: &str,
    ) -> Result<(ButlerDecision, DecidedBy, Usage)> {
        if let Some(router) = &self.router {
            let s = router.score(text).await?;
            if s.routed {
                let reasoning = format!(
                    "embedding pre-router: score {:.3} ≥ threshold {:.3}",
                    s.score,
                    router.threshold()
                );
                let decision = ButlerDecision {
                    classification: IntentClassification::new(
                        s.intent,
                        f64::from(s.score.clamp(0.0, 1.0)),
                        reasoning,
                    ),
                    response: None,
                    follow_up_questions: None,
                    sub_tasks: None,
                };
                return Ok((decision, DecidedBy::PreRouter, Usage::default()));
            }
        }
        let mut request = ChatRequest::new(text).with_max_tokens(1024);
        request.system = self.system_blocks(history)?;
        let mut messages = history.turns.clone();
        messages.append(&mut request.messages);
        request.messages = messages;
        let extractor = Extractor::<ButlerDecision>::new()
            .retries(1)
            .mode(self.json_mode)
            .templates(self.templates.clone())
            .validate(|d| d.validate().map_err(|e| e.to_string()));
        match extractor.extract(self.llm.as_ref(), request).await {
            Ok(got) => Ok((got.value, DecidedBy::Llm, got.usage)),
            Err(e) => {
                tracing::warn!(error = %e, "classification failed; degrading to clarify");
                let spent = match &e {
                    navigator_core::Error::StructuredOutput { usage, .. } => *usage,
                    _ => Usage::default(),
                };
                Ok((fallback(&e), DecidedBy::Fallback, spent))
            }
        }
    }

    fn answer_self(&self, d: ButlerDecision, decided_by: DecidedBy) -> ButlerResponse {
        let follow_up = match (d.classification.intent, d.follow_up_questions) {
            (Intent::Clarify, None) => Some(vec![FALLBACK_QUESTION.to_string()]),
            (_, q) => q,
        };
        ButlerResponse {
            classification: d.classification,
            response: d.response,
            delegated_agent: None,
            follow_up_questions: follow_up,
            decided_by,
            sub_results: Vec::new(),
            unavailable: Vec::new(),
            usage: Usage::default(),
        }
    }

    async fn delegate(
        &self,
        d: ButlerDecision,
        decided_by: DecidedBy,
        text: &str,
        context: &AgentContext,
    ) -> Result<ButlerResponse> {
        let steps = match d.sub_tasks.clone().filter(|s| !s.is_empty()) {
            Some(steps) => steps,
            None => vec![SubTask {
                intent: d.classification.intent,
                instruction: text.to_string(),
                delegation_context: d.classification.delegation_context.clone(),
            }],
        };
        let mut outcomes: Vec<AgentOutcome> = Vec::with_capacity(steps.len());
        let mut unavailable: Vec<Unavailable> = Vec::new();
        for step in &steps {
            let agent = match self.orchestrator.agent_for(step.intent) {
                Ok(agent) => agent.to_string(),
                Err(ButlerError::NoAgent(_)) => {
                    let missing = Unavailable::for_intent(step.intent);
                    if !unavailable.contains(&missing) {
                        unavailable.push(missing);
                    }
                    continue;
                }
                Err(e) => return Err(e),
            };
            self.enter(AgentState::Delegating)?;
            let outcome = self
                .orchestrator
                .spawn_sub_agent(
                    &agent,
                    &step.instruction,
                    step.delegation_context.as_ref(),
                    &outcomes,
                    context,
                )
                .await?;
            self.enter(AgentState::Processing)?;
            outcomes.push(outcome);
        }
        self.enter(AgentState::Completing)?;
        let mut usage: Usage = outcomes
            .iter()
            .map(|o| o.usage)
            .fold(Usage::default(), |a, b| a + b);
        let mut answer = match outcomes.as_slice() {
            [] => String::new(),
            [one] => one.response.clone(),
            many => {
                let (text, spent) = self.synthesise(text, many).await;
                usage += spent;
                text
            }
        };
        for missing in &unavailable {
            if !answer.is_empty() {
                answer.push_str("\n\n");
            }
            answer.push_str(&missing.describe());
        }
        let agents: Vec<&str> = outcomes.iter().map(|o| o.agent.as_str()).collect();
        Ok(ButlerResponse {
            delegated_agent: (!agents.is_empty()).then(|| agents.join(",")),
            classification: d.classification,
            response: Some(answer),
            follow_up_questions: d.follow_up_questions,
            decided_by,
            sub_results: outcomes,
            unavailable,
            usage,
        })
    }

    /// One answer from several results: the LLM writes it; if it cannot, the results are
    /// joined in order, so the person still gets every fact.
    async fn synthesise(&self, request: &str, outcomes: &[AgentOutcome]) -> (String, Usage) {
        let listed = numbered(outcomes);
        let vars = Vars::new().set("request", request).set("results", &listed);
        let prompt = match self.templates.render("butler_synthesis", &vars) {
            Ok(p) => p,
            Err(e) => {
                tracing::warn!(error = %e, "synthesis template failed; joining results");
                return (listed, Usage::default());
            }
        };
        let req = ChatRequest {
            messages: vec![Message::user(prompt)],
            max_tokens: 1024,
            ..ChatRequest::default()
        };
        match self.llm.chat(&req).await {
            Ok(r) if !r.text.trim().is_empty() => (r.text.trim().to_string(), r.usage),
            Ok(r) => (listed, r.usage),
            Err(e) => {
                tracing::warn!(error = %e, "synthesis failed; joining results");
                (listed, Usage::default())
            }
        }
    }

    fn system_blocks(&self, history: &SessionHistory) -> Result<Vec<SystemBlock>> {
        let vars = Vars::new()
            .set("user_name", &self.user_name)
            .set("agent_catalog", self.orchestrator.render_catalog())
            .set("tool_catalog", self.tools.render())
            .with_current_date(self.clock.now().date_naive());
        let mut blocks = butler_system(&self.templates, &vars)?;
        if let Some(digest) = history.digest_text() {
            blocks.push(SystemBlock::dynamic(format!(
                "## Earlier in this conversation\n{digest}"
            )));
        }
        Ok(blocks)
    }
}

fn numbered(outcomes: &[AgentOutcome]) -> String {
    outcomes
        .iter()
        .enumerate()
        .map(|(i, o)| format!("{}. [{}] {}", i + 1, o.agent, o.response))
        .collect::<Vec<_>>()
        .join("\n")
}

fn fallback(error: &navigator_core::Error) -> ButlerDecision {
    ButlerDecision {
        classification: IntentClassification::new(
            Intent::Clarify,
            0.0,
            format!("could not classify the message: {error}"),
        ),
        response: None,
        follow_up_questions: Some(vec![FALLBACK_QUESTION.to_string()]),
        sub_tasks: None,
    }
}
