//! Structured output, cost tracking and fault handling, driven by a recorded Butler cassette
//! through `ScriptedLlm` (the same path other crates' tests use).

mod llm_support;

use llm_support::fixture;
use navigator_core::{
    Cassette, ChatRequest, CostTracker, Error, Extractor, JsonMode, Llm, LlmErrorKind, Message,
    PricingTable, Replay, ResponseFormat, ScriptedLlm, ToolResult, TrackedLlm,
};
use schemars::JsonSchema;
use serde::Deserialize;
use std::time::Duration;

#[derive(Debug, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "snake_case")]
enum Intent {
    DirectAnswer,
    DelegateTriage,
    DelegateSchedule,
    DelegateDraft,
    DelegateSearch,
    DelegateLearn,
    Clarify,
    CannotHelp,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct DelegationContext {
    #[serde(default)]
    relevant_entities: Vec<String>,
    time_constraints: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct IntentClassification {
    intent: Intent,
    confidence: f64,
    reasoning: String,
    delegation_context: Option<DelegationContext>,
}

fn butler() -> ScriptedLlm {
    let path = format!(
        "{}/tests/fixtures/llm/butler_cassette.json",
        env!("CARGO_MANIFEST_DIR")
    );
    ScriptedLlm::from_file(path)
        .unwrap()
        .replay(Replay::ByMatch)
}

fn classifier() -> Extractor<IntentClassification> {
    Extractor::new().validate(|c: &IntentClassification| {
        if (0.0..=1.0).contains(&c.confidence) {
            Ok(())
        } else {
            Err(format!(
                "`confidence` must be within [0, 1], got {} (outside [0, 1])",
                c.confidence
            ))
        }
    })
}

#[tokio::test]
async fn classifies_greeting_and_triage_first_time_with_schema_in_prompt_and_format() {
    let llm = butler();
    let hello = classifier()
        .extract(&llm, ChatRequest::new("Hello!"))
        .await
        .unwrap();
    assert_eq!(
        (hello.value.intent, hello.attempts),
        (Intent::DirectAnswer, 1)
    );

    let inbox = classifier()
        .extract(&llm, ChatRequest::new("What's urgent in my inbox?"))
        .await
        .unwrap();
    assert_eq!(inbox.value.intent, Intent::DelegateTriage);
    let ctx = inbox.value.delegation_context.unwrap();
    assert_eq!(ctx.relevant_entities, ["inbox", "emails"]);
    assert_eq!(ctx.time_constraints.as_deref(), Some("today"));
    assert!(inbox.value.reasoning.contains("inbox"));

    let sent = &llm.requests()[0];
    let instruction = sent.system.last().unwrap();
    assert!(
        instruction.cache,
        "the schema block is static and cacheable"
    );
    assert!(
        instruction.text.contains("IntentClassification")
            && instruction.text.contains("\"confidence\"")
    );
    assert!(
        matches!(&sent.response_format, ResponseFormat::JsonSchema { name, .. } if name == "IntentClassification")
    );
}

#[tokio::test]
async fn invalid_answer_is_re_asked_with_the_error_quoted_and_usage_summed() {
    let llm = butler();
    let got = classifier()
        .extract(
            &llm,
            ChatRequest::new("Set up a meeting with John this week"),
        )
        .await
        .unwrap();
    assert_eq!(got.attempts, 2);
    assert_eq!(got.value.intent, Intent::DelegateSchedule);
    assert_eq!(got.value.confidence, 0.92);
    assert_eq!(got.usage.input_tokens, 55 + 140);
    assert_eq!(got.usage.output_tokens, 24 + 45);

    let retry = &llm.requests()[1];
    assert_eq!(retry.messages.len(), 3);
    assert!(
        retry.messages[1].content.contains("1.7"),
        "the bad answer is replayed as the assistant's"
    );
    assert!(
        retry.messages[2].content.contains("got 1.7"),
        "{}",
        retry.messages[2].content
    );
}

#[tokio::test]
async fn answers_that_stay_invalid_end_in_a_typed_error_with_the_last_output() {
    let llm = butler();
    let err = classifier()
        .retries(2)
        .mode(JsonMode::PromptOnly)
        .extract(&llm, ChatRequest::new("gibberish"))
        .await
        .unwrap_err();
    match err {
        Error::StructuredOutput {
            type_name,
            attempts,
            message,
            last_output,
            usage: _,
        } => {
            assert_eq!((type_name, attempts), ("IntentClassification", 3));
            assert!(
                message.contains("at `intent`") && message.contains("dance"),
                "{message}"
            );
            assert!(last_output.contains("\"dance\""));
        }
        other => panic!("unexpected {other:?}"),
    }
    assert_eq!(llm.requests().len(), 3);
    assert_eq!(llm.requests()[0].response_format, ResponseFormat::Text);
}

#[tokio::test]
async fn provider_faults_pass_through_the_extractor_unchanged() {
    let llm = butler();
    let err = classifier()
        .extract(&llm, ChatRequest::new("weather?"))
        .await
        .unwrap_err();
    assert!(matches!(
        err,
        Error::LlmApi { kind: LlmErrorKind::RateLimited, retry_after: Some(d), .. } if d == Duration::from_secs(20)
    ));
    assert_eq!(
        llm.requests().len(),
        1,
        "a provider failure is not re-asked as a parse failure"
    );
}

#[tokio::test]
async fn tracked_llm_accumulates_cost_including_cache_tokens() {
    let tracker = CostTracker::new(PricingTable::default());
    let llm = TrackedLlm::new(butler(), tracker.clone());
    classifier()
        .extract(&llm, ChatRequest::new("Hello!"))
        .await
        .unwrap();
    classifier()
        .extract(&llm, ChatRequest::new("my inbox"))
        .await
        .unwrap();
    let usage = tracker.total_usage();
    assert_eq!((usage.input_tokens, usage.output_tokens), (109, 62));
    assert_eq!(
        (usage.cache_write_tokens, usage.cache_read_tokens),
        (1890, 1890)
    );
    // Sonnet 4.5: 3 in, 15 out, 3.75 cache write, 0.30 cache read ($/MTok).
    let expected = (109.0 * 3.0 + 62.0 * 15.0 + 1890.0 * 3.75 + 1890.0 * 0.30) / 1e6;
    assert!(
        (tracker.total_usd() - expected).abs() < 1e-12,
        "{}",
        tracker.total_usd()
    );
    assert_eq!(tracker.by_model()["claude-sonnet-4-5"].calls, 2);
}

#[tokio::test]
async fn budget_stops_the_call_before_it_is_sent() {
    let tracker = CostTracker::new(PricingTable::default()).with_budget(0.01);
    let inner = ScriptedLlm::from_texts("claude-sonnet-4-5", ["ok", "never sent"]);
    let llm = std::sync::Arc::new(TrackedLlm::new(inner, tracker.clone()));
    // 100 output tokens at $15/MTok plus the prompt: well inside $0.01.
    llm.chat(&ChatRequest::new("hi").with_max_tokens(100))
        .await
        .unwrap();
    // 1000 output tokens alone could cost $0.015: refused without calling the model.
    let err = llm
        .chat(&ChatRequest::new("hi").with_max_tokens(1000))
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::BudgetExceeded { budget_usd, .. } if budget_usd == 0.01),
        "{err}"
    );
    assert_eq!(tracker.calls(), 1);
}

