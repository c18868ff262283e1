//! The HTTP layer both provider clients share: API keys that never print, timeouts, and
//! retries with exponential backoff and jitter.
//!
//! Retried: timeouts, broken connections, 429 and 5xx (Anthropic's 529 "overloaded" included).
//! A `retry-after-ms` / `retry-after` header (seconds or an HTTP date) replaces the computed
//! backoff; one longer than [`RetryPolicy::max_retry_after`] ends the retries at once rather
//! than stalling an agent for minutes. Any other 4xx fails on the first attempt: sending the
//! same request again cannot fix it.

use super::credentials::UrlCredentials;
use super::sse::{SseEvent, SseParser};
use super::LlmErrorKind;
use crate::{Error, Result};
use reqwest::header::{HeaderMap, HeaderValue, RETRY_AFTER};
use std::time::Duration;

/// An API key. `Debug` never shows it, and the clients mark the header carrying it sensitive.
#[derive(Clone)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key given in code or configuration.
    pub fn new(key: impl Into<String>) -> Self {
        Self(key.into())
    }

    /// Reads the key from the environment variable `var`.
    ///
    /// A missing or empty variable is an [`Error::InvalidField`] naming the variable.
    pub fn from_env(var: &str) -> Result<Self> {
        match std::env::var(var) {
            Ok(v) if !v.trim().is_empty() => Ok(Self(v.trim().to_string())),
            _ => Err(Error::invalid(
                var,
                "environment variable is not set or empty: the API key is read from it",
            )),
        }
    }

    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApiKey([redacted])")
    }
}

/// When and how often a failed call is sent again.
#[derive(Debug, Clone, PartialEq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (0 = never retry).
    pub max_retries: u32,
    /// Backoff before the first retry; doubles on each further retry.
    pub base_delay: Duration,
    /// Upper bound of the computed backoff.
    pub max_delay: Duration,
    /// The longest `retry-after` honoured; a longer one fails the call at once.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 3,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
            max_retry_after: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// No retries at all.
    pub fn none() -> Self {
        Self {
            max_retries: 0,
            ..Self::default()
        }
    }

    /// The backoff before retry number `retry` (0-based): `min(max_delay, base · 2^retry)`,
    /// of which a random half is taken off ("equal jitter") so that many clients that failed
    /// together do not retry together.
    pub fn backoff(&self, retry: u32) -> Duration {
        let full = self
            .base_delay
            .saturating_mul(2u32.saturating_pow(retry.min(16)))
            .min(self.max_delay);
        let jitter: f64 = rand::random_range(0.0..=1.0);
        full / 2 + full.mul_f64(jitter / 2.0)
    }
}

/// Timeouts and retries of a provider client.
///
/// A stream is bounded twice: [`stream_idle_timeout`](Self::stream_idle_timeout) catches a
/// server that stops sending, [`stream_deadline`](Self::stream_deadline) one that keeps
/// trickling bytes forever. Both end the call with an [`LlmErrorKind::Timeout`] error.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpOptions {
    /// Whole-call limit for a non-streaming call; for a stream, the limit for the response
    /// headers to arrive.
    pub timeout: Duration,
    /// Limit for establishing the connection.
    pub connect_timeout: Duration,
    /// The longest wait for the next chunk of a stream (default 60 s).
    pub stream_idle_timeout: Duration,
    /// The longest a whole stream may take, from the request to its last byte (default
    /// 10 min).
    pub stream_deadline: Duration,
    /// Retries.
    pub retry: RetryPolicy,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(120),
            connect_timeout: Duration::from_secs(10),
            stream_idle_timeout: Duration::from_secs(60),
            stream_deadline: Duration::from_secs(600),
            retry: RetryPolicy::default(),
        }
    }
}

/// One failed attempt, before it is decided whether to retry.
struct Failure {
    kind: LlmErrorKind,
    status: Option<u16>,
    retry_after: Option<Duration>,
    message: String,
}

/// A POST client for one provider.
#[derive(Debug, Clone)]
pub(crate) struct HttpClient {
    provider: String,
    client: reqwest::Client,
    options: HttpOptions,
    headers: HeaderMap,
    credentials: Option<UrlCredentials>,
}

