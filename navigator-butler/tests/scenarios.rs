//! The Butler's scenarios over a scripted LLM replaying recorded answers
//! (`tests/fixtures/butler/*.json`): classification, delegation with context, degradation,
//! history, multi-step aggregation, lifecycle, prompt and tools.

use navigator_butler::{
    Butler, ButlerError, DecidedBy, Intent, LlmAgent, Orchestrator, Permission, ToolCatalog,
    ToolSpec,
};
use navigator_core::{AgentState, Fault, Interaction, Llm, ScriptedLlm};
use navigator_search::FixedClock;
use std::sync::Arc;

fn cassette(name: &str) -> Arc<ScriptedLlm> {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    Arc::new(ScriptedLlm::from_file(path).unwrap())
}

fn clock() -> Arc<FixedClock> {
    Arc::new(FixedClock("2026-11-21T12:00:00Z".parse().unwrap()))
}

/// An application's own specialist (inbox, calendar, preferences), answering from `llm`.
fn app_agent(name: &str, role: &str, llm: Arc<dyn Llm>) -> Arc<LlmAgent> {
    Arc::new(
        LlmAgent::new(name, format!("the application's {name}"), role, llm).with_clock(clock()),
    )
}

/// Four template-driven specialists, all answering from `specialists`: the drafting one
/// navigator ships and three an application with inbox and calendar access would register.
fn orchestrator(specialists: Arc<ScriptedLlm>) -> Orchestrator {
    let llm: Arc<dyn Llm> = specialists;
    Orchestrator::new()
        .register(app_agent(
            "triage",
            "you triage the inbox the application reads.",
            llm.clone(),
        ))
        .register(app_agent(
            "scheduler",
            "you plan meetings in the application's calendar.",
            llm.clone(),
        ))
        .register(Arc::new(
            LlmAgent::communicator(llm.clone()).with_clock(clock()),
        ))
        .register(app_agent(
            "preference_learner",
            "you record the preference stated.",
            llm,
        ))
}

fn butler(llm: Arc<ScriptedLlm>, specialists: Arc<ScriptedLlm>) -> Butler {
    Butler::builder(llm)
        .orchestrator(orchestrator(specialists))
        .clock(clock())
        .user_name("Ada")
        .build()
        .unwrap()
}

fn no_specialist_calls() -> Arc<ScriptedLlm> {
    Arc::new(ScriptedLlm::from_texts("m", Vec::<String>::new()))
}

#[tokio::test]
async fn greeting_is_answered_directly_without_delegating() {
    let llm = cassette("greeting.json");
    let specialists = no_specialist_calls();
    let b = butler(llm.clone(), specialists.clone());
    let r = b.handle_message("s", "Hello!").await.unwrap();
    assert_eq!(r.classification.intent, Intent::DirectAnswer);
    assert_eq!(r.decided_by, DecidedBy::Llm);
    assert_eq!(
        r.response.as_deref(),
        Some("Hello! How can I help you today?")
    );
    assert_eq!(r.delegated_agent, None);
    assert!(specialists.requests().is_empty());
    assert_eq!(b.state(), AgentState::Idle);
}

#[tokio::test]
async fn inbox_question_is_delegated_to_triage_with_its_context() {
    let specialists = Arc::new(ScriptedLlm::from_texts(
        "m",
        ["2 urgent: the contract from Legal, Sarah's budget question."],
    ));
    let b = butler(cassette("triage.json"), specialists.clone());
    let r = b
        .handle_message("s", "What needs my attention in my inbox today?")
        .await
        .unwrap();
    assert_eq!(r.classification.intent, Intent::DelegateTriage);
    assert_eq!(r.delegated_agent.as_deref(), Some("triage"));
    assert_eq!(
        r.response.as_deref(),
        Some("2 urgent: the contract from Legal, Sarah's budget question.")
    );
    let sent = specialists.requests()[0].system_text();
    assert!(
        sent.contains("**triage**") && sent.contains("\"timeConstraints\": \"today\""),
        "{sent}"
    );
}

