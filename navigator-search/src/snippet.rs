//! Snippets: at most [`MAX_SNIPPET_CHARS`] characters showing why an item matched, by one
//! rule for every backend ([`for_hit`]).
//!
//! A keyword hit shows the body around the query terms when the body has any (the backend's
//! highlighter: tantivy's snippet generator embedded, the best passage on PostgreSQL), else
//! the lead when the title matched, else the tags. A semantic-only hit, which may share no
//! word with the query, shows the best-matching passage: the sentence sharing the most
//! analysed terms with the query, else the item's lead sentence.

use navigator_core::Item;

/// The longest snippet returned.
pub const MAX_SNIPPET_CHARS: usize = 150;

/// A backend's text analysis for snippets.
pub(crate) trait Snippets {
    /// The distinct analysed terms of `text` (the analysis the query terms went through).
    fn terms(&mut self, text: &str) -> Vec<String>;

    /// A snippet of `body` around `query_terms`; `None` when the body has none of them.
    fn highlight(&mut self, body: &str, query_terms: &[String]) -> Option<String>;
}

/// The snippet of a result and the field it comes from (`body`, `title` or `tags`). For a
/// chunked item `passage` is its best chunk, where the body snippet is taken from (the
/// whole body when it has none of the query terms).
pub(crate) fn for_hit(
    item: &Item,
    passage: Option<&str>,
    keyword_hit: bool,
    query_terms: &[String],
    snippets: &mut impl Snippets,
) -> (String, &'static str) {
    let body = passage.unwrap_or(&item.body);
    if keyword_hit {
        if let Some(found) = snippets.highlight(body, query_terms) {
            return (found, "body");
        }
        if passage.is_some() {
            if let Some(found) = snippets.highlight(&item.body, query_terms) {
                return (found, "body");
            }
        }
        if snippets
            .terms(&item.title)
            .iter()
            .any(|t| query_terms.contains(t))
        {
            return (lead(item), "title");
        }
        if let Some(tags) = tags(item) {
            return (tags, "tags");
        }
    }
    best_passage(body, query_terms, |text| snippets.terms(text))
        .map_or_else(|| (lead(item), "title"), |p| (p, "body"))
}

/// The workspace's light terms ([`navigator_core::text::terms`]) with the best passage as
/// the highlight: for backends without an index-side snippet generator.
#[cfg(feature = "postgres")]
pub(crate) struct LightSnippets;

#[cfg(feature = "postgres")]
impl Snippets for LightSnippets {
    fn terms(&mut self, text: &str) -> Vec<String> {
        navigator_core::text::terms(text)
    }

    fn highlight(&mut self, body: &str, query_terms: &[String]) -> Option<String> {
        let terms = navigator_core::text::terms(body);
        if !terms.iter().any(|t| query_terms.contains(t)) {
            return None;
        }
        best_passage(body, query_terms, navigator_core::text::terms)
    }
}

/// Where in `text` words of the query occur: `(byte offset, index into query_terms)` for
/// each word that one of the analysed (lower-cased, stemmed) `query_terms` is a stem of. One
/// pass without the analyser: a word matches a stem it starts with (`studies`, `studi`), or
/// the stem less its last letter when that is an `i` (`happy`, `happi`). Cheap enough to
/// run over whole long notes, close enough to choose the passage a snippet comes from (the
/// analyser then highlights inside it).
pub(crate) fn term_positions(text: &str, query_terms: &[String]) -> Vec<(usize, usize)> {
    // Terms by their first two bytes: most words share them with no term and cost a few
    // two-byte comparisons (a query has few terms: a scan beats hashing every word), and a
    // word whose first byte starts no term is skipped at once.
    let mut by_start: Vec<([u8; 2], usize)> = Vec::new();
    let mut short: Vec<usize> = Vec::new();
    let mut first = [false; 256];
    for (i, t) in query_terms.iter().enumerate() {
        match t.as_bytes() {
            [a, b, ..] => {
                let key = [a.to_ascii_lowercase(), b.to_ascii_lowercase()];
                first[usize::from(key[0])] = true;
                first[usize::from(key[0].to_ascii_uppercase())] = true;
                by_start.push((key, i));
            }
            _ => short.push(i),
        }
    }
    let any_first = !short.is_empty();
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if !WORD_BYTE[usize::from(bytes[i])] {
            i += 1;
            continue;
        }
        let start = i;
        let mut ascii = bytes[i] < 0x80;
        i += 1;
        while i < bytes.len() && WORD_BYTE[usize::from(bytes[i])] {
            ascii &= bytes[i] < 0x80;
            i += 1;
        }
        if ascii && !any_first && !first[usize::from(bytes[start])] {
            continue;
        }
        // Word bytes are ASCII letters and digits or parts of non-ASCII characters, so the
        // run ends on a character boundary.
        let word = &text[start..i];
        let matched = if ascii {
            let w = word.as_bytes();
            let start = match w {
                [a, b, ..] => Some([a.to_ascii_lowercase(), b.to_ascii_lowercase()]),
                _ => None,
            };
            by_start
                .iter()
                .filter(|(key, _)| Some(*key) == start)
                .map(|(_, t)| *t)
                .chain(short.iter().copied())
                .find(|&t| stem_of_ascii(w, &query_terms[t]))
        } else {
            let lower = word.to_lowercase();
            query_terms.iter().position(|t| stem_of(&lower, t))
        };
        if let Some(t) = matched {
            out.push((start, t));
        }
    }
    out
}

