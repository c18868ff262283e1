//! Cost accounting: token counts, a conservative projection of the next call, and a tracker
//! that sums what calls cost and refuses calls that could break a budget.
//!
//! The projection is deliberately pessimistic, because budget checks stop *before* spending
//! and may only err on the safe side: the prompt is counted with tiktoken's `o200k_base`
//! (OpenAI's own tokenizer for its current models), multiplied by a margin for providers whose
//! tokenizer differs (Claude's splits English and code into ~10–30 % more tokens), plus a
//! per-message framing allowance; every input token is priced at the dearest input rate (a
//! cache write for Anthropic) and the output is assumed to run to the request's `max_tokens`.

use super::{ChatRequest, ChatResponse, Llm, PricingTable, ResponseFormat, Usage};
use crate::{Error, Result};
use async_trait::async_trait;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

/// The longest run of one character class [`TokenCounter::count`] hands the tokenizer in one
/// piece (tiktoken's merge is quadratic in a piece's length).
pub const MAX_BPE_RUN: usize = 512;
/// Tokens allowed per message or system block for role markers and separators.
const FRAMING_PER_PART: u64 = 8;
/// Tokens allowed per request for priming and the reply's start.
const FRAMING_PER_REQUEST: u64 = 16;

/// Counts prompt tokens and bounds them from above.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TokenCounter {
    margin: f64,
}

impl TokenCounter {
    /// The counter for a provider: margin 1.0 for `openai` (tiktoken is its tokenizer),
    /// 1.5 for everyone else.
    pub fn for_provider(provider: &str) -> Self {
        Self {
            margin: if provider == "openai" { 1.0 } else { 1.5 },
        }
    }

    /// A counter multiplying tiktoken counts by `margin`, which must be finite and ≥ 1.
    pub fn with_margin(margin: f64) -> Result<Self> {
        if !(margin.is_finite() && margin >= 1.0) {
            return Err(Error::invalid(
                "margin",
                format!("must be a finite number >= 1.0, got {margin}"),
            ));
        }
        Ok(Self { margin })
    }

    /// The `o200k_base` token count of `text`, linear in its length: runs of one character
    /// class longer than [`MAX_BPE_RUN`] characters are counted in pieces
    /// ([`bpe_pieces`](crate::text::bpe_pieces)), which moves the count by at most a token or
    /// two per cut and leaves ordinary text's count exact.
    pub fn count(&self, text: &str) -> u64 {
        let bpe = tiktoken_rs::o200k_base_singleton();
        crate::text::bpe_pieces(text, MAX_BPE_RUN)
            .map(|piece| bpe.encode_with_special_tokens(piece).len() as u64)
            .sum()
    }

    /// An upper bound of the input tokens `request` will be billed for.
    pub fn input_upper_bound(&self, request: &ChatRequest) -> u64 {
        let mut raw: u64 = request.system.iter().map(|b| self.count(&b.text)).sum();
        raw += request
            .messages
            .iter()
            .map(|m| self.count(&m.token_text()))
            .sum::<u64>();
        if let ResponseFormat::JsonSchema { schema, .. } = &request.response_format {
            raw += self.count(&schema.to_string());
        }
        raw += request
            .tools
            .iter()
            .map(|t| {
                self.count(&t.name)
                    + self.count(&t.description)
                    + self.count(&t.parameters.to_string())
            })
            .sum::<u64>();
        let parts = (request.system.len() + request.messages.len() + request.tools.len()) as u64;
        (raw as f64 * self.margin).ceil() as u64 + parts * FRAMING_PER_PART + FRAMING_PER_REQUEST
    }
}

/// What the next call may cost at most.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Projection {
    /// Upper bound of input tokens.
    pub input_tokens: u64,
    /// The output cap (`max_tokens`).
    pub output_tokens: u64,
    /// Upper bound of the cost in USD.
    pub usd: f64,
}

/// Calls, tokens and dollars spent on one model.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ModelSpend {
    /// Calls recorded.
    pub calls: u64,
    /// Tokens summed over the calls.
    pub usage: Usage,
    /// USD summed over the calls.
    pub usd: f64,
}

