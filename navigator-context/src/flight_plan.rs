//! The Flight Plan: a YAML file (goal, token budget, tokenizer, per-path verbosity rules) that
//! regenerates a context window exactly, with zero LLM cost.
//!
//! ```yaml
//! # navigator flight plan — metadata lives in comments only
//! goal: Refactor the auth middleware
//! token_budget: 10000
//! tokenizer: cl100k_base
//! rules:
//!   - path: "**"
//!     level: 1
//!   - path: src/auth/
//!     level: 3
//!   - path: src/auth/middleware.rs
//!     level: 4
//!   - path: src/parser.rs
//!     level: 2
//!     focus: [Parser::parse, Parser::next_token]
//!   - path: vendor/
//!     level: 1
//!     collapse: true
//! ```
//!
//! Comments are metadata: they never influence the render, so two plans that differ only in
//! comments (timestamps, costs) render byte-identical contexts.

use crate::error::{Error, Result};
use crate::tokens::Tokenizer;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// Files above this size are shown as a path only unless a rule names them exactly.
pub const DEFAULT_HUGE_FILE_BYTES: u64 = 256 * 1024;

/// How much of a file the context shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "i64", into = "u8")]
pub enum Level {
    /// Not shown (still counted in a collapsed directory line).
    Hidden = 0,
    /// The path only.
    Path = 1,
    /// Path and top-level signatures.
    TopLevel = 2,
    /// Path, all signatures and their doc comments.
    Signatures = 3,
    /// The full source.
    Full = 4,
}

impl Level {
    /// All levels, lowest first.
    pub const ALL: [Level; 5] = [
        Level::Hidden,
        Level::Path,
        Level::TopLevel,
        Level::Signatures,
        Level::Full,
    ];

    /// The next lower level (`Hidden` stays `Hidden`).
    pub fn lower(self) -> Level {
        Level::ALL[(self as usize).saturating_sub(1)]
    }
}

impl TryFrom<i64> for Level {
    type Error = String;

    fn try_from(v: i64) -> Result<Self, String> {
        usize::try_from(v)
            .ok()
            .and_then(|i| Level::ALL.get(i).copied())
            .ok_or_else(|| format!("unknown level {v}; levels are 0 hidden, 1 path, 2 top-level signatures, 3 all signatures + docs, 4 full source"))
    }
}

impl From<Level> for u8 {
    fn from(l: Level) -> u8 {
        l as u8
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", *self as u8)
    }
}

/// One verbosity rule: a glob over repository-relative paths (`/`-separated) and its level.
///
/// A path ending in `/` names a directory and everything below it. When several rules match a
/// file the most specific wins: an exact path beats any glob, then the glob with more literal
/// path segments, then more literal characters, then the later rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// Glob, exact file path, or directory path ending in `/`.
    pub path: String,
    /// Verbosity for the files it wins.
    pub level: Level,
    /// Show the files it wins as one line per directory with a file count.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub collapse: bool,
    /// Items (functions, methods, classes) to show at full source inside the outline of
    /// levels 2 and 3, by qualified name: `Class.method` (Python, JS, ...), `Type::method`
    /// (Rust, C++); names that resolve to nothing are ignored. Zooms into a file too big to
    /// show whole.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub focus: Vec<String>,
    /// At levels 2 and 3 without a `focus`: show at most this many outline entries (those
    /// whose signatures share a word with the goal first, the rest in source order; listed in
    /// source order) and a line counting the entries left out. Keeps a long outline to a few
    /// lines, so a file lower in the ranking is still shown with content.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u32>,
}

impl Rule {
    /// A rule without collapsing.
    pub fn new(path: impl Into<String>, level: Level) -> Self {
        Rule {
            path: path.into(),
            level,
            collapse: false,
            focus: Vec::new(),
            max_items: None,
        }
    }

    /// A rule showing `focus`'s items at full source inside the outline at `level`.
    pub fn focused(path: impl Into<String>, level: Level, focus: Vec<String>) -> Self {
        Rule {
            focus,
            ..Rule::new(path, level)
        }
    }

    /// A rule showing at most `max_items` outline entries at `level`.
    pub fn capped(path: impl Into<String>, level: Level, max_items: u32) -> Self {
        Rule {
            max_items: Some(max_items),
            ..Rule::new(path, level)
        }
    }
}

