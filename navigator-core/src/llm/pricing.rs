//! Prices per model, in USD per million tokens.
//!
//! The defaults are the providers' list prices for standard (non-batch) calls; Anthropic's
//! cache write is the 5-minute cache (1.25 × input), its cache read 0.1 × input; OpenAI bills
//! no cache writes and reads at its "cached input" price. Prices change: edit the table
//! ([`PricingTable::set`]) rather than trusting these for billing.

use super::Usage;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The date the default prices were taken from the providers' pricing pages.
// Anthropic: https://docs.anthropic.com/en/docs/about-claude/pricing
// OpenAI:    https://platform.openai.com/docs/pricing
pub const PRICES_AS_OF: &str = "2025-11-01";

/// What one model costs, USD per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Pricing {
    /// Uncached input.
    pub input_per_mtok: f64,
    /// Generated output.
    pub output_per_mtok: f64,
    /// Input written to the prompt cache.
    pub cache_write_per_mtok: f64,
    /// Input read from the prompt cache.
    pub cache_read_per_mtok: f64,
}

impl Pricing {
    /// A price with all four rates.
    pub const fn new(input: f64, output: f64, cache_write: f64, cache_read: f64) -> Self {
        Self {
            input_per_mtok: input,
            output_per_mtok: output,
            cache_write_per_mtok: cache_write,
            cache_read_per_mtok: cache_read,
        }
    }

    /// A model that costs nothing per token (a local server).
    pub const fn free() -> Self {
        Self::new(0.0, 0.0, 0.0, 0.0)
    }

    /// The USD cost of `usage`.
    pub fn cost(&self, usage: &Usage) -> f64 {
        (usage.input_tokens as f64 * self.input_per_mtok
            + usage.output_tokens as f64 * self.output_per_mtok
            + usage.cache_write_tokens as f64 * self.cache_write_per_mtok
            + usage.cache_read_tokens as f64 * self.cache_read_per_mtok)
            / 1_000_000.0
    }

    /// The highest of the three input rates: what an input token costs at worst.
    pub fn max_input_per_mtok(&self) -> f64 {
        self.input_per_mtok
            .max(self.cache_write_per_mtok)
            .max(self.cache_read_per_mtok)
    }
}

/// Prices by model name. A lookup takes the longest registered name that the model name
/// starts with, so dated snapshots (`claude-sonnet-4-5-20250929`, `gpt-4o-2024-08-06`) find
/// their family and `gpt-4o-mini` is not priced as `gpt-4o`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PricingTable {
    models: BTreeMap<String, Pricing>,
}

impl Default for PricingTable {
    /// The current list prices of Anthropic and OpenAI models (see [`PRICES_AS_OF`]).
    fn default() -> Self {
        let p = Pricing::new;
        let table = [
            // Anthropic: input, output, 5-minute cache write, cache read.
            ("claude-opus-4-5", p(5.0, 25.0, 6.25, 0.50)),
            ("claude-opus-4-1", p(15.0, 75.0, 18.75, 1.50)),
            ("claude-opus-4", p(15.0, 75.0, 18.75, 1.50)),
            ("claude-sonnet-4-5", p(3.0, 15.0, 3.75, 0.30)),
            ("claude-sonnet-4", p(3.0, 15.0, 3.75, 0.30)),
            ("claude-3-7-sonnet", p(3.0, 15.0, 3.75, 0.30)),
            ("claude-haiku-4-5", p(1.0, 5.0, 1.25, 0.10)),
            ("claude-3-5-haiku", p(0.80, 4.0, 1.0, 0.08)),
            ("claude-3-haiku", p(0.25, 1.25, 0.30, 0.03)),
            // OpenAI: input, output, (no cache write), cached input.
            ("gpt-5", p(1.25, 10.0, 0.0, 0.125)),
            ("gpt-5-mini", p(0.25, 2.0, 0.0, 0.025)),
            ("gpt-5-nano", p(0.05, 0.40, 0.0, 0.005)),
            ("gpt-4.1", p(2.0, 8.0, 0.0, 0.50)),
            ("gpt-4.1-mini", p(0.40, 1.60, 0.0, 0.10)),
            ("gpt-4.1-nano", p(0.10, 0.40, 0.0, 0.025)),
            ("gpt-4o", p(2.50, 10.0, 0.0, 1.25)),
            ("gpt-4o-mini", p(0.15, 0.60, 0.0, 0.075)),
            ("o3", p(2.0, 8.0, 0.0, 0.50)),
            ("o3-mini", p(1.10, 4.40, 0.0, 0.55)),
            ("o4-mini", p(1.10, 4.40, 0.0, 0.275)),
        ];
        Self {
            models: table
                .into_iter()
                .map(|(name, price)| (name.to_string(), price))
                .collect(),
        }
    }
}

