//! Understanding a goal: what in it points at code.
//!
//! A commit subject ("Fix `optional` validator to accept tuples") is a handful of words, all of
//! them signal. A bug report is mostly prose ("I was trying to ... and expected ...") around a
//! few precise clues: a traceback whose frames name files and functions, a panic message with
//! its location, an error line, a code block, a dotted name (`click.core.Command.invoke`) or a
//! Rust path (`axum::extract::Query`). Those clues are pulled out here so the ranking can match
//! them against paths and symbols directly and count the prose for less. Frames are read from
//! Python tracebacks, Rust panics and backtraces, compiler locations, and the stack traces of
//! JavaScript/TypeScript (V8's `at fn (file:line:col)`), Java (`at pkg.Class.method(File.java:12)`)
//! and Go (`pkg.Func(...)` over `\t/path/file.go:12 +0x1d`).

use regex::Regex;
use std::collections::HashSet;
use std::sync::OnceLock;
use std::sync::{Arc, Mutex};

/// Where a frame comes from, which says how close it is to the failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameKind {
    /// A Python traceback frame (most recent call last: the last one failed).
    Python,
    /// A Rust panic's location: where it failed.
    Panic,
    /// A Rust backtrace frame (innermost first).
    Backtrace,
    /// A compiler diagnostic's location (`--> src/main.rs:4:5`), usually in the user's code.
    Compiler,
    /// A location the goal gives bare (`src/scanners.rs:897:5`, `httpx/_urlparse.py:410`):
    /// the code at that line, no trace around it.
    Location,
    /// A JavaScript/TypeScript, Java, .NET, Go, Ruby, PHP or C/C++ (AddressSanitizer, gdb,
    /// Valgrind) stack frame (innermost first, like a backtrace).
    Stack,
}

/// One frame of a Python traceback, a Rust panic or backtrace, or a JavaScript, Java, .NET, Go,
/// Ruby, PHP or C/C++ stack trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// What kind of report it was read from.
    pub kind: FrameKind,
    /// The file as written in the report (absolute, site-packages, `./src/...`).
    pub file: String,
    /// The line, when given.
    pub line: Option<u32>,
    /// The function (Python `in name`, Rust `crate::module::Type::method`), when given.
    pub function: Option<String>,
}

/// The code clues of a goal, and its prose.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Goal {
    /// Traceback, panic and backtrace frames, in report order.
    pub frames: Vec<Frame>,
    /// Error lines: `TypeError: ...`, a panic's message, `error[E0277]: ...`.
    pub errors: Vec<String>,
    /// Source file paths mentioned anywhere (frames included), without line numbers.
    pub paths: Vec<String>,
    /// Dotted names and Rust paths (`click.core.Command`, `hyper::client::conn`), split into
    /// their segments.
    pub qualified: Vec<Vec<String>>,
    /// Identifiers written as code: in backticks or code blocks, snake_case, CamelCase, the last
    /// segment of qualified names, frame functions.
    pub identifiers: Vec<String>,
    /// Text of fenced code blocks.
    pub code: Vec<String>,
    /// Names a program spells as string literals: long options (`--setup-show`), kebab-case
    /// names written as code (`min-similarity-lines`, a linter's `unused-import`), message codes
    /// (`W0511`). Options keep their dashes.
    pub literals: Vec<String>,
    /// Files of the reporter's own (a code block headed `# app.py`, a traceback's `File
    /// "app.py", ..., in <module>`): a bare name of theirs names no file of the repository.
    pub user_files: Vec<String>,
    /// What is left once frames, error lines and code blocks are taken out.
    pub prose: String,
}

fn re(cell: &'static OnceLock<Regex>, pattern: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(pattern).expect("a valid built-in pattern"))
}

/// Functions returning built-in regexes, each compiled once: `name = r"pattern";`.
macro_rules! patterns {
    ($($(#[$m:meta])* $name:ident = $pattern:expr;)*) => {
        $(
            $(#[$m])*
            fn $name() -> &'static Regex {
                static R: OnceLock<Regex> = OnceLock::new();
                re(&R, $pattern)
            }
        )*
    };
}

/// [`re`] of a pattern put together from the lists below, made once.
fn re_made(cell: &'static OnceLock<Regex>, pattern: impl FnOnce() -> String) -> &'static Regex {
    cell.get_or_init(|| Regex::new(&pattern()).expect("a valid built-in pattern"))
}

/// Extensions of JavaScript and TypeScript sources, as a regex alternation.
const JS_EXTENSIONS: &str = "js|jsx|mjs|cjs|ts|tsx|mts|cts";

patterns! {
    /// `  File "/x/click/core.py", line 12, in invoke`
    python_frame = r#"(?m)^\s*File "([^"]+)", line (\d+)(?:, in ([A-Za-z_<>][\w<>.]*))?"#;

    /// `thread 'main' panicked at src/x.rs:3:5:` (Rust 1.73+) or `... panicked at 'msg', src/x.rs:3:5`.
    panic_line = r"(?m)panicked at (?:'((?:[^'\\]|\\.)*)',\s*)?([\w./\\-]+\.rs):(\d+)(?::\d+)?:?[ \t]*(.*)$";

    /// A backtrace frame: `  12: hyper::proto::h1::conn::Conn<I,B,T>::poll_read` followed by
    /// `             at ./src/proto/h1/conn.rs:123:45`.
    /// (A frame without its `at` line is not joined to the next one's name.)
    backtrace_frame = r"(?m)^[ \t]*\d+:[ \t]+(?:0x[0-9a-f]+ - )?([\w:<>, \t&'\[\]{}#]+?)[ \t]*\r?\n[ \t]+at ([^\s:]+\.rs):(\d+)";
}

/// A V8 (Node, Chrome, Deno, Bun) stack frame: `    at Parser.parse (/app/src/parser.ts:12:5)`,
/// `    at async load (file:///app/src/load.mjs:3:1)`, `    at /app/src/index.js:3:1`, or an
/// accessor's `    at Object.set status [as status] (/app/lib/response.js:100:5)`.
fn js_frame() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re_made(&R, || {
        format!(
            r"(?m)^[ \t]*at (?:async )?(?:new )?(?:((?:[\w$.<>]+?\.)?(?:[gs]et )?[\w$.<>]+?)(?: \[as [\w$]+\])? \()?(?:file://)?([^\s()]+\.(?:{JS_EXTENSIONS})):(\d+)(?::\d+)?\)?[ \t]*$"
        )
    })
}

/// A Firefox (SpiderMonkey) or Safari (JavaScriptCore) stack frame: `parse@/app/src/parser.js:12:5`,
/// `Parser.prototype.read@http://localhost:8080/src/read.js:3:1`, `@webpack:///./src/a.ts:9:2`.
fn gecko_frame() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re_made(&R, || {
        format!(r"(?m)^[ \t]*([^@\s]*)@(\S+?\.(?:{JS_EXTENSIONS})):(\d+)(?::\d+)?[ \t]*$")
    })
}

patterns! {
    /// A Java (or Kotlin, Scala) stack frame: `\tat com.acme.config.Parser.parse(Parser.java:42)`.
    java_frame = r"(?m)^[ \t]*at ((?:[\w$]+\.)+)([\w$<>]+)\(([\w$]+\.(?:java|kt|scala|groovy)):(\d+)\)";

    /// A Go stack frame: `github.com/acme/tool/config.(*Loader).Load(0x1, ...)` over
    /// `\t/src/tool/config/loader.go:88 +0x2f`.
    go_frame = r"(?m)^([\w./\-]+?\.(?:\(\*?[\w]+\)\.)?[\w.]+)\([^\n]*\)\n[ \t]+([^\s:]+\.go):(\d+)";
}

/// A Java frame's source path from its class: the package as folders, then the file
/// (`com.acme.config.Parser$Inner` in `Parser.java` gives `com/acme/config/Parser.java`).
fn java_path(class_dots: &str, file: &str) -> String {
    let segs: Vec<&str> = class_dots.trim_end_matches('.').split('.').collect();
    let package = &segs[..segs.len().saturating_sub(1)];
    let mut path = package.join("/");
    if !path.is_empty() {
        path.push('/');
    }
    path.push_str(file);
    path
}

patterns! {
    /// A Ruby backtrace frame: `lib/acme/client.rb:42:in 'get'` (`in `get'` before Ruby 3.4, which
    /// also names the class: `'Acme::Client#get'`), maybe after `from `.
    ruby_frame = r"(?m)^[ \t]*(?:from )?((?:[A-Za-z]:)?[^\s:'`]+\.(?:rb|rake)):(\d+):in [`']([^'`\n]+)'";

    /// A PHP stack frame: `#0 /var/www/src/Kernel.php(31): App\Http\Router->add(NULL)`.
    php_frame = r"(?m)^[ \t]*#\d+ ([^\s(]+\.php)\((\d+)\): ([\w\\]+(?:(?:->|::)\w+)?)\(";

    /// A .NET stack frame with its source line:
    /// `   at Acme.Config.Parser.Read(String path) in /src/Acme/Config/Parser.cs:line 42`.
    dotnet_frame = r"(?m)^[ \t]*at ([\w.`<>+\[\],]+?)\([^\n]*?\) in (.+?\.(?:cs|fs|vb)):line (\d+)";

    /// A symbolicated frame of an Apple crash report or of Swift's own backtracer:
    /// `3   Acme   0x0000000100a3c1f4 Store.put(_:value:) + 120 (Store.swift:42)`.
    swift_frame = r"(?m)^[ \t]*\d+[ \t]+[\w.+\-]+[ \t]+0x[0-9a-fA-F]+ (.+?) \+ \d+ \(([^\s():]+\.(?:swift|m|mm)):(\d+)\)";

    /// Where a Swift runtime trap happened (`fatalError`, `precondition`, `assert`): `Fatal
    /// error: Index out of range: file Acme/Store.swift, line 42` (Swift 5.0–5.8) or
    /// `Acme/Store.swift:42: Precondition failed: ...`.
    swift_trap = r"(?m)(?:(?:Fatal error|Precondition failed|Assertion failed)(?:: [^\n]*?)?: file (\S+\.swift), line (\d+)|^[ \t]*(\S+\.swift):(\d+): (?:Fatal error|Precondition failed|Assertion failed)\b)";
}

/// A JVM frame's function as a dotted name, the method a lambda or anonymous class was
/// written in standing for it: Kotlin's `Stack$onUpdate$1.invoke` and Java's
/// `Stack.lambda$onUpdate$0` give `Stack.onUpdate`; `Parser$Section.read` gives
/// `Parser.Section.read`.
fn jvm_function(raw: &str) -> String {
    let mut segs: Vec<&str> = Vec::new();
    for dotted in raw.split('.') {
        let parts: Vec<&str> = dotted.split('$').collect();
        for (k, part) in parts.iter().enumerate() {
            // A synthetic `lambda$run$0` (a package may be named `lambda`), a lambda's number.
            let synthetic = k == 0 && *part == "lambda" && parts.len() > 1;
            if !part.is_empty() && !part.chars().all(|c| c.is_ascii_digit()) && !synthetic {
                segs.push(part);
            }
        }
    }
    let synthetic = ["invoke", "run", "accept", "apply", "call", "get", "test"];
    if segs.len() >= 2
        && synthetic.contains(&segs[segs.len() - 1])
        && raw.contains('$')
        && segs[segs.len() - 2].starts_with(|c: char| c.is_ascii_lowercase())
    {
        segs.pop();
    }
    segs.join(".")
}

/// A Swift or Objective-C crash frame's function as a dotted name: `closure #1 in
/// Store.put(_:value:)` gives `Store.put`, `-[AppDelegate application:didFinish:]` gives
/// `AppDelegate.application`.
fn apple_function(f: &str) -> String {
    let f = f.trim();
    let f = f.rsplit_once(" in ").map_or(f, |(_, name)| name);
    if let Some(inner) = f.strip_prefix("-[").or_else(|| f.strip_prefix("+[")) {
        let inner = inner.trim_end_matches(']');
        let (class, selector) = inner.split_once(' ').unwrap_or((inner, ""));
        let method = selector.split(':').next().unwrap_or("");
        return if method.is_empty() {
            class.to_string()
        } else {
            format!("{class}.{method}")
        };
    }
    f.split_once('(').map_or(f, |(name, _)| name).to_string()
}

/// `text` without terminal colour and cursor codes (`\x1b[31m`): a log copied from a terminal
/// keeps them, and they would stick to the paths they colour.
fn without_ansi(text: &str) -> std::borrow::Cow<'_, str> {
    static R: OnceLock<Regex> = OnceLock::new();
    re(&R, r"\x1b\[[0-9;?]*[A-Za-z]").replace_all(text, "")
}

