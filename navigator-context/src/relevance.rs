//! Offline relevance of files to a goal: BM25 over the English stems of four fields (path,
//! symbol names, doc comments, body) plus directories the goal names, blended with a
//! personalised PageRank over the reference graph; module roots are lifted towards the best
//! file of their module, files with no grammar count less.
//!
//! Why fields: a goal like "Refactor the auth middleware" names concepts that appear in paths
//! (`src/auth/middleware.rs`) and definitions (`struct AuthMiddleware`) far more reliably than
//! in bodies, where common words drown them. Why the graph: the file that defines what the
//! best matches call is often the one to change, though it may never say the goal's words.

use crate::bm25::{terms, with_typos_mended, Field, Stems, STOPWORDS};
use crate::goal::Goal;
use crate::scan::{body, symbol_names, FileEntry, RepoMap};
use rayon::prelude::*;
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
/// A named directory counts in full when its files' scope score (`ln(n / d) + 0.1`) reaches
/// this, about when it holds under two fifths of the files; one holding most of them (the
/// package's own folder, which the goal names with the package) counts its share of it.
const SCOPE_FULL: f64 = 1.0;
/// The scope score of a file in a named directory holding half the files.
const SCOPE_HALF: f64 = std::f64::consts::LN_2 + SCOPE_FLOOR;
/// What a named directory holding every file scores: still a little.
const SCOPE_FLOOR: f64 = 0.1;
/// A module root scores at least this share of the best file below it.
const ROOT_SHARE: f64 = 0.3;
/// Share of the final score that comes from the reference graph.
const W_GRAPH: f64 = 0.25;
/// Tests, benches and examples are rarely what a task changes; they still rank, lower.
const AUXILIARY_PENALTY: f64 = 0.6;
/// Build output and vendored code rank at this share of an auxiliary file's score again.
const OUTPUT_PENALTY: f64 = 0.5;
/// Files with no grammar (manifests, scripts, prose) match a goal by path alone and are
/// seldom where code changes; they still rank, lower.
const NON_CODE_PENALTY: f64 = 0.6;
/// How much recent changes can raise a code file's score: it is multiplied by
/// `1 + W_HISTORY × weight`, the weight in [0, 1] from [`crate::ChangeHistory`].
const W_HISTORY: f64 = 0.5;
/// Weight of evidence from the goal's clues naming a file (paths, frames, module paths,
/// definitions of identifiers it spells).
const W_MENTION: f64 = 1.5;
/// Weight of the file where the reported failure happened (a panic's location, the innermost
/// frame of a traceback inside the repository), on top of its clue evidence. Twice
/// [`W_MENTION`]: an outer frame (`main.go` calling down) whose file shares more of the
/// report's words must not outrank the file that failed. 1.5 before; 3.0 left the dev bug
/// reports at 10k unchanged and gained one gold file whole at 4k (docs/benchmarks.md).
const W_FAILED: f64 = 3.0;
/// Weight of holding the text of the goal's error message literally (`messages.rs`): the code
/// that raised it, whatever the frames say.
const W_MESSAGE: f64 = 1.5;
/// Weight of holding the goal's options, kebab-case names or message codes as string literals
/// (`messages::literal_holders`): where `--setup-show` or `min-similarity-lines` is defined.
const W_LITERAL: f64 = 1.0;
/// Weight of the subject lines of past commits that changed a file (from
/// [`crate::ChangeHistory::subjects`]): a goal saying what earlier changes to the file said.
/// Set to 0.5 before any run; 0.3 and 1.0 measured beside it (docs/benchmarks.md).
const W_LOG: f64 = 0.5;
/// Weight of the votes of the past commits most like the goal (by BM25 over their subject
/// lines) for the files they changed: a goal resembling one earlier change points at what that
/// change touched, even when the file's own words and its other commits say something else.
const W_SIMILAR: f64 = 0.5;
/// How many of the most similar past commits vote.
const SIMILAR_COMMITS: usize = 10;

/// A type stub or declaration file beside the code it declares (`__init__.pyi` by
/// `__init__.py`, `index.d.ts` by `index.js`) ranks at this share, unless the goal speaks of
/// types: it repeats every name and docstring of the code, which is what changes.
const DECLARATION_PENALTY: f64 = 0.6;

/// A goal of more words than this (or of several lines) is a report, not a subject line.
const LONG_WORDS: usize = 30;
/// Weight of a long goal's prose terms (its title and code clues weigh 1).
const W_PROSE: f64 = 0.5;
/// How much a term repeated in a long goal gains per natural log of its count.
const W_REPEAT: f64 = 0.3;

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

fn normalise(v: &mut [f64]) {
    let max = v.iter().cloned().fold(0.0, f64::max);
    if max > 0.0 {
        v.iter_mut().for_each(|x| *x /= max);
    }
}

pub(crate) fn is_auxiliary(path: &str) -> bool {
    auxiliary_kinds(path).next().is_some()
}

/// The auxiliary kinds each segment of `path` marks.
fn auxiliary_kinds(path: &str) -> impl Iterator<Item = Auxiliary> + '_ {
    let output = is_output_or_vendored(path).then_some(Auxiliary::Output);
    path.split('/')
        .filter_map(|seg| auxiliary_kind(&seg.to_ascii_lowercase()).or_else(|| camel_test(seg)))
        .chain(output)
}

/// Whether `path` lies in build output or copied third-party code: `dist/` or a dependency
/// folder (`node_modules/`, `vendor/`, `third_party/`) anywhere, or a top-level `build/`,
/// `out/`, `target/` or `coverage/` (an npm package ships its compiled `build/`; a `build/`
/// deeper down may be source, as clap's `src/build/` was). Their files repeat what the
/// sources say.
pub(crate) fn is_output_or_vendored(path: &str) -> bool {
    // The last segment is the file's name (or empty, for a directory written with its `/`).
    let Some((dirs, _)) = path.rsplit_once('/') else {
        return false;
    };
    let vendored = |s: &str| matches!(s, "dist" | "node_modules" | "vendor" | "third_party");
    let output = |s: &str| matches!(s, "build" | "out" | "target" | "coverage");
    // The segments two and one before the current one.
    let mut before = ["", ""];
    for (k, seg) in dirs.split('/').enumerate() {
        // A workspace package's own output: `packages/ui/build/`.
        let workspace = matches!(before[0], "packages" | "apps" | "libs" | "crates");
        if vendored(seg) || (output(seg) && (k == 0 || workspace)) {
            return true;
        }
        before = [before[1], seg];
    }
    false
}

/// Tests named in camel case, as Java, Kotlin, Swift and .NET name them: `StoreTests.swift`,
/// `CacheTest.kt`, `ParserSpec.kt`, Android's `androidTest` folder, a .NET project
/// `Acme.Store.Tests` (but not `Latest.kt` or `Contest.swift`).
fn camel_test(seg: &str) -> Option<Auxiliary> {
    seg.split('.')
        .any(|part| {
            ["Tests", "Test", "Specs", "Spec"].iter().any(|suffix| {
                part.strip_suffix(suffix).is_some_and(|stem| {
                    stem.is_empty()
                        || stem.ends_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
                })
            })
        })
        .then_some(Auxiliary::Test)
}

/// What kind of auxiliary file a path segment marks, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Auxiliary {
    Test,
    Bench,
    Example,
    /// Build output and vendored code.
    Output,
}

fn auxiliary_kind(seg: &str) -> Option<Auxiliary> {
    match seg {
        "bench" | "benches" | "benchmark" | "benchmarks" => Some(Auxiliary::Bench),
        "examples" | "example" => Some(Auxiliary::Example),
        // Python, Rust, Go; Jest's `__tests__` and `__mocks__`, RSpec's and Jasmine's `spec`,
        // end-to-end suites, pytest's `conftest.py`.
        "test" | "tests" | "testing" | "fixtures" | "testdata" | "__tests__" | "__mocks__"
        | "spec" | "specs" | "e2e" | "conftest.py" => Some(Auxiliary::Test),
        _ if seg.starts_with("test_")
            || seg.contains("_test.")
            || seg.contains(".test.")
            || seg.contains(".spec.")
            || seg.contains("_spec.") =>
        {
            Some(Auxiliary::Test)
        }
        _ => None,
    }
}

/// The auxiliary kinds a goal asks for by name: "update the TLS examples", "a bench for the
/// router". Files of those kinds are then what the goal changes and are not ranked down.
/// Tests are never asked for this way: "add a test" mostly comes with the change it tests.
/// "For example" is a figure of speech, not a request.
#[derive(Debug, Default, Clone, Copy)]
struct AskedFor {
    examples: bool,
    benches: bool,
}