/// An open streaming response, read as server-sent events.
pub(crate) struct Streaming {
    response: reqwest::Response,
    provider: String,
    idle: Duration,
    deadline: tokio::time::Instant,
    limit: Duration,
    parser: SseParser,
    done: bool,
    bytes: u64,
}

impl Streaming {
    /// The events completed by the next chunk of the body (possibly none); `None` at the end.
    pub async fn next_events(&mut self) -> Result<Option<Vec<SseEvent>>> {
        if self.done {
            return Ok(None);
        }
        let now = tokio::time::Instant::now();
        let left = self.deadline.saturating_duration_since(now);
        let wait = left.min(self.idle);
        match tokio::time::timeout(wait, self.response.chunk()).await {
            Err(_) => {
                let message = if left <= self.idle {
                    format!(
                        "the stream did not finish within its deadline of {:?} ({} bytes received)",
                        self.limit, self.bytes
                    )
                } else {
                    format!(
                        "no data for {:?} while streaming ({} bytes received)",
                        self.idle, self.bytes
                    )
                };
                Err(api_error(
                    &self.provider,
                    LlmErrorKind::Timeout,
                    None,
                    1,
                    message,
                ))
            }
            Ok(Err(e)) => Err(api_error(
                &self.provider,
                LlmErrorKind::Connection,
                None,
                1,
                format!("stream broke: {}", error_chain(&e)),
            )),
            Ok(Ok(Some(chunk))) => {
                self.bytes += chunk.len() as u64;
                self.parser.push(&chunk).map(Some).map_err(|message| {
                    api_error(
                        &self.provider,
                        LlmErrorKind::MalformedResponse,
                        None,
                        1,
                        message,
                    )
                })
            }
            Ok(Ok(None)) => {
                self.done = true;
                Ok(Some(self.parser.finish().into_iter().collect()))
            }
        }
    }

    /// The error for a stream that ended before the provider's end marker (`[DONE]`,
    /// `message_stop`): the answer is incomplete, so it is not handed out as if it were whole.
    pub fn cut_short(&self, marker: &str) -> Error {
        api_error(
            &self.provider,
            LlmErrorKind::Connection,
            None,
            1,
            format!(
                "the stream ended before `{marker}` after {} bytes: the answer is incomplete",
                self.bytes
            ),
        )
    }
}

impl HttpClient {
    /// A client sending `headers` (API key, version) with every request.
    pub fn new(provider: &str, options: HttpOptions, headers: HeaderMap) -> Result<Self> {
        let client = reqwest::Client::builder()
            .connect_timeout(options.connect_timeout)
            .build()
            .map_err(|e| {
                api_error(
                    provider,
                    LlmErrorKind::Connection,
                    None,
                    0,
                    format!("cannot build the HTTP client: {e}"),
                )
            })?;
        Ok(Self {
            provider: provider.to_string(),
            client,
            options,
            headers,
            credentials: None,
        })
    }

    /// Sends these credentials (taken out of a `base_url`) as basic authentication.
    pub fn with_credentials(mut self, credentials: Option<UrlCredentials>) -> Self {
        self.credentials = credentials;
        self
    }

    /// POSTs `body` and returns the body of the first 2xx answer, retrying per the policy.
    pub async fn post_json(&self, url: &str, body: &serde_json::Value) -> Result<String> {
        self.with_retries(url, || async {
            let response = self.send(url, body, Some(self.options.timeout)).await?;
            response.text().await.map_err(|e| transport_failure(&e))
        })
        .await
    }

    /// POSTs `body` and returns the open stream of the first 2xx answer, retrying per the
    /// policy until the stream starts (a stream that breaks later is not resent: its text
    /// has already been handed out).
    ///
    /// A 2xx answer that is not `text/event-stream` (a JSON body from a proxy, an HTML page)
    /// is a [`LlmErrorKind::MalformedResponse`] error quoting the start of the body.
    pub async fn post_stream(&self, url: &str, body: &serde_json::Value) -> Result<Streaming> {
        let started = tokio::time::Instant::now();
        let response = self
            .with_retries(url, || async {
                let send = self.send(url, body, None);
                match tokio::time::timeout(self.options.timeout, send).await {
                    Ok(r) => r,
                    Err(_) => Err(timeout_failure(self.options.timeout)),
                }
            })
            .await?;
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
        if let Some(ct) = content_type.filter(|ct| !is_event_stream(ct)) {
            let text = match tokio::time::timeout(self.options.timeout, response.text()).await {
                Ok(Ok(text)) => truncate(&text, 200),
                _ => String::new(),
            };
            return Err(api_error(
                &self.provider,
                LlmErrorKind::MalformedResponse,
                None,
                1,
                format!("expected a text/event-stream body, got `{ct}`: {text} (POST {url})"),
            ));
        }
        Ok(Streaming {
            response,
            provider: self.provider.clone(),
            idle: self.options.stream_idle_timeout,
            deadline: started + self.options.stream_deadline,
            limit: self.options.stream_deadline,
            parser: SseParser::default(),
            done: false,
            bytes: 0,
        })
    }

