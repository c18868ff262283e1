//! Text matching for the ranking: terms (identifiers split, stop words dropped, plurals
//! folded), their English stems, and BM25 over one field of every file with weighted query
//! terms.

use rust_stemmers::{Algorithm, Stemmer};
use std::collections::HashMap;

pub(crate) const STOPWORDS: &[&str] = &[
    "the", "and", "for", "with", "from", "into", "that", "this", "add", "use", "new", "fix",
    "make", "when", "not", "all", "are", "can", "its", "our", "out", "per", "via", "of", "to",
    "in", "on", "an", "a", "is", "it", "be", "as", "at", "by", "or", "we", "so", "up", "do", "if",
    "no",
];

/// Splits text into lowercase terms: identifiers are split at `_`, `-`, `.`, `/` and
/// camelCase humps, stop words dropped, plurals folded. Chinese, Japanese and Korean text,
/// written without spaces between words, becomes its overlapping pairs of characters (a lone
/// character stays one term), so a goal in those scripts meets the comments and docs that share
/// its words.
///
/// ```
/// use navigator_context::terms;
/// assert_eq!(terms("AuthMiddleware::parse_tokens"), vec!["auth", "middleware", "parse", "token"]);
/// assert_eq!(terms("解析配置 in parse_config"), vec!["解析", "析配", "配置", "parse", "config"]);
/// ```
pub fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for run in text.split(|c: char| !c.is_alphanumeric()) {
        // Runs of CJK characters and of everything else, in order.
        let mut rest = run;
        while !rest.is_empty() {
            let cjk = rest.chars().next().is_some_and(is_cjk);
            let end = rest
                .char_indices()
                .find(|&(_, c)| is_cjk(c) != cjk)
                .map_or(rest.len(), |(i, _)| i);
            let (part, tail) = rest.split_at(end);
            rest = tail;
            if cjk {
                let chars: Vec<char> = part.chars().collect();
                if chars.len() == 1 {
                    out.push(part.to_string());
                }
                out.extend(chars.windows(2).map(|w| w.iter().collect::<String>()));
            } else {
                word_terms(part, &mut out);
            }
        }
    }
    out
}

/// Whether `c` is written without spaces between words: Han ideographs, kana, Hangul.
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF
        | 0x20000..=0x2FA1F)
}

/// The terms of one run of letters and digits (no CJK): split at camelCase humps and digits.
fn word_terms(word: &str, out: &mut Vec<String>) {
    let chars: Vec<char> = word.chars().collect();
    let mut start = 0;
    for i in 1..=chars.len() {
        let boundary = i == chars.len()
            || (chars[i].is_uppercase() && chars[i - 1].is_lowercase())
            || (chars[i].is_uppercase()
                && i + 1 < chars.len()
                && chars[i + 1].is_lowercase()
                && chars[i - 1].is_uppercase())
            || (chars[i].is_ascii_digit() != chars[i - 1].is_ascii_digit());
        if boundary {
            let t: String = chars[start..i].iter().collect::<String>().to_lowercase();
            start = i;
            if t.len() < 2
                || t.chars().all(|c| c.is_ascii_digit())
                || STOPWORDS.contains(&t.as_str())
            {
                continue;
            }
            out.push(fold(t));
        }
    }
}

fn fold(t: String) -> String {
    if t.len() > 4 && t.ends_with("ies") {
        format!("{}y", &t[..t.len() - 3])
    } else if t.len() > 3 && t.ends_with('s') && !t.ends_with("ss") && !t.ends_with("us") {
        t[..t.len() - 1].to_string()
    } else {
        t
    }
}

/// Reduces terms to their English stems (Snowball), memoised per distinct term: "scoring",
/// "scores" and `score` meet, so a goal's verbs find the files named by their nouns.
pub(crate) struct Stems {
    stemmer: Stemmer,
    memo: HashMap<String, String>,
}

impl Stems {
    pub(crate) fn new() -> Self {
        Stems {
            stemmer: Stemmer::create(Algorithm::English),
            memo: HashMap::new(),
        }
    }

    pub(crate) fn of(&mut self, term: String) -> String {
        match self.memo.get(&term) {
            Some(s) => s.clone(),
            None => {
                let s = self.stemmer.stem(&term).into_owned();
                self.memo.insert(term, s.clone());
                s
            }
        }
    }

