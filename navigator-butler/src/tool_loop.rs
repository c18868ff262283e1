//! The tool-use loop: send the conversation with the tool definitions, run the calls the model
//! makes through the [`ToolCatalog`] gate (schema, approval), hand the results back, and repeat
//! until the model answers in text or a limit stops it.
//!
//! Limits hold across the whole loop, checked **before** each model call: a step limit (model
//! calls), a token budget (tokens spent plus the next call's conservative projection: its input
//! upper bound and its output cap) and a USD budget (the same projection priced with the
//! [`PricingTable`]). A loop that stops on a limit still returns everything its tools found, so
//! the reply is built from real results, never from nothing.
//!
//! A failed call is not the end: its error (bad arguments with every schema violation, a
//! refused approval, the tool's own failure) goes back to the model as an error result, and the
//! model may correct itself on the next step. Results are cut to
//! [`LoopLimits::max_result_chars`] so one large result cannot eat the budget.

use super::tools::{Source, ToolCatalog};
use super::{ButlerError, Result};
use navigator_core::{
    ChatRequest, ChatResponse, Llm, Message, PricingTable, SystemBlock, TokenCounter, ToolCall,
    ToolResult, Usage,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::Arc;

/// Where a loop must stop.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoopLimits {
    /// Model calls at most (each may make several tool calls).
    pub max_steps: u32,
    /// Tokens (input, cached or not, plus output) at most over the loop.
    pub max_tokens: Option<u64>,
    /// USD at most over the loop (needs a price for the model).
    pub max_usd: Option<f64>,
    /// The output cap of each model call.
    pub max_output_tokens: u32,
    /// The longest tool result handed back to the model, in characters.
    pub max_result_chars: usize,
}

impl Default for LoopLimits {
    /// Six steps, no token or USD budget, 1,024 output tokens a call, results cut at 12,000
    /// characters (about 3,000 tokens).
    fn default() -> Self {
        Self {
            max_steps: 6,
            max_tokens: None,
            max_usd: None,
            max_output_tokens: 1024,
            max_result_chars: 12_000,
        }
    }
}

impl LoopLimits {
    /// Checks the limits make sense: at least one step, positive caps, a finite USD amount.
    pub fn validate(&self) -> Result<()> {
        if self.max_steps == 0 {
            return Err(ButlerError::invalid("maxSteps", "must be at least 1"));
        }
        if self.max_output_tokens == 0 || self.max_result_chars == 0 {
            return Err(ButlerError::invalid(
                "maxOutputTokens",
                "output and result caps must be positive",
            ));
        }
        if let Some(usd) = self.max_usd {
            if !(usd.is_finite() && usd >= 0.0) {
                return Err(ButlerError::invalid(
                    "maxUsd",
                    format!("must be a non-negative amount, got {usd}"),
                ));
            }
        }
        Ok(())
    }
}

/// How one tool call went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CallStatus {
    /// It ran and returned a result.
    Ok,
    /// The model named a tool the catalog does not hold.
    UnknownTool,
    /// The arguments broke the tool's schema; it did not run.
    InvalidArguments,
    /// A write or destructive tool was not approved; it did not run.
    NotApproved,
    /// It ran and failed.
    Failed,
}

/// One tool call of a loop.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExecutedCall {
    /// The loop step (model call, from 1) that made it.
    pub step: u32,
    /// The tool.
    pub tool: String,
    /// The arguments as the model wrote them.
    pub arguments: Value,
    /// How it went.
    pub status: CallStatus,
    /// The error shown to the model, when it did not go well.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// What the result cites.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<Source>,
}

/// Why a loop ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LoopStop {
    /// The model answered in text.
    Answered,
    /// [`LoopLimits::max_steps`] model calls were made and the last one still called tools.
    StepLimit,
    /// The next call could pass [`LoopLimits::max_tokens`].
    TokenBudget,
    /// The next call could pass [`LoopLimits::max_usd`].
    UsdBudget,
}

