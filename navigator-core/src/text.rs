//! Words and terms: the one light tokeniser and term normaliser of the workspace.
//!
//! A **word** is a maximal run of letters and digits, lower-cased: `JWT-based (v2)` gives
//! `jwt`, `based`, `v2`. A **term** is a word after [`light_stem`], a handful of suffix rules
//! that let the forms a question and a note typically differ by meet (`tokens`/`token`,
//! `rotating`/`rotate`, `decided`/`decide`). It is deliberately not a full stemmer: the
//! keyword indexes (tantivy's and PostgreSQL's English analysers) do real stemming; this is
//! what the library itself uses where it compares texts outside an index — snippets, the
//! table-of-contents search, spelling suggestions, exact-title lookups.

/// Words longer than this many bytes are not terms (what the keyword index drops too).
pub const MAX_TERM_BYTES: usize = 40;

/// `text` cut inside every run of one character class (letters, whitespace, other symbols;
/// digits are never cut) longer than `max_run` characters, and nowhere else; a text without
/// such a run comes back whole, and the pieces always concatenate to `text`.
///
/// What makes BPE token counting linear: tiktoken pre-splits text into words, runs of
/// punctuation and runs of spaces, then merges each piece in time quadratic in its length, so
/// one 200 KB line of dashes (a single piece) took 51 s. Counted piece by piece, a cut only
/// stops merges across it: the count moves by at most a token or two per cut, and ordinary
/// prose and code, which have no such runs, are counted exactly.
///
/// ```
/// let line = "-".repeat(1200);
/// let pieces: Vec<&str> = navigator_core::text::bpe_pieces(&line, 512).collect();
/// assert_eq!(pieces.iter().map(|p| p.len()).collect::<Vec<_>>(), [512, 512, 176]);
/// assert_eq!(navigator_core::text::bpe_pieces("fn main() {}", 512).count(), 1);
/// ```
pub fn bpe_pieces(text: &str, max_run: usize) -> impl Iterator<Item = &str> {
    /// The character classes the pre-split regex keeps together; digits are `None`.
    fn class(c: char) -> Option<u8> {
        if c.is_alphabetic() {
            Some(0)
        } else if c.is_whitespace() {
            Some(1)
        } else if c.is_numeric() {
            None
        } else {
            Some(2)
        }
    }
    let max_run = max_run.max(1);
    let mut start = 0;
    let mut run: (Option<u8>, usize) = (None, 0);
    let mut chars = text.char_indices();
    std::iter::from_fn(move || {
        for (i, c) in chars.by_ref() {
            let k = class(c);
            run = if k.is_some() && k == run.0 {
                (k, run.1 + 1)
            } else {
                (k, 1)
            };
            if run.1 > max_run {
                run.1 = 1;
                let piece = &text[start..i];
                start = i;
                return Some(piece);
            }
        }
        (start < text.len()).then(|| {
            let piece = &text[start..];
            start = text.len();
            piece
        })
    })
}

/// The lower-cased words of `text`: maximal runs of letters and digits.
///
/// ```
/// let w: Vec<String> = navigator_core::text::words("JWT-based (v2)").collect();
/// assert_eq!(w, ["jwt", "based", "v2"]);
/// ```
pub fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

/// `word` (already lower-cased) without a common English suffix; only ever shortens.
///
/// A plural `s` (not `ss`) is dropped from words of four or more characters (`jwts` →
/// `jwt`), then `ing` from words of six or more, `ed` or a final `e` from words of five or
/// more: `decide`, `decided` and `decides` all become `decid`, `rotate` and `rotating`
/// `rotat`. The same rules run on both sides of a comparison, so over-stripping (`status` →
/// `statu`) is harmless: a word still matches itself.
///
/// ```
/// use navigator_core::text::light_stem;
/// assert_eq!(light_stem("tokens"), "token");
/// assert_eq!(light_stem("decided"), light_stem("decide"));
/// assert_eq!(light_stem("class"), "class");
/// ```
pub fn light_stem(word: &str) -> &str {
    let mut w = word;
    if w.chars().count() >= 4 && w.ends_with('s') && !w.ends_with("ss") {
        w = &w[..w.len() - 1];
    }
    let chars = w.chars().count();
    if chars >= 6 && w.ends_with("ing") {
        &w[..w.len() - 3]
    } else if chars >= 5 && w.ends_with("ed") {
        &w[..w.len() - 2]
    } else if chars >= 5 && w.ends_with('e') {
        &w[..w.len() - 1]
    } else {
        w
    }
}

/// The distinct terms of `text` (words of at most [`MAX_TERM_BYTES`] bytes, light-stemmed),
/// in first-seen order.
///
/// ```
/// assert_eq!(navigator_core::text::terms("Quarterly REPORTS, quarterly report!"),
///            ["quarterly", "report"]);
/// ```
pub fn terms(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for word in words(text) {
        if word.len() > MAX_TERM_BYTES {
            continue;
        }
        let term = light_stem(&word);
        if !out.iter().any(|t| t == term) {
            out.push(term.to_string());
        }
    }
    out
}

/// `text` lower-cased with runs of whitespace collapsed to one space and trimmed: the form in
/// which a query and a title are compared for an exact match.
///
/// ```
/// assert_eq!(navigator_core::text::normalize_phrase("  Project  PHOENIX "), "project phoenix");
/// ```
pub fn normalize_phrase(text: &str) -> String {
    text.split_whitespace()
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_are_distinct_stemmed_words_without_overlong_ones() {
        assert_eq!(terms("  ...  "), Vec::<String>::new());
        assert_eq!(terms("class classes"), ["class"]);
        let long = "x".repeat(MAX_TERM_BYTES + 1);
        assert_eq!(terms(&format!("{long} ok")), ["ok"]);
        assert_eq!(terms("ÄPFEL äpfel"), ["äpfel"]);
    }

    #[test]
    fn light_stem_only_shortens_and_keeps_short_words() {
        for w in ["use", "user", "bus", "decision", "status", "rotating", "a"] {
            assert!(word_is_prefix(light_stem(w), w), "{w}");
        }
        assert_eq!(light_stem("use"), "use");
        assert_eq!(light_stem("rotating"), light_stem("rotate"));
        assert_ne!(light_stem("decision"), light_stem("decided"));
    }

    fn word_is_prefix(stem: &str, word: &str) -> bool {
        word.starts_with(stem)
    }
}