impl AskedFor {
    fn of(text: &str) -> Self {
        let words: Vec<String> = text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect();
        let mut asked = AskedFor::default();
        for (k, w) in words.iter().enumerate() {
            match w.as_str() {
                "example" | "examples" if k == 0 || words[k - 1] != "for" => asked.examples = true,
                "bench" | "benches" | "benchmark" | "benchmarks" => asked.benches = true,
                _ => {}
            }
        }
        asked
    }

    /// Whether every auxiliary mark of `path` is of a kind asked for (false for a path with
    /// none).
    fn covers(&self, path: &str) -> bool {
        let mut kinds = auxiliary_kinds(path).peekable();
        kinds.peek().is_some()
            && kinds.all(|k| match k {
                Auxiliary::Example => self.examples,
                Auxiliary::Bench => self.benches,
                Auxiliary::Test | Auxiliary::Output => false,
            })
    }
}

/// Ranks the files of `map` by relevance to `goal`, best first; files with no signal at all
/// are left out. Ties break by path, so the ranking is deterministic.
pub fn rank(map: &RepoMap, goal: &str) -> Vec<Scored> {
    let mut stems = Stems::new();
    let parsed = Goal::shared(goal);
    let query = shared_query(goal);
    // Scope words and prefixes are commit-subject habits: a long report gets them from its
    // title only, or its prose would name half the directories.
    let title = goal.lines().find(|l| !l.trim().is_empty()).unwrap_or(goal);
    let scope_text = crate::goal::without_links(if is_long(goal) { title } else { goal });
    // A report that starts with its first frame (`lib/x.rb:12:in 'y'`) names no scope: the
    // frame's path is a clue of its own.
    let scope_text = if crate::goal::is_frame_line(title) {
        std::borrow::Cow::Borrowed("")
    } else {
        scope_text
    };
    let scope_text = http_versions_joined(scope_text.as_ref());
    let scope_text = scope_text.as_str();
    let files = map.files();
    if query.is_empty() || files.is_empty() {
        return Vec::new();
    }
    map.outline_all();
    // Every file's words, counted on every core (a quarter of a Django report's time on
    // one), each worker with its own stem memo.
    let counted = |words: &(dyn Fn(&FileEntry) -> Vec<String> + Sync)| {
        files
            .par_iter()
            .map_init(Stems::new, |st, f| st.counts(words(f)))
            .collect::<Vec<_>>()
    };
    let path_f = Field::new(counted(&|f| terms(&f.path)));
    let sym_f = Field::new(counted(&|f| symbol_names(f).flat_map(terms).collect()));
    let doc_f = Field::new(counted(&doc_terms));
    let body_f = Field::new(counted(&|f| terms(body(f))));
    let log_f = map.history().map(|h| {
        Field::new(
            files
                .iter()
                .map(|f| stems.counts(terms(h.subjects(&f.path))))
                .collect(),
        )
    });
    let mut fields = vec![
        (&path_f, W_PATH, "path"),
        (&sym_f, W_SYMBOLS, "symbols"),
        (&doc_f, W_DOCS, "docs"),
        (&body_f, W_BODY, "body"),
    ];
    if let Some(log_f) = &log_f {
        fields.push((log_f, W_LOG, "past commits"));
    }
    // A misspelt name ("AuthencationMiddleware") still finds what it names.
    let code: HashSet<String> = parsed
        .identifiers
        .iter()
        .chain(&parsed.paths)
        .flat_map(|x| terms(x))
        .map(|t| stems.of(t))
        .collect();
    let (query, read_for) = with_typos_mended(
        &query,
        &code,
        &[&path_f, &sym_f, &doc_f, &body_f],
        &[&path_f, &sym_f],
    );
    let mut text = vec![0.0; files.len()];
    let mut reasons: Vec<Vec<String>> = vec![Vec::new(); files.len()];
    let (scope, top) = scope_weights(files, scope_text);
    for (i, &x) in scope.iter().enumerate() {
        if x > 0.0 {
            text[i] += W_SCOPE * x / top;
            // Like a term in over half the documents, a directory holding over half the
            // files (`src/requests/` for "requests crashes ...") tells the reader nothing.
            if x >= SCOPE_HALF {
                reasons[i].push("in a directory the goal names".into());
            }
        }
    }
    // The body's words are a reason only for a file with no other (they are in most files).
    let mut body_hits: Vec<Vec<String>> = vec![Vec::new(); files.len()];
    for (field, w, name) in fields {
        let scored = field.scores(&query);
        let mut s: Vec<f64> = scored.iter().map(|(s, _)| *s).collect();
        normalise(&mut s);
        for (i, (x, (_, hit))) in s.iter().zip(scored).enumerate() {
            text[i] += w * x;
            let hit: Vec<String> = hit.into_iter().filter(|t| !field.common(t)).collect();
            if name == "body" {
                body_hits[i] = hit;
            } else if !hit.is_empty() {
                let hit: Vec<String> = hit
                    .into_iter()
                    .map(|t| match read_for.get(&t) {
                        Some(typo) => format!("{t} (read for the goal's {typo})"),
                        None => t,
                    })
                    .collect();
                reasons[i].push(format!("{name} match: {}", hit.join(", ")));
            }
        }
    }
    // Built copies of TypeScript sources kept beside them (a published package's `.js`,
    // `.cjs` and `.d.ts`): no definers of their sources' names, and outputs wherever they lie.
    // Built copies and minified bundles match every word their sources do: both rank as
    // outputs and define nothing.
    let copies: Vec<bool> = crate::copies::built_copies(files)
        .into_iter()
        .zip(files)
        .map(|(copy, f)| copy || f.minified)
        .collect();
    let mut named = crate::mentions::mentions(files, &copies, &parsed, title);
    normalise(&mut named.score);
    for (i, x) in named.score.iter().enumerate() {
        if *x > 0.0 {
            text[i] += W_MENTION * x;
            reasons[i].append(&mut named.reasons[i]);
        }
    }
    for (i, x) in named.failed.iter().enumerate() {
        text[i] += W_FAILED * x;
    }
    // Tests quote the messages they expect: only code is looked in.
    let code: Vec<bool> = files
        .iter()
        .map(|f| f.lang.is_some() && !is_auxiliary(&f.path))
        .collect();
    let messages = crate::messages::holders(files, &code, &parsed);
    let literals = crate::messages::literal_holders(files, &code, &parsed);
    for (i, (said, spelled)) in messages.into_iter().zip(literals).enumerate() {
        let said = said.map(|(x, run)| {
            (
                W_MESSAGE * x,
                format!("holds the goal's error message: \"{run}\""),
            )
        });
        let spelled = spelled.map(|(x, l)| {
            (
                W_LITERAL * x,
                format!("spells `{l}` as a string, as the goal does"),
            )
        });
        for (x, why) in [said, spelled].into_iter().flatten() {
            text[i] += x;
            reasons[i].push(why);
        }
    }
    // Commit subjects are one line, like a subject-line goal. A report's prose would match
    // half the log, and its title alone lost more than it gained on dev (docs/benchmarks.md).
    if let Some(h) = map.history().filter(|_| !is_long(goal)) {
        for (i, (x, like)) in similar_commits(files, h, &query, &mut stems)
            .into_iter()
            .enumerate()
        {
            if x > 0.0 {
                text[i] += W_SIMILAR * x;
                reasons[i].push(format!("changed by a past commit like the goal: {like}"));
            }
        }
    }
    let prefix = scope_prefix(scope_text);
    let module = scope_module(scope_text);
    let asked = AskedFor::of(scope_text);
    let declarations = (!speaks_of_types(goal)).then(|| declarations_beside_code(files));
    let ranked_down: Vec<bool> = files
        .iter()
        .enumerate()
        .map(|(i, f)| {
            (is_auxiliary(&f.path) && !asked.covers(&f.path) || copies[i]) && !named.spelled[i]
        })
        .collect();
    for (i, f) in files.iter().enumerate() {
        if ranked_down[i] {
            text[i] *= AUXILIARY_PENALTY;
            // A bundle or a copy matches every word its sources do: it comes after them.
            if is_output_or_vendored(&f.path) || copies[i] {
                text[i] *= OUTPUT_PENALTY;
            }
        } else if text[i] > 0.0 && is_auxiliary(&f.path) {
            reasons[i].push("of a kind the goal asks for".into());
        }
        // A file whose whole path the goal writes is asked for, whatever its kind.
        if f.lang.is_none() && !named.spelled[i] {
            text[i] *= NON_CODE_PENALTY;
        }
        if declarations.as_ref().is_some_and(|d| d[i]) && !named.spelled[i] {
            text[i] *= DECLARATION_PENALTY;
        }
        // Most goals declare no scope: then no directory is lower-cased for nothing.
        let mut dirs = f.path.split('/').rev().skip(1);
        if !prefix.is_empty()
            && dirs.any(|d| {
                let d = d.to_lowercase();
                prefix.iter().any(|p| *p == d || abbreviates(&d, p))
            })
        {
            text[i] *= 1.0 + PREFIX_WEIGHT;
            reasons[i].push("inside the scope the goal starts with".into());
            if module
                .as_deref()
                .is_some_and(|m| is_module_file(&f.path, m))
            {
                text[i] *= 1.0 + PREFIX_WEIGHT;
                reasons[i].push("the module the goal's scope names".into());
            }
        }
    }
    normalise(&mut text);
    let graph = crate::graph::personalised_pagerank(map, &text);
    let mut combined: Vec<f64> = (0..files.len())
        .map(|i| (1.0 - W_GRAPH) * text[i] + W_GRAPH * graph.rank[i])
        .collect();
    if let Some(history) = map.history() {
        for (i, f) in files.iter().enumerate() {
            let h = history.weight(&f.path);
            if h > 0.0 && combined[i] > 0.0 && f.lang.is_some() && !ranked_down[i] {
                combined[i] *= 1.0 + W_HISTORY * h;
                // Once is not often: in a young repository every file is new.
                let n = history.changed(&f.path);
                if h >= 0.2 && n >= 2 {
                    reasons[i].push(format!(
                        "changed often of late: {n} of the last {} commits ({h:.2})",
                        history.commits()
                    ));
                }
            }
        }
    }
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
            if why.is_empty() && !body_hits[i].is_empty() {
                why.push(format!("body match: {}", body_hits[i].join(", ")));
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

/// Whether a goal speaks of types, where stubs and declaration files are what changes:
/// mypy, pyright, stubs, typing, overloads, type hints or annotations, `.d.ts` typings.
fn speaks_of_types(goal: &str) -> bool {
    let lower = goal.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '.'))
        .filter(|w| !w.is_empty())
        .collect();
    words.iter().enumerate().any(|(k, w)| {
        let w = w.trim_matches('.');
        matches!(
            w,
            "mypy"
                | "pyright"
                | "pyre"
                | "pytype"
                | "stub"
                | "stubs"
                | "typing"
                | "typeshed"
                | "overload"
                | "overloads"
                | "typings"
                | "tsc"
        ) || [".d.ts", ".pyi"]
            .iter()
            .any(|ext| w.ends_with(ext) || w == &ext[1..])
            || (w.starts_with("type")
                && words.get(k + 1).is_some_and(|n| {
                    matches!(
                        *n,
                        "hint"
                            | "hints"
                            | "annotation"
                            | "annotations"
                            | "checker"
                            | "checking"
                            | "definitions"
                            | "declarations"
                    )
                }))
    })
}