    async fn with_retries<T, F, Fut>(&self, url: &str, attempt_once: F) -> Result<T>
    where
        F: Fn() -> Fut,
        Fut: std::future::Future<Output = std::result::Result<T, Failure>>,
    {
        let policy = &self.options.retry;
        let mut attempts = 0;
        loop {
            attempts += 1;
            let failure = match attempt_once().await {
                Ok(v) => return Ok(v),
                Err(f) => f,
            };
            let retries_used = attempts - 1;
            let give_up = |f: Failure| Error::LlmApi {
                provider: self.provider.clone(),
                kind: f.kind,
                status: f.status,
                retry_after: f.retry_after,
                attempts,
                message: format!("{} (POST {url})", f.message),
            };
            if !failure.kind.is_retryable() || retries_used >= policy.max_retries {
                return Err(give_up(failure));
            }
            let delay = match failure.retry_after {
                Some(wait) if wait > policy.max_retry_after => return Err(give_up(failure)),
                Some(wait) => wait,
                None => policy.backoff(retries_used),
            };
            tracing::warn!(
                provider = %self.provider, kind = %failure.kind, status = ?failure.status,
                delay_ms = delay.as_millis() as u64, attempt = attempts,
                "llm call failed, retrying: {}", failure.message
            );
            tokio::time::sleep(delay).await;
        }
    }

    async fn send(
        &self,
        url: &str,
        body: &serde_json::Value,
        timeout: Option<Duration>,
    ) -> std::result::Result<reqwest::Response, Failure> {
        let mut request = self
            .client
            .post(url)
            .headers(self.headers.clone())
            .json(body);
        if let Some(t) = timeout {
            request = request.timeout(t);
        }
        if let Some(c) = &self.credentials {
            request = request.basic_auth(&c.user, c.password.as_ref());
        }
        let response = request.send().await.map_err(|e| transport_failure(&e))?;
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let retry_after = retry_after(response.headers());
        let text = response.text().await.unwrap_or_default();
        let kind = match status.as_u16() {
            401 | 403 => LlmErrorKind::Auth,
            408 => LlmErrorKind::Timeout,
            429 => LlmErrorKind::RateLimited,
            s if s >= 500 => LlmErrorKind::Server,
            _ => LlmErrorKind::BadRequest,
        };
        Err(Failure {
            kind,
            status: Some(status.as_u16()),
            retry_after,
            message: provider_message(&text),
        })
    }
}

fn is_event_stream(content_type: &str) -> bool {
    content_type
        .split(';')
        .next()
        .is_some_and(|t| t.trim().eq_ignore_ascii_case("text/event-stream"))
}

fn transport_failure(e: &reqwest::Error) -> Failure {
    let kind = if e.is_timeout() {
        LlmErrorKind::Timeout
    } else {
        LlmErrorKind::Connection
    };
    Failure {
        kind,
        status: None,
        retry_after: None,
        message: error_chain(e),
    }
}

fn timeout_failure(limit: Duration) -> Failure {
    Failure {
        kind: LlmErrorKind::Timeout,
        status: None,
        retry_after: None,
        message: format!("no response within {limit:?}"),
    }
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        out.push_str(": ");
        out.push_str(&s.to_string());
        source = s.source();
    }
    out
}

/// The `error.message` both APIs put in error bodies, else the start of the body.
fn provider_message(body: &str) -> String {
    serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .and_then(|v| {
            let err = v.get("error")?;
            let msg = err.get("message").and_then(|m| m.as_str());
            let ty = err.get("type").and_then(|t| t.as_str());
            Some(match (ty, msg) {
                (Some(t), Some(m)) => format!("{t}: {m}"),
                (None, Some(m)) => m.to_string(),
                _ => err.to_string(),
            })
        })
        .unwrap_or_else(|| truncate(body, 300))
}

