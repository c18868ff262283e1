//! [`ToolAgent`]: a specialist with real capabilities — a model running the
//! [tool-use loop](crate::ToolLoop) over its own tools (the knowledge tools for the
//! Navigator, the context explorer for code, the workflow engine's MCP tools for tasks).
//!
//! Its prompt is the `tool_specialist` template split like the Butler's: the part above the
//! `<!-- dynamic` line (persona, role, rules) is a cached block, and the tool definitions are
//! sorted by name, so the whole prefix is byte-identical from call to call; the date and the
//! person's name follow uncached. The reply is the model's answer with the sources the tools
//! returned listed under it; a loop stopped by a limit still reports what its tools found.

use super::prompt::{specialist_vars, split_template};
use super::tool_loop::{LoopLimits, LoopOutcome, LoopStop, ToolLoop};
use super::tools::ToolCatalog;
use async_trait::async_trait;
use navigator_core::{
    Agent, AgentContext, AgentOutcome, AgentState, AgentTask, Llm, Message, TemplateSet,
};
use navigator_search::{Clock, SystemClock};
use serde_json::json;
use std::sync::Arc;

/// Turns of the session history a specialist sees.
const HISTORY_TURNS: usize = 6;

/// Sources listed under a reply (all of them are in the outcome's `data`).
const LISTED_SOURCES: usize = 10;

/// A specialist that works through tools.
///
/// ```
/// use navigator_butler::{ToolAgent, ToolCatalog};
/// use navigator_core::{Agent, AgentContext, AgentTask, ScriptedLlm};
/// use std::sync::Arc;
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let llm = Arc::new(ScriptedLlm::from_texts("m", ["No tool needed for that."]));
/// let agent = ToolAgent::new("helper", "helps", "answers questions", llm.clone(), ToolCatalog::new());
/// let out = agent.handle(AgentTask::new("hello"), &AgentContext::new("s", "u")).await?;
/// assert_eq!(out.response, "No tool needed for that.");
/// assert!(llm.requests()[0].system[0].cache);
/// # Ok::<(), navigator_core::Error>(()) }).unwrap();
/// ```
#[derive(Clone)]
pub struct ToolAgent {
    name: String,
    description: String,
    role: String,
    tool_loop: ToolLoop,
    templates: TemplateSet,
    clock: Arc<dyn Clock>,
}

impl std::fmt::Debug for ToolAgent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolAgent")
            .field("name", &self.name)
            .field("loop", &self.tool_loop)
            .finish()
    }
}

impl ToolAgent {
    /// A specialist named `name`: `description` goes into the Butler's catalog, `role` into
    /// its own prompt; it works with `tools` through `llm`.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        role: impl Into<String>,
        llm: Arc<dyn Llm>,
        tools: ToolCatalog,
    ) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            role: role.into(),
            tool_loop: ToolLoop::new(llm, tools),
            templates: super::default_templates(),
            clock: Arc::new(SystemClock),
        }
    }

    /// The Navigator (`navigator`, serves `delegate_search`) over the knowledge tools.
    pub fn navigator(llm: Arc<dyn Llm>, tools: ToolCatalog) -> Self {
        Self::new(
            "navigator",
            "searches the person's PARA knowledge base and conversation timeline, opens items, re-indexes notes",
            "find what the person stored (projects, areas, resources, archives, past \
             conversations) with search_knowledge, open the best hits with get_item when the \
             snippet is not enough, use search_timeline for what was discussed when, and \
             re-index notes with index_notes when asked.",
            llm,
            tools,
        )
    }

    /// The code specialist (`coder`, serves `delegate_code`) over the context explorer.
    pub fn coder(llm: Arc<dyn Llm>, tools: ToolCatalog) -> Self {
        Self::new(
            "coder",
            "finds code in the person's repository and builds the context for a coding task",
            "answer questions about the person's repository and prepare coding tasks: call \
             build_code_context with the task as the goal, then name the files and symbols that \
             matter and why, citing paths.",
            llm,
            tools,
        )
    }

    /// The task specialist (`planner`, serves `delegate_tasks`) over the workflow tools.
    pub fn planner(llm: Arc<dyn Llm>, tools: ToolCatalog) -> Self {
        Self::new(
            "planner",
            "runs the person's workflows and task queue: loads workflows, creates task trees, finds the next tasks, advances and completes them",
            "work the person's task queue with the workflow tools: list workflows and tasks \
             before changing anything, create task trees from loaded workflows, find the next \
             tasks, and advance a task with the outcome the person reports. Quote task ids.",
            llm,
            tools,
        )
    }

    /// Sets the loop's limits (steps, tokens, USD).
    pub fn limits(mut self, limits: LoopLimits) -> Self {
        self.tool_loop = self.tool_loop.limits(limits);
        self
    }

    /// Templates (to reword `tool_specialist`).
    pub fn templates(mut self, templates: TemplateSet) -> Self {
        self.templates = templates;
        self
    }

    /// Where "today" comes from.
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// The tools it may use.
    pub fn tools(&self) -> &ToolCatalog {
        self.tool_loop.tools()
    }

    fn request_text(task: &AgentTask) -> String {
        let mut text = task.instruction.clone();
        if !task.relevant_entities.is_empty() {
            text.push_str(&format!("\nAbout: {}", task.relevant_entities.join(", ")));
        }
        if let Some(t) = &task.time_constraints {
            text.push_str(&format!("\nWhen: {t}"));
        }
        if let Some(prefs) = task.arguments.get("userPreferences") {
            text.push_str(&format!("\nPreferences: {prefs}"));
        }
        if let Some(earlier) = task
            .arguments
            .get("previousResults")
            .and_then(|v| v.as_array())
        {
            text.push_str("\nResults of the earlier steps:");
            for r in earlier {
                text.push_str(&format!(
                    "\n- [{}] {}",
                    r["agent"].as_str().unwrap_or_default(),
                    r["response"].as_str().unwrap_or_default()
                ));
            }
        }
        text
    }
}

