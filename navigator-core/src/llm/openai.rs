//! OpenAI-compatible chat completions (`POST {base_url}/chat/completions`): OpenAI itself,
//! Ollama, vLLM, the llama.cpp server, LM Studio.
//!
//! The system blocks are joined into one `system` message: these servers cache prompt prefixes
//! on their own (OpenAI reports the hits as `prompt_tokens_details.cached_tokens`, which
//! [`Usage::cache_read_tokens`] gets; `input_tokens` is the rest). [`ResponseFormat`] maps to
//! `response_format` (`json_object`, or `json_schema`, which llama.cpp and vLLM enforce with a
//! grammar); servers that reject it can be told not to receive it.

use super::credentials::{redact_url, split_credentials};
use super::http::{api_error, parse_body, ApiKey, HttpClient, HttpOptions};
use super::{ChatRequest, ChatResponse, Llm, LlmErrorKind, ResponseFormat, Role, Usage};
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

    fn body(&self, request: &ChatRequest, stream: bool) -> Value {
        let mut messages = Vec::with_capacity(request.messages.len() + 1);
        if !request.system.is_empty() {
            messages.push(json!({"role": "system", "content": request.system_text()}));
        }
        for m in &request.messages {
            let role = match m.role {
                Role::User => "user",
                Role::Assistant => "assistant",
            };
            messages.push(json!({"role": role, "content": m.content}));
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

#[derive(Deserialize)]
struct WireCompletion {
    #[serde(default)]
    model: Option<String>,
    choices: Vec<WireChoice>,
    #[serde(default)]
    usage: Option<WireUsage>,
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

impl From<WireUsage> for Usage {
    fn from(u: WireUsage) -> Self {
        let cached = u
            .prompt_tokens_details
            .and_then(|d| d.cached_tokens)
            .unwrap_or(0)
            .min(u.prompt_tokens);
        Usage {
            input_tokens: u.prompt_tokens - cached,
            output_tokens: u.completion_tokens,
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
        Ok(ChatResponse {
            text: choice.message.content.unwrap_or_default(),
            usage: wire.usage.map(Usage::from).unwrap_or_default(),
            model: wire.model.unwrap_or_else(|| self.config.model.clone()),
            stop_reason: choice.finish_reason,
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
                    out.usage = u.into();
                }
                for choice in chunk.choices {
                    if let Some(t) = choice.delta.and_then(|d| d.content) {
                        on_text(&t);
                        out.text.push_str(&t);
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
        let u: Usage = WireUsage {
            prompt_tokens: 100,
            completion_tokens: 7,
            prompt_tokens_details: Some(WireDetails {
                cached_tokens: Some(64),
            }),
        }
        .into();
        assert_eq!(
            (u.input_tokens, u.cache_read_tokens, u.output_tokens),
            (36, 64, 7)
        );
        assert_eq!(u.total_input(), 100);
    }
}
