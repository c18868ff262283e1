//! Token counting with a real BPE tokenizer (tiktoken-rs).

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
        bpe.encode_ordinary(text).len()
    }

    /// The encoding's name as written in Flight Plans.
    pub fn name(self) -> &'static str {
        match self {
            Tokenizer::Cl100kBase => "cl100k_base",
            Tokenizer::O200kBase => "o200k_base",
        }
    }
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
}
