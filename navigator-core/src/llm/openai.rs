//! OpenAI-compatible chat completions (`POST {base_url}/chat/completions`): OpenAI itself,
//! Ollama, vLLM, the llama.cpp server, LM Studio.
//!
//! The system blocks are joined into one `system` message: these servers cache prompt prefixes
//! on their own (OpenAI reports the hits as `prompt_tokens_details.cached_tokens`, which
//! [`Usage::cache_read_tokens`] gets; `input_tokens` is the rest). [`ResponseFormat`] maps to
//! `response_format` (`json_object`, or `json_schema`, which llama.cpp and vLLM enforce with a
//! grammar); servers that reject it can be told not to receive it. llama.cpp servers that do
//! not fill `prompt_tokens_details` still report their cache hits as `timings.cache_n`, which
//! is read instead.
//!
//! Tool use: [`ToolDefinition`]s go out as `tools` of type `function`, an assistant turn's
//! [`ToolCall`]s as its `tool_calls` (arguments as a JSON string) and each [`ToolResult`] as a
//! message of role `tool` (OpenAI has no error flag: a failed call's content is prefixed with
//! `error: `). Streamed calls are put together from their fragments by `index`.

use super::credentials::{redact_url, split_credentials};
use super::http::{api_error, parse_body, ApiKey, HttpClient, HttpOptions};
use super::types::PartialToolCall;
use super::{
    ChatRequest, ChatResponse, Llm, LlmErrorKind, Message, ResponseFormat, Role, ToolCall,
    ToolChoice, ToolDefinition, Usage,
};
use crate::Result;
use async_trait::async_trait;
use reqwest::header::{HeaderMap, HeaderValue, AUTHORIZATION};
use serde::Deserialize;
use serde_json::{json, Value};

/// Which field carries the output cap: OpenAI's current models want
/// `max_completion_tokens`; many compatible servers know only `max_tokens`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaxTokensField {
    /// `max_tokens`.
    MaxTokens,
    /// `max_completion_tokens`.
    MaxCompletionTokens,
}

/// Settings of an [`OpenAiClient`].
///
/// Credentials in `base_url` (`https://user:key@host/v1`) are sent as basic authentication
/// and never shown: `Debug` redacts them and the client keeps the URL without them.
#[derive(Clone)]
pub struct OpenAiConfig {
    /// The name used in errors and for cost lookups (`openai`, `ollama`, `llama.cpp`, ...).
    pub provider: String,
    /// Model name sent with each request.
    pub model: String,
    /// API root including `/v1` (default `https://api.openai.com/v1`).
    pub base_url: String,
    /// The key; when `None` it is read from [`api_key_env`](Self::api_key_env), if set.
    pub api_key: Option<ApiKey>,
    /// Environment variable holding the key; `None` means no key at all (local servers).
    pub api_key_env: Option<String>,
    /// The field for the output cap.
    pub max_tokens_field: MaxTokensField,
    /// Whether to send `response_format` (some servers reject it).
    pub send_response_format: bool,
    /// Timeouts and retries.
    pub http: HttpOptions,
}

impl std::fmt::Debug for OpenAiConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiConfig")
            .field("provider", &self.provider)
            .field("model", &self.model)
            .field("base_url", &redact_url(&self.base_url))
            .field("api_key", &self.api_key)
            .field("api_key_env", &self.api_key_env)
            .field("max_tokens_field", &self.max_tokens_field)
            .field("send_response_format", &self.send_response_format)
            .field("http", &self.http)
            .finish()
    }
}

impl OpenAiConfig {
    /// OpenAI itself: key from `OPENAI_API_KEY`, cap as `max_completion_tokens`.
    pub fn openai(model: impl Into<String>) -> Self {
        Self {
            provider: "openai".into(),
            model: model.into(),
            base_url: "https://api.openai.com/v1".into(),
            api_key: None,
            api_key_env: Some("OPENAI_API_KEY".into()),
            max_tokens_field: MaxTokensField::MaxCompletionTokens,
            send_response_format: true,
            http: HttpOptions::default(),
        }
    }