/// The reproducible recipe of a context window.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlightPlan {
    /// What the context is for; printed at the top of the context.
    pub goal: String,
    /// The most tokens the context may take.
    pub token_budget: usize,
    /// Encoding used to count tokens.
    #[serde(default)]
    pub tokenizer: Tokenizer,
    /// Size above which files show as a path only unless a rule names them exactly.
    #[serde(default = "default_huge", skip_serializing_if = "is_default_huge")]
    pub huge_file_bytes: u64,
    /// Verbosity rules; files no rule matches are hidden. Files named by exact-path rules are
    /// rendered first, in the order of their rules (an explored plan lists them most relevant
    /// first), the rest in path order.
    #[serde(default)]
    pub rules: Vec<Rule>,
    /// What the context was made from, so a replay can tell the repository changed
    /// ([`pin`](crate::pin), [`replay`](crate::replay)); plans written by hand have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pinned: Option<Pins>,
}

/// The content a Flight Plan's context was rendered from.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pins {
    /// The git commit checked out when the plan was pinned, when the root is a git work tree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// Every file the context shows on its own line: the first 16 hex digits of the SHA-256
    /// of its content when it is shown with content (level 2 and up), empty for a path.
    #[serde(default)]
    pub files: BTreeMap<String, String>,
    /// Collapsed directory lines and their file counts.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub dirs: BTreeMap<String, usize>,
}

fn default_huge() -> u64 {
    DEFAULT_HUGE_FILE_BYTES
}

fn is_default_huge(v: &u64) -> bool {
    *v == DEFAULT_HUGE_FILE_BYTES
}

impl FlightPlan {
    /// A plan with no rules yet.
    pub fn new(goal: impl Into<String>, token_budget: usize) -> Self {
        FlightPlan {
            goal: goal.into(),
            token_budget,
            tokenizer: Tokenizer::default(),
            huge_file_bytes: DEFAULT_HUGE_FILE_BYTES,
            rules: Vec::new(),
            pinned: None,
        }
    }

    /// Parses and validates a plan; errors name the YAML line and field.
    ///
    /// ```
    /// use navigator_context::FlightPlan;
    /// let err = FlightPlan::from_yaml("goal: g\ntoken_budget: 100\nrules:\n  - path: ../etc\n    level: 1\n").unwrap_err();
    /// assert!(err.to_string().contains("line 4"), "{err}");
    /// ```
    pub fn from_yaml(text: &str) -> Result<Self> {
        let plan: FlightPlan = serde_yaml::from_str(text).map_err(|e| {
            let (field, message) = split_yaml_error(&e.to_string());
            // serde_yaml points a bad value inside a rule at the rule's first line: the line
            // of the key itself, when the message names one.
            let key_line = field
                .strip_prefix("rules[")
                .and_then(|r| r.strip_suffix(']'))
                .and_then(|i| i.parse::<usize>().ok())
                .and_then(|i| {
                    ["level", "path", "max_items", "collapse", "focus"]
                        .into_iter()
                        .find(|k| {
                            message.starts_with(&format!("unknown {k}"))
                                || message.contains(&format!("field `{k}`"))
                        })
                        .and_then(|k| rule_key_line(text, i, k))
                });
            let line = key_line.or_else(|| e.location().map(|l| l.line()));
            Error::plan(line, field, message)
        })?;
        plan.validate_with(|i, key| match i {
            Some(i) => rule_key_line(text, i, key),
            None => top_key_line(text, key),
        })?;
        Ok(plan)
    }

    /// Checks the budget and every rule (glob syntax, paths inside the repository).
    pub fn validate(&self) -> Result<()> {
        self.validate_with(|_, _| None)
    }