/// Per file, whether it is a stub or declaration file (`.pyi`, `.d.ts`, `.d.mts`, `.d.cts`)
/// with the code it declares beside it (the same stem in the same folder).
fn declarations_beside_code(files: &[FileEntry]) -> Vec<bool> {
    let paths: HashSet<&str> = files.iter().map(|f| f.path.as_str()).collect();
    files
        .iter()
        .map(|f| {
            let p = f.path.as_str();
            if let Some(stem) = p.strip_suffix(".pyi") {
                return paths.contains(format!("{stem}.py").as_str());
            }
            let stem = [".d.ts", ".d.mts", ".d.cts"]
                .iter()
                .find_map(|ext| p.strip_suffix(ext));
            stem.is_some_and(|stem| {
                ["js", "ts", "mjs", "cjs", "mts", "cts", "jsx", "tsx"]
                    .iter()
                    .any(|ext| paths.contains(format!("{stem}.{ext}").as_str()))
            })
        })
        .collect()
}

/// Per file, the votes of the [`SIMILAR_COMMITS`] past commits whose subjects best match
/// `query` (each its BM25 score over the best one's, shared among the files it changed by the
/// square root of their number), normalised to 1 for the best file, with the subject of the
/// commit that voted most for it.
fn similar_commits(
    files: &[FileEntry],
    history: &crate::ChangeHistory,
    query: &[(String, f64)],
    stems: &mut Stems,
) -> Vec<(f64, String)> {
    let changes: Vec<(&str, &[String])> = history.changes().collect();
    let field = Field::new(
        changes
            .iter()
            .map(|(s, _)| stems.counts(terms(s)))
            .collect(),
    );
    let mut best: Vec<(usize, f64)> = field
        .scores(query)
        .into_iter()
        .enumerate()
        .filter(|(_, (s, _))| *s > 0.0)
        .map(|(k, (s, _))| (k, s))
        .collect();
    best.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    best.truncate(SIMILAR_COMMITS);
    let mut votes: Vec<(f64, String)> = vec![(0.0, String::new()); files.len()];
    let Some(&(_, top)) = best.first() else {
        return votes;
    };
    let mut strongest = vec![0.0f64; files.len()];
    for (k, s) in best {
        let (subject, paths) = changes[k];
        let share = s / top / (paths.len() as f64).sqrt();
        for p in paths {
            let Ok(i) = files.binary_search_by(|f| f.path.as_str().cmp(p)) else {
                continue;
            };
            votes[i].0 += share;
            if share > strongest[i] {
                strongest[i] = share;
                votes[i].1 = subject.to_string();
            }
        }
    }
    let max = votes.iter().map(|v| v.0).fold(0.0, f64::max);
    if max > 0.0 {
        votes.iter_mut().for_each(|v| v.0 /= max);
    }
    votes
}

/// Whether a goal is a report rather than a subject line: several lines or many words.
fn is_long(goal: &str) -> bool {
    goal.trim().lines().count() > 1 || goal.split_whitespace().count() > LONG_WORDS
}

/// [`weighted_query`] of `goal`, shared among the ranking and every zoom of one exploration
/// (stemming a pasted log once, not once per zoomed file).
pub(crate) fn shared_query(goal: &str) -> std::sync::Arc<Vec<(String, f64)>> {
    type Memo = std::sync::Mutex<Vec<(std::sync::Arc<str>, std::sync::Arc<Vec<(String, f64)>>)>>;
    static MADE: Memo = std::sync::Mutex::new(Vec::new());
    crate::goal::memo(&MADE, goal, |g| {
        weighted_query(g, &Goal::shared(g), &mut Stems::new())
    })
}

/// The query: stems of the goal's terms with weights. A subject line weighs every term alike.
/// A long goal keeps full weight for its title and its code clues (identifiers, qualified
/// names, paths, error lines) and gives the rest of its prose [`W_PROSE`]; a term said
/// several times weighs a little more.
pub(crate) fn weighted_query(goal: &str, parsed: &Goal, stems: &mut Stems) -> Vec<(String, f64)> {
    let mut weights: HashMap<String, f64> = HashMap::new();
    let mut order: Vec<String> = Vec::new();
    let mut add = |text: &str, w: f64, weights: &mut HashMap<String, f64>| {
        for t in terms(text) {
            let s = stems.of(t);
            match weights.get_mut(&s) {
                Some(x) => *x = x.max(w),
                None => {
                    order.push(s.clone());
                    weights.insert(s, w);
                }
            }
        }
    };
    if !is_long(goal) {
        add(&crate::goal::without_links(goal), 1.0, &mut weights);
    } else {
        let title = goal.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        add(&crate::goal::without_links(title), 1.0, &mut weights);
        add(&parsed.clue_text(), 1.0, &mut weights);
        add(&parsed.prose, W_PROSE, &mut weights);
        let mut counts: HashMap<String, u32> = HashMap::new();
        for t in terms(goal) {
            *counts.entry(stems.of(t)).or_default() += 1;
        }
        for (t, w) in weights.iter_mut() {
            let c = f64::from(counts.get(t).copied().unwrap_or(1).max(1));
            *w *= 1.0 + W_REPEAT * c.ln();
        }
    }
    order
        .into_iter()
        .map(|t| {
            let w = weights[&t];
            (t, w)
        })
        .collect()
}

/// [`scope_scores`] and what they are divided by to weigh in [0, 1]: the best of them, or
/// [`SCOPE_FULL`] when none reaches it.
fn scope_weights(files: &[FileEntry], goal: &str) -> (Vec<f64>, f64) {
    let scope = scope_scores(files, goal);
    let top = scope.iter().copied().fold(SCOPE_FULL, f64::max);
    (scope, top)
}

