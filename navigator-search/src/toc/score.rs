//! Term overlap scoring: how many of a query's terms a text contains.
//!
//! Matching is by **word**, not by raw substring. Both sides are split at every character
//! that is not a letter or digit and lower-cased, so `JWT` matches `jwt-based`, `(JWT)` and
//! `JWT,` — but `api` does not match `rapid`, `art` does not match `start` and `use` does not
//! match `because`. Substring matching would make every short term a near-universal match and
//! flatten the ranking; word matching keeps three-letter acronyms (JWT, SQL, DNS) precise.
//!
//! A light suffix normalisation runs on both sides, so the forms an agent's question and a
//! summary typically differ by still match: a plural `s` (not `ss`) is dropped from words of
//! four or more letters (`JWTs` → `jwt`), then `ing` from words of six or more, `ed` or a final
//! `e` from words of five or more — `decide`, `decided` and `decides` all become `decid`,
//! `rotate` and `rotating` `rotat`. Because the same rules run on query and text,
//! over-stripping (`status` → `statu`) is harmless: a word still matches itself. It is not a
//! full stemmer (`decision` stays apart from `decide`); that belongs to the keyword index.
//! Words and suffix rules are the workspace's one normaliser, [`navigator_core::text`].

use navigator_core::text::{light_stem, words};

/// Query words shorter than this many characters are ignored ("a", "to", "of", "we").
pub const MIN_TERM_CHARS: usize = 3;

/// Question and conversational words that [`navigate`](super::navigate()) drops from a query on
/// top of the length rule: they describe the act of asking ("what did we say about ..."),
/// not its subject, and would otherwise lower every score by their share of the terms.
/// [`term_overlap_score`] and [`search_children`](super::search_children()) keep them, so a
/// caller that really means "what" can still search for it.
pub const QUESTION_WORDS: &[&str] = &[
    "about",
    "all",
    "and",
    "any",
    "anything",
    "are",
    "can",
    "did",
    "discuss",
    "discussed",
    "does",
    "done",
    "find",
    "for",
    "from",
    "happen",
    "happened",
    "has",
    "have",
    "how",
    "remind",
    "said",
    "say",
    "show",
    "tell",
    "that",
    "the",
    "there",
    "these",
    "this",
    "those",
    "talk",
    "talked",
    "was",
    "were",
    "what",
    "when",
    "where",
    "which",
    "who",
    "why",
    "with",
    "you",
    "our",
    "ours",
];

/// The terms of a query: words of [`MIN_TERM_CHARS`]+ characters, lower-cased, normalised and
/// de-duplicated, in the order they first appear.
///
/// Parse once and score many texts with [`QueryTerms::score`]; that is what
/// [`search_children`](super::search_children()) does for every child.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct QueryTerms {
    terms: Vec<String>,
    words: Vec<String>,
}

impl QueryTerms {
    /// The terms of `query` under the length rule only.
    pub fn parse(query: &str) -> Self {
        Self::parse_filtered(query, |_| true)
    }

    /// The terms of `query` without [`QUESTION_WORDS`].
    pub fn parse_without_question_words(query: &str) -> Self {
        Self::parse_filtered(query, |word| !QUESTION_WORDS.contains(&word))
    }

    fn parse_filtered(query: &str, keep: impl Fn(&str) -> bool) -> Self {
        let mut parsed = Self::default();
        for word in words(query) {
            if word.chars().count() < MIN_TERM_CHARS || !keep(&word) {
                continue;
            }
            let term = light_stem(&word).to_string();
            if !parsed.terms.contains(&term) {
                parsed.terms.push(term);
                parsed.words.push(word);
            }
        }
        parsed
    }

    /// Whether no term survived the filters.
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// How many distinct terms there are.
    pub fn len(&self) -> usize {
        self.terms.len()
    }

    /// The normalised terms (`decided` → `decid`), what texts are matched against.
    pub fn terms(&self) -> &[String] {
        &self.terms
    }

    /// The query words behind [`terms`](Self::terms), lower-cased but not normalised: what to
    /// show a person.
    pub fn words(&self) -> &[String] {
        &self.words
    }

