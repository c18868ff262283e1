//! Rendering a context window from a repository map and a Flight Plan.
//!
//! The output is a pure function of (plan, file contents), which is what makes a Flight Plan a
//! reproducible recipe: first the files shown with content, each under a header with its path,
//! level and tokens, those named by exact-path rules in the order of their rules (an explored
//! plan lists them most relevant first), then the others in path order; then, under "Other
//! files", path-only lines and collapsed directory counts in path order. No timestamps, no
//! absolute paths, no counts of anything outside the plan's reach.

use crate::capped::GoalWords;
use crate::error::Result;
use crate::flight_plan::{FlightPlan, Level};
use crate::scan::{Content, FileEntry, RepoMap};
use crate::tokens::Tokenizer;
use crate::verbosity::{collapse_dir, RuleSet};
use std::collections::BTreeMap;
use std::fmt::Write;

/// A rendered context window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    /// The context text.
    pub text: String,
    /// Its size in the plan's tokenizer.
    pub tokens: usize,
    /// Every file with the level it was actually shown at (after caps), in path order.
    pub levels: Vec<(String, Level)>,
    /// Indices (into `levels`) of files shown only as part of a collapsed directory line.
    pub(crate) collapsed: Vec<usize>,
    /// Collapsed directory lines and the files each counts, in path order.
    pub collapsed_dirs: Vec<(String, usize)>,
    /// The same lines counting only the files folded into them (not those a rule hides,
    /// which a plan names on its own): what a pinned plan records.
    pub(crate) folded_dirs: Vec<(String, usize)>,
    /// Files shown with content (level 2 and up), in the order of the context, with the
    /// tokens of their block (header included).
    pub shown: Vec<Shown>,
    /// Files shown lower than their rule asks for a reason the plan cannot see, with the
    /// reason, in path order: too large to read or to outline, not UTF-8 text, or over the
    /// plan's huge-file cap under a rule that does not name them. (A file kind without an
    /// outline, shown as its path at levels 2 and 3, is not listed: that is by design.)
    pub limited: Vec<(String, String)>,
}

/// One file shown with content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    /// Repository-relative path.
    pub path: String,
    /// The level it was shown at.
    pub level: Level,
    /// Tokens of its block, header included: what it takes of the budget.
    pub tokens: usize,
    /// Tokens of its content alone, as its header states them.
    pub content_tokens: usize,
    /// The 1-based line ranges shown at full source: the whole file at level 4, the items a
    /// rule's `focus` names at levels 2 and 3, none otherwise.
    pub full_lines: Vec<(u32, u32)>,
    /// Outline entries its rule's `max_items` left out (0 when none were).
    pub omitted: usize,
}

impl Rendered {
    /// Files listed by path on a line of their own (not those counted in a collapsed
    /// directory line), in path order.
    pub fn listed_paths(&self) -> impl Iterator<Item = &str> {
        self.levels
            .iter()
            .enumerate()
            .filter(|(k, (_, l))| *l == Level::Path && self.collapsed.binary_search(k).is_err())
            .map(|(_, (p, _))| p.as_str())
    }

    /// The level a file was shown at (`Hidden` for files not in the map).
    pub fn level_of(&self, path: &str) -> Level {
        self.levels
            .binary_search_by(|(p, _)| p.as_str().cmp(path))
            .map(|i| self.levels[i].1)
            .unwrap_or(Level::Hidden)
    }
}

/// The level a file can really be shown at: unreadable or non-UTF-8 files, and minified
/// files and files over the huge-file cap (unless named exactly), show as a path; files
/// without an outline, or whose outline is empty (a script of plain statements, an
/// `__init__.py` of imports), skip straight from path to full source instead of showing an
/// empty outline under a header.
pub(crate) fn effective_level(
    file: &FileEntry,
    wanted: Level,
    exact: bool,
    huge_file_bytes: u64,
) -> Level {
    let capped = match &file.content {
        Content::Text { .. } if exact => wanted,
        Content::Text { .. } if file.size <= huge_file_bytes && !file.minified => wanted,
        _ => wanted.min(Level::Path),
    };
    match capped {
        Level::TopLevel | Level::Signatures
            if file.outline().is_none_or(|o| o.symbols.is_empty()) =>
        {
            Level::Path
        }
        l => l,
    }
}