/// Whether `line` is a stack frame of one of the kinds [`Goal::parse`] reads (a report that
/// starts with one has no title of its own).
pub(crate) fn is_frame_line(line: &str) -> bool {
    let line = line.trim_end();
    [
        python_frame(),
        js_frame(),
        gecko_frame(),
        java_frame(),
        ruby_frame(),
        php_frame(),
        dotnet_frame(),
        native_frame(),
        swift_frame(),
        arrow_location(),
    ]
    .iter()
    .any(|r| r.is_match(line))
        || panic_line().is_match(line)
}

/// Extensions of C and C++ sources, as a regex alternation.
const C_EXTENSIONS: &str = "c|h|cc|cpp|cxx|hpp|hh|hxx|inl";

/// A C or C++ frame of AddressSanitizer (`#0 0x4f3c2a in json_parse /src/lib/json.c:412:15`),
/// gdb (`#1  0x0000555555555169 in parse (p=0x0) at src/json.c:412`) or Valgrind
/// (`==12== at 0x4C2E0F: parse (json.c:412)`, `by 0x...`): function, file, line.
fn native_frame() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re_made(&R, || {
        let file = format!(r"(?:[A-Za-z]:)?[^\s:()]+\.(?:{C_EXTENSIONS})");
        format!(
            r"(?m)^[ \t]*(?:#\d+[ \t]+(?:0x[0-9a-fA-F]+ in )?([\w:~<>,* ]+?)(?: ?\([^\n]*?\))? (?:at )?({file}):(\d+)|(?:==\d+==)?[ \t]*(?:at|by) 0x[0-9a-fA-F]+: ([\w:~<>,* ]+?)(?: \([^\n]*?\))? \(({file}):(\d+)\))"
        )
    })
}

patterns! {
    /// Where PHP says an error happened: `... in /var/www/src/Router.php:14` or `... in
    /// /var/www/src/Router.php on line 14`.
    php_location = r"\bin (\S+\.php)(?::(\d+)| on line (\d+))";

    /// PHP's error line: `PHP Fatal error:  Uncaught TypeError: App\Router::add(): Argument ...`.
    php_error = r"(?m)^(?:PHP )?(?:Fatal error|Parse error|Warning|Notice|Deprecated):\s+(?:Uncaught )?(.+)$";
}

/// A Ruby or PHP frame's function as a path of names: `Acme::Client#get` and
/// `App\Http\Router->add` give `Acme::Client::get` and `App::Http::Router::add`; Ruby's
/// `block (2 levels) in call` gives `call`.
fn scripted_function(f: &str) -> String {
    let f = f.trim();
    let f = match f.strip_prefix("block ") {
        Some(rest) => rest.rsplit_once("in ").map_or(rest, |(_, name)| name),
        None => f,
    };
    let f = f.replace('\\', "::").replace("->", "::").replace('#', "::");
    if f.contains("::") {
        f.replace('.', "::")
    } else {
        f
    }
}

/// Files (cleaned, `/`-separated) of Ruby's own library (`/usr/lib/ruby/3.2.0/json/common.rb`,
/// `<internal:kernel>`), whose frames say nothing about the project. Installed gems and
/// Composer packages may be the repository itself: `mentions` tells, by its manifests.
fn library_file(file: &str) -> bool {
    file.starts_with("<internal:") || (file.contains("/lib/ruby/") && !file.contains("/gems/"))
}

/// Functions of the standard libraries and runtimes of Rust, Java and Go, whose frames say
/// nothing about the project (Node's own frames are told by their file: `node:internal/...`).
const RUST_RUNTIME: &[&str] = &[
    "std::",
    "core::",
    "alloc::",
    "tokio::runtime",
    "__rust",
    "rust_",
];
const JAVA_RUNTIME: &[&str] = &["java.", "javax.", "jdk.", "sun.", "kotlin.", "scala."];
const GO_RUNTIME: &[&str] = &["runtime.", "testing.", "reflect.", "sync.", "net/http."];

/// Whether a Go frame is the standard library's: its import path has no domain
/// (`encoding/json`, not `github.com/acme/tool`), is not `main`, and its file lies under a
/// `src/` folder of that path (`/usr/local/go/src/encoding/json/decode.go`), so a repository's
/// own `internal/json/decode.go` is not blamed for a failure inside `encoding/json`.
fn go_standard_library(function: &str, file: &str) -> bool {
    let (dir, tail) = function.rsplit_once('/').unwrap_or(("", function));
    let name = tail.split('.').next().unwrap_or(tail);
    let package = if dir.is_empty() {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    };
    let first = package.split('/').next().unwrap_or_default();
    package != "main"
        && !first.contains('.')
        && file
            .replace('\\', "/")
            .contains(&format!("/src/{package}/"))
}

fn starts_with_any(s: &str, prefixes: &[&str]) -> bool {
    prefixes.iter().any(|p| s.starts_with(p))
}

patterns! {
    /// A compiler location: `  --> src/main.rs:4:5`.
    arrow_location = r"(?m)^\s*--> ([^\s:]+):(\d+)";

    /// `TypeError: ...`, `click.exceptions.UsageError: ...`, `error[E0599]: ...`, `Error: ...`.
    error_line = r"(?m)^\s*((?:[A-Za-z_]\w*\.)+[A-Z]\w*|[A-Z]\w*(?:Error|Exception|Warning|Exit|Interrupt|Abort|Iteration)|Error|Exception|error(?:\[E\d+\])?): (.+)$";

    fence = r"(?s)```[^\n`]*\n(.*?)```";

    backticks = r"`([^`\n]{1,120})`";

    /// The first line of a code block naming the file it is: `# app.py`, `// main.rs`.
    file_header = r"^\s*(?:#|//|--|;|/\*|<!--)\s*([\w.-]+\.[A-Za-z]{1,5})\s*(?:\*/|-->)?\s*$";
}

/// A source path's pattern, without a word boundary at its end: at least one `/` or a known
/// extension.
fn path_pattern() -> String {
    format!(
        r"(?:[A-Za-z]:)?[\w.~/\\-]*[\w-]+\.(?:{})",
        EXTENSIONS.join("|")
    )
}

/// A source path with a line (and maybe a column): `src/scanners.rs:897:5`.
fn located_path() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re_made(&R, || format!(r"({}):(\d+)(?::\d+)?\b", path_pattern()))
}