    /// A compatible server at `base_url` (e.g. `http://127.0.0.1:11434/v1` for Ollama) that
    /// needs no key; add one with [`with_api_key`](Self::with_api_key) if it does.
    pub fn compatible(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        Self {
            provider: "openai-compatible".into(),
            base_url: base_url.into(),
            api_key_env: None,
            max_tokens_field: MaxTokensField::MaxTokens,
            ..Self::openai(model)
        }
    }

    /// Uses this key instead of the environment.
    pub fn with_api_key(mut self, key: ApiKey) -> Self {
        self.api_key = Some(key);
        self
    }

    /// Names the provider (errors, cost tables).
    pub fn with_provider(mut self, provider: impl Into<String>) -> Self {
        self.provider = provider.into();
        self
    }

    /// Sets timeouts and retries.
    pub fn with_http(mut self, http: HttpOptions) -> Self {
        self.http = http;
        self
    }
}

/// A client of an OpenAI-compatible chat completions API.
///
/// ```no_run
/// use navigator_core::{ChatRequest, Llm, OpenAiClient, OpenAiConfig};
/// # async fn run() -> navigator_core::Result<()> {
/// // OpenAI (OPENAI_API_KEY) ...
/// let gpt = OpenAiClient::new(OpenAiConfig::openai("gpt-4.1-mini"))?;
/// // ... or any compatible server on loopback, no key.
/// let local = OpenAiClient::new(OpenAiConfig::compatible("http://127.0.0.1:11434/v1", "llama3.2"))?;
/// let answer = local.chat(&ChatRequest::new("Say hi")).await?;
/// println!("{} ({} tokens out)", answer.text, answer.usage.output_tokens);
/// # let _ = gpt; Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct OpenAiClient {
    config: OpenAiConfig,
    http: HttpClient,
    url: String,
}

impl OpenAiClient {
    /// A client for `config`; fails when a key is expected but neither configured nor in
    /// the environment.
    pub fn new(config: OpenAiConfig) -> Result<Self> {
        let key = match (&config.api_key, &config.api_key_env) {
            (Some(k), _) => Some(k.clone()),
            (None, Some(var)) => Some(ApiKey::from_env(var)?),
            (None, None) => None,
        };
        let mut headers = HeaderMap::new();
        if let Some(key) = key {
            let mut v =
                HeaderValue::from_str(&format!("Bearer {}", key.expose())).map_err(|_| {
                    crate::Error::invalid(
                        "api_key",
                        "contains characters not allowed in an HTTP header",
                    )
                })?;
            v.set_sensitive(true);
            headers.insert(AUTHORIZATION, v);
        }
        let (base_url, credentials) = split_credentials(&config.base_url);
        let http = HttpClient::new(&config.provider, config.http.clone(), headers)?
            .with_credentials(credentials);
        let url = format!("{}/chat/completions", base_url.trim_end_matches('/'));
        let config = OpenAiConfig { base_url, ..config };
        Ok(Self { config, http, url })
    }

    /// The JSON body a non-streamed call with `request` sends (chat completions): to log it, or to
    /// check what a provider's prompt cache will see (the prefix up to the cache marker).
    pub fn request_body(&self, request: &ChatRequest) -> Value {
        self.body(request, false)
    }