#[tokio::test]
async fn schedule_request_carries_entities_and_time_constraint_to_the_scheduler() {
    let specialists = Arc::new(ScriptedLlm::from_texts(
        "m",
        ["Proposed: Thursday 10:00, project review with John Smith."],
    ));
    let b = butler(cassette("schedule.json"), specialists.clone());
    let r = b
        .handle_message("s", "schedule a review with John this week")
        .await
        .unwrap();
    assert_eq!(r.classification.intent, Intent::DelegateSchedule);
    let ctx = r.classification.delegation_context.as_ref().unwrap();
    assert_eq!(
        ctx.relevant_entities.as_deref().unwrap(),
        ["John Smith", "project review"]
    );
    assert_eq!(ctx.time_constraints.as_deref(), Some("this week"));
    assert_eq!(r.delegated_agent.as_deref(), Some("scheduler"));
    let sent = specialists.requests()[0].system_text();
    for needle in [
        "John Smith",
        "\"timeConstraints\": \"this week\"",
        "2026-11-21",
        "Ada",
    ] {
        assert!(sent.contains(needle), "{needle} missing from {sent}");
    }
    assert_eq!(r.sub_results[0].agent, "scheduler");
}

#[tokio::test]
async fn malformed_json_is_retried_once_then_degrades_to_clarify() {
    let llm = cassette("malformed.json");
    let b = butler(llm.clone(), no_specialist_calls());
    let mut states = b.subscribe();
    let r = b.handle_message("s", "Hello!").await.unwrap();
    assert_eq!(llm.requests().len(), 2, "one retry, then give up");
    let retry = &llm.requests()[1].messages;
    assert!(
        retry.last().unwrap().content.contains("malformed"),
        "{:?}",
        retry.last()
    );
    assert_eq!(r.classification.intent, Intent::Clarify);
    assert_eq!(r.decided_by, DecidedBy::Fallback);
    assert_eq!(r.classification.confidence, 0.0);
    // The two failed attempts still cost tokens, and the turn says so.
    assert_eq!((r.usage.input_tokens, r.usage.output_tokens), (3370, 42));
    assert_eq!(r.response, None);
    assert!(!r.follow_up_questions.unwrap()[0].contains("delegate_weather"));
    assert_eq!(*states.borrow_and_update(), AgentState::Idle);
    assert_eq!(b.state(), AgentState::Idle);
}

#[tokio::test]
async fn provider_failure_also_degrades_to_clarify() {
    let llm = Arc::new(
        ScriptedLlm::from_texts("m", Vec::<String>::new())
            .with(Interaction::fault(Fault::Server { status: 529 })),
    );
    let b = butler(llm, no_specialist_calls());
    let r = b.handle_message("s", "Hello!").await.unwrap();
    assert_eq!(
        (r.classification.intent, r.decided_by),
        (Intent::Clarify, DecidedBy::Fallback)
    );
    assert!(
        r.classification.reasoning.contains("529"),
        "{}",
        r.classification.reasoning
    );
}

#[tokio::test]
async fn history_is_carried_across_turns_and_kept_per_session() {
    let llm = cassette("history.json");
    let b = butler(llm.clone(), no_specialist_calls());
    b.handle_message("s1", "I'm working on the Phoenix project")
        .await
        .unwrap();
    let r = b
        .handle_message("s1", "What did I tell you about?")
        .await
        .unwrap();
    assert_eq!(
        r.response.as_deref(),
        Some("You told me about the Phoenix project.")
    );
    let second = &llm.requests()[1].messages;
    let contents: Vec<_> = second.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(
        contents,
        [
            "I'm working on the Phoenix project",
            "Nice — Phoenix it is. What do you need for it?",
            "What did I tell you about?"
        ]
    );
    assert_eq!(b.history("s1").await.unwrap().turns.len(), 4);
    assert!(b.history("s2").await.unwrap().turns.is_empty());
}

