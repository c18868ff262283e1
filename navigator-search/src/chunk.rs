//! Chunking: how an item too long for the embedding model becomes several passages, each
//! embedded on its own, so a passage deep in a long note is found by meaning as well as one
//! at its top.
//!
//! Rules, in order:
//! - an item whose [`Item::embedding_text`] fits the model's window is one chunk with exactly
//!   that text (short items embed as they always did);
//! - otherwise its body is cut at markdown headings (found with pulldown-cmark, so a `#` in a
//!   code block is not a heading) into sections, each knowing its heading path;
//! - a section that fits is one chunk; a longer one is packed from paragraphs, a paragraph
//!   too long from sentences, a sentence too long from word runs, greedily up to the window,
//!   and each further chunk of the section starts with up to [`ChunkLimits::overlap`] tokens
//!   of the one before (a sentence cut by a chunk boundary stays whole in one of them);
//! - every chunk is embedded as `title`, the heading path, then its text: a passage keeps the
//!   context that says what it is about.
//!
//! Token counts come from the embedder's own tokenizer ([`Embedder::count_tokens`]); a
//! chunk's count is the sum of its pieces' counts, which matches the tokenizer's count of
//! the joined text to within a token or two per piece (the model truncates the rare excess).

use crate::snippet::term_positions;
use navigator_core::{Embedder, Item};
use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use std::ops::Range;

/// Most chunks one item is cut into; text past them is still keyword-searchable but not
/// embedded (bounds embedding time and memory for pathological inputs: 4,096 chunks is
/// about a million tokens).
pub(crate) const MAX_CHUNKS: usize = 4_096;

/// The chunk window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ChunkLimits {
    /// Most tokens per chunk, its title and heading path included.
    pub(crate) max_tokens: usize,
    /// Tokens a further chunk of a section repeats from the one before.
    pub(crate) overlap: usize,
}

impl ChunkLimits {
    /// The embedder's window ([`Embedder::max_input_tokens`]) capped at `cap` (a long window
    /// such as BGE-M3's 8,192 tokens makes passages too coarse to point at), with `overlap`.
    pub(crate) fn for_embedder(embedder: &dyn Embedder, cap: usize, overlap: usize) -> Self {
        let max_tokens = embedder.max_input_tokens().unwrap_or(cap).min(cap).max(16);
        Self {
            max_tokens,
            overlap: overlap.min(max_tokens / 4),
        }
    }
}

/// One passage of an item: where it is in the body and the text that is embedded for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Chunk {
    /// Byte range of the passage in the item's body (the whole body for a one-chunk item).
    pub(crate) span: Range<usize>,
    /// What the model embeds: title, heading path and the passage.
    pub(crate) text: String,
}

/// Cuts `item` into chunks that fit `limits`, counting tokens with `count`.
pub(crate) fn chunk_item(
    item: &Item,
    limits: ChunkLimits,
    count: &dyn Fn(&str) -> usize,
) -> Vec<Chunk> {
    let whole = item.embedding_text();
    if item.body.is_empty() || count(&whole) <= limits.max_tokens {
        return vec![Chunk {
            span: 0..item.body.len(),
            text: whole,
        }];
    }
    let mut out = Vec::new();
    for section in sections(&item.body) {
        let prefix = match section.path.is_empty() {
            true => format!("{}\n", item.title),
            false => format!("{}\n{}\n", item.title, section.path.join(" > ")),
        };
        // A prefix that leaves less than a quarter of the window is cut from the chunk text's
        // share, not the text's: the passage matters more than its headings.
        let budget = limits
            .max_tokens
            .saturating_sub(count(&prefix))
            .max(limits.max_tokens / 4);
        for span in pack(&item.body, section.body, budget, limits.overlap, count) {
            if out.len() == MAX_CHUNKS {
                return out;
            }
            let text = format!("{prefix}{}", item.body[span.clone()].trim());
            out.push(Chunk { span, text });
        }
    }
    if out.is_empty() {
        // Only headings: embed the whole text (the model truncates it).
        out.push(Chunk {
            span: 0..item.body.len(),
            text: whole,
        });
    }
    out
}

/// A heading section of a body: its heading path and its text (after the heading line).
#[derive(Debug, PartialEq)]
struct Section {
    path: Vec<String>,
    body: Range<usize>,
}

