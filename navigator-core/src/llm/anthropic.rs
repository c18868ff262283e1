//! The Anthropic Messages API (`POST {base_url}/v1/messages`).
//!
//! Static system blocks ([`SystemBlock::cached`]) get `cache_control: {"type": "ephemeral"}`,
//! so the API caches the prompt prefix up to them for five minutes (it caches only prefixes of
//! at least 1,024 tokens; shorter ones are silently sent uncached). Only the last block of each
//! run of cached blocks carries the marker — a breakpoint caches everything before it — and at
//! most four, the API's limit; the last four are kept because they cover the longest prefixes.
//! Usage reports cache reads and writes separately, which [`Usage`] keeps.
//!
//! Tool use: [`ToolDefinition`]s go out as `tools` (with `input_schema`), tool calls and
//! results as `tool_use` and `tool_result` content blocks; streamed calls are put together from
//! their `input_json_delta` pieces. The API caches tools, then system, then messages, so the
//! breakpoint on the last cached system block covers the tools too; without one they go
//! uncached.

use super::credentials::{redact_url, split_credentials};
use super::http::{api_error, parse_body, ApiKey, HttpClient, HttpOptions};
use super::types::PartialToolCall;
use super::{
    ChatRequest, ChatResponse, Llm, LlmErrorKind, Message, Role, ToolCall, ToolChoice,
    ToolDefinition, Usage,
};
use crate::Result;
use async_trait::async_trait;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde::Deserialize;
use serde_json::{json, Value};

const PROVIDER: &str = "anthropic";
const MAX_CACHE_BREAKPOINTS: usize = 4;

/// Settings of an [`AnthropicClient`].
///
/// Credentials in `base_url` (`https://user:key@proxy`) are sent as basic authentication
/// and never shown: `Debug` redacts them and the client keeps the URL without them.
#[derive(Clone)]
pub struct AnthropicConfig {
    /// Model name, e.g. `claude-sonnet-4-5`.
    pub model: String,
    /// API root without `/v1` (default `https://api.anthropic.com`).
    pub base_url: String,
    /// The key; when `None` it is read from [`api_key_env`](Self::api_key_env).
    pub api_key: Option<ApiKey>,
    /// Environment variable holding the key (default `ANTHROPIC_API_KEY`).
    pub api_key_env: String,
    /// The `anthropic-version` header (default `2023-06-01`).
    pub api_version: String,
    /// Timeouts and retries.
    pub http: HttpOptions,
}

impl std::fmt::Debug for AnthropicConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnthropicConfig")
            .field("model", &self.model)
            .field("base_url", &redact_url(&self.base_url))
            .field("api_key", &self.api_key)
            .field("api_key_env", &self.api_key_env)
            .field("api_version", &self.api_version)
            .field("http", &self.http)
            .finish()
    }
}

impl AnthropicConfig {
    /// Defaults for `model`, with the key taken from `ANTHROPIC_API_KEY`.
    pub fn new(model: impl Into<String>) -> Self {
        Self {
            model: model.into(),
            base_url: "https://api.anthropic.com".into(),
            api_key: None,
            api_key_env: "ANTHROPIC_API_KEY".into(),
            api_version: "2023-06-01".into(),
            http: HttpOptions::default(),
        }
    }

    /// Uses this key instead of the environment.
    pub fn with_api_key(mut self, key: ApiKey) -> Self {
        self.api_key = Some(key);
        self
    }

    /// Sends requests to another root (a proxy, or a test server).
    pub fn with_base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = url.into();
        self
    }

    /// Sets timeouts and retries.
    pub fn with_http(mut self, http: HttpOptions) -> Self {
        self.http = http;
        self
    }
}

/// A client of the Anthropic Messages API.
///
/// ```no_run
/// use navigator_core::{AnthropicClient, AnthropicConfig, ChatRequest, Llm, SystemBlock};
/// # async fn run() -> navigator_core::Result<()> {
/// let claude = AnthropicClient::new(AnthropicConfig::new("claude-sonnet-4-5"))?; // ANTHROPIC_API_KEY
/// let request = ChatRequest::new("Which projects are due this week?")
///     .with_system(SystemBlock::cached("You are the Butler ... (static persona, >1024 tokens)"))
///     .with_system(SystemBlock::dynamic("Today is 2025-11-21."));
/// let answer = claude.chat(&request).await?;
/// println!("{} ({} cache-read tokens)", answer.text, answer.usage.cache_read_tokens);
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct AnthropicClient {
    config: AnthropicConfig,
    http: HttpClient,
    url: String,
}