#[async_trait]
impl Agent for ToolAgent {
    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &str {
        &self.description
    }

    async fn handle(
        &self,
        task: AgentTask,
        context: &AgentContext,
    ) -> navigator_core::Result<AgentOutcome> {
        let user = context.user_name.as_deref().unwrap_or("the person");
        let vars = specialist_vars(&self.name, &self.role, user, self.clock.now().date_naive());
        let system = split_template(&self.templates, "tool_specialist", &vars)
            .map_err(navigator_core::Error::from)?;
        let mut messages: Vec<Message> = context.recent(HISTORY_TURNS).to_vec();
        messages.push(Message::user(Self::request_text(&task)));
        let out = self
            .tool_loop
            .run(system, messages)
            .await
            .map_err(navigator_core::Error::from)?;
        Ok(AgentOutcome {
            agent: self.name.clone(),
            response: reply(&out),
            data: json!({
                "calls": out.calls,
                "sources": out.sources,
                "stop": out.stop,
                "steps": out.steps,
                "usd": out.usd,
            }),
            state: AgentState::Idle,
            usage: out.usage,
        })
    }
}

/// The answer with its sources; when a limit stopped the loop, what the tools found.
fn reply(out: &LoopOutcome) -> String {
    let why = match out.stop {
        LoopStop::Answered => None,
        LoopStop::StepLimit => Some("the step limit"),
        LoopStop::TokenBudget => Some("the token budget"),
        LoopStop::UsdBudget => Some("the cost budget"),
    };
    let mut text = match (out.text.is_empty(), why) {
        (false, _) => out.text.clone(),
        (true, None) => "I found nothing to say about that.".to_string(),
        (true, Some(why)) => {
            let mut t = format!("I stopped at {why} before finishing. What the tools returned:");
            for (tool, result) in &out.results {
                let mut line = result.to_string();
                if line.chars().count() > 600 {
                    line = line.chars().take(600).collect::<String>() + "…";
                }
                t.push_str(&format!("\n- {tool}: {line}"));
            }
            if out.results.is_empty() {
                t.push_str(" nothing yet.");
            }
            t
        }
    };
    if !out.sources.is_empty() {
        text.push_str("\n\nSources:");
        for s in out.sources.iter().take(LISTED_SOURCES) {
            match s.title == s.id {
                true => text.push_str(&format!("\n- {}", s.id)),
                false => text.push_str(&format!("\n- {} [{}]", s.title, s.id)),
            }
        }
        if out.sources.len() > LISTED_SOURCES {
            text.push_str(&format!(
                "\n- … and {} more",
                out.sources.len() - LISTED_SOURCES
            ));
        }
    }
    text
}