#[derive(Debug, Default)]
struct Ledger {
    per_model: BTreeMap<String, ModelSpend>,
    reserved_usd: f64,
}

/// Sums usage and cost per model and enforces an optional USD budget.
///
/// Cloning shares the ledger, so one tracker can watch every agent of a session.
///
/// ```
/// use navigator_core::{ChatRequest, CostTracker, PricingTable, Usage};
/// let tracker = CostTracker::new(PricingTable::default()).with_budget(0.05);
/// let spent = tracker.record("claude-haiku-4-5", &Usage { input_tokens: 2_000, output_tokens: 300, ..Usage::default() })?;
/// assert!((spent - 0.0035).abs() < 1e-12);
/// let next = tracker.project("anthropic", "claude-haiku-4-5", &ChatRequest::new("hello").with_max_tokens(500))?;
/// assert!(next.usd >= 500.0 * 5.0 / 1e6);
/// tracker.check(&next)?; // within budget
/// # Ok::<(), navigator_core::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct CostTracker {
    pricing: Arc<PricingTable>,
    budget_usd: Option<f64>,
    ledger: Arc<Mutex<Ledger>>,
}

impl CostTracker {
    /// A tracker pricing calls with `pricing`, no budget.
    pub fn new(pricing: PricingTable) -> Self {
        Self {
            pricing: Arc::new(pricing),
            budget_usd: None,
            ledger: Arc::default(),
        }
    }

    /// Sets a budget in USD: [`check`](Self::check) and [`TrackedLlm`] refuse calls whose
    /// projection would exceed it.
    pub fn with_budget(mut self, usd: f64) -> Self {
        self.budget_usd = Some(usd);
        self
    }

    /// The prices used.
    pub fn pricing(&self) -> &PricingTable {
        &self.pricing
    }

    fn ledger(&self) -> MutexGuard<'_, Ledger> {
        // A panic elsewhere while holding the lock leaves sums that are still valid numbers.
        self.ledger.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Records one call and returns its cost in USD.
    pub fn record(&self, model: &str, usage: &Usage) -> Result<f64> {
        let usd = self.pricing.cost(model, usage)?;
        let mut ledger = self.ledger();
        let entry = ledger.per_model.entry(model.to_string()).or_default();
        entry.calls += 1;
        entry.usage += *usage;
        entry.usd += usd;
        Ok(usd)
    }

    /// A conservative projection of sending `request` to `model` of `provider`.
    pub fn project(
        &self,
        provider: &str,
        model: &str,
        request: &ChatRequest,
    ) -> Result<Projection> {
        let price = self.pricing.get(model)?;
        let input_tokens = TokenCounter::for_provider(provider).input_upper_bound(request);
        let output_tokens = u64::from(request.max_tokens);
        let usd = (input_tokens as f64 * price.max_input_per_mtok()
            + output_tokens as f64 * price.output_per_mtok)
            / 1_000_000.0;
        Ok(Projection {
            input_tokens,
            output_tokens,
            usd,
        })
    }

    /// [`Error::BudgetExceeded`] if spending `projection` on top of what is spent (and
    /// reserved by calls in flight) would pass the budget.
    pub fn check(&self, projection: &Projection) -> Result<()> {
        let ledger = self.ledger();
        self.check_locked(&ledger, projection.usd)
    }

    fn check_locked(&self, ledger: &Ledger, projected_usd: f64) -> Result<()> {
        let Some(budget_usd) = self.budget_usd else {
            return Ok(());
        };
        let spent_usd = Self::spent(ledger) + ledger.reserved_usd;
        if spent_usd + projected_usd > budget_usd {
            return Err(Error::BudgetExceeded {
                budget_usd,
                spent_usd,
                projected_usd,
            });
        }
        Ok(())
    }

