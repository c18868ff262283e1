//! [`LlmAgent`]: a generic sub-agent driven by a prompt template and an [`Llm`]: the drafting
//! specialist, and the shape for specialists an application brings along with the data they
//! need (the application's inbox or calendar agent passes that data in its role or history).

use super::default_templates;
use super::prompt::specialist_vars;
use async_trait::async_trait;
use navigator_core::{
    Agent, AgentContext, AgentOutcome, AgentState, AgentTask, ChatRequest, Llm, Message,
    SystemBlock, TemplateSet,
};
use navigator_search::{Clock, SystemClock};
use std::sync::Arc;

/// Turns of the session history a specialist sees.
const HISTORY_TURNS: usize = 6;

/// A specialist defined by a name, a role description and a template (`specialist` unless
/// changed), answering in plain text through an [`Llm`].
///
/// ```
/// use navigator_butler::LlmAgent;
/// use navigator_core::{Agent, AgentContext, AgentTask, ScriptedLlm};
/// use std::sync::Arc;
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let llm = Arc::new(ScriptedLlm::from_texts("m", ["Hi Sam, the Q4 report is attached. Best, Ada"]));
/// let writer = LlmAgent::communicator(llm.clone());
/// let out = writer.handle(AgentTask::new("email Sam the Q4 report"), &AgentContext::new("s", "u")).await?;
/// assert_eq!(out.response, "Hi Sam, the Q4 report is attached. Best, Ada");
/// assert!(llm.requests()[0].system_text().contains("draft"));
/// # Ok::<(), navigator_core::Error>(()) }).unwrap();
/// ```
#[derive(Clone)]
pub struct LlmAgent {
    name: String,
    description: String,
    role: String,
    template: String,
    templates: TemplateSet,
    llm: Arc<dyn Llm>,
    clock: Arc<dyn Clock>,
}

impl std::fmt::Debug for LlmAgent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmAgent")
            .field("name", &self.name)
            .field("template", &self.template)
            .field("model", &self.llm.model())
            .finish()
    }
}

impl LlmAgent {
    /// A specialist named `name`; `description` goes into the Butler's catalog, `role` into the
    /// specialist's own prompt.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        role: impl Into<String>,
        llm: Arc<dyn Llm>,
    ) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            role: role.into(),
            template: "specialist".into(),
            templates: default_templates(),
            llm,
            clock: Arc::new(SystemClock),
        }
    }

    /// The writing specialist (`communicator`): its work is the draft itself, so a prompt
    /// and a model are all it needs. (Inbox, calendar and preference specialists need access
    /// to the person's data: an application registers its own agents for them, and without
    /// one the Butler answers that the capability is not available.)
    pub fn communicator(llm: Arc<dyn Llm>) -> Self {
        Self::new("communicator", "drafts emails and messages", "you draft emails and messages in the person's voice, ready for them to review and send.", llm)
    }

    /// Uses the template `name` from `templates` instead of `specialist`.
    pub fn with_template(mut self, templates: TemplateSet, name: impl Into<String>) -> Self {
        self.templates = templates;
        self.template = name.into();
        self
    }

    /// Resolves "today" with `clock`.
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }
}

#[async_trait]
impl Agent for LlmAgent {
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
        let delegation =
            serde_json::to_string_pretty(&task).unwrap_or_else(|_| task.instruction.clone());
        let user = context.user_name.as_deref().unwrap_or(&context.user_id);
        let vars = specialist_vars(&self.name, &self.role, user, self.clock.now().date_naive())
            .set("delegation", delegation);
        let system = self.templates.render(&self.template, &vars)?;
        let mut request =
            ChatRequest::new(task.instruction.clone()).with_system(SystemBlock::dynamic(system));
        let mut messages: Vec<Message> = context.recent(HISTORY_TURNS).to_vec();
        messages.append(&mut request.messages);
        request.messages = messages;
        let response = self.llm.chat(&request).await?;
        let text = response.text.trim();
        if text.is_empty() {
            return Err(navigator_core::Error::Llm {
                provider: self.llm.provider().to_string(),
                message: format!("agent `{}` got an empty answer", self.name),
            });
        }
        Ok(AgentOutcome {
            agent: self.name.clone(),
            response: text.to_string(),
            data: serde_json::Value::Null,
            state: AgentState::Idle,
            usage: response.usage,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use navigator_core::ScriptedLlm;

    #[tokio::test]
    async fn prompt_carries_role_date_delegation_and_history() {
        let llm = Arc::new(ScriptedLlm::from_texts("m", ["Tuesday 10:00 works."]));
        let clock = navigator_search::FixedClock("2026-11-21T09:00:00Z".parse().unwrap());
        let agent = LlmAgent::new(
            "scheduler",
            "plans meetings",
            "you propose meeting slots from the calendar the application passes in.",
            llm.clone(),
        )
        .with_clock(Arc::new(clock));
        let mut ctx = AgentContext::new("s", "u").with_user_name("Ada");
        ctx.push_user("earlier question");
        ctx.push_assistant("earlier answer");
        let mut task = AgentTask::new("schedule a review with John");
        task.relevant_entities = vec!["John".into()];
        task.time_constraints = Some("this week".into());
        let out = agent.handle(task, &ctx).await.unwrap();
        assert_eq!(
            (out.agent.as_str(), out.response.as_str()),
            ("scheduler", "Tuesday 10:00 works.")
        );
        let req = &llm.requests()[0];
        let system = req.system_text();
        for needle in [
            "**scheduler**",
            "Ada",
            "2026-11-21",
            "\"timeConstraints\": \"this week\"",
            "John",
        ] {
            assert!(system.contains(needle), "{needle} in {system}");
        }
        let contents: Vec<_> = req.messages.iter().map(|m| m.content.as_str()).collect();
        assert_eq!(
            contents,
            [
                "earlier question",
                "earlier answer",
                "schedule a review with John"
            ]
        );
    }

    #[tokio::test]
    async fn an_empty_answer_is_an_error_not_an_empty_outcome() {
        let llm = Arc::new(ScriptedLlm::from_texts("m", ["  "]));
        let err = LlmAgent::communicator(llm)
            .handle(AgentTask::new("x"), &AgentContext::new("s", "u"))
            .await
            .unwrap_err();
        assert!(err.to_string().contains("communicator"), "{err}");
    }
}
