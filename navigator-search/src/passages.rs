//! The keyword index's passages: a long body is indexed as several documents of a few
//! hundred words each, so BM25 scores a passage, not the whole note.
//!
//! Scored whole, a 30,000-word note that is the only one holding a phrase ranked and
//! calibrated far below short notes holding one of its words: BM25's length normalisation
//! divides its term counts by its length, and the keyword signal is damped when the best
//! match is weak. Cut into passages, the note scores as the passage that holds the phrase
//! would on its own, like the embeddings of its chunks. Short bodies stay one document, as
//! before.
//!
//! Passages are cut at headings and blank lines, packed up to [`PASSAGE_WORDS`] words; a
//! paragraph longer than that is cut into runs of words.

/// Words a passage is packed up to.
pub(crate) const PASSAGE_WORDS: usize = 300;
/// A body of up to this many words stays one document.
const WHOLE_WORDS: usize = PASSAGE_WORDS * 3 / 2;
/// A passage this short is not ended by a heading: a heading and its first lines stay with
/// what came before only when that is a stub.
const MIN_WORDS: usize = PASSAGE_WORDS / 4;

/// The passages of `body`, in order: the body itself when it is short.
pub(crate) fn passages(body: &str) -> Vec<&str> {
    if words(body) <= WHOLE_WORDS {
        return vec![body];
    }
    let mut out = Vec::new();
    // The passage being packed: its byte range in `body` and its word count.
    let mut start: Option<usize> = None;
    let mut end = 0;
    let mut count = 0;
    for (range, n, heading) in paragraphs(body) {
        let starts_new = match start {
            None => false,
            Some(_) => (heading && count >= MIN_WORDS) || count + n > PASSAGE_WORDS,
        };
        if starts_new {
            out.push(body[start.unwrap_or(0)..end].trim());
            start = None;
            count = 0;
        }
        if n > PASSAGE_WORDS {
            if let Some(s) = start.take() {
                out.push(body[s..end].trim());
                count = 0;
            }
            out.extend(word_runs(&body[range.clone()], PASSAGE_WORDS));
            continue;
        }
        start.get_or_insert(range.start);
        end = range.end;
        count += n;
    }
    if let Some(s) = start {
        out.push(body[s..end].trim());
    }
    out.retain(|p| !p.is_empty());
    if out.is_empty() {
        out.push(body);
    }
    out
}

fn words(text: &str) -> usize {
    text.split_whitespace().count()
}

/// The paragraphs of `body`: byte range, word count, and whether it starts with a markdown
/// heading. Blank lines end a paragraph; a heading line starts one.
fn paragraphs(body: &str) -> Vec<(std::ops::Range<usize>, usize, bool)> {
    let mut out = Vec::new();
    let mut at = 0;
    let mut current: Option<(usize, usize, usize, bool)> = None;
    for line in body.split_inclusive('\n') {
        let (from, to) = (at, at + line.len());
        at = to;
        let text = line.trim();
        if text.is_empty() {
            if let Some((s, e, n, h)) = current.take() {
                out.push((s..e, n, h));
            }
            continue;
        }
        let heading = text.starts_with('#');
        if heading {
            if let Some((s, e, n, h)) = current.take() {
                out.push((s..e, n, h));
            }
        }
        let n = words(text);
        current = Some(match current {
            Some((s, _, m, h)) => (s, to, m + n, h),
            None => (from, to, n, heading),
        });
    }
    if let Some((s, e, n, h)) = current {
        out.push((s..e, n, h));
    }
    out
}

/// `text` cut into runs of `max` words (the last may be shorter), as slices of it.
fn word_runs(text: &str, max: usize) -> Vec<&str> {
    let mut runs = Vec::new();
    let mut starts = text
        .char_indices()
        .filter(|&(k, c)| {
            !c.is_whitespace()
                && text[..k]
                    .chars()
                    .next_back()
                    .is_none_or(char::is_whitespace)
        })
        .map(|(k, _)| k)
        .peekable();
    let mut run_start = None;
    let mut n = 0;
    while let Some(k) = starts.next() {
        if n == max {
            runs.push(text[run_start.unwrap_or(0)..k].trim());
            run_start = None;
            n = 0;
        }
        run_start.get_or_insert(k);
        n += 1;
        if starts.peek().is_none() {
            runs.push(text[run_start.unwrap_or(k)..].trim());
        }
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn para(word: &str, n: usize) -> String {
        vec![word; n].join(" ")
    }

    #[test]
    fn a_short_body_is_one_passage() {
        assert_eq!(passages(""), [""]);
        let body = format!("{}\n\n{}", para("a", 200), para("b", 200));
        assert_eq!(passages(&body), [body.as_str()]);
    }

    #[test]
    fn a_long_body_is_packed_from_paragraphs_and_cut_at_headings() {
        let body = format!(
            "{}\n\n{}\n\n## Second\n\n{}\n\n{}\n",
            para("a", 200),
            para("b", 150),
            para("c", 100),
            para("d", 50)
        );
        let got = passages(&body);
        assert_eq!(got.len(), 3, "{got:?}");
        assert_eq!(words(got[0]), 200);
        assert_eq!(words(got[1]), 150);
        assert!(got[2].starts_with("## Second"), "{:?}", &got[2][..20]);
        assert_eq!(words(got[2]), 2 + 100 + 50);
        // Every word of the body is in one passage.
        let total: usize = got.iter().map(|p| words(p)).sum();
        assert_eq!(total, words(&body));
    }

    #[test]
    fn a_paragraph_longer_than_a_passage_is_cut_into_word_runs() {
        let body = format!("{}\n\n{}", para("x", 700), para("y", 10));
        let got = passages(&body);
        let counts: Vec<usize> = got.iter().map(|p| words(p)).collect();
        assert_eq!(counts, [300, 300, 100, 10]);
        assert!(got.iter().all(|p| p.trim() == *p && !p.is_empty()));
    }

    #[test]
    fn unicode_text_is_cut_on_character_boundaries() {
        let body = vec!["café 寿司 Straße"; 300].join("\n\n");
        let got = passages(&body);
        assert!(got.len() > 1);
        let total: usize = got.iter().map(|p| words(p)).sum();
        assert_eq!(total, 900);
    }
}