    /// Checks the budget and holds `usd` against it until the guard is dropped, so calls
    /// running at the same time cannot together overshoot.
    fn reserve(&self, usd: f64) -> Result<Reservation<'_>> {
        let mut ledger = self.ledger();
        self.check_locked(&ledger, usd)?;
        ledger.reserved_usd += usd;
        Ok(Reservation { tracker: self, usd })
    }

    fn spent(ledger: &Ledger) -> f64 {
        ledger.per_model.values().map(|s| s.usd).sum()
    }

    /// USD spent so far.
    pub fn total_usd(&self) -> f64 {
        Self::spent(&self.ledger())
    }

    /// Tokens used so far, all models.
    pub fn total_usage(&self) -> Usage {
        self.ledger()
            .per_model
            .values()
            .fold(Usage::default(), |acc, s| acc + s.usage)
    }

    /// Calls recorded so far.
    pub fn calls(&self) -> u64 {
        self.ledger().per_model.values().map(|s| s.calls).sum()
    }

    /// Spend per model.
    pub fn by_model(&self) -> BTreeMap<String, ModelSpend> {
        self.ledger().per_model.clone()
    }

    /// The budget, if one is set.
    pub fn budget_usd(&self) -> Option<f64> {
        self.budget_usd
    }

    /// Budget minus spend (negative when a call's real cost went over), if a budget is set.
    pub fn remaining_usd(&self) -> Option<f64> {
        self.budget_usd.map(|b| b - self.total_usd())
    }
}

struct Reservation<'a> {
    tracker: &'a CostTracker,
    usd: f64,
}

impl Drop for Reservation<'_> {
    fn drop(&mut self) {
        self.tracker.ledger().reserved_usd -= self.usd;
    }
}

/// An [`Llm`] that checks the budget before each call and records its cost after.
///
/// ```
/// use navigator_core::{ChatRequest, CostTracker, Llm, PricingTable, ScriptedLlm, TrackedLlm};
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let tracker = CostTracker::new(PricingTable::default()).with_budget(1.0);
/// let llm = TrackedLlm::new(ScriptedLlm::from_texts("claude-haiku-4-5", ["hi"]), tracker.clone());
/// llm.chat(&ChatRequest::new("hello")).await?;
/// assert_eq!(tracker.calls(), 1);
/// # Ok::<(), navigator_core::Error>(()) }).unwrap();
/// ```
#[derive(Debug)]
pub struct TrackedLlm<L> {
    inner: L,
    tracker: CostTracker,
}

impl<L: Llm> TrackedLlm<L> {
    /// Wraps `inner`, accounting into `tracker`.
    pub fn new(inner: L, tracker: CostTracker) -> Self {
        Self { inner, tracker }
    }

    /// The tracker.
    pub fn tracker(&self) -> &CostTracker {
        &self.tracker
    }

    fn settle(&self, response: &ChatResponse) -> Result<()> {
        self.tracker
            .record(self.inner.model(), &response.usage)
            .map(|_| ())
    }
}

#[async_trait]
impl<L: Llm> Llm for TrackedLlm<L> {
    fn provider(&self) -> &str {
        self.inner.provider()
    }

    fn model(&self) -> &str {
        self.inner.model()
    }

    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse> {
        let projection = self
            .tracker
            .project(self.provider(), self.model(), request)?;
        let _hold = self.tracker.reserve(projection.usd)?;
        let response = self.inner.chat(request).await?;
        self.settle(&response)?;
        Ok(response)
    }