/// A source path: at least one `/` or a known extension.
fn path_token() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re_made(&R, || format!(r"{}\b", path_pattern()))
}

patterns! {
    /// `a.b.c` or `a::b::c` (two segments or more).
    qualified_token = r"\b[A-Za-z_]\w*(?:(?:\.|::)[A-Za-z_]\w*)+(?:\(\))?";

    url = r"\b(?:https?|ftp)://\S+";

    /// A name a goal gives by its kind: "the echo function", "the serve functions", "the
    /// Executor trait".
    kind_named = r"\b[Tt]he ([A-Za-z_][A-Za-z0-9_]*) (?:function|method|class|decorator|macro|trait|struct|enum)s?\b";
}

/// Words that say which kind of function a goal means, not its name ("the helper function").
#[rustfmt::skip]
const KIND_ADJECTIVES: &[&str] = &[
    "same", "new", "old", "main", "helper", "wrapper", "utility", "util", "internal", "public",
    "private", "base", "custom", "given", "following", "above", "below", "previous", "next",
    "first", "last", "other", "whole", "inner", "outer", "top", "builtin", "async", "sync",
    "static", "const", "abstract", "generic", "user", "test", "parent", "child", "original",
    "current", "existing", "corresponding", "relevant", "entire", "single", "actual", "real",
    "underlying", "callback", "handler", "factory", "derive", "proc", "attribute", "anonymous",
    "lambda", "closure", "error", "exception", "data", "config", "default", "standard",
];

/// `text` without its links: they name hosts and issue numbers, never the code; but a browser's
/// stack frame (`http://localhost:8080/src/lib/math.js:2:16`) names a source file and becomes
/// its path alone (so no other pattern reads the host or port as a folder).
pub(crate) fn without_links(text: &str) -> std::borrow::Cow<'_, str> {
    url().replace_all(text, |c: &regex::Captures| {
        if source_location().is_match(&c[0]) {
            clean_path(&c[0]).trim_start_matches('/').to_string()
        } else {
            " ".to_string()
        }
    })
}

/// A URL that is a source file's line: `.../src/app.js:12` or `:12:5`, maybe in parentheses.
fn source_location() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re_made(&R, || {
        format!(r"\.(?:{JS_EXTENSIONS}|py|rs|go|java|kt|rb|php):\d+(?::\d+)?\)?$")
    })
}

patterns! {
    word_token = r"\b[A-Za-z_][A-Za-z0-9_]*\b";
}

/// Whether a bare word looks like an identifier rather than English: snake_case, an inner
/// capital (`CamelCase`, `parseArgs`), or letters ending in three digits or more.
fn looks_like_code(w: &str) -> bool {
    let inner_upper = w.chars().skip(1).any(|c| c.is_ascii_uppercase())
        && w.chars().any(|c| c.is_ascii_lowercase());
    // A generated or numbered name (`h36999`, `sha256`, `x509`), not a protocol or type word
    // (`http2`, `python3`, `u32`) that prose uses as a word.
    let trailing_digits = w.len() - w.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let letters_then_digits = trailing_digits >= 3 && w.chars().any(|c| c.is_ascii_alphabetic());
    (w.contains('_') && w.trim_matches('_').len() > 1) || inner_upper || letters_then_digits
}

/// What a goal's `text` spells that a program would hold as a string literal: long options
/// anywhere, and (with `as_code`, for backticks, code blocks and error lines) kebab-case names
/// and message codes. A token is a run of letters, digits, `_`, `-`, `.` and `/`: one holding
/// a `/` or a `.` is a path or a version (`site-packages/`, `utf-8.txt`), not a name.
fn literal_tokens(text: &str, as_code: bool) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || "_-./".contains(c)))
        .filter(|t| !t.contains(['/', '.']))
        .filter_map(move |t| {
            if let Some(name) = t.strip_prefix("--") {
                return dashed_name(name).then(|| t.to_string());
            }
            if !as_code {
                return None;
            }
            // One to three capitals, then three or four digits.
            let letters = t.chars().take_while(char::is_ascii_uppercase).count();
            let digits = &t[letters..];
            let code = (1..=3).contains(&letters)
                && (3..=4).contains(&digits.len())
                && digits.bytes().all(|b| b.is_ascii_digit());
            let kebab = t.contains('-') && t.len() >= KEBAB_MIN_LEN && dashed_name(t);
            (code || kebab).then(|| t.to_string())
        })
}

/// `setup-show`, `notes`: lower-case words joined by single dashes, the first starting with a
/// letter, one word at least three letters long.
fn dashed_name(name: &str) -> bool {
    let lower = |p: &&str| p.chars().all(|c| c.is_ascii_lowercase());
    let parts: Vec<&str> = name.split('-').collect();
    parts.iter().all(|p| {
        !p.is_empty()
            && p.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
    }) && parts[0].starts_with(|c: char| c.is_ascii_lowercase())
        && parts.iter().any(|p| p.len() >= 3 && lower(p))
}

/// Kebab-case names shorter than this (`utf-8`, `x-y`) say too little to look up.
const KEBAB_MIN_LEN: usize = 6;

/// How many trailing segments of a path in a goal count as words of its clues.
const PATH_CLUE_SEGMENTS: usize = 3;

/// File extensions that make `a.b` a path, not a dotted name.
const EXTENSIONS: &[&str] = &[
    "py", "pyi", "rs", "js", "jsx", "mjs", "cjs", "ts", "tsx", "mts", "cts", "go", "java", "kt",
    "scala", "c", "h", "cc", "cpp", "hpp", "rb", "php", "cs", "swift", "sh", "toml", "cfg", "ini",
    "yaml", "yml", "json", "md", "markdown", "rst", "txt", "html", "css",
];

/// `text` without the numbered frame lines of a Rust backtrace whose function is the runtime's
/// or the standard library's ([`RUST_RUNTIME`]), each with its `at` line when it has one.
fn without_runtime_frames(text: &str) -> std::borrow::Cow<'_, str> {
    let runtime = |line: &str| {
        let t = line.trim_start();
        let Some((n, f)) = t.split_once(':') else {
            return false;
        };
        let f = f.trim_start();
        let f = f
            .strip_prefix("0x")
            .and_then(|r| r.split_once(" - "))
            .map_or(f, |(_, name)| name);
        !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) && starts_with_any(f, RUST_RUNTIME)
    };
    if !text.lines().any(runtime) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut after_runtime = false;
    for line in text.lines() {
        if runtime(line) {
            after_runtime = true;
            continue;
        }
        if std::mem::take(&mut after_runtime) && line.trim_start().starts_with("at ") {
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    std::borrow::Cow::Owned(out)
}

/// Extensions of files that hold no code: the stem of such a file's name (`change_list` of
/// `change_list.html`) names a template or a page, not a function or a class.
const DOCUMENT_EXTENSIONS: &[&str] = &[
    "html", "htm", "css", "md", "markdown", "rst", "txt", "json", "yaml", "yml", "toml", "cfg",
    "ini", "xml", "svg", "csv",
];

/// Whether the word of `text` ending at `end` is the stem of a file name with one of the
/// [`DOCUMENT_EXTENSIONS`] (`.html` follows it, and no word character after that).
fn names_a_document(text: &str, end: usize) -> bool {
    let Some(after) = text[end..].strip_prefix('.') else {
        return false;
    };
    let ext: String = after
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    DOCUMENT_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str())
}

/// Pushes `s` (trimmed) onto `v` unless empty or already there; `seen` holds what `v` holds, so
/// a goal of 100,000 distinct words is parsed in linear time (a scan of `v` per word took 42 s
/// for a 1.6 MB goal).
fn push_unique(v: &mut Vec<String>, seen: &mut HashSet<String>, s: &str) {
    let s = s.trim();
    if !s.is_empty() && !seen.contains(s) {
        seen.insert(s.to_string());
        v.push(s.to_string());
    }
}

/// Strips a path to the part that can name a repository file: no URL scheme (`file://`,
/// `webpack://`) or web origin (`http://localhost:8080`), no drive, no `./`, forward slashes
/// only.
fn clean_path(p: &str) -> String {
    let p = p.replace('\\', "/");
    let p = match p.split_once("://") {
        Some((scheme, rest))
            if !scheme.is_empty()
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c)) =>
        {
            if scheme.starts_with("http") {
                rest.split_once('/')
                    .map_or("", |(_, path)| path)
                    .to_string()
            } else {
                rest.to_string()
            }
        }
        _ => p,
    };
    let p = p.replace("/./", "/");
    let p = p
        .split_once(':')
        .filter(|(d, _)| d.len() == 1)
        .map_or(p.as_str(), |(_, r)| r);
    p.trim_start_matches("./").to_string()
}

/// The last segment of a Rust function path, generics dropped:
/// `hyper::proto::h1::conn::Conn<I,B,T>::poll_read` gives its segments
/// `[hyper, proto, h1, conn, Conn, poll_read]`.
fn rust_path_segments(f: &str) -> Vec<String> {
    let mut depth = 0;
    let mut plain = String::new();
    for c in f.chars() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            _ if depth == 0 => plain.push(c),
            _ => {}
        }
    }
    plain
        .split("::")
        .map(|s| s.trim().trim_start_matches('{').trim_end_matches('}'))
        .filter(|s| !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_'))
        .map(String::from)
        .collect()
}

