//! The real provider clients against an in-process HTTP server replaying both APIs' wire
//! formats: success with usage and cache fields, streaming, 429 with retry-after, 5xx, 4xx,
//! timeouts and malformed bodies.
#![cfg(all(feature = "anthropic", feature = "openai"))]

mod llm_support;

use llm_support::{fixture, Reply, TestServer};
use navigator_core::{
    AnthropicClient, AnthropicConfig, ApiKey, ChatRequest, Error, HttpOptions, Llm, LlmErrorKind,
    Message, OpenAiClient, OpenAiConfig, ResponseFormat, RetryPolicy, SystemBlock, ToolCall,
    ToolChoice, ToolDefinition, ToolResult,
};
use serde_json::json;
use std::time::Duration;

const KEY: &str = "sk-test-0123456789-SECRET";

fn fast_retries(max_retries: u32) -> HttpOptions {
    HttpOptions {
        timeout: Duration::from_secs(10),
        connect_timeout: Duration::from_secs(2),
        retry: RetryPolicy {
            max_retries,
            base_delay: Duration::from_millis(1),
            max_delay: Duration::from_millis(5),
            max_retry_after: Duration::from_secs(5),
        },
        ..HttpOptions::default()
    }
}

fn claude(server: &TestServer, http: HttpOptions) -> AnthropicClient {
    AnthropicClient::new(
        AnthropicConfig::new("claude-sonnet-4-5")
            .with_api_key(ApiKey::new(KEY))
            .with_base_url(&server.url)
            .with_http(http),
    )
    .unwrap()
}

fn gpt(server: &TestServer, http: HttpOptions) -> OpenAiClient {
    OpenAiClient::new(
        OpenAiConfig::compatible(format!("{}/v1", server.url), "gpt-4.1-mini")
            .with_provider("openai")
            .with_api_key(ApiKey::new(KEY))
            .with_http(http),
    )
    .unwrap()
}

fn api_error(e: Error) -> (LlmErrorKind, Option<u16>, Option<Duration>, u32, String) {
    match e {
        Error::LlmApi {
            kind,
            status,
            retry_after,
            attempts,
            message,
            ..
        } => (kind, status, retry_after, attempts, message),
        other => panic!("expected Error::LlmApi, got {other:?}"),
    }
}

#[tokio::test]
async fn anthropic_success_sends_cache_markers_and_reads_usage_with_cache_fields() {
    let server = TestServer::start(vec![Reply::json(200, fixture("anthropic_message.json"))]).await;
    let request = ChatRequest::new("Book a review with John this week")
        .with_system(SystemBlock::cached("You are the Butler."))
        .with_system(SystemBlock::dynamic("Today is Friday."));
    let answer = claude(&server, fast_retries(0))
        .chat(&request)
        .await
        .unwrap();

    assert!(answer
        .text
        .starts_with("{\"intent\": \"delegate_schedule\""));
    assert!(
        answer.text.ends_with("meeting\"}"),
        "text blocks are joined: {}",
        answer.text
    );
    assert_eq!(answer.model, "claude-sonnet-4-5-20250929");
    assert_eq!(answer.stop_reason.as_deref(), Some("end_turn"));
    assert_eq!(
        (
            answer.usage.input_tokens,
            answer.usage.output_tokens,
            answer.usage.cache_read_tokens,
            answer.usage.cache_write_tokens
        ),
        (57, 31, 2051, 0)
    );

    let seen = &server.requests()[0];
    assert_eq!(
        (seen.method.as_str(), seen.path.as_str()),
        ("POST", "/v1/messages")
    );
    assert_eq!(seen.header("x-api-key"), Some(KEY));
    assert_eq!(seen.header("anthropic-version"), Some("2023-06-01"));
    let body = seen.json();
    assert_eq!(body["model"], "claude-sonnet-4-5");
    assert_eq!(body["system"][0]["cache_control"]["type"], "ephemeral");
    assert!(body["system"][1].get("cache_control").is_none());
    assert_eq!(
        body["messages"][0]["content"],
        "Book a review with John this week"
    );
}

