//! The Butler's contract: [`Intent`], [`IntentClassification`], [`ButlerResponse`] and the
//! model's raw decision ([`ButlerDecision`]), camelCase on the wire, validated, with JSON Schema.

use super::{ButlerError, Result};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What the Butler decided to do with a message.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Intent {
    /// Answer from general knowledge or the conversation, no specialist needed.
    DirectAnswer,
    /// Inbox and message prioritisation (the triage agent).
    DelegateTriage,
    /// Calendar: meetings, reminders, availability (the scheduler agent).
    DelegateSchedule,
    /// Writing emails and messages (the communicator agent).
    DelegateDraft,
    /// Finding things in the knowledge base (the Navigator).
    DelegateSearch,
    /// Remembering a preference or habit (the preference-learner agent).
    DelegateLearn,
    /// Code in the person's repository: find it, build context for a task (the coder).
    DelegateCode,
    /// The person's workflows and task queue (the planner, over the workflow engine).
    DelegateTasks,
    /// The request is too vague to act on; ask.
    Clarify,
    /// Out of scope or not allowed.
    CannotHelp,
}

impl Intent {
    /// All ten intents, in the order the prompt lists them.
    pub const ALL: [Intent; 10] = [
        Self::DirectAnswer,
        Self::DelegateTriage,
        Self::DelegateSchedule,
        Self::DelegateDraft,
        Self::DelegateSearch,
        Self::DelegateLearn,
        Self::DelegateCode,
        Self::DelegateTasks,
        Self::Clarify,
        Self::CannotHelp,
    ];

    /// The wire name (`delegate_search`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::DirectAnswer => "direct_answer",
            Self::DelegateTriage => "delegate_triage",
            Self::DelegateSchedule => "delegate_schedule",
            Self::DelegateDraft => "delegate_draft",
            Self::DelegateSearch => "delegate_search",
            Self::DelegateLearn => "delegate_learn",
            Self::DelegateCode => "delegate_code",
            Self::DelegateTasks => "delegate_tasks",
            Self::Clarify => "clarify",
            Self::CannotHelp => "cannot_help",
        }
    }

    /// Whether this intent hands the work to a sub-agent.
    pub fn is_delegation(self) -> bool {
        matches!(
            self,
            Self::DelegateTriage
                | Self::DelegateSchedule
                | Self::DelegateDraft
                | Self::DelegateSearch
                | Self::DelegateLearn
                | Self::DelegateCode
                | Self::DelegateTasks
        )
    }

    /// Parses a wire name.
    pub fn parse(name: &str) -> Result<Intent> {
        Self::ALL
            .into_iter()
            .find(|i| i.as_str() == name)
            .ok_or_else(|| ButlerError::invalid("intent", format!("unknown intent `{name}`")))
    }
}

impl std::fmt::Display for Intent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a delegated agent should know beyond the request text.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DelegationContext {
    /// People, projects, documents the request is about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relevant_entities: Option<Vec<String>>,
    /// When, in words (`this week`, `before Friday`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_constraints: Option<String>,
    /// Preferences that shape the result (`short meetings`, `formal tone`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_preferences: Option<Vec<String>>,
}

/// The classification of one message.
///
/// ```
/// use navigator_butler::{Intent, IntentClassification};
/// let c: IntentClassification = serde_json::from_str(r#"{"intent":"delegate_schedule",
///   "confidence":0.92,"reasoning":"wants a meeting",
///   "delegationContext":{"relevantEntities":["John"],"timeConstraints":"this week"}}"#)?;
/// assert_eq!(c.intent, Intent::DelegateSchedule);
/// assert!(c.validate().is_ok());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct IntentClassification {
    /// The intent.
    pub intent: Intent,
    /// How sure the classifier is, in `[0, 1]`.
    pub confidence: f64,
    /// Why, in one sentence.
    pub reasoning: String,
    /// What a delegated agent should know.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delegation_context: Option<DelegationContext>,
}

impl IntentClassification {
    /// A classification without delegation context.
    pub fn new(intent: Intent, confidence: f64, reasoning: impl Into<String>) -> Self {
        Self {
            intent,
            confidence,
            reasoning: reasoning.into(),
            delegation_context: None,
        }
    }