/// The body cut at its headings; text before the first heading is a section with an empty
/// path. Sections without text are left out (their heading lives on in the path of the
/// sections below it).
fn sections(body: &str) -> Vec<Section> {
    let mut out = Vec::new();
    let mut stack: Vec<(HeadingLevel, String)> = Vec::new();
    let mut start = 0;
    let mut heading: Option<(HeadingLevel, String, usize)> = None;
    let push = |out: &mut Vec<Section>, stack: &[(HeadingLevel, String)], range: Range<usize>| {
        if !body[range.clone()].trim().is_empty() {
            out.push(Section {
                path: stack.iter().map(|(_, t)| t.clone()).collect(),
                body: range,
            });
        }
    };
    for (event, range) in Parser::new_ext(body, Options::empty()).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { level, .. }) => {
                push(&mut out, &stack, start..range.start);
                heading = Some((level, String::new(), range.end));
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some((_, text, _)) = heading.as_mut() {
                    text.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((level, text, end)) = heading.take() {
                    while stack.last().is_some_and(|(l, _)| *l >= level) {
                        stack.pop();
                    }
                    stack.push((level, text.trim().to_string()));
                    start = end;
                }
            }
            _ => {}
        }
    }
    push(&mut out, &stack, start..body.len());
    out
}

/// A piece of text that is not cut further unless it is too long on its own.
#[derive(Debug, Clone)]
struct Piece {
    span: Range<usize>,
    tokens: usize,
}

/// Packs `range` of `body` into spans of at most `budget` tokens, each further span
/// repeating up to `overlap` tokens of whole pieces from the one before.
fn pack(
    body: &str,
    range: Range<usize>,
    budget: usize,
    overlap: usize,
    count: &dyn Fn(&str) -> usize,
) -> Vec<Range<usize>> {
    let tokens = count(&body[range.clone()]);
    if tokens <= budget {
        return vec![trimmed(body, range)];
    }
    let pieces = pieces(body, range, budget, count);
    let mut out: Vec<Range<usize>> = Vec::new();
    let mut i = 0;
    while i < pieces.len() {
        // Back up over the previous chunk's last pieces for the overlap.
        let mut first = i;
        if !out.is_empty() {
            let mut carried = 0;
            while first > 0 && carried + pieces[first - 1].tokens <= overlap {
                carried += pieces[first - 1].tokens;
                first -= 1;
            }
        }
        let mut used: usize = pieces[first..i].iter().map(|p| p.tokens).sum();
        let mut end = i;
        while end < pieces.len() && (end == i || used + pieces[end].tokens <= budget) {
            used += pieces[end].tokens;
            end += 1;
        }
        out.push(pieces[first].span.start..pieces[end - 1].span.end);
        i = end;
    }
    out
}

/// `range` of `body` as paragraphs; a paragraph over `budget` as sentences; a sentence over
/// `budget` as runs of words.
fn pieces(
    body: &str,
    range: Range<usize>,
    budget: usize,
    count: &dyn Fn(&str) -> usize,
) -> Vec<Piece> {
    let mut out = Vec::new();
    for para in split(body, range, paragraph_ends) {
        let tokens = count(&body[para.clone()]);
        if tokens <= budget {
            out.push(Piece { span: para, tokens });
            continue;
        }
        for sentence in split(body, para, sentence_ends) {
            let tokens = count(&body[sentence.clone()]);
            if tokens <= budget {
                out.push(Piece {
                    span: sentence,
                    tokens,
                });
            } else {
                out.extend(word_runs(body, sentence, tokens, budget, count));
            }
        }
    }
    out
}

/// A sentence over budget cut into runs of words of about `budget` tokens each (by the
/// sentence's own tokens per byte), each counted.
fn word_runs(
    body: &str,
    range: Range<usize>,
    tokens: usize,
    budget: usize,
    count: &dyn Fn(&str) -> usize,
) -> Vec<Piece> {
    let bytes_per_run = (range.len() * budget / tokens.max(1)).max(1);
    let mut out = Vec::new();
    let mut start = range.start;
    while start < range.end {
        let mut end = (start + bytes_per_run).min(range.end);
        while !body.is_char_boundary(end) {
            end += 1;
        }
        if end < range.end {
            // Back to the last whitespace, unless the run is one long word.
            if let Some(ws) = body[start..end].rfind(char::is_whitespace) {
                if ws > 0 {
                    end = start + ws;
                }
            }
        }
        let span = trimmed(body, start..end);
        if !span.is_empty() {
            let tokens = count(&body[span.clone()]);
            out.push(Piece { span, tokens });
        }
        start = end;
    }
    out
}

/// `range` of `body` split after every position `ends` reports, trimmed, empty parts left out.
fn split(body: &str, range: Range<usize>, ends: fn(&str) -> Vec<usize>) -> Vec<Range<usize>> {
    let text = &body[range.clone()];
    let mut out = Vec::new();
    let mut start = 0;
    for end in ends(text).into_iter().chain([text.len()]) {
        if end > start {
            let part = trimmed(body, range.start + start..range.start + end);
            if !part.is_empty() {
                out.push(part);
            }
            start = end;
        }
    }
    out
}