/// What a loop did.
#[derive(Debug, Clone, PartialEq)]
pub struct LoopOutcome {
    /// The model's final text (empty when a limit stopped the loop first).
    pub text: String,
    /// Every tool call, in order.
    pub calls: Vec<ExecutedCall>,
    /// The sources of the successful calls, first mention first, without repeats.
    pub sources: Vec<Source>,
    /// The last successful result of each tool, in call order (what a reply can quote when
    /// the model gave no text).
    pub results: Vec<(String, Value)>,
    /// Tokens over every model call of the loop.
    pub usage: Usage,
    /// USD over every model call (0 when the model has no price).
    pub usd: f64,
    /// Model calls made.
    pub steps: u32,
    /// Why it ended.
    pub stop: LoopStop,
    /// The messages the loop added after the ones it was given (tool calls and results,
    /// the final answer).
    pub transcript: Vec<Message>,
}

/// Runs the tool-use loop of one model over one catalog.
///
/// ```
/// use navigator_butler::{LoopLimits, LoopStop, ToolCatalog, ToolLoop};
/// use navigator_core::{Message, ScriptedLlm};
/// use std::sync::Arc;
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let llm = Arc::new(ScriptedLlm::from_texts("m", ["Nothing to look up: hello!"]));
/// let out = ToolLoop::new(llm, ToolCatalog::new())
///     .run(Vec::new(), vec![Message::user("hi")])
///     .await?;
/// assert_eq!((out.stop, out.steps, out.text.as_str()), (LoopStop::Answered, 1, "Nothing to look up: hello!"));
/// # Ok::<(), navigator_butler::ButlerError>(()) }).unwrap();
/// ```
#[derive(Clone)]
pub struct ToolLoop {
    llm: Arc<dyn Llm>,
    tools: ToolCatalog,
    limits: LoopLimits,
    pricing: Arc<PricingTable>,
}

impl std::fmt::Debug for ToolLoop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolLoop")
            .field("model", &self.llm.model())
            .field("tools", &self.tools)
            .field("limits", &self.limits)
            .finish()
    }
}

impl ToolLoop {
    /// A loop with the default limits and list prices.
    pub fn new(llm: Arc<dyn Llm>, tools: ToolCatalog) -> Self {
        Self {
            llm,
            tools,
            limits: LoopLimits::default(),
            pricing: Arc::new(PricingTable::default()),
        }
    }

    /// Sets the limits.
    pub fn limits(mut self, limits: LoopLimits) -> Self {
        self.limits = limits;
        self
    }

    /// Prices calls with `pricing` (for the USD budget and the reported cost).
    pub fn pricing(mut self, pricing: PricingTable) -> Self {
        self.pricing = Arc::new(pricing);
        self
    }

    /// The catalog the loop offers.
    pub fn tools(&self) -> &ToolCatalog {
        &self.tools
    }

