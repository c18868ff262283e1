//! Capped outlines: a file's outline cut to a few entries, those the goal names (or whose
//! members it names) first, then those sharing a word with it, and a line counting the rest.
//!
//! Why: a top-level outline costs what the file declares, from 20 tokens to over 2,000 (a
//! module of long `impl` headers with `where` clauses). Packing gives every plausible file its
//! outline before any file gets more, so one long outline used to push the next ten
//! candidates down to their paths, where a reader (or a model) does not see what they hold.
//! A rule's `max_items` keeps such an outline to a few lines; the files further down the
//! ranking keep theirs.

use crate::bm25::{terms, Stems};
use crate::flight_plan::Level;
use crate::goal::Goal;
use crate::outline::Symbol;
use crate::scan::FileEntry;
use std::collections::BTreeSet;
use std::fmt::Write;
use std::hash::{DefaultHasher, Hash, Hasher};

/// The goal's words, stemmed, and the identifiers it spells as code: they choose the entries
/// of a capped outline.
#[derive(Debug, Clone, Default)]
pub(crate) struct GoalWords {
    words: BTreeSet<String>,
    /// Identifiers the goal spells as code (backticks, code blocks, frames, the last segment
    /// of qualified names), lower case.
    names: BTreeSet<String>,
    /// A hash of the words and names, naming them in the keys of a file's memo of capped
    /// blocks.
    fingerprint: u64,
}

impl GoalWords {
    /// The stemmed terms of `goal` and the identifiers it names.
    pub(crate) fn new(goal: &str) -> Self {
        let mut stems = Stems::new();
        let words: BTreeSet<String> = terms(goal).into_iter().map(|t| stems.of(t)).collect();
        let names: BTreeSet<String> = Goal::shared(goal)
            .identifiers
            .iter()
            .map(|i| i.to_lowercase())
            .collect();
        let mut h = DefaultHasher::new();
        words.hash(&mut h);
        names.hash(&mut h);
        GoalWords {
            words,
            names,
            fingerprint: h.finish(),
        }
    }

    /// [`GoalWords::new`], shared among the renders and packs of one goal.
    pub(crate) fn shared(goal: &str) -> std::sync::Arc<GoalWords> {
        static MADE: std::sync::Mutex<Vec<(std::sync::Arc<str>, std::sync::Arc<GoalWords>)>> =
            std::sync::Mutex::new(Vec::new());
        crate::goal::memo(&MADE, goal, GoalWords::new)
    }

    /// A hash of the words: equal words, equal hashes.
    pub(crate) fn fingerprint(&self) -> u64 {
        self.fingerprint
    }

    fn shares_a_word(&self, stems: &mut Stems, text: &str) -> bool {
        !self.words.is_empty()
            && terms(text)
                .into_iter()
                .any(|t| self.words.contains(&stems.of(t)))
    }

    fn names(&self, symbol: &Symbol) -> bool {
        !symbol.name.is_empty() && self.names.contains(&symbol.name.to_lowercase())
    }
}

/// The `max` entries (indices into `file`'s outline symbols, out of `all`) a capped outline
/// keeps, in source order: first those the goal names, then those with a member the goal
/// names (the `impl` or class of a method it names), then those whose signature shares a word
/// with it, then the rest; in source order within each.
pub(crate) fn kept(file: &FileEntry, all: &[usize], max: usize, goal: &GoalWords) -> Vec<usize> {
    kept_near(file, all, max, goal, &[])
}