/// Offsets just after each blank line (paragraph boundaries).
fn paragraph_ends(text: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut offset = 0;
    let mut previous_blank = false;
    for line in text.split_inclusive('\n') {
        offset += line.len();
        let blank = line.trim().is_empty();
        if blank && !previous_blank {
            out.push(offset);
        }
        previous_blank = blank;
    }
    out
}

/// Offsets just after each sentence end (`.`, `!`, `?` or a line break before whitespace).
fn sentence_ends(text: &str) -> Vec<usize> {
    let bytes = text.as_bytes();
    text.char_indices()
        .filter(|&(i, ch)| {
            matches!(ch, '.' | '!' | '?' | '\n')
                && bytes.get(i + 1).is_none_or(|b| b.is_ascii_whitespace())
        })
        .map(|(i, ch)| i + ch.len_utf8())
        .collect()
}

/// `range` without surrounding whitespace.
fn trimmed(body: &str, range: Range<usize>) -> Range<usize> {
    let text = &body[range.clone()];
    let start = range.start + (text.len() - text.trim_start().len());
    let end = range.start + text.trim_end().len();
    start..end.max(start)
}

/// An item's embedding as the engine stores it: one vector per chunk, with where the chunk
/// is in the body and a hash of the text it embedded.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ItemVectors {
    /// The chunks in body order (at least one for an indexed item).
    pub chunks: Vec<ChunkVector>,
}

/// One embedded chunk of an item.
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkVector {
    /// Byte offset of the passage in the item's body.
    pub start: u32,
    /// Byte offset just past the passage (clamped to the body's length when used; a vector
    /// given for a whole item spans `0..u32::MAX`).
    pub end: u32,
    /// [`text_hash`] of the embedded text (0 when not known).
    pub text_hash: u64,
    /// The vector.
    pub vector: Vec<f32>,
}

impl ItemVectors {
    /// One vector standing for the whole item (what
    /// [`SearchEngine::upsert_with_vectors`](crate::SearchEngine::upsert_with_vectors) takes).
    pub fn whole(vector: Vec<f32>) -> Self {
        Self {
            chunks: vec![ChunkVector {
                start: 0,
                end: u32::MAX,
                text_hash: 0,
                vector,
            }],
        }
    }

    /// The passage of `body` that chunk `index` embedded (empty for an unknown index; cut to
    /// character boundaries).
    pub fn passage<'b>(&self, body: &'b str, index: usize) -> &'b str {
        let Some(c) = self.chunks.get(index) else {
            return "";
        };
        let clamp = |at: u32| {
            let mut at = (at as usize).min(body.len());
            while !body.is_char_boundary(at) {
                at -= 1;
            }
            at
        };
        let (start, end) = (clamp(c.start), clamp(c.end));
        &body[start..end.max(start)]
    }
}

