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

/// The snippet of a result and the field it comes from (`body`, `title` or `tags`).
pub(crate) fn for_hit(
    item: &Item,
    keyword_hit: bool,
    query_terms: &[String],
    snippets: &mut impl Snippets,
) -> (String, &'static str) {
    if keyword_hit {
        if let Some(body) = snippets.highlight(&item.body, query_terms) {
            return (body, "body");
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
    best_passage(&item.body, query_terms, |text| snippets.terms(text))
        .map_or_else(|| (lead(item), "title"), |p| (p, "body"))
}

/// The workspace's light terms ([`navigator_core::text::terms`]) with the best passage as
/// the highlight: for backends without an index-side snippet generator.
pub(crate) struct LightSnippets;

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
