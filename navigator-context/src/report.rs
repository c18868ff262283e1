//! What the explorer remembers and shows: the append-only decision log, turn reports, the
//! [`Approver`] of interactive mode, and the per-turn prompt built from state, not history.

use serde::{Deserialize, Serialize};
use std::fmt::Write;

/// One decision: step, action, target paths, reasoning.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogEntry {
    /// 1-based turn.
    pub step: usize,
    /// `update_flight_plan` or `finalize_context`.
    pub action: String,
    /// Paths the action changed.
    pub targets: Vec<String>,
    /// Why.
    pub reasoning: String,
}

/// The append-only log of decisions; the only memory carried from turn to turn.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecisionLog {
    entries: Vec<LogEntry>,
}

impl DecisionLog {
    pub(crate) fn push(&mut self, entry: LogEntry) {
        self.entries.push(entry);
    }

    /// Entries, oldest first.
    pub fn entries(&self) -> &[LogEntry] {
        &self.entries
    }

    /// One line per entry; long target lists are shortened so the log stays concise.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for e in &self.entries {
            let shown: Vec<&str> = e.targets.iter().take(8).map(String::as_str).collect();
            let more = e.targets.len().saturating_sub(shown.len());
            let more = if more > 0 {
                format!(" (+{more} more)")
            } else {
                String::new()
            };
            let _ = writeln!(
                out,
                "{}. {} [{}]{} — {}",
                e.step,
                e.action,
                shown.join(", "),
                more,
                e.reasoning
            );
        }
        out
    }
}

/// What the person approving an interactive run sees after each turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TurnReport {
    /// 1-based turn.
    pub step: usize,
    /// The action taken.
    pub action: String,
    /// Cost of this turn in USD.
    pub turn_usd: f64,
    /// Cost of all turns so far in USD.
    pub total_usd: f64,
    /// Size of the map after this turn, in tokens.
    pub map_tokens: usize,
    /// The token budget.
    pub token_budget: usize,
    /// Files shown with signatures or full source, best first.
    pub focus: Vec<String>,
    /// Tokens of this turn's prompt (goal + current map + decision log).
    pub prompt_tokens: usize,
    /// Tokens the prompt would have had if every earlier map and answer were fed again.
    pub history_prompt_tokens: usize,
    /// The policy's reasoning.
    pub reasoning: String,
}

impl TurnReport {
    /// A few lines for a terminal.
    pub fn summary(&self) -> String {
        format!(
            "turn {} — {}\n  cost: ${:.4} this turn, ${:.4} total\n  map: {} / {} tokens\n  focus: {}\n  why: {}",
            self.step,
            self.action,
            self.turn_usd,
            self.total_usd,
            self.map_tokens,
            self.token_budget,
            if self.focus.is_empty() { "(none yet)".to_string() } else { self.focus.join(", ") },
            self.reasoning
        )
    }
}

/// A person's answer to a turn report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Go on.
    Approve,
    /// Stop here and deliver what there is.
    Decline,
    /// Go on, with this guidance fed into the next turn.
    Feedback(String),
}

/// Reviews each turn in interactive mode.
pub trait Approver: Send {
    /// Looks at a turn report and answers.
    fn review(&mut self, report: &TurnReport) -> Verdict;
}

/// Interactive mode on a terminal: each turn report goes to stderr, the answer comes from a
/// line of stdin (Enter approves, `d` declines, anything else is feedback; end of input
/// declines): a [`LineApprover`] on the process's stdin and stderr.
#[derive(Debug, Clone, Copy, Default)]
pub struct TerminalApprover;

impl Approver for TerminalApprover {
    fn review(&mut self, report: &TurnReport) -> Verdict {
        review_lines(&mut std::io::stdin().lock(), &mut std::io::stderr(), report)
    }
}

/// Reads each turn's answer from `input` and writes the report and the prompt to `output`:
/// Enter approves, `d` declines, anything else is feedback. End of input declines, and ends
/// the prompt's line first, so that the summary printed next starts on a line of its own.
pub struct LineApprover<R, W> {
    input: R,
    output: W,
}

impl<R, W> LineApprover<R, W> {
    /// An approver reading answers from `input` and prompting on `output`.
    pub fn new(input: R, output: W) -> Self {
        Self { input, output }
    }
}

impl<R: std::io::BufRead + Send, W: std::io::Write + Send> Approver for LineApprover<R, W> {
    fn review(&mut self, report: &TurnReport) -> Verdict {
        review_lines(&mut self.input, &mut self.output, report)
    }
}