impl PricingTable {
    /// A table with no prices at all.
    pub fn empty() -> Self {
        Self {
            models: BTreeMap::new(),
        }
    }

    /// Sets (or replaces) the price of `model` and of every name starting with it.
    pub fn set(&mut self, model: impl Into<String>, pricing: Pricing) -> &mut Self {
        self.models.insert(model.into(), pricing);
        self
    }

    /// The price of `model`; [`Error::UnknownPricing`] when none matches.
    pub fn get(&self, model: &str) -> Result<Pricing> {
        self.models
            .iter()
            .filter(|(name, _)| model.starts_with(name.as_str()))
            .max_by_key(|(name, _)| name.len())
            .map(|(_, p)| *p)
            .ok_or_else(|| Error::UnknownPricing {
                model: model.to_string(),
            })
    }

    /// The USD cost of `usage` on `model`.
    pub fn cost(&self, model: &str, usage: &Usage) -> Result<f64> {
        Ok(self.get(model)?.cost(usage))
    }

    /// The registered model names.
    pub fn models(&self) -> impl Iterator<Item = &str> {
        self.models.keys().map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn longest_prefix_wins_for_snapshots_and_variants() {
        let t = PricingTable::default();
        assert_eq!(
            t.get("gpt-4o-mini-2024-07-18").unwrap().input_per_mtok,
            0.15
        );
        assert_eq!(t.get("gpt-4o-2024-08-06").unwrap().input_per_mtok, 2.50);
        assert_eq!(
            t.get("claude-sonnet-4-5-20250929").unwrap().output_per_mtok,
            15.0
        );
        assert_eq!(
            t.get("claude-opus-4-5-20251101").unwrap().input_per_mtok,
            5.0
        );
    }

    #[test]
    fn unknown_model_is_a_typed_error_naming_it() {
        let err = PricingTable::default().get("mystery-7b").unwrap_err();
        assert!(matches!(&err, Error::UnknownPricing { model } if model == "mystery-7b"));
    }

    #[test]
    fn cost_adds_all_four_kinds_of_tokens() {
        let usage = Usage {
            input_tokens: 1_000_000,
            output_tokens: 100_000,
            cache_read_tokens: 2_000_000,
            cache_write_tokens: 500_000,
        };
        // 3.00 + 1.50 + 0.60 + 1.875
        let usd = PricingTable::default()
            .cost("claude-sonnet-4-5", &usage)
            .unwrap();
        assert!((usd - 6.975).abs() < 1e-9, "{usd}");
    }

    #[test]
    fn edits_take_effect() {
        let mut t = PricingTable::empty();
        t.set("gemma-3", Pricing::free())
            .set("claude-sonnet-4-5", Pricing::new(1.0, 2.0, 3.0, 4.0));
        assert_eq!(
            t.cost(
                "gemma-3-270m",
                &Usage {
                    input_tokens: 10,
                    ..Usage::default()
                }
            )
            .unwrap(),
            0.0
        );
        assert_eq!(
            t.get("claude-sonnet-4-5").unwrap().max_input_per_mtok(),
            4.0
        );
        assert_eq!(t.models().count(), 2);
    }
}
