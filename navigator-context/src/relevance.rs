//! Offline relevance of files to a goal: BM25 over the English stems of four fields (path,
//! symbol names, doc comments, body) plus directories the goal names, blended with a
//! personalised PageRank over the reference graph; module roots are lifted towards the best
//! file of their module, files with no grammar count less.
//!
//! Why fields: a goal like "Refactor the auth middleware" names concepts that appear in paths
//! (`src/auth/middleware.rs`) and definitions (`struct AuthMiddleware`) far more reliably than
//! in bodies, where common words drown them. Why the graph: the file that defines what the
//! best matches call is often the one to change, though it may never say the goal's words.

use crate::scan::{body, symbol_names, FileEntry, RepoMap};
use rust_stemmers::{Algorithm, Stemmer};
use std::collections::{HashMap, HashSet};

/// Weights of the normalised field scores; body is what plain BM25 ranks on.
const W_PATH: f64 = 1.0;
const W_SYMBOLS: f64 = 1.0;
const W_DOCS: f64 = 0.4;
const W_BODY: f64 = 1.5;
/// Files inside a directory named by the goal's scope prefix (`toc: ...`) score this share
/// more.
const PREFIX_WEIGHT: f64 = 0.5;
/// Weight of whole goal words naming a directory of the path.
const W_SCOPE: f64 = 0.6;
/// A module root scores at least this share of the best file below it.
const ROOT_SHARE: f64 = 0.3;
/// Share of the final score that comes from the reference graph.
const W_GRAPH: f64 = 0.25;
/// Tests, benches and examples are rarely what a task changes; they still rank, lower.
const AUXILIARY_PENALTY: f64 = 0.6;
/// Files with no grammar (manifests, scripts, prose) match a goal by path alone and are
/// seldom where code changes; they still rank, lower.
const NON_CODE_PENALTY: f64 = 0.6;

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

/// Reduces terms to their English stems (Snowball), memoised per distinct term: "scoring",
/// "scores" and `score` meet, so a goal's verbs find the files named by their nouns.
struct Stems {
    stemmer: Stemmer,
    memo: HashMap<String, String>,
}

impl Stems {
    fn new() -> Self {
        Stems {
            stemmer: Stemmer::create(Algorithm::English),
            memo: HashMap::new(),
        }
    }