    /// Checks what the schema cannot say: confidence in `[0, 1]`, a non-empty reasoning, no
    /// blank entity.
    pub fn validate(&self) -> Result<()> {
        if !(0.0..=1.0).contains(&self.confidence) {
            return Err(ButlerError::invalid(
                "confidence",
                format!("must be in [0, 1], got {}", self.confidence),
            ));
        }
        if self.reasoning.trim().is_empty() {
            return Err(ButlerError::invalid("reasoning", "must not be empty"));
        }
        let entities = self
            .delegation_context
            .as_ref()
            .and_then(|c| c.relevant_entities.as_deref())
            .unwrap_or_default();
        if let Some(i) = entities.iter().position(|e| e.trim().is_empty()) {
            return Err(ButlerError::invalid(
                format!("delegationContext.relevantEntities[{i}]"),
                "must not be blank",
            ));
        }
        Ok(())
    }
}

/// One step of a multi-step request, as the model plans it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SubTask {
    /// Which specialist does this step (a `delegate_*` intent).
    pub intent: Intent,
    /// What to do, in words.
    pub instruction: String,
    /// What the specialist should know.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delegation_context: Option<DelegationContext>,
}

/// What the model answers when asked to classify: the classification, a reply for
/// `direct_answer` / `clarify` / `cannot_help`, and the ordered steps of a multi-step request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ButlerDecision {
    /// The classification.
    pub classification: IntentClassification,
    /// The reply, for intents the Butler answers itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<String>,
    /// Questions to ask back (for `clarify`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub follow_up_questions: Option<Vec<String>>,
    /// Ordered steps when the request needs more than one specialist.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sub_tasks: Option<Vec<SubTask>>,
}

impl ButlerDecision {
    /// Validates the classification and the cross-field rules: `direct_answer` carries a
    /// response, sub-tasks are delegations with instructions.
    pub fn validate(&self) -> Result<()> {
        self.classification.validate()?;
        let blank = |s: &Option<String>| s.as_deref().is_none_or(|r| r.trim().is_empty());
        if self.classification.intent == Intent::DirectAnswer && blank(&self.response) {
            return Err(ButlerError::invalid(
                "response",
                "direct_answer needs a non-empty response",
            ));
        }
        for (i, step) in self.sub_tasks.iter().flatten().enumerate() {
            if !step.intent.is_delegation() {
                return Err(ButlerError::invalid(
                    format!("subTasks[{i}].intent"),
                    format!("must be a delegate_* intent, got {}", step.intent),
                ));
            }
            if step.instruction.trim().is_empty() {
                return Err(ButlerError::invalid(
                    format!("subTasks[{i}].instruction"),
                    "must not be empty",
                ));
            }
        }
        Ok(())
    }
}

/// A request the Butler cannot serve here: no specialist is registered for its intent. The
/// answer says so, and what would be needed, instead of inventing content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Unavailable {
    /// The intent that has no specialist.
    pub intent: Intent,
    /// What is missing, in words (`calendar`).
    pub capability: String,
    /// What would make it available.
    pub needs: String,
}

impl Unavailable {
    /// The capability a delegation intent needs and how to provide it.
    pub fn for_intent(intent: Intent) -> Self {
        let (capability, needs) = match intent {
            Intent::DelegateTriage => (
                "email inbox",
                "an inbox connection (IMAP, Gmail or Microsoft Graph) registered as the sub-agent for delegate_triage",
            ),
            Intent::DelegateSchedule => (
                "calendar",
                "a calendar connection (CalDAV, Google Calendar or Outlook) registered as the sub-agent for delegate_schedule",
            ),
            Intent::DelegateDraft => (
                "drafting",
                "a writing sub-agent (LlmAgent::communicator) registered for delegate_draft",
            ),
            Intent::DelegateSearch => (
                "knowledge base",
                "a knowledge base: the Navigator (ToolAgent::navigator with search_knowledge, or NavigatorSubAgent) registered for delegate_search",
            ),
            Intent::DelegateLearn => (
                "preference memory",
                "a preference store registered as the sub-agent for delegate_learn",
            ),
            Intent::DelegateCode => (
                "code repository",
                "a repository: ToolAgent::coder with build_code_context registered for delegate_code",
            ),
            Intent::DelegateTasks => (
                "workflow engine",
                "the workflow engine: ToolAgent::planner with the McpToolset::workflow tools registered for delegate_tasks",
            ),
            other => (other.as_str(), "nothing: the Butler answers this itself"),
        };
        Self {
            intent,
            capability: capability.into(),
            needs: needs.into(),
        }
    }