/// [`kept`] beside line ranges shown at full source (`spans`): within each tier, the entries
/// nearest them come first (a trace's failing method among thousands keeps its neighbours).
pub(crate) fn kept_near(
    file: &FileEntry,
    all: &[usize],
    max: usize,
    goal: &GoalWords,
    spans: &[(u32, u32)],
) -> Vec<usize> {
    let Some(outline) = file.outline() else {
        return Vec::new();
    };
    let symbols = &outline.symbols;
    let mut stems = Stems::new();
    let distance = |line: u32| {
        spans
            .iter()
            .map(|&(a, b)| {
                if line < a {
                    a - line
                } else {
                    line.saturating_sub(b)
                }
            })
            .min()
            .unwrap_or(0)
    };
    let mut order: Vec<(u8, bool, u32, usize)> = all
        .iter()
        .map(|&k| {
            let s = &symbols[k];
            let members = symbols[k + 1..]
                .iter()
                .take_while(|m| m.depth > s.depth)
                .any(|m| goal.names(m));
            let tier = if goal.names(s) { 2 } else { u8::from(members) };
            (
                tier,
                goal.shares_a_word(&mut stems, &s.signature),
                distance(s.line),
                k,
            )
        })
        .collect();
    order.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then(b.1.cmp(&a.1))
            .then(a.2.cmp(&b.2))
            .then(a.3.cmp(&b.3))
    });
    let mut kept: Vec<usize> = order.into_iter().take(max).map(|(.., k)| k).collect();
    kept.sort_unstable();
    kept
}

/// The line counting the entries a capped outline left out (`left` of them, at `level`).
pub(crate) fn more_line(level: Level, left: usize) -> String {
    let what = match (level, left) {
        (Level::TopLevel, 1) => "top-level item",
        (Level::TopLevel, _) => "top-level items",
        (_, 1) => "item",
        _ => "items",
    };
    format!("  … {left} more {what}\n")
}

/// Indices (into the outline's symbols) of the entries `level` shows: the top-level ones at
/// level 2, all at level 3, none otherwise.
pub(crate) fn entries(file: &FileEntry, level: Level) -> Vec<usize> {
    let Some(outline) = file.outline() else {
        return Vec::new();
    };
    outline
        .symbols
        .iter()
        .enumerate()
        .filter(|(_, s)| match level {
            Level::TopLevel => s.depth == 0,
            Level::Signatures => true,
            _ => false,
        })
        .map(|(k, _)| k)
        .collect()
}

/// Writes `symbol`'s line of an outline of `file` at `level`, indented by its depth, after
/// its doc comment at level 3 (in the file's language's comment syntax).
pub(crate) fn write_entry(out: &mut String, file: &FileEntry, symbol: &Symbol, level: Level) {
    let indent = "  ".repeat(symbol.depth as usize + 1);
    if level == Level::Signatures {
        if let Some(doc) = &symbol.doc {
            let marker = file.lang.map_or("//", |l| l.line_comment());
            let _ = writeln!(out, "{indent}{marker} {doc}");
        }
    }
    let _ = writeln!(out, "{indent}{}", symbol.signature);
}

