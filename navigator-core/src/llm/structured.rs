//! Structured output: ask for JSON matching a Rust type, parse and validate it, re-ask with the
//! error quoted, and give up with a typed error — never a panic, never silent garbage.
//!
//! The schema travels in the prompt (template `structured_output`, a cached system block) for
//! every provider, and additionally as `response_format` where the provider enforces it
//! ([`JsonMode`]). The answer is parsed leniently about its *framing* (code fences, prose or a
//! second value after the JSON, as small base models like to add) and strictly about its
//! *content*: serde against `T` (with the path of the offending field), then the caller's
//! validation hook for rules a schema cannot say (a confidence in [0, 1], a known agent name).

use super::{ChatRequest, Llm, Message, ResponseFormat, SystemBlock, Usage};
use crate::templates::{TemplateSet, Vars};
use crate::{from_value, json_schema, Error, Result};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::marker::PhantomData;
use std::sync::Arc;

/// How the JSON requirement is conveyed besides the prompt.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum JsonMode {
    /// Only the prompt (providers without JSON modes, e.g. Anthropic).
    PromptOnly,
    /// `response_format: json_object`.
    JsonObject,
    /// `response_format: json_schema` with the schema (grammar-enforced on llama.cpp / vLLM).
    #[default]
    JsonSchema,
}

type Validator<T> = Arc<dyn Fn(&T) -> std::result::Result<(), String> + Send + Sync>;

/// Extracts a `T` from a model's answer.
///
/// ```
/// use navigator_core::{ChatRequest, Extractor, ScriptedLlm};
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Intent { intent: String, confidence: f64 }
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let llm = ScriptedLlm::from_texts("m", [
///     r#"{"intent": "greeting", "confidence": 7}"#,          // fails the hook: re-asked
///     r#"```json
/// {"intent": "greeting", "confidence": 0.9}
/// ```"#,
/// ]);
/// let got = Extractor::<Intent>::new()
///     .validate(|i| if (0.0..=1.0).contains(&i.confidence) { Ok(()) }
///                   else { Err(format!("confidence {} is outside [0, 1]", i.confidence)) })
///     .extract(&llm, ChatRequest::new("Classify: hello"))
///     .await?;
/// assert_eq!((got.value.intent.as_str(), got.attempts), ("greeting", 2));
/// assert!(llm.requests()[1].messages[2].content.contains("outside [0, 1]"));
/// # Ok::<(), navigator_core::Error>(()) }).unwrap();
/// ```
pub struct Extractor<T> {
    max_retries: u32,
    mode: JsonMode,
    validator: Option<Validator<T>>,
    templates: TemplateSet,
    _type: PhantomData<fn() -> T>,
}

impl<T> std::fmt::Debug for Extractor<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Extractor")
            .field("type", &std::any::type_name::<T>())
            .field("max_retries", &self.max_retries)
            .field("mode", &self.mode)
            .field("validator", &self.validator.is_some())
            .finish()
    }
}

impl<T> Clone for Extractor<T> {
    fn clone(&self) -> Self {
        Self {
            max_retries: self.max_retries,
            mode: self.mode,
            validator: self.validator.clone(),
            templates: self.templates.clone(),
            _type: PhantomData,
        }
    }
}

/// A successfully extracted value.
#[derive(Debug, Clone, PartialEq)]
pub struct Extracted<T> {
    /// The value.
    pub value: T,
    /// Tokens over all attempts.
    pub usage: Usage,
    /// Attempts made (1 = right the first time).
    pub attempts: u32,
    /// The answer the value came from.
    pub raw: String,
}

impl<T: JsonSchema + DeserializeOwned> Default for Extractor<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: JsonSchema + DeserializeOwned> Extractor<T> {
    /// Two re-asks, schema as `response_format` too, core's prompt templates.
    pub fn new() -> Self {
        Self {
            max_retries: 2,
            mode: JsonMode::default(),
            validator: None,
            templates: TemplateSet::new(),
            _type: PhantomData,
        }
    }

    /// Re-asks at most `n` times after the first answer.
    pub fn retries(mut self, n: u32) -> Self {
        self.max_retries = n;
        self
    }

    /// Sets how JSON is requested besides the prompt.
    pub fn mode(mut self, mode: JsonMode) -> Self {
        self.mode = mode;
        self
    }

    /// Adds a check run on each parsed value; its `Err` text is quoted to the model.
    pub fn validate(
        mut self,
        check: impl Fn(&T) -> std::result::Result<(), String> + Send + Sync + 'static,
    ) -> Self {
        self.validator = Some(Arc::new(check));
        self
    }

    /// Takes the `structured_output` / `structured_output_retry` prompts from `templates`
    /// (to reword them for a model).
    pub fn templates(mut self, templates: TemplateSet) -> Self {
        self.templates = templates;
        self
    }

