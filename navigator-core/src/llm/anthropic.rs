//! The Anthropic Messages API (`POST {base_url}/v1/messages`).
//!
//! Static system blocks ([`SystemBlock::cached`]) get `cache_control: {"type": "ephemeral"}`,
//! so the API caches the prompt prefix up to them for five minutes (it caches only prefixes of
//! at least 1,024 tokens; shorter ones are silently sent uncached). Only the last block of each
//! run of cached blocks carries the marker — a breakpoint caches everything before it — and at
//! most four, the API's limit; the last four are kept because they cover the longest prefixes.
//! Usage reports cache reads and writes separately, which [`Usage`] keeps.

use super::credentials::{redact_url, split_credentials};
use super::http::{api_error, parse_body, ApiKey, HttpClient, HttpOptions};
use super::{ChatRequest, ChatResponse, Llm, LlmErrorKind, Role, Usage};
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
        let messages: Vec<Value> = request
            .messages
            .iter()
            .map(|m| {
                let role = match m.role {
                    Role::User => "user",
                    Role::Assistant => "assistant",
                };
                json!({"role": role, "content": m.content})
            })
            .collect();
        let mut body = json!({
            "model": self.config.model,
            "max_tokens": request.max_tokens,
            "messages": messages,
        });
        if !system.is_empty() {
            body["system"] = Value::Array(system);
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
        let text = wire
            .content
            .iter()
            .filter(|b| b.kind == "text")
            .map(|b| b.text.as_str())
            .collect::<String>();
        let mut usage = Usage::default();
        wire.usage.merge_into(&mut usage);
        Ok(ChatResponse {
            text,
            usage,
            model: wire.model,
            stop_reason: wire.stop_reason,
            tool_calls: Vec::new(),
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
                    "content_block_delta" => {
                        if let Some(t) = v["delta"]["text"].as_str() {
                            on_text(t);
                            out.text.push_str(t);
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
}