#[tokio::test]
async fn anthropic_stream_hands_out_deltas_and_merges_start_and_end_usage() {
    let server = TestServer::start(vec![Reply::sse(&fixture("anthropic_stream.sse"), 37)]).await;
    let mut pieces = Vec::new();
    let answer = claude(&server, fast_retries(0))
        .chat_stream(&ChatRequest::new("hi"), &mut |t: &str| {
            pieces.push(t.to_string())
        })
        .await
        .unwrap();
    assert_eq!(pieces, ["Hello! How can I", " help you today?"]);
    assert_eq!(answer.text, "Hello! How can I help you today?");
    assert_eq!(answer.model, "claude-haiku-4-5-20251001");
    assert_eq!(answer.stop_reason.as_deref(), Some("end_turn"));
    assert_eq!(
        (
            answer.usage.input_tokens,
            answer.usage.cache_write_tokens,
            answer.usage.output_tokens
        ),
        (25, 1210, 12)
    );
    assert_eq!(server.requests()[0].json()["stream"], true);
}

#[tokio::test]
async fn rate_limit_is_retried_and_then_succeeds() {
    let server = TestServer::start(vec![
        Reply::json(429, fixture("anthropic_rate_limit.json")).header("retry-after", "0"),
        Reply::json(529, fixture("anthropic_overloaded.json")),
        Reply::json(200, fixture("anthropic_message.json")),
    ])
    .await;
    let answer = claude(&server, fast_retries(3))
        .chat(&ChatRequest::new("q"))
        .await
        .unwrap();
    assert_eq!(answer.usage.cache_read_tokens, 2051);
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn retry_after_is_read_and_reported_when_retries_run_out() {
    let server = TestServer::start(vec![
        Reply::json(429, fixture("openai_rate_limit.json")).header("retry-after", "2")
    ])
    .await;
    let err = gpt(&server, fast_retries(0))
        .chat(&ChatRequest::new("q"))
        .await
        .unwrap_err();
    let (kind, status, retry_after, attempts, message) = api_error(err);
    assert_eq!(
        (kind, status, attempts),
        (LlmErrorKind::RateLimited, Some(429), 1)
    );
    assert_eq!(retry_after, Some(Duration::from_secs(2)));
    assert!(
        message.contains("Rate limit reached for gpt-4.1-mini"),
        "{message}"
    );
}

#[tokio::test]
async fn retry_after_beyond_the_cap_stops_retrying_at_once() {
    let server = TestServer::start(vec![
        Reply::json(429, fixture("anthropic_rate_limit.json")).header("retry-after", "3600"),
        Reply::json(200, fixture("anthropic_message.json")),
    ])
    .await;
    let err = claude(&server, fast_retries(3))
        .chat(&ChatRequest::new("q"))
        .await
        .unwrap_err();
    let (kind, _, retry_after, attempts, _) = api_error(err);
    assert_eq!((kind, attempts), (LlmErrorKind::RateLimited, 1));
    assert_eq!(retry_after, Some(Duration::from_secs(3600)));
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn server_errors_exhaust_the_retries_with_a_typed_error() {
    let replies = (0..4)
        .map(|_| Reply::json(500, "{\"error\":{\"message\":\"boom\"}}"))
        .collect();
    let server = TestServer::start(replies).await;
    let err = gpt(&server, fast_retries(3))
        .chat(&ChatRequest::new("q"))
        .await
        .unwrap_err();
    let (kind, status, _, attempts, message) = api_error(err);
    assert_eq!(
        (kind, status, attempts),
        (LlmErrorKind::Server, Some(500), 4)
    );
    assert!(message.contains("boom"));
    assert_eq!(server.requests().len(), 4);
}

#[tokio::test]
async fn client_errors_fail_at_once_naming_the_provider_message() {
    let server = TestServer::start(vec![
        Reply::json(400, fixture("anthropic_bad_request.json")),
        Reply::json(401, fixture("anthropic_auth.json")),
    ])
    .await;
    let client = claude(&server, fast_retries(3));
    let err = client.chat(&ChatRequest::new("q")).await.unwrap_err();
    let shown = err.to_string();
    let (kind, status, _, attempts, message) = api_error(err);
    assert_eq!(
        (kind, status, attempts),
        (LlmErrorKind::BadRequest, Some(400), 1)
    );
    assert!(
        message.contains("invalid_request_error: max_tokens: Field required"),
        "{message}"
    );
    assert!(
        shown.contains("anthropic") && shown.contains("HTTP 400"),
        "{shown}"
    );

    let err = client.chat(&ChatRequest::new("q")).await.unwrap_err();
    assert!(
        !format!("{err} {err:?}").contains(KEY),
        "the key leaked into the error"
    );
    assert_eq!(api_error(err).0, LlmErrorKind::Auth);
    assert_eq!(server.requests().len(), 2, "4xx must not be retried");
}

#[tokio::test]
async fn a_server_that_does_not_answer_in_time_is_a_retried_timeout() {
    let slow = || Reply::json(200, fixture("openai_chat.json")).delayed(Duration::from_secs(5));
    let server = TestServer::start(vec![slow(), slow()]).await;
    let mut http = fast_retries(1);
    http.timeout = Duration::from_millis(200);
    let err = gpt(&server, http)
        .chat(&ChatRequest::new("q"))
        .await
        .unwrap_err();
    let (kind, status, _, attempts, _) = api_error(err);
    assert_eq!((kind, status, attempts), (LlmErrorKind::Timeout, None, 2));
}

#[tokio::test]
async fn malformed_success_bodies_are_typed_errors_not_panics() {
    let server = TestServer::start(vec![
        Reply::json(200, "{\"choices\": ["),
        Reply::json(200, "{\"choices\": []}"),
        Reply::json(200, "{\"id\":\"msg\",\"content\":\"not a list\"}"),
    ])
    .await;
    let openai = gpt(&server, fast_retries(3));
    let (kind, _, _, attempts, message) =
        api_error(openai.chat(&ChatRequest::new("q")).await.unwrap_err());
    assert_eq!((kind, attempts), (LlmErrorKind::MalformedResponse, 1));
    assert!(
        message.contains("{\"choices\": ["),
        "quotes the body: {message}"
    );
    let (kind, _, _, _, message) =
        api_error(openai.chat(&ChatRequest::new("q")).await.unwrap_err());
    assert_eq!(kind, LlmErrorKind::MalformedResponse);
    assert!(message.contains("no choices"));
    let (kind, _, _, _, message) = api_error(
        claude(&server, fast_retries(0))
            .chat(&ChatRequest::new("q"))
            .await
            .unwrap_err(),
    );
    assert_eq!(kind, LlmErrorKind::MalformedResponse);
    assert!(message.contains("content"), "names the field: {message}");
}

#[tokio::test]
async fn openai_success_reads_cached_tokens_and_sends_the_schema() {
    let server = TestServer::start(vec![Reply::json(200, fixture("openai_chat.json"))]).await;
    let request = ChatRequest::new("what should I answer first?")
        .with_system(SystemBlock::cached("You are the Butler."))
        .with_format(ResponseFormat::JsonSchema {
            name: "IntentClassification".into(),
            schema: serde_json::json!({"type": "object"}),
        });
    let answer = gpt(&server, fast_retries(0)).chat(&request).await.unwrap();
    assert!(answer.text.contains("delegate_triage"));
    assert_eq!(answer.stop_reason.as_deref(), Some("stop"));
    assert_eq!(
        (
            answer.usage.input_tokens,
            answer.usage.cache_read_tokens,
            answer.usage.output_tokens
        ),
        (132, 1280, 24)
    );

    let seen = &server.requests()[0];
    assert_eq!(seen.path, "/v1/chat/completions");
    assert_eq!(
        seen.header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    let body = seen.json();
    assert_eq!(
        body["messages"][0],
        serde_json::json!({"role": "system", "content": "You are the Butler."})
    );
    assert_eq!(body["response_format"]["type"], "json_schema");
    assert_eq!(
        body["response_format"]["json_schema"]["name"],
        "IntentClassification"
    );
}

#[tokio::test]
async fn openai_compatible_stream_from_llamacpp_is_reassembled_with_usage() {
    let server =
        TestServer::start(vec![Reply::sse(&fixture("openai_stream_llamacpp.sse"), 50)]).await;
    let local = OpenAiClient::new(
        OpenAiConfig::compatible(format!("{}/v1", server.url), "gemma").with_http(fast_retries(0)),
    )
    .unwrap();
    let mut streamed = String::new();
    let answer = local
        .chat_stream(&ChatRequest::new("Say hi"), &mut |t: &str| {
            streamed.push_str(t)
        })
        .await
        .unwrap();
    assert_eq!(streamed, answer.text);
    assert!(!answer.text.is_empty());
    assert_eq!(answer.stop_reason.as_deref(), Some("length"));
    assert_eq!(answer.usage.output_tokens, 4);
    assert_eq!(answer.usage.total_input(), 26);
    let seen = &server.requests()[0];
    assert_eq!(
        seen.header("authorization"),
        None,
        "no key configured, none sent"
    );
    assert_eq!(seen.json()["stream_options"]["include_usage"], true);
}

#[tokio::test]
async fn a_stream_that_starts_after_a_503_is_retried_before_any_text() {
    let server = TestServer::start(vec![
        Reply::json(503, "{\"error\":{\"message\":\"loading model\"}}"),
        Reply::sse(&fixture("anthropic_stream.sse"), 64),
    ])
    .await;
    let mut n = 0;
    let answer = claude(&server, fast_retries(2))
        .chat_stream(&ChatRequest::new("hi"), &mut |_: &str| n += 1)
        .await
        .unwrap();
    assert_eq!((n, answer.usage.output_tokens), (2, 12));
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn missing_api_key_in_environment_is_an_error_naming_the_variable() {
    let mut config = AnthropicConfig::new("claude-haiku-4-5");
    config.api_key_env = "NAVIGATOR_TEST_NO_SUCH_ANTHROPIC_KEY".into();
    let err = AnthropicClient::new(config).unwrap_err();
    assert_eq!(err.field(), Some("NAVIGATOR_TEST_NO_SUCH_ANTHROPIC_KEY"));
    let mut config = OpenAiConfig::openai("gpt-4.1");
    config.api_key_env = Some("NAVIGATOR_TEST_NO_SUCH_OPENAI_KEY".into());
    assert_eq!(
        OpenAiClient::new(config).unwrap_err().field(),
        Some("NAVIGATOR_TEST_NO_SUCH_OPENAI_KEY")
    );
}

fn search_tool() -> ToolDefinition {
    ToolDefinition {
        name: "search_notes".into(),
        description: "Full-text search over the vault".into(),
        parameters: json!({"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}),
    }
}

/// A conversation one tool round in: the question, the model's call, and its result.
fn after_one_round(call_id: &str) -> ChatRequest {
    let mut request = ChatRequest::new("What did I write about Rust?")
        .with_tools(vec![search_tool()])
        .with_system(SystemBlock::cached("You are the Butler."));
    request.tool_choice = ToolChoice::Required;
    request.messages.push(Message::tool_use(
        "",
        vec![ToolCall {
            id: call_id.into(),
            name: "search_notes".into(),
            arguments: json!({"q": "rust"}),
        }],
    ));
    request
        .messages
        .push(Message::tool_results(vec![ToolResult {
            call_id: call_id.into(),
            content: "index is rebuilding".into(),
            is_error: true,
        }]));
    request
}

const OPENAI_TOOL_CALLS: &str = r#"{"id":"chatcmpl-1","object":"chat.completion","model":"gpt-4.1-mini-2025-04-14",
 "choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[
   {"id":"call_a","type":"function","function":{"name":"search_notes","arguments":"{\"q\":\"rust ownership\"}"}},
   {"id":"call_b","type":"function","function":{"name":"search_notes","arguments":"{\"q\": rust"}}]}}],
 "usage":{"prompt_tokens":90,"completion_tokens":30,"total_tokens":120}}"#;

#[tokio::test]
async fn openai_tool_calls_go_out_as_functions_and_come_back_parsed() {
    let server = TestServer::start(vec![Reply::json(200, OPENAI_TOOL_CALLS)]).await;
    let answer = gpt(&server, fast_retries(0))
        .chat(&after_one_round("call_0"))
        .await
        .unwrap();
    assert_eq!(answer.text, "");
    assert_eq!(answer.stop_reason.as_deref(), Some("tool_calls"));
    assert_eq!(answer.tool_calls.len(), 2);
    assert_eq!(
        (
            answer.tool_calls[0].id.as_str(),
            &answer.tool_calls[0].arguments
        ),
        ("call_a", &json!({"q": "rust ownership"}))
    );
    assert_eq!(
        answer.tool_calls[1].arguments,
        json!("{\"q\": rust"),
        "arguments that are not JSON arrive as their text"
    );

    let body = server.requests()[0].json();
    assert_eq!(body["tools"][0]["type"], "function");
    assert_eq!(body["tools"][0]["function"]["name"], "search_notes");
    assert_eq!(
        body["tools"][0]["function"]["parameters"]["required"][0],
        "q"
    );
    assert_eq!(body["tool_choice"], "required");
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 4, "{messages:?}");
    assert_eq!(
        messages[2]["tool_calls"][0]["function"]["arguments"],
        "{\"q\":\"rust\"}"
    );
    assert_eq!(
        messages[3],
        json!({"role": "tool", "tool_call_id": "call_0", "content": "error: index is rebuilding"})
    );
}