/// Whole words of the goal (`navigator-search`, `toc`, `butler`) that name a directory of the
/// path (file names are the path field's business), weighted by how few files share that segment. Goals often start
/// with the component they change ("toc: ..."), and that names a directory, not a term.
fn scope_scores(files: &[FileEntry], goal: &str) -> Vec<f64> {
    let words: HashSet<String> = goal
        .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_'))
        .map(|w| w.trim_matches(|c| c == '-' || c == '_').to_lowercase())
        // `src` is the source root every path of the goal starts with (`src/scanners.rs:897`),
        // never the area a change is in.
        .filter(|w| w.len() >= 3 && !STOPWORDS.contains(&w.as_str()) && w != "src")
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
    let named = |seg: &str| words.contains(seg) || words.iter().any(|w| abbreviates(seg, w));
    let mut df: HashMap<&str, usize> = HashMap::new();
    for segs in &per_file {
        for s in segs.iter().filter(|s| named(s.as_str())) {
            *df.entry(s.as_str()).or_default() += 1;
        }
    }
    let n = files.len() as f64;
    per_file
        .iter()
        .map(|segs| {
            segs.iter()
                .filter_map(|s| df.get(s.as_str()))
                .map(|&d| (n / d as f64).ln().max(0.0) + SCOPE_FLOOR)
                .sum()
        })
        .collect()
}

/// `text` with HTTP versions written as code names them: `HTTP/2` and `HTTP/1.1` become
/// `HTTP2` and `HTTP1`, so the directories they name (`h2`, `http1`) can be told.
fn http_versions_joined(text: &str) -> String {
    static R: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let r = R.get_or_init(|| {
        regex::Regex::new(r"(^|[^\p{Alphabetic}\p{N}])((?i:http))/(\d)(?:\.\d+)?")
            .expect("a valid built-in pattern")
    });
    r.replace_all(text, "${1}${2}${3}").into_owned()
}

/// Whether the path segment `seg` is a short form of the goal's word `word` (both lower
/// case): `h2` for `http2`, `cfg` for `config`, `fmt` for `format`. A short form of a plain
/// word (letters and digits; a compound like `axum-core` names its parts itself) has two or
/// three letters, the word's first and last, and the order of the ones between. Longer
/// prefixes (`arg` of `arguments`, `handler` of `handlers`) named the wrong directory more
/// often than the right one on the dev sets.
fn abbreviates(seg: &str, word: &str) -> bool {
    if !(2..=3).contains(&seg.len())
        || seg.len() >= word.len()
        || !word.chars().all(|c| c.is_ascii_alphanumeric())
        || seg.as_bytes()[0] != word.as_bytes()[0]
    {
        return false;
    }
    let mut rest = word.chars();
    seg.chars().all(|c| rest.any(|w| w == c)) && seg.chars().last() == word.chars().last()
}