    /// One sentence for the person.
    pub fn describe(&self) -> String {
        format!(
            "I can't help with that here: no {} is connected (it needs {}).",
            self.capability, self.needs
        )
    }
}

/// Which component decided the intent of a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DecidedBy {
    /// The embedding pre-router was confident; no classification call was made.
    PreRouter,
    /// The LLM classified through the structured-output helper.
    Llm,
    /// The LLM failed or kept answering invalid JSON; the Butler degraded to `clarify`.
    Fallback,
}

/// The Butler's answer to one message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ButlerResponse {
    /// How the message was classified.
    pub classification: IntentClassification,
    /// The answer for the user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<String>,
    /// The sub-agent(s) that did the work, comma-separated in order for multi-step requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delegated_agent: Option<String>,
    /// Questions for the user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub follow_up_questions: Option<Vec<String>>,
    /// Which path decided the intent.
    pub decided_by: DecidedBy,
    /// Each sub-agent's own result, in order (structured data included).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sub_results: Vec<navigator_core::AgentOutcome>,
    /// Steps that could not run because no specialist serves them, with what they need.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unavailable: Vec<Unavailable>,
    /// Tokens over every model call of the turn (classification, specialists, synthesis),
    /// cache reads and writes included.
    #[serde(default)]
    pub usage: navigator_core::Usage,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decision(json: &str) -> ButlerDecision {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn wire_names_round_trip_for_every_intent() {
        for i in Intent::ALL {
            assert_eq!(serde_json::to_value(i).unwrap(), i.as_str());
            assert_eq!(Intent::parse(i.as_str()).unwrap(), i);
        }
        assert!(Intent::parse("delegate_everything").is_err());
    }

    #[test]
    fn confidence_outside_unit_interval_is_rejected_naming_the_field() {
        let c = IntentClassification::new(Intent::Clarify, 1.2, "vague");
        let err = c.validate().unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid `confidence`: must be in [0, 1], got 1.2"
        );
        assert!(IntentClassification::new(Intent::Clarify, f64::NAN, "x")
            .validate()
            .is_err());
        assert!(IntentClassification::new(Intent::Clarify, 0.0, " ")
            .validate()
            .is_err());
    }

    #[test]
    fn unknown_fields_and_intents_do_not_parse() {
        assert!(serde_json::from_str::<IntentClassification>(
            r#"{"intent":"direct_answer","confidence":0.9,"reasoning":"r","mood":"happy"}"#
        )
        .is_err());
        assert!(serde_json::from_str::<IntentClassification>(
            r#"{"intent":"delegate_weather","confidence":0.9,"reasoning":"r"}"#
        )
        .is_err());
    }

    #[test]
    fn direct_answer_needs_a_response_and_sub_tasks_must_delegate() {
        let no_answer = decision(
            r#"{"classification":{"intent":"direct_answer","confidence":0.9,"reasoning":"hi"}}"#,
        );
        assert_eq!(
            no_answer.validate().unwrap_err().to_string(),
            "invalid `response`: direct_answer needs a non-empty response"
        );
        let bad_step = decision(
            r#"{"classification":{"intent":"delegate_search","confidence":0.9,"reasoning":"r"},
                "subTasks":[{"intent":"delegate_search","instruction":"find"},
                            {"intent":"clarify","instruction":"ask"}]}"#,
        );
        let err = bad_step.validate().unwrap_err();
        assert!(err.to_string().contains("subTasks[1].intent"), "{err}");
    }

    #[test]
    fn blank_entity_is_named_by_index() {
        let c: IntentClassification = serde_json::from_str(
            r#"{"intent":"delegate_schedule","confidence":0.9,"reasoning":"r",
                "delegationContext":{"relevantEntities":["John",""]}}"#,
        )
        .unwrap();
        assert!(c
            .validate()
            .unwrap_err()
            .to_string()
            .contains("relevantEntities[1]"));
    }

    #[test]
    fn schema_lists_the_ten_intents_and_camel_case_fields() {
        let schema =
            serde_json::to_string(&navigator_core::json_schema::<ButlerDecision>()).unwrap();
        for i in Intent::ALL {
            assert!(schema.contains(i.as_str()), "{i}");
        }
        for field in [
            "delegationContext",
            "relevantEntities",
            "timeConstraints",
            "followUpQuestions",
            "subTasks",
        ] {
            assert!(schema.contains(field), "{field}");
        }
    }
}