impl Goal {
    /// Reads the clues out of `text`.
    ///
    /// ```
    /// use navigator_context::Goal;
    /// let g = Goal::parse("Traceback (most recent call last):\n  File \"/env/click/core.py\", line 12, in invoke\nTypeError: bad");
    /// assert_eq!(g.frames[0].function.as_deref(), Some("invoke"));
    /// assert_eq!(g.paths, ["/env/click/core.py"]);
    /// assert_eq!(g.errors, ["TypeError: bad"]);
    /// ```
    pub fn parse(text: &str) -> Goal {
        let mut g = Goal::default();
        let (mut seen_errors, mut seen_paths, mut seen_ids) =
            (HashSet::new(), HashSet::new(), HashSet::new());
        // Files of frames dropped as the language runtime's or standard library's.
        let mut outside: HashSet<String> = HashSet::new();
        let text = without_ansi(text);
        let text = without_links(&text);
        let text = text.as_ref();
        let mut rest = text.to_string();
        let mut seen_literals = HashSet::new();
        for c in fence().captures_iter(text) {
            g.code.push(c[1].to_string());
            let first = c[1].lines().next().unwrap_or("");
            if let Some(h) = file_header().captures(first) {
                g.user_files.push(h[1].to_string());
            }
        }
        for c in python_frame().captures_iter(text) {
            g.frames.push(Frame {
                kind: FrameKind::Python,
                file: clean_path(&c[1]),
                line: c[2].parse().ok(),
                function: c.get(3).map(|m| m.as_str().to_string()),
            });
        }
        for c in panic_line().captures_iter(text) {
            g.frames.push(Frame {
                kind: FrameKind::Panic,
                file: clean_path(&c[2]),
                line: c[3].parse().ok(),
                function: None,
            });
            // Rust 1.73+ puts the message on the line after the location.
            let next_line = || {
                text[c.get(0).map_or(0, |m| m.end())..]
                    .lines()
                    .map(str::trim)
                    .find(|l| !l.is_empty())
                    .unwrap_or("")
            };
            let message = match (c.get(1), c[4].trim()) {
                (Some(m), _) => m.as_str(),
                (None, "") => next_line(),
                (None, rest) => rest,
            };
            if !message.is_empty() {
                push_unique(
                    &mut g.errors,
                    &mut seen_errors,
                    &format!("panic: {message}"),
                );
            }
        }
        for c in backtrace_frame().captures_iter(text) {
            let function = c[1].split_whitespace().collect::<String>();
            if !starts_with_any(&function, RUST_RUNTIME) {
                g.frames.push(Frame {
                    kind: FrameKind::Backtrace,
                    file: clean_path(&c[2]),
                    line: c[3].parse().ok(),
                    function: Some(function),
                });
            }
        }
        for c in js_frame().captures_iter(text) {
            // An accessor's frame names `Object.set status`: the function is `Object.status`.
            let function = c.get(1).map(|m| {
                let name = m.as_str();
                let (owner, last) = name.rsplit_once('.').map_or(("", name), |(o, l)| (o, l));
                let last = last
                    .strip_prefix("get ")
                    .or_else(|| last.strip_prefix("set "))
                    .unwrap_or(last);
                match owner {
                    "" => last.to_string(),
                    _ => format!("{owner}.{last}"),
                }
            });
            if !(c[2].starts_with("node:") || c[2].starts_with("internal/")) {
                g.frames.push(Frame {
                    kind: FrameKind::Stack,
                    file: clean_path(&c[2]),
                    line: c[3].parse().ok(),
                    function: function.filter(|f| f != "<anonymous>"),
                });
            }
        }
        for c in gecko_frame().captures_iter(text) {
            // `async*load`, `list/<`: the name without the async marker and closure suffix.
            let function = c[1]
                .trim_start_matches("async*")
                .trim_end_matches(['/', '<'])
                .to_string();
            g.frames.push(Frame {
                kind: FrameKind::Stack,
                file: clean_path(&c[2]),
                line: c[3].parse().ok(),
                function: Some(function).filter(|f| !f.is_empty()),
            });
        }
        // A chained Java exception's root cause, after the last `Caused by:`, is where it
        // failed: its frames come first (innermost first within each part).
        let root_cause = text.rfind("Caused by:").unwrap_or(0);
        let mut java: Vec<(bool, Frame)> = Vec::new();
        for c in java_frame().captures_iter(text) {
            let function = jvm_function(&format!("{}{}", &c[1], &c[2]));
            if !starts_with_any(&function, JAVA_RUNTIME) {
                let cause = c.get(0).is_some_and(|m| m.start() >= root_cause);
                java.push((
                    !cause,
                    Frame {
                        kind: FrameKind::Stack,
                        file: java_path(&c[1], &c[3]),
                        line: c[4].parse().ok(),
                        function: Some(function),
                    },
                ));
            }
        }
        java.sort_by_key(|(outer, _)| *outer);
        g.frames.extend(java.into_iter().map(|(_, f)| f));
        for c in go_frame().captures_iter(text) {
            // `pkg/path/name.(*Type).Method`: the import path's last segment, the type, the
            // method.
            let tail = c[1].rsplit('/').next().unwrap_or(&c[1]);
            let function = tail.replace(['(', ')', '*'], "");
            if !starts_with_any(&c[1], GO_RUNTIME) && !go_standard_library(&c[1], &c[2]) {
                g.frames.push(Frame {
                    kind: FrameKind::Stack,
                    file: clean_path(&c[2]),
                    line: c[3].parse().ok(),
                    function: Some(function),
                });
            } else {
                outside.insert(clean_path(&c[2]));
            }
        }
        // PHP: where the error happened (its message says), then the stack, innermost first.
        let php_errors: Vec<String> = php_error()
            .captures_iter(text)
            .map(|c| c[1].trim().to_string())
            .collect();
        for message in &php_errors {
            for c in php_location().captures_iter(message) {
                let file = clean_path(&c[1]);
                if !library_file(&file) {
                    g.frames.push(Frame {
                        kind: FrameKind::Stack,
                        file,
                        line: c.get(2).or(c.get(3)).and_then(|m| m.as_str().parse().ok()),
                        function: None,
                    });
                }
            }
            let cut = php_location()
                .find(message)
                .map_or(message.len(), |m| m.start());
            push_unique(&mut g.errors, &mut seen_errors, message[..cut].trim());
        }
        // Ruby and PHP frames: file, line, function (`<main>` and the like are no function).
        for frame in [ruby_frame(), php_frame()] {
            for c in frame.captures_iter(text) {
                let file = clean_path(&c[1]);
                if library_file(&file) {
                    outside.insert(file);
                    continue;
                }
                g.frames.push(Frame {
                    kind: FrameKind::Stack,
                    file,
                    line: c[2].parse().ok(),
                    function: Some(scripted_function(&c[3])).filter(|f| !f.starts_with('<')),
                });
            }
        }
        for c in dotnet_frame().captures_iter(text) {
            let function = c[1].replace('+', ".");
            if !starts_with_any(&function, &["System.", "Microsoft."]) {
                g.frames.push(Frame {
                    kind: FrameKind::Stack,
                    file: clean_path(&c[2]),
                    line: c[3].parse().ok(),
                    function: Some(function),
                });
            }
        }
        for c in native_frame().captures_iter(text) {
            let (function, file, line) = match (c.get(2), c.get(5)) {
                (Some(file), _) => (c.get(1), file, c.get(3)),
                (None, Some(file)) => (c.get(4), file, c.get(6)),
                (None, None) => continue,
            };
            let file = clean_path(file.as_str());
            // The C library's and the compiler runtime's own sources.
            if file.starts_with("/usr/") || file.contains("/sanitizer_common/") {
                outside.insert(file);
                continue;
            }
            g.frames.push(Frame {
                kind: FrameKind::Stack,
                file,
                line: line.and_then(|l| l.as_str().parse().ok()),
                function: function
                    .map(|f| f.as_str().trim().to_string())
                    .filter(|f| !f.is_empty() && f != "main" && f != "??"),
            });
        }
        for c in swift_trap().captures_iter(text) {
            let (Some(file), Some(line)) = (c.get(1).or(c.get(3)), c.get(2).or(c.get(4))) else {
                continue;
            };
            g.frames.push(Frame {
                kind: FrameKind::Stack,
                file: clean_path(file.as_str()),
                line: line.as_str().parse().ok(),
                function: None,
            });
        }
        for c in swift_frame().captures_iter(text) {
            g.frames.push(Frame {
                kind: FrameKind::Stack,
                file: clean_path(&c[2]),
                line: c[3].parse().ok(),
                function: Some(apple_function(&c[1])).filter(|f| !f.is_empty() && f != "main"),
            });
        }
        for c in arrow_location().captures_iter(text) {
            g.frames.push(Frame {
                kind: FrameKind::Compiler,
                file: clean_path(&c[1]),
                line: c[2].parse().ok(),
                function: None,
            });
        }
        // Bare locations, where no trace gave the same file and line already.
        let mut seen_frames: HashSet<(String, Option<u32>)> =
            g.frames.iter().map(|f| (f.file.clone(), f.line)).collect();
        // A trace's own lines (kept above, or dropped as the toolchain's) are not bare.
        let bare_lines = text.lines().filter(|l| {
            let t = l.trim();
            !(is_frame_line(l) || t.starts_with("at ") || t.contains(" +0x"))
        });
        for c in bare_lines.flat_map(|l| located_path().captures_iter(l)) {
            let file = clean_path(&c[1]);
            let line = c[2].parse().ok();
            if seen_frames.insert((file.clone(), line)) {
                g.frames.push(Frame {
                    kind: FrameKind::Location,
                    file,
                    line,
                    function: None,
                });
            }
        }
        for c in error_line().captures_iter(text) {
            push_unique(
                &mut g.errors,
                &mut seen_errors,
                &format!("{}: {}", &c[1], c[2].trim()),
            );
        }
        // A Rust backtrace's runtime frames (`core::panicking::panic_fmt`, with or without
        // their `at /rustc/...` lines) say nothing of the repository: no clue is read from them
        // (the `fmt` of `panic_fmt` chose a `Debug` impl over the function that panicked).
        let cleaned = without_runtime_frames(text);
        let text: &str = &cleaned;
        rest = without_runtime_frames(&rest).into_owned();
        // Prose: the text without code blocks, frame lines and error lines.
        for r in [
            fence(),
            python_frame(),
            backtrace_frame(),
            js_frame(),
            gecko_frame(),
            java_frame(),
            go_frame(),
            ruby_frame(),
            php_frame(),
            php_error(),
            dotnet_frame(),
            native_frame(),
            swift_frame(),
            arrow_location(),
        ] {
            rest = r.replace_all(&rest, " ").into_owned();
        }
        rest = error_line().replace_all(&rest, " ").into_owned();
        // A script run as `python app.py` is the reporter's: its frame is `in <module>`.
        let scripts: Vec<String> = g
            .frames
            .iter()
            .filter(|f| f.kind == FrameKind::Python && f.function.as_deref() == Some("<module>"))
            .filter(|f| !f.file.contains('/'))
            .map(|f| f.file.clone())
            .collect();
        for s in scripts {
            if !g.user_files.contains(&s) {
                g.user_files.push(s);
            }
        }
        for f in &g.frames {
            if !g.names_user_file(&f.file) {
                push_unique(&mut g.paths, &mut seen_paths, &f.file);
            }
            if let Some(func) = &f.function {
                let segs = if func.contains("::") {
                    rust_path_segments(func)
                } else {
                    func.split('.').map(String::from).collect()
                };
                if let Some(last) = segs.last().filter(|s| !s.starts_with('<')) {
                    push_unique(&mut g.identifiers, &mut seen_ids, last);
                }
                if segs.len() > 1 {
                    g.qualified.push(segs);
                }
            }
        }
        // Clues written inline: backticks, paths, qualified names, identifier-shaped words,
        // over the whole text (code blocks and errors included, which are full of them).
        let ticked: Vec<String> = backticks()
            .captures_iter(text)
            .map(|c| c[1].trim().to_string())
            .collect();
        let mut inline = ticked.clone();
        // The part of a frame's file after a version's `@` (`v0.10.2/internal/json/decode.go`
        // of `.../go-json@v0.10.2/internal/json/decode.go`) is that frame's, not a clue of its
        // own.
        for f in &g.frames {
            if let Some((_, versioned)) = f.file.rsplit_once('@') {
                outside.insert(versioned.to_string());
            }
        }
        for m in path_token().find_iter(text) {
            let path = clean_path(m.as_str());
            // The file of a frame dropped as the toolchain's is not a clue either, nor a file
            // of the reporter's.
            if !outside.contains(&path) && !g.names_user_file(&path) {
                push_unique(&mut g.paths, &mut seen_paths, &path);
            }
        }
        let mut seen_qualified: HashSet<Vec<String>> = g.qualified.iter().cloned().collect();
        for m in qualified_token().find_iter(text) {
            let s = m.as_str().trim_end_matches("()");
            let ext = s.rsplit('.').next().unwrap_or("");
            if s.contains("::") || !EXTENSIONS.contains(&ext) {
                let mut segs: Vec<String> = if s.contains("::") {
                    rust_path_segments(s)
                } else {
                    s.split('.').map(String::from).collect()
                };
                // `self.main` names a method, not a module.
                if matches!(
                    segs.first().map(String::as_str),
                    Some("self" | "cls" | "Self")
                ) {
                    segs.remove(0);
                }
                if segs.len() > 1 && !seen_qualified.contains(&segs) {
                    seen_qualified.insert(segs.clone());
                    if let Some(last) = segs.last() {
                        push_unique(&mut g.identifiers, &mut seen_ids, last);
                    }
                    g.qualified.push(segs);
                }
            }
        }
        let code_words = |text: &str| -> Vec<String> {
            word_token()
                .find_iter(text)
                .filter(|m| looks_like_code(m.as_str()) && !names_a_document(text, m.end()))
                .map(|m| m.as_str().to_string())
                .collect()
        };
        for code in g.code.iter().chain(g.errors.iter()) {
            inline.extend(code_words(code));
        }
        inline.extend(code_words(&rest));
        // A plain word the goal calls a function, a class, a trait: a name all the same.
        inline.extend(
            kind_named()
                .captures_iter(&rest)
                .map(|c| c[1].to_string())
                .filter(|w| !KIND_ADJECTIVES.contains(&w.to_ascii_lowercase().as_str())),
        );
        for s in inline {
            for m in word_token().find_iter(&s) {
                let w = m.as_str();
                if w.len() >= 3 && !EXTENSIONS.contains(&w) && !names_a_document(&s, m.end()) {
                    push_unique(&mut g.identifiers, &mut seen_ids, w);
                }
            }
        }
        let literals = literal_tokens(text, false)
            .chain(
                ticked
                    .iter()
                    .chain(&g.code)
                    .chain(&g.errors)
                    .flat_map(|t| literal_tokens(t, true)),
            )
            .collect::<Vec<_>>();
        for l in literals {
            push_unique(&mut g.literals, &mut seen_literals, &l);
        }
        g.prose = rest.split_whitespace().collect::<Vec<_>>().join(" ");
        g
    }