pub(crate) fn truncate(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// `retry-after-ms` (OpenAI) or `retry-after` in seconds or as an HTTP date.
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let text = |v: &HeaderValue| v.to_str().ok().map(str::trim).map(str::to_string);
    if let Some(ms) = headers.get("retry-after-ms").and_then(text) {
        if let Ok(ms) = ms.parse::<f64>() {
            return Duration::try_from_secs_f64(ms / 1000.0).ok();
        }
    }
    let value = headers.get(RETRY_AFTER).and_then(text)?;
    if let Ok(secs) = value.parse::<f64>() {
        return Duration::try_from_secs_f64(secs).ok();
    }
    let when = chrono::DateTime::parse_from_rfc2822(&value).ok()?;
    let wait = when.with_timezone(&chrono::Utc) - chrono::Utc::now();
    Some(wait.to_std().unwrap_or(Duration::ZERO))
}

pub(crate) fn api_error(
    provider: &str,
    kind: LlmErrorKind,
    status: Option<u16>,
    attempts: u32,
    message: String,
) -> Error {
    Error::LlmApi {
        provider: provider.to_string(),
        kind,
        status,
        retry_after: None,
        attempts,
        message,
    }
}

/// Parses a provider's success body, turning a shape mismatch into a
/// [`LlmErrorKind::MalformedResponse`] that quotes the start of the body.
pub(crate) fn parse_body<T: serde::de::DeserializeOwned>(provider: &str, body: &str) -> Result<T> {
    let de = &mut serde_json::Deserializer::from_str(body);
    serde_path_to_error::deserialize(de).map_err(|e| {
        api_error(
            provider,
            LlmErrorKind::MalformedResponse,
            None,
            1,
            format!(
                "at `{}`: {} in body {}",
                e.path(),
                e.inner(),
                truncate(body, 200)
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_key_debug_is_redacted() {
        let key = ApiKey::new("sk-ant-secret-123");
        let shown = format!("{key:?}");
        assert!(!shown.contains("secret"), "{shown}");
        assert_eq!(key.expose(), "sk-ant-secret-123");
    }

    #[test]
    fn missing_env_key_names_the_variable() {
        let err = ApiKey::from_env("NAVIGATOR_TEST_SURELY_UNSET_KEY").unwrap_err();
        assert_eq!(err.field(), Some("NAVIGATOR_TEST_SURELY_UNSET_KEY"));
    }

    #[test]
    fn backoff_doubles_within_jitter_bounds_and_is_capped() {
        let p = RetryPolicy {
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(1000),
            ..RetryPolicy::default()
        };
        for (retry, full) in [
            (0, 100),
            (1, 200),
            (2, 400),
            (3, 800),
            (4, 1000),
            (40, 1000),
        ] {
            for _ in 0..50 {
                let d = p.backoff(retry).as_millis() as u64;
                assert!(d >= full / 2 && d <= full, "retry {retry}: {d} ms");
            }
        }
    }

    #[test]
    fn retry_after_reads_ms_seconds_and_http_dates() {
        let mut h = HeaderMap::new();
        h.insert(RETRY_AFTER, HeaderValue::from_static("7"));
        assert_eq!(retry_after(&h), Some(Duration::from_secs(7)));
        h.insert("retry-after-ms", HeaderValue::from_static("1500"));
        assert_eq!(retry_after(&h), Some(Duration::from_millis(1500)));

        let mut h = HeaderMap::new();
        let past = "Wed, 21 Oct 2015 07:28:00 GMT";
        h.insert(RETRY_AFTER, HeaderValue::from_static(past));
        assert_eq!(retry_after(&h), Some(Duration::ZERO));
        h.insert(RETRY_AFTER, HeaderValue::from_static("soon"));
        assert_eq!(retry_after(&h), None);
    }

    #[test]
    fn provider_message_prefers_the_json_error() {
        let anthropic =
            r#"{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}"#;
        assert_eq!(provider_message(anthropic), "rate_limit_error: slow down");
        assert_eq!(
            provider_message("<html>bad gateway</html>"),
            "<html>bad gateway</html>"
        );
    }
}