    fn body(&self, request: &ChatRequest, stream: bool) -> Value {
        let mut messages = Vec::with_capacity(request.messages.len() + 1);
        if !request.system.is_empty() {
            messages.push(json!({"role": "system", "content": request.system_text()}));
        }
        for m in &request.messages {
            push_message(&mut messages, m);
        }
        let cap_field = match self.config.max_tokens_field {
            MaxTokensField::MaxTokens => "max_tokens",
            MaxTokensField::MaxCompletionTokens => "max_completion_tokens",
        };
        let mut body = json!({"model": self.config.model, "messages": messages});
        body[cap_field] = json!(request.max_tokens);
        if let Some(t) = request.temperature {
            body["temperature"] = json!(t);
        }
        if !request.tools.is_empty() {
            body["tools"] = request.tools.iter().map(tool_json).collect();
        }
        if let Some(choice) = tool_choice_json(&request.tools, &request.tool_choice) {
            body["tool_choice"] = choice;
        }
        if self.config.send_response_format {
            match &request.response_format {
                ResponseFormat::Text => {}
                ResponseFormat::JsonObject => {
                    body["response_format"] = json!({"type": "json_object"});
                }
                ResponseFormat::JsonSchema { name, schema } => {
                    body["response_format"] = json!({
                        "type": "json_schema",
                        "json_schema": {"name": name, "schema": schema},
                    });
                }
            }
        }
        if stream {
            body["stream"] = json!(true);
            body["stream_options"] = json!({"include_usage": true});
        }
        body
    }
}

/// Appends `m` in the wire shape: a plain message, an assistant turn with `tool_calls`, or
/// one `tool` message per result (then the turn's text, if any, as a user message).
fn push_message(messages: &mut Vec<Value>, m: &Message) {
    match m.role {
        Role::Assistant if !m.tool_calls.is_empty() => {
            let calls: Vec<Value> = m
                .tool_calls
                .iter()
                .map(|c| {
                    json!({
                        "id": c.id,
                        "type": "function",
                        "function": {"name": c.name, "arguments": c.arguments.to_string()},
                    })
                })
                .collect();
            let content = if m.content.is_empty() {
                Value::Null
            } else {
                json!(m.content)
            };
            messages.push(json!({"role": "assistant", "content": content, "tool_calls": calls}));
        }
        Role::User if !m.tool_results.is_empty() => {
            for r in &m.tool_results {
                let content = if r.is_error {
                    format!("error: {}", r.content)
                } else {
                    r.content.clone()
                };
                messages
                    .push(json!({"role": "tool", "tool_call_id": r.call_id, "content": content}));
            }
            if !m.content.is_empty() {
                messages.push(json!({"role": "user", "content": m.content}));
            }
        }
        Role::User => messages.push(json!({"role": "user", "content": m.content})),
        Role::Assistant => messages.push(json!({"role": "assistant", "content": m.content})),
    }
}

fn tool_json(t: &ToolDefinition) -> Value {
    json!({
        "type": "function",
        "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
    })
}

/// `tool_choice`, or nothing when no tools are offered and the choice needs none (`auto`,
/// `none`): OpenAI rejects a `tool_choice` without `tools`. A required call without tools is
/// sent as is, so the server says what is wrong.
fn tool_choice_json(tools: &[ToolDefinition], choice: &ToolChoice) -> Option<Value> {
    Some(match choice {
        ToolChoice::Auto | ToolChoice::None if tools.is_empty() => return None,
        ToolChoice::Auto => json!("auto"),
        ToolChoice::None => json!("none"),
        ToolChoice::Required => json!("required"),
        ToolChoice::Tool(name) => json!({"type": "function", "function": {"name": name}}),
    })
}

#[derive(Deserialize)]
struct WireCompletion {
    #[serde(default)]
    model: Option<String>,
    choices: Vec<WireChoice>,
    #[serde(default)]
    usage: Option<WireUsage>,
    #[serde(default)]
    timings: Option<WireTimings>,
}

#[derive(Deserialize)]
struct WireChoice {
    message: WireMessage,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct WireMessage {
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    tool_calls: Option<Vec<WireToolCall>>,
}

/// A tool call, whole (in a completion) or a fragment of one (in a stream's `delta`).
#[derive(Deserialize)]
struct WireToolCall {
    #[serde(default)]
    index: Option<usize>,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    function: Option<WireFunction>,
}

#[derive(Deserialize)]
struct WireFunction {
    #[serde(default)]
    name: Option<String>,
    /// A string per the API; some compatible servers send the object itself.
    #[serde(default)]
    arguments: Option<Value>,
}

impl WireFunction {
    fn arguments_text(&self) -> String {
        match &self.arguments {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(s)) => s.clone(),
            Some(other) => other.to_string(),
        }
    }
}