    /// Whether `path` is a bare name of one of the reporter's own files ([`Goal::user_files`]).
    pub fn names_user_file(&self, path: &str) -> bool {
        !path.contains('/') && self.user_files.iter().any(|u| u == path)
    }

    /// Whether the goal carries code clues beyond plain words: frames, errors, paths,
    /// qualified names or code blocks.
    pub fn has_clues(&self) -> bool {
        !(self.frames.is_empty()
            && self.errors.is_empty()
            && self.paths.is_empty()
            && self.qualified.is_empty()
            && self.code.is_empty())
    }

    /// Text made only of the clues (identifiers, qualified names, frames, errors), for the
    /// ranking's full weight; the prose gets less.
    pub fn clue_text(&self) -> String {
        let mut t: Vec<String> = self.identifiers.clone();
        t.extend(self.qualified.iter().map(|q| q.join(" ")));
        // A path's last segments name the file; the rest (`/home/ci/.cargo/registry/src/...`)
        // is the reporter's machine and would match unrelated paths.
        t.extend(self.paths.iter().map(|p| {
            let segs: Vec<&str> = p.split('/').filter(|s| !s.is_empty()).collect();
            segs[segs.len().saturating_sub(PATH_CLUE_SEGMENTS)..].join(" ")
        }));
        t.extend(self.errors.iter().cloned());
        t.join(" ")
    }
}

/// How many recent goals [`memo`] keeps.
const MEMO_GOALS: usize = 4;

/// `make(text)`, shared by every caller with the same `text` while it is among the last
/// [`MEMO_GOALS`] seen: one exploration reads its goal in the ranking, each zoom and each
/// render, and a pasted 1.6 MB log was parsed and stemmed dozens of times over.
pub(crate) fn memo<T: Send + Sync + 'static>(
    cell: &'static Mutex<Vec<(Arc<str>, Arc<T>)>>,
    text: &str,
    make: impl FnOnce(&str) -> T,
) -> Arc<T> {
    let lock = |c: &'static Mutex<_>| c.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((_, v)) = lock(cell).iter().find(|(k, _)| **k == *text) {
        return v.clone();
    }
    let made = Arc::new(make(text));
    let mut kept = lock(cell);
    if kept.len() >= MEMO_GOALS {
        kept.remove(0);
    }
    kept.push((Arc::from(text), made.clone()));
    made
}

