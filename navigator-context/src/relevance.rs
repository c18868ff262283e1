//! Offline relevance of files to a goal: BM25 over four fields (path, symbol names, doc
//! comments, body) blended with a personalised PageRank over the reference graph.
//!
//! Why fields: a goal like "Refactor the auth middleware" names concepts that appear in paths
//! (`src/auth/middleware.rs`) and definitions (`struct AuthMiddleware`) far more reliably than
//! in bodies, where common words drown them. Why the graph: the file that defines what the
//! best matches call is often the one to change, though it may never say the goal's words.

use crate::scan::{FileEntry, RepoMap};
use std::collections::{HashMap, HashSet};

/// Weights of the normalised field scores; body is what plain BM25 ranks on.
const W_PATH: f64 = 1.0;
const W_SYMBOLS: f64 = 1.0;
const W_DOCS: f64 = 0.4;
const W_BODY: f64 = 1.0;
/// Share of the final score that comes from the reference graph.
const W_GRAPH: f64 = 0.25;
/// Tests, benches and examples are rarely what a task changes; they still rank, lower.
const AUXILIARY_PENALTY: f64 = 0.6;
/// Bodies beyond this many bytes add little signal and cost time.
const BODY_BYTES: usize = 64 * 1024;

const STOPWORDS: &[&str] = &[
    "the", "and", "for", "with", "from", "into", "that", "this", "add", "use", "new", "fix",
    "make", "when", "not", "all", "are", "can", "its", "our", "out", "per", "via", "of", "to",
    "in", "on", "an", "a", "is", "it", "be", "as", "at", "by", "or", "we", "so", "up", "do", "if",
    "no",
];

/// One ranked file.
#[derive(Debug, Clone, PartialEq)]
pub struct Scored {
    /// Repository-relative path.
    pub path: String,
    /// Relevance in [0, 1], 1 for the best file.
    pub score: f64,
    /// Why it ranked: the goal terms it matched, by field, and graph neighbours.
    pub reasons: Vec<String>,
}