/// Two calls, streamed the way OpenAI does: id and name first, arguments in pieces, the
/// second call's pieces interleaved with the first's.
const OPENAI_TOOL_STREAM: &str = concat!(
    "data: {\"model\":\"gpt-4.1-mini\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"index\":0,\"id\":\"call_a\",\"type\":\"function\",\"function\":{\"name\":\"search_notes\",\"arguments\":\"\"}}]},\"finish_reason\":null}]}\n\n",
    "data: {\"model\":\"gpt-4.1-mini\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"q\\\":\"}}]},\"finish_reason\":null}]}\n\n",
    "data: {\"model\":\"gpt-4.1-mini\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"call_b\",\"type\":\"function\",\"function\":{\"name\":\"search_notes\",\"arguments\":\"{\\\"q\\\": \\\"ca\"}}]},\"finish_reason\":null}]}\n\n",
    "data: {\"model\":\"gpt-4.1-mini\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"\\\"rust\\\"}\"}}]},\"finish_reason\":null}]}\n\n",
    "data: {\"model\":\"gpt-4.1-mini\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"function\":{\"arguments\":\"rgo\\\"}\"}}]},\"finish_reason\":null}]}\n\n",
    "data: {\"model\":\"gpt-4.1-mini\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
    "data: {\"model\":\"gpt-4.1-mini\",\"choices\":[],\"usage\":{\"prompt_tokens\":80,\"completion_tokens\":25,\"total_tokens\":105}}\n\n",
    "data: [DONE]\n\n",
);