/// The body of `file`'s outline at `level` (2 or 3) with at most `max` entries, chosen by
/// [`kept`] and listed in source order, then a line counting the entries left out. `None`
/// when nothing would be left out (the plain outline applies).
pub(crate) fn capped_body(
    file: &FileEntry,
    level: Level,
    max: u32,
    goal: &GoalWords,
) -> Option<String> {
    let outline = file.outline()?;
    let all = entries(file, level);
    let max = max as usize;
    if all.len() <= max {
        return None;
    }
    let kept = kept(file, &all, max, goal);
    let mut out = String::new();
    for &k in &kept {
        write_entry(&mut out, file, &outline.symbols[k], level);
    }
    out.push_str(&more_line(level, all.len() - kept.len()));
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::temp_map;

    fn file_with(n: usize) -> (tempfile::TempDir, crate::scan::RepoMap) {
        let text: String = (0..n)
            .map(|k| {
                let name = if k == n - 1 {
                    "parse_header".to_string()
                } else {
                    format!("step_{k}")
                };
                format!("/// Doc {k}.\npub fn {name}() {{}}\n")
            })
            .collect();
        temp_map(&[("a.rs".to_string(), text)])
    }

    #[test]
    fn goal_words_come_first_and_the_rest_is_counted() {
        let (_d, map) = file_with(8);
        let f = &map.files()[0];
        let goal = GoalWords::new("Fix header parsing");
        let body = capped_body(f, Level::TopLevel, 3, &goal).unwrap();
        let lines: Vec<&str> = body.lines().collect();
        // The entry naming the goal's words, then the first two in source order; listed in
        // source order, then the count of the five left out.
        assert_eq!(
            lines,
            [
                "  pub fn step_0()",
                "  pub fn step_1()",
                "  pub fn parse_header()",
                "  … 5 more top-level items"
            ]
        );
        let sigs = capped_body(f, Level::Signatures, 1, &goal).unwrap();
        assert_eq!(
            sigs.lines().collect::<Vec<_>>(),
            ["  // Doc 7.", "  pub fn parse_header()", "  … 7 more items"]
        );
    }

    #[test]
    fn entries_the_goal_names_or_whose_members_it_names_come_before_shared_words() {
        let mut text = String::new();
        for k in 0..6 {
            text.push_str(&format!(
                "def envvar_value_{k}(value):\n    return value\n\n\n"
            ));
        }
        text.push_str(
            "class Parameter:\n    def resolve_envvar_value(self, ctx):\n        return None\n\n\n",
        );
        text.push_str("def split_envvar_value(rv):\n    return rv.split()\n\n\n");
        text.push_str("def split_tuple_value(value):\n    return value\n");
        let (_d, map) = temp_map(&[("core.py".to_string(), text)]);
        let f = &map.files()[0];
        let goal = GoalWords::new(
            "TypeError in `resolve_envvar_value`: split_envvar_value gets a tuple value",
        );
        // Named (split_envvar_value), then the class of a named method, then the first entry
        // in source order of those sharing a word with the goal.
        let body = capped_body(f, Level::TopLevel, 3, &goal).unwrap();
        assert_eq!(
            body.lines().collect::<Vec<_>>(),
            [
                "  def envvar_value_0(value)",
                "  class Parameter",
                "  def split_envvar_value(rv)",
                "  … 6 more top-level items"
            ]
        );
        let two = capped_body(f, Level::TopLevel, 2, &goal).unwrap();
        assert_eq!(
            two.lines().collect::<Vec<_>>(),
            [
                "  class Parameter",
                "  def split_envvar_value(rv)",
                "  … 7 more top-level items"
            ]
        );
    }

    #[test]
    fn a_name_of_letters_and_digits_the_goal_writes_is_kept_first() {
        let text: String = (0..300)
            .map(|k| format!("def h{k}(x):\n    return x\n"))
            .collect();
        let (_d, map) = crate::scan::temp_map(&[("funcs.py", text.as_str())]);
        let file = map.file("funcs.py").unwrap();
        let all = entries(file, Level::TopLevel);
        let goal = GoalWords::new("h299 returns the wrong value");
        assert_eq!(kept(file, &all, 2, &goal), [0, 299]);
    }

    #[test]
    fn beside_a_focused_item_its_neighbours_are_kept() {
        let text: String = (0..300)
            .map(|k| format!("def f{k}(x):\n    return x\n"))
            .collect();
        let (_d, map) = crate::scan::temp_map(&[("funcs.py", text.as_str())]);
        let file = map.file("funcs.py").unwrap();
        let all = entries(file, Level::TopLevel);
        let goal = GoalWords::new("boom");
        // `f150` spans lines 301-302.
        assert_eq!(
            kept_near(file, &all, 3, &goal, &[(301, 302)]),
            [149, 150, 151]
        );
        assert_eq!(kept_near(file, &all, 3, &goal, &[]), [0, 1, 2]);
    }

    #[test]
    fn a_cap_that_leaves_nothing_out_is_the_plain_outline() {
        let (_d, map) = file_with(3);
        let f = &map.files()[0];
        assert_eq!(
            capped_body(f, Level::TopLevel, 3, &GoalWords::default()),
            None
        );
        assert_eq!(capped_body(f, Level::Full, 1, &GoalWords::default()), None);
        let one = capped_body(f, Level::TopLevel, 1, &GoalWords::default()).unwrap();
        assert_eq!(one, "  pub fn step_0()\n  … 2 more top-level items\n");
    }
}