/// Splits text into lowercase terms: identifiers are split at `_`, `-`, `.`, `/` and
/// camelCase humps, stop words dropped, plurals folded.
///
/// ```
/// use navigator_context::terms;
/// assert_eq!(terms("AuthMiddleware::parse_tokens"), vec!["auth", "middleware", "parse", "token"]);
/// ```
pub fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for word in text.split(|c: char| !c.is_alphanumeric()) {
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
    out
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

/// Term frequencies of one field of every file, with BM25 statistics.
struct Field {
    docs: Vec<HashMap<String, u32>>,
    lens: Vec<f64>,
    avg: f64,
    df: HashMap<String, u32>,
}

impl Field {
    fn new(docs: Vec<Vec<String>>) -> Field {
        let mut df: HashMap<String, u32> = HashMap::new();
        let lens: Vec<f64> = docs.iter().map(|d| d.len() as f64).collect();
        let docs: Vec<HashMap<String, u32>> = docs
            .into_iter()
            .map(|d| {
                let mut tf = HashMap::new();
                for t in d {
                    *tf.entry(t).or_insert(0) += 1;
                }
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

    /// BM25 (k1 = 1.2, b = 0.75) of every document, and the query terms each matched.
    fn scores(&self, query: &[String]) -> Vec<(f64, Vec<String>)> {
        let n = self.docs.len() as f64;
        self.docs
            .iter()
            .zip(&self.lens)
            .map(|(tf, len)| {
                let mut s = 0.0;
                let mut hit = Vec::new();
                for q in query {
                    let Some(&f) = tf.get(q) else { continue };
                    let df = f64::from(self.df[q]);
                    let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
                    let f = f64::from(f);
                    s += idf * f * 2.2 / (f + 1.2 * (0.25 + 0.75 * len / self.avg));
                    hit.push(q.clone());
                }
                (s, hit)
            })
            .collect()
    }
}

fn normalise(v: &mut [f64]) {
    let max = v.iter().cloned().fold(0.0, f64::max);
    if max > 0.0 {
        v.iter_mut().for_each(|x| *x /= max);
    }
}

pub(crate) fn is_auxiliary(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    lower.split('/').any(|seg| {
        matches!(
            seg,
            "test"
                | "tests"
                | "testing"
                | "bench"
                | "benches"
                | "examples"
                | "example"
                | "fixtures"
                | "testdata"
        ) || seg.starts_with("test_")
            || seg.contains("_test.")
            || seg.contains(".test.")
            || seg.contains(".spec.")
    })
}

/// Ranks the files of `map` by relevance to `goal`, best first; files with no signal at all
/// are left out. Ties break by path, so the ranking is deterministic.
pub fn rank(map: &RepoMap, goal: &str) -> Vec<Scored> {
    let query: Vec<String> = {
        let mut seen = HashSet::new();
        terms(goal)
            .into_iter()
            .filter(|t| seen.insert(t.clone()))
            .collect()
    };
    let files = map.files();
    if query.is_empty() || files.is_empty() {
        return Vec::new();
    }
    map.outline_all();
    let path_f = Field::new(files.iter().map(|f| terms(&f.path)).collect());
    let sym_f = Field::new(
        files
            .iter()
            .map(|f| symbol_names(f).flat_map(terms).collect())
            .collect(),
    );
    let doc_f = Field::new(files.iter().map(doc_terms).collect());
    let body_f = Field::new(files.iter().map(|f| terms(body(f))).collect());
    let fields = [
        (&path_f, W_PATH, "path"),
        (&sym_f, W_SYMBOLS, "symbols"),
        (&doc_f, W_DOCS, "docs"),
        (&body_f, W_BODY, "body"),
    ];
    let mut text = vec![0.0; files.len()];
    let mut reasons: Vec<Vec<String>> = vec![Vec::new(); files.len()];
    for (field, w, name) in fields {
        let scored = field.scores(&query);
        let mut s: Vec<f64> = scored.iter().map(|(s, _)| *s).collect();
        normalise(&mut s);
        for (i, (x, (_, hit))) in s.iter().zip(scored).enumerate() {
            text[i] += w * x;
            if !hit.is_empty() && name != "body" {
                reasons[i].push(format!("{name} match: {}", hit.join(", ")));
            }
        }
    }
    for (i, f) in files.iter().enumerate() {
        if is_auxiliary(&f.path) {
            text[i] *= AUXILIARY_PENALTY;
        }
    }
    normalise(&mut text);
    let graph = crate::graph::personalised_pagerank(map, &text);
    let mut scored: Vec<Scored> = files
        .iter()
        .enumerate()
        .filter_map(|(i, f)| {
            let score = (1.0 - W_GRAPH) * text[i] + W_GRAPH * graph.rank[i];
            let mut why = std::mem::take(&mut reasons[i]);
            if let Some(from) = &graph.via[i] {
                why.push(format!("referenced by {from}"));
            }
            (score > 0.0).then(|| Scored {
                path: f.path.clone(),
                score,
                reasons: why,
            })
        })
        .collect();
    scored.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.path.cmp(&b.path))
    });
    let top = scored.first().map(|s| s.score).unwrap_or(1.0);
    scored.iter_mut().for_each(|s| s.score /= top);
    scored
}

pub(crate) fn symbol_names(f: &FileEntry) -> impl Iterator<Item = &str> {
    f.outline()
        .into_iter()
        .flat_map(|o| o.symbols.iter().map(|s| s.name.as_str()))
}

fn doc_terms(f: &FileEntry) -> Vec<String> {
    f.outline()
        .into_iter()
        .flat_map(|o| o.symbols.iter().filter_map(|s| s.doc.as_deref()))
        .flat_map(terms)
        .collect()
}

pub(crate) fn body(f: &FileEntry) -> &str {
    let text = f.text().unwrap_or("");
    let mut end = text.len().min(BODY_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_split_identifiers_and_fold_plurals() {
        assert_eq!(
            terms("HTTPServer handles requests"),
            vec!["http", "server", "handle", "request"]
        );
        assert_eq!(
            terms("parse_yaml2json for the policies"),
            vec!["parse", "yaml", "json", "policy"]
        );
        assert!(terms("the of a").is_empty());
    }

    #[test]
    fn auxiliary_paths_are_recognised() {
        assert!(is_auxiliary("tests/auth.rs"));
        assert!(is_auxiliary("src/auth_test.go"));
        assert!(is_auxiliary("web/login.spec.ts"));
        assert!(!is_auxiliary("src/auth/middleware.rs"));
    }
}