#[tokio::test]
async fn openai_stream_puts_tool_calls_together_from_their_fragments() {
    let server = TestServer::start(vec![Reply::sse(OPENAI_TOOL_STREAM, 29)]).await;
    let mut streamed = String::new();
    let answer = gpt(&server, fast_retries(0))
        .chat_stream(&after_one_round("call_0"), &mut |t: &str| {
            streamed.push_str(t)
        })
        .await
        .unwrap();
    assert_eq!(streamed, "", "call fragments are not text");
    assert_eq!(answer.stop_reason.as_deref(), Some("tool_calls"));
    assert_eq!(answer.usage.output_tokens, 25);
    let calls: Vec<(&str, &str, &serde_json::Value)> = answer
        .tool_calls
        .iter()
        .map(|c| (c.id.as_str(), c.name.as_str(), &c.arguments))
        .collect();
    assert_eq!(
        calls,
        [
            ("call_a", "search_notes", &json!({"q": "rust"})),
            ("call_b", "search_notes", &json!({"q": "cargo"})),
        ]
    );
    assert_eq!(server.requests()[0].json()["tools"][0]["type"], "function");
}

const ANTHROPIC_TOOL_USE: &str = r#"{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929",
 "content":[{"type":"text","text":"Let me search again."},
            {"type":"tool_use","id":"toolu_01","name":"search_notes","input":{"q":"rust ownership"}}],
 "stop_reason":"tool_use","stop_sequence":null,
 "usage":{"input_tokens":120,"output_tokens":40,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}}"#;

