//! The evaluation's figures: [`Tally`] counts per group, [`CallStats`] for prompt reuse,
//! [`Report`] overall and by kind, shown as a markdown table.

use super::{CallRecord, ConversationResult};
use navigator_butler::CallStatus;
use navigator_core::Usage;
use std::collections::BTreeMap;
use std::fmt;

/// Counts of one group of conversations.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// Conversations.
    pub conversations: usize,
    /// Conversations in which every turn met its expectations.
    pub succeeded: usize,
    /// Turns.
    pub turns: usize,
    /// Turns classified as expected.
    pub intents_correct: usize,
    /// Turns that ended in an error.
    pub errors: usize,
    /// Turns whose classification fell back to `clarify`.
    pub fallbacks: usize,
    /// Model calls that failed (the Butler may have recovered: a fallback, a retry).
    pub failed_llm_calls: usize,
    /// Tool calls.
    pub calls: usize,
    /// Tool calls that reached the tool (`ok` or `failed`).
    pub valid_calls: usize,
}

impl Tally {
    fn add(&mut self, c: &ConversationResult) {
        self.conversations += 1;
        self.succeeded += usize::from(c.succeeded());
        for t in &c.turns {
            self.turns += 1;
            self.intents_correct += usize::from(t.intent.as_deref() == Some(&t.expected_intent));
            self.errors += usize::from(t.error.is_some());
            self.fallbacks += usize::from(t.fallback);
            self.failed_llm_calls += t.llm_calls.iter().filter(|c| c.error.is_some()).count();
            self.calls += t.calls.len();
            self.valid_calls += t
                .calls
                .iter()
                .filter(|c| matches!(c.status, CallStatus::Ok | CallStatus::Failed))
                .count();
        }
    }

    /// Turns classified as expected, over all turns.
    pub fn intent_accuracy(&self) -> f64 {
        ratio(self.intents_correct, self.turns)
    }

    /// Calls that reached the tool, over all calls (1 when there were none).
    pub fn tool_call_validity(&self) -> f64 {
        match self.calls {
            0 => 1.0,
            n => ratio(self.valid_calls, n),
        }
    }

    /// Conversations that met every expectation, over all conversations.
    pub fn task_success(&self) -> f64 {
        ratio(self.succeeded, self.conversations)
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    match b {
        0 => 0.0,
        b => a as f64 / b as f64,
    }
}

/// Mean cached prompt tokens and wall time of a group of classification calls.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CallStats {
    /// Calls.
    pub calls: usize,
    /// Mean prompt tokens served from the server's cache.
    pub cached_tokens: f64,
    /// Mean prompt tokens, cached or not.
    pub input_tokens: f64,
    /// Mean wall time, in milliseconds.
    pub wall_ms: f64,
}

impl CallStats {
    fn of<'a>(calls: impl Iterator<Item = &'a CallRecord>) -> Self {
        let calls: Vec<_> = calls.filter(|c| c.error.is_none()).collect();
        let n = calls.len().max(1) as f64;
        Self {
            calls: calls.len(),
            cached_tokens: calls
                .iter()
                .map(|c| c.usage.cache_read_tokens as f64)
                .sum::<f64>()
                / n,
            input_tokens: calls
                .iter()
                .map(|c| c.usage.total_input() as f64)
                .sum::<f64>()
                / n,
            wall_ms: calls
                .iter()
                .map(|c| c.wall.as_secs_f64() * 1e3)
                .sum::<f64>()
                / n,
        }
    }
}

/// The evaluation's figures, overall and by kind.
#[derive(Debug, Clone)]
pub struct Report {
    /// Over every conversation.
    pub total: Tally,
    /// By conversation kind.
    pub by_kind: BTreeMap<String, Tally>,
    /// Tool calls by status (`ok`, `invalid_arguments`, ...).
    pub call_statuses: BTreeMap<String, usize>,
    /// Tokens over every turn.
    pub usage: Usage,
    /// The classification call of each conversation's first turn.
    pub first_turn: CallStats,
    /// The classification calls of the later turns.
    pub later_turns: CallStats,
    /// The conversations that failed, with why (`id turn N: ...`).
    pub failures: Vec<String>,
    /// The distinct errors of failed model calls, with how often each came.
    pub llm_errors: BTreeMap<String, usize>,
}