    /// Frequencies of the stems of `terms`, and how many terms there were. Counting the
    /// terms first stems each distinct term once per document, not once per occurrence.
    pub(crate) fn counts(&mut self, terms: Vec<String>) -> (HashMap<String, u32>, usize) {
        let n = terms.len();
        let mut raw: HashMap<String, u32> = HashMap::new();
        for t in terms {
            *raw.entry(t).or_insert(0) += 1;
        }
        let mut tf: HashMap<String, u32> = HashMap::with_capacity(raw.len());
        for (t, c) in raw {
            *tf.entry(self.of(t)).or_insert(0) += c;
        }
        (tf, n)
    }
}

/// Term frequencies of one field of every file, with BM25 statistics.
pub(crate) struct Field {
    docs: Vec<HashMap<String, u32>>,
    lens: Vec<f64>,
    avg: f64,
    df: HashMap<String, u32>,
}

impl Field {
    /// A field from each document's term frequencies and term count.
    pub(crate) fn new(docs: Vec<(HashMap<String, u32>, usize)>) -> Field {
        let mut df: HashMap<String, u32> = HashMap::new();
        let lens: Vec<f64> = docs.iter().map(|(_, n)| *n as f64).collect();
        let docs: Vec<HashMap<String, u32>> = docs
            .into_iter()
            .map(|(tf, _)| {
                for t in tf.keys() {
                    *df.entry(t.clone()).or_insert(0) += 1;
                }
                tf
            })
            .collect();
        let avg = (lens.iter().sum::<f64>() / lens.len().max(1) as f64).max(1.0);
        Field {
            docs,
            lens,
            avg,
            df,
        }
    }

    /// Whether `term` is in over half of the documents: a match on it tells nothing (`src`,
    /// `rs` in every path), so no reason names it.
    pub(crate) fn common(&self, term: &str) -> bool {
        self.df
            .get(term)
            .is_some_and(|&d| 2 * d as usize > self.docs.len())
    }

    /// Whether some document holds `term`.
    pub(crate) fn holds(&self, term: &str) -> bool {
        self.df.contains_key(term)
    }

    /// BM25 (k1 = 1.2, b = 0.75) of every document, each query term's share multiplied by
    /// its weight, and the query terms each matched.
    pub(crate) fn scores(&self, query: &[(String, f64)]) -> Vec<(f64, Vec<String>)> {
        let n = self.docs.len() as f64;
        // Only the terms some document holds, each with its idf, looked up once: a goal pasted
        // from a log holds thousands of words no file has.
        let query: Vec<(&String, f64, f64)> = query
            .iter()
            .filter_map(|(q, w)| {
                let df = f64::from(*self.df.get(q)?);
                Some((q, *w, ((n - df + 0.5) / (df + 0.5) + 1.0).ln()))
            })
            .collect();
        self.docs
            .iter()
            .zip(&self.lens)
            .map(|(tf, len)| {
                let mut s = 0.0;
                let mut hit = Vec::new();
                for &(q, w, idf) in &query {
                    let Some(&f) = tf.get(q) else { continue };
                    let f = f64::from(f);
                    s += w * idf * f * 2.2 / (f + 1.2 * (0.25 + 0.75 * len / self.avg));
                    hit.push(q.clone());
                }
                (s, hit)
            })
            .collect()
    }
}

/// Query stems this long or longer that no field holds may be misspellings of one that does.
const TYPO_MIN_LEN: usize = 7;
/// From this length on a misspelling may be two edits away (one below it).
const TYPO_TWO_EDITS_LEN: usize = 10;
/// A mended term weighs this share of the misspelt one: it is a guess.
pub(crate) const TYPO_WEIGHT: f64 = 0.8;

/// The edits (optimal string alignment: an adjacent swap is one) between `word` and `reading`,
/// both lower case, when they are few enough for `word` to misspell `reading`: at most one, two
/// once `word` has `two_from` bytes, the same first letter.
pub(crate) fn misspelling_edits(word: &str, reading: &str, two_from: usize) -> Option<usize> {
    let most = if word.len() >= two_from { 2 } else { 1 };
    if reading.len().abs_diff(word.len()) > most || reading.chars().next() != word.chars().next() {
        return None;
    }
    Some(strsim::osa_distance(word, reading)).filter(|&d| d <= most)
}