    /// [`Self::validate`], with `line_of(rule, key)` giving the YAML line of a rule's key (or
    /// of a top-level key for `None`).
    fn validate_with(&self, line_of: impl Fn(Option<usize>, &str) -> Option<usize>) -> Result<()> {
        if self.token_budget == 0 {
            let line = line_of(None, "token_budget");
            return Err(Error::plan(line, "token_budget", "must be at least 1"));
        }
        for (i, rule) in self.rules.iter().enumerate() {
            let field = format!("rules[{i}].path");
            let line = || line_of(Some(i), "path");
            check_rule_path(&rule.path).map_err(|m| Error::plan(line(), &field, m))?;
            if !is_literal(&rule.path) {
                compile_glob(&rule.path).map_err(|m| Error::plan(line(), &field, m))?;
            }
            if rule.max_items == Some(0) {
                let field = format!("rules[{i}].max_items");
                let line = line_of(Some(i), "max_items");
                return Err(Error::plan(line, &field, "must be at least 1"));
            }
        }
        Ok(())
    }

    /// The plan as YAML, with `comments` (metadata such as cost or date) as leading `#` lines.
    pub fn to_yaml(&self, comments: &[String]) -> String {
        let mut out = String::new();
        for c in comments {
            for line in c.lines() {
                out.push_str("# ");
                out.push_str(line);
                out.push('\n');
            }
        }
        // A plan of strings, integers and enums always serialises.
        out.push_str(&serde_yaml::to_string(self).unwrap_or_default());
        out
    }
}

/// Rejects paths that could leave the repository root.
pub(crate) fn check_rule_path(path: &str) -> Result<(), String> {
    if path.trim().is_empty() {
        return Err("empty path".into());
    }
    if path.starts_with('/') || path.starts_with('\\') || path.as_bytes().get(1) == Some(&b':') {
        return Err(format!(
            "`{path}` is absolute; paths are relative to the repository root"
        ));
    }
    if path.split(['/', '\\']).any(|seg| seg == "..") {
        return Err(format!("`{path}` leaves the repository root through `..`"));
    }
    Ok(())
}

/// The characters that make a rule path a glob pattern rather than a literal path.
pub(crate) const META: &[char] = &['*', '?', '[', ']', '{', '}'];

/// Whether a rule path is a plain path, with no glob characters and no escapes: it matches
/// that file, or the files under it as a directory, and nothing else (matched without a glob).
pub(crate) fn is_literal(path: &str) -> bool {
    !path.contains(META) && !path.contains('\\')
}

/// Expands a rule path into the glob it stands for: `dir/` → `dir/**`, a literal `x` → `{x,x/**}`.
fn expand(path: &str) -> String {
    if let Some(dir) = path.strip_suffix('/') {
        format!("{dir}/**")
    } else if !path.contains(META) {
        format!("{{{path},{path}/**}}")
    } else {
        path.to_string()
    }
}

/// Compiles a rule path (after [`expand`]) into a glob; `/` is never matched by `*`.
pub(crate) fn compile_glob(path: &str) -> Result<globset::Glob, String> {
    globset::GlobBuilder::new(&expand(path))
        .literal_separator(true)
        .build()
        .map_err(|e| format!("bad glob `{path}`: {}", e.kind()))
}

/// The globs a rule path matches through: its glob reading ([`compile_glob`]) and, when it
/// holds glob characters, its literal reading as well — `pages/blog/[slug].tsx`,
/// `app/[id]/` and `{a,b}.py` are file and directory names as often as patterns (Next.js and
/// SvelteKit routes), and a plan names every file it shows by its exact path. So does a
/// backslash: the map writes bytes of a name that are not UTF-8 as `\xNN`.
pub(crate) fn rule_globs(path: &str) -> Result<Vec<globset::Glob>, String> {
    let mut globs = vec![compile_glob(path)?];
    if path.contains(META) || path.contains('\\') {
        let mut literal = String::with_capacity(path.len() + 8);
        for c in path.chars() {
            if META.contains(&c) || c == '\\' {
                literal.push('\\');
            }
            literal.push(c);
        }
        let patterns = match literal.strip_suffix('/') {
            Some(dir) => vec![format!("{dir}/**")],
            None => vec![format!("{literal}/**"), literal],
        };
        for p in patterns {
            let glob = globset::GlobBuilder::new(&p)
                .literal_separator(true)
                .backslash_escape(true)
                .build()
                .map_err(|e| format!("bad path `{path}`: {}", e.kind()))?;
            globs.push(glob);
        }
    }
    Ok(globs)
}

