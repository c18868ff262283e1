//! Zooming inside a file: full source for the items a goal is about (functions, methods), the
//! rest of the file as its outline.
//!
//! Why: the file a task is about is often bigger than the whole token budget (attrs's
//! `_make.py` is ~25k tokens, clap's parser several thousand), so "full source or outline" per
//! file leaves the code to change out of the context exactly when it matters. A rule's `focus`
//! names items by qualified name (`_ClassBuilder.__init__`, `Parser::parse`); the file is then
//! rendered as its outline at the rule's level with those items spliced in at full source,
//! each under a comment giving its lines. Names, not line numbers, so a plan stays readable
//! and a policy (or a person) can write one; the plan's pins catch an edited file.

use crate::bm25::{terms, Stems, TYPO_WEIGHT};
use crate::capped::{entries, kept_near, more_line, GoalWords};
use crate::flight_plan::Level;
use crate::goal::Goal;
use crate::lang::Lang;
use crate::members::distinctive;
use crate::mentions::{misspelt_as, MISSPELT_MIN_LEN};
use crate::outline::Symbol;
use crate::scan::FileEntry;
use crate::tokens::Tokenizer;
use std::collections::{HashMap, HashSet};
use std::fmt::Write;

/// One item of a file that can be shown at full source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Item {
    /// Qualified name: the names of the enclosing items and its own, joined by `.` (`::` in
    /// Rust and C++).
    pub name: String,
    /// 1-based first line, leading doc comments, attributes and decorators included.
    pub start: u32,
    /// 1-based last line.
    pub end: u32,
    /// Index of its symbol in the file's outline.
    pub symbol: usize,
    /// Whether another item is nested inside it (a class, an impl block).
    pub container: bool,
}

impl Item {
    /// Whether one of `lines` (a trace's frames) lies inside the item.
    fn holds_any(&self, lines: &[u32]) -> bool {
        lines.iter().any(|&l| self.start <= l && l <= self.end)
    }

    /// Whether one of `lines` lies inside the item and the item is a function, not a class
    /// around functions.
    fn failed_in(&self, lines: &[u32]) -> bool {
        !self.container && self.holds_any(lines)
    }
}

/// An item's own name, without its parents'.
fn own_name(it: &Item) -> &str {
    it.name.rsplit(['.', ':']).next().unwrap_or("")
}

fn separator(lang: Lang) -> &'static str {
    match lang {
        Lang::Rust | Lang::Cpp | Lang::Ruby | Lang::Php => "::",
        _ => ".",
    }
}

