//! Which files hold the text of the goal's error messages: what a developer greps for first.
//!
//! A report quotes what the program printed (`InvalidHeader: Header part (3) from ('X-Retry',
//! 3) must be of type str or bytes, not <class 'int'>`, a panic's `Mismatch between definition
//! and access of `port``); the code that raised it holds the same words as a string literal
//! with the variable parts interpolated. The runs of plain words between those parts are
//! looked up literally in the source files: a long run found in one or two files points at
//! the code that failed.

use crate::goal::Goal;
use crate::scan::FileEntry;

/// Runs of fewer plain words than this say too little to look up.
const MIN_WORDS: usize = 3;
/// ... and shorter than this many bytes (`is not a`).
const MIN_BYTES: usize = 14;
/// A run that breaks across lines in the source is looked up as windows of this many words.
const WINDOW: usize = 4;
/// A run found in more code files than this is a phrase, not a message.
const MAX_HOLDERS: usize = 3;
/// A run this many words long or longer is full evidence; shorter ones count their share.
const FULL_WORDS: usize = 6;

/// Per file, in [0, 1]: how much of an error message of the goal its source holds literally,
/// with the run it holds. Only the files `code` marks are looked in (the caller leaves out
/// tests, which quote messages too).
pub(crate) fn holders(
    files: &[FileEntry],
    code: &[bool],
    goal: &Goal,
) -> Vec<Option<(f64, String)>> {
    let mut out: Vec<Option<(f64, String)>> = vec![None; files.len()];
    let code: Vec<usize> = (0..files.len()).filter(|&i| code[i]).collect();
    for run in own_runs(goal) {
        let found = |needle: &str| -> Vec<usize> {
            code.iter()
                .copied()
                .filter(|&i| files[i].text().is_some_and(|t| t.contains(needle)))
                .collect()
        };
        let words: Vec<&str> = run.split(' ').collect();
        let whole = found(&run);
        let (hits, said, n) = if !whole.is_empty() {
            (whole, run.clone(), words.len())
        } else if words.len() > WINDOW {
            // The literal may break across source lines: its windows, the first found.
            match windows(&words)
                .map(|w| (found(&w), w))
                .find(|(h, _)| !h.is_empty())
            {
                Some((h, w)) => (h, w, WINDOW),
                None => continue,
            }
        } else {
            continue;
        };
        if hits.len() > MAX_HOLDERS {
            continue;
        }
        let share = (n as f64 / FULL_WORDS as f64).min(1.0) / hits.len() as f64;
        for i in hits {
            if out[i].as_ref().is_none_or(|(s, _)| *s < share) {
                out[i] = Some((share, said.clone()));
            }
        }
    }
    out
}

/// The pieces of the goal's own error messages (not a compiler's) a source holding the
/// message would spell: each run of plain words, and its windows of [`WINDOW`] words for a
/// literal broken across lines.
pub(crate) fn message_needles(goal: &Goal) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for run in own_runs(goal) {
        let words: Vec<&str> = run.split(' ').collect();
        if words.len() > WINDOW {
            out.extend(windows(&words));
        }
        out.push(run);
    }
    out.sort();
    out.dedup();
    out
}

/// The runs of plain words of the goal's own error messages (not a compiler's).
fn own_runs(goal: &Goal) -> impl Iterator<Item = String> + '_ {
    goal.errors
        .iter()
        .filter(|e| !from_compiler(e, goal))
        .flat_map(|e| runs(message_of(e)))
}

/// A run's windows of [`WINDOW`] words long enough to look up, for a literal broken across
/// source lines.
fn windows<'a>(words: &'a [&str]) -> impl Iterator<Item = String> + 'a {
    words
        .windows(WINDOW)
        .map(|w| w.join(" "))
        .filter(|w| w.len() >= MIN_BYTES)
}

/// Per file, in [0, 1]: how many of the goal's literals ([`Goal::literals`]: options,
/// kebab-case names, message codes) its source holds as string literals, with the first one.
/// Each literal found in at most [`MAX_HOLDERS`] code files counts `1 / holders`; a literal
/// spelled everywhere (`--help`) counts nothing. An option is looked up with its dashes and
/// without (`"--notes"`, pylint's `"notes"`).
pub(crate) fn literal_holders(
    files: &[FileEntry],
    code: &[bool],
    goal: &Goal,
) -> Vec<Option<(f64, String)>> {
    let mut out: Vec<Option<(f64, String)>> = vec![None; files.len()];
    for literal in &goal.literals {
        let bare = literal.trim_start_matches('-');
        if EVERY_PROGRAMS.contains(&bare) {
            continue;
        }
        let forms: &[&str] = if bare == literal {
            &[bare]
        } else {
            &[literal.as_str(), bare]
        };
        let needles: Vec<String> = forms
            .iter()
            .flat_map(|l| [format!("\"{l}\""), format!("'{l}'")])
            .collect();
        let hits: Vec<usize> = (0..files.len())
            .filter(|&i| code[i])
            .filter(|&i| {
                files[i]
                    .text()
                    .is_some_and(|t| needles.iter().any(|n| t.contains(n.as_str())))
            })
            .take(MAX_HOLDERS + 1)
            .collect();
        if hits.is_empty() || hits.len() > MAX_HOLDERS {
            continue;
        }
        // `--notes` is also a word (`"notes"`) that may mean something else; `--setup-show`
        // is only that option.
        let word = if bare.contains('-') { 1.0 } else { WORD_SHARE };
        let share = word / hits.len() as f64;
        for i in hits {
            let held = out[i].get_or_insert_with(|| (0.0, literal.clone()));
            held.0 = (held.0 + share).min(1.0);
        }
    }
    out
}