/// Splits a serde_yaml message (`rules[0]: unknown level 9 at line 4 column 5`) into the
/// field it names (empty when none) and what was wrong, without the location the error
/// already carries.
fn split_yaml_error(message: &str) -> (String, String) {
    let message = match message.rfind(" at line ") {
        Some(k) if message[k..].contains(" column ") => &message[..k],
        _ => message,
    };
    // Rust's type names mean nothing to someone editing YAML.
    let plain = message
        .replace("expected usize", "expected a whole number of at least 0")
        .replace("expected u32", "expected a whole number of at least 1")
        .replace("expected u64", "expected a whole number of at least 0")
        .replace(
            "expected i64",
            "expected a whole number (a level from 0 to 4)",
        )
        .replace(
            "expected struct FlightPlan",
            "expected a mapping with goal, token_budget and rules",
        )
        .replace(
            "expected struct Rule",
            "expected a mapping with path and level",
        );
    let message = plain.as_str();
    match message.split_once(": ") {
        Some((field, rest))
            if !field.is_empty()
                && field
                    .chars()
                    .all(|c| c.is_alphanumeric() || "_.[]".contains(c)) =>
        {
            // The budget is a count of tokens that must be at least 1, as `validate` says.
            let rest = match field {
                "token_budget" => rest.replace("of at least 0", "of at least 1"),
                _ => rest.to_string(),
            };
            (field.to_string(), rest)
        }
        _ => (String::new(), message.to_string()),
    }
}

/// The 1-based line of the top-level `key:` (block-style YAML).
fn top_key_line(text: &str, key: &str) -> Option<usize> {
    text.lines()
        .position(|l| l.strip_prefix(key).is_some_and(|r| r.starts_with(':')))
        .map(|n| n + 1)
}