/// Why `file` cannot be shown at `wanted` for its size or encoding (see
/// [`FileEntry::limit_at`]), or for the plan's huge-file cap when a rule that does not name
/// it exactly asks for it; `None` when nothing but the budget stands in the way.
pub(crate) fn why_limited(
    file: &FileEntry,
    wanted: Level,
    exact: bool,
    huge_file_bytes: u64,
) -> Option<&'static str> {
    file.limit_at(wanted).or_else(|| {
        if !exact && file.minified && wanted > Level::Path {
            return Some("minified code, lines of thousands of characters (a rule naming its exact path shows it)");
        }
        let huge = !exact && file.size > huge_file_bytes && file.text().is_some();
        (huge && wanted > Level::Path)
            .then_some("over the plan's huge-file cap (a rule naming its exact path shows it)")
    })
}

/// What a level shows, for file headers.
fn level_name(level: Level) -> &'static str {
    match level {
        Level::Hidden => "hidden",
        Level::Path => "path",
        Level::TopLevel => "top-level outline",
        Level::Signatures => "signatures and docs",
        Level::Full => "full source",
    }
}

/// The body one file contributes at `level` (empty for `Hidden`, its path line for `Path`).
fn file_body(file: &FileEntry, level: Level) -> String {
    let mut out = String::new();
    match level {
        Level::Hidden => {}
        Level::Path => {
            let _ = writeln!(out, "{}", file.path);
        }
        Level::TopLevel | Level::Signatures => {
            if let Some(outline) = file.outline() {
                for k in crate::capped::entries(file, level) {
                    crate::capped::write_entry(&mut out, file, &outline.symbols[k], level);
                }
            }
        }
        Level::Full => {
            let text = file.text().unwrap_or_default();
            // An empty `__init__.py` says so in a line instead of an empty code block.
            if crate::zoom::without_bom(text).trim().is_empty() {
                out.push_str("(empty file)\n");
                return out;
            }
            let mut fence = "```".to_string();
            while text.contains(fence.as_str()) {
                fence.push('`');
            }
            let lang = file.lang.map(|l| l.name()).unwrap_or("");
            let _ = writeln!(out, "{fence}{lang}");
            // As the zoomed ranges show it: no byte-order mark, no carriage returns before
            // line ends (tokens for nothing).
            let text = crate::zoom::without_bom(text);
            if text.contains("\r\n") {
                for line in text.lines() {
                    out.push_str(line);
                    out.push('\n');
                }
            } else {
                out.push_str(text);
                if !text.ends_with('\n') {
                    out.push('\n');
                }
            }
            let _ = writeln!(out, "{fence}");
        }
    }
    out
}

/// The block one file contributes at `level`, and its tokens (memoised per file, tokenizer
/// and level). Content levels start with a header naming path, level and the body's tokens.
/// At levels 2 and 3 the items `focus` names are spliced in at full source (not memoised).
pub(crate) fn file_block(
    file: &FileEntry,
    level: Level,
    focus: &[String],
    tokenizer: Tokenizer,
) -> (String, usize) {
    shaped_block(file, level, focus, None, tokenizer)
}

/// [`file_block`] with a rule's `max_items` cap (and the goal's words that choose the entries
/// kept): a focus that resolves wins, then the cap, then the plain outline.
pub(crate) fn shaped_block(
    file: &FileEntry,
    level: Level,
    focus: &[String],
    cap: Option<(u32, &GoalWords)>,
    tokenizer: Tokenizer,
) -> (String, usize) {
    if matches!(level, Level::TopLevel | Level::Signatures) && !focus.is_empty() {
        if let Some((body, _)) = crate::zoom::focused_body(file, level, focus, cap) {
            let n = focus_count(file, focus);
            let block = format!(
                "## {} (level {}: {}, {n} {} at full source, {} tokens)\n{body}",
                file.path,
                level as u8,
                level_name(level),
                if n == 1 { "item" } else { "items" },
                tokenizer.count(&body)
            );
            let tokens = tokenizer.count(&block);
            return (block, tokens);
        }
    }
    if let Some((max, goal)) = cap {
        let made = file
            .capped
            .get_or(tokenizer, level, max, goal.fingerprint(), || {
                let body = crate::capped::capped_body(file, level, max, goal)?;
                let block = format!(
                    "## {} (level {}: {}, {max} of {} entries, {} tokens)\n{body}",
                    file.path,
                    level as u8,
                    level_name(level),
                    crate::capped::entries(file, level).len(),
                    tokenizer.count(&body)
                );
                let tokens = tokenizer.count(&block);
                Some((block, tokens))
            });
        if let Some(made) = made {
            return made;
        }
    }
    let body = file_body(file, level);
    if level <= Level::Path {
        let tokens = file.block_tokens(tokenizer, level, || body.clone());
        return (body, tokens);
    }
    let body_tokens = file.body_tokens(tokenizer, level, || body.clone());
    let block = format!(
        "## {} (level {}: {}, {} tokens)\n{body}",
        file.path,
        level as u8,
        level_name(level),
        body_tokens
    );
    let tokens = file.block_tokens(tokenizer, level, || block.clone());
    (block, tokens)
}

