//! Token counting with a real BPE tokenizer (tiktoken-rs).
//!
//! tiktoken pre-splits text with a regex into words, runs of punctuation and runs of spaces,
//! then merges each piece with BPE in time quadratic in the piece's length. Ordinary text has
//! short pieces, but one line of 200 KB of dashes is a single piece and took 51 s. So a run
//! of one character class (letters, whitespace, or other symbols; digits are grouped in
//! threes by the regex anyway) longer than [`Tokenizer::MAX_RUN`] characters is cut into pieces of
//! [`Tokenizer::MAX_RUN`] characters, each counted on its own: counting is then linear in the text.
//!
//! The count is exact for every text without such a run (all prose and code). Inside a long
//! run a cut only stops merges across it, so the count there is at most
//! [`Tokenizer::MAX_RUN_ERROR`] tokens per cut away from the exact one (checked by the tests over runs of
//! dashes, letters, spaces and CJK).

use serde::{Deserialize, Serialize};
use std::fmt;

/// The BPE encoding used to count tokens; chosen per Flight Plan.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Tokenizer {
    /// OpenAI `cl100k_base` (GPT-4, GPT-3.5); a close proxy for Claude's counts too.
    #[default]
    #[serde(rename = "cl100k_base")]
    Cl100kBase,
    /// OpenAI `o200k_base` (GPT-4o and later).
    #[serde(rename = "o200k_base")]
    O200kBase,
}

impl Tokenizer {
    /// Every supported encoding, for error messages.
    pub const ALL: [Tokenizer; 2] = [Tokenizer::Cl100kBase, Tokenizer::O200kBase];

    /// The longest run of one character class counted in one piece (see the module docs).
    pub const MAX_RUN: usize = 512;

    /// The most a cut inside a long run moves the count, in tokens (see the module docs).
    pub const MAX_RUN_ERROR: usize = 2;

    /// Counts the tokens of `text` (special-token strings count as plain text).
    ///
    /// ```
    /// use navigator_context::Tokenizer;
    /// assert_eq!(Tokenizer::Cl100kBase.count("hello world"), 2);
    /// assert_eq!(Tokenizer::O200kBase.count(""), 0);
    /// ```
    pub fn count(self, text: &str) -> usize {
        if text.is_empty() {
            return 0;
        }
        let bpe = match self {
            Tokenizer::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
            Tokenizer::O200kBase => tiktoken_rs::o200k_base_singleton(),
        };
        segments(text).map(|s| bpe.encode_ordinary(s).len()).sum()
    }

    /// The encoding's name as written in Flight Plans.
    pub fn name(self) -> &'static str {
        match self {
            Tokenizer::Cl100kBase => "cl100k_base",
            Tokenizer::O200kBase => "o200k_base",
        }
    }
}

/// Whole text takes at least one token per this many bytes (code averages three to four; a
/// text would need long runs of spaces or punctuation throughout to come near): a text larger
/// than a budget times this is taken not to fit without counting its tokens.
pub(crate) const MAX_BYTES_PER_TOKEN: usize = 12;

const MAX_RUN: usize = Tokenizer::MAX_RUN;

/// `text` cut inside every run of one class longer than [`Tokenizer::MAX_RUN`] characters, and
/// nowhere else ([`navigator_core::text::bpe_pieces`]).
fn segments(text: &str) -> impl Iterator<Item = &str> {
    navigator_core::text::bpe_pieces(text, MAX_RUN)
}

impl fmt::Display for Tokenizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Tokenizer {
    type Err = crate::Error;

    fn from_str(s: &str) -> crate::Result<Self> {
        Tokenizer::ALL
            .into_iter()
            .find(|t| t.name() == s)
            .ok_or_else(|| crate::Error::Tokenizer {
                name: s.to_string(),
                message: "unknown encoding; expected cl100k_base or o200k_base".into(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodings_differ_and_parse_by_name() {
        let text = "fn main() { println!(\"naïve\"); }";
        assert!(Tokenizer::Cl100kBase.count(text) > 5);
        assert_eq!(
            "o200k_base".parse::<Tokenizer>().unwrap(),
            Tokenizer::O200kBase
        );
        let err = "gpt2".parse::<Tokenizer>().unwrap_err().to_string();
        assert!(err.contains("gpt2"), "{err}");
    }

    fn exact(t: Tokenizer, text: &str) -> usize {
        let bpe = match t {
            Tokenizer::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
            Tokenizer::O200kBase => tiktoken_rs::o200k_base_singleton(),
        };
        bpe.encode_ordinary(text).len()
    }

    #[test]
    fn ordinary_text_is_counted_in_one_piece_exactly() {
        let text = include_str!("tokens.rs");
        assert_eq!(segments(text).count(), 1);
        for t in Tokenizer::ALL {
            assert_eq!(t.count(text), exact(t, text));
        }
    }

    /// Defect 7: a 200 KB line of dashes was one BPE piece, quadratic to merge (51 s). It is
    /// now counted in pieces of at most `MAX_RUN` characters, and the count stays within the
    /// documented bound of the exact one.
    #[test]
    fn token_count_of_a_200_kb_line_of_dashes_is_linear_and_bounded() {
        let line = "-".repeat(200 * 1024);
        let pieces: Vec<&str> = segments(&line).collect();
        assert!(pieces.iter().all(|p| p.chars().count() <= MAX_RUN));
        assert_eq!(pieces.concat(), line);
        let cuts = pieces.len() - 1;
        // The exact count of the whole line is linear in its length for a run of one
        // character (the BPE merges the same way all along), so it can be extrapolated
        // from a run the exact tokenizer handles quickly.
        for t in Tokenizer::ALL {
            let per_run = exact(t, &"-".repeat(MAX_RUN));
            let counted = t.count(&line);
            assert_eq!(counted, pieces.iter().map(|p| exact(t, p)).sum::<usize>());
            let lower = per_run * cuts;
            assert!(
                counted >= lower && counted <= lower + per_run + Tokenizer::MAX_RUN_ERROR * cuts,
                "{t}: {counted} tokens for 200 KB of dashes, {per_run} per {MAX_RUN}"
            );
        }
    }

    #[test]
    fn cuts_inside_long_runs_stay_within_the_documented_error() {
        let runs = [
            "-".repeat(3000),
            "=".repeat(2500),
            "a".repeat(2000),
            "ab".repeat(1500),
            " ".repeat(3000),
            "\u{4e2d}\u{6587}".repeat(900),
            format!("x = {}\n", "#".repeat(2600)),
            "Zz".repeat(1200),
        ];
        for run in &runs {
            let cuts = segments(run).count() - 1;
            assert!(cuts >= 1, "{} chars were not cut", run.chars().count());
            for t in Tokenizer::ALL {
                let (got, want) = (t.count(run), exact(t, run));
                eprintln!("{t} {} chars: counted {got}, exact {want}", run.len());
                assert!(
                    got.abs_diff(want) <= Tokenizer::MAX_RUN_ERROR * cuts,
                    "{t}: counted {got}, exact {want}, {cuts} cuts"
                );
            }
        }
    }
}
