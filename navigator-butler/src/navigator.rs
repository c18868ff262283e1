//! [`NavigatorSubAgent`]: the Navigator search agent (navigator-search) behind the [`Agent`]
//! trait, so the Butler delegates `delegate_search` to a real search over whatever
//! `Arc<dyn SearchService>` the agent was given (embedded, PostgreSQL, the application's own).

use async_trait::async_trait;
use navigator_core::{
    Action, Agent, AgentContext, AgentOutcome, AgentState, AgentTask, NavigatorResponse,
    SearchService,
};
use navigator_search::{Clock, NavigatorAgent};
use std::sync::Arc;

/// Hits listed in the text answer (all of them are in the outcome's `data`).
const LISTED_HITS: usize = 5;

/// The Navigator as a Butler sub-agent named `navigator`.
///
/// The task's instruction is the query; the outcome's `data` is the validated
/// [`NavigatorResponse`] and its `response` lists the top hits in words.
#[derive(Debug, Clone)]
pub struct NavigatorSubAgent {
    inner: NavigatorAgent,
}

impl NavigatorSubAgent {
    /// Wraps `agent`.
    pub fn new(agent: NavigatorAgent) -> Self {
        Self { inner: agent }
    }

    /// A Navigator searching `service` (the embedded engine, PostgreSQL, or the
    /// application's own), resolving time phrases against `clock`.
    pub fn over(service: Arc<dyn SearchService>, clock: Arc<dyn Clock>) -> Self {
        Self::new(NavigatorAgent::new(service, clock))
    }
}

#[async_trait]
impl Agent for NavigatorSubAgent {
    fn name(&self) -> &str {
        "navigator"
    }

    fn description(&self) -> &str {
        "searches the person's PARA knowledge base (projects, tasks, areas, resources, contacts, templates, archive)"
    }

    async fn handle(
        &self,
        task: AgentTask,
        _context: &AgentContext,
    ) -> navigator_core::Result<AgentOutcome> {
        let response = self.inner.ask(&task.instruction).await?;
        let text = describe(&response);
        let state = match response.action() {
            Action::Clarify => AgentState::WaitingForUser,
            _ => AgentState::Idle,
        };
        Ok(AgentOutcome {
            agent: "navigator".into(),
            response: text,
            data: serde_json::to_value(&response)
                .map_err(|e| navigator_core::Error::invalid("navigatorResponse", e.to_string()))?,
            state,
            usage: Default::default(),
        })
    }
}

/// The answer in words: the hits with ids, the navigation target, or the question.
fn describe(response: &NavigatorResponse) -> String {
    match response {
        NavigatorResponse::SearchResults {
            results,
            suggestions,
            ..
        } => {
            let mut lines = vec![format!("Found {} item(s):", results.len())];
            lines.extend(results.iter().take(LISTED_HITS).enumerate().map(|(i, r)| {
                format!(
                    "{}. {} ({}, {}, id {}, score {:.2})",
                    i + 1,
                    r.title,
                    r.item_type,
                    r.category,
                    r.item_id,
                    r.relevance_score
                )
            }));
            lines.extend(suggestions.iter().flatten().cloned());
            lines.join("\n")
        }
        NavigatorResponse::Navigate {
            navigation_target: t,
        } => {
            format!("Opening {} `{}` ({}).", t.item_type, t.item_id, t.category)
        }
        NavigatorResponse::Clarify {
            clarification_question: c,
            ..
        } => match &c.context {
            Some(ctx) => format!("{} {ctx}", c.question),
            None => c.question.clone(),
        },
        NavigatorResponse::NoResults { suggestions, .. } => match suggestions.is_empty() {
            true => "Nothing in the knowledge base matches.".into(),
            false => format!("Nothing matches. Try: {}", suggestions.join("; ")),
        },
    }
}