#[test]
fn projection_never_underestimates_a_recorded_call() {
    // The cassette's first call billed 48 input + 1890 cache-write tokens for a prompt of
    // the Butler's size; a projection of a prompt that size must cover it.
    let cassette: serde_json::Value =
        serde_json::from_str(&fixture("butler_cassette.json")).unwrap();
    let billed = &cassette["interactions"][0]["usage"];
    let billed_input =
        billed["input_tokens"].as_u64().unwrap() + billed["cache_write_tokens"].as_u64().unwrap();
    let persona = "You are the Butler, a careful assistant who classifies requests. ".repeat(150);
    let request =
        ChatRequest::new("Hello!").with_system(navigator_core::SystemBlock::cached(persona));
    let tracker = CostTracker::new(PricingTable::default());
    let p = tracker
        .project("anthropic", "claude-sonnet-4-5", &request)
        .unwrap();
    assert!(
        p.input_tokens >= billed_input,
        "{} < {billed_input}",
        p.input_tokens
    );
    let actual = PricingTable::default()
        .cost(
            "claude-sonnet-4-5",
            &navigator_core::Usage {
                cache_write_tokens: billed_input,
                output_tokens: 1024,
                ..Default::default()
            },
        )
        .unwrap();
    assert!(p.usd >= actual);
}

#[test]
fn malformed_cassette_file_names_the_path_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.json");
    std::fs::write(
        &path,
        r#"{"interactions": [{"text": "x", "usage": {"input_tokens": "many"}}]}"#,
    )
    .unwrap();
    let err = ScriptedLlm::from_file(&path).unwrap_err().to_string();
    assert!(
        err.contains("bad.json") && err.contains("interactions[0].usage.input_tokens"),
        "{err}"
    );
    let err = ScriptedLlm::from_file(dir.path().join("missing.json"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("missing.json"), "{err}");
}

#[tokio::test]
async fn a_cassette_replays_a_tool_round_and_answers_by_the_tool_result() {
    let cassette: Cassette = serde_json::from_str(
        r#"{"model": "claude-sonnet-4-5", "interactions": [
            {"when": {"contains": "Rust"},
             "tool_calls": [{"id": "toolu_1", "name": "search_notes", "arguments": {"q": "rust"}}],
             "usage": {"input_tokens": 40, "output_tokens": 12}},
            {"when": {"contains": "notes/rust.md"}, "text": "You wrote about ownership."}
        ]}"#,
    )
    .unwrap();
    // The cassette survives a round trip through its JSON form, calls included.
    let again: Cassette = serde_json::from_str(&serde_json::to_string(&cassette).unwrap()).unwrap();
    assert_eq!(again, cassette);
    let llm = ScriptedLlm::new(cassette).unwrap().replay(Replay::ByMatch);

    let mut request = ChatRequest::new("What did I write about Rust?");
    let first = llm.chat(&request).await.unwrap();
    assert_eq!(first.text, "");
    assert_eq!(first.stop_reason.as_deref(), Some("tool_use"));
    assert_eq!(first.tool_calls[0].name, "search_notes");
    assert_eq!(
        first.tool_calls[0].arguments,
        serde_json::json!({"q": "rust"})
    );

    request
        .messages
        .push(Message::tool_use(first.text, first.tool_calls.clone()));
    request
        .messages
        .push(Message::tool_results(vec![ToolResult {
            call_id: first.tool_calls[0].id.clone(),
            content: "[\"notes/rust.md\"]".into(),
            is_error: false,
        }]));
    let second = llm.chat(&request).await.unwrap();
    assert_eq!(second.text, "You wrote about ownership.");
    assert!(second.tool_calls.is_empty());
    assert_eq!(
        llm.requests()[1].messages[2].tool_results[0].call_id,
        "toolu_1"
    );
    assert_eq!(llm.remaining(), 0);
}