    /// Runs the loop from `messages` (the last is usually the user's request) under `system`.
    ///
    /// Errors are the model call's own (after the client's retries), an invalid configuration,
    /// or a USD budget for a model without a price; everything that goes wrong with a tool is
    /// an error *result* the model sees.
    pub async fn run(
        &self,
        system: Vec<SystemBlock>,
        messages: Vec<Message>,
    ) -> Result<LoopOutcome> {
        self.limits.validate()?;
        self.tools.check()?;
        let counter = TokenCounter::for_provider(self.llm.provider());
        let mut request = ChatRequest {
            system,
            messages,
            max_tokens: self.limits.max_output_tokens,
            tools: self.tools.definitions(),
            ..ChatRequest::default()
        };
        let given = request.messages.len();
        let mut out = LoopOutcome {
            text: String::new(),
            calls: Vec::new(),
            sources: Vec::new(),
            results: Vec::new(),
            usage: Usage::default(),
            usd: 0.0,
            steps: 0,
            stop: LoopStop::StepLimit,
            transcript: Vec::new(),
        };
        loop {
            if out.steps >= self.limits.max_steps {
                out.stop = LoopStop::StepLimit;
                break;
            }
            if let Some(stop) = self.over_budget(&counter, &request, &out)? {
                out.stop = stop;
                break;
            }
            let response = self.llm.chat(&request).await?;
            out.steps += 1;
            out.usage += response.usage;
            out.usd += self
                .pricing
                .cost(self.llm.model(), &response.usage)
                .unwrap_or(0.0);
            let ChatResponse {
                text,
                tool_calls: calls,
                ..
            } = response;
            if calls.is_empty() {
                out.text = text.trim().to_string();
                request.messages.push(Message::assistant(text));
                out.stop = LoopStop::Answered;
                break;
            }
            // Arguments that are not an object (invalid JSON kept as a string) go back as `{}`:
            // Anthropic rejects a `tool_use` whose input is not an object, and the error result
            // quotes what the model wrote.
            let echoed = calls
                .iter()
                .map(|c| ToolCall {
                    arguments: match c.arguments.is_object() {
                        true => c.arguments.clone(),
                        false => Value::Object(Default::default()),
                    },
                    ..c.clone()
                })
                .collect();
            request.messages.push(Message::tool_use(text, echoed));
            let mut results = Vec::with_capacity(calls.len());
            for call in calls {
                results.push(self.execute(out.steps, call, &mut out).await);
            }
            request.messages.push(Message::tool_results(results));
        }
        out.transcript = request.messages.split_off(given);
        Ok(out)
    }

    /// The stop a limit imposes before the next call, if any.
    fn over_budget(
        &self,
        counter: &TokenCounter,
        request: &ChatRequest,
        out: &LoopOutcome,
    ) -> Result<Option<LoopStop>> {
        let input = counter.input_upper_bound(request);
        let output = u64::from(request.max_tokens);
        if let Some(max) = self.limits.max_tokens {
            let spent = out.usage.total_input() + out.usage.output_tokens;
            if spent + input + output > max {
                return Ok(Some(LoopStop::TokenBudget));
            }
        }
        if let Some(max) = self.limits.max_usd {
            let price = self.pricing.get(self.llm.model())?;
            let next = (input as f64 * price.max_input_per_mtok()
                + output as f64 * price.output_per_mtok)
                / 1_000_000.0;
            if out.usd + next > max {
                return Ok(Some(LoopStop::UsdBudget));
            }
        }
        Ok(None)
    }

    async fn execute(&self, step: u32, call: ToolCall, out: &mut LoopOutcome) -> ToolResult {
        let (status, content, error) =
            match self.tools.call(&call.name, call.arguments.clone()).await {
                Ok(result) => {
                    for s in &result.sources {
                        if !out.sources.contains(s) {
                            out.sources.push(s.clone());
                        }
                    }
                    out.results.retain(|(t, _)| t != &call.name);
                    out.results
                        .push((call.name.clone(), result.content.clone()));
                    let text = cut(
                        &serde_json::to_string(&result.content).unwrap_or_default(),
                        self.limits.max_result_chars,
                    );
                    out.calls.push(ExecutedCall {
                        step,
                        tool: call.name.clone(),
                        arguments: call.arguments.clone(),
                        status: CallStatus::Ok,
                        error: None,
                        sources: result.sources,
                    });
                    return ToolResult {
                        call_id: call.id,
                        content: text,
                        is_error: false,
                    };
                }
                Err(e) => {
                    let status = match &e {
                        ButlerError::UnknownTool(_) => CallStatus::UnknownTool,
                        ButlerError::InvalidArguments { .. } => CallStatus::InvalidArguments,
                        ButlerError::NotApproved { .. } => CallStatus::NotApproved,
                        _ => CallStatus::Failed,
                    };
                    let message = e.to_string();
                    (status, message.clone(), Some(message))
                }
            };
        tracing::debug!(tool = %call.name, ?status, "tool call did not succeed");
        out.calls.push(ExecutedCall {
            step,
            tool: call.name,
            arguments: call.arguments,
            status,
            error,
            sources: Vec::new(),
        });
        ToolResult {
            call_id: call.id,
            content,
            is_error: true,
        }
    }
}

