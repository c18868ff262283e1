//! The orchestrator: sub-agents behind [`Agent`], the intent each one serves, delegation with
//! a [`DelegationContext`], and ordered multi-step plans whose results feed later steps.

use super::{ButlerError, DelegationContext, Intent, Result, SubTask};
use navigator_core::{Agent, AgentContext, AgentOutcome, AgentRegistry, AgentState, AgentTask};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Sub-agents and the intent each one serves.
///
/// Out of the box `delegate_triage` goes to `triage`, `delegate_schedule` to `scheduler`,
/// `delegate_draft` to `communicator`, `delegate_search` to `navigator`, `delegate_learn` to
/// `preference_learner`, `delegate_code` to `coder` and `delegate_tasks` to `planner`;
/// [`route`](Self::route) changes that.
///
/// ```
/// use navigator_butler::{Intent, LlmAgent, Orchestrator};
/// use navigator_core::ScriptedLlm;
/// use std::sync::Arc;
/// let llm = Arc::new(ScriptedLlm::from_texts("m", ["Hi Sam, ..."]));
/// let orchestrator = Orchestrator::new()
///     .register(Arc::new(LlmAgent::communicator(llm)));
/// assert_eq!(orchestrator.agent_for(Intent::DelegateDraft)?, "communicator");
/// assert!(orchestrator.agent_for(Intent::DelegateTriage).is_err()); // none registered
/// # Ok::<(), navigator_butler::ButlerError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Orchestrator {
    agents: AgentRegistry,
    routes: BTreeMap<Intent, String>,
}

impl Default for Orchestrator {
    fn default() -> Self {
        Self::new()
    }
}

impl Orchestrator {
    /// No agents, the default routes.
    pub fn new() -> Self {
        let routes = [
            (Intent::DelegateTriage, "triage"),
            (Intent::DelegateSchedule, "scheduler"),
            (Intent::DelegateDraft, "communicator"),
            (Intent::DelegateSearch, "navigator"),
            (Intent::DelegateLearn, "preference_learner"),
            (Intent::DelegateCode, "coder"),
            (Intent::DelegateTasks, "planner"),
        ]
        .into_iter()
        .map(|(i, n)| (i, n.to_string()))
        .collect();
        Self {
            agents: AgentRegistry::new(),
            routes,
        }
    }

    /// Registers `agent` under its name.
    pub fn register(mut self, agent: Arc<dyn Agent>) -> Self {
        self.agents.register(agent);
        self
    }

    /// Sends `intent` to the agent named `agent`; only delegation intents can be routed.
    pub fn route(mut self, intent: Intent, agent: impl Into<String>) -> Result<Self> {
        if !intent.is_delegation() {
            return Err(ButlerError::invalid(
                "intent",
                format!("{intent} is answered by the Butler itself and cannot be routed"),
            ));
        }
        self.routes.insert(intent, agent.into());
        Ok(self)
    }

    /// The name of the registered agent serving `intent`.
    pub fn agent_for(&self, intent: Intent) -> Result<&str> {
        self.routes
            .get(&intent)
            .filter(|name| self.agents.get(name).is_some())
            .map(String::as_str)
            .ok_or_else(|| ButlerError::NoAgent(intent.as_str().to_string()))
    }