/// The scope a goal declares up front, commit-subject style: `toc: ...` gives `toc`,
/// `fix(auth/session): ...` gives `fix`, `auth` and `session`.
/// A name's `::` (`Cache::Store#fetch`, `api(App::name): ...`) and a file's `path.rb:12:` or
/// drive (`C:\\`) are no scope: the scope's colon is the first one outside parentheses that is
/// not part of a `::`, and the scope holds no `.` or `\\` outside them.
fn scope_prefix(goal: &str) -> Vec<String> {
    let Some(head) = scope_head(goal) else {
        return Vec::new();
    };
    head.split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_'))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The module a scope written as a path names: `axum-core/macros: ...` and
/// `fix(auth/session): ...` give `macros` and `session` (lower case); a scope without a `/`
/// names directories only.
fn scope_module(goal: &str) -> Option<String> {
    let head = scope_head(goal)?;
    let inner = match head.split_once('(') {
        Some((_, rest)) => rest.trim_end_matches(')'),
        None => head,
    };
    let (_, last) = inner.rsplit_once('/')?;
    let last = last.trim_matches(|c: char| !(c.is_alphanumeric() || c == '_'));
    (!last.is_empty()).then(|| last.to_lowercase())
}

/// Whether `path` is the module `module`: its file stem (`macros.rs`), or the folder of a
/// module root (`macros/mod.rs`).
fn is_module_file(path: &str, module: &str) -> bool {
    let mut segs = path.rsplit('/');
    let name = segs.next().unwrap_or(path);
    let stem = name.split_once('.').map_or(name, |(s, _)| s);
    stem.eq_ignore_ascii_case(module)
        || (is_module_root(path) && segs.next().is_some_and(|d| d.eq_ignore_ascii_case(module)))
}

/// The scope a commit-subject-style goal starts with (`fix(auth/session)` of
/// `fix(auth/session): expiry`), if it has one.
fn scope_head(goal: &str) -> Option<&str> {
    let bytes = goal.as_bytes();
    let mut depth = 0i32;
    let mut colon = None;
    for (k, &b) in bytes.iter().enumerate() {
        match b {
            b'(' => depth += 1,
            b')' => depth -= 1,
            b':' if depth == 0 => {
                let doubled = bytes.get(k + 1) == Some(&b':') || (k > 0 && bytes[k - 1] == b':');
                if !doubled {
                    colon = Some(k);
                    break;
                }
            }
            _ => {}
        }
    }
    let head = goal[..colon?].trim();
    if head.len() < 2 || head.len() > 40 || head.contains(char::is_whitespace) {
        return None;
    }
    let outside = head.split('(').next().unwrap_or(head);
    if outside.contains(['.', '\\']) || (head.contains("::") && !head.contains('(')) {
        return None;
    }
    Some(head)
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
    f.code_outline()
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

    #[test]
    fn a_goal_in_chinese_meets_the_comments_that_share_its_words() {
        let (_d, map) = map_of(&[
            (
                "src/client.py",
                "def send(req):\n    \"\"\"发送网络请求。\"\"\"\n",
            ),
            (
                "src/settings/loader.py",
                "def load(path):\n    \"\"\"加载配置文件并解析。\"\"\"\n",
            ),
        ]);
        let ranked = rank(&map, "配置文件加载失败");
        assert_eq!(ranked[0].path, "src/settings/loader.py", "{ranked:?}");
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
    fn the_file_declaring_the_goal_s_option_ranks_first() {
        let (_d, map) = map_of(&[
            (
                "pylint/checkers/dup.py",
                "class Checker:\n    options = ((\"min-similarity-lines\", {\"default\": 4}),)\n",
            ),
            (
                "pylint/similarity/lines.py",
                "def minimum(a, b):\n    \"\"\"The minimum of two similarities.\"\"\"\n",
            ),
            ("pylint/lint/run.py", "def run(): pass\n"),
        ]);
        let goal = "Setting `min-similarity-lines` to 0 should disable the check\n\nIt flags every line as similar instead.";
        assert_first_for(
            &map,
            goal,
            "pylint/checkers/dup.py",
            "spells `min-similarity-lines` as a string",
        );
    }

    /// Asserts that `path` ranks first for `goal`, with a reason containing `why`.
    fn assert_first_for(map: &RepoMap, goal: &str, path: &str, why: &str) {
        let ranked = rank(map, goal);
        assert_eq!(ranked[0].path, path, "{ranked:?}");
        assert!(
            ranked[0].reasons.iter().any(|r| r.contains(why)),
            "{ranked:?}"
        );
    }

    #[test]
    fn a_stub_beside_its_code_ranks_after_it_unless_the_goal_speaks_of_types() {
        let stub = "def evolve(inst, **changes):\n    \"\"\"Create a new instance with changes applied.\"\"\"\n    ...\ndef asdict(inst, recurse=True):\n    \"\"\"Return the attributes as a dict.\"\"\"\n    ...\n";
        let code = "def evolve(inst, **changes):\n    \"\"\"Create a new instance with changes applied.\"\"\"\n    cls = inst.__class__\n    return cls(**changes)\ndef asdict(inst, recurse=True):\n    \"\"\"Return the attributes as a dict.\"\"\"\n    return {a: getattr(inst, a) for a in fields(inst)}\n";
        let files = [
            ("src/pkg/_funcs.py", code),
            ("src/pkg/_funcs.pyi", stub),
            (
                "web/index.js",
                "/** Create a new instance with changes applied. */\nfunction evolve(inst, changes) { return Object.assign({}, inst, changes) }\n",
            ),
            (
                "web/index.d.ts",
                "/** Create a new instance with changes applied. */\nexport function evolve(inst: object, changes: object): object;\n",
            ),
        ];
        let (_d, map) = map_of(&files);
        let ranked = rank(&map, "evolve: create a new instance with changes applied");
        let at = |p: &str| ranked.iter().position(|s| s.path == p).unwrap();
        assert!(
            at("src/pkg/_funcs.py") < at("src/pkg/_funcs.pyi"),
            "{ranked:?}"
        );
        assert!(at("web/index.js") < at("web/index.d.ts"), "{ranked:?}");
        let ranked = rank(
            &map,
            "mypy: evolve: create a new instance with changes applied",
        );
        let at = |p: &str| ranked.iter().position(|s| s.path == p).unwrap();
        assert!(
            at("src/pkg/_funcs.pyi") < at("src/pkg/_funcs.py"),
            "{ranked:?}"
        );
        // A stub with no code beside it (a stubs-only package) is the code there is.
        let (_d, map) = map_of(&[
            ("src/pkg/_funcs.pyi", stub),
            ("src/pkg/other.py", "def f(): pass\n"),
        ]);
        assert_first_for(
            &map,
            "evolve creates a new instance",
            "src/pkg/_funcs.pyi",
            "symbols match",
        );
        assert!(speaks_of_types("Type hints of evolve are wrong"));
        assert!(speaks_of_types("The option is missing from index.d.ts."));
        assert!(!speaks_of_types("src/loaded.ts fails on happyi input"));
        assert!(!speaks_of_types(
            "evolve raises TypeError on a frozen class"
        ));
    }

    #[test]
    fn the_file_raising_the_goal_s_error_message_ranks_first() {
        let (_d, map) = map_of(&[
            (
                "src/parser/error.rs",
                "pub fn mismatch(id: &str) -> String {\n    format!(\"Mismatch between definition and access of `{id}`\")\n}\n",
            ),
            (
                "src/parser/matches.rs",
                "/// Gets one value; the type of the definition and of the access must agree.\npub fn get_one() {}\npub fn definition_access() {}\n",
            ),
            ("src/builder/arg.rs", "pub fn arg() {}"),
        ]);
        let goal = "Value of the wrong type\n\n```\nthread 'main' panicked at src/main.rs:12:10:\nMismatch between definition and access of `port`. Could not downcast\n```";
        assert_first_for(
            &map,
            goal,
            "src/parser/error.rs",
            "holds the goal's error message",
        );
    }

    #[test]
    fn a_reason_names_no_term_most_files_share() {
        let (_d, map) = map_of(&[
            ("src/parser/error.rs", "pub fn mismatch() {}"),
            ("src/parser/matches.rs", "pub fn get_one() {}"),
            ("src/builder/arg.rs", "pub fn arg() {}"),
            ("src/builder/command.rs", "pub fn command() {}"),
        ]);
        let ranked = rank(
            &map,
            "get_one panic\n\n```\nthread 'main' panicked at src/main.rs:12:10:\nparser mismatch\n```",
        );
        assert!(!ranked.is_empty());
        for s in &ranked {
            for r in &s.reasons {
                let said = r.strip_prefix("path match: ").unwrap_or("");
                assert!(
                    !said.split(", ").any(|t| t == "src" || t == "rs"),
                    "{ranked:?}"
                );
            }
        }
        assert!(
            ranked
                .iter()
                .any(|s| s.reasons.iter().any(|r| r == "path match: parser")),
            "{ranked:?}"
        );
    }

    #[test]
    fn a_misspelt_name_finds_the_file_it_misspells() {
        // Both files hold `middleware`; only the misspelt word tells them apart.
        let (_d, map) = map_of(&[
            (
                "starlette/middleware/asgi.py",
                "class ASGIMiddleware:\n    pass\n",
            ),
            (
                "starlette/middleware/authentication.py",
                "class AuthenticationMiddleware:\n    pass\n",
            ),
        ]);
        let ranked = rank(&map, "Be more lenient in AuthencationMiddleware");
        assert_eq!(
            ranked[0].path, "starlette/middleware/authentication.py",
            "{ranked:?}"
        );
        assert!(
            ranked[0]
                .reasons
                .iter()
                .any(|r| r.contains("authent (read for the goal's authenc)")),
            "{ranked:?}"
        );
        // A plain English word the code does not use is not read as a typo.
        let (_d, map) = map_of(&[
            (
                "click/exceptions.py",
                "class ClickException(Exception):\n    pass\n",
            ),
            ("click/formatting.py", "def write_text(text):\n    pass\n"),
        ]);
        let ranked = rank(&map, "the excerpt in the help text is cut off");
        assert_eq!(ranked[0].path, "click/formatting.py", "{ranked:?}");
        assert!(
            ranked.iter().all(|s| s.path != "click/exceptions.py"),
            "{ranked:?}"
        );
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
    fn a_documents_headings_are_not_definitions() {
        // Word for word the same mentions of `merge_configs`; only the module defines it. A
        // heading of the same name is a document's outline, not a definition.
        let (_d, map) = map_of(&[
            (
                "docs/merge_configs.md",
                "# merge_configs\n\n## merge_configs\n\nCalls merge_configs.\n",
            ),
            (
                "src/merge.py",
                "def merge_configs(a, b):\n    \"\"\"Calls merge_configs.\"\"\"\n",
            ),
        ]);
        assert!(map
            .file("docs/merge_configs.md")
            .unwrap()
            .outline()
            .is_some());
        let ranked = rank(&map, "`merge_configs` drops keys");
        let reasons = |p: &str| {
            ranked
                .iter()
                .find(|s| s.path == p)
                .map(|s| s.reasons.join("; "))
                .unwrap_or_default()
        };
        assert!(reasons("src/merge.py").contains("defines"), "{ranked:?}");
        assert!(
            !reasons("docs/merge_configs.md").contains("defines"),
            "{ranked:?}"
        );
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
        assert!(scope_prefix("Cache::Store#fetch returns a stale entry").is_empty());
        assert!(scope_prefix("lib/shop/pricing.rb:37:in 'apply_tax'").is_empty());
        assert!(scope_prefix(r"C:\app\lib\x.rb:3:in 'y'").is_empty());
        assert!(scope_prefix("Request::with_stream: to use a stream").is_empty());
        assert_eq!(
            scope_prefix("api(App::name): rename"),
            ["api", "app", "name"]
        );
        assert_eq!(
            scope_prefix("axum/routing: merge fallbacks"),
            ["axum", "routing"]
        );
    }

    #[test]
    fn short_forms_of_a_word_are_recognised_and_little_else() {
        for (seg, word) in [
            ("h2", "http2"),
            ("h1", "http1"),
            ("cfg", "config"),
            ("fmt", "format"),
        ] {
            assert!(abbreviates(seg, word), "{seg} for {word}");
        }
        for (seg, word) in [
            ("http2", "http2"),    // the same word is not a short form
            ("h2", "http1"),       // another digit
            ("args", "argmatch"),  // four letters that do not start the word
            ("arg", "argmatches"), // a prefix
            ("conn", "connection"),
            ("src", "source"), // ends otherwise
            ("axum", "axum-core"),
            ("x", "xml"),
            ("c2", "http2"), // another first letter
        ] {
            assert!(!abbreviates(seg, word), "{seg} is no short form of {word}");
        }
    }

    #[test]
    fn http_versions_are_joined_as_code_writes_them() {
        assert_eq!(
            http_versions_joined(
                "HTTP/2 CONNECT: shutdown fails over HTTP/1.1, http/1 and https/3"
            ),
            "HTTP2 CONNECT: shutdown fails over HTTP1, http1 and https/3"
        );
        assert_eq!(
            http_versions_joined("src/http/mod.rs and a/b"),
            "src/http/mod.rs and a/b"
        );
        assert_eq!(http_versions_joined("xhttp/2 ünï/2"), "xhttp/2 ünï/2");
        // A report's title that writes `HTTP/2` names hyper-style `proto/h2/`.
        let (_d, map) = map_of(&[
            ("src/proto/h1/upgrade.rs", "pub fn poll_shutdown() {}"),
            ("src/proto/h2/upgrade.rs", "pub fn poll_shutdown() {}"),
        ]);
        let ranked = rank(&map, "HTTP/2 CONNECT tunnel fails to shut down");
        assert_eq!(ranked[0].path, "src/proto/h2/upgrade.rs", "{ranked:?}");
        assert!(ranked[0].score > ranked[1].score, "{ranked:?}");
    }

    #[test]
    fn a_typescript_source_ranks_before_its_built_copies_and_defines_its_names_alone() {
        // A published package's layout: the source, and four copies built from it.
        let source = "/** Converts a schema to a JSON Schema of the draft asked for. */\nexport function toJSONSchema(s: Schema): object { return {}; }\n";
        let built = "export function toJSONSchema(s) { return {}; }\n";
        let declared = "export declare function toJSONSchema(s: Schema): object;\n";
        let (_dir, map) = map_of(&[
            ("src/v4/core/json-schema-processors.ts", source),
            ("v4/core/json-schema-processors.js", built),
            ("v4/core/json-schema-processors.cjs", built),
            ("v4/core/json-schema-processors.d.ts", declared),
            ("v4/core/json-schema-processors.d.cts", declared),
            (
                "src/v4/core/to-json-schema.ts",
                "/** JSON Schema draft output options. */\nexport interface JsonSchemaGenerator { draft: string }\n",
            ),
            (
                "src/v4/core/standard-schema.ts",
                "/** The output of a JSON schema. */\nexport interface StandardJSONSchemaOutput { draft: string }\n",
            ),
        ]);
        let ranked = rank(
            &map,
            "Refactor toJSONSchema to support draft-2019-09 output",
        );
        assert_eq!(
            ranked[0].path, "src/v4/core/json-schema-processors.ts",
            "{ranked:?}"
        );
        assert!(
            ranked[0]
                .reasons
                .iter()
                .any(|r| r.contains("defines `toJSONSchema` named in the goal")),
            "{:?}",
            ranked[0].reasons
        );
        let copy = ranked
            .iter()
            .position(|s| s.path == "v4/core/json-schema-processors.js")
            .unwrap();
        assert!(copy > 2, "{ranked:?}");
    }

    #[test]
    fn a_bundle_of_the_sources_ranks_after_them() {
        // The bundle holds both functions among the rest of the library.
        let mut bundle = String::from("function isAbsoluteURL(url) { return true; }\nfunction buildFullPath(baseURL, requestedURL, allowAbsoluteUrls) {\n  if (allowAbsoluteUrls && isAbsoluteURL(requestedURL)) { return requestedURL; }\n  return combineURLs(baseURL, requestedURL);\n}\n");
        for k in 0..60 {
            bundle.push_str(&format!(
                "function adapter{k}(config) {{ return dispatchRequest(config, {k}); }}\n"
            ));
        }
        let (_d, map) = map_of(&[
            (
                "lib/helpers/buildFullPath.js",
                "export function buildFullPath(baseURL, requestedURL, allowAbsoluteUrls) {\n  return combineURLs(baseURL, requestedURL);\n}\n",
            ),
            (
                "lib/helpers/isAbsoluteURL.js",
                "export function isAbsoluteURL(url) {\n  return /^([a-z][a-z\\d+\\-.]*:)?\\/\\//i.test(url);\n}\n",
            ),
            ("dist/axios.js", bundle.as_str()),
        ]);
        let ranked = rank(
            &map,
            "buildFullPath ignores allowAbsoluteUrls for an absolute URL",
        );
        let paths: Vec<&str> = ranked.iter().map(|s| s.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "lib/helpers/buildFullPath.js",
                "lib/helpers/isAbsoluteURL.js",
                "dist/axios.js"
            ],
            "{ranked:?}"
        );
    }

    #[test]
    fn a_scope_written_as_a_path_names_its_module() {
        assert_eq!(
            scope_module("axum-core/macros: avoid double calls").as_deref(),
            Some("macros")
        );
        assert_eq!(
            scope_module("fix(auth/Session): expiry").as_deref(),
            Some("session")
        );
        assert_eq!(scope_module("fix(auth): expiry"), None);
        assert_eq!(scope_module("Refactor auth/session handling"), None);
        assert!(is_module_file("axum-core/src/macros/mod.rs", "macros"));
        assert!(!is_module_file("axum-core/src/macros/util.rs", "macros"));
        // Every file of the crate is in scope; the module's file leads.
        let (_d, map) = map_of(&[
            ("kit-core/src/lib.rs", "mod body;\nmod macros;"),
            (
                "kit-core/src/body.rs",
                "/// The text of a body.\npub fn body_text_of(b: &Body) -> String { b.body_text() }",
            ),
            (
                "kit-core/src/macros.rs",
                "macro_rules! rejection { ($r:ident) => { $r.body_text() } }",
            ),
        ]);
        let ranked = rank(&map, "kit-core/macros: avoid double `body_text()` calls");
        assert_eq!(ranked[0].path, "kit-core/src/macros.rs", "{ranked:?}");
        assert_eq!(ranked[1].path, "kit-core/src/body.rs", "{ranked:?}");
        assert!(ranked[0]
            .reasons
            .iter()
            .any(|r| r == "the module the goal's scope names"));
    }

    #[test]
    fn a_directory_named_by_a_short_form_of_the_scope_is_in_scope() {
        // `fix(http2)` scopes hyper-style `proto/h2/`; the words alone tie with `h1`.
        let (_d, map) = map_of(&[
            ("src/proto/h1/role.rs", "pub fn encode_trailers() {}"),
            ("src/proto/h2/role.rs", "pub fn encode_trailers() {}"),
        ]);
        let ranked = rank(&map, "fix(http2): encode trailers");
        assert_eq!(ranked[0].path, "src/proto/h2/role.rs", "{ranked:?}");
        assert!(ranked[0].score > ranked[1].score, "{ranked:?}");
        assert!(ranked[0]
            .reasons
            .iter()
            .any(|r| r.contains("inside the scope the goal starts with")));
    }

    #[test]
    fn the_package_folder_the_goal_names_with_the_package_counts_little() {
        // "requests" names `src/requests/`, which holds nearly every file: no reason, and
        // little weight against a folder of few files the goal names.
        let (_d, map) = map_of(&[
            ("src/requests/auth.py", "def netrc_lookup(): pass\n"),
            ("src/requests/api.py", "def get(): pass\n"),
            ("src/requests/models.py", "def prepare(): pass\n"),
            ("src/requests/sessions.py", "def send(): pass\n"),
            ("src/requests/utils.py", "def quote(): pass\n"),
            ("src/requests/hooks.py", "def dispatch(): pass\n"),
            ("src/requests/status.py", "def codes(): pass\n"),
            ("contrib/home/netrc_lookup.py", "def netrc_lookup(): pass\n"),
        ]);
        let ranked = rank(&map, "requests crashes in netrc_lookup when HOME is unset");
        let named = |p: &str| {
            ranked.iter().find(|s| s.path == p).is_some_and(|s| {
                s.reasons
                    .iter()
                    .any(|r| r == "in a directory the goal names")
            })
        };
        assert!(!named("src/requests/auth.py"), "{ranked:?}");
        assert!(named("contrib/home/netrc_lookup.py"), "{ranked:?}");
        assert_eq!(ranked[0].path, "contrib/home/netrc_lookup.py", "{ranked:?}");
        // Named alone, the package's folder is not raised to full weight; a folder of few
        // files is.
        let weight = |goal: &str, path: &str| {
            let (scope, top) = scope_weights(map.files(), goal);
            let i = map.files().iter().position(|f| f.path == path).unwrap();
            scope[i] / top
        };
        let w = weight("requests crashes in netrc_lookup", "src/requests/auth.py");
        assert!(w > 0.0 && w < 0.25, "{w}");
        let w = weight(
            "home crashes in netrc_lookup",
            "contrib/home/netrc_lookup.py",
        );
        assert_eq!(w, 1.0);
    }

    #[test]
    fn the_source_root_a_path_starts_with_names_no_scope() {
        let (_d, map) = map_of(&[
            ("src/scanners.rs", "pub fn scan_table_head() {}\n"),
            ("src/parse.rs", "pub fn parse() {}\n"),
            ("tests/spec.rs", "fn spec() {}\n"),
            ("tests/table.rs", "fn table() {}\n"),
            ("benches/scan.rs", "fn bench() {}\n"),
        ]);
        let ranked = rank(&map, "src/scanners.rs:897:5");
        assert_eq!(ranked[0].path, "src/scanners.rs", "{ranked:?}");
        assert!(
            ranked.iter().all(|s| s
                .reasons
                .iter()
                .all(|r| r != "in a directory the goal names")),
            "{ranked:?}"
        );
    }

    #[test]
    fn what_a_report_s_title_names_outweighs_what_its_reproduction_uses() {
        // The body's reproduction uses a response class; the title names the middleware
        // that broke.
        let (_d, map) = map_of(&[
            (
                "pkg/middleware/gzip.py",
                "class GZipMiddleware:\n    def __init__(self, app):\n        self.app = app\n",
            ),
            (
                "pkg/responses.py",
                "class Response:\n    pass\n\n\nclass PlainTextResponse(Response):\n    pass\n",
            ),
        ]);
        let goal = "GZipMiddleware: compressed replies lack a header\n\n\
            To reproduce:\n\n```python\napp = GZipMiddleware(PlainTextResponse('x' * 1000))\n```\n\
            Every reply lacks it.";
        let ranked = rank(&map, goal);
        assert_eq!(ranked[0].path, "pkg/middleware/gzip.py", "{ranked:?}");
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
    fn recent_changes_break_a_tie_but_never_create_relevance() {
        let files = [
            ("src/a_cache.rs", "pub fn evict_stale_entries() {}"),
            ("src/b_cache.rs", "pub fn evict_stale_entries() {}"),
            ("src/unrelated.rs", "pub fn parse_headers() {}"),
        ];
        let (_d, map) = map_of(&files);
        let plain = rank(&map, "evict stale cache entries");
        assert_eq!(plain[0].path, "src/a_cache.rs", "ties break by path");
        // The later file and the unrelated one changed in every recent commit.
        let log = "\0\nsrc/b_cache.rs\nsrc/unrelated.rs\n".repeat(5);
        let map = map.with_history(Some(crate::history::ChangeHistory::from_log(&log)));
        let ranked = rank(&map, "evict stale cache entries");
        assert_eq!(ranked[0].path, "src/b_cache.rs", "{ranked:?}");
        assert!(ranked[0]
            .reasons
            .iter()
            .any(|r| r == "changed often of late: 5 of the last 5 commits (1.00)"));
        assert!(ranked[1].score < 1.0 && ranked[1].score > 0.5, "{ranked:?}");
        assert!(
            ranked.iter().all(|s| s.path != "src/unrelated.rs"),
            "history alone ranks nothing: {ranked:?}"
        );
    }

    #[test]
    fn a_file_changed_once_is_not_said_to_change_often() {
        let files = [
            ("src/a_cache.rs", "pub fn evict_stale_entries() {}"),
            ("src/b_cache.rs", "pub fn evict_stale_entries() {}"),
        ];
        let (_d, map) = map_of(&files);
        // A young repository: one commit added every file.
        let log = "\0first\nsrc/a_cache.rs\nsrc/b_cache.rs\n";
        let map = map.with_history(Some(crate::history::ChangeHistory::from_log(log)));
        let ranked = rank(&map, "evict stale cache entries");
        assert_eq!(ranked.len(), 2, "{ranked:?}");
        assert!(
            ranked
                .iter()
                .all(|s| s.reasons.iter().all(|r| !r.contains("changed often"))),
            "{ranked:?}"
        );
    }

    #[test]
    fn what_past_commits_said_of_a_file_counts_as_its_text() {
        let files = [
            ("src/a_pool.rs", "pub fn checkout() {}"),
            ("src/b_pool.rs", "pub fn checkout() {}"),
        ];
        let (_d, map) = map_of(&files);
        let goal = "pool checkout leaks an idle connection";
        assert_eq!(
            rank(&map, goal)[0].path,
            "src/a_pool.rs",
            "ties break by path"
        );
        let log = "\0fix(pool): return idle connections on drop\n\nsrc/b_pool.rs\n\
                   \0docs: spelling\n\nsrc/a_pool.rs\n";
        let map = map.with_history(Some(crate::history::ChangeHistory::from_log(log)));
        let ranked = rank(&map, goal);
        assert_eq!(ranked[0].path, "src/b_pool.rs", "{ranked:?}");
        assert!(
            ranked[0]
                .reasons
                .iter()
                .any(|r| r.starts_with("past commits match: ")
                    && r.contains("idl")
                    && r.contains("connect")),
            "{ranked:?}"
        );
    }

    #[test]
    fn a_file_found_by_its_body_alone_says_so() {
        let (_d, map) = map_of(&[
            ("src/a.rs", "pub fn run() {\n    let zebra_count = 1;\n}\n"),
            ("src/b.rs", "pub fn other() {}\n"),
        ]);
        let ranked = rank(&map, "zebra count");
        let a = ranked.iter().find(|s| s.path == "src/a.rs").unwrap();
        assert!(
            a.reasons
                .iter()
                .any(|r| r.starts_with("body match: ") && r.contains("zebra")),
            "{ranked:?}"
        );
    }

    #[test]
    fn past_commits_like_the_goal_vote_for_the_files_they_changed() {
        let files = [
            ("src/a_pool.rs", "pub fn checkout() {}"),
            ("src/b_conn.rs", "pub fn close() {}"),
            ("src/c_docs.rs", "pub fn spelling() {}"),
            ("src/d_idle.rs", "pub fn timeout() {}"),
        ];
        let (_d, map) = map_of(&files);
        let log = "\0fix(pool): return idle connections on drop\n\nsrc/a_pool.rs\nsrc/b_conn.rs\n\
                   \0docs: spelling\n\nsrc/c_docs.rs\n\
                   \0pool: shorter idle timeout\n\nsrc/d_idle.rs\n";
        let history = crate::history::ChangeHistory::from_log(log);
        let goal = "return idle connections to the pool when dropped";
        let mut stems = Stems::new();
        let query = weighted_query(goal, &Goal::parse(goal), &mut stems);
        let votes = similar_commits(map.files(), &history, &query, &mut stems);
        // The closest commit's two files share its vote; the unrelated commit gives nothing.
        assert_eq!(votes[0].0, 1.0, "{votes:?}");
        assert_eq!(votes[0], votes[1]);
        assert_eq!(votes[0].1, "fix(pool): return idle connections on drop");
        assert_eq!(votes[2], (0.0, String::new()));
        assert!(votes[3].0 > 0.0 && votes[3].0 < 1.0, "{votes:?}");
        assert_eq!(votes[3].1, "pool: shorter idle timeout");
        // In the ranking the vote is relevance with its reason (the commit's words are the
        // goal's, as with a file's own past subjects); a file only unlike commits changed
        // ranks nowhere.
        let map = map.with_history(Some(history));
        let ranked = rank(&map, goal);
        let b = ranked.iter().find(|s| s.path == "src/b_conn.rs").unwrap();
        assert!(
            b.reasons
                .iter()
                .any(|r| r.starts_with("changed by a past commit like the goal: fix(pool)")),
            "{ranked:?}"
        );
        assert!(
            ranked.iter().all(|s| s.path != "src/c_docs.rs"),
            "{ranked:?}"
        );
    }

    #[test]
    fn a_panic_location_outranks_files_that_share_the_report_s_words() {
        // The report speaks the public API's language (server, connection, header, builder);
        // the panic names the internal file where it failed.
        let api = "/// HTTP/2 server connection builder: serve a connection, send response headers.\n\
                   pub struct Builder;\n\
                   impl Builder { pub fn serve_connection(&self) {} pub fn max_header_list_size(&self) {} }\n";
        let (_d, map) = map_of(&[
            ("src/server/conn/http2.rs", api),
            ("src/client/conn/http2.rs", api),
            (
                "src/proto/h2/mod.rs",
                "pub(crate) fn strip_connection_headers() {}\n",
            ),
        ]);
        let report = "Panic in the HTTP/2 server when a response has a non-ASCII connection header\n\n\
            Serving a connection with the HTTP/2 server builder, a response whose connection \
            header value is not visible ASCII kills the connection:\n\n```\n\
            thread 'tokio-runtime-worker' panicked at /home/ci/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/hyper-1.8.1/src/proto/h2/mod.rs:67:47:\n\
            called `Result::unwrap()` on an `Err` value: ToStrError { _priv: () }\n```\n";
        let ranked = rank(&map, report);
        assert_eq!(ranked[0].path, "src/proto/h2/mod.rs", "{ranked:?}");
        assert!(ranked[0]
            .reasons
            .iter()
            .any(|r| r.contains("the reported failure happened here")));
        // Without the panic the API files' words win: the location is what moved it.
        let prose = report.split("```").next().unwrap();
        assert_ne!(rank(&map, prose)[0].path, "src/proto/h2/mod.rs");
    }

    #[test]
    fn the_failing_frame_outranks_an_outer_frame_with_more_of_the_report_s_words() {
        let (_d, map) = map_of(&[
            (
                "internal/store2/cache.go",
                "package store2\n\nvar entries map[string]string\n\nfunc Get(key string) string { entries[key] = \"x\"; return entries[key] }\n",
            ),
            (
                "cmd/server/main.go",
                "package main\n\n// main starts the server: it reads the entry, assigns the map and exits with status.\nfunc main() { store2.Get(\"entry\") }\n",
            ),
        ]);
        let report = "panic: assignment to entry in nil map\n\ngoroutine 1 [running]:\n\
            example.com/demo/internal/store2.Get(...)\n\
            \t/home/u/demo/internal/store2/cache.go:5\n\
            main.main()\n\
            \t/home/u/demo/cmd/server/main.go:6 +0x1d\n\
            exit status 2\n";
        let ranked = rank(&map, report);
        assert_eq!(ranked[0].path, "internal/store2/cache.go", "{ranked:?}");
    }

    #[test]
    fn ruby_and_php_failures_rank_the_failing_file_and_define_its_method() {
        let (_d, map) = map_of(&[
            (
                "lib/acme/http_client.rb",
                "module Acme\n  class HttpClient\n    def get(path)\n      @conn.fetch(path)\n    end\n  end\nend\n",
            ),
            (
                "lib/acme/cli.rb",
                "module Acme\n  # Runs the command line: reads the config, fetches the path, prints it.\n  class Cli\n    def run(argv)\n      HttpClient.new.get(argv.first)\n    end\n  end\nend\n",
            ),
            ("src/Http/Router.php", "<?php\nnamespace App\\Http;\n\nclass Router\n{\n    public function add(string $path): self { return $this; }\n}\n"),
            ("src/Kernel.php", "<?php\nnamespace App;\n\n// Boots the router and adds every route: path, handler, argument.\nclass Kernel\n{\n    public function boot() { $this->router->add(null); }\n}\n"),
        ]);
        let rb = "NoMethodError: undefined method `fetch' for nil:NilClass\n\
            \t/app/lib/acme/http_client.rb:4:in 'Acme::HttpClient#get'\n\
            \tfrom /app/lib/acme/cli.rb:5:in 'Acme::Cli#run'\n";
        let ranked = rank(&map, rb);
        assert_eq!(ranked[0].path, "lib/acme/http_client.rb", "{ranked:?}");
        assert!(
            ranked[0]
                .reasons
                .iter()
                .any(|r| r.contains("defines `get`")),
            "{ranked:?}"
        );
        let php = "PHP Fatal error:  Uncaught TypeError: App\\Http\\Router::add(): Argument #1 ($path) must be of type string, null given in /var/www/src/Http/Router.php:6\n\
            Stack trace:\n#0 /var/www/src/Kernel.php(7): App\\Http\\Router->add(NULL)\n#1 {main}\n";
        let ranked = rank(&map, php);
        assert_eq!(ranked[0].path, "src/Http/Router.php", "{ranked:?}");
        // A report that starts with a frame of Ruby's own library names no directory, and a
        // class path is no commit scope.
        let frame_first =
            "/usr/lib/ruby/3.4.0/acme/cli.rb:74:in 'run'\n\tfrom /app/bin/tool:3:in '<main>'\n";
        let ranked = rank(&map, frame_first);
        assert!(
            ranked
                .iter()
                .all(|s| s.reasons.iter().all(|r| !r.contains("the goal names"))),
            "{ranked:?}"
        );
        let ranked = rank(&map, "Acme::Cli#run fetches the wrong path");
        assert!(
            ranked
                .iter()
                .all(|s| s.reasons.iter().all(|r| !r.contains("scope the goal"))),
            "{ranked:?}"
        );
    }

    #[test]
    fn a_file_whose_whole_path_the_goal_writes_is_not_ranked_down_for_its_kind() {
        let code = "def option(*names):\n    \"\"\"Attaches an option to the command.\"\"\"\n    return names\n";
        let (_d, map) = map_of(&[
            ("src/click/decorators.py", code),
            (
                "docs/options.md",
                "# Options\n\nHow to add an optoin to a command.\n",
            ),
            (
                "tests/test_options.py",
                "def test_option():\n    assert True\n",
            ),
        ]);
        let ranked = rank(&map, "Fix the typo in docs/options.md");
        assert_eq!(ranked[0].path, "docs/options.md", "{ranked:?}");
        let ranked = rank(&map, "Make tests/test_options.py less flaky");
        assert_eq!(ranked[0].path, "tests/test_options.py", "{ranked:?}");
        // A tail of a path is not the whole of it: `options.md` alone still names the file,
        // as a document ranked like one.
        let ranked = rank(&map, "option decorator typo in options.md");
        assert_eq!(ranked[0].path, "src/click/decorators.py", "{ranked:?}");
    }

    #[test]
    fn a_link_in_the_goal_names_no_folder_or_file() {
        let (_d, map) = map_of(&[
            ("src/totals.py", "def totals(rows):\n    return sum(rows)\n"),
            ("issues/tracker.py", "def track(issue):\n    return issue\n"),
            ("org/repo.py", "def clone():\n    pass\n"),
        ]);
        let ranked = rank(
            &map,
            "Totals are wrong, see https://github.com/org/repo/issues/12",
        );
        let paths: Vec<&str> = ranked.iter().map(|s| s.path.as_str()).collect();
        assert_eq!(paths, ["src/totals.py"], "{ranked:?}");
    }

    #[test]
    fn examples_and_benches_the_goal_asks_for_are_not_ranked_down() {
        let code = "pub fn redirect_http_to_https(port: u16) -> u16 { port }\n";
        let (_d, map) = map_of(&[
            ("src/redirect.rs", code),
            ("examples/tls-redirect/src/main.rs", code),
            ("tests/tls_redirect.rs", code),
        ]);
        let first = |goal: &str| rank(&map, goal)[0].path.clone();
        let asked = rank(&map, "Update the TLS examples to redirect HTTP to HTTPS");
        assert_eq!(
            asked[0].path, "examples/tls-redirect/src/main.rs",
            "{asked:?}"
        );
        assert!(asked[0].reasons.iter().any(|r| r.contains("asks for")));
        // The same words without asking for an example: the library file wins.
        assert_eq!(first("Redirect TLS HTTP to HTTPS"), "src/redirect.rs");
        // "For example" asks for nothing, and tests are never asked for by name.
        assert_eq!(
            first("Redirect TLS HTTP to HTTPS, for example on port 80"),
            "src/redirect.rs"
        );
        assert_eq!(
            first("Update the TLS tests to redirect HTTP to HTTPS"),
            "src/redirect.rs"
        );
    }

    #[test]
    fn asked_for_kinds_cover_only_paths_of_those_kinds() {
        let asked = AskedFor::of("feat(bench): a benchmark for the router");
        assert!(asked.benches && !asked.examples);
        assert!(asked.covers("benches/router.rs"));
        assert!(!asked.covers("src/router.rs"), "not auxiliary at all");
        assert!(!asked.covers("tests/benches/router.rs"), "a test as well");
        assert!(!AskedFor::of("for example").examples);
        assert!(AskedFor::of("Example: add a websocket example").examples);
    }

    #[test]
    fn auxiliary_paths_are_recognised() {
        assert!(is_auxiliary("tests/auth.rs"));
        assert!(is_auxiliary("src/auth_test.go"));
        assert!(is_auxiliary("web/login.spec.ts"));
        assert!(is_auxiliary("src/components/__tests__/Button.tsx"));
        assert!(is_auxiliary("src/__mocks__/api.js"));
        assert!(is_auxiliary("spec/models/user_spec.rb"));
        assert!(is_auxiliary("lib/user_spec.rb"));
        assert!(is_auxiliary("conftest.py"));
        assert!(is_auxiliary("benchmarks/parse.py"));
        assert!(!is_auxiliary("src/auth/middleware.rs"));
        assert!(!is_auxiliary("src/specification.rs"));
        assert!(!is_auxiliary("lib/contest.py"));
        // Camel-case test names of Java, Kotlin, Swift and .NET.
        assert!(is_auxiliary("Tests/StoreKitTests/CacheTests.swift"));
        assert!(is_auxiliary("Sources/Store/CacheTests.swift"));
        assert!(is_auxiliary("core/src/main/kotlin/StoreTest.kt"));
        assert!(is_auxiliary(
            "app/src/androidTest/java/com/acme/MainActivity.kt"
        ));
        assert!(is_auxiliary("src/Acme.Store.Tests/LruCache.cs"));
        assert!(is_auxiliary("lib/ParserSpec.kt"));
        assert!(!is_auxiliary("Sources/Store/Latest.swift"));
        assert!(!is_auxiliary("src/Contest.kt"));
        assert!(!is_auxiliary("src/Acme.Testing/BackTester.cs"));
        assert!(!is_auxiliary("src/TLSSpec.kt"));
        // Build output and vendored code; a `build/` below the top may be source.
        assert!(is_auxiliary("build/EventEmitter.d.ts"));
        assert!(is_auxiliary("build/"));
        assert!(is_auxiliary("packages/ui/dist/index.js"));
        assert!(is_auxiliary("vendor/github.com/pkg/errors/errors.go"));
        assert!(!is_auxiliary("src/build/arg.rs"));
        assert!(is_auxiliary(
            "packages/expo-modules-core/build/PermissionsHook.js"
        ));
        assert!(!is_auxiliary("packages/build/index.js"));
        assert!(!is_auxiliary("build.rs"));
        assert!(!is_auxiliary("src/dist.py"));
    }
}