    fn of(&mut self, term: String) -> String {
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
    fn counts(&mut self, terms: Vec<String>) -> (HashMap<String, u32>, usize) {
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
struct Field {
    docs: Vec<HashMap<String, u32>>,
    lens: Vec<f64>,
    avg: f64,
    df: HashMap<String, u32>,
}

impl Field {
    /// A field from each document's term frequencies and term count.
    fn new(docs: Vec<(HashMap<String, u32>, usize)>) -> Field {
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
    let mut stems = Stems::new();
    let query: Vec<String> = {
        let mut seen = HashSet::new();
        terms(goal)
            .into_iter()
            .map(|t| stems.of(t))
            .filter(|t| seen.insert(t.clone()))
            .collect()
    };
    let files = map.files();
    if query.is_empty() || files.is_empty() {
        return Vec::new();
    }
    map.outline_all();
    let path_f = Field::new(files.iter().map(|f| stems.counts(terms(&f.path))).collect());
    let sym_f = Field::new(
        files
            .iter()
            .map(|f| stems.counts(symbol_names(f).flat_map(terms).collect()))
            .collect(),
    );
    let doc_f = Field::new(files.iter().map(|f| stems.counts(doc_terms(f))).collect());
    let body_f = Field::new(files.iter().map(|f| stems.counts(terms(body(f)))).collect());
    let fields = [
        (&path_f, W_PATH, "path"),
        (&sym_f, W_SYMBOLS, "symbols"),
        (&doc_f, W_DOCS, "docs"),
        (&body_f, W_BODY, "body"),
    ];
    let mut text = vec![0.0; files.len()];
    let mut reasons: Vec<Vec<String>> = vec![Vec::new(); files.len()];
    let mut scope = scope_scores(files, goal);
    normalise(&mut scope);
    for (i, x) in scope.iter().enumerate() {
        if *x > 0.0 {
            text[i] += W_SCOPE * x;
            reasons[i].push("in a directory the goal names".into());
        }
    }
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
    let prefix = scope_prefix(goal);
    for (i, f) in files.iter().enumerate() {
        if is_auxiliary(&f.path) {
            text[i] *= AUXILIARY_PENALTY;
        }
        if f.lang.is_none() {
            text[i] *= NON_CODE_PENALTY;
        }
        let mut dirs = f.path.split('/').rev().skip(1);
        if dirs.any(|d| prefix.iter().any(|p| d.eq_ignore_ascii_case(p))) {
            text[i] *= 1.0 + PREFIX_WEIGHT;
            reasons[i].push("inside the scope the goal starts with".into());
        }
    }
    normalise(&mut text);
    let graph = crate::graph::personalised_pagerank(map, &text);
    let mut combined: Vec<f64> = (0..files.len())
        .map(|i| (1.0 - W_GRAPH) * text[i] + W_GRAPH * graph.rank[i])
        .collect();
    let lifted = lift_module_roots(files, &mut combined, ROOT_SHARE);
    for (i, from) in lifted {
        reasons[i].push(format!("root of the module holding {from}"));
    }
    let mut scored: Vec<Scored> = files
        .iter()
        .enumerate()
        .filter_map(|(i, f)| {
            let score = combined[i];
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

/// Whole words of the goal (`navigator-search`, `toc`, `butler`) that name a directory of the
/// path (file names are the path field's business), weighted by how few files share that segment. Goals often start
/// with the component they change ("toc: ..."), and that names a directory, not a term.
fn scope_scores(files: &[FileEntry], goal: &str) -> Vec<f64> {
    let words: HashSet<String> = goal
        .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_'))
        .map(|w| w.trim_matches(|c| c == '-' || c == '_').to_lowercase())
        .filter(|w| w.len() >= 3 && !STOPWORDS.contains(&w.as_str()))
        .collect();
    let segments = |path: &str| -> Vec<String> {
        let dirs = path.rsplit_once('/').map_or("", |(d, _)| d);
        let mut parts: Vec<String> = dirs
            .split('/')
            .filter(|s| !s.is_empty())
            .map(str::to_lowercase)
            .collect();
        parts.sort();
        parts.dedup();
        parts
    };
    let per_file: Vec<Vec<String>> = files.iter().map(|f| segments(&f.path)).collect();
    let mut df: HashMap<&str, usize> = HashMap::new();
    for segs in &per_file {
        for s in segs.iter().filter(|s| words.contains(s.as_str())) {
            *df.entry(s.as_str()).or_default() += 1;
        }
    }
    let n = files.len() as f64;
    per_file
        .iter()
        .map(|segs| {
            segs.iter()
                .filter_map(|s| df.get(s.as_str()))
                .map(|&d| (n / d as f64).ln().max(0.0) + 0.1)
                .sum()
        })
        .collect()
}

/// The scope a goal declares up front, commit-subject style: `toc: ...` gives `toc`,
/// `fix(auth/session): ...` gives `fix`, `auth` and `session`.
fn scope_prefix(goal: &str) -> Vec<String> {
    let Some((head, _)) = goal.split_once(':') else {
        return Vec::new();
    };
    let head = head.trim();
    if head.is_empty() || head.len() > 40 || head.contains(char::is_whitespace) {
        return Vec::new();
    }
    head.split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_'))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Whether a file is the root of its module: where a change to the module declares itself.
fn is_module_root(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    matches!(
        name,
        "lib.rs" | "mod.rs" | "main.rs" | "__init__.py" | "index.ts" | "index.js" | "index.tsx"
    )
}

/// The directory (with its trailing `/`) whose files a module root declares: its own for
/// `lib.rs`, `mod.rs`, `__init__.py`, ...; `a/b/` for a Rust `a/b.rs` when that directory
/// exists (the 2018 layout: `mod b;` with its submodules under `b/`).
fn module_dir(files: &[FileEntry], path: &str) -> Option<String> {
    if is_module_root(path) {
        return Some(
            path.rfind('/')
                .map_or(String::new(), |k| path[..=k].to_string()),
        );
    }
    let dir = format!("{}/", path.strip_suffix(".rs")?);
    let k = files.partition_point(|f| f.path.as_str() < dir.as_str());
    files
        .get(k)
        .is_some_and(|f| f.path.starts_with(&dir))
        .then_some(dir)
}

/// Raises each module root to `share` of the best score below its directory: a task that
/// changes a module often touches its root (declarations, re-exports), which rarely says the
/// goal's words itself. Returns the roots lifted, with the file that lifted them.
fn lift_module_roots(files: &[FileEntry], scores: &mut [f64], share: f64) -> Vec<(usize, String)> {
    let mut lifted = Vec::new();
    for (r, root) in files.iter().enumerate() {
        let Some(dir) = module_dir(files, &root.path) else {
            continue;
        };
        let dir = dir.as_str();
        // Files are sorted by path, so the subtree is one contiguous run.
        let start = files.partition_point(|f| f.path.as_str() < dir);
        let best = files[start..]
            .iter()
            .enumerate()
            .take_while(|(_, f)| f.path.starts_with(dir))
            .map(|(k, _)| start + k)
            .filter(|&k| k != r && !is_auxiliary(&files[k].path))
            .max_by(|&a, &b| scores[a].total_cmp(&scores[b]).then(b.cmp(&a)));
        if let Some(b) = best {
            let floor = share * scores[b];
            if floor > scores[r] {
                scores[r] = floor;
                lifted.push((r, files[b].path.clone()));
            }
        }
    }
    lifted
}

fn doc_terms(f: &FileEntry) -> Vec<String> {
    f.outline()
        .into_iter()
        .flat_map(|o| o.symbols.iter().filter_map(|s| s.doc.as_deref()))
        .flat_map(terms)
        .collect()
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

    fn map_of(files: &[(&str, &str)]) -> (tempfile::TempDir, RepoMap) {
        let dir = tempfile::tempdir().unwrap();
        for (p, text) in files {
            let path = dir.path().join(p);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let options = crate::scan::ScanOptions {
            cache_dir: None,
            ..crate::scan::ScanOptions::for_root(dir.path())
        };
        let map = RepoMap::open_with(dir.path(), &options).unwrap();
        (dir, map)
    }

    #[test]
    fn a_component_the_goal_names_breaks_the_tie_of_equal_terms() {
        // Both paths hold the terms `navigator` and `search`; only one directory is named
        // `navigator-search`, as the goal's prefix says.
        let (_d, map) = map_of(&[
            (
                "navigator-core/src/search.rs",
                "pub fn total() -> u32 { 1 }",
            ),
            ("navigator-search/src/sum.rs", "pub fn total() -> u32 { 1 }"),
        ]);
        let ranked = rank(&map, "navigator-search: faster total");
        assert_eq!(ranked[0].path, "navigator-search/src/sum.rs", "{ranked:?}");
        assert!(ranked[0]
            .reasons
            .iter()
            .any(|r| r.contains("directory the goal names")));
    }

    #[test]
    fn scope_prefixes_are_read_commit_subject_style() {
        assert_eq!(scope_prefix("toc: faster search"), ["toc"]);
        assert_eq!(
            scope_prefix("fix(auth/session): expiry"),
            ["fix", "auth", "session"]
        );
        assert!(scope_prefix("Refactor the auth middleware").is_empty());
        assert!(scope_prefix("two words: no scope").is_empty());
    }

    #[test]
    fn module_roots_are_lifted_towards_their_best_file_only() {
        let (_d, map) = map_of(&[
            ("auth/mod.rs", "pub mod middleware;"),
            ("auth/middleware.rs", "pub fn check_session_token() {}"),
            ("db/mod.rs", "pub mod pool;"),
            ("db/pool.rs", "pub fn open() {}"),
        ]);
        let ranked = rank(&map, "session token check");
        let score = |p: &str| ranked.iter().find(|s| s.path == p).map(|s| s.score);
        assert_eq!(ranked[0].path, "auth/middleware.rs");
        let root = score("auth/mod.rs").unwrap();
        assert!((root - ROOT_SHARE).abs() < 1e-9, "{ranked:?}");
        assert_eq!(score("db/mod.rs"), None, "{ranked:?}");
    }

    #[test]
    fn word_forms_meet_at_their_stem() {
        // "scoring" names the file `score.rs` only through its stem.
        let (_d, map) = map_of(&[
            ("src/score.rs", "pub fn total() -> u32 { 1 }"),
            ("src/walk.rs", "pub fn walk() {}"),
        ]);
        let ranked = rank(&map, "faster scoring");
        assert_eq!(
            ranked.first().map(|s| s.path.as_str()),
            Some("src/score.rs")
        );
    }

    #[test]
    fn code_outranks_a_script_saying_the_same_words() {
        let (_d, map) = map_of(&[
            ("scripts/auth.sh", "# check the session token\n"),
            ("src/auth.rs", "// check the session token\n"),
        ]);
        let ranked = rank(&map, "auth session token");
        assert_eq!(ranked[0].path, "src/auth.rs", "{ranked:?}");
        assert!(ranked[1].score < ranked[0].score, "{ranked:?}");
    }

    #[test]
    fn a_file_next_to_its_module_directory_is_that_module_s_root() {
        let (_d, map) = map_of(&[
            ("src/definition.rs", "mod raw;"),
            ("src/definition/raw.rs", "pub fn parse_raw_nodes() {}"),
            ("src/other.rs", "pub fn other() {}"),
        ]);
        assert_eq!(
            module_dir(map.files(), "src/definition.rs").as_deref(),
            Some("src/definition/")
        );
        assert_eq!(module_dir(map.files(), "src/other.rs"), None);
        let ranked = rank(&map, "parse raw nodes");
        let root = ranked
            .iter()
            .find(|s| s.path == "src/definition.rs")
            .expect("the declaring file is lifted");
        assert!(root
            .reasons
            .iter()
            .any(|r| r.contains("root of the module holding src/definition/raw.rs")));
    }

    #[test]
    fn auxiliary_paths_are_recognised() {
        assert!(is_auxiliary("tests/auth.rs"));
        assert!(is_auxiliary("src/auth_test.go"));
        assert!(is_auxiliary("web/login.spec.ts"));
        assert!(!is_auxiliary("src/auth/middleware.rs"));
    }
}
