//! [`LlmPolicy`]: a model decides each turn, answering with a JSON [`Action`] through
//! navigator-core's structured-output helper; every call is priced and projected first.

use crate::error::Result;
use crate::policy::{Action, Decision, Policy, TurnInput};
use async_trait::async_trait;
use navigator_core::{
    json_schema, ChatRequest, CostTracker, Extractor, Llm, PricingTable, SystemBlock, Usage,
};
use std::sync::Arc;

const INSTRUCTIONS: &str = "You are navigator, exploring a repository to build the best context window for a coding goal.
Each turn you see the goal, the token budget, the current map (rendered from a Flight Plan) and the log of your past decisions.
The map starts as a satellite view. Zoom in on what matters for the goal and out of what does not by setting verbosity rules:
- level 0 hidden, 1 path only, 2 top-level signatures, 3 all signatures + doc comments, 4 full source;
- `path` is a glob relative to the repository root (`src/auth/**`, `**/*.py`), an exact file path, or a directory ending in `/`;
- `collapse: true` folds the matched files into one line per directory with a file count;
- `focus` (levels 2 and 3) lists items by qualified name (`Class.method`, `Type::method`) to show at full source inside the file's outline: zoom into a file too big to show whole;
- `max_items` (levels 2 and 3) keeps a long outline to that many entries (those sharing a word with the goal first) and counts the rest;
- the most specific rule wins; a rule with the same path replaces the old one.
Give full source only to the few files the goal will touch, outlines to their neighbours, and collapse the rest.
The final context must fit the token budget; the lowest-value files are lowered automatically when it does not.
Answer with one JSON action: `update_flight_plan` with `changes` and `reasoning`, or `finalize_context` with `reasoning` when the map is good enough.";

/// A policy that asks an [`Llm`].
///
/// ```
/// use navigator_context::{LlmPolicy, Policy};
/// use navigator_core::{Pricing, PricingTable, ScriptedLlm};
/// let llm = ScriptedLlm::from_texts("m", [r#"{"action":"finalize_context","reasoning":"done"}"#]);
/// let mut prices = PricingTable::empty();
/// prices.set("m", Pricing::new(3.0, 15.0, 3.75, 0.3));
/// let policy = LlmPolicy::new(std::sync::Arc::new(llm), prices);
/// assert_eq!(policy.name(), "llm");
/// ```
pub struct LlmPolicy {
    llm: Arc<dyn Llm>,
    tracker: CostTracker,
    max_tokens: u32,
    retries: u32,
}

impl LlmPolicy {
    /// A policy over `llm`, priced with `pricing` (which must know the model).
    pub fn new(llm: Arc<dyn Llm>, pricing: PricingTable) -> Self {
        LlmPolicy {
            llm,
            tracker: CostTracker::new(pricing),
            max_tokens: 1024,
            retries: 2,
        }
    }

    /// Caps the answer length (and so the projected output cost).
    pub fn max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = max_tokens;
        self
    }

    /// Re-asks at most `n` times when an answer is not a valid action.
    pub fn retries(mut self, n: u32) -> Self {
        self.retries = n;
        self
    }

    fn request(&self, input: &TurnInput<'_>, correction: Option<&str>) -> ChatRequest {
        let mut prompt = input.prompt.to_string();
        if let Some(c) = correction {
            prompt.push_str(&format!("\n## Your previous answer was rejected\n{c}\nAnswer again with one valid JSON action.\n"));
        }
        ChatRequest::new(prompt)
            .with_system(SystemBlock::cached(INSTRUCTIONS))
            .with_max_tokens(self.max_tokens)
    }

    /// The projection of one call: the request plus the schema block the extractor adds,
    /// counted twice to cover its wording.
    fn project(&self, request: &ChatRequest) -> Result<f64> {
        let schema = serde_json::to_string_pretty(&json_schema::<Action>()).unwrap_or_default();
        let with_schema = request
            .clone()
            .with_system(SystemBlock::cached(format!("{schema}\n{schema}")));
        Ok(self
            .tracker
            .project(self.llm.provider(), self.llm.model(), &with_schema)?
            .usd)
    }
}

fn check(action: &Action) -> std::result::Result<(), String> {
    if let Action::UpdateFlightPlan { changes, .. } = action {
        if changes.is_empty() {
            return Err("update_flight_plan needs at least one change".into());
        }
        for c in changes {
            if c.level > 4 {
                return Err(format!(
                    "level {} of `{}` is not one of 0..=4",
                    c.level, c.path
                ));
            }
            crate::flight_plan::check_rule_path(&c.path)?;
            crate::flight_plan::compile_glob(&c.path)?;
            if c.max_items == Some(0) {
                return Err(format!("max_items of `{}` must be at least 1", c.path));
            }
        }
    }
    Ok(())
}

#[async_trait]
impl Policy for LlmPolicy {
    fn name(&self) -> &str {
        "llm"
    }

    fn projected_usd(&self, input: &TurnInput<'_>) -> Result<f64> {
        self.project(&self.request(input, None))
    }

    async fn decide(&mut self, input: &TurnInput<'_>) -> Result<Decision> {
        let mut usd = 0.0;
        let mut usage = Usage::default();
        let mut correction: Option<String> = None;
        let mut tries = 0;
        for attempt in 0..=self.retries {
            let request = self.request(input, correction.as_deref());
            let projected = self.project(&request)?;
            // The explorer checked the first attempt; re-asks are checked here.
            if attempt > 0 && input.usd_left.is_some_and(|left| usd + projected > left) {
                break;
            }
            tries += 1;
            let extractor = Extractor::<Action>::new().retries(0).validate(check);
            match extractor.extract(self.llm.as_ref(), request).await {
                Ok(got) => {
                    usd += self.tracker.record(self.llm.model(), &got.usage)?;
                    usage += got.usage;
                    return Ok(Decision {
                        action: got.value,
                        usage,
                        usd,
                        gave_up: None,
                    });
                }
                Err(navigator_core::Error::StructuredOutput {
                    message,
                    last_output,
                    ..
                }) => {
                    // The failed call's usage is not reported back: charge its projection,
                    // an upper bound, so the budget is never under-counted.
                    usd += projected;
                    correction = Some(format!("{message}\nYour answer was: {last_output}"));
                }
                Err(e) => return Err(e.into()),
            }
        }
        // Deliver what there is rather than fail the whole exploration; the cost stays counted.
        let why = correction.unwrap_or_else(|| "the budget left no room to re-ask".into());
        let why = format!(
            "the model gave no valid action in {tries} {}: {}",
            if tries == 1 { "try" } else { "tries" },
            why.lines().next().unwrap_or_default()
        );
        Ok(Decision {
            action: Action::FinalizeContext {
                reasoning: format!("{why}; the exploration stops with the current map"),
            },
            usage,
            usd,
            gave_up: Some(why),
        })
    }
}