impl WireToolCall {
    fn into_call(self) -> ToolCall {
        let (name, arguments) = match &self.function {
            Some(f) => (f.name.clone().unwrap_or_default(), f.arguments_text()),
            None => (String::new(), String::new()),
        };
        ToolCall::from_raw_arguments(self.id.unwrap_or_default(), name, &arguments)
    }
}

/// llama.cpp's per-request statistics; only the prompt tokens served from its cache matter
/// here.
#[derive(Deserialize)]
struct WireTimings {
    #[serde(default)]
    cache_n: Option<u64>,
}

#[derive(Deserialize)]
struct WireUsage {
    prompt_tokens: u64,
    completion_tokens: u64,
    #[serde(default)]
    prompt_tokens_details: Option<WireDetails>,
}

#[derive(Deserialize)]
struct WireDetails {
    #[serde(default)]
    cached_tokens: Option<u64>,
}

impl WireUsage {
    /// The usage, with cache hits from `prompt_tokens_details.cached_tokens` or, when a
    /// llama.cpp server leaves that out, from its `timings.cache_n`.
    fn into_usage(self, timings: Option<&WireTimings>) -> Usage {
        let cached = self
            .prompt_tokens_details
            .and_then(|d| d.cached_tokens)
            .or_else(|| timings.and_then(|t| t.cache_n))
            .unwrap_or(0)
            .min(self.prompt_tokens);
        Usage {
            input_tokens: self.prompt_tokens - cached,
            output_tokens: self.completion_tokens,
            cache_read_tokens: cached,
            cache_write_tokens: 0,
        }
    }
}

#[derive(Deserialize)]
struct WireChunk {
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    choices: Vec<WireChunkChoice>,
    #[serde(default)]
    usage: Option<WireUsage>,
    #[serde(default)]
    timings: Option<WireTimings>,
}

/// Streamed tool calls being put together, keyed by their `index`.
#[derive(Default)]
struct StreamedCalls(Vec<(usize, PartialToolCall)>);

impl StreamedCalls {
    fn add(&mut self, delta: WireToolCall) {
        // Servers that leave out `index` (Gemini's compatible endpoint sends each call whole)
        // start a new call with each id; a fragment without one continues the last call.
        let index = delta.index.unwrap_or_else(|| match &delta.id {
            Some(id) if !id.is_empty() => self.0.len(),
            _ => self.0.len().saturating_sub(1),
        });
        let call = match self.0.iter().position(|(i, _)| *i == index) {
            Some(at) => &mut self.0[at].1,
            None => {
                self.0.push((index, PartialToolCall::default()));
                &mut self.0.last_mut().expect("just pushed").1
            }
        };
        if let Some(id) = delta.id.filter(|id| !id.is_empty()) {
            call.id = id;
        }
        if let Some(f) = delta.function {
            if let Some(name) = f.name.as_deref().filter(|n| !n.is_empty()) {
                if call.name.is_empty() {
                    call.name = name.to_string();
                }
            }
            call.arguments.push_str(&f.arguments_text());
        }
    }

    fn finish(mut self) -> Vec<ToolCall> {
        self.0.sort_by_key(|(i, _)| *i);
        self.0.into_iter().map(|(_, c)| c.finish()).collect()
    }
}

#[derive(Deserialize)]
struct WireChunkChoice {
    #[serde(default)]
    delta: Option<WireMessage>,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[async_trait]
impl Llm for OpenAiClient {
    fn provider(&self) -> &str {
        &self.config.provider
    }