impl AnthropicClient {
    /// A client for `config`; fails when no key is configured or in the environment.
    pub fn new(config: AnthropicConfig) -> Result<Self> {
        let key = match &config.api_key {
            Some(k) => k.clone(),
            None => ApiKey::from_env(&config.api_key_env)?,
        };
        let mut headers = HeaderMap::new();
        let mut key_value = HeaderValue::from_str(key.expose()).map_err(|_| {
            crate::Error::invalid(
                "api_key",
                "contains characters not allowed in an HTTP header",
            )
        })?;
        key_value.set_sensitive(true);
        headers.insert(HeaderName::from_static("x-api-key"), key_value);
        let version = HeaderValue::from_str(&config.api_version).map_err(|_| {
            crate::Error::invalid(
                "api_version",
                format!("not a header value: {:?}", config.api_version),
            )
        })?;
        headers.insert(HeaderName::from_static("anthropic-version"), version);
        let (base_url, credentials) = split_credentials(&config.base_url);
        let http =
            HttpClient::new(PROVIDER, config.http.clone(), headers)?.with_credentials(credentials);
        let url = format!("{}/v1/messages", base_url.trim_end_matches('/'));
        let config = AnthropicConfig { base_url, ..config };
        Ok(Self { config, http, url })
    }

    /// The JSON body sent for `request`.
    /// The JSON body a non-streamed call with `request` sends (Messages API): to log it, or to
    /// check what a provider's prompt cache will see (the prefix up to the cache marker).
    pub fn request_body(&self, request: &ChatRequest) -> Value {
        self.body(request, false)
    }

    fn body(&self, request: &ChatRequest, stream: bool) -> Value {
        let cached_runs_end: Vec<usize> = (0..request.system.len())
            .filter(|&i| {
                request.system[i].cache && request.system.get(i + 1).is_none_or(|next| !next.cache)
            })
            .collect();
        let marked =
            &cached_runs_end[cached_runs_end.len().saturating_sub(MAX_CACHE_BREAKPOINTS)..];
        let system: Vec<Value> = request
            .system
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let mut block = json!({"type": "text", "text": b.text});
                if marked.contains(&i) {
                    block["cache_control"] = json!({"type": "ephemeral"});
                }
                block
            })
            .collect();
        let messages: Vec<Value> = request.messages.iter().map(message_json).collect();
        let mut body = json!({
            "model": self.config.model,
            "max_tokens": request.max_tokens,
            "messages": messages,
        });
        if !system.is_empty() {
            body["system"] = Value::Array(system);
        }
        if !request.tools.is_empty() {
            body["tools"] = request.tools.iter().map(tool_json).collect();
        }
        if let Some(choice) = tool_choice_json(&request.tools, &request.tool_choice) {
            body["tool_choice"] = choice;
        }
        if let Some(t) = request.temperature {
            body["temperature"] = json!(t);
        }
        if stream {
            body["stream"] = json!(true);
        }
        body
    }
}