    /// The agents as prompt text, one line each with the intent it serves.
    pub fn render_catalog(&self) -> String {
        let catalog = self.agents.catalog();
        if catalog.is_empty() {
            return "(no specialists registered: answer directly, clarify or decline)".into();
        }
        catalog
            .into_iter()
            .map(|(name, description)| {
                let serves: Vec<&str> = self
                    .routes
                    .iter()
                    .filter(|(_, n)| n.as_str() == name)
                    .map(|(i, _)| i.as_str())
                    .collect();
                match serves.is_empty() {
                    true => format!("- {name}: {description}"),
                    false => format!("- {name} ({}): {description}", serves.join(", ")),
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Hands `instruction` to the agent `agent_type` with the delegation context: entities and
    /// time constraints as task fields, preferences and `previous` results (earlier steps of a
    /// plan) in the task's arguments, and the session (history included) as its context.
    pub async fn spawn_sub_agent(
        &self,
        agent_type: &str,
        instruction: &str,
        delegation: Option<&DelegationContext>,
        previous: &[AgentOutcome],
        session: &AgentContext,
    ) -> Result<AgentOutcome> {
        let agent = self
            .agents
            .get(agent_type)
            .ok_or_else(|| ButlerError::NoAgent(agent_type.to_string()))?;
        let delegation = delegation.cloned().unwrap_or_default();
        let mut arguments = serde_json::Map::new();
        if let Some(prefs) = &delegation.user_preferences {
            arguments.insert("userPreferences".into(), serde_json::json!(prefs));
        }
        if !previous.is_empty() {
            let earlier: Vec<_> = previous
                .iter()
                .map(|o| serde_json::json!({"agent": o.agent, "response": o.response}))
                .collect();
            arguments.insert("previousResults".into(), earlier.into());
        }
        let task = AgentTask {
            instruction: instruction.to_string(),
            relevant_entities: delegation.relevant_entities.unwrap_or_default(),
            time_constraints: delegation.time_constraints,
            arguments: match arguments.is_empty() {
                true => serde_json::Value::Null,
                false => arguments.into(),
            },
        };
        let mut context = session.clone();
        context.current_state = AgentState::Delegating;
        tracing::debug!(agent = agent_type, instruction, "delegating");
        Ok(agent.handle(task, &context).await?)
    }

    /// Runs `steps` in order, each seeing the results of the ones before, and returns every
    /// result in order. Stops at the first failure.
    pub async fn run_plan(
        &self,
        steps: &[SubTask],
        session: &AgentContext,
    ) -> Result<Vec<AgentOutcome>> {
        let mut outcomes = Vec::with_capacity(steps.len());
        for step in steps {
            let agent = self.agent_for(step.intent)?.to_string();
            let outcome = self
                .spawn_sub_agent(
                    &agent,
                    &step.instruction,
                    step.delegation_context.as_ref(),
                    &outcomes,
                    session,
                )
                .await?;
            outcomes.push(outcome);
        }
        Ok(outcomes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use async_trait::async_trait;
    use std::sync::Mutex;

    /// Records what it was handed and answers with its name and the instruction.
    #[derive(Default)]
    struct Recorder {
        name: &'static str,
        seen: Mutex<Vec<(AgentTask, AgentState)>>,
    }

    #[async_trait]
    impl Agent for Recorder {
        fn name(&self) -> &str {
            self.name
        }
        fn description(&self) -> &str {
            "records"
        }
        async fn handle(
            &self,
            task: AgentTask,
            ctx: &AgentContext,
        ) -> navigator_core::Result<AgentOutcome> {
            self.seen
                .lock()
                .unwrap()
                .push((task.clone(), ctx.current_state));
            Ok(AgentOutcome {
                agent: self.name.into(),
                response: format!("{} did: {}", self.name, task.instruction),
                data: serde_json::Value::Null,
                state: AgentState::Idle,
                usage: Default::default(),
            })
        }
    }

    #[tokio::test]
    async fn context_reaches_the_sub_agent() {
        let scheduler = Arc::new(Recorder {
            name: "scheduler",
            ..Default::default()
        });
        let o = Orchestrator::new().register(scheduler.clone());
        let delegation = DelegationContext {
            relevant_entities: Some(vec!["John Smith".into()]),
            time_constraints: Some("this week".into()),
            user_preferences: Some(vec!["mornings".into()]),
        };
        let out = o
            .spawn_sub_agent(
                "scheduler",
                "book a review",
                Some(&delegation),
                &[],
                &AgentContext::new("s", "u"),
            )
            .await
            .unwrap();
        assert_eq!(out.response, "scheduler did: book a review");
        let seen = scheduler.seen.lock().unwrap();
        let (task, state) = &seen[0];
        assert_eq!(task.relevant_entities, ["John Smith"]);
        assert_eq!(task.time_constraints.as_deref(), Some("this week"));
        assert_eq!(task.arguments["userPreferences"][0], "mornings");
        assert_eq!(*state, AgentState::Delegating);
    }

    #[tokio::test]
    async fn plan_runs_in_order_and_later_steps_see_earlier_results() {
        let nav = Arc::new(Recorder {
            name: "navigator",
            ..Default::default()
        });
        let com = Arc::new(Recorder {
            name: "communicator",
            ..Default::default()
        });
        let o = Orchestrator::new()
            .register(nav.clone())
            .register(com.clone());
        let step = |intent, instruction: &str| SubTask {
            intent,
            instruction: instruction.into(),
            delegation_context: None,
        };
        let out = o
            .run_plan(
                &[
                    step(Intent::DelegateSearch, "find it"),
                    step(Intent::DelegateDraft, "email Sam"),
                ],
                &AgentContext::new("s", "u"),
            )
            .await
            .unwrap();
        assert_eq!(
            out.iter().map(|o| o.agent.as_str()).collect::<Vec<_>>(),
            ["navigator", "communicator"]
        );
        let seen = com.seen.lock().unwrap();
        assert_eq!(
            seen[0].0.arguments["previousResults"][0]["response"],
            "navigator did: find it"
        );
        assert!(nav.seen.lock().unwrap()[0].0.arguments.is_null());
    }

    #[tokio::test]
    async fn missing_agents_and_unroutable_intents_are_typed_errors() {
        let o = Orchestrator::new();
        assert!(
            matches!(o.agent_for(Intent::DelegateSearch), Err(ButlerError::NoAgent(i)) if i == "delegate_search")
        );
        assert!(o.clone().route(Intent::DirectAnswer, "x").is_err());
        let err = o
            .spawn_sub_agent("ghost", "x", None, &[], &AgentContext::new("s", "u"))
            .await
            .unwrap_err();
        assert_eq!(err.to_string(), "no sub-agent registered for `ghost`");
        assert!(o.render_catalog().contains("no specialists"));
    }
}