    fn model(&self) -> &str {
        &self.config.model
    }

    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse> {
        let body = self
            .http
            .post_json(&self.url, &self.body(request, false))
            .await?;
        let wire: WireCompletion = parse_body(&self.config.provider, &body)?;
        let choice = wire.choices.into_iter().next().ok_or_else(|| {
            api_error(
                &self.config.provider,
                LlmErrorKind::MalformedResponse,
                None,
                1,
                "the answer has no choices".into(),
            )
        })?;
        let timings = wire.timings;
        Ok(ChatResponse {
            text: choice.message.content.unwrap_or_default(),
            usage: wire
                .usage
                .map(|u| u.into_usage(timings.as_ref()))
                .unwrap_or_default(),
            model: wire.model.unwrap_or_else(|| self.config.model.clone()),
            stop_reason: choice.finish_reason,
            tool_calls: choice
                .message
                .tool_calls
                .unwrap_or_default()
                .into_iter()
                .map(WireToolCall::into_call)
                .collect(),
        })
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
        let mut calls = StreamedCalls::default();
        let mut done = false;
        while let Some(events) = stream.next_events().await? {
            for ev in events {
                if ev.data.trim() == "[DONE]" {
                    done = true;
                    continue;
                }
                let chunk: WireChunk = parse_body(&self.config.provider, &ev.data)?;
                if let Some(m) = chunk.model {
                    out.model = m;
                }
                if let Some(u) = chunk.usage {
                    out.usage = u.into_usage(chunk.timings.as_ref());
                }
                for choice in chunk.choices {
                    if let Some(delta) = choice.delta {
                        if let Some(t) = delta.content {
                            on_text(&t);
                            out.text.push_str(&t);
                        }
                        for call in delta.tool_calls.into_iter().flatten() {
                            calls.add(call);
                        }
                    }
                    if choice.finish_reason.is_some() {
                        out.stop_reason = choice.finish_reason;
                    }
                }
            }
        }
        if !done {
            return Err(stream.cut_short("[DONE]"));
        }
        out.tool_calls = calls.finish();
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SystemBlock;

    #[test]
    fn system_blocks_become_one_system_message_and_formats_map() {
        let c = OpenAiClient::new(OpenAiConfig::compatible("http://x/v1/", "m")).unwrap();
        assert_eq!(c.url, "http://x/v1/chat/completions");
        let req = ChatRequest::new("q")
            .with_system(SystemBlock::cached("a"))
            .with_system(SystemBlock::dynamic("b"))
            .with_format(ResponseFormat::JsonSchema {
                name: "T".into(),
                schema: json!({"type": "object"}),
            });
        let body = c.body(&req, false);
        assert_eq!(
            body["messages"][0],
            json!({"role": "system", "content": "a\n\nb"})
        );
        assert_eq!(body["messages"][1]["role"], "user");
        assert_eq!(body["max_tokens"], 1024);
        assert_eq!(body["response_format"]["json_schema"]["name"], "T");
        assert!(body.get("stream").is_none());
    }

    #[test]
    fn openai_preset_uses_max_completion_tokens_and_can_skip_the_format() {
        let mut cfg = OpenAiConfig::openai("gpt-4.1").with_api_key(ApiKey::new("sk-x"));
        cfg.send_response_format = false;
        let c = OpenAiClient::new(cfg).unwrap();
        let body = c.body(
            &ChatRequest::new("q").with_format(ResponseFormat::JsonObject),
            true,
        );
        assert_eq!(body["max_completion_tokens"], 1024);
        assert!(body.get("response_format").is_none());
        assert_eq!(body["stream_options"]["include_usage"], true);
    }

    #[test]
    fn cached_prompt_tokens_are_split_out_of_input() {
        let u = WireUsage {
            prompt_tokens: 100,
            completion_tokens: 7,
            prompt_tokens_details: Some(WireDetails {
                cached_tokens: Some(64),
            }),
        }
        .into_usage(Some(&WireTimings { cache_n: Some(90) }));
        assert_eq!(
            (u.input_tokens, u.cache_read_tokens, u.output_tokens),
            (36, 64, 7)
        );
        assert_eq!(u.total_input(), 100);
    }

    #[test]
    fn llamacpp_timings_cache_n_stands_in_for_missing_cached_tokens() {
        // An older llama.cpp server: no `prompt_tokens_details`, cache hits only in `timings`.
        let wire: WireCompletion = serde_json::from_str(
            r#"{"choices":[{"finish_reason":"stop","message":{"content":"hi"}}],
                "usage":{"completion_tokens":8,"prompt_tokens":26,"total_tokens":34},
                "timings":{"cache_n":21,"prompt_n":5,"prompt_ms":137.2,"predicted_n":8,"predicted_ms":393.6}}"#,
        )
        .unwrap();
        let u = wire.usage.unwrap().into_usage(wire.timings.as_ref());
        assert_eq!((u.input_tokens, u.cache_read_tokens), (5, 21));
        // Without timings nothing is cached.
        let u = WireUsage {
            prompt_tokens: 26,
            completion_tokens: 8,
            prompt_tokens_details: None,
        }
        .into_usage(None);
        assert_eq!((u.input_tokens, u.cache_read_tokens), (26, 0));
    }