/// One review: `report` and the prompt to `output`, the answer from a line of `input`.
fn review_lines(
    input: &mut impl std::io::BufRead,
    output: &mut impl std::io::Write,
    report: &TurnReport,
) -> Verdict {
    // A prompt that cannot be written (stderr closed) still waits for its answer.
    let _ = writeln!(output, "\n{}", report.summary());
    let _ = write!(output, "[Enter] approve, [d] decline, or type feedback: ");
    let _ = output.flush();
    let mut line = String::new();
    if input.read_line(&mut line).unwrap_or(0) == 0 {
        let _ = writeln!(output);
        let _ = output.flush();
        return Verdict::Decline;
    }
    match line.trim() {
        "" | "a" | "y" => Verdict::Approve,
        "d" | "n" | "q" => Verdict::Decline,
        text => Verdict::Feedback(text.to_string()),
    }
}

/// The start of every turn's prompt, the goal's section: the same each turn, so its tokens
/// are counted once. It ends in a blank line and the next section starts with `#`, so the
/// tokenizer's pieces never cross the seam and the prompt's count is this section's plus the
/// rest's.
pub(crate) fn goal_section(goal: &str) -> String {
    format!("## Goal\n{goal}\n\n")
}

/// Builds one turn's prompt from state only: the goal, the current map, the decision log and
/// the latest feedback — never earlier maps.
pub(crate) fn build_prompt(
    goal: &str,
    map: &str,
    log: &DecisionLog,
    feedback: Option<&str>,
    budget: usize,
) -> String {
    let mut p = goal_section(goal);
    let _ = write!(
        p,
        "## Token budget\n{budget}\n\n## Current map\n(files at level 4 are shown with their signatures; the delivered context holds their full source)\n{map}\n"
    );
    if !log.entries().is_empty() {
        let _ = write!(p, "\n## Decision log\n{}", log.render());
    }
    if let Some(f) = feedback {
        let _ = write!(p, "\n## Feedback from the user\n{f}\n");
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report() -> TurnReport {
        TurnReport {
            step: 1,
            action: "zoom_in".into(),
            turn_usd: 0.0,
            total_usd: 0.0,
            map_tokens: 120,
            token_budget: 1000,
            focus: vec!["src/auth/".into()],
            prompt_tokens: 0,
            history_prompt_tokens: 0,
            reasoning: "the goal names auth".into(),
        }
    }

    #[test]
    fn a_prompt_counts_as_its_goal_section_and_the_rest() {
        let goals = [
            "fix it",
            "trailing spaces   ",
            "trailing newline\n",
            "ends in punctuation!",
            "naïve ünïcödé — 12345",
            "code:\n```rust\nfn a() {}\n```",
            "  leading blank\r\n\r\n",
            &"-".repeat(3000),
        ];
        let mut log = DecisionLog::default();
        log.push(
            crate::policy::Action::FinalizeContext {
                reasoning: "done".into(),
            }
            .log_entry(1),
        );
        for tokenizer in crate::Tokenizer::ALL {
            for goal in goals {
                let prompt = build_prompt(goal, "src/a.rs\n", &log, Some("more on x"), 100);
                let section = goal_section(goal);
                assert!(prompt.starts_with(&section));
                assert_eq!(
                    tokenizer.count(&prompt),
                    tokenizer.count(&section) + tokenizer.count(&prompt[section.len()..]),
                    "{tokenizer} {goal:?}"
                );
            }
        }
    }

    /// The answers `input` gives to as many reviews, and what was written meanwhile.
    fn answers(input: &str, reviews: usize) -> (Vec<Verdict>, String) {
        let mut output = Vec::new();
        let mut approver = LineApprover::new(input.as_bytes(), &mut output);
        let verdicts = (0..reviews).map(|_| approver.review(&report())).collect();
        (verdicts, String::from_utf8(output).unwrap())
    }

    #[test]
    fn lines_approve_decline_or_give_feedback() {
        let (verdicts, _) = answers("\nlook at the session store\nd\n", 3);
        assert_eq!(
            verdicts,
            [
                Verdict::Approve,
                Verdict::Feedback("look at the session store".into()),
                Verdict::Decline
            ]
        );
    }

    #[test]
    fn end_of_input_declines_and_ends_the_prompt_line() {
        let (verdicts, output) = answers("", 1);
        assert_eq!(verdicts, [Verdict::Decline]);
        // What is printed next (the summary) starts on a line of its own.
        assert!(
            output.ends_with("type feedback: \n"),
            "{output:?} leaves the cursor on the prompt's line"
        );
    }
}