/// [`shaped_block`], and the level shown: an outline that would cost as much as the file's
/// source (a TOML file of many small tables, a Markdown page of headings, a module of
/// one-line functions) is the full source instead, which says more for no more tokens.
pub(crate) fn shown_block(
    file: &FileEntry,
    level: Level,
    focus: &[String],
    cap: Option<(u32, &GoalWords)>,
    tokenizer: Tokenizer,
) -> (Level, String, usize) {
    let (block, tokens) = shaped_block(file, level, focus, cap, tokenizer);
    // Only an outline about as long as the file in bytes is worth counting against it.
    let long = (block.len() as u64).saturating_mul(4) >= file.size.saturating_mul(3);
    if matches!(level, Level::TopLevel | Level::Signatures) && long && file.text().is_some() {
        let (full, full_tokens) = shaped_block(file, Level::Full, &[], None, tokenizer);
        if full_tokens <= tokens {
            return (Level::Full, full, full_tokens);
        }
    }
    (level, block, tokens)
}

/// The content tokens a block's header states (`## path (level …, N tokens)`).
fn stated_tokens(block: &str) -> usize {
    let head = block.lines().next().unwrap_or_default();
    head.strip_suffix(" tokens)")
        .and_then(|h| h.rsplit([' ', '(']).next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// How many of `focus`'s names resolve to items of `file`.
fn focus_count(file: &FileEntry, focus: &[String]) -> usize {
    let names: std::collections::HashSet<String> = crate::zoom::items(file)
        .into_iter()
        .map(|i| i.name.replace("::", "."))
        .collect();
    focus
        .iter()
        .filter(|f| names.contains(&f.replace("::", ".")))
        .count()
}

/// The outline entries a rule's `max_items` leaves out of `file` at `level` (beside a focus
/// that resolves, the entries enclosing a focused item are shown too, as in [`shaped_block`]).
fn omitted(
    file: &FileEntry,
    level: Level,
    focus: &[String],
    cap: Option<(u32, &GoalWords)>,
) -> usize {
    let Some((max, _)) = cap else {
        return 0;
    };
    if !matches!(level, Level::TopLevel | Level::Signatures) {
        return 0;
    }
    if focus_count(file, focus) > 0 {
        return crate::zoom::focused_body(file, level, focus, cap).map_or(0, |(_, left)| left);
    }
    crate::capped::entries(file, level)
        .len()
        .saturating_sub(max as usize)
}

/// The line ranges of `file` shown at full source at `level` with `focus`.
fn full_lines(file: &FileEntry, level: Level, focus: &[String]) -> Vec<(u32, u32)> {
    match level {
        Level::Full => {
            let n = file.text().map_or(0, |t| t.lines().count()) as u32;
            vec![(1, n.max(1))]
        }
        Level::TopLevel | Level::Signatures => crate::zoom::focused_lines(file, focus),
        _ => Vec::new(),
    }
}

/// Whether the tokenizer's pre-split cuts in front of `block` whatever came before it, so
/// that the tokens of a concatenation are the sum of the blocks' tokens.
///
/// Every block ends in a newline; in both encodings a pre-token never runs from a newline into
/// a following letter, digit or punctuation mark, except that `o200k_base` lets punctuation
/// plus newlines swallow a following `/`. So a block that starts with anything but whitespace
/// or `/` starts a fresh pre-token; paths that start that way are rare, and are counted whole.
fn splits_cleanly(block: &str) -> bool {
    block
        .chars()
        .next()
        .is_some_and(|c| !c.is_whitespace() && c != '/')
}

/// The header every context starts with.
pub(crate) fn header(plan: &FlightPlan) -> String {
    // One line: a goal's own lines (`## src/x.py ...` in a pasted report) must not read as
    // the context's file headers.
    let flat = plan.goal.split_whitespace().collect::<Vec<_>>().join(" ");
    let total = flat.chars().count();
    if total <= HEADER_GOAL_CHARS {
        return format!("# Goal: {flat}\n\n");
    }
    let cut: String = flat.chars().take(HEADER_GOAL_CHARS).collect();
    format!(
        "# Goal: {}… (+{} characters)\n\n",
        cut.trim_end(),
        total - HEADER_GOAL_CHARS
    )
}

/// The header shows at most this many characters of the goal: a bug report with its
/// traceback would otherwise spend the budget repeating itself (the plan keeps it whole).
const HEADER_GOAL_CHARS: usize = 300;

/// The top directory line a file folds into: `src/` for `src/a/b.rs`, `./` for `README.md`.
fn top_dir(path: &str) -> String {
    match path.split_once('/') {
        Some((top, _)) => format!("{top}/"),
        None => "./".to_string(),
    }
}

/// Renders `plan` over `map`.
///
/// ```no_run
/// use navigator_context::{render, FlightPlan, RepoMap};
/// let map = RepoMap::open(".")?;
/// let plan = FlightPlan::from_yaml(&std::fs::read_to_string("flight_plan.yaml").unwrap())?;
/// let ctx = render(&map, &plan)?;
/// assert!(ctx.tokens <= plan.token_budget || ctx.text.len() > 0);
/// # Ok::<(), navigator_context::Error>(())
/// ```
pub fn render(map: &RepoMap, plan: &FlightPlan) -> Result<Rendered> {
    plan.validate()?;
    let rules = RuleSet::compile(&plan.rules)?;
    // The goal's words choose the entries of capped outlines: stemmed once, when needed.
    let goal_words = std::cell::LazyCell::new(|| GoalWords::shared(&plan.goal));
    // Content blocks keyed by (rule position for exact rules, else past them; path); path
    // lines and collapsed directory names share one path order.
    let mut content: BTreeMap<(usize, String), (String, Shown)> = BTreeMap::new();
    let mut paths: BTreeMap<String, (String, usize)> = BTreeMap::new();
    let mut collapsed: BTreeMap<String, usize> = BTreeMap::new();
    let mut hidden: BTreeMap<String, usize> = BTreeMap::new();
    // Files no rule matches, per top directory: counted in a line the directory has anyway.
    let mut unmatched: BTreeMap<String, usize> = BTreeMap::new();
    let mut levels = Vec::with_capacity(map.files().len());
    let mut collapsed_files = Vec::new();
    let mut limited = Vec::new();
    for file in map.files() {
        let Some(res) = rules.resolve(&file.path) else {
            *unmatched.entry(top_dir(&file.path)).or_default() += 1;
            levels.push((file.path.clone(), Level::Hidden));
            continue;
        };
        let rule = rules.rule(res.rule);
        if rule.collapse && res.level > Level::Hidden {
            let mut dir = collapse_dir(&rule.path);
            if dir.is_empty() {
                dir = top_dir(&file.path);
            }
            *collapsed.entry(dir).or_default() += 1;
            collapsed_files.push(levels.len());
            levels.push((file.path.clone(), Level::Path));
            continue;
        }
        let level = effective_level(file, res.level, res.exact, plan.huge_file_bytes);
        if level < res.level {
            if let Some(why) = why_limited(file, res.level, res.exact, plan.huge_file_bytes) {
                limited.push((file.path.clone(), why.to_string()));
            }
        }
        if level == Level::Hidden {
            // Not shown, still counted: a directory whose files are partly listed must not
            // read as complete ("src/ (6 more files)").
            *hidden.entry(top_dir(&file.path)).or_default() += 1;
            levels.push((file.path.clone(), level));
            continue;
        }
        let cap = rule.max_items.map(|m| (m, &**goal_words));
        let (level, block, tokens) = shown_block(file, level, &rule.focus, cap, plan.tokenizer);
        levels.push((file.path.clone(), level));
        if level == Level::Path {
            paths.insert(file.path.clone(), (block, tokens));
        } else {
            let order = if res.exact { res.rule } else { usize::MAX };
            let shown = Shown {
                path: file.path.clone(),
                level,
                tokens,
                content_tokens: stated_tokens(&block),
                full_lines: full_lines(file, level, &rule.focus),
                omitted: omitted(file, level, &rule.focus, cap),
            };
            content.insert((order, file.path.clone()), (block, shown));
        }
    }
    let folded_dirs: Vec<(String, usize)> = collapsed.clone().into_iter().collect();
    for (dir, n) in hidden {
        *collapsed.entry(dir).or_default() += n;
    }
    // A directory's line counts every file of it not shown, not only those a rule hides
    // (a fitted plan that hid its 30 files read "axum/ (30 files)" for a folder of 84).
    for (dir, n) in unmatched {
        if let Some(c) = collapsed.get_mut(&dir) {
            *c += n;
        }
    }
    let collapsed_dirs: Vec<(String, usize)> = collapsed.into_iter().collect();
    // Directories that also hold files shown on their own: their folded line counts the
    // files not shown, "more" than those (else it would read as the directory's size).
    let mut listed_in: std::collections::HashSet<&str> = std::collections::HashSet::new();
    if !collapsed_dirs.is_empty() {
        for (k, (path, level)) in levels.iter().enumerate() {
            if *level == Level::Hidden || collapsed_files.binary_search(&k).is_ok() {
                continue;
            }
            if !path.contains('/') {
                listed_in.insert("./");
            }
            for (i, _) in path.match_indices('/') {
                listed_in.insert(&path[..=i]);
            }
        }
    }
    for (dir, n) in &collapsed_dirs {
        let noun = if *n == 1 { "file" } else { "files" };
        let more = if listed_in.contains(dir.as_str()) {
            "more "
        } else {
            ""
        };
        let line = format!("{dir} ({n} {more}{noun})\n");
        let tokens = plan.tokenizer.count(&line);
        // Directory keys end in `/`, file paths never do: the entry is always new.
        paths.insert(dir.clone(), (line, tokens));
    }
    let head = header(plan);
    let mut tokens = plan.tokenizer.count(&head);
    let mut additive = true;
    let mut text = head;
    let mut shown = Vec::with_capacity(content.len());
    for (block, file) in content.into_values() {
        additive &= splits_cleanly(&block);
        text.push_str(&block);
        tokens += file.tokens;
        shown.push(file);
    }
    if !shown.is_empty() && !paths.is_empty() {
        text.push_str(OTHER_FILES);
        tokens += plan.tokenizer.count(OTHER_FILES);
    }
    for (block, n) in paths.values() {
        additive &= splits_cleanly(block);
        text.push_str(block);
        tokens += n;
    }
    if !additive {
        tokens = plan.tokenizer.count(&text);
    }
    Ok(Rendered {
        text,
        tokens,
        levels,
        collapsed: collapsed_files,
        collapsed_dirs,
        folded_dirs,
        shown,
        limited,
    })
}

/// Heads the path-only part of a context that also shows files with content.
const OTHER_FILES: &str = "## Other files\n";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flight_plan::Rule;
    use crate::scan::ScanOptions;

    #[test]
    fn the_header_shows_a_long_goal_cut_on_one_line() {
        let short = FlightPlan::new("  Fix the   parser\n", 1000);
        assert_eq!(header(&short), "# Goal: Fix the parser\n\n");
        let pasted = FlightPlan::new("Title\n## src/x.py (level 4: full source, 3 tokens)", 1000);
        assert_eq!(
            header(&pasted),
            "# Goal: Title ## src/x.py (level 4: full source, 3 tokens)\n\n",
            "a goal's lines never start a line of the context"
        );
        let report = "word ".repeat(2_000);
        let h = header(&FlightPlan::new(&report, 1000));
        assert!(h.len() < 400, "{} bytes", h.len());
        assert!(h.ends_with("… (+9699 characters)\n\n"), "{h}");
        assert_eq!(h.trim_end().lines().count(), 1);
    }

    #[test]
    fn summed_block_tokens_equal_counting_the_whole_text() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        let files: [(&str, &str); 8] = [
            ("a.rs", "/// Doc.\npub fn a() -> u8 { 1 }   \n\n\n"),
            ("b.py", "def b():\n    return '}'\n}"),
            ("c/d.go", "package c\n// X.\nfunc X() {}\n\t\r\n"),
            ("c/e.txt", "naïve — ünïcödé 123456789 ///\n/"),
            ("c/f.md", "```\ncode\n```\n!!!"),
            ("g.ts", "export const g = (x: number) => x;\n\n  \n"),
            ("h.js", "// end with punctuation.\n"),
            (
                "i.py",
                "def a():\n    pass\n\n\ndef b():\n    pass\n\n\nclass C:\n    x = 1\n",
            ),
        ];
        for (p, text) in files {
            std::fs::create_dir_all(r.join(p).parent().unwrap()).unwrap();
            std::fs::write(r.join(p), text).unwrap();
        }
        let options = ScanOptions {
            cache_dir: None,
            ..ScanOptions::for_root(r)
        };
        let map = RepoMap::open_with(r, &options).unwrap();
        for tokenizer in Tokenizer::ALL {
            for (level, cap) in Level::ALL
                .into_iter()
                .flat_map(|l| [(l, None), (l, Some(1))])
            {
                for goal in ["x", "ends with a dot.", "slash /", "spaces   "] {
                    let mut plan = FlightPlan::new(goal, 1000);
                    plan.tokenizer = tokenizer;
                    plan.rules = vec![
                        Rule {
                            max_items: cap,
                            ..Rule::new("**", level)
                        },
                        Rule {
                            path: "c/".into(),
                            level: Level::Path,
                            collapse: true,
                            focus: Vec::new(),
                            max_items: None,
                        },
                    ];
                    let out = render(&map, &plan).unwrap();
                    assert_eq!(
                        out.tokens,
                        tokenizer.count(&out.text),
                        "{tokenizer} {level} {cap:?}"
                    );
                    // Memoised counts give the same answer the second time.
                    assert_eq!(render(&map, &plan).unwrap(), out);
                    for shown in &out.shown {
                        let head = format!("## {} (level {}", shown.path, shown.level as u8);
                        let line = out.text.lines().find(|l| l.starts_with(&head)).unwrap();
                        assert!(
                            shown.content_tokens > 0
                                && shown.content_tokens < shown.tokens
                                && line.ends_with(&format!(" {} tokens)", shown.content_tokens)),
                            "{line}: {shown:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_capped_rule_shows_its_first_entries_and_counts_the_rest() {
        let (_d, map) = crate::scan::temp_map(&[(
            "m.py".to_string(),
            "def alpha():\n    pass\n\n\ndef parse_token():\n    pass\n\n\ndef gamma():\n    pass\n"
                .to_string(),
        )]);
        let mut plan = FlightPlan::new("token parsing", 1000);
        plan.rules = vec![Rule::capped("m.py", Level::TopLevel, 1)];
        let out = render(&map, &plan).unwrap();
        assert!(
            out.text
                .contains("## m.py (level 2: top-level outline, 1 of 3 entries, ")
                && out
                    .text
                    .contains("  def parse_token()\n  … 2 more top-level items\n")
                && !out.text.contains("alpha"),
            "{}",
            out.text
        );
        assert_eq!(out.level_of("m.py"), Level::TopLevel);
        assert_eq!(out.shown[0].omitted, 2);
        // A cap at or over the entries, or at full source, changes nothing.
        let plain = |level| {
            let mut p = FlightPlan::new("token parsing", 1000);
            p.rules = vec![Rule::new("m.py", level)];
            render(&map, &p).unwrap().text
        };
        for (cap, level) in [(3, Level::TopLevel), (1, Level::Full)] {
            plan.rules = vec![Rule::capped("m.py", level, cap)];
            let out = render(&map, &plan).unwrap();
            assert_eq!((out.text, out.shown[0].omitted), (plain(level), 0));
        }
    }

    #[test]
    fn a_file_with_an_empty_outline_shows_as_a_path_not_an_empty_header() {
        let (_d, map) = crate::scan::temp_map(&[
            ("__init__.py".to_string(), "import os\n".to_string()),
            ("m.py".to_string(), "def alpha():\n    pass\n".to_string()),
        ]);
        let empty = map.file("__init__.py").unwrap();
        assert!(empty.outline().is_some_and(|o| o.symbols.is_empty()));
        let mut plan = FlightPlan::new("alpha", 1000);
        plan.rules = vec![Rule::new("**", Level::Signatures)];
        let out = render(&map, &plan).unwrap();
        assert_eq!(out.level_of("__init__.py"), Level::Path, "{}", out.text);
        assert!(!out.text.contains("## __init__.py"), "{}", out.text);
        assert!(
            out.text.contains("## Other files\n__init__.py\n"),
            "{}",
            out.text
        );
        assert_eq!(out.level_of("m.py"), Level::Signatures);
        // Asked for in full, it is shown in full.
        plan.rules = vec![Rule::new("__init__.py", Level::Full)];
        let out = render(&map, &plan).unwrap();
        assert_eq!(out.level_of("__init__.py"), Level::Full);
    }

    #[test]
    fn an_empty_file_in_full_says_so_instead_of_an_empty_block() {
        let (_d, map) = crate::scan::temp_map(&[
            ("pkg/__init__.py".to_string(), String::new()),
            ("pkg/blank.py".to_string(), "\u{feff}\n  \n".to_string()),
            (
                "pkg/m.py".to_string(),
                "def alpha():\n    pass\n".to_string(),
            ),
        ]);
        let mut plan = FlightPlan::new("alpha", 1000);
        plan.rules = vec![Rule::new("**", Level::Full)];
        let out = render(&map, &plan).unwrap();
        for path in ["pkg/__init__.py", "pkg/blank.py"] {
            assert_eq!(out.level_of(path), Level::Full);
            let at = out.text.find(&format!("## {path} ")).unwrap();
            let block = &out.text[at..];
            let body = block.split_once('\n').unwrap().1;
            assert!(body.starts_with("(empty file)\n"), "{}", out.text);
        }
        assert_eq!(out.text.matches("```python").count(), 1, "{}", out.text);
    }

    #[test]
    fn full_source_drops_the_byte_order_mark_and_carriage_returns() {
        let (_d, map) = crate::scan::temp_map(&[
            (
                "Crlf.swift".to_string(),
                "\u{feff}final class Crlf {\r\n  func first() -> Int { 1 }\r\n}\r\n".to_string(),
            ),
            ("plain.py".to_string(), "def a():\n    pass".to_string()),
        ]);
        let mut plan = FlightPlan::new("crlf", 1000);
        plan.rules = vec![Rule::new("**", Level::Full)];
        let out = render(&map, &plan).unwrap();
        assert!(
            out.text
                .contains("```swift\nfinal class Crlf {\n  func first() -> Int { 1 }\n}\n```\n"),
            "{:?}",
            out.text
        );
        assert!(
            out.text.contains("```python\ndef a():\n    pass\n```\n"),
            "{:?}",
            out.text
        );
    }

    #[test]
    fn markdown_and_toml_documents_show_their_headings_and_tables_as_outlines() {
        let (_d, map) = crate::scan::temp_map(&[
            (
                "README.md".to_string(),
                "# Tool\n\nIntro.\n\n## Install\n\nRun it.\n\n### From source\n\nBuild.\n"
                    .to_string(),
            ),
            (
                "Cargo.toml".to_string(),
                "# The tool's manifest: what it is called and what it is built with, kept in\n# step with the lock file by the release script.\n[package]\nname = \"tool\"\n\n[dependencies]\nserde = \"1\"\n".to_string(),
            ),
            ("notes.txt".to_string(), "plain\n".to_string()),
        ]);
        let mut plan = FlightPlan::new("install", 1000);
        plan.rules = vec![Rule::new("**", Level::TopLevel)];
        let out = render(&map, &plan).unwrap();
        assert_eq!(out.level_of("README.md"), Level::TopLevel, "{}", out.text);
        assert!(
            out.text.contains("  # Tool\n  ## Install\n") && !out.text.contains("From source"),
            "{}",
            out.text
        );
        assert!(
            out.text.contains("  [package]\n  [dependencies]\n"),
            "{}",
            out.text
        );
        // A text file without a format still skips from path to full source.
        assert_eq!(out.level_of("notes.txt"), Level::Path);
        plan.rules = vec![Rule::new("**", Level::Signatures)];
        let out = render(&map, &plan).unwrap();
        assert!(out.text.contains("    ### From source\n"), "{}", out.text);
        assert!(out.text.contains("    serde = \"1\"\n"), "{}", out.text);
        // Headings are shown, never read as definitions.
        let readme = map.file("README.md").unwrap();
        assert!(readme.outline().is_some() && readme.code_outline().is_none());
    }

    #[test]
    fn an_outline_costing_as_much_as_the_source_is_shown_as_the_source() {
        let tables: String = (0..40)
            .map(|k| format!("[target.t{k}]\nrunner = \"r{k}\"\n"))
            .collect();
        let (_d, map) = crate::scan::temp_map(&[("Cross.toml", tables.as_str())]);
        let file = map.file("Cross.toml").unwrap();
        let tok = Tokenizer::default();
        let outline = shaped_block(file, Level::Signatures, &[], None, tok).1;
        let full = shaped_block(file, Level::Full, &[], None, tok).1;
        assert!(outline >= full, "the case at hand: {outline} vs {full}");
        let mut plan = FlightPlan::new("runner", 10_000);
        plan.rules = vec![Rule::new("**", Level::Signatures)];
        let out = render(&map, &plan).unwrap();
        assert_eq!(out.level_of("Cross.toml"), Level::Full, "{}", out.text);
        assert_eq!(out.shown[0].level, Level::Full);
        assert_eq!(out.shown[0].full_lines, vec![(1, 80)]);
        assert!(out.text.contains("```\n[target.t0]\n"), "{}", out.text);
        assert!(
            out.tokens <= outline + tok.count(&header(&plan)),
            "{}",
            out.tokens
        );
        // Where the outline saves tokens, it is what the rule asked for.
        plan.rules = vec![Rule::new("**", Level::TopLevel)];
        let out = render(&map, &plan).unwrap();
        assert_eq!(out.level_of("Cross.toml"), Level::TopLevel, "{}", out.text);
    }

    #[test]
    fn files_too_large_to_outline_are_listed_with_the_reason_kinds_without_outlines_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        let long = format!("# Guide\n\n## Part\n\n{}\n", "words ".repeat(40));
        std::fs::write(r.join("GUIDE.md"), &long).unwrap();
        std::fs::write(r.join("notes.txt"), &long).unwrap();
        std::fs::write(r.join("small.py"), "def run():\n    pass\n").unwrap();
        std::fs::write(r.join("broken.toml"), "[package\nname = ").unwrap();
        let options = ScanOptions {
            cache_dir: None,
            max_outline_bytes: 100,
            ..ScanOptions::for_root(r)
        };
        let map = RepoMap::open_with(r, &options).unwrap();
        let mut plan = FlightPlan::new("guide", 2000);
        plan.rules = vec![Rule::new("**", Level::TopLevel)];
        let out = render(&map, &plan).unwrap();
        assert_eq!(out.level_of("GUIDE.md"), Level::Path);
        assert_eq!(out.level_of("small.py"), Level::TopLevel);
        assert_eq!(
            out.limited,
            [
                (
                    "GUIDE.md".to_string(),
                    "too large to outline (over the scan's outline cap)".to_string()
                ),
                (
                    "broken.toml".to_string(),
                    "not valid TOML, so it has no outline".to_string()
                )
            ]
        );
        // Whole, it shows: nothing is limited.
        plan.rules = vec![Rule::new("**", Level::Full)];
        assert!(render(&map, &plan).unwrap().limited.is_empty());
    }

    #[test]
    fn a_folded_line_beside_listed_files_counts_them_as_more() {
        let files: Vec<(String, String)> = [
            "docs/a.md",
            "docs/b.md",
            "docs/c.md",
            "lib/x.py",
            "lib/y.py",
            "setup.py",
            "tox.ini",
        ]
        .iter()
        .map(|p| (p.to_string(), "text\n".to_string()))
        .collect();
        let (_d, map) = crate::scan::temp_map(&files);
        let mut plan = FlightPlan::new("goal", 1000);
        plan.rules = vec![
            Rule {
                collapse: true,
                ..Rule::new("**", Level::Path)
            },
            Rule::new("docs/a.md", Level::Path),
            Rule::new("setup.py", Level::Full),
        ];
        let out = render(&map, &plan).unwrap();
        assert!(out.text.contains("docs/ (2 more files)\n"), "{}", out.text);
        assert!(out.text.contains("lib/ (2 files)\n"), "{}", out.text);
        assert!(out.text.contains("./ (1 more file)\n"), "{}", out.text);
        assert_eq!(out.tokens, plan.tokenizer.count(&out.text));
        // Files a rule hides are not shown, and still counted: the directory does not read
        // as complete.
        plan.rules.push(Rule::new("lib/x.py", Level::Full));
        plan.rules.push(Rule::new("lib/y.py", Level::Hidden));
        plan.rules.push(Rule::new("docs/b.md", Level::Hidden));
        let out = render(&map, &plan).unwrap();
        assert!(out.text.contains("lib/ (1 more file)\n"), "{}", out.text);
        assert!(out.text.contains("docs/ (2 more files)\n"), "{}", out.text);
        assert_eq!(out.level_of("lib/y.py"), Level::Hidden);
        assert_eq!(out.tokens, plan.tokenizer.count(&out.text));
        // A plan without a rule for every file (a fit hid all it named): the line counts the
        // directory's files no rule matches too.
        plan.rules = vec![Rule::new("docs/a.md", Level::Hidden)];
        let out = render(&map, &plan).unwrap();
        assert_eq!(
            out.text.lines().last(),
            Some("docs/ (3 files)"),
            "{}",
            out.text
        );
        assert!(!out.text.contains("lib/"), "{}", out.text);
    }

    #[test]
    fn doc_comments_use_the_files_own_comment_syntax() {
        let (_d, map) = crate::scan::temp_map(&[
            (
                "m.py".to_string(),
                "def run():\n    \"\"\"Runs the checks.\"\"\"\n    pass\n".to_string(),
            ),
            (
                "m.rs".to_string(),
                "/// Runs the checks.\npub fn run() {}\n".to_string(),
            ),
        ]);
        let mut plan = FlightPlan::new("goal", 1000);
        plan.rules = vec![Rule::new("**", Level::Signatures)];
        let text = render(&map, &plan).unwrap().text;
        assert!(text.contains("  # Runs the checks.\n  def run()"), "{text}");
        assert!(
            text.contains("  // Runs the checks.\n  pub fn run()"),
            "{text}"
        );
    }
}