#[tokio::test]
async fn multi_step_request_runs_in_order_and_is_synthesised_into_one_answer() {
    let llm = cassette("multi_step.json");
    let specialists = Arc::new(
        ScriptedLlm::from_texts("m", Vec::<String>::new())
            .with(Interaction::text(
                "Found: \"Q4 Strategic Expansion\" (project).",
            ))
            .with(Interaction::text(
                "Draft: Hi Sam, here is the Q4 Strategic Expansion report. Best, Ada",
            )),
    );
    // The search step goes to a template agent here; butler_navigator.rs runs the real one.
    let orchestrator = orchestrator(specialists.clone()).register(Arc::new(LlmAgent::new(
        "navigator",
        "searches",
        "you search notes",
        specialists.clone(),
    )));
    let b = Butler::builder(llm.clone())
        .orchestrator(orchestrator)
        .clock(clock())
        .build()
        .unwrap();
    let r = b
        .handle_message("s", "Find the Q4 report and draft an email to Sam about it")
        .await
        .unwrap();
    assert_eq!(r.delegated_agent.as_deref(), Some("navigator,communicator"));
    assert_eq!(r.sub_results.len(), 2);
    let draft_prompt = specialists.requests()[1].system_text();
    assert!(
        draft_prompt.contains("Q4 Strategic Expansion") && draft_prompt.contains("previousResults"),
        "{draft_prompt}"
    );
    assert!(
        draft_prompt.contains("\"brief\""),
        "preferences passed on: {draft_prompt}"
    );
    let synthesis = &llm.requests()[1].messages[0].content;
    let (found, drafted) = (
        synthesis.find("[navigator]").unwrap(),
        synthesis.find("[communicator]").unwrap(),
    );
    assert!(found < drafted, "{synthesis}");
    assert!(r.response.unwrap().starts_with("I found the Q4 material"));
}

#[tokio::test]
async fn failed_synthesis_still_returns_every_result_in_order() {
    let specialists = Arc::new(ScriptedLlm::from_texts(
        "m",
        ["Found the Q4 report.", "Drafted the email to Sam."],
    ));
    let orchestrator = orchestrator(specialists.clone()).register(Arc::new(LlmAgent::new(
        "navigator",
        "searches",
        "you search notes",
        specialists,
    )));
    // Only the classification is scripted: the synthesis call fails.
    let first_only = Arc::new(ScriptedLlm::from_texts(
        "m",
        [first_answer("multi_step.json")],
    ));
    let b = Butler::builder(first_only)
        .orchestrator(orchestrator)
        .build()
        .unwrap();
    let r = b
        .handle_message("s", "Find the Q4 report and email Sam")
        .await
        .unwrap();
    assert_eq!(
        r.response.as_deref(),
        Some("1. [navigator] Found the Q4 report.\n2. [communicator] Drafted the email to Sam.")
    );
}

/// The first recorded answer of a cassette.
fn first_answer(name: &str) -> String {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    let c: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    c["interactions"][0]["text"].as_str().unwrap().to_string()
}

/// A decision delegating to the drafting specialist.
const DRAFT_DECISION: &str = r#"{"classification":{"intent":"delegate_draft","confidence":0.9,"reasoning":"wants an email"}}"#;

/// A drafting specialist whose model answers nothing: its delegation fails.
fn failing_writer() -> Orchestrator {
    let blank = Arc::new(ScriptedLlm::from_texts("m", ["   "]));
    Orchestrator::new().register(Arc::new(LlmAgent::communicator(blank)))
}

#[tokio::test]
async fn a_request_with_no_specialist_is_answered_as_unavailable_not_invented() {
    let b = Butler::builder(cassette("triage.json")).build().unwrap(); // no agents registered
    let mut rx = b.transitions();
    let r = b
        .handle_message("s", "anything urgent in my inbox?")
        .await
        .unwrap();
    assert_eq!(r.classification.intent, Intent::DelegateTriage);
    assert_eq!(r.delegated_agent, None);
    assert!(r.sub_results.is_empty());
    assert_eq!(r.unavailable.len(), 1);
    assert_eq!(r.unavailable[0].intent, Intent::DelegateTriage);
    assert_eq!(r.unavailable[0].capability, "email inbox");
    let text = r.response.unwrap();
    assert!(text.contains("no email inbox is connected"), "{text}");
    assert_eq!(b.state(), AgentState::Idle);
    let states: Vec<_> = std::iter::from_fn(|| rx.try_recv().ok()).collect();
    use AgentState::*;
    assert_eq!(
        states,
        [Initializing, LoadingContext, Processing, Completing, Idle]
    );
}