/// The 1-based line of `key:` in the `i`-th entry under `rules:` (block-style YAML).
fn rule_key_line(text: &str, i: usize, key: &str) -> Option<usize> {
    let mut in_rules = false;
    // The index of the entry the current line belongs to.
    let mut entry: Option<usize> = None;
    for (n, line) in text.lines().enumerate() {
        if line.starts_with("rules:") {
            in_rules = true;
            continue;
        }
        if !in_rules {
            continue;
        }
        if !line.starts_with([' ', '-', '\t']) && !line.trim().is_empty() {
            // The next top-level key ends the list.
            if !line.trim_start().starts_with('#') {
                break;
            }
            continue;
        }
        let trimmed = line.trim_start();
        let t = match trimmed.strip_prefix('-') {
            Some(rest) => {
                entry = Some(entry.map_or(0, |e| e + 1));
                rest.trim_start()
            }
            None => trimmed,
        };
        if entry == Some(i) && t.strip_prefix(key).is_some_and(|r| r.starts_with(':')) {
            return Some(n + 1);
        }
        if entry.is_some_and(|e| e > i) {
            return None;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAN: &str = "# cost: $0.01\ngoal: Refactor auth\ntoken_budget: 500\ntokenizer: o200k_base\nrules:\n  - path: \"**\"\n    level: 1\n  - path: src/auth/\n    level: 4\n  - path: vendor/\n    level: 1\n    collapse: true\n";

    #[test]
    fn parses_and_round_trips_ignoring_comments() {
        let plan = FlightPlan::from_yaml(PLAN).unwrap();
        assert_eq!(plan.tokenizer, Tokenizer::O200kBase);
        assert_eq!(plan.rules[1].level, Level::Full);
        assert!(plan.rules[2].collapse);
        let yaml = plan.to_yaml(&["generated at step 3".into()]);
        assert!(yaml.starts_with("# generated at step 3\n"));
        assert_eq!(FlightPlan::from_yaml(&yaml).unwrap(), plan);
    }

    #[test]
    fn unknown_level_names_its_line() {
        let err = FlightPlan::from_yaml(&PLAN.replace("level: 4", "level: 7"))
            .unwrap_err()
            .to_string();
        // serde_yaml points at the start of the offending rule; the error at its `level:`.
        assert!(
            err.contains("line 9") && err.contains("rules[1]") && err.contains("unknown level 7"),
            "{err}"
        );
    }

    #[test]
    fn errors_name_the_line_of_their_field_and_say_flight_plan_once() {
        let zero = PLAN.replace("token_budget: 500", "token_budget: 0");
        let err = FlightPlan::from_yaml(&zero).unwrap_err().to_string();
        assert_eq!(
            err,
            "invalid flight plan (line 3): token_budget: must be at least 1"
        );
        // A negative budget is told the same bound a zero one is.
        let negative = PLAN.replace("token_budget: 500", "token_budget: -3");
        let err = FlightPlan::from_yaml(&negative).unwrap_err().to_string();
        assert!(
            err.contains("token_budget") && err.contains("at least 1"),
            "{err}"
        );
        let capped = PLAN.replace("    level: 4\n", "    level: 4\n    max_items: 0\n");
        let err = FlightPlan::from_yaml(&capped).unwrap_err().to_string();
        assert_eq!(
            err,
            "invalid flight plan (line 10): rules[1].max_items: must be at least 1"
        );
        // A rule whose keys come in another order, and one in flow style.
        let reordered = PLAN.replace(
            "  - path: src/auth/\n    level: 4\n",
            "  - level: 4\n    max_items: 0\n    path: src/auth/\n",
        );
        let err = FlightPlan::from_yaml(&reordered).unwrap_err().to_string();
        assert!(
            err.starts_with("invalid flight plan (line 9): rules[1].max_items"),
            "{err}"
        );
        let err = FlightPlan::from_yaml(&PLAN.replace("level: 4", "level: 7"))
            .unwrap_err()
            .to_string();
        assert_eq!(err.matches("flight plan").count(), 1, "{err}");
        // The line of `level: 7`, not of the rule's `- path:`.
        assert!(
            err.starts_with("invalid flight plan (line 9): rules[1]: unknown level 7"),
            "{err}"
        );
        assert!(!err.contains("column"), "{err}");
        for (yaml, plain) in [
            (
                "goal: g\ntoken_budget: lots\nrules: []\n".to_string(),
                "expected a whole number",
            ),
            (
                "- 1\n- 2\n".to_string(),
                "expected a mapping with goal, token_budget and rules",
            ),
            (
                PLAN.replace("level: 4", "level: four"),
                "a level from 0 to 4",
            ),
        ] {
            let err = FlightPlan::from_yaml(&yaml).unwrap_err().to_string();
            assert!(err.contains(plain) && !err.contains("usize"), "{err}");
        }
        let err = FlightPlan::from_yaml("goal: [unclosed\n")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("invalid flight plan (line"), "{err}");
    }

    #[test]
    fn bad_glob_names_rule_and_line() {
        let err = FlightPlan::from_yaml(&PLAN.replace("src/auth/", "src/[auth"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("line 8") && err.contains("rules[1].path"),
            "{err}"
        );
    }

    #[test]
    fn paths_outside_the_root_are_rejected() {
        for bad in ["/etc/passwd", "src/../../x", "C:/x"] {
            let err = FlightPlan::from_yaml(&PLAN.replace("src/auth/", bad))
                .unwrap_err()
                .to_string();
            assert!(err.contains("rules[1].path") && err.contains(bad), "{err}");
        }
    }

    #[test]
    fn unknown_fields_and_zero_budget_are_errors() {
        let err = FlightPlan::from_yaml(&PLAN.replace("tokenizer:", "tokeniser:"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("tokeniser"), "{err}");
        let err = FlightPlan::from_yaml(&PLAN.replace("500", "0"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("token_budget"), "{err}");
    }

    #[test]
    fn capped_rules_round_trip_and_a_zero_cap_is_an_error() {
        let capped = PLAN.replace("level: 4\n", "level: 2\n    max_items: 3\n");
        let plan = FlightPlan::from_yaml(&capped).unwrap();
        assert_eq!(plan.rules[1], Rule::capped("src/auth/", Level::TopLevel, 3));
        assert_eq!(FlightPlan::from_yaml(&plan.to_yaml(&[])).unwrap(), plan);
        // Rules without a cap do not write one.
        assert!(!FlightPlan::from_yaml(PLAN)
            .unwrap()
            .to_yaml(&[])
            .contains("max_items"));
        let err = FlightPlan::from_yaml(&capped.replace("max_items: 3", "max_items: 0"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("line 10") && err.contains("rules[1].max_items"),
            "{err}"
        );
        let err = FlightPlan::from_yaml(&capped.replace("max_items: 3", "max_items: -1"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("max_items"), "{err}");
    }
}
