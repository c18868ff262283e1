//! Capped outlines: a file's outline cut to its first few entries, those that share a word
//! with the goal first, and a line counting the rest.
//!
//! Why: a top-level outline costs what the file declares, from 20 tokens to over 2,000 (a
//! module of long `impl` headers with `where` clauses). Packing gives every plausible file its
//! outline before any file gets more, so one long outline used to push the next ten
//! candidates down to their paths, where a reader (or a model) does not see what they hold.
//! A rule's `max_items` keeps such an outline to a few lines; the files further down the
//! ranking keep theirs.

use crate::bm25::{terms, Stems};
use crate::flight_plan::Level;
use crate::outline::Symbol;
use crate::scan::FileEntry;
use std::collections::BTreeSet;
use std::fmt::Write;
use std::hash::{DefaultHasher, Hash, Hasher};

/// The goal's words, stemmed: the entries of a capped outline that share one come first.
#[derive(Debug, Clone, Default)]
pub(crate) struct GoalWords {
    words: BTreeSet<String>,
    /// A hash of the words, naming them in the keys of a file's memo of capped blocks.
    fingerprint: u64,
}

impl GoalWords {
    /// The stemmed terms of `goal`.
    pub(crate) fn new(goal: &str) -> Self {
        let mut stems = Stems::new();
        let words: BTreeSet<String> = terms(goal).into_iter().map(|t| stems.of(t)).collect();
        let mut h = DefaultHasher::new();
        words.hash(&mut h);
        GoalWords {
            words,
            fingerprint: h.finish(),
        }
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

/// The body of `file`'s outline at `level` (2 or 3) with at most `max` entries: those whose
/// signature shares a word with `goal` first, then the rest in source order, listed in source
/// order, then a line counting the entries left out. `None` when nothing would be left out
/// (the plain outline applies).
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
    let mut stems = Stems::new();
    let (mut kept, rest): (Vec<usize>, Vec<usize>) = all
        .iter()
        .partition(|&&k| goal.shares_a_word(&mut stems, &outline.symbols[k].signature));
    kept.truncate(max);
    kept.extend(rest.into_iter().take(max - kept.len()));
    kept.sort_unstable();
    let mut out = String::new();
    for &k in &kept {
        write_entry(&mut out, file, &outline.symbols[k], level);
    }
    let left = all.len() - kept.len();
    let what = match (level, left) {
        (Level::TopLevel, 1) => "top-level item",
        (Level::TopLevel, _) => "top-level items",
        (_, 1) => "item",
        _ => "items",
    };
    let _ = writeln!(out, "  … {left} more {what}");
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