/// A one-word option (`--notes`) counts this share of a compound one.
const WORD_SHARE: f64 = 0.5;

/// Options every program has: a report quotes them (`Try 'app --help' for help.`) whatever it
/// is about, and the code declaring them is not the code it is about.
const EVERY_PROGRAMS: &[&str] = &["help", "version", "verbose", "quiet"];

/// Whether `error` is a compiler's diagnostic (`error[E0277]: the trait bound ...`, or rustc's
/// `error: ...` in a goal holding its `--> src/main.rs:4:5` lines): the compiler's words, not
/// the program's, so no file of the repository raises them.
fn from_compiler(error: &str, goal: &Goal) -> bool {
    let Some((kind, _)) = error.split_once(": ") else {
        return false;
    };
    let coded = kind
        .strip_prefix("error[E")
        .and_then(|k| k.strip_suffix(']'))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    coded
        || (kind == "error"
            && goal
                .frames
                .iter()
                .any(|f| f.kind == crate::goal::FrameKind::Compiler))
}

/// The message of an error line: what follows its kind (`TypeError: `, `panic: `).
fn message_of(error: &str) -> &str {
    match error.split_once(": ") {
        Some((kind, rest)) if !kind.contains(' ') => rest,
        _ => error,
    }
}

/// Whether a word of a message is plain text, not a value interpolated into it: letters only
/// (an apostrophe inside, a comma, period, colon or semicolon after).
fn plain(word: &str) -> bool {
    let w = word.trim_end_matches([',', '.', ':', ';']);
    !w.is_empty()
        && w.chars().next().is_some_and(|c| c.is_alphabetic())
        && w.chars().all(|c| c.is_alphabetic() || c == '\'')
        && !w.ends_with('\'')
}