/// `query` with each long term of `code` (the stems of the identifiers and paths the goal
/// writes) that none of `fields` holds followed by the term of `names` (path and symbol words)
/// it most likely misspells: one edit away (two for long terms, an adjacent swap counting as
/// one), same first letter, the most common on ties; a term with two equally near, equally
/// common readings is left alone. "AuthencationMiddleware" then finds `authentication.py`.
/// English words are never mended: a report's "excerpt" or "conform" is no typo of `except`
/// or `confirm`, only a word the code does not use.
///
/// Also returns, per mended term, the term it was read for.
pub(crate) fn with_typos_mended(
    query: &[(String, f64)],
    code: &std::collections::HashSet<String>,
    fields: &[&Field],
    names: &[&Field],
) -> (Vec<(String, f64)>, HashMap<String, String>) {
    let mut out = query.to_vec();
    let mut read_for = HashMap::new();
    for (q, w) in query {
        let len = q.chars().count();
        if len < TYPO_MIN_LEN
            || !code.contains(q)
            || !q.chars().all(|c| c.is_ascii_lowercase())
            || fields.iter().any(|f| f.holds(q))
        {
            continue;
        }
        let mut best: Option<(usize, u32, &String, bool)> = None;
        for f in names {
            for (t, &df) in &f.df {
                let Some(d) = misspelling_edits(q, t, TYPO_TWO_EDITS_LEN).filter(|&d| d > 0) else {
                    continue;
                };
                best = match best {
                    Some((bd, bdf, bt, tied))
                        if (bd, std::cmp::Reverse(bdf)) < (d, std::cmp::Reverse(df)) =>
                    {
                        Some((bd, bdf, bt, tied))
                    }
                    Some((bd, bdf, bt, tied)) if bd == d && bdf == df => {
                        Some((bd, bdf, bt, tied || bt != t))
                    }
                    _ => Some((d, df, t, false)),
                };
            }
        }
        if let Some((_, _, t, false)) = best {
            if !out.iter().any(|(o, _)| o == t) {
                out.push((t.clone(), w * TYPO_WEIGHT));
                read_for.insert(t.clone(), q.clone());
            }
        }
    }
    (out, read_for)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A field of one document per slice, each term once.
    fn field(docs: &[&[&str]]) -> Field {
        Field::new(
            docs.iter()
                .map(|d| (d.iter().map(|t| (t.to_string(), 1)).collect(), d.len()))
                .collect(),
        )
    }

    fn mended(query: &str, names: &Field) -> Vec<String> {
        let code = std::collections::HashSet::from([query.to_string()]);
        with_typos_mended(&[(query.to_string(), 1.0)], &code, &[names], &[names])
            .0
            .into_iter()
            .skip(1)
            .map(|(t, w)| {
                assert_eq!(w, TYPO_WEIGHT);
                t
            })
            .collect()
    }

    #[test]
    fn a_long_term_no_file_holds_is_read_as_the_name_it_misspells() {
        let names = field(&[&["authentication", "middleware"], &["asgi", "middleware"]]);
        assert_eq!(mended("authencation", &names), ["authentication"]);
        // Two letters swapped are one edit.
        assert_eq!(mended("middlewaer", &names), ["middleware"]);
        // The most common of equally near readings.
        let names = field(&[&["handler"], &["handler"], &["handled"]]);
        assert_eq!(mended("handlez", &names), ["handler"]);
    }

    #[test]
    fn only_words_the_goal_writes_as_code_are_mended() {
        let names = field(&[&["except", "confirm"]]);
        let code = std::collections::HashSet::from(["confrim".to_string()]);
        let query = [("excerpt".to_string(), 1.0), ("confrim".to_string(), 1.0)];
        let (out, read_for) = with_typos_mended(&query, &code, &[&names], &[&names]);
        assert_eq!(read_for["confirm"], "confrim");
        let added: Vec<&str> = out[2..].iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(added, ["confirm"]);
    }

    #[test]
    fn short_held_ambiguous_or_far_terms_are_left_alone() {
        let names = field(&[&["handler", "handles", "parser", "address"], &["decoder"]]);
        // Held by some field.
        assert!(mended("decoder", &names).is_empty());
        // Too short to tell a typo from another word.
        assert!(mended("parsex", &names).is_empty());
        // Two readings, equally near and common, whatever weaker ones come after them.
        assert!(mended("handlex", &names).is_empty());
        // (Each field a new hash order.)
        for _ in 0..8 {
            let names = field(&[
                &["handler", "handles"],
                &["handler", "handles"],
                &["handlez"],
            ]);
            assert!(mended("handlex", &names).is_empty());
        }
        // A different first letter, or two edits in a short term.
        assert!(mended("eddress", &names).is_empty());
        assert!(mended("decodxx", &names).is_empty());
    }
}