#[tokio::test]
async fn lifecycle_transitions_are_observable_and_a_failing_agent_is_an_error_state() {
    let llm = Arc::new(ScriptedLlm::from_texts("m", [DRAFT_DECISION]));
    let b = Butler::builder(llm)
        .orchestrator(failing_writer())
        .build()
        .unwrap();
    let mut rx = b.transitions();
    let err = b.handle_message("s", "email Sam").await.unwrap_err();
    assert!(err.to_string().contains("communicator"), "{err}");
    assert_eq!(b.state(), AgentState::Error);
    let states: Vec<_> = std::iter::from_fn(|| rx.try_recv().ok()).collect();
    use AgentState::*;
    assert_eq!(
        states,
        [Initializing, LoadingContext, Processing, Delegating, Error]
    );

    // A working delegation walks the full path.
    let specialists = Arc::new(ScriptedLlm::from_texts("m", ["Nothing urgent."]));
    let b = butler(cassette("triage.json"), specialists);
    let mut rx = b.transitions();
    b.handle_message("s", "anything urgent in my inbox?")
        .await
        .unwrap();
    let states: Vec<_> = std::iter::from_fn(|| rx.try_recv().ok()).collect();
    assert_eq!(
        states,
        [
            Initializing,
            LoadingContext,
            Processing,
            Delegating,
            Processing,
            Completing,
            Idle
        ]
    );
}

#[tokio::test]
async fn after_an_error_the_next_turn_resets_to_idle_first() {
    let llm = Arc::new(ScriptedLlm::from_texts("m", Vec::<String>::new()));
    llm.push(Interaction::text(DRAFT_DECISION));
    llm.push(Interaction::text(r#"{"classification":{"intent":"direct_answer","confidence":0.9,"reasoning":"greeting"},"response":"Hi!"}"#));
    let b = Butler::builder(llm)
        .orchestrator(failing_writer())
        .build()
        .unwrap();
    assert!(b.handle_message("s", "email Sam").await.is_err());
    let mut rx = b.transitions();
    b.handle_message("s", "hello").await.unwrap();
    let states: Vec<_> = std::iter::from_fn(|| rx.try_recv().ok()).collect();
    use AgentState::*;
    assert_eq!(
        states,
        [
            Idle,
            Initializing,
            LoadingContext,
            Processing,
            Completing,
            Idle
        ]
    );
}

#[tokio::test]
async fn prompt_is_the_template_with_catalogs_cached_and_the_injected_date_dynamic() {
    let llm = cassette("greeting.json");
    let tools = ToolCatalog::new().with_spec(ToolSpec {
        name: "calendar_create_event".into(),
        description: "creates a calendar event".into(),
        schema: serde_json::json!({"type": "object", "properties": {"title": {"type": "string"}}}),
        permission: Permission::Write,
    });
    let b = Butler::builder(llm.clone())
        .orchestrator(orchestrator(no_specialist_calls()))
        .tools(tools)
        .clock(clock())
        .user_name("Ada")
        .build()
        .unwrap();
    b.handle_message("s", "Hello!").await.unwrap();
    let system = &llm.requests()[0].system;
    assert!(system[0].cache && system[0].text.starts_with("# Butler"));
    assert!(system[0]
        .text
        .contains("- calendar_create_event (write): creates a calendar event"));
    assert!(system[0]
        .text
        .contains("- scheduler (delegate_schedule): the application's scheduler"));
    // The static blocks (persona and catalogs, then the decision schema) come first, the
    // session block last.
    assert!(system[1].cache && system[1].text.contains("ButlerDecision"));
    assert!(!system[2].cache);
    assert!(system[2]
        .text
        .contains("You are serving Ada. Today is Saturday, 2026-11-21."));
    assert!(
        system
            .iter()
            .any(|b| b.cache && b.text.contains("ButlerDecision")),
        "schema block cached"
    );
}

#[tokio::test]
async fn empty_message_is_a_typed_error_without_an_llm_call() {
    let llm = cassette("greeting.json");
    let b = butler(llm.clone(), no_specialist_calls());
    assert!(matches!(
        b.handle_message("s", "  ").await,
        Err(ButlerError::Invalid { .. })
    ));
    assert!(llm.requests().is_empty());
    assert_eq!(b.state(), AgentState::Idle);
}

#[test]
fn invalid_history_budget_is_rejected() {
    let err = Butler::builder(cassette("greeting.json"))
        .history_tokens(10)
        .build()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid `historyTokens`: must be at least 100, got 10"
    );
}