    fn lookup() -> ToolDefinition {
        ToolDefinition {
            name: "lookup".into(),
            description: "Finds a note".into(),
            parameters: json!({"type": "object", "properties": {"q": {"type": "string"}}}),
        }
    }

    fn body_of(req: &ChatRequest) -> Value {
        OpenAiClient::new(OpenAiConfig::compatible("http://x/v1", "m"))
            .unwrap()
            .body(req, false)
    }

    #[test]
    fn tools_become_functions_and_tool_choice_maps_each_way() {
        let mut req = ChatRequest::new("q").with_tools(vec![lookup()]);
        let body = body_of(&req);
        assert_eq!(
            body["tools"],
            json!([{"type": "function", "function": {
                "name": "lookup",
                "description": "Finds a note",
                "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
            }}])
        );
        assert_eq!(body["tool_choice"], "auto");
        for (choice, wire) in [
            (ToolChoice::Required, json!("required")),
            (ToolChoice::None, json!("none")),
            (
                ToolChoice::Tool("lookup".into()),
                json!({"type": "function", "function": {"name": "lookup"}}),
            ),
        ] {
            req.tool_choice = choice;
            assert_eq!(body_of(&req)["tool_choice"], wire);
        }

        // No tools: neither key for a choice that needs none, the contradiction is sent as is.
        let mut plain = ChatRequest::new("q");
        for choice in [ToolChoice::Auto, ToolChoice::None] {
            plain.tool_choice = choice;
            let body = body_of(&plain);
            assert!(body.get("tools").is_none() && body.get("tool_choice").is_none());
        }
        plain.tool_choice = ToolChoice::Required;
        assert_eq!(body_of(&plain)["tool_choice"], "required");
    }