/// A stable 64-bit hash of a chunk's embedded text (FNV-1a): a chunk whose text did not
/// change keeps its vector when its item is written again.
pub fn text_hash(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Per chunk of `stored`, how well it covers the query terms: distinct terms first, then
/// occurrences (one pass over the body, see [`term_positions`]). What a keyword-mode result
/// of a chunked item takes its snippet passage by, on both backends.
pub(crate) fn term_overlaps(body: &str, stored: &ItemVectors, query_terms: &[String]) -> Vec<f32> {
    // Positions come in text order, so each chunk's run is found by binary search.
    let found = term_positions(body, query_terms);
    stored
        .chunks
        .iter()
        .map(|c| {
            let (start, end) = (c.start as usize, c.end as usize);
            let from = found.partition_point(|(at, _)| *at < start);
            let (mut seen, mut more, mut count) = (0u64, Vec::new(), 0usize);
            for &(_, t) in found[from..].iter().take_while(|(at, _)| *at < end) {
                count += 1;
                match t < 64 {
                    true => seen |= 1 << t,
                    false if !more.contains(&t) => more.push(t),
                    false => {}
                }
            }
            let distinct = seen.count_ones() as usize + more.len();
            distinct as f32 + count as f32 / (count as f32 + 1.0)
        })
        .collect()
}

/// The index of the largest value (the first on ties); `None` when empty: the best chunk
/// by [`term_overlaps`] or by similarity to the query.
pub(crate) fn argmax(values: &[f32]) -> Option<usize> {
    values
        .iter()
        .enumerate()
        .fold(None, |best: Option<(usize, f32)>, (i, &v)| match best {
            Some((_, b)) if b >= v => best,
            _ => Some((i, v)),
        })
        .map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use navigator_core::ItemType;

    fn words(text: &str) -> usize {
        text.split_whitespace().count()
    }

    fn item(body: &str) -> Item {
        let at = "2026-01-01T00:00:00Z".parse().unwrap();
        Item::new("n", ItemType::Resource, "Notes", at)
            .unwrap()
            .with_body(body)
    }

    fn limits(max_tokens: usize, overlap: usize) -> ChunkLimits {
        ChunkLimits {
            max_tokens,
            overlap,
        }
    }

    #[test]
    fn a_short_item_is_one_chunk_with_its_embedding_text() {
        let it = item("A short body.");
        let chunks = chunk_item(&it, limits(64, 8), &words);
        assert_eq!(chunks.len(), 1);
        assert_eq!(chunks[0].text, it.embedding_text());
        assert_eq!(chunks[0].span, 0..it.body.len());
    }

    #[test]
    fn sections_carry_their_heading_path_and_skip_code_block_hashes() {
        let body = "Intro text.\n\n# Alpha\n\nalpha text\n\n## Beta\n\n```\n# not a heading\n```\n\n# Gamma\n\ngamma text\n";
        let s = sections(body);
        let paths: Vec<Vec<String>> = s.iter().map(|s| s.path.clone()).collect();
        assert_eq!(
            paths,
            vec![
                vec![],
                vec!["Alpha".to_string()],
                vec!["Alpha".to_string(), "Beta".to_string()],
                vec!["Gamma".to_string()],
            ]
        );
        assert!(body[s[2].body.clone()].contains("# not a heading"));
        assert_eq!(body[s[3].body.clone()].trim(), "gamma text");
    }

    #[test]
    fn a_long_note_is_cut_at_headings_and_every_chunk_fits() {
        let section = |h: &str, n: usize| format!("## {h}\n\n{}\n\n", "word ".repeat(n));
        let body = format!(
            "{}{}{}",
            section("One", 10),
            section("Two", 10),
            section("Three", 10)
        );
        let it = item(&body);
        let chunks = chunk_item(&it, limits(16, 0), &words);
        assert_eq!(chunks.len(), 3);
        assert!(chunks[1].text.starts_with("Notes\nTwo\nword"));
        for c in &chunks {
            assert!(words(&c.text) <= 16, "{:?}", c.text);
            assert_eq!(it.body[c.span.clone()].trim(), "word ".repeat(10).trim());
        }
    }

    #[test]
    fn a_long_section_is_packed_from_sentences_with_overlap() {
        let sentences: Vec<String> = (0..12)
            .map(|i| format!("Sentence {i} has five words."))
            .collect();
        let body = sentences.join(" ");
        let it = item(&body);
        let chunks = chunk_item(&it, limits(16, 5), &words);
        assert!(chunks.len() > 2);
        for c in &chunks {
            assert!(words(&c.text) <= 16, "{:?}", c.text);
        }
        // Every sentence is in some chunk, and consecutive chunks share one sentence.
        for s in &sentences {
            assert!(chunks.iter().any(|c| c.text.contains(s.as_str())), "{s}");
        }
        for pair in chunks.windows(2) {
            assert!(pair[1].span.start < pair[0].span.end, "{pair:?}");
        }
    }

    #[test]
    fn one_huge_word_run_is_cut_on_whitespace_and_non_ascii_is_safe() {
        let body = "é ".repeat(500) + &"x".repeat(3000);
        let it = item(&body);
        let chunks = chunk_item(&it, limits(64, 8), &|t: &str| t.len().div_ceil(8));
        assert!(chunks.len() > 3);
        let covered: usize = chunks.iter().map(|c| c.span.len()).sum();
        assert!(covered >= body.trim().len() - 500, "nothing large is lost");
    }

    #[test]
    fn a_note_of_only_headings_still_has_one_chunk() {
        let body = "# A\n# B\n# C\n".repeat(20);
        let chunks = chunk_item(&item(&body), limits(8, 0), &words);
        assert_eq!(chunks.len(), 1);
    }

    #[test]
    fn the_best_chunk_by_terms_covers_most_distinct_query_terms() {
        let body = "alpha beta. alpha alpha. beta gamma alpha.";
        let span = |start: u32, end: u32| ChunkVector {
            start,
            end,
            text_hash: 0,
            vector: Vec::new(),
        };
        let stored = ItemVectors {
            chunks: vec![span(0, 11), span(12, 24), span(25, 43)],
        };
        let terms = ["alpha".to_string(), "gamma".to_string()];
        let overlaps = term_overlaps(body, &stored, &terms);
        assert_eq!(argmax(&overlaps), Some(2), "{overlaps:?}");
        assert!(overlaps[1] > overlaps[0], "more occurrences rank higher");
        assert_eq!(argmax(&[]), None);
        assert_eq!(argmax(&[0.5, 0.5]), Some(0), "the first on ties");
    }

    #[test]
    fn text_hash_is_stable() {
        assert_eq!(text_hash(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(text_hash("a"), 0xaf63_dc4c_8601_ec8c);
        assert_ne!(text_hash("ab"), text_hash("ba"));
    }
}
