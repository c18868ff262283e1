//! Streams that go wrong, against a real loopback HTTP server: a body that is not SSE, a
//! stream cut before its end marker (also in the middle of a tool call), a server that stops
//! sending, one that trickles forever, and credentials written into `base_url`.
#![cfg(all(feature = "anthropic", feature = "openai"))]

mod llm_support;

use llm_support::{fixture, Reply, TestServer};
use navigator_core::{
    AnthropicClient, AnthropicConfig, ApiKey, ChatRequest, Error, HttpOptions, Llm, LlmErrorKind,
    OpenAiClient, OpenAiConfig, RetryPolicy,
};
use std::time::Duration;

fn options() -> HttpOptions {
    HttpOptions {
        timeout: Duration::from_secs(10),
        connect_timeout: Duration::from_secs(2),
        retry: RetryPolicy::none(),
        ..HttpOptions::default()
    }
}

fn gpt(base: &str, http: HttpOptions) -> OpenAiClient {
    OpenAiClient::new(OpenAiConfig::compatible(format!("{base}/v1"), "m").with_http(http)).unwrap()
}

fn claude(base: &str, http: HttpOptions) -> AnthropicClient {
    AnthropicClient::new(
        AnthropicConfig::new("claude-sonnet-4-5")
            .with_api_key(ApiKey::new("sk-test"))
            .with_base_url(base)
            .with_http(http),
    )
    .unwrap()
}

fn kind_and_message(e: Error) -> (LlmErrorKind, String) {
    match e {
        Error::LlmApi { kind, message, .. } => (kind, message),
        other => panic!("expected Error::LlmApi, got {other:?}"),
    }
}

async fn stream_text(llm: &dyn Llm) -> navigator_core::Result<String> {
    let mut text = String::new();
    llm.chat_stream(&ChatRequest::new("hi"), &mut |t: &str| text.push_str(t))
        .await
        .map(|r| r.text)
}

#[tokio::test]
async fn chat_stream_of_a_non_sse_body_is_a_typed_error_not_empty_text() {
    let server = TestServer::start(vec![Reply::json(
        200,
        r#"{"choices":[{"message":{"content":"hello"}}]}"#,
    )])
    .await;
    let err = stream_text(&gpt(&server.url, options())).await.unwrap_err();
    let (kind, message) = kind_and_message(err);
    assert_eq!(kind, LlmErrorKind::MalformedResponse);
    assert!(message.contains("text/event-stream"), "{message}");
    assert!(message.contains("application/json"), "{message}");
}

#[tokio::test]
async fn chat_stream_cut_before_done_is_a_typed_error() {
    let full = fixture("openai_stream_llamacpp.sse");
    let cut = &full[..full.find("data: [DONE]").unwrap()];
    let server = TestServer::start(vec![Reply::sse(cut, 40)]).await;
    let (kind, message) =
        kind_and_message(stream_text(&gpt(&server.url, options())).await.unwrap_err());
    assert_eq!(kind, LlmErrorKind::Connection);
    assert!(message.contains("[DONE]"), "{message}");

    // A body with no events at all, served without a content type, is cut short as well.
    let mut empty = Reply::sse("just some text, no events", 100);
    empty.headers.clear();
    let server = TestServer::start(vec![empty]).await;
    let (kind, _) = kind_and_message(stream_text(&gpt(&server.url, options())).await.unwrap_err());
    assert_eq!(kind, LlmErrorKind::Connection);
}

#[tokio::test]
async fn chat_stream_cut_before_message_stop_is_a_typed_error() {
    let full = fixture("anthropic_stream.sse");
    let cut = &full[..full.find("event: message_stop").unwrap()];
    let server = TestServer::start(vec![Reply::sse(cut, 64)]).await;
    let (kind, message) = kind_and_message(
        stream_text(&claude(&server.url, options()))
            .await
            .unwrap_err(),
    );
    assert_eq!(kind, LlmErrorKind::Connection);
    assert!(message.contains("message_stop"), "{message}");

    // The whole stream still succeeds.
    let server = TestServer::start(vec![Reply::sse(&full, 64)]).await;
    assert!(!stream_text(&claude(&server.url, options()))
        .await
        .unwrap()
        .is_empty());
}