impl Report {
    /// Tallies `results`.
    pub fn of(results: &[ConversationResult]) -> Self {
        let mut total = Tally::default();
        let mut by_kind: BTreeMap<String, Tally> = BTreeMap::new();
        let mut call_statuses = BTreeMap::new();
        let mut usage = Usage::default();
        let mut failures = Vec::new();
        let mut llm_errors = BTreeMap::new();
        for c in results {
            total.add(c);
            by_kind.entry(c.kind.clone()).or_default().add(c);
            for (i, t) in c.turns.iter().enumerate() {
                usage += t.usage;
                for e in t.llm_calls.iter().filter_map(|c| c.error.as_deref()) {
                    let short: String = e.chars().take(200).collect();
                    *llm_errors.entry(short).or_insert(0) += 1;
                }
                for call in &t.calls {
                    let status = serde_json::to_value(call.status).unwrap_or_default();
                    *call_statuses
                        .entry(status.as_str().unwrap_or("?").to_string())
                        .or_insert(0) += 1;
                }
                let mut why = t.failures.clone();
                why.extend(t.error.iter().map(|e| format!("error: {e}")));
                if !why.is_empty() {
                    failures.push(format!("{} turn {}: {}", c.id, i + 1, why.join("; ")));
                }
            }
        }
        let classification = |first: bool| {
            results
                .iter()
                .flat_map(|c| c.turns.iter().enumerate())
                .filter(move |(i, _)| (*i == 0) == first)
                .flat_map(|(_, t)| t.llm_calls.iter().filter(|c| c.classification).take(1))
        };
        Self {
            total,
            by_kind,
            call_statuses,
            usage,
            first_turn: CallStats::of(classification(true)),
            later_turns: CallStats::of(classification(false)),
            failures,
            llm_errors,
        }
    }
}

impl fmt::Display for Report {
    /// A markdown table by kind with the totals, then call statuses, tokens, prompt reuse and
    /// the failures.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "| kind | conversations | turns | intent accuracy | tool calls | tool-call validity | task success | errors |"
        )?;
        writeln!(f, "|---|---:|---:|---:|---:|---:|---:|---:|")?;
        let row = |f: &mut fmt::Formatter<'_>, name: &str, t: &Tally| {
            writeln!(
                f,
                "| {name} | {} | {} | {:.3} ({}/{}) | {} | {:.3} ({}/{}) | {:.3} ({}/{}) | {} |",
                t.conversations,
                t.turns,
                t.intent_accuracy(),
                t.intents_correct,
                t.turns,
                t.calls,
                t.tool_call_validity(),
                t.valid_calls,
                t.calls,
                t.task_success(),
                t.succeeded,
                t.conversations,
                t.errors
            )
        };
        for (kind, t) in &self.by_kind {
            row(f, kind, t)?;
        }
        row(f, "**all**", &self.total)?;
        let statuses: Vec<String> = self
            .call_statuses
            .iter()
            .map(|(s, n)| format!("{s} {n}"))
            .collect();
        writeln!(f, "\ntool calls by status: {}", statuses.join(", "))?;
        writeln!(
            f,
            "classifications fallen back to clarify: {}; failed model calls: {}",
            self.total.fallbacks, self.total.failed_llm_calls
        )?;
        for (e, n) in &self.llm_errors {
            writeln!(f, "- {n}× {e}")?;
        }
        writeln!(
            f,
            "tokens: {} input, {} cached input, {} output",
            self.usage.input_tokens, self.usage.cache_read_tokens, self.usage.output_tokens
        )?;
        for (name, s) in [("first", &self.first_turn), ("later", &self.later_turns)] {
            writeln!(
                f,
                "classification calls, {name} turns: {} calls, mean {:.0} prompt tokens of which {:.0} cached, mean {:.0} ms",
                s.calls, s.input_tokens, s.cached_tokens, s.wall_ms
            )?;
        }
        if !self.failures.is_empty() {
            writeln!(f, "\nfailed turns ({}):", self.failures.len())?;
            for line in &self.failures {
                writeln!(f, "- {line}")?;
            }
        }
        Ok(())
    }
}