    /// Sends `request` with the schema added and returns the first valid `T`.
    ///
    /// Provider failures are returned as they come (the clients already retried them);
    /// answers that stay invalid end in [`Error::StructuredOutput`] with the last error and
    /// answer.
    pub async fn extract(&self, llm: &dyn Llm, request: ChatRequest) -> Result<Extracted<T>> {
        let type_name = type_name::<T>();
        let schema = json_schema::<T>();
        let pretty = serde_json::to_string_pretty(&schema).unwrap_or_else(|_| schema.to_string());
        let instruction = self.templates.render(
            "structured_output",
            &Vars::new()
                .set("type_name", &type_name)
                .set("schema", pretty),
        )?;
        // The schema is as static as the persona: it joins the leading run of cached blocks
        // (before any per-session block), so the cached prefix covers it on every turn.
        let mut request = request;
        let at = request.system.iter().take_while(|b| b.cache).count();
        request.system.insert(at, SystemBlock::cached(instruction));
        request.response_format = match self.mode {
            JsonMode::PromptOnly => ResponseFormat::Text,
            JsonMode::JsonObject => ResponseFormat::JsonObject,
            JsonMode::JsonSchema => ResponseFormat::JsonSchema {
                name: schema_name(&type_name),
                schema,
            },
        };
        let mut usage = Usage::default();
        let attempts = self.max_retries + 1;
        let mut last = (String::new(), String::new());
        for attempt in 1..=attempts {
            let response = llm.chat(&request).await?;
            usage += response.usage;
            match self.check(&response.text) {
                Ok(value) => {
                    return Ok(Extracted {
                        value,
                        usage,
                        attempts: attempt,
                        raw: response.text,
                    })
                }
                Err(problem) => {
                    tracing::debug!(attempt, %problem, "structured output rejected");
                    if attempt < attempts {
                        let retry = self.templates.render(
                            "structured_output_retry",
                            &Vars::new()
                                .set("type_name", &type_name)
                                .set("error", &problem),
                        )?;
                        request
                            .messages
                            .push(Message::assistant(response.text.clone()));
                        request.messages.push(Message::user(retry));
                    }
                    last = (problem, response.text);
                }
            }
        }
        Err(Error::StructuredOutput {
            type_name: short_type_name::<T>(),
            attempts,
            message: last.0,
            last_output: last.1,
            usage,
        })
    }

    fn check(&self, text: &str) -> std::result::Result<T, String> {
        let value = find_json(text)?;
        let parsed: T = from_value(value).map_err(|e| match e {
            Error::Parse { path, message, .. } => format!("at `{path}`: {message}"),
            other => other.to_string(),
        })?;
        if let Some(validate) = &self.validator {
            validate(&parsed)?;
        }
        Ok(parsed)
    }
}

/// The first JSON object or array in `text`, ignoring fences and text around it.
fn find_json(text: &str) -> std::result::Result<Value, String> {
    let trimmed = text.trim();
    if let Ok(v) = serde_json::from_str::<Value>(trimmed) {
        return Ok(v);
    }
    let start = trimmed
        .find(['{', '['])
        .ok_or_else(|| format!("the answer contains no JSON object: {}", preview(trimmed)))?;
    let mut values = serde_json::Deserializer::from_str(&trimmed[start..]).into_iter::<Value>();
    match values.next() {
        Some(Ok(v)) => Ok(v),
        Some(Err(e)) => Err(format!("the JSON is malformed: {e}")),
        None => Err("the answer contains no JSON value".into()),
    }
}

/// The start of `s`, for messages.
pub(crate) fn preview(s: &str) -> String {
    match s.char_indices().nth(120) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

fn type_name<T: JsonSchema>() -> String {
    T::schema_name().into_owned()
}

fn short_type_name<T>() -> &'static str {
    let full = std::any::type_name::<T>();
    let base = full.split('<').next().unwrap_or(full);
    base.rsplit("::").next().unwrap_or(base)
}

/// OpenAI requires `^[a-zA-Z0-9_-]{1,64}$` for schema names.
fn schema_name(type_name: &str) -> String {
    let name: String = type_name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    if name.is_empty() {
        "response".into()
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_final_failure_still_reports_the_tokens_every_attempt_spent() {
        use crate::{Interaction, ScriptedLlm};
        let spent = Usage {
            input_tokens: 100,
            output_tokens: 7,
            ..Usage::default()
        };
        let llm = ScriptedLlm::from_texts("m", Vec::<String>::new())
            .with(Interaction::text("not json").with_usage(spent).repeating());
        #[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
        struct T {
            _x: u32,
        }
        let err = Extractor::<T>::new()
            .retries(1)
            .extract(&llm, ChatRequest::new("q"))
            .await
            .unwrap_err();
        let Error::StructuredOutput {
            usage, attempts, ..
        } = err
        else {
            panic!("{err}")
        };
        assert_eq!((attempts, usage), (2, spent + spent));
    }

    #[test]
    fn finds_json_in_fences_prose_and_before_trailing_junk() {
        assert_eq!(find_json(" {\"a\":1} ").unwrap()["a"], 1);
        assert_eq!(find_json("```json\n{\"a\":2}\n```").unwrap()["a"], 2);
        assert_eq!(
            find_json("Sure! {\"a\":3} hope that helps {").unwrap()["a"],
            3
        );
        assert_eq!(find_json("[1,2]").unwrap()[1], 2);
        assert!(find_json("no json here")
            .unwrap_err()
            .contains("no JSON object"));
        assert!(find_json("{\"a\": ").unwrap_err().contains("malformed"));
    }

    #[test]
    fn schema_names_are_sanitised_for_openai() {
        assert_eq!(schema_name("Vec<Intent>"), "Vec_Intent_");
        assert_eq!(schema_name(""), "response");
        assert_eq!(schema_name(&"x".repeat(100)).len(), 64);
    }

    #[test]
    fn short_type_name_drops_paths_and_generics() {
        assert_eq!(short_type_name::<Vec<u8>>(), "Vec");
        assert_eq!(short_type_name::<crate::SearchRequest>(), "SearchRequest");
    }
}