/// [`is_word_byte`] for every byte value.
const WORD_BYTE: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = is_word_byte(b as u8);
        b += 1;
    }
    table
};

/// Letters and digits, and every byte of a non-ASCII character (treated as a letter).
const fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b >= 0x80
}

/// [`stem_of`] for an ASCII word, without lower-casing it first.
fn stem_of_ascii(word: &[u8], stem: &str) -> bool {
    let stem = stem.as_bytes();
    let prefix = |n: usize| word.len() >= n && word[..n].eq_ignore_ascii_case(&stem[..n]);
    !stem.is_empty()
        && (prefix(stem.len())
            || (stem.len() > 3 && stem.ends_with(b"i") && prefix(stem.len() - 1)))
}

/// Whether `stem` (analysed) is the stem of the lower-cased `word`.
fn stem_of(word: &str, stem: &str) -> bool {
    if stem.is_empty() {
        return false;
    }
    word.starts_with(stem)
        || (stem.len() > 3 && stem.ends_with('i') && word.starts_with(&stem[..stem.len() - 1]))
}

/// Splits `text` into sentences (on `.`, `!`, `?` or a line break followed by whitespace).
pub(crate) fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    for (i, ch) in text.char_indices() {
        let ends = matches!(ch, '.' | '!' | '?' | '\n')
            && bytes.get(i + 1).is_none_or(|b| b.is_ascii_whitespace());
        if ends {
            let s = text[start..=i].trim();
            if !s.is_empty() {
                out.push(s);
            }
            start = i + 1;
        }
    }
    let rest = text[start..].trim();
    if !rest.is_empty() {
        out.push(rest);
    }
    out
}

/// The sentence of `text` that shares the most terms with `query_terms` (as produced by
/// `analyze`, the index's analyser), the first sentence on ties; `None` for empty text.
pub(crate) fn best_passage(
    text: &str,
    query_terms: &[String],
    mut analyze: impl FnMut(&str) -> Vec<String>,
) -> Option<String> {
    let mut best: Option<(usize, &str)> = None;
    for s in sentences(text) {
        let overlap = analyze(s)
            .iter()
            .filter(|t| query_terms.contains(t))
            .count();
        if best.is_none_or(|(b, _)| overlap > b) {
            best = Some((overlap, s));
        }
    }
    best.map(|(_, s)| truncate(s, MAX_SNIPPET_CHARS))
}

/// `s` cut to at most `max` characters on a word boundary, with an ellipsis when cut.
pub(crate) fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let cut: String = s.chars().take(max - 1).collect();
    let cut = match cut.rfind(char::is_whitespace) {
        Some(i) if i > max / 2 => &cut[..i],
        _ => cut.as_str(),
    };
    format!("{}…", cut.trim_end())
}

/// The lead of an item: the start of its body, or its title when the body is empty.
pub(crate) fn lead(item: &Item) -> String {
    let text = if item.body.is_empty() {
        &item.title
    } else {
        &item.body
    };
    truncate(text, MAX_SNIPPET_CHARS)
}

/// An item's tags as a snippet; `None` when it has none.
pub(crate) fn tags(item: &Item) -> Option<String> {
    (!item.tags.is_empty()).then(|| truncate(&item.tags.join(", "), MAX_SNIPPET_CHARS))
}

#[cfg(test)]
mod term_tests {
    use super::term_positions;

    #[test]
    fn words_match_their_stems_with_offsets() {
        let terms = vec!["studi".to_string(), "happi".to_string(), "bake".to_string()];
        let text = "Two Studies; happy bakers, unhappy cats. Bake!";
        let found = term_positions(text, &terms);
        let words: Vec<(&str, usize)> = found
            .iter()
            .map(|&(at, t)| (&text[at..at + 4], t))
            .collect();
        assert_eq!(words, [("Stud", 0), ("happ", 1), ("bake", 2), ("Bake", 2)]);
        assert!(term_positions("nothing here", &terms).is_empty());
        assert!(term_positions("x", &[String::new()]).is_empty());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    }

    #[test]
    fn picks_the_sentence_sharing_most_terms() {
        let text = "Met at a conference. UX designer who builds design systems. Lives in Lisbon.";
        let q = words("design systems person");
        assert_eq!(
            best_passage(text, &q, words).as_deref(),
            Some("UX designer who builds design systems.")
        );
        assert_eq!(best_passage("", &q, words), None);
        assert_eq!(
            best_passage(text, &words("zzz"), words).as_deref(),
            Some("Met at a conference.")
        );
    }

    #[test]
    fn truncates_on_words_within_the_limit() {
        let long = "word ".repeat(60);
        let t = truncate(&long, MAX_SNIPPET_CHARS);
        assert!(t.chars().count() <= MAX_SNIPPET_CHARS);
        assert!(t.ends_with('…'));
        assert_eq!(truncate("short", 150), "short");
        assert_eq!(
            sentences("v1.2 is out. Yes!\nNext"),
            vec!["v1.2 is out.", "Yes!", "Next"]
        );
    }
}