    async fn chat_stream(
        &self,
        request: &ChatRequest,
        on_text: &mut (dyn for<'s> FnMut(&'s str) + Send),
    ) -> Result<ChatResponse> {
        let projection = self
            .tracker
            .project(self.provider(), self.model(), request)?;
        let _hold = self.tracker.reserve(projection.usd)?;
        let response = self.inner.chat_stream(request, on_text).await?;
        self.settle(&response)?;
        Ok(response)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SystemBlock;

    /// Defect 7 of the reliability audit, in the budget projection: a 200 KB line of dashes
    /// went to tiktoken as one piece, whose merge is quadratic (51 s). It is counted in pieces
    /// of at most `MAX_BPE_RUN` characters, each exactly, and prose stays exact.
    #[test]
    fn defect_7_a_200_kb_line_of_dashes_is_counted_piece_by_piece() {
        let c = TokenCounter::for_provider("openai");
        let bpe = tiktoken_rs::o200k_base_singleton();
        let exact = |t: &str| bpe.encode_with_special_tokens(t).len() as u64;
        let line = "-".repeat(200 * 1024);
        let pieces: Vec<&str> = crate::text::bpe_pieces(&line, MAX_BPE_RUN).collect();
        assert_eq!(pieces.len(), (200 * 1024usize).div_ceil(MAX_BPE_RUN));
        assert_eq!(c.count(&line), pieces.iter().map(|p| exact(p)).sum::<u64>());
        let prose = "The quick brown fox jumps over the lazy dog. ".repeat(50);
        assert_eq!(c.count(&prose), exact(&prose));
    }

    #[test]
    fn upper_bound_covers_the_exact_count_plus_framing() {
        let c = TokenCounter::for_provider("openai");
        let text = "The quick brown fox jumps over the lazy dog.";
        let exact = c.count(text);
        assert!((8..=12).contains(&exact), "{exact}");
        let req = ChatRequest::new(text).with_system(SystemBlock::cached(text));
        assert_eq!(
            c.input_upper_bound(&req),
            2 * exact + 2 * FRAMING_PER_PART + FRAMING_PER_REQUEST
        );
        let claude = TokenCounter::for_provider("anthropic").input_upper_bound(&req);
        assert!(claude as f64 >= 1.5 * (2 * exact) as f64);
    }

    #[test]
    fn margin_below_one_is_rejected_naming_it() {
        assert_eq!(
            TokenCounter::with_margin(0.9).unwrap_err().field(),
            Some("margin")
        );
        assert!(TokenCounter::with_margin(f64::NAN).is_err());
        assert!(TokenCounter::with_margin(1.2).is_ok());
    }

    #[test]
    fn projection_prices_input_at_the_dearest_rate_and_output_at_the_cap() {
        let t = CostTracker::new(PricingTable::default());
        let req = ChatRequest::new("hello there").with_max_tokens(1000);
        let p = t.project("anthropic", "claude-sonnet-4-5", &req).unwrap();
        let expected = (p.input_tokens as f64 * 3.75 + 1000.0 * 15.0) / 1e6;
        assert!((p.usd - expected).abs() < 1e-12);
        assert_eq!(p.output_tokens, 1000);
    }

    #[test]
    fn budget_counts_spend_and_reservations() {
        let t = CostTracker::new(PricingTable::default()).with_budget(0.01);
        let usage = Usage {
            output_tokens: 1000,
            ..Usage::default()
        }; // $0.005 on haiku 4.5
        t.record("claude-haiku-4-5", &usage).unwrap();
        let small = Projection {
            input_tokens: 0,
            output_tokens: 0,
            usd: 0.004,
        };
        t.check(&small).unwrap();
        let held = t.reserve(0.004).unwrap();
        let err = t.check(&small).unwrap_err();
        assert!(
            matches!(err, Error::BudgetExceeded { spent_usd, .. } if (spent_usd - 0.009).abs() < 1e-12)
        );
        drop(held);
        t.check(&small).unwrap();
        assert!((t.remaining_usd().unwrap() - 0.005).abs() < 1e-12);
    }

    #[test]
    fn per_model_sums_and_unknown_models_are_errors() {
        let t = CostTracker::new(PricingTable::default());
        let u = Usage {
            input_tokens: 10,
            output_tokens: 5,
            ..Usage::default()
        };
        t.record("gpt-4o-mini", &u).unwrap();
        t.record("gpt-4o-mini", &u).unwrap();
        t.record("claude-haiku-4-5", &u).unwrap();
        assert!(t.record("nope", &u).is_err());
        let by = t.by_model();
        assert_eq!(by["gpt-4o-mini"].calls, 2);
        assert_eq!(by["gpt-4o-mini"].usage.input_tokens, 20);
        assert_eq!(t.calls(), 3);
        assert_eq!(t.total_usage().output_tokens, 15);
    }
}