/// `text` cut to at most `max` characters, saying how much was cut.
fn cut(text: &str, max: usize) -> String {
    let total = text.chars().count();
    if total <= max {
        return text.to_string();
    }
    let kept: String = text.chars().take(max).collect();
    format!("{kept}… [cut: {} of {total} characters shown]", max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::{Permission, Tool, ToolOutput, ToolSpec};
    use async_trait::async_trait;
    use navigator_core::{Interaction, Pricing, ScriptedLlm};
    use serde_json::json;

    /// Adds two numbers; cites them.
    struct Add(ToolSpec);

    #[async_trait]
    impl Tool for Add {
        fn spec(&self) -> &ToolSpec {
            &self.0
        }
        async fn call(&self, a: Value) -> Result<ToolOutput> {
            let sum = a["a"].as_i64().unwrap_or(0) + a["b"].as_i64().unwrap_or(0);
            Ok(
                ToolOutput::new(json!({ "sum": sum })).with_sources(vec![Source {
                    tool: "add".into(),
                    id: format!("{}+{}", a["a"], a["b"]),
                    title: "arithmetic".into(),
                }]),
            )
        }
    }

    fn catalog() -> ToolCatalog {
        ToolCatalog::new().with_tool(Arc::new(Add(ToolSpec {
            name: "add".into(),
            description: "adds a and b".into(),
            schema: json!({"type": "object", "required": ["a", "b"],
                "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                "additionalProperties": false}),
            permission: Permission::Read,
        })))
    }

    fn call(id: &str, args: Value) -> Interaction {
        Interaction::calls(vec![ToolCall {
            id: id.into(),
            name: "add".into(),
            arguments: args,
        }])
    }

    #[tokio::test]
    async fn calls_run_results_go_back_and_a_bad_call_is_corrected() {
        let llm = Arc::new(
            ScriptedLlm::from_texts("m", Vec::<String>::new())
                .with(call("c1", json!({"a": 2, "b": "three"})))
                .with(call("c2", json!({"a": 2, "b": 3})))
                .with(Interaction::text("2 + 3 = 5")),
        );
        let out = ToolLoop::new(llm.clone(), catalog())
            .run(
                vec![SystemBlock::cached("calc")],
                vec![Message::user("2+3?")],
            )
            .await
            .unwrap();
        assert_eq!(
            (out.stop, out.steps, out.text.as_str()),
            (LoopStop::Answered, 3, "2 + 3 = 5")
        );
        let statuses: Vec<_> = out.calls.iter().map(|c| c.status).collect();
        assert_eq!(statuses, [CallStatus::InvalidArguments, CallStatus::Ok]);
        assert!(
            out.calls[0].error.as_deref().unwrap().contains("/b"),
            "{:?}",
            out.calls[0]
        );
        assert_eq!(out.sources.len(), 1);
        assert_eq!(out.results, [("add".to_string(), json!({"sum": 5}))]);
        let requests = llm.requests();
        assert_eq!(requests.len(), 3);
        assert_eq!(requests[0].tools[0].name, "add");
        // The second request carries the first call and its error result.
        let second = &requests[1].messages;
        assert_eq!(second[1].tool_calls[0].id, "c1");
        assert!(second[2].tool_results[0].is_error);
        let third = &requests[2].messages;
        assert_eq!(third[4].tool_results[0].content, r#"{"sum":5}"#);
        assert!(!third[4].tool_results[0].is_error);
        assert_eq!(out.transcript.len(), 5);
    }

    #[tokio::test]
    async fn the_step_limit_stops_a_model_that_keeps_calling() {
        let llm = Arc::new(
            ScriptedLlm::from_texts("m", Vec::<String>::new())
                .with(call("c", json!({"a": 1, "b": 1})).repeating()),
        );
        let limits = LoopLimits {
            max_steps: 3,
            ..LoopLimits::default()
        };
        let out = ToolLoop::new(llm.clone(), catalog())
            .limits(limits)
            .run(Vec::new(), vec![Message::user("loop")])
            .await
            .unwrap();
        assert_eq!(
            (out.stop, out.steps, out.calls.len()),
            (LoopStop::StepLimit, 3, 3)
        );
        assert_eq!(llm.requests().len(), 3);
        assert!(out.text.is_empty());
        assert_eq!(out.results, [("add".to_string(), json!({"sum": 2}))]);
    }

    #[tokio::test]
    async fn token_and_usd_budgets_stop_before_the_call_that_could_pass_them() {
        let usage = Usage {
            input_tokens: 400,
            output_tokens: 50,
            ..Usage::default()
        };
        let llm = || {
            Arc::new(
                ScriptedLlm::from_texts("priced", Vec::<String>::new()).with(
                    call("c", json!({"a": 1, "b": 1}))
                        .with_usage(usage)
                        .repeating(),
                ),
            )
        };
        // Each step projects its input bound plus a 100-token output cap.
        let limits = LoopLimits {
            max_tokens: Some(1_000),
            max_output_tokens: 100,
            ..LoopLimits::default()
        };
        let out = ToolLoop::new(llm(), catalog())
            .limits(limits)
            .run(Vec::new(), vec![Message::user("go")])
            .await
            .unwrap();
        assert_eq!(out.stop, LoopStop::TokenBudget);
        assert_eq!(out.steps, 2, "450 + 450 spent; a third could pass 1,000");
        assert!(out.usage.total_input() + out.usage.output_tokens <= 1_000);

        let mut pricing = PricingTable::empty();
        pricing.set("priced", Pricing::new(1_000.0, 1_000.0, 0.0, 0.0));
        let limits = LoopLimits {
            max_usd: Some(1.0),
            max_output_tokens: 100,
            ..LoopLimits::default()
        };
        let out = ToolLoop::new(llm(), catalog())
            .limits(limits)
            .pricing(pricing)
            .run(Vec::new(), vec![Message::user("go")])
            .await
            .unwrap();
        assert_eq!((out.stop, out.steps), (LoopStop::UsdBudget, 2));
        assert!((out.usd - 0.9).abs() < 1e-9, "{}", out.usd);

        let unpriced = ToolLoop::new(llm(), catalog())
            .limits(limits)
            .pricing(PricingTable::empty());
        let err = unpriced
            .run(Vec::new(), vec![Message::user("go")])
            .await
            .unwrap_err();
        assert!(err.to_string().contains("priced"), "{err}");
    }

    #[tokio::test]
    async fn long_results_are_cut_and_unknown_tools_are_error_results() {
        let llm = Arc::new(
            ScriptedLlm::from_texts("m", Vec::<String>::new())
                .with(Interaction::calls(vec![ToolCall {
                    id: "x".into(),
                    name: "delete_everything".into(),
                    arguments: json!({}),
                }]))
                .with(Interaction::text("I cannot do that.")),
        );
        let out = ToolLoop::new(llm.clone(), catalog())
            .run(Vec::new(), vec![Message::user("go")])
            .await
            .unwrap();
        assert_eq!(out.calls[0].status, CallStatus::UnknownTool);
        let result = &llm.requests()[1].messages[2].tool_results[0];
        assert!(result.is_error && result.content.contains("delete_everything"));
        assert_eq!(cut("abcdef", 3), "abc… [cut: 3 of 6 characters shown]");
        assert_eq!(cut("abc", 3), "abc");
    }
}