/// A plain message keeps its text as `content`; one with tool calls or results becomes content
/// blocks: results first (the API wants them at the start of the user turn), then the text,
/// then the calls.
fn message_json(m: &Message) -> Value {
    let role = match m.role {
        Role::User => "user",
        Role::Assistant => "assistant",
    };
    if m.tool_calls.is_empty() && m.tool_results.is_empty() {
        return json!({"role": role, "content": m.content});
    }
    let results = m.tool_results.iter().map(|r| {
        let mut block =
            json!({"type": "tool_result", "tool_use_id": r.call_id, "content": r.content});
        if r.is_error {
            block["is_error"] = json!(true);
        }
        block
    });
    let text = (!m.content.is_empty()).then(|| json!({"type": "text", "text": m.content}));
    let calls = m
        .tool_calls
        .iter()
        .map(|c| json!({"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments}));
    let blocks: Vec<Value> = results.chain(text).chain(calls).collect();
    json!({"role": role, "content": blocks})
}

fn tool_json(t: &ToolDefinition) -> Value {
    json!({"name": t.name, "description": t.description, "input_schema": t.parameters})
}

/// `tool_choice`, or nothing when no tools are offered and the choice needs none (`auto`,
/// `none`): the API rejects a `tool_choice` without `tools`. A required call without tools is
/// sent as is, so the API says what is wrong.
fn tool_choice_json(tools: &[ToolDefinition], choice: &ToolChoice) -> Option<Value> {
    Some(match choice {
        ToolChoice::Auto | ToolChoice::None if tools.is_empty() => return None,
        ToolChoice::Auto => json!({"type": "auto"}),
        ToolChoice::None => json!({"type": "none"}),
        ToolChoice::Required => json!({"type": "any"}),
        ToolChoice::Tool(name) => json!({"type": "tool", "name": name}),
    })
}

#[derive(Deserialize)]
struct WireMessage {
    model: String,
    content: Vec<WireBlock>,
    stop_reason: Option<String>,
    usage: WireUsage,
}

#[derive(Deserialize)]
struct WireBlock {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    text: String,
    /// `tool_use` blocks: the call's id, the tool's name and its arguments.
    #[serde(default)]
    id: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    input: Option<Value>,
}

impl WireMessage {
    /// Text blocks joined into the text, `tool_use` blocks into the calls.
    fn into_response(self) -> ChatResponse {
        let text = self
            .content
            .iter()
            .filter(|b| b.kind == "text")
            .map(|b| b.text.as_str())
            .collect::<String>();
        let mut usage = Usage::default();
        self.usage.merge_into(&mut usage);
        let tool_calls = self
            .content
            .into_iter()
            .filter(|b| b.kind == "tool_use")
            .map(|b| ToolCall {
                id: b.id,
                name: b.name,
                arguments: b.input.unwrap_or_else(|| json!({})),
            })
            .collect();
        ChatResponse {
            text,
            usage,
            model: self.model,
            stop_reason: self.stop_reason,
            tool_calls,
        }
    }
}

#[derive(Deserialize, Default)]
struct WireUsage {
    #[serde(default)]
    input_tokens: Option<u64>,
    #[serde(default)]
    output_tokens: Option<u64>,
    #[serde(default)]
    cache_creation_input_tokens: Option<u64>,
    #[serde(default)]
    cache_read_input_tokens: Option<u64>,
}

impl WireUsage {
    /// Streams report usage in two parts (input at the start, output at the end): fields
    /// present here replace those in `into`.
    fn merge_into(&self, into: &mut Usage) {
        let set = |field: &mut u64, v: Option<u64>| {
            if let Some(v) = v {
                *field = v;
            }
        };
        set(&mut into.input_tokens, self.input_tokens);
        set(&mut into.output_tokens, self.output_tokens);
        set(
            &mut into.cache_write_tokens,
            self.cache_creation_input_tokens,
        );
        set(&mut into.cache_read_tokens, self.cache_read_input_tokens);
    }
}

#[async_trait]
impl Llm for AnthropicClient {
    fn provider(&self) -> &str {
        PROVIDER
    }

    fn model(&self) -> &str {
        &self.config.model
    }

    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse> {
        let body = self
            .http
            .post_json(&self.url, &self.body(request, false))
            .await?;
        let wire: WireMessage = parse_body(PROVIDER, &body)?;
        Ok(wire.into_response())
    }

    async fn chat_stream(
        &self,
        request: &ChatRequest,
        on_text: &mut (dyn for<'s> FnMut(&'s str) + Send),
    ) -> Result<ChatResponse> {
        let mut stream = self
            .http
            .post_stream(&self.url, &self.body(request, true))
            .await?;
        let mut out = ChatResponse {
            text: String::new(),
            usage: Usage::default(),
            model: self.config.model.clone(),
            stop_reason: None,
            tool_calls: Vec::new(),
        };
        // Tool calls whose input is still arriving, by content block index.
        let mut open_calls: Vec<(u64, PartialToolCall)> = Vec::new();
        let mut stopped = false;
        while let Some(events) = stream.next_events().await? {
            for ev in events {
                let v: Value = parse_body(PROVIDER, &ev.data)?;
                match v["type"].as_str().unwrap_or_default() {
                    "message_stop" => stopped = true,
                    "message_start" => {
                        let msg = &v["message"];
                        if let Some(m) = msg["model"].as_str() {
                            out.model = m.to_string();
                        }
                        let usage: WireUsage = parse_body(PROVIDER, &msg["usage"].to_string())?;
                        usage.merge_into(&mut out.usage);
                    }
                    "content_block_start" if v["content_block"]["type"] == "tool_use" => {
                        let block = &v["content_block"];
                        let call = PartialToolCall {
                            id: block["id"].as_str().unwrap_or_default().to_string(),
                            name: block["name"].as_str().unwrap_or_default().to_string(),
                            arguments: String::new(),
                        };
                        open_calls.push((v["index"].as_u64().unwrap_or_default(), call));
                    }
                    "content_block_delta" => match v["delta"]["type"].as_str() {
                        Some("input_json_delta") => {
                            let index = v["index"].as_u64().unwrap_or_default();
                            let piece = v["delta"]["partial_json"].as_str().unwrap_or_default();
                            if let Some((_, call)) =
                                open_calls.iter_mut().find(|(i, _)| *i == index)
                            {
                                call.arguments.push_str(piece);
                            }
                        }
                        _ => {
                            if let Some(t) = v["delta"]["text"].as_str() {
                                on_text(t);
                                out.text.push_str(t);
                            }
                        }
                    },
                    "content_block_stop" => {
                        let index = v["index"].as_u64().unwrap_or_default();
                        if let Some(at) = open_calls.iter().position(|(i, _)| *i == index) {
                            out.tool_calls.push(open_calls.remove(at).1.finish());
                        }
                    }
                    "message_delta" => {
                        if let Some(r) = v["delta"]["stop_reason"].as_str() {
                            out.stop_reason = Some(r.to_string());
                        }
                        let usage: WireUsage = parse_body(PROVIDER, &v["usage"].to_string())?;
                        usage.merge_into(&mut out.usage);
                    }
                    "error" => {
                        let kind = match v["error"]["type"].as_str() {
                            Some("overloaded_error" | "api_error") => LlmErrorKind::Server,
                            Some("rate_limit_error") => LlmErrorKind::RateLimited,
                            _ => LlmErrorKind::BadRequest,
                        };
                        return Err(api_error(PROVIDER, kind, None, 1, v["error"].to_string()));
                    }
                    _ => {}
                }
            }
        }
        if !stopped {
            return Err(stream.cut_short("message_stop"));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Message, SystemBlock};

    fn client() -> AnthropicClient {
        AnthropicClient::new(
            AnthropicConfig::new("claude-haiku-4-5").with_api_key(ApiKey::new("k")),
        )
        .unwrap()
    }

    #[test]
    fn cache_marker_goes_on_the_last_block_of_each_cached_run() {
        let req = ChatRequest::new("hi")
            .with_system(SystemBlock::cached("persona"))
            .with_system(SystemBlock::cached("tools"))
            .with_system(SystemBlock::dynamic("today"))
            .with_system(SystemBlock::cached("more static"));
        let body = client().body(&req, false);
        let marks: Vec<bool> = body["system"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b.get("cache_control").is_some())
            .collect();
        assert_eq!(marks, [false, true, false, true]);
        assert_eq!(body["system"][1]["cache_control"]["type"], "ephemeral");
    }

    #[test]
    fn at_most_four_breakpoints_keeping_the_last() {
        let mut req = ChatRequest::new("hi");
        for i in 0..6 {
            req = req
                .with_system(SystemBlock::cached(format!("s{i}")))
                .with_system(SystemBlock::dynamic(format!("d{i}")));
        }
        let body = client().body(&req, false);
        let marked: Vec<&str> = body["system"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|b| b.get("cache_control").is_some())
            .map(|b| b["text"].as_str().unwrap())
            .collect();
        assert_eq!(marked, ["s2", "s3", "s4", "s5"]);
    }

    #[test]
    fn body_carries_model_messages_and_no_system_when_empty() {
        let mut req = ChatRequest::new("q").with_max_tokens(50);
        req.messages.push(Message::assistant("a"));
        req.temperature = Some(0.0);
        let body = client().body(&req, true);
        assert_eq!(body["model"], "claude-haiku-4-5");
        assert_eq!(body["max_tokens"], 50);
        assert_eq!(body["messages"][1]["role"], "assistant");
        assert_eq!(body["stream"], true);
        assert!(body.get("system").is_none());
    }

    #[test]
    fn debug_output_never_shows_the_key() {
        let c = AnthropicClient::new(
            AnthropicConfig::new("m").with_api_key(ApiKey::new("sk-ant-topsecret")),
        )
        .unwrap();
        assert!(!format!("{c:?}").contains("topsecret"));
    }

    fn lookup() -> ToolDefinition {
        ToolDefinition {
            name: "lookup".into(),
            description: "Finds a note".into(),
            parameters: json!({"type": "object", "properties": {"q": {"type": "string"}}}),
        }
    }

    #[test]
    fn plain_messages_keep_their_string_content_and_gain_no_keys() {
        // The same keys and values as before tool use: the same bytes on the wire, so the
        // provider's prompt cache keeps matching bodies sent by earlier versions.
        let mut req = ChatRequest::new("q").with_max_tokens(50);
        req.messages.push(Message::assistant("a"));
        assert_eq!(
            client().body(&req, false),
            json!({
                "model": "claude-haiku-4-5",
                "max_tokens": 50,
                "messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}],
            })
        );
    }

    #[test]
    fn tools_go_out_with_input_schema_and_tool_choice_maps_each_way() {
        let mut req = ChatRequest::new("q").with_tools(vec![lookup()]);
        let body = client().body(&req, false);
        assert_eq!(
            body["tools"],
            json!([{
                "name": "lookup",
                "description": "Finds a note",
                "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}},
            }])
        );
        assert_eq!(body["tool_choice"], json!({"type": "auto"}));
        for (choice, wire) in [
            (ToolChoice::Required, json!({"type": "any"})),
            (ToolChoice::None, json!({"type": "none"})),
            (
                ToolChoice::Tool("lookup".into()),
                json!({"type": "tool", "name": "lookup"}),
            ),
        ] {
            req.tool_choice = choice;
            assert_eq!(client().body(&req, false)["tool_choice"], wire);
        }
        let mut plain = ChatRequest::new("q");
        plain.tool_choice = ToolChoice::None;
        let body = client().body(&plain, false);
        assert!(body.get("tools").is_none() && body.get("tool_choice").is_none());
    }

    #[test]
    fn tools_ride_on_the_system_breakpoint_and_are_never_marked_themselves() {
        let cached = ChatRequest::new("q")
            .with_tools(vec![lookup()])
            .with_system(SystemBlock::cached("persona"))
            .with_system(SystemBlock::dynamic("today"));
        let body = client().body(&cached, false);
        assert!(body["tools"][0].get("cache_control").is_none());
        assert_eq!(body["system"][0]["cache_control"]["type"], "ephemeral");

        let uncached = ChatRequest::new("q")
            .with_tools(vec![lookup()])
            .with_system(SystemBlock::dynamic("today"));
        let text = client().body(&uncached, false).to_string();
        assert!(!text.contains("cache_control"), "{text}");
    }

    #[test]
    fn tool_turns_become_tool_use_and_tool_result_blocks() {
        let mut req = ChatRequest::new("find my note on rust");
        req.messages.push(Message::tool_use(
            "Let me look.",
            vec![ToolCall {
                id: "toolu_1".into(),
                name: "lookup".into(),
                arguments: json!({"q": "rust"}),
            }],
        ));
        let mut results = Message::tool_results(vec![
            crate::ToolResult {
                call_id: "toolu_1".into(),
                content: "[\"notes/rust.md\"]".into(),
                is_error: false,
            },
            crate::ToolResult {
                call_id: "toolu_2".into(),
                content: "no such tool".into(),
                is_error: true,
            },
        ]);
        results.content = "and be brief".into();
        req.messages.push(results);
        req.messages.push(Message::tool_use(
            "",
            vec![ToolCall {
                id: "toolu_3".into(),
                name: "lookup".into(),
                arguments: json!({}),
            }],
        ));
        let body = client().body(&req, false);
        assert_eq!(
            body["messages"][1],
            json!({"role": "assistant", "content": [
                {"type": "text", "text": "Let me look."},
                {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {"q": "rust"}},
            ]})
        );
        assert_eq!(
            body["messages"][2],
            json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "[\"notes/rust.md\"]"},
                {"type": "tool_result", "tool_use_id": "toolu_2", "content": "no such tool", "is_error": true},
                {"type": "text", "text": "and be brief"},
            ]})
        );
        assert_eq!(
            body["messages"][3]["content"],
            json!([{"type": "tool_use", "id": "toolu_3", "name": "lookup", "input": {}}])
        );
    }

    #[test]
    fn tool_use_blocks_in_a_response_become_calls() {
        let wire: WireMessage = serde_json::from_str(
            r#"{"model":"claude-sonnet-4-5","stop_reason":"tool_use",
                "usage":{"input_tokens":10,"output_tokens":5},
                "content":[{"type":"text","text":"Looking it up."},
                           {"type":"tool_use","id":"toolu_1","name":"lookup","input":{"q":"rust"}},
                           {"type":"tool_use","id":"toolu_2","name":"now","input":{}}]}"#,
        )
        .unwrap();
        let answer = wire.into_response();
        assert_eq!(answer.text, "Looking it up.");
        assert_eq!(answer.stop_reason.as_deref(), Some("tool_use"));
        assert_eq!(
            answer.tool_calls,
            [
                ToolCall {
                    id: "toolu_1".into(),
                    name: "lookup".into(),
                    arguments: json!({"q": "rust"}),
                },
                ToolCall {
                    id: "toolu_2".into(),
                    name: "now".into(),
                    arguments: json!({}),
                },
            ]
        );
    }
}