#[tokio::test]
async fn a_stream_cut_inside_a_tool_call_is_a_typed_error_not_half_a_call() {
    let openai = concat!(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_a\",\"type\":\"function\",\"function\":{\"name\":\"search_notes\",\"arguments\":\"\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"q\\\": \\\"ru\"}}]}}]}\n\n",
    );
    let server = TestServer::start(vec![Reply::sse(openai, 40)]).await;
    let (kind, message) =
        kind_and_message(stream_text(&gpt(&server.url, options())).await.unwrap_err());
    assert_eq!(kind, LlmErrorKind::Connection);
    assert!(message.contains("[DONE]"), "{message}");

    let anthropic = concat!(
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"claude-sonnet-4-5\",\"usage\":{\"input_tokens\":9,\"output_tokens\":1}}}\n\n",
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"search_notes\",\"input\":{}}}\n\n",
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"q\\\": \\\"ru\"}}\n\n",
    );
    let server = TestServer::start(vec![Reply::sse(anthropic, 40)]).await;
    let (kind, message) = kind_and_message(
        stream_text(&claude(&server.url, options()))
            .await
            .unwrap_err(),
    );
    assert_eq!(kind, LlmErrorKind::Connection);
    assert!(message.contains("message_stop"), "{message}");
}

#[tokio::test]
async fn a_stream_that_stops_sending_hits_the_idle_timeout() {
    let full = fixture("openai_stream_llamacpp.sse");
    let server = TestServer::start(vec![
        Reply::sse(&full, full.len() / 2 + 1).chunk_delayed(Duration::from_secs(5))
    ])
    .await;
    let http = HttpOptions {
        stream_idle_timeout: Duration::from_millis(300),
        ..options()
    };
    let (kind, message) = kind_and_message(stream_text(&gpt(&server.url, http)).await.unwrap_err());
    assert_eq!(kind, LlmErrorKind::Timeout);
    assert!(message.contains("no data for"), "{message}");
}

#[tokio::test]
async fn a_stream_that_trickles_forever_hits_the_overall_deadline() {
    // Valid keep-alive comments every 50 ms, well inside the idle timeout, for ever (200 s).
    let server =
        TestServer::start(vec![Reply::sse(&": keep-alive\n\n".repeat(4000), 14)
            .chunk_delayed(Duration::from_millis(50))])
        .await;
    let http = HttpOptions {
        stream_idle_timeout: Duration::from_secs(2),
        stream_deadline: Duration::from_millis(700),
        ..options()
    };
    let (kind, message) = kind_and_message(stream_text(&gpt(&server.url, http)).await.unwrap_err());
    assert_eq!(kind, LlmErrorKind::Timeout);
    assert!(message.contains("deadline"), "{message}");
}

#[tokio::test]
async fn credentials_in_base_url_never_appear_in_errors_debug_or_requests() {
    const SECRET: &str = "hunter2-very-secret";
    // Nothing listens on this port: the connection error names the URL.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let dead = format!("http://alice:{SECRET}@{}", listener.local_addr().unwrap());
    drop(listener);
    let config = OpenAiConfig::compatible(format!("{dead}/v1"), "m").with_http(options());
    assert!(!format!("{config:?}").contains(SECRET));
    let client = OpenAiClient::new(config).unwrap();
    assert!(!format!("{client:?}").contains(SECRET));
    let err = client.chat(&ChatRequest::new("hi")).await.unwrap_err();
    assert!(!err.to_string().contains(SECRET), "{err}");
    assert!(!format!("{err:?}").contains(SECRET), "{err:?}");

    let anthropic = AnthropicConfig::new("c")
        .with_api_key(ApiKey::new("k"))
        .with_base_url(dead.clone());
    assert!(!format!("{anthropic:?}").contains(SECRET));
    let err = AnthropicClient::new(anthropic.with_http(options()))
        .unwrap()
        .chat(&ChatRequest::new("hi"))
        .await
        .unwrap_err();
    assert!(!err.to_string().contains(SECRET), "{err}");

    // The credentials still reach the server, as basic authentication.
    let server = TestServer::start(vec![Reply::json(200, fixture("openai_chat.json"))]).await;
    let with_creds = server
        .url
        .replace("http://", &format!("http://alice:{SECRET}@"));
    gpt(&with_creds, options())
        .chat(&ChatRequest::new("hi"))
        .await
        .unwrap();
    let seen = &server.requests()[0];
    assert_eq!(seen.path, "/v1/chat/completions");
    let auth = seen.header("authorization").unwrap();
    assert!(auth.starts_with("Basic "), "{auth}");
}