    #[test]
    fn tool_turns_become_tool_calls_and_tool_messages() {
        let mut req = ChatRequest::new("find my note on rust");
        req.messages.push(Message::tool_use(
            "",
            vec![
                ToolCall {
                    id: "call_1".into(),
                    name: "lookup".into(),
                    arguments: json!({"q": "rust"}),
                },
                ToolCall {
                    id: "call_2".into(),
                    name: "lookup".into(),
                    arguments: json!("{\"q\": "),
                },
            ],
        ));
        let mut results = Message::tool_results(vec![
            crate::ToolResult {
                call_id: "call_1".into(),
                content: "[\"notes/rust.md\"]".into(),
                is_error: false,
            },
            crate::ToolResult {
                call_id: "call_2".into(),
                content: "arguments are not JSON".into(),
                is_error: true,
            },
        ]);
        req.messages.push(results.clone());
        results.content = "and be brief".into();
        req.messages.push(Message::tool_use("Looking.", vec![]));
        req.messages.push(results);
        let messages = body_of(&req)["messages"].as_array().unwrap().clone();
        assert_eq!(
            messages[1],
            json!({"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_1", "type": "function",
                 "function": {"name": "lookup", "arguments": "{\"q\":\"rust\"}"}},
                {"id": "call_2", "type": "function",
                 "function": {"name": "lookup", "arguments": "\"{\\\"q\\\": \""}},
            ]})
        );
        assert_eq!(
            messages[2],
            json!({"role": "tool", "tool_call_id": "call_1", "content": "[\"notes/rust.md\"]"})
        );
        assert_eq!(
            messages[3],
            json!({"role": "tool", "tool_call_id": "call_2", "content": "error: arguments are not JSON"})
        );
        // An assistant turn without calls stays plain; a results turn with text ends in it.
        assert_eq!(
            messages[4],
            json!({"role": "assistant", "content": "Looking."})
        );
        assert_eq!(
            messages[7],
            json!({"role": "user", "content": "and be brief"})
        );
        assert_eq!(messages.len(), 8);
    }

    #[test]
    fn completion_tool_calls_parse_and_bad_arguments_stay_text() {
        let wire: WireCompletion = serde_json::from_str(
            r#"{"choices":[{"finish_reason":"tool_calls","message":{"content":null,"tool_calls":[
                {"id":"call_a","type":"function","function":{"name":"lookup","arguments":"{\"q\":\"rust\"}"}},
                {"id":"call_b","type":"function","function":{"name":"lookup","arguments":"{\"q\": rust"}},
                {"id":"call_c","type":"function","function":{"name":"now","arguments":""}}]}}]}"#,
        )
        .unwrap();
        let choice = wire.choices.into_iter().next().unwrap();
        let calls: Vec<ToolCall> = choice
            .message
            .tool_calls
            .unwrap()
            .into_iter()
            .map(WireToolCall::into_call)
            .collect();
        assert_eq!(calls[0].arguments, json!({"q": "rust"}));
        assert_eq!(
            (calls[0].id.as_str(), calls[0].name.as_str()),
            ("call_a", "lookup")
        );
        assert_eq!(calls[1].arguments, json!("{\"q\": rust"));
        assert_eq!(calls[2].arguments, json!({}));
    }

    #[test]
    fn streamed_tool_call_fragments_join_by_index() {
        let mut calls = StreamedCalls::default();
        for delta in [
            r#"{"index":1,"id":"call_b","type":"function","function":{"name":"now","arguments":""}}"#,
            r#"{"index":0,"id":"call_a","type":"function","function":{"name":"lookup","arguments":""}}"#,
            r#"{"index":0,"function":{"arguments":"{\"q\":"}}"#,
            r#"{"index":1,"function":{"arguments":"{}"}}"#,
            r#"{"index":0,"function":{"arguments":" \"rust\"}"}}"#,
        ] {
            calls.add(serde_json::from_str(delta).unwrap());
        }
        let calls = calls.finish();
        assert_eq!(
            calls,
            [
                ToolCall {
                    id: "call_a".into(),
                    name: "lookup".into(),
                    arguments: json!({"q": "rust"}),
                },
                ToolCall {
                    id: "call_b".into(),
                    name: "now".into(),
                    arguments: json!({}),
                },
            ]
        );
    }

    #[test]
    fn streamed_calls_without_index_are_told_apart_by_id() {
        let mut calls = StreamedCalls::default();
        for delta in [
            r#"{"id":"call_a","function":{"name":"lookup","arguments":"{\"q\":"}}"#,
            r#"{"function":{"arguments":"\"rust\"}"}}"#,
            r#"{"id":"call_b","function":{"name":"now","arguments":"{}"}}"#,
        ] {
            calls.add(serde_json::from_str(delta).unwrap());
        }
        let calls = calls.finish();
        assert_eq!(calls.len(), 2, "{calls:?}");
        assert_eq!(
            (calls[0].id.as_str(), &calls[0].arguments),
            ("call_a", &json!({"q": "rust"}))
        );
        assert_eq!(
            (calls[1].id.as_str(), calls[1].name.as_str()),
            ("call_b", "now")
        );
    }
}