impl Goal {
    /// [`Goal::parse`], shared among the callers that parse the same goal.
    pub(crate) fn shared(text: &str) -> Arc<Goal> {
        static PARSED: Mutex<Vec<(Arc<str>, Arc<Goal>)>> = Mutex::new(Vec::new());
        memo(&PARSED, text, Goal::parse)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PY: &str = r#"When I call the command with a default it crashes:

```python
@click.command()
@click.option("--n", default=my_default)
def cli(n): ...
```

Traceback (most recent call last):
  File "/home/me/app.py", line 8, in <module>
    cli()
  File "/home/me/.venv/lib/python3.12/site-packages/click/core.py", line 1157, in __call__
    return self.main(*args, **kwargs)
  File "/home/me/.venv/lib/python3.12/site-packages/click/types.py", line 88, in convert
    raise TypeError
click.exceptions.BadParameter: Invalid value for '--n'
"#;

    #[test]
    fn a_bare_error_line_is_an_error_message() {
        // What Go's cobra, Node and click print: it was read as prose, so the code holding
        // the message was never looked for.
        let g = Goal::parse(
            "Error: if any flags in the group [json yaml] are set none of the others can be",
        );
        assert_eq!(
            g.errors,
            ["Error: if any flags in the group [json yaml] are set none of the others can be"]
        );
        assert!(Goal::parse("Errors: two of them").errors.is_empty());
    }

    #[test]
    fn python_traceback_frames_errors_and_code() {
        let g = Goal::parse(PY);
        let files: Vec<&str> = g.frames.iter().map(|f| f.file.as_str()).collect();
        assert_eq!(
            files,
            [
                "/home/me/app.py",
                "/home/me/.venv/lib/python3.12/site-packages/click/core.py",
                "/home/me/.venv/lib/python3.12/site-packages/click/types.py"
            ]
        );
        assert_eq!(g.frames[1].line, Some(1157));
        assert_eq!(g.frames[1].function.as_deref(), Some("__call__"));
        assert_eq!(g.frames[2].function.as_deref(), Some("convert"));
        assert_eq!(
            g.errors,
            ["click.exceptions.BadParameter: Invalid value for '--n'"]
        );
        assert_eq!(g.code.len(), 1);
        assert!(g.identifiers.contains(&"my_default".to_string()), "{g:?}");
        assert!(g.identifiers.contains(&"convert".to_string()), "{g:?}");
        assert!(g.qualified.contains(&vec![
            "click".to_string(),
            "exceptions".into(),
            "BadParameter".into()
        ]));
        assert!(
            g.prose.contains("crashes") && !g.prose.contains("site-packages"),
            "{}",
            g.prose
        );
        assert!(g.has_clues());
    }

    #[test]
    fn rust_panic_old_and_new_formats() {
        let new = Goal::parse(
            "thread 'main' panicked at src/extract/query.rs:42:9:\ncalled `Option::unwrap()` on a `None` value",
        );
        assert_eq!(new.frames[0].file, "src/extract/query.rs");
        assert_eq!(new.frames[0].line, Some(42));
        assert_eq!(
            new.errors,
            ["panic: called `Option::unwrap()` on a `None` value"]
        );
        let old = Goal::parse(
            "thread 'tokio-runtime-worker' panicked at 'assertion failed: self.is_empty()', /root/.cargo/registry/src/hyper-0.14.2/src/proto/h1/io.rs:301:9",
        );
        assert_eq!(
            old.frames[0].file,
            "/root/.cargo/registry/src/hyper-0.14.2/src/proto/h1/io.rs"
        );
        assert_eq!(old.errors, ["panic: assertion failed: self.is_empty()"]);
        assert_eq!(old.frames[0].kind, FrameKind::Panic);
        // Only a path's last segments are words of the clues: the reporter's registry path
        // would match `io` and `src` everywhere.
        let clues = old.clue_text();
        assert!(clues.contains("proto h1 io.rs"), "{clues}");
        assert!(!clues.contains("registry"), "{clues}");
    }

    #[test]
    fn a_backtrace_frame_without_its_location_is_not_joined_to_the_next() {
        let g = Goal::parse(
            "thread 'main' panicked at src/hir/literal.rs:569:9:\nassertion failed: x\nstack backtrace:\n   2: regex_syntax::hir::literal::Extractor::cross\n             at ./src/hir/literal.rs:569:9\n   3: regex_syntax::hir::literal::Extractor::extract_concat\n   4: regex_syntax::hir::literal::Extractor::extract\n             at ./src/hir/literal.rs:171:5\n",
        );
        let functions: Vec<&str> = g
            .frames
            .iter()
            .filter(|f| f.kind == FrameKind::Backtrace)
            .filter_map(|f| f.function.as_deref())
            .collect();
        assert_eq!(
            functions,
            [
                "regex_syntax::hir::literal::Extractor::cross",
                "regex_syntax::hir::literal::Extractor::extract"
            ]
        );
        assert!(
            g.qualified
                .iter()
                .all(|q| q.iter().filter(|s| *s == "hir").count() == 1),
            "{:?}",
            g.qualified
        );
    }

    #[test]
    fn rust_backtrace_keeps_project_frames() {
        let g = Goal::parse(
            "stack backtrace:\n   0: std::panicking::begin_panic\n             at /rustc/abc/library/std/src/panicking.rs:616:12\n  12: hyper::proto::h1::conn::Conn<I,B,T>::poll_read_head\n             at ./src/proto/h1/conn.rs:210:24\n",
        );
        assert_eq!(g.frames.len(), 1, "{g:?}");
        assert_eq!(g.frames[0].file, "src/proto/h1/conn.rs");
        assert!(g.identifiers.contains(&"poll_read_head".to_string()));
        assert!(g.qualified.contains(&vec![
            "hyper".to_string(),
            "proto".into(),
            "h1".into(),
            "conn".into(),
            "Conn".into(),
            "poll_read_head".into()
        ]));
    }

    /// (file, line, function) of each frame of `g`.
    fn frames_of(g: &Goal) -> Vec<(&str, Option<u32>, Option<&str>)> {
        g.frames
            .iter()
            .map(|f| (f.file.as_str(), f.line, f.function.as_deref()))
            .collect()
    }

    #[test]
    fn ruby_and_php_stack_frames() {
        let rb = Goal::parse(
            "NoMethodError: undefined method `fetch' for nil:NilClass\n  /app/lib/acme/http_client.rb:42:in `get'\n  /usr/lib/ruby/3.2.0/json/common.rb:216:in `parse'\n  /app/vendor/bundle/ruby/3.2.0/gems/rack-2.2.3/lib/rack/builder.rb:9:in `call'\n  /app/lib/acme/api.rb:10:in `block (2 levels) in call'\n\tfrom lib/acme/cli.rb:7:in 'Acme::Cli#run'\n\tfrom bin/acme:3:in '<main>'\n",
        );
        assert_eq!(
            frames_of(&rb),
            [
                ("/app/lib/acme/http_client.rb", Some(42), Some("get")),
                (
                    "/app/vendor/bundle/ruby/3.2.0/gems/rack-2.2.3/lib/rack/builder.rb",
                    Some(9),
                    Some("call")
                ),
                ("/app/lib/acme/api.rb", Some(10), Some("call")),
                ("lib/acme/cli.rb", Some(7), Some("Acme::Cli::run")),
            ]
        );
        assert!(rb.frames.iter().all(|f| f.kind == FrameKind::Stack));
        assert_eq!(
            rb.errors,
            ["NoMethodError: undefined method `fetch' for nil:NilClass"]
        );
        assert!(rb
            .qualified
            .contains(&vec!["Acme".to_string(), "Cli".into(), "run".into()]));
        assert!(
            !rb.paths.iter().any(|p| p.contains("common.rb")),
            "the standard library's files are no clues: {:?}",
            rb.paths
        );
        assert!(!rb.prose.contains("http_client.rb"), "{}", rb.prose);

        let php = Goal::parse(
            "PHP Fatal error:  Uncaught TypeError: App\\Http\\Router::add(): Argument #1 ($path) must be of type string, null given in /var/www/src/Http/Router.php:14\nStack trace:\n#0 /var/www/vendor/slim/slim/App.php(90): App\\Http\\Kernel->boot()\n#1 /var/www/src/Kernel.php(31): App\\Http\\Router->add(NULL, Object(Closure))\n#2 /var/www/public/index.php(7): handle()\n#3 {main}\n  thrown in /var/www/src/Http/Router.php on line 14\n",
        );
        assert_eq!(
            frames_of(&php),
            [
                ("/var/www/src/Http/Router.php", Some(14), None),
                (
                    "/var/www/vendor/slim/slim/App.php",
                    Some(90),
                    Some("App::Http::Kernel::boot")
                ),
                (
                    "/var/www/src/Kernel.php",
                    Some(31),
                    Some("App::Http::Router::add")
                ),
                ("/var/www/public/index.php", Some(7), Some("handle")),
            ]
        );
        assert_eq!(
            php.errors,
            ["TypeError: App\\Http\\Router::add(): Argument #1 ($path) must be of type string, null given"]
        );
        assert!(php.identifiers.contains(&"add".to_string()), "{php:?}");
    }

    #[test]
    fn terminal_colours_are_not_part_of_a_frame() {
        let g = Goal::parse(
            "\x1b[31mNoMethodError\x1b[0m: undefined method\n\t\x1b[31m/home/u/shop/lib/shop/pricing.rb:37\x1b[0m:in 'apply_tax'\n",
        );
        assert_eq!(
            frames_of(&g),
            [(
                "/home/u/shop/lib/shop/pricing.rb",
                Some(37),
                Some("apply_tax")
            )]
        );
        assert!(is_frame_line("lib/shop/pricing.rb:37:in 'apply_tax'"));
        assert!(!is_frame_line("Fix the pricing of taxes"));
    }

    #[test]
    fn jvm_lambdas_stand_for_the_method_they_are_written_in() {
        assert_eq!(
            jvm_function("com.acme.Stack$onUpdate$1.invoke"),
            "com.acme.Stack.onUpdate"
        );
        assert_eq!(
            jvm_function("com.acme.Stack.lambda$onUpdate$0"),
            "com.acme.Stack.onUpdate"
        );
        assert_eq!(
            jvm_function("com.acme.Parser$Section.read"),
            "com.acme.Parser.Section.read"
        );
        assert_eq!(jvm_function("com.acme.Task.run"), "com.acme.Task.run");
        assert_eq!(
            jvm_function("com.amazonaws.services.lambda.runtime.Handler.handle"),
            "com.amazonaws.services.lambda.runtime.Handler.handle"
        );
        assert_eq!(
            jvm_function("com.acme.Task$Inner.run"),
            "com.acme.Task.Inner.run"
        );
        let g = Goal::parse("java.lang.IllegalStateException: boom\n\tat com.swm.rnscreens.ScreenStack$onUpdate$1.invoke(ScreenStack.kt:212)\n");
        assert!(
            g.identifiers.iter().any(|i| i == "onUpdate"),
            "{:?}",
            g.identifiers
        );
        assert_eq!(
            frames_of(&g)[0].2,
            Some("com.swm.rnscreens.ScreenStack.onUpdate")
        );
    }

    #[test]
    fn swift_traps_and_crash_report_frames() {
        let g = Goal::parse(
            "Crash when evicting\n\nFatal error: Unexpectedly found nil while unwrapping an Optional value: file Acme/Store.swift, line 42\n\nThread 0 Crashed:\n0   libswiftCore.dylib   0x00000001a2b3c4d5 $ss17_assertionFailure + 300\n1   Acme                 0x0000000100a3c1f4 closure #1 in Store.put(_:value:) + 120 (Store.swift:42)\n2   Acme                 0x0000000100a3c2a0 -[AppDelegate application:didFinishLaunchingWithOptions:] + 64 (AppDelegate.m:17)\n3   Acme                 0x0000000100a3c300 main + 12 (main.swift:3)\n",
        );
        assert_eq!(
            frames_of(&g),
            [
                ("Acme/Store.swift", Some(42), None),
                ("Store.swift", Some(42), Some("Store.put")),
                ("AppDelegate.m", Some(17), Some("AppDelegate.application")),
                ("main.swift", Some(3), None),
            ]
        );
        assert!(
            g.identifiers.iter().any(|i| i == "put"),
            "{:?}",
            g.identifiers
        );
        assert!(!g.prose.contains("0x0000000100a3c1f4"), "{}", g.prose);
        assert!(is_frame_line(
            "1   Acme   0x0000000100a3c1f4 Store.put(_:value:) + 120 (Store.swift:42)"
        ));
        // Swift 5.9 and later write the trap's place first; `precondition` and `assert`
        // trap the same way.
        let g = Goal::parse("Sources/Acme/Cache.swift:17: Fatal error: Index out of range\n");
        assert_eq!(
            frames_of(&g),
            [("Sources/Acme/Cache.swift", Some(17), None)]
        );
        let g = Goal::parse("Precondition failed: runtime lost: file Acme/App.swift, line 590\n");
        assert_eq!(frames_of(&g), [("Acme/App.swift", Some(590), None)]);
        let g = Goal::parse("Acme/App.swift:590: Assertion failed: runtime lost\n");
        assert_eq!(frames_of(&g), [("Acme/App.swift", Some(590), None)]);
        let g = Goal::parse("Assertion failed: file Acme/App.swift, line 7\n");
        assert_eq!(frames_of(&g), [("Acme/App.swift", Some(7), None)]);
    }

    #[test]
    fn dotnet_frames_with_their_source_lines() {
        let g = Goal::parse(
            "Unhandled exception. System.NullReferenceException: Object reference not set to an instance of an object.\n   at System.Collections.Generic.Dictionary`2.FindValue(TKey key)\n   at Acme.Config.Parser.Read(String path) in /src/Acme/Config/Parser.cs:line 42\n   at Acme.Program.Main(String[] args) in C:\\src\\Acme\\Program.cs:line 9\n",
        );
        assert_eq!(
            frames_of(&g),
            [
                (
                    "/src/Acme/Config/Parser.cs",
                    Some(42),
                    Some("Acme.Config.Parser.Read")
                ),
                ("/src/Acme/Program.cs", Some(9), Some("Acme.Program.Main")),
            ]
        );
        assert!(g.identifiers.contains(&"Read".to_string()), "{g:?}");
        assert!(!g.prose.contains("Parser.cs"), "{}", g.prose);
    }

    #[test]
    fn c_and_cpp_frames_of_sanitizers_gdb_and_valgrind() {
        let asan = Goal::parse(
            "==4242==ERROR: AddressSanitizer: heap-use-after-free on address 0x602000000010\nREAD of size 8 at 0x602000000010 thread T0\n    #0 0x4f3c2a in json_parse_value /src/lib/json.c:412:15\n    #1 0x4f1b10 in Parser::run(int) /src/lib/parser.cpp:88:3\n    #2 0x7f3b2a in __libc_start_main (/lib/x86_64-linux-gnu/libc.so.6+0x29d90)\n    #3 0x4f0a00 in main /src/tools/cli.c:9:1\n",
        );
        assert_eq!(
            frames_of(&asan),
            [
                ("/src/lib/json.c", Some(412), Some("json_parse_value")),
                ("/src/lib/parser.cpp", Some(88), Some("Parser::run")),
                ("/src/tools/cli.c", Some(9), None),
            ]
        );
        assert!(asan.identifiers.contains(&"json_parse_value".to_string()));
        let gdb = Goal::parse(
            "Program received signal SIGSEGV, Segmentation fault.\n#0  0x0000555555555169 in parse_value (p=0x0, depth=3) at src/json.c:412\n#1  0x00005555555551a0 in main () at src/cli.c:20\n#2  0x00007ffff7df0d90 in __libc_start_call_main (main=main@entry=0x5555) at ../sysdeps/nptl/libc_start_call_main.h:58\n",
        );
        assert_eq!(
            frames_of(&gdb)[..2],
            [
                ("src/json.c", Some(412), Some("parse_value")),
                ("src/cli.c", Some(20), None),
            ]
        );
        let windows = Goal::parse(
            "    #0 0x7ff6 in parse_value C:\\src\\json\\json.c:412\nC:\\app\\lib\\acme\\cli.rb:7:in 'Acme::Cli#run'\n",
        );
        assert_eq!(
            frames_of(&windows),
            [
                ("/app/lib/acme/cli.rb", Some(7), Some("Acme::Cli::run")),
                ("/src/json/json.c", Some(412), Some("parse_value")),
            ]
        );
        let valgrind = Goal::parse(
            "==12== Invalid read of size 4\n==12==    at 0x4C2E0F: parse_value (json.c:412)\n==12==    by 0x4005E8: main (cli.c:20)\n",
        );
        assert_eq!(
            frames_of(&valgrind),
            [
                ("json.c", Some(412), Some("parse_value")),
                ("cli.c", Some(20), None),
            ]
        );
        assert!(!valgrind.prose.contains("json.c"), "{}", valgrind.prose);
    }

    #[test]
    fn javascript_java_and_go_stack_frames() {
        let js = Goal::parse(
            "TypeError: Cannot read properties of undefined (reading 'port')\n    at Config.resolvePort (/app/src/config/resolve.ts:41:17)\n    at async loadConfig (file:///app/src/load.mjs:9:3)\n    at /app/src/index.js:3:1\n    at Module._compile (node:internal/modules/cjs/loader:1256:14)\n",
        );
        let frames = frames_of(&js);
        assert_eq!(
            frames,
            [
                (
                    "/app/src/config/resolve.ts",
                    Some(41),
                    Some("Config.resolvePort")
                ),
                ("/app/src/load.mjs", Some(9), Some("loadConfig")),
                ("/app/src/index.js", Some(3), None),
            ]
        );
        assert!(js.frames.iter().all(|f| f.kind == FrameKind::Stack));
        assert!(
            js.identifiers.contains(&"resolvePort".to_string()),
            "{js:?}"
        );
        assert!(!js.prose.contains("resolve.ts"), "{}", js.prose);
        // An accessor's frame (a setter that threw) is a frame of its own function.
        let setter = Goal::parse(
            "AssertionError [ERR_ASSERTION]: status code must be a number
    at Object.set status [as status] (/srv/api/node_modules/koa/lib/response.js:100:5)
    at set status (/srv/api/lib/proxy.js:7:3)
    at async Application.handleRequest (/srv/api/node_modules/koa/lib/application.js:172:7)
",
        );
        assert_eq!(
            frames_of(&setter),
            [
                (
                    "/srv/api/node_modules/koa/lib/response.js",
                    Some(100),
                    Some("Object.status")
                ),
                ("/srv/api/lib/proxy.js", Some(7), Some("status")),
                (
                    "/srv/api/node_modules/koa/lib/application.js",
                    Some(172),
                    Some("Application.handleRequest")
                ),
            ]
        );

        let firefox = Goal::parse(
            "TypeError: x is undefined\nsum@http://localhost:8080/src/lib/math.js:2:16\nasync*load@webpack:///./src/app.ts:9:3\n@file:///home/u/app/src/index.js:1:1\n",
        );
        let frames = frames_of(&firefox);
        assert_eq!(
            frames,
            [
                ("src/lib/math.js", Some(2), Some("sum")),
                ("/src/app.ts", Some(9), Some("load")),
                ("/home/u/app/src/index.js", Some(1), None),
            ]
        );
        assert!(!firefox.prose.contains("math.js"), "{}", firefox.prose);
        assert!(
            firefox.paths.iter().all(|p| !p.contains("8080")),
            "{:?}",
            firefox.paths
        );

        let java = Goal::parse(
            "Exception in thread \"main\" java.lang.NullPointerException\n\tat com.acme.config.Parser$Section.read(Parser.java:42)\n\tat com.acme.App.main(App.java:7)\n\tat java.base/java.lang.Thread.run(Thread.java:833)\n",
        );
        let files: Vec<&str> = java.frames.iter().map(|f| f.file.as_str()).collect();
        assert_eq!(files, ["com/acme/config/Parser.java", "com/acme/App.java"]);
        // A chained exception: the root cause's frames first.
        let chained = Goal::parse(
            "java.lang.RuntimeException: load failed\n\tat com.acme.App.main(App.java:7)\nCaused by: java.io.IOException: closed\n\tat com.acme.io.Reader.read(Reader.java:19)\n\tat com.acme.App.main(App.java:5)\n",
        );
        let files: Vec<&str> = chained.frames.iter().map(|f| f.file.as_str()).collect();
        assert_eq!(
            files,
            [
                "com/acme/io/Reader.java",
                "com/acme/App.java",
                "com/acme/App.java"
            ]
        );
        assert_eq!(java.frames[0].line, Some(42));
        assert!(java.identifiers.contains(&"read".to_string()), "{java:?}");
        assert!(java.qualified.iter().any(|q| q.ends_with(&[
            "Parser".to_string(),
            "Section".into(),
            "read".into()
        ])));

        let go = Goal::parse(
            "panic: runtime error: invalid memory address or nil pointer dereference\n\ngoroutine 1 [running]:\nencoding/json.(*decodeState).object(0xc0001)\n\t/usr/local/go/src/encoding/json/decode.go:612 +0x1d\ngithub.com/acme/tool/internal/config.(*Loader).Load(0xc000010000, {0x0, 0x0})\n\t/home/ci/tool/internal/config/loader.go:88 +0x2f\nmain.main()\n\t/home/ci/tool/main.go:12 +0x1d\nruntime.main()\n\t/usr/local/go/src/runtime/proc.go:250 +0x1c\n",
        );
        let frames: Vec<(&str, Option<&str>)> = go
            .frames
            .iter()
            .map(|f| (f.file.as_str(), f.function.as_deref()))
            .collect();
        assert_eq!(
            frames,
            [
                (
                    "/home/ci/tool/internal/config/loader.go",
                    Some("config.Loader.Load")
                ),
                ("/home/ci/tool/main.go", Some("main.main")),
            ]
        );
        assert!(go.identifiers.contains(&"Load".to_string()), "{go:?}");
        assert!(
            !go.paths.iter().any(|p| p.contains("encoding/json")),
            "{:?}",
            go.paths
        );
        assert!(super::go_standard_library(
            "net/textproto.(*Reader).ReadLine",
            "C:\\Program Files\\Go\\src\\net\\textproto\\reader.go"
        ));
        assert!(!super::go_standard_library(
            "myapp/internal/json.Decode",
            "/home/u/myapp/internal/json/decode.go"
        ));
    }

    #[test]
    fn the_memo_makes_a_value_once_while_its_text_is_among_the_recent_ones() {
        static CELL: Mutex<Vec<(Arc<str>, Arc<usize>)>> = Mutex::new(Vec::new());
        let made = std::sync::atomic::AtomicUsize::new(0);
        let make = |t: &str| {
            made.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            t.len()
        };
        let first = memo(&CELL, "goal one", make);
        assert!(Arc::ptr_eq(&first, &memo(&CELL, "goal one", make)));
        assert_eq!(made.load(std::sync::atomic::Ordering::SeqCst), 1);
        for k in 0..MEMO_GOALS {
            memo(&CELL, &format!("goal {k}0"), make);
        }
        // Pushed out by newer texts: made again.
        assert_eq!(*memo(&CELL, "goal one", make), 8);
        assert_eq!(
            made.load(std::sync::atomic::Ordering::SeqCst),
            MEMO_GOALS + 2
        );
        assert_eq!(*Goal::shared("Fix `x`"), Goal::parse("Fix `x`"));
    }

    #[test]
    fn compiler_errors_and_inline_code() {
        let g = Goal::parse(
            "error[E0277]: the trait bound `MyState: FromRef<AppState>` is not satisfied\n  --> src/main.rs:14:5\nUsing `axum::extract::State` with `Router::with_state`.",
        );
        assert_eq!(g.frames[0].file, "src/main.rs");
        assert!(g.errors[0].starts_with("error[E0277]: the trait bound"));
        assert!(g.identifiers.contains(&"FromRef".to_string()), "{g:?}");
        assert!(g.identifiers.contains(&"with_state".to_string()), "{g:?}");
        assert!(g
            .qualified
            .contains(&vec!["axum".to_string(), "extract".into(), "State".into()]));
    }

    #[test]
    fn options_kebab_names_and_message_codes_are_literals_and_the_reporters_files_no_paths() {
        let g = Goal::parse(
            "`--notes` misses tags with --setup-show, see the built-in help\n\n```python\n# app.py\nimport logging\n```\n\n```\n$ pylint --enable=duplicate-code app.py\napp.py:1:0: R0801: Similar lines (duplicate-code)\n  File \"/env/site-packages/_pytest/setuponly.py\", line 69\n```\n\nSetting `min-similarity-lines` to 0 -- or `utf-8` -- fails.",
        );
        assert_eq!(
            g.literals,
            [
                "--notes",
                "--setup-show",
                "--enable",
                "min-similarity-lines",
                "duplicate-code",
                "R0801"
            ],
            "no prose word (built-in), path (site-packages/) or short name (utf-8)"
        );
        // The code block headed `# app.py` is the reporter's file: no path of the repository.
        assert_eq!(g.user_files, ["app.py"]);
        assert!(g.names_user_file("app.py") && !g.names_user_file("src/flask/app.py"));
        assert!(!g.paths.iter().any(|p| p == "app.py"), "{:?}", g.paths);
        let script = Goal::parse(
            "Traceback (most recent call last):\n  File \"run.py\", line 3, in <module>\n    main()\n  File \"/env/flask/cli.py\", line 12, in main\nTypeError: bad",
        );
        assert_eq!(script.user_files, ["run.py"]);
        assert_eq!(script.paths, ["/env/flask/cli.py"]);
    }

    #[test]
    fn a_rust_backtrace_s_runtime_frames_give_no_clues() {
        let g = Goal::parse(
            "thread 'main' panicked at src/main.rs:18:29:\nInvalid route\nstack backtrace:\n   0: rust_begin_unwind\n   1: core::panicking::panic_fmt\n             at /rustc/90b35a623/library/core/src/panicking.rs:72:14\n   2: 0x55d0c1 - std::panicking::begin_panic_handler\n   3: axum::routing::Router<S>::nest\n             at axum/src/routing/mod.rs:234:9\n   4: server::main\n             at src/main.rs:18:29\n",
        );
        let said = format!("{:?} {:?} {:?}", g.identifiers, g.qualified, g.paths);
        for runtime in [
            "panic_fmt",
            "panicking",
            "begin_panic_handler",
            "rust_begin_unwind",
        ] {
            assert!(!said.contains(runtime), "{runtime}: {said}");
        }
        assert!(g.identifiers.contains(&"nest".to_string()), "{said}");
        assert!(
            g.paths.iter().any(|p| p == "axum/src/routing/mod.rs"),
            "{said}"
        );
        assert_eq!(g.errors, ["panic: Invalid route"]);
    }

    #[test]
    fn the_stem_of_a_template_or_page_name_is_no_identifier() {
        let g = Goal::parse(
            "The sidebar overlaps the table in change_list.html and `base_site.HTML`; see docs/release_notes.md",
        );
        assert!(g.paths.iter().any(|p| p == "change_list.html"), "{g:?}");
        assert!(
            !g.identifiers
                .iter()
                .any(|i| ["change_list", "base_site", "release_notes"].contains(&i.as_str())),
            "{:?}",
            g.identifiers
        );
        // A module's file name still gives its name, and so does a name before a method call.
        let g = Goal::parse("`model_utils.py` breaks; change_list.json_dumps() fails");
        assert!(g.identifiers.contains(&"model_utils".to_string()), "{g:?}");
        assert!(g.identifiers.contains(&"change_list".to_string()), "{g:?}");
    }

    #[test]
    fn a_commit_subject_has_words_but_no_clues() {
        let g = Goal::parse("Add support for multiple values in the option parser");
        assert!(!g.has_clues());
        assert!(g.identifiers.is_empty());
        assert_eq!(
            g.prose,
            "Add support for multiple values in the option parser"
        );
        // Paths and dotted names are clues; a file extension is not a dotted name.
        let g = Goal::parse("Speed up attr.s on slotted classes in src/attr/_make.py");
        assert_eq!(g.paths, ["src/attr/_make.py"]);
        assert_eq!(g.qualified, vec![vec!["attr".to_string(), "s".into()]]);
        // Letters ending in three digits or more spell a name; words like `http2` and numbers
        // do not.
        let g = Goal::parse("h39999 returns 12 for sha256 input on http2, python3 and 64-bit");
        assert_eq!(g.identifiers, ["h39999", "sha256"]);
        // A plain word the goal calls a function or a trait is a name; the kind of function
        // it means is not.
        let g = Goal::parse("Made the echo function accept bytes; the Executor trait too");
        assert_eq!(g.identifiers, ["echo", "Executor"]);
        let g = Goal::parse("Move the helper function and the same method into the class");
        assert!(g.identifiers.is_empty(), "{:?}", g.identifiers);
        // A location written bare is a frame of its own, not one more of a trace's.
        let g = Goal::parse("Wrong output from src/scanners.rs:897:5 and httpx/_urlparse.py:410");
        let at: Vec<(FrameKind, &str, Option<u32>)> = g
            .frames
            .iter()
            .map(|f| (f.kind, f.file.as_str(), f.line))
            .collect();
        assert_eq!(
            at,
            [
                (FrameKind::Location, "src/scanners.rs", Some(897)),
                (FrameKind::Location, "httpx/_urlparse.py", Some(410))
            ]
        );
        let g =
            Goal::parse("thread 'main' panicked at src/main.rs:4:5:\nboom\n  --> src/lib.rs:9:1");
        assert!(
            g.frames.iter().all(|f| f.kind != FrameKind::Location),
            "{:?}",
            g.frames
        );
        // Documents and other languages' files are paths too.
        let g = Goal::parse("Fix the typo in docs/options.md and README.rst, see load.mjs");
        assert_eq!(g.paths, ["docs/options.md", "README.rst", "load.mjs"]);
    }
}