#[tokio::test]
async fn anthropic_tool_use_goes_out_as_blocks_and_comes_back_as_calls() {
    let server = TestServer::start(vec![Reply::json(200, ANTHROPIC_TOOL_USE)]).await;
    let answer = claude(&server, fast_retries(0))
        .chat(&after_one_round("toolu_00"))
        .await
        .unwrap();
    assert_eq!(answer.text, "Let me search again.");
    assert_eq!(answer.stop_reason.as_deref(), Some("tool_use"));
    assert_eq!(
        answer.tool_calls,
        [ToolCall {
            id: "toolu_01".into(),
            name: "search_notes".into(),
            arguments: json!({"q": "rust ownership"}),
        }]
    );

    let body = server.requests()[0].json();
    assert_eq!(body["tools"][0]["name"], "search_notes");
    assert_eq!(body["tools"][0]["input_schema"]["required"][0], "q");
    assert_eq!(body["tool_choice"], json!({"type": "any"}));
    assert_eq!(body["system"][0]["cache_control"]["type"], "ephemeral");
    assert_eq!(
        body["messages"][0]["content"],
        "What did I write about Rust?"
    );
    assert_eq!(
        body["messages"][1]["content"],
        json!([{"type": "tool_use", "id": "toolu_00", "name": "search_notes", "input": {"q": "rust"}}])
    );
    assert_eq!(
        body["messages"][2],
        json!({"role": "user", "content": [{
            "type": "tool_result", "tool_use_id": "toolu_00",
            "content": "index is rebuilding", "is_error": true,
        }]})
    );
}