/// The type an `impl` block is for: `impl<T> fmt::Display for Foo<T>` gives `Foo`.
fn impl_type(signature: &str) -> Option<String> {
    let rest = signature
        .strip_prefix("unsafe ")
        .unwrap_or(signature)
        .strip_prefix("impl")?;
    let mut rest = rest.trim_start();
    if rest.starts_with('<') {
        let mut depth = 0;
        let mut cut = rest.len();
        for (k, c) in rest.char_indices() {
            match c {
                '<' => depth += 1,
                '>' => {
                    depth -= 1;
                    if depth == 0 {
                        cut = k + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = rest[cut..].trim_start();
    }
    let ty = rest.split_once(" for ").map_or(rest, |(_, t)| t).trim();
    let path: String = ty
        .trim_start_matches(['&', '*'])
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
        .collect();
    let name = path.rsplit("::").next().unwrap_or("").to_string();
    (!name.is_empty()).then_some(name)
}

/// What an item is called within its parent: its name, else (Rust `impl` blocks) its type,
/// else its signature.
fn key(s: &Symbol) -> String {
    if !s.name.is_empty() {
        return s.name.clone();
    }
    impl_type(&s.signature).unwrap_or_else(|| s.signature.clone())
}

/// Whether a source line is part of an item's preamble: a doc comment, a comment, an
/// attribute or a decorator.
fn is_preamble(lang: Lang, line: &str) -> bool {
    let t = line.trim_start();
    match lang {
        Lang::Python => t.starts_with('@') || t.starts_with('#'),
        Lang::Ruby => t.starts_with('#'),
        _ => {
            t.starts_with("//")
                || t.starts_with("/*")
                || t.starts_with('*')
                || t.starts_with("#[")
                || t.starts_with('@')
        }
    }
}

/// The first line of the item at `line` with its preamble: the doc comments, attributes and
/// decorators above it. A block comment counts from the line that opens it, whatever its
/// lines inside start with (`/**`, then unstarred text, then `*/`).
fn preamble_start(lang: Lang, lines: &[&str], line: u32) -> u32 {
    let mut start = line;
    while start > 1 {
        let Some(prev) = lines.get(start as usize - 2) else {
            break;
        };
        if !matches!(lang, Lang::Python | Lang::Ruby) && prev.trim_end().ends_with("*/") {
            let open = (1..start)
                .rev()
                .find(|&l| lines[l as usize - 1].contains("/*"));
            match open {
                Some(l) if lines[l as usize - 1].trim_start().starts_with("/*") => {
                    start = l;
                    continue;
                }
                _ => break,
            }
        }
        if !is_preamble(lang, prev) {
            break;
        }
        start -= 1;
    }
    start
}

/// The items of `file`, in outline order (empty without an outline or text).
pub(crate) fn items(file: &FileEntry) -> Vec<Item> {
    let (Some(outline), Some(text), Some(lang)) = (file.outline(), file.text(), file.lang) else {
        return Vec::new();
    };
    let lines: Vec<&str> = text.lines().collect();
    let sep = separator(lang);
    let symbols = &outline.symbols;
    let mut path: Vec<String> = Vec::new();
    let mut out = Vec::with_capacity(symbols.len());
    for (k, s) in symbols.iter().enumerate() {
        path.truncate(s.depth as usize);
        path.push(key(s));
        let start = preamble_start(lang, &lines, s.line.max(1));
        let container = symbols.get(k + 1).is_some_and(|n| n.depth > s.depth);
        out.push(Item {
            name: path.join(sep),
            start,
            end: s.end_line.max(s.line),
            symbol: k,
            container,
        });
    }
    // Minified code (a bundle's thousands of functions on one line) has items no line range
    // tells apart: each would be the whole line, scored and counted once per item.
    let mut starts: Vec<u32> = out.iter().map(|it| it.start).collect();
    starts.dedup();
    if out.len() > MINIFIED_ITEMS && starts.len() * 2 < out.len() {
        return Vec::new();
    }
    out
}

/// A file with more items than this, most of them sharing a first line with another, is
/// minified: it has no items to zoom into.
const MINIFIED_ITEMS: usize = 16;

/// A file's head (imports, module docs: the lines above its first item) is shown with the
/// focused items when it is at most this long: edits often add an import, and the imports say
/// what the items use.
const HEAD_LINES: u32 = 60;

/// The line ranges `focus` selects in `items`, sorted and merged (nested items fold into
/// their parent's range), with the file's head when any name resolves.
fn ranges(lines: &[&str], items: &[Item], focus: &[String]) -> Vec<(u32, u32)> {
    let wanted: HashSet<String> = focus.iter().map(|f| f.replace("::", ".")).collect();
    let mut r: Vec<(u32, u32)> = items
        .iter()
        .filter(|i| wanted.contains(&i.name.replace("::", ".")))
        .map(|i| (i.start, i.end))
        .collect();
    if r.is_empty() {
        return r;
    }
    if let Some(h) = head_end(lines, items) {
        r.push((1, h));
    }
    r.sort();
    let mut merged: Vec<(u32, u32)> = Vec::with_capacity(r.len());
    for (a, b) in r {
        match merged.last_mut() {
            Some(last) if a <= last.1 + 1 => last.1 = last.1.max(b),
            _ => merged.push((a, b)),
        }
    }
    merged
}

/// The last line of the file's head shown beside focused items (imports, module docs: the
/// lines above the first item, up to its last non-blank one), `None` when it is empty or
/// longer than [`HEAD_LINES`].
fn head_end(lines: &[&str], items: &[Item]) -> Option<u32> {
    let first = items.first().map_or(1, |i| i.start);
    (1..first)
        .rev()
        .find(|&l| {
            lines
                .get(l as usize - 1)
                .is_some_and(|t| !t.trim().is_empty())
        })
        .filter(|&h| h <= HEAD_LINES)
}

/// The lines of `file` that `focus` shows at full source (empty when no name resolves).
pub(crate) fn focused_lines(file: &FileEntry, focus: &[String]) -> Vec<(u32, u32)> {
    if focus.is_empty() {
        return Vec::new();
    }
    let lines: Vec<&str> = file.text().unwrap_or("").lines().collect();
    ranges(&lines, &items(file), focus)
}

/// The body of `file` at `level` (top-level outline or all signatures) with the items named
/// by `focus` at full source, and how many outline entries a `cap` left out; `None` when no
/// name resolves (the plain outline applies). With a `cap` of `max` entries the outline around
/// the items keeps only those [`kept`] chooses (and the ones enclosing a focused item), and a
/// line after the source counts the rest.
pub(crate) fn focused_body(
    file: &FileEntry,
    level: Level,
    focus: &[String],
    cap: Option<(u32, &GoalWords)>,
) -> Option<(String, usize)> {
    let items = items(file);
    let (outline, text, lang) = (file.outline()?, file.text()?, file.lang?);
    // As full source shows it: no byte-order mark (`lines` drops carriage returns).
    let lines: Vec<&str> = without_bom(text).lines().collect();
    let spans = ranges(&lines, &items, focus);
    if spans.is_empty() {
        return None;
    }
    let all = entries(file, level);
    let listed: Option<HashSet<usize>> =
        cap.filter(|&(max, _)| all.len() > max as usize)
            .map(|(max, goal)| {
                // Nearest the focused items themselves (not the file's head shown with them).
                let wanted: HashSet<String> = focus.iter().map(|f| f.replace("::", ".")).collect();
                let near: Vec<(u32, u32)> = items
                    .iter()
                    .filter(|i| wanted.contains(&i.name.replace("::", ".")))
                    .map(|i| (i.start, i.end))
                    .collect();
                kept_near(file, &all, max as usize, goal, &near)
                    .into_iter()
                    .collect()
            });
    let mut left = 0;
    let cm = lang.line_comment();
    let mut fence = "```".to_string();
    while text.contains(fence.as_str()) {
        fence.push('`');
    }
    let mut out = format!("{fence}{}\n", lang.name());
    let mut next = 0;
    let emit = |out: &mut String, (a, b): (u32, u32)| {
        let _ = writeln!(out, "{cm} lines {a}-{b}");
        for l in &lines[(a as usize - 1).min(lines.len())..(b as usize).min(lines.len())] {
            out.push_str(l);
            out.push('\n');
        }
    };
    for item in &items {
        while next < spans.len() && spans[next].0 <= item.start {
            emit(&mut out, spans[next]);
            next += 1;
        }
        let s = &outline.symbols[item.symbol];
        let inside = spans.iter().any(|&(a, b)| a <= item.start && item.end <= b);
        let encloses = spans.iter().any(|&(a, b)| item.start <= a && b <= item.end);
        if inside || !(level == Level::Signatures || s.depth == 0 || encloses) {
            continue;
        }
        if !encloses && listed.as_ref().is_some_and(|l| !l.contains(&item.symbol)) {
            left += 1;
            continue;
        }
        let source = lines.get(s.line as usize - 1).copied().unwrap_or("");
        let indent = &source[..source.len() - source.trim_start().len()];
        if level == Level::Signatures {
            if let Some(doc) = &s.doc {
                let _ = writeln!(out, "{indent}{cm} {doc}");
            }
        }
        let _ = writeln!(out, "{indent}{}", s.signature);
    }
    for &span in &spans[next..] {
        emit(&mut out, span);
    }
    let _ = writeln!(out, "{fence}");
    if left > 0 {
        out.push_str(&more_line(level, left));
    }
    Some((out, left))
}

/// `text` without a UTF-8 byte-order mark: what full source and zoomed ranges show.
pub(crate) fn without_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// The source lines of `item`.
fn item_text(lines: &[&str], item: &Item) -> String {
    let (a, b) = (item.start as usize - 1, item.end as usize);
    lines
        .get(a.min(lines.len())..b.min(lines.len()))
        .unwrap_or_default()
        .join("\n")
}

/// Whether the lines of `it` outside the items nested in it declare one of `names`.
fn declares_any(lines: &[&str], it: &Item, items: &[Item], names: &[&str]) -> bool {
    let nested: Vec<(u32, u32)> = items
        .iter()
        .filter(|o| !std::ptr::eq(*o, it) && it.start <= o.start && o.end <= it.end)
        .map(|o| (o.start, o.end))
        .collect();
    (it.start..=it.end)
        .filter(|&l| !nested.iter().any(|&(a, b)| a <= l && l <= b))
        .filter_map(|l| lines.get((l as usize).checked_sub(1)?))
        .any(|line| names.iter().any(|n| declares_word(line, n)))
}

/// Words after which a name is used, not declared (`return NOTHING`, `if not NOTHING:`).
const USING_WORDS: &[&str] = &[
    "return", "yield", "raise", "throw", "await", "not", "and", "or", "in", "is", "if", "elif",
    "else", "while", "assert", "del", "import", "from", "use", "as", "match", "when", "print",
];

/// Whether `line` declares `word`: the word (not inside a longer identifier) after nothing but
/// modifiers, a type or `self.` (`pub max_age: u64,`, `NOTHING = enum.auto()`,
/// `private int maxIdle = 8;`, `self.strict_mode = False`), before an assignment, a type, a
/// separator or nothing. A docstring or an expression that uses the word does not.
fn declares_word(line: &str, word: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    line.match_indices(word).any(|(k, _)| {
        let before = line[..k].trim_start();
        let before = ["self.", "this.", "cls.", "$this->", "$"]
            .iter()
            .find_map(|p| before.strip_suffix(p))
            .unwrap_or(before);
        let after = line[k + word.len()..].trim_start();
        // `case flood`, `pub x:` declare it.
        let statement = before
            .split_whitespace()
            .next_back()
            .is_some_and(|w| USING_WORDS.contains(&w));
        !statement
            && !line[..k].chars().next_back().is_some_and(ident)
            && !line[k + word.len()..].chars().next().is_some_and(ident)
            && before.chars().all(|c| ident(c) || c.is_whitespace())
            && (after.is_empty() || after.starts_with(['=', ':', ',', '(', '{', ';']))
            && !after.starts_with("==")
    })
}

/// What the goal says, prepared for scoring a file's items.
pub(crate) struct ItemQuery {
    /// Stemmed goal terms with weights (the ranking's query).
    terms: std::sync::Arc<Vec<(String, f64)>>,
    /// Identifiers the goal spells as code, lower case.
    identifiers: HashSet<String>,
    /// Those of them its title (first line) spells as a name — compound or in capitals
    /// (`get_subcommands`, `maxAge`), or the last segment of a qualified name
    /// (`Upgraded::shutdown`): what the goal is about, not what its reproduction happens to
    /// call. A plain word in backticks (`` `Connection: close` ``) is not one.
    title_identifiers: HashSet<String>,
    /// Frames with a line: (file as written, line, the function's own name when given).
    frames: Vec<(String, u32, Option<String>)>,
    /// What source holding the goal's error messages spells ([`crate::messages::message_needles`]).
    messages: Vec<String>,
    stems: Stems,
    /// Whether [`ItemQuery::choose`] gives nothing rather than leave out the best item when
    /// the goal's trace failed in it.
    strict: bool,
    /// Whether [`ItemQuery::choose`] adds the items that share nothing with the goal too,
    /// nearest the best one first, while they fit (room the rest of the context left).
    fill_near: bool,
}

/// An identifier the goal spells as code names the item: worth this many strong term hits.
const NAMED: f64 = 4.0;
/// A short class whose own lines declare a member the goal names: this share of [`NAMED`].
const DECLARES_SHARE: f64 = 0.5;
/// A class declaring such a member is chosen for it only when shorter than this many lines
/// (an enum, a record); a longer one's methods stand for it.
const DECLARING_CLASS_LINES: u32 = 60;
/// An item the goal's title names comes first only when at most this many items share its name.
const MAX_TITLED_NAMESAKES: usize = 3;
/// A traceback or panic frame inside the item.
const FRAMED: f64 = 8.0;
/// The item spells the goal's error message (a run of its words): what raised it.
const MESSAGE_HELD: f64 = 8.0;
/// Term hits in the item's own name count this many times.
const NAME_TF: u32 = 3;
/// Items scoring below this share of the best are not worth their tokens.
const MIN_SHARE: f64 = 0.1;
/// An item is what the goal is clearly about when it scores this many times any other.
const CLEAR_ITEM: f64 = 2.0;

impl ItemQuery {
    pub(crate) fn new(goal: &str) -> Self {
        let parsed = Goal::shared(goal);
        let stems = Stems::new();
        let terms = crate::relevance::shared_query(goal);
        let title = goal.lines().find(|l| !l.trim().is_empty()).unwrap_or(goal);
        let titled = Goal::shared(title);
        let qualified: HashSet<&str> = titled
            .qualified
            .iter()
            .filter_map(|q| q.last().map(String::as_str))
            .collect();
        let title_identifiers = titled
            .identifiers
            .iter()
            .filter(|i| distinctive(i) || qualified.contains(i.as_str()))
            .map(|i| i.to_lowercase())
            .collect();
        ItemQuery {
            title_identifiers,
            terms,
            identifiers: parsed
                .identifiers
                .iter()
                .map(|i| i.to_lowercase())
                .collect(),
            frames: parsed
                .frames
                .iter()
                .filter_map(|f| {
                    let function = f
                        .function
                        .as_deref()
                        .map(|n| n.rsplit(['.', ':']).next().unwrap_or(n).trim().to_string());
                    Some((f.file.clone(), f.line?, function))
                })
                .collect(),
            messages: crate::messages::message_needles(&parsed),
            stems,
            strict: false,
            fill_near: false,
        }
    }

    /// Sets whether [`ItemQuery::choose`] fills spare room with the items near the best one.
    pub(crate) fn set_fill_near(&mut self, fill: bool) {
        self.fill_near = fill;
    }

    /// Sets whether [`ItemQuery::choose`] insists on the item the goal's trace failed in.
    pub(crate) fn set_strict(&mut self, strict: bool) {
        self.strict = strict;
    }

    /// The lines of `file` that the goal's traceback or panic frames point at. A frame whose
    /// line lies outside the function it names (a report from another version of the file)
    /// points at that function, when the file has one of that name.
    fn frame_lines(&self, file: &FileEntry, items: &[Item]) -> Vec<u32> {
        let name = file.path.rsplit('/').next().unwrap_or(&file.path);
        self.frames
            .iter()
            .filter(|(f, _, _)| f.replace('\\', "/").ends_with(name))
            .map(|(_, line, function)| {
                let Some(function) = function.as_deref().filter(|f| !f.is_empty()) else {
                    return *line;
                };
                let named = |it: &&Item| !it.container && own_name(it) == function;
                if items.iter().filter(named).any(|it| it.holds_any(&[*line])) {
                    return *line;
                }
                items
                    .iter()
                    .filter(named)
                    .min_by_key(|it| it.start.abs_diff(*line))
                    .map_or(*line, |it| it.start)
            })
            .collect()
    }

    /// Whether the goal points at an item of `file` itself: names it as code (or misspells its
    /// name), names a distinctive member the file declares, has a traceback or panic frame
    /// inside it or quotes the error message it spells (not only words its text shares).
    pub(crate) fn points_into(&self, file: &FileEntry) -> bool {
        let items = items(file);
        let frame_lines = self.frame_lines(file, &items);
        let unmatched = self.unmatched(&items);
        let lines: Vec<&str> = file.text().unwrap_or("").lines().collect();
        items.iter().any(|it| {
            (!it.container && self.naming(own_name(it), &unmatched) > 0.0)
                || it.holds_any(&frame_lines)
                || self.says_the_message(&lines, it)
        }) || self.names_a_member(file)
    }

    /// Whether the goal spells a distinctive member the file declares (`self.strict_mode`,
    /// a struct's `max_age`): the items using it are what the goal is about.
    fn names_a_member(&self, file: &FileEntry) -> bool {
        !self.named_members(file).is_empty()
    }

    /// The distinctive members of `file` the goal spells.
    fn named_members<'f>(&self, file: &'f FileEntry) -> Vec<&'f str> {
        file.code_outline().map_or_else(Vec::new, |o| {
            o.members
                .iter()
                .filter(|m| distinctive(m) && self.identifiers.contains(&m.to_lowercase()))
                .map(String::as_str)
                .collect()
        })
    }

    /// The goal's identifiers long enough to be misspelt ([`MISSPELT_MIN_LEN`]) that name none
    /// of `items`.
    fn unmatched(&self, items: &[Item]) -> Vec<String> {
        let owns: HashSet<String> = items.iter().map(|it| own_name(it).to_lowercase()).collect();
        self.identifiers
            .iter()
            .filter(|i| i.chars().count() >= MISSPELT_MIN_LEN && !owns.contains(*i))
            .cloned()
            .collect()
    }

    /// How much the goal names an item called `own`: 1 when it spells the name as code,
    /// [`TYPO_WEIGHT`] when one of its `unmatched` identifiers misspells it
    /// (`DefaultBodyLimt` for `DefaultBodyLimit`), else 0.
    fn naming(&self, own: &str, unmatched: &[String]) -> f64 {
        let low = own.to_lowercase();
        if self.identifiers.contains(&low) {
            return 1.0;
        }
        if unmatched.iter().any(|u| misspelt_as(u, &low).is_some()) {
            TYPO_WEIGHT
        } else {
            0.0
        }
    }

    /// Whether the goal's title spells `own` (or misspells it, one of `unmatched`).
    fn titled(&self, own: &str, unmatched: &[String]) -> bool {
        let low = own.to_lowercase();
        self.title_identifiers.contains(&low)
            || unmatched
                .iter()
                .any(|u| self.title_identifiers.contains(u) && misspelt_as(u, &low).is_some())
    }

    /// Whether one of `file`'s functions (not just a class around them) is where the goal's
    /// failure happened: a frame of its trace lies in it, or it spells the error message.
    /// The names of the items of `file` (not containers) a frame of the goal's trace lies in,
    /// in source order.
    pub(crate) fn frame_items(&self, file: &FileEntry) -> Vec<String> {
        let items = items(file);
        let frame_lines = self.frame_lines(file, &items);
        let mut names: Vec<String> = Vec::new();
        for it in items.iter().filter(|it| it.failed_in(&frame_lines)) {
            if !names.contains(&it.name) {
                names.push(it.name.clone());
            }
        }
        names
    }

    pub(crate) fn frame_into(&self, file: &FileEntry) -> bool {
        let items = items(file);
        let frame_lines = self.frame_lines(file, &items);
        let lines: Vec<&str> = file.text().unwrap_or("").lines().collect();
        items
            .iter()
            .any(|it| it.failed_in(&frame_lines) || self.says_the_message(&lines, it))
    }

    /// A relevance score per item of `file` (0 for containers, which their members stand for).
    fn scores(&mut self, file: &FileEntry, items: &[Item]) -> Vec<f64> {
        let text = file.text().unwrap_or("");
        let lines: Vec<&str> = text.lines().collect();
        let frame_lines = self.frame_lines(file, items);
        let unmatched = self.unmatched(items);
        // Each item's terms, and whether it spells the goal's error message, from its text
        // built once.
        let (docs, said): (Vec<_>, Vec<bool>) = items
            .iter()
            .map(|it| {
                let body = item_text(&lines, it);
                let own = it.name.rsplit(['.', ':']).next().unwrap_or("");
                let mut t = terms(&body);
                for _ in 0..NAME_TF {
                    t.extend(terms(own));
                }
                (self.stems.counts(t), self.spells_the_message(&body, it))
            })
            .unzip();
        let n = items.len() as f64;
        let mut df: HashMap<&str, f64> = HashMap::new();
        for (tf, _) in &docs {
            for t in tf.keys() {
                *df.entry(t.as_str()).or_default() += 1.0;
            }
        }
        let avg = (docs.iter().map(|d| d.1).sum::<usize>() as f64 / n.max(1.0)).max(1.0);
        let members = self.named_members(file);
        items
            .iter()
            .zip(&docs)
            .zip(said)
            .map(|((it, (tf, len)), said)| {
                // A short class whose own lines declare a member the goal names (an enum's
                // variant, a record's field) counts for that; a long one would take the room
                // of its methods. (Other items that declare one already hold its words; a bonus
                // for them too took a 30k zoom off the changed function of a report naming
                // several fields.)
                let short = it.container && it.end - it.start < DECLARING_CLASS_LINES;
                let declares =
                    if !members.is_empty() && short && declares_any(&lines, it, items, &members) {
                        NAMED * DECLARES_SHARE
                    } else {
                        0.0
                    };
                // A class counts by what its members say only when it declares one the
                // goal names (its methods stand for it otherwise).
                if it.container && declares == 0.0 {
                    return 0.0;
                }
                let mut s = declares;
                for (q, w) in self.terms.iter() {
                    let Some(&f) = tf.get(q) else { continue };
                    let f = f64::from(f);
                    let d = df[q.as_str()];
                    let idf = ((n - d + 0.5) / (d + 0.5) + 1.0).ln();
                    s += w * idf * f * 2.2 / (f + 1.2 * (0.25 + 0.75 * *len as f64 / avg));
                }
                s += NAMED * self.naming(own_name(it), &unmatched);
                if it.holds_any(&frame_lines) {
                    s += FRAMED;
                }
                if said {
                    s += MESSAGE_HELD;
                }
                s
            })
            .collect()
    }

    /// Whether the lines of `it` (a function, not a class around functions) spell a run of
    /// the goal's error message.
    fn says_the_message(&self, lines: &[&str], it: &Item) -> bool {
        !self.messages.is_empty()
            && !it.container
            && self.spells_the_message(&item_text(lines, it), it)
    }

    /// [`ItemQuery::says_the_message`] of an item whose text is `text`.
    fn spells_the_message(&self, text: &str, it: &Item) -> bool {
        !it.container && self.messages.iter().any(|m| text.contains(m.as_str()))
    }

    /// Per item, whether the goal's title names it (`get_subcommands skips hidden ones`): what
    /// the goal is about, chosen before every item its other words match, however often they
    /// say them (the aliases whose docs say "hidden" ten times). Not a name most of whose items
    /// are namesakes (`value_parser` of `fix(value_parser): ...`, implemented for thirty types):
    /// that names a module or a trait, and its words still count as words.
    fn titled_items(&self, items: &[Item]) -> Vec<bool> {
        let unmatched = self.unmatched(items);
        let mut namesakes: HashMap<String, usize> = HashMap::new();
        for it in items.iter().filter(|it| !it.container) {
            *namesakes.entry(own_name(it).to_lowercase()).or_default() += 1;
        }
        items
            .iter()
            .map(|it| {
                let own = own_name(it);
                !it.container
                    && namesakes[&own.to_lowercase()] <= MAX_TITLED_NAMESAKES
                    && self.titled(own, &unmatched)
            })
            .collect()
    }

    /// `names` (a focus of `file`) most relevant to the goal first: by the best score of the
    /// items of each name, ties in the order given.
    pub(crate) fn by_relevance(&mut self, file: &FileEntry, names: &[String]) -> Vec<String> {
        let items = items(file);
        let scores = self.scores(file, &items);
        let best = |name: &String| {
            (0..items.len())
                .filter(|&k| items[k].name == *name)
                .map(|k| scores[k])
                .fold(0.0, f64::max)
        };
        let mut ranked: Vec<(usize, f64)> = names
            .iter()
            .enumerate()
            .map(|(k, n)| (k, best(n)))
            .collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        ranked.into_iter().map(|(k, _)| names[k].clone()).collect()
    }

    /// The item of `file` the goal's words are clearly about: its name, when it scores at
    /// least [`CLEAR_ITEM`] times any other item (namesakes aside).
    pub(crate) fn clear_best(&mut self, file: &FileEntry) -> Option<String> {
        let items = items(file);
        let scores = self.scores(file, &items);
        let best =
            (0..items.len()).max_by(|&a, &b| scores[a].total_cmp(&scores[b]).then(b.cmp(&a)))?;
        let name = &items[best].name;
        let second = (0..items.len())
            .filter(|&k| items[k].name != *name)
            .map(|k| scores[k])
            .fold(0.0, f64::max);
        (scores[best] > 0.0 && scores[best] >= CLEAR_ITEM * second).then(|| name.clone())
    }

    /// The items of `file` to show at full source within `allowance` tokens for the whole
    /// block, best first until it is spent; empty when none fits or none matches the goal.
    /// `cost` gives the exact tokens of the file's block with a focus (the renderer's count:
    /// passed in, so this module does not depend on the renderer that depends on it). Names
    /// come back in source order. With `rescue`, a choice the file's head (shown with the
    /// first item, left out of the estimate) emptied is made again counting it.
    pub(crate) fn choose(
        &mut self,
        file: &FileEntry,
        (allowance, rescue): (usize, bool),
        tokenizer: Tokenizer,
        cost: impl Fn(&[String]) -> usize,
    ) -> Vec<String> {
        let items = items(file);
        if items.is_empty() {
            return Vec::new();
        }
        let scores = self.scores(file, &items);
        let titled = self.titled_items(&items);
        let best = scores.iter().cloned().fold(0.0, f64::max);
        if best <= 0.0 && !titled.contains(&true) {
            return Vec::new();
        }
        let mut order: Vec<usize> = (0..items.len())
            .filter(|&k| titled[k] || (best > 0.0 && scores[k] >= MIN_SHARE * best))
            .collect();
        order.sort_by(|&a, &b| {
            titled[b]
                .cmp(&titled[a])
                .then(scores[b].total_cmp(&scores[a]))
                .then(a.cmp(&b))
        });
        if self.fill_near {
            // Room to spare: the other functions too, nearest the best item first.
            let (a, b) = (items[order[0]].start, items[order[0]].end);
            let distance = |it: &Item| {
                if it.end < a {
                    a - it.end
                } else {
                    it.start.saturating_sub(b)
                }
            };
            let mut rest: Vec<usize> = (0..items.len())
                .filter(|&k| !items[k].container && !titled[k] && scores[k] < MIN_SHARE * best)
                .collect();
            rest.sort_by_key(|&k| (distance(&items[k]), k));
            order.extend(rest);
        }
        let outline = cost(&[]);
        if outline > allowance {
            return Vec::new();
        }
        // Each item adds about its own text and a line header (its outline line goes, which
        // keeps the estimate on the safe side); the exact block is counted once at the end.
        let lines: Vec<&str> = file.text().unwrap_or("").lines().collect();
        let header = tokenizer.count("# lines 1000-2000\n");
        // With `strict`, the items a frame of the goal's trace lies in (or that spell its error
        // message) come first, and when the first of them does not fit nothing does: the
        // caller tries it inside a capped outline before settling for others.
        let frame_lines = self.frame_lines(file, &items);
        let strict = self.strict;
        let failed: Vec<bool> = if strict {
            items
                .iter()
                .map(|it| it.failed_in(&frame_lines) || self.says_the_message(&lines, it))
                .collect()
        } else {
            vec![false; items.len()]
        };
        if strict {
            order.sort_by_key(|&k| !failed[k]);
        }
        // A focus is a name: it shows every item of that name (a struct and its `impl`
        // blocks, a method's overloads); the last choice counts each item with its namesakes.
        // Items are counted once, only those that can be chosen.
        let count = |it: &Item| tokenizer.count(&item_text(&lines, it)) + header;
        let mut alone = vec![0; items.len()];
        for &k in &order {
            // An item of many times the allowance in bytes cannot fit: not counted (a bundle's
            // whole-file wrapper took seconds to count), put just over the allowance.
            let bytes: usize = lines
                .get(
                    (items[k].start as usize).saturating_sub(1).min(lines.len())
                        ..(items[k].end as usize).min(lines.len()),
                )
                .unwrap_or_default()
                .iter()
                .map(|l| l.len() + 1)
                .sum();
            alone[k] = if bytes > allowance.saturating_mul(crate::tokens::MAX_BYTES_PER_TOKEN) {
                allowance + 1
            } else {
                count(&items[k])
            };
        }
        let greedy = |head: usize, namesakes: Option<&HashMap<&str, usize>>| {
            let (mut total, mut head) = (outline, head);
            let mut focus: Vec<String> = Vec::new();
            for (pos, &k) in order.iter().enumerate() {
                let it = &items[k];
                if focus.contains(&it.name) {
                    continue;
                }
                let c = head + namesakes.map_or(alone[k], |n| n[it.name.as_str()]);
                if total + c <= allowance {
                    total += c;
                    head = 0;
                    focus.push(it.name.clone());
                } else if pos == 0 && failed[k] {
                    return Vec::new();
                }
            }
            while !focus.is_empty() && cost(&focus) > allowance {
                focus.pop();
            }
            focus
        };
        let mut focus = greedy(0, None);
        if focus.is_empty() && rescue {
            // The file's head, which comes with the first item, took the room the estimate
            // gave the best items: choose again counting it (smaller items fit beside it).
            let head = head_end(&lines, &items).map_or(0, |h| {
                tokenizer.count(&lines[..(h as usize).min(lines.len())].join("\n")) + header
            });
            if head > 0 {
                focus = greedy(head, None);
            }
            // An item's namesakes came with it (a struct with long docs fitted, its
            // 900-token `impl` came too, and the exact count dropped them all, leaving the best
            // file without an item): choose again counting them.
            if focus.is_empty() {
                let mut by_name: HashMap<&str, usize> = HashMap::new();
                for it in &items {
                    *by_name.entry(it.name.as_str()).or_default() += count(it);
                }
                focus = greedy(head, Some(&by_name));
            }
        }
        let rank: HashMap<&str, usize> = items
            .iter()
            .enumerate()
            .rev()
            .map(|(k, i)| (i.name.as_str(), k))
            .collect();
        focus.sort_by_key(|f| rank.get(f.as_str()).copied().unwrap_or(usize::MAX));
        focus
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::RepoMap;

    const PY: &str = "import os\n\n\nclass Builder:\n    \"\"\"Builds.\"\"\"\n\n    def __init__(self, cls):\n        self.cls = cls\n\n    @property\n    def slots(self):\n        # cached slots\n        return self.cls.__slots__\n\n\ndef attrs(maybe_cls=None):\n    return Builder(maybe_cls)\n";

    const RS: &str = "pub struct Parser;\n\n/// Parsing.\nimpl<'a> Iterator for Parser {\n    type Item = u8;\n    /// Next byte.\n    #[inline]\n    fn next(&mut self) -> Option<u8> {\n        None\n    }\n}\n";

    /// What `choose` estimates item `name` of `f` costs: its text and a line header.
    fn item_cost(f: &FileEntry, tok: Tokenizer, name: &str) -> usize {
        let lines: Vec<&str> = f.text().unwrap_or("").lines().collect();
        let it = items(f).into_iter().find(|i| i.name == name).unwrap();
        tok.count(&item_text(&lines, &it)) + tok.count("# lines 1000-2000\n")
    }

    fn map(files: &[(&str, &str)]) -> (tempfile::TempDir, RepoMap) {
        let files: Vec<(String, String)> = files
            .iter()
            .map(|(p, t)| (p.to_string(), t.to_string()))
            .collect();
        crate::scan::temp_map(&files)
    }

    #[test]
    fn items_are_qualified_and_take_their_decorators_and_docs() {
        let (_d, m) = map(&[("make.py", PY), ("parse.rs", RS)]);
        let got: Vec<(String, u32, u32)> = items(m.file("make.py").unwrap())
            .into_iter()
            .map(|i| (i.name, i.start, i.end))
            .collect();
        assert_eq!(
            got,
            vec![
                ("Builder".into(), 4, 13),
                ("Builder.__init__".into(), 7, 8),
                ("Builder.slots".into(), 10, 13),
                ("attrs".into(), 16, 17),
            ]
        );
        let rs: Vec<(String, u32, u32)> = items(m.file("parse.rs").unwrap())
            .into_iter()
            .map(|i| (i.name, i.start, i.end))
            .collect();
        assert_eq!(rs[1], ("Parser".into(), 3, 11), "impl keyed by its type");
        assert!(rs.contains(&("Parser::next".into(), 6, 10)), "{rs:?}");
        assert_eq!(
            impl_type("impl<T: Clone> fmt::Display for &Foo<T>"),
            Some("Foo".into())
        );
        assert_eq!(impl_type("unsafe impl Send for Bar"), Some("Bar".into()));
        assert_eq!(impl_type("fn x()"), None);
    }

    #[test]
    fn a_block_doc_comment_is_part_of_its_item_whatever_its_lines_start_with() {
        let swift = "public final class Doc {\n  /**\n   Computes the answer.\n   Must be called on the main thread.\n   */\n  public func answer() -> Int {\n    return 42\n  }\n\n  let x = 1 /* not a doc */\n  public func other() -> Int { 1 }\n}\n";
        let (_d, m) = map(&[("Doc.swift", swift)]);
        let got: Vec<(String, u32)> = items(m.file("Doc.swift").unwrap())
            .into_iter()
            .map(|i| (i.name, i.start))
            .collect();
        assert!(got.contains(&("Doc.answer".into(), 2)), "{got:?}");
        // A comment after code on its line is no doc of the next item.
        assert!(got.contains(&("Doc.other".into(), 11)), "{got:?}");
    }

    #[test]
    fn focused_body_splices_items_into_the_outline() {
        let (_d, m) = map(&[("make.py", PY)]);
        let f = m.file("make.py").unwrap();
        let body = focused_body(f, Level::TopLevel, &["Builder.slots".into()], None)
            .unwrap()
            .0;
        assert_eq!(
            body,
            "```python\n# lines 1-1\nimport os\nclass Builder\n# lines 10-13\n    @property\n    def slots(self):\n        # cached slots\n        return self.cls.__slots__\ndef attrs(maybe_cls=None)\n```\n"
        );
        // Nested focus folds into its parent's range; unknown names resolve to nothing.
        let both = ["Builder".into(), "Builder.slots".into()];
        assert_eq!(focused_lines(f, &both), vec![(1, 1), (4, 13)]);
        assert!(focused_body(f, Level::TopLevel, &["nope".into()], None).is_none());
        let sigs = focused_body(f, Level::Signatures, &["attrs".into()], None)
            .unwrap()
            .0;
        assert!(
            sigs.contains("    # Builds.\n") || sigs.contains("# Builds."),
            "{sigs}"
        );
        assert!(sigs.contains("    def __init__(self, cls)\n"), "{sigs}");
        assert!(
            sigs.ends_with(
                "# lines 16-17\ndef attrs(maybe_cls=None):\n    return Builder(maybe_cls)\n```\n"
            ),
            "{sigs}"
        );
    }

    #[test]
    fn choose_prefers_the_items_the_goal_names_within_the_allowance() {
        let (_d, m) = map(&[("make.py", PY)]);
        let f = m.file("make.py").unwrap();
        let tok = Tokenizer::default();
        let mut q = ItemQuery::new("Cache the slots of the builder");
        assert_eq!(
            q.choose(f, (10_000, true), tok, |focus| crate::render::file_block(
                f,
                Level::TopLevel,
                focus,
                tok
            )
            .1),
            vec!["Builder.slots".to_string(), "attrs".into()],
            "items that never say the goal's words (`__init__`) stay outlines"
        );
        let outline_only = crate::render::file_block(f, Level::TopLevel, &[], tok).1;
        let slots = crate::render::file_block(f, Level::TopLevel, &["Builder.slots".into()], tok).1;
        assert_eq!(
            q.choose(f, (slots, true), tok, |focus| crate::render::file_block(
                f,
                Level::TopLevel,
                focus,
                tok
            )
            .1),
            vec!["Builder.slots".to_string()],
            "the best item first, the rest only if it fits"
        );
        assert!(q
            .choose(f, (outline_only - 1, true), tok, |focus| {
                crate::render::file_block(f, Level::TopLevel, focus, tok).1
            })
            .is_empty());
        let mut traceback = ItemQuery::new(
            "Crash\n\nTraceback (most recent call last):\n  File \"/x/make.py\", line 17, in attrs\nTypeError: bad",
        );
        assert_eq!(
            traceback.choose(f, (slots, true), tok, |focus| crate::render::file_block(
                f,
                Level::TopLevel,
                focus,
                tok
            )
            .1),
            vec!["attrs".to_string()]
        );
    }

    #[test]
    fn a_frame_from_another_version_of_the_file_points_at_the_function_it_names() {
        let src = "def prepare_url(url):\n    url = url.strip()\n    return url\n\n\ndef prepare_headers(headers):\n    for h in headers:\n        check(h)\n";
        let (_d, m) = map(&[("models.py", src)]);
        let f = m.file("models.py").unwrap();
        let tok = Tokenizer::default();
        let one = crate::render::file_block(f, Level::TopLevel, &["prepare_headers".into()], tok).1;
        let choose = |goal: &str| {
            ItemQuery::new(goal).choose(f, (one + 3, true), tok, |focus| {
                crate::render::file_block(f, Level::TopLevel, focus, tok).1
            })
        };
        let at = |line: u32, function: &str| {
            format!("Crash\n\nTraceback (most recent call last):\n  File \"/x/models.py\", line {line}, in {function}\n    check(h)\nValueError: bad")
        };
        // Line 2 is in `prepare_url` here; the report's version had `prepare_headers` there.
        assert_eq!(choose(&at(2, "prepare_headers")), ["prepare_headers"]);
        assert_eq!(choose(&at(8, "prepare_headers")), ["prepare_headers"]);
        // A function the file does not have: the line decides.
        assert_eq!(choose(&at(2, "gone")), ["prepare_url"]);
    }

    #[test]
    fn an_item_whose_name_the_goal_misspells_is_chosen_like_one_it_names() {
        let src = "pub fn limit_body() -> usize {\n    1\n}\n\npub fn default_body_limit() -> usize {\n    2\n}\n\npub fn defaults() -> usize {\n    3\n}\n";
        let (_d, m) = map(&[("limit.rs", src)]);
        let f = m.file("limit.rs").unwrap();
        let tok = Tokenizer::default();
        let one =
            crate::render::file_block(f, Level::TopLevel, &["default_body_limit".into()], tok).1;
        let choose = |goal: &str| {
            ItemQuery::new(goal).choose(f, (one + 3, true), tok, |focus| {
                crate::render::file_block(f, Level::TopLevel, focus, tok).1
            })
        };
        // The words alone favour `limit_body`, whose name holds both of them.
        assert_eq!(choose("limit body"), ["limit_body"]);
        assert_eq!(
            choose("`default_body_limt` limit body"),
            ["default_body_limit"]
        );
        assert!(ItemQuery::new("`default_body_limt` is ignored").points_into(f));
    }

    #[test]
    fn an_item_the_title_names_comes_before_items_repeating_the_goal_s_words() {
        let hidden =
            "/// Skips hidden ones: hidden from help, hidden from completions.\n".repeat(3);
        let others: String = (0..20)
            .map(|k| format!("pub fn subcommand_{k}() -> u8 {{\n    get({k})\n}}\n\n"))
            .collect();
        let src = format!(
            "{others}{hidden}pub fn alias() -> u8 {{\n    0\n}}\n\npub fn get_subcommands() -> u8 {{\n    2\n}}\n\npub fn close() -> u8 {{\n    3\n}}\n"
        );
        let (_d, m) = map(&[("command.rs", src.as_str())]);
        let f = m.file("command.rs").unwrap();
        let tok = Tokenizer::default();
        // Room for either item, not both (as `choose` estimates them).
        let header = tok.count("# lines 1000-2000\n");
        let cost = |name: &str| item_cost(f, tok, name);
        let outline = crate::render::file_block(f, Level::TopLevel, &[], tok).1;
        let room = outline + cost("alias") + cost("get_subcommands") / 2;
        let choose = |goal: &str| {
            ItemQuery::new(goal).choose(f, (room, true), tok, |focus| {
                crate::render::file_block(f, Level::TopLevel, focus, tok).1
            })
        };
        assert_eq!(
            choose("get_subcommands skips hidden ones"),
            ["get_subcommands"]
        );
        assert_eq!(
            choose("get_subcomands skips hidden ones"),
            ["get_subcommands"]
        );
        // A plain word in backticks is no name: the words decide.
        assert_eq!(choose("`close` skips hidden ones"), ["alias"]);
        // A plain name written as a qualified one is.
        assert_eq!(
            choose("`Command::get_subcommands` skips hidden ones"),
            ["get_subcommands"]
        );
        // A name thirty items share (a trait's method) names no one of them.
        let impls: String = (0..30)
            .map(|k| format!("impl Parser for P{k} {{\n    fn value_parser() -> u8 {{\n        {k}\n    }}\n}}\n\n"))
            .collect();
        let src = format!(
            "{impls}/// The range is not in bounds.\npub fn format_bounds() -> u8 {{\n    0\n}}\n"
        );
        let (_d, m) = map(&[("value_parser.rs", src.as_str())]);
        let f = m.file("value_parser.rs").unwrap();
        let lines: Vec<&str> = src.lines().collect();
        let its = items(f);
        let bounds = its.iter().find(|i| i.name == "format_bounds").unwrap();
        let room = crate::render::file_block(f, Level::TopLevel, &[], tok).1
            + tok.count(&item_text(&lines, bounds))
            + header;
        let chosen = ItemQuery::new("fix(value_parser): not in bounds").choose(
            f,
            (room + 3, true),
            tok,
            |focus| crate::render::file_block(f, Level::TopLevel, focus, tok).1,
        );
        assert_eq!(chosen, ["format_bounds"]);
    }

    #[test]
    fn the_function_that_spells_the_goal_s_panic_message_is_chosen_first() {
        let others: String = (0..12)
            .map(|k| {
                format!("pub fn nest_route_{k}(path: &str) -> bool {{\n    path.is_empty()\n}}\n\n")
            })
            .collect();
        let src = format!(
            "{others}fn validate_nest_path(path: &str) -> Result<&str, &'static str> {{\n    if path.contains(\"{{*\") {{\n        return Err(\"Invalid route: nested routes cannot contain wildcards (*)\");\n    }}\n    Ok(path)\n}}\n\n\
             pub fn nest(router: Router, path: &str) -> Router {{\n    // Nest the router under the path, panicking on an invalid route or path.\n    router.nest_at(validate_nest_path(path).unwrap())\n}}\n"
        );
        let (_d, m) = map(&[("path_router.rs", src.as_str())]);
        let f = m.file("path_router.rs").unwrap();
        let tok = Tokenizer::default();
        let goal = "Router::nest panics on an escaped path\n\nthread 'main' panicked at src/main.rs:18:29:\nInvalid route: nested routes cannot contain wildcards (*)\nstack backtrace:\n   0: rust_begin_unwind\n   1: core::panicking::panic_fmt\n             at /rustc/abc/library/core/src/panicking.rs:72:14\n   2: server::main\n             at src/main.rs:18:29\n";
        let cost = |name: &str| item_cost(f, tok, name);
        // Room for one of the two functions beside the outline.
        let outline = crate::render::file_block(f, Level::TopLevel, &[], tok).1;
        let room = outline + cost("validate_nest_path").max(cost("nest")) + 2;
        let mut q = ItemQuery::new(goal);
        q.set_strict(true);
        let chosen = q.choose(f, (room, true), tok, |focus| {
            crate::render::file_block(f, Level::TopLevel, focus, tok).1
        });
        assert_eq!(chosen, ["validate_nest_path"]);
        assert!(q.frame_into(f) && q.points_into(f));
        // Without the message, the function the title names.
        let mut q = ItemQuery::new("Router::nest panics on an escaped path");
        q.set_strict(true);
        let chosen = q.choose(f, (room, true), tok, |focus| {
            crate::render::file_block(f, Level::TopLevel, focus, tok).1
        });
        assert_eq!(chosen, ["nest"]);
    }

    #[test]
    fn the_class_whose_own_lines_declare_a_member_the_goal_names_is_chosen() {
        let mut src: String = (0..30)
            .map(|k| format!("def nothing_{k}(x):\n    return x is None\n\n\n"))
            .collect();
        src.push_str("class _Nothing(enum.Enum):\n    NOTHING = enum.auto()\n\n    def __repr__(self):\n        return 'x'\n");
        let (_d, m) = map(&[("make.py", src.as_str())]);
        let f = m.file("make.py").unwrap();
        let tok = Tokenizer::default();
        let mut q = ItemQuery::new("`NOTHING` pickles to a different object");
        let focus = q.choose(f, (10_000, true), tok, |focus| {
            crate::render::file_block(f, Level::TopLevel, focus, tok).1
        });
        assert_eq!(
            focus.first().map(String::as_str),
            Some("_Nothing"),
            "{focus:?}"
        );
        // A long class is shown by its methods, not whole.
        let long: String = "class Registry:\n    NOTHING = 1\n\n".to_string()
            + &(0..40)
                .map(|k| format!("    def nothing_{k}(self):\n        return None\n\n"))
                .collect::<String>();
        let (_l, lm) = map(&[("reg.py", long.as_str())]);
        let lf = lm.file("reg.py").unwrap();
        let focus = q.choose(lf, (10_000, true), tok, |focus| {
            crate::render::file_block(lf, Level::TopLevel, focus, tok).1
        });
        assert!(
            !focus.is_empty() && !focus.contains(&"Registry".to_string()),
            "{focus:?}"
        );
        for line in [
            "    NOTHING = enum.auto()",
            "    pub max_age: u64,",
            "    private int maxIdle = 8;",
            "        self.strict_mode = False",
            "    DeriveDisplayOrder,",
            "    populate_by_name: bool",
        ] {
            let word = line.split(|c: char| !c.is_alphanumeric() && c != '_').rev();
            let word = word.filter(|w| !w.is_empty()).find(|w| {
                [
                    "NOTHING",
                    "max_age",
                    "maxIdle",
                    "strict_mode",
                    "DeriveDisplayOrder",
                    "populate_by_name",
                ]
                .contains(w)
            });
            assert!(declares_word(line, word.unwrap()), "{line}");
        }
        for line in [
            "    that a value may be ``NOTHING``.",
            "    if value == NOTHING:",
            "    NOTHING_ELSE = 1",
            "    NOTHING is now an enum variant",
            "    return NOTHING",
            "    x = NOTHING",
        ] {
            assert!(!declares_word(line, "NOTHING"), "{line}");
        }
    }

    #[test]
    fn an_item_counts_with_its_namesakes_which_a_focus_on_its_name_shows() {
        // The struct, long with its docs, fits the allowance alone; a focus on its name also
        // shows its `impl` block, which does not fit: the methods are chosen instead of
        // nothing.
        let docs: String = (0..40)
            .map(|k| format!("/// Line {k} of the limit's long documentation.\n"))
            .collect();
        let body: String = (0..25)
            .map(|k| format!("        let step_{k} = {k} * 2;\n"))
            .collect();
        let text = format!(
            "{docs}pub struct Limit {{\n    max: usize,\n}}\n\nimpl Limit {{\n    pub fn disable() -> usize {{\n{body}        0\n    }}\n\n    pub fn max(limit: usize) -> usize {{\n        limit\n    }}\n}}\n"
        );
        let (_d, m) = map(&[("limit.rs", text.as_str())]);
        let f = m.file("limit.rs").unwrap();
        let tok = Tokenizer::default();
        let block = |focus: &[String]| crate::render::file_block(f, Level::TopLevel, focus, tok).1;
        let alone = block(&[])
            + tok.count(&format!("{docs}pub struct Limit {{\n    max: usize,\n}}\n"))
            + 20;
        assert!(
            block(&["Limit".to_string()]) > alone,
            "the fixture needs a costly impl"
        );
        let chosen = ItemQuery::new("`Limit` is ignored").choose(f, (alone, true), tok, block);
        assert_eq!(chosen, ["Limit::max"]);
    }

    #[test]
    fn strict_choice_gives_the_failing_item_or_nothing() {
        // `run` fails at line 4 and is long; `slots_cache` shares the goal's words and is short.
        let body: String = (0..40).map(|k| format!("    step_{k}(job)\n")).collect();
        let src = format!(
            "import os\n\ndef run(job):\n    boom(job)\n{body}\n\ndef slots_cache(job):\n    return job.slots_cache\n"
        );
        let (_d, m) = map(&[("jobs.py", src.as_str())]);
        let f = m.file("jobs.py").unwrap();
        let tok = Tokenizer::default();
        let goal = "slots cache crash\n\nTraceback (most recent call last):\n  File \"/x/jobs.py\", line 4, in run\nValueError: boom";
        let cost = |focus: &[String]| crate::render::file_block(f, Level::TopLevel, focus, tok).1;
        let small = cost(&["slots_cache".to_string()]);
        let mut q = ItemQuery::new(goal);
        assert!(cost(&["run".to_string()]) > small);
        // Room for the short item only: the lenient choice takes it ...
        assert_eq!(q.choose(f, (small, true), tok, cost), ["slots_cache"]);
        // ... the strict one gives nothing, so the caller can try the failing item elsewhere.
        q.set_strict(true);
        assert!(q.choose(f, (small, true), tok, cost).is_empty());
        // With room, the failing item comes first either way.
        assert_eq!(q.choose(f, (10_000, true), tok, cost)[0], "run");
    }

    #[test]
    fn a_commonjs_method_the_goal_names_is_chosen() {
        let others: String = (0..20)
            .map(|k| {
                format!(
                    "res.helper{k} = function helper{k}(name) {{\n  return name + {k};\n}};\n\n"
                )
            })
            .collect();
        let src = format!(
            "'use strict';\nvar cookie = require('cookie');\nvar res = Object.create(null);\nmodule.exports = res;\n\n{others}/**\n * Set cookie `name` to `value`.\n */\nres.cookie = function (name, value, options) {{\n  var opts = Object.assign({{}}, options);\n  return this.append('Set-Cookie', cookie.serialize(name, String(value), opts));\n}};\n"
        );
        let (_d, m) = map(&[("lib/response.js", src.as_str())]);
        let f = m.file("lib/response.js").unwrap();
        let tok = Tokenizer::default();
        let cost = |focus: &[String]| crate::render::file_block(f, Level::TopLevel, focus, tok).1;
        let room = cost(&[]) + item_cost(f, tok, "cookie") + 10;
        let chosen = ItemQuery::new("res.cookie: reject a maxAge that is not a finite number")
            .choose(f, (room, true), tok, cost);
        assert_eq!(chosen, ["cookie"]);
        let lines = focused_lines(f, &chosen);
        assert!(
            lines.iter().any(|&(a, b)| a <= 86 && b >= 89),
            "{lines:?} should hold `res.cookie`'s doc and body"
        );
    }

    #[test]
    fn minified_code_has_no_items_to_zoom_into() {
        let one_line: Vec<String> = (0..40)
            .map(|k| format!("a.m{k}=function(x){{return x+{k}}}"))
            .collect();
        let spread: Vec<String> = (0..40)
            .map(|k| format!("a.m{k} = function (x) {{\n  return x + {k}\n}}\n"))
            .collect();
        let (_d, m) = map(&[
            ("dist/app.min.js", one_line.join(";").as_str()),
            ("lib/app.js", spread.concat().as_str()),
        ]);
        let outlined = |p: &str| m.file(p).unwrap().outline().unwrap().symbols.len();
        assert_eq!(
            (outlined("dist/app.min.js"), outlined("lib/app.js")),
            (40, 40)
        );
        assert!(items(m.file("dist/app.min.js").unwrap()).is_empty());
        assert_eq!(items(m.file("lib/app.js").unwrap()).len(), 40);
    }

    #[test]
    fn a_zoomed_file_shows_no_byte_order_mark() {
        let (_d, m) = map(&[("b.py", "\u{feff}import os\n\ndef f():\n    return 1\n")]);
        let f = m.file("b.py").unwrap();
        let body = focused_body(f, Level::TopLevel, &["f".into()], None)
            .unwrap()
            .0;
        assert!(body.contains("# lines 1-1\nimport os\n"), "{body:?}");
        assert!(!body.contains('\u{feff}'), "{body:?}");
    }
}