    /// Matched terms / total terms for `text`, in `[0, 1]`; `0` when there are no terms.
    pub fn score(&self, text: &str) -> f32 {
        if self.terms.is_empty() {
            return 0.0;
        }
        // One reused buffer and a slice per word: scoring runs for every field of every child,
        // so it allocates nothing per word.
        let mut matched = vec![false; self.terms.len()];
        let mut count = 0;
        let mut lower = String::new();
        for raw in text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
        {
            lower.clear();
            lower.extend(raw.chars().flat_map(char::to_lowercase));
            let word = light_stem(&lower);
            for (i, term) in self.terms.iter().enumerate() {
                if !matched[i] && term == word {
                    matched[i] = true;
                    count += 1;
                }
            }
            if count == self.terms.len() {
                break;
            }
        }
        count as f32 / self.terms.len() as f32
    }
}

/// The share of `query`'s terms (words of [`MIN_TERM_CHARS`]+ characters) that occur as words
/// in `text`, case-insensitively: `matched / total` in `[0, 1]`.
///
/// A query with no term of three or more characters scores `0` against every text; callers
/// that must tell "nothing matched" from "nothing to match" check [`QueryTerms::is_empty`].
///
/// ```
/// use navigator_search::toc::term_overlap_score;
/// assert_eq!(term_overlap_score("JWT authentication", "Switched to jwt-based auth"), 0.5);
/// assert_eq!(term_overlap_score("JWT", "the rapid api"), 0.0);
/// ```
pub fn term_overlap_score(query: &str, text: &str) -> f32 {
    QueryTerms::parse(query).score(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_is_ignored_on_both_sides() {
        assert_eq!(term_overlap_score("jwt", "Chose JWT"), 1.0);
        assert_eq!(term_overlap_score("JWT", "chose jwt"), 1.0);
    }

    #[test]
    fn score_is_the_share_of_matched_terms() {
        let s = term_overlap_score("postgres migration rollback plan", "Postgres migration ran");
        assert_eq!(s, 0.5);
    }

    #[test]
    fn words_shorter_than_three_characters_are_not_terms() {
        let terms = QueryTerms::parse("we DB to a jwt");
        assert_eq!(terms.terms(), ["jwt"]);
        assert_eq!(term_overlap_score("to a jwt", "jwt"), 1.0);
    }

    #[test]
    fn query_of_only_short_words_has_no_terms_and_scores_zero() {
        let terms = QueryTerms::parse("is it ok to go");
        assert!(terms.is_empty());
        assert_eq!(terms.score("is it ok to go"), 0.0);
        assert_eq!(term_overlap_score("", "anything"), 0.0);
    }

    #[test]
    fn matching_is_at_word_boundaries_not_substrings() {
        assert_eq!(term_overlap_score("jwt", "jwt-based tokens"), 1.0);
        assert_eq!(term_overlap_score("jwt", "(JWT)"), 1.0);
        assert_eq!(term_overlap_score("api", "a rapid rollout"), 0.0);
        assert_eq!(term_overlap_score("auth", "authentication"), 0.0);
    }

    #[test]
    fn common_suffixes_are_normalised_on_both_sides() {
        assert_eq!(term_overlap_score("JWTs", "one jwt"), 1.0);
        assert_eq!(term_overlap_score("token", "rotating tokens"), 1.0);
        assert_eq!(term_overlap_score("decide", "Decided: RS256"), 1.0);
        assert_eq!(term_overlap_score("rotate", "rotating keys"), 1.0);
        assert_eq!(term_overlap_score("class", "classes"), 1.0);
        assert_eq!(term_overlap_score("decision", "decided"), 0.0);
        assert_eq!(term_overlap_score("use", "user"), 0.0);
    }

    #[test]
    fn repeated_query_words_count_once() {
        assert_eq!(term_overlap_score("jwt jwt redis", "jwt"), 0.5);
    }

    #[test]
    fn question_words_are_dropped_only_on_request() {
        let q = "what did we decide about the JWT";
        assert_eq!(QueryTerms::parse(q).len(), 6);
        let terms = QueryTerms::parse_without_question_words(q);
        assert_eq!(terms.terms(), ["decid", "jwt"]);
        assert_eq!(terms.words(), ["decide", "jwt"]);
    }

    #[test]
    fn non_ascii_words_are_split_and_lower_cased() {
        assert_eq!(term_overlap_score("Größe", "die GRÖSSE, die größe"), 1.0);
    }
}