/// Text, then one call whose input arrives in pieces, then one without arguments.
const ANTHROPIC_TOOL_STREAM: &str = concat!(
    "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_02\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5-20250929\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":300,\"cache_read_input_tokens\":2000,\"output_tokens\":1}}}\n\n",
    "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Searching.\"}}\n\n",
    "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
    "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_02\",\"name\":\"search_notes\",\"input\":{}}}\n\n",
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\"}}\n\n",
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"q\\\": \\\"ru\"}}\n\n",
    "event: ping\ndata: {\"type\": \"ping\"}\n\n",
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"st\\\"}\"}}\n\n",
    "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n",
    "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":2,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_03\",\"name\":\"today\",\"input\":{}}}\n\n",
    "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":2}\n\n",
    "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":61}}\n\n",
    "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
);

#[tokio::test]
async fn anthropic_stream_assembles_tool_input_from_json_deltas() {
    let server = TestServer::start(vec![Reply::sse(ANTHROPIC_TOOL_STREAM, 31)]).await;
    let mut streamed = String::new();
    let answer = claude(&server, fast_retries(0))
        .chat_stream(&after_one_round("toolu_00"), &mut |t: &str| {
            streamed.push_str(t)
        })
        .await
        .unwrap();
    assert_eq!(
        (streamed.as_str(), answer.text.as_str()),
        ("Searching.", "Searching.")
    );
    assert_eq!(answer.stop_reason.as_deref(), Some("tool_use"));
    assert_eq!(
        (answer.usage.cache_read_tokens, answer.usage.output_tokens),
        (2000, 61)
    );
    assert_eq!(
        answer.tool_calls,
        [
            ToolCall {
                id: "toolu_02".into(),
                name: "search_notes".into(),
                arguments: json!({"q": "rust"}),
            },
            ToolCall {
                id: "toolu_03".into(),
                name: "today".into(),
                arguments: json!({}),
            },
        ]
    );
}