/// The runs of plain words of `message` worth looking up, each as written (single spaces), the
/// last word's trailing punctuation dropped.
fn runs(message: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut run: Vec<&str> = Vec::new();
    let mut flush = |run: &mut Vec<&str>| {
        if let Some(last) = run.pop() {
            run.push(last.trim_end_matches([',', '.', ':', ';']));
        }
        let text = run.join(" ");
        if run.len() >= MIN_WORDS && text.len() >= MIN_BYTES {
            out.push(text);
        }
        run.clear();
    };
    for word in message.split_whitespace() {
        if plain(word) {
            run.push(word);
            // A sentence ends the run: the next one may be a message of its own.
            if word.ends_with('.') {
                flush(&mut run);
            }
        } else {
            flush(&mut run);
        }
    }
    flush(&mut run);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_are_the_plain_words_between_interpolated_values() {
        assert_eq!(
            runs("Header part (3) from ('X-Retry', 3) must be of type str or bytes, not <class 'int'>"),
            ["must be of type str or bytes, not"]
        );
        assert_eq!(
            runs("Mismatch between definition and access of `port`. Could not downcast to TypeId(0x1b2c), need to downcast to TypeId(0x9f3e)"),
            ["Mismatch between definition and access of", "Could not downcast to", "need to downcast to"]
        );
        assert!(runs("bad value 42").is_empty(), "too short to say anything");
        assert_eq!(message_of("TypeError: x y"), "x y");
        assert_eq!(message_of("panic: it broke: badly"), "it broke: badly");
    }

    #[test]
    fn the_file_raising_the_message_holds_it_and_a_phrase_everywhere_points_nowhere() {
        let (_d, map) = crate::scan::temp_map(&[
            (
                "pkg/utils.py",
                "def check(v):\n    raise InvalidHeader(\n        f\"Header part ({v!r}) must be of type str or \"\n        f\"bytes, not {type(v)}\"\n    )\n",
            ),
            ("pkg/models.py", "def prepare(h):\n    check(h)\n"),
            ("tests/test_utils.py", "def test():\n    assert 'must be of type str or bytes, not' in msg\n"),
            ("a.py", "# the value could not be found\n"),
            ("b.py", "# the value could not be found\n"),
            ("c.py", "# the value could not be found\n"),
            ("d.py", "# the value could not be found\n"),
        ]);
        let files = map.files();
        let at = |p: &str| files.iter().position(|f| f.path == p).unwrap();
        let goal = Goal::parse(
            "Crash\n\n```\nrequests.exceptions.InvalidHeader: Header part (3) must be of type str or bytes, not <class 'int'>\n```",
        );
        let code: Vec<bool> = files
            .iter()
            .map(|f| !crate::relevance::is_auxiliary(&f.path))
            .collect();
        let h = holders(files, &code, &goal);
        // Broken across two source lines: found by a window of its words.
        assert!(h[at("pkg/utils.py")].is_some(), "{h:?}");
        assert!(h[at("pkg/models.py")].is_none());
        assert!(
            h[at("tests/test_utils.py")].is_none(),
            "tests quote messages too"
        );
        let common = Goal::parse("Error\n\n```\nValueError: the value could not be found\n```");
        assert!(holders(files, &code, &common).iter().all(Option::is_none));
    }

    #[test]
    fn a_compilers_diagnostics_are_not_looked_up() {
        let (_d, map) = crate::scan::temp_map(&[
            (
                "src/lib.rs",
                "// the trait bound is not satisfied for borrowed values\npub fn f() {}\n",
            ),
            (
                "src/cli.rs",
                "pub fn run() { eprintln!(\"error: the argument was not expected here\"); }\n",
            ),
        ]);
        let files = map.files();
        let code = vec![true; files.len()];
        let rustc = Goal::parse(
            "Does not build\n\n```\nerror[E0277]: the trait bound is not satisfied for `Foo`\n  --> src/main.rs:4:5\n```",
        );
        assert!(holders(files, &code, &rustc).iter().all(Option::is_none));
        let bare = Goal::parse(
            "Does not build\n\n```\nerror: the argument was not expected here\n  --> src/main.rs:4:5\n```",
        );
        assert!(holders(files, &code, &bare).iter().all(Option::is_none));
        // The program's own `error:` output, with no compiler location: looked up.
        let printed = Goal::parse(
            "Wrong message\n\n```\n$ app --x\nerror: the argument was not expected here\n```",
        );
        let h = holders(files, &code, &printed);
        assert!(
            h[files.iter().position(|f| f.path == "src/cli.rs").unwrap()].is_some(),
            "{h:?}"
        );
    }

    #[test]
    fn the_files_spelling_the_goals_options_and_names_as_strings_hold_them() {
        let (_d, map) = crate::scan::temp_map(&[
            (
                "src/_pytest/setuponly.py",
                "def pytest_addoption(parser):\n    group.addoption(\n        \"--setup-show\",\n    )\n",
            ),
            (
                "pylint/checkers/misc.py",
                "options = ((\"notes\", {\"default\": (\"FIXME\",)}),)\nmsgs = {\"W0511\": (\"%s\", \"fixme\", \"\")}\n",
            ),
            (
                "pylint/checkers/similar.py",
                "options = ((\"min-similarity-lines\", {\"default\": 4}),)\n",
            ),
            ("testing/test_setuponly.py", "ARGS = ['--setup-show']\n"),
            ("help.py", "HELP = '--help'\n"),
            ("a.py", "COLOR = '--color-mode'\n"),
            ("b.py", "COLOR = '--color-mode'\n"),
            ("c.py", "COLOR = '--color-mode'\n"),
            ("d.py", "COLOR = '--color-mode'\n"),
            ("src/_pytest/mark/__init__.py", "OPT = '--strict'\n"),
        ]);
        let files = map.files();
        let at = |p: &str| files.iter().position(|f| f.path == p).unwrap();
        let code: Vec<bool> = files
            .iter()
            .map(|f| !crate::relevance::is_auxiliary(&f.path))
            .collect();
        let goal = Goal::parse(
            "BytesWarning with --setup-show\n\nAlso `--notes=\"YES,???\"` misses tags, and setting `min-similarity-lines` to 0:\n\n```\ntest.py:1:1: W0511: YES: yes (fixme)\n```\n\n`--help` and `--color-mode` say nothing, `--strict` a little.",
        );
        let h = literal_holders(files, &code, &goal);
        let held = |p: &str| h[at(p)].as_ref().map(|(x, l)| (*x, l.as_str()));
        assert_eq!(
            held("src/_pytest/setuponly.py"),
            Some((1.0, "--setup-show"))
        );
        // An option pylint declares without its dashes, and a message code, both its.
        assert_eq!(held("pylint/checkers/misc.py").map(|(x, _)| x), Some(1.0));
        assert_eq!(
            held("pylint/checkers/similar.py"),
            Some((1.0, "min-similarity-lines"))
        );
        assert_eq!(
            held("testing/test_setuponly.py"),
            None,
            "tests are not looked in"
        );
        assert_eq!(
            held("help.py"),
            None,
            "an option every program has says nothing"
        );
        assert_eq!(
            held("a.py"),
            None,
            "an option spelled everywhere says nothing"
        );
        assert_eq!(
            held("src/_pytest/mark/__init__.py"),
            Some((0.5, "--strict"))
        );
    }
}
