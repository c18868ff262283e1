//! Outlines: the items of a source file (signatures, nesting, doc comments) from tree-sitter.

use crate::lang::{Lang, NodeRole};
use serde::{Deserialize, Serialize};
use tree_sitter::{Node, Parser};

/// Longest signature or doc line kept, in bytes; long ones are cut at a char boundary.
const MAX_LINE: usize = 200;
/// Deepest nesting outlined; deeper items are rarely worth their tokens in a map.
pub(crate) const MAX_DEPTH: usize = 3;

/// One item of an outline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Symbol {
    /// 0 for top-level items, 1 for items inside them, ...
    pub depth: u8,
    /// The item's name (empty when the grammar gives none).
    pub name: String,
    /// The declaration up to its body, whitespace collapsed to single spaces.
    pub signature: String,
    /// The doc comment (or Python docstring), markers stripped, first lines only.
    pub doc: Option<String>,
    /// 1-based line of the item.
    pub line: u32,
    /// 1-based last line of the item (its body included).
    #[serde(default)]
    pub end_line: u32,
}

/// The items of one file, in source order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outline {
    /// Items in source order.
    pub symbols: Vec<Symbol>,
    /// Whether tree-sitter hit syntax errors (the outline holds what it recovered).
    pub partial: bool,
}

/// Outlines `source` written in `lang`; `None` when tree-sitter cannot parse it at all.
///
/// ```
/// use navigator_context::{outline, Lang};
/// let o = outline(Lang::Rust, "/// Adds.\npub fn add(a: i32) -> i32 { a }").unwrap();
/// assert_eq!(o.symbols[0].signature, "pub fn add(a: i32) -> i32");
/// assert_eq!(o.symbols[0].doc.as_deref(), Some("Adds."));
/// ```
pub fn outline(lang: Lang, source: &str) -> Option<Outline> {
    let mut parser = Parser::new();
    parser.set_language(&lang.grammar()).ok()?;
    let tree = parser.parse(source, None)?;
    let root = tree.root_node();
    let mut symbols = Vec::new();
    visit(lang, source, root, 0, &mut symbols);
    Some(Outline {
        symbols,
        partial: root.has_error(),
    })
}

fn visit(lang: Lang, src: &str, node: Node, depth: usize, out: &mut Vec<Symbol>) {
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        match lang.role(child.kind()) {
            NodeRole::Item { container } => {
                out.push(symbol(lang, src, child, depth));
                if container && depth + 1 < MAX_DEPTH {
                    let body = child.child_by_field_name("body").unwrap_or(child);
                    visit(lang, src, body, depth + 1, out);
                }
            }
            NodeRole::Transparent => visit(lang, src, child, depth, out),
            NodeRole::Skip => {}
        }
    }
}

/// Where a Ruby declaration ends: after its name, parameters, superclass or the object of
/// `class << self`. Ruby has no braces, and a body (or an endless method's `= expr`) may
/// follow on the same line, or comments before the body on the next lines.
fn ruby_head_end(node: Node) -> Option<usize> {
    ["name", "parameters", "superclass", "value"]
        .iter()
        .filter_map(|f| node.child_by_field_name(f))
        .map(|n| n.end_byte())
        .max()
}

fn symbol(lang: Lang, src: &str, node: Node, depth: usize) -> Symbol {
    let text = &src[node.byte_range()];
    let ruby_head = (lang == Lang::Ruby).then(|| ruby_head_end(node)).flatten();
    let head = match (ruby_head, node.child_by_field_name("body")) {
        (Some(end), _) => &src[node.start_byte()..end],
        (None, Some(body)) if body.start_byte() > node.start_byte() => {
            &src[node.start_byte()..body.start_byte()]
        }
        // Without a body field the first line is the declaration; a one-line body is cut off.
        _ => {
            let line = text.lines().next().unwrap_or("");
            line.split_once('{').map_or(line, |(h, _)| h)
        }
    };
    let head = head.trim_end().trim_end_matches('{').trim_end_matches(':');
    let name = node
        .child_by_field_name("name")
        .map(|n| src[n.byte_range()].to_string())
        .unwrap_or_default();
    let doc = python_docstring(lang, src, node).or_else(|| leading_comment(lang, src, node));
    Symbol {
        depth: depth as u8,
        name,
        signature: clip(&collapse_ws(head)),
        doc,
        line: node.start_position().row as u32 + 1,
        end_line: end_row(node) as u32 + 1,
    }
}

/// The last row holding the item's text: a node ending at column 0 ends on the row before.
fn end_row(node: Node) -> usize {
    let end = node.end_position();
    if end.column == 0 && end.row > node.start_position().row {
        end.row - 1
    } else {
        end.row
    }
}

/// Comments directly above the item (attributes in between are skipped), markers stripped.
fn leading_comment(lang: Lang, src: &str, node: Node) -> Option<String> {
    let mut lines = Vec::new();
    let mut expected_row = node.start_position().row;
    // The first item in a Ruby body: comments above it belong to the enclosing node.
    let mut prev = node.prev_sibling().or_else(|| {
        let parent = node.parent().filter(|p| p.kind() == "body_statement")?;
        parent.prev_sibling()
    });
    while let Some(p) = prev {
        if p.end_position().row + 1 < expected_row {
            break;
        }
        if lang.is_comment(p.kind()) {
            lines.push(&src[p.byte_range()]);
        } else if !matches!(
            p.kind(),
            "attribute_item" | "decorator" | "annotation" | "marker_annotation"
        ) {
            break;
        }
        expected_row = p.start_position().row;
        prev = p.prev_sibling();
    }
    lines.reverse();
    let text = lines
        .iter()
        .flat_map(|c| c.lines())
        .map(strip_comment_marker)
        // Nor a line of a lone XML tag (C#'s `<summary>`, `</summary>`).
        .filter(|l| !l.is_empty() && !lone_tag(l))
        .take(2)
        .collect::<Vec<_>>()
        .join(" ");
    (!text.is_empty()).then(|| clip(&text))
}

/// Whether `line` is one XML tag and nothing else (`<summary>`, `</remarks>`).
fn lone_tag(line: &str) -> bool {
    line.len() > 2
        && line.starts_with('<')
        && line.ends_with('>')
        && !line[1..line.len() - 1].contains(['<', '>'])
}

fn python_docstring(lang: Lang, src: &str, node: Node) -> Option<String> {
    if lang != Lang::Python {
        return None;
    }
    let body = node.child_by_field_name("body")?;
    let first = body.named_child(0)?;
    let string = (first.kind() == "expression_statement")
        .then(|| first.named_child(0))
        .flatten()?;
    if string.kind() != "string" {
        return None;
    }
    let raw = src[string.byte_range()].trim_matches(|c| c == '"' || c == '\'');
    let text = raw
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .take(2)
        .collect::<Vec<_>>()
        .join(" ");
    (!text.is_empty()).then(|| clip(&text))
}

fn strip_comment_marker(line: &str) -> &str {
    let l = line.trim();
    let l = l.trim_end_matches("*/").trim_end();
    for marker in ["///", "//!", "/**", "/*!", "//", "/*", "#", "*"] {
        if let Some(rest) = l.strip_prefix(marker) {
            return rest.trim();
        }
    }
    l
}

pub(crate) fn collapse_ws(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

pub(crate) fn clip(s: &str) -> String {
    if s.len() <= MAX_LINE {
        return s.to_string();
    }
    let mut end = MAX_LINE;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sigs(lang: Lang, src: &str) -> Vec<(u8, String)> {
        outline(lang, src)
            .unwrap()
            .symbols
            .into_iter()
            .map(|s| (s.depth, s.signature))
            .collect()
    }

    #[test]
    fn rust_impl_methods_are_nested_and_docs_kept() {
        let src = "/// A point.\n#[derive(Debug)]\npub struct P { x: i32 }\nimpl P {\n    /// Makes one.\n    pub fn new(x: i32) -> Self { P { x } }\n}\n";
        let o = outline(Lang::Rust, src).unwrap();
        assert_eq!(o.symbols[0].doc.as_deref(), Some("A point."));
        assert_eq!(o.symbols[0].name, "P");
        assert_eq!(o.symbols[1].signature, "impl P");
        assert_eq!(
            (o.symbols[2].depth, o.symbols[2].signature.as_str()),
            (1, "pub fn new(x: i32) -> Self")
        );
        assert_eq!(o.symbols[2].doc.as_deref(), Some("Makes one."));
        assert!(!o.partial);
    }

    #[test]
    fn python_classes_methods_and_docstrings() {
        let src = "class Auth:\n    \"\"\"Checks tokens.\"\"\"\n    def check(self, t):\n        return t\n\n@cache\ndef top(a, b):\n    pass\n";
        let o = outline(Lang::Python, src).unwrap();
        let got: Vec<_> = o
            .symbols
            .iter()
            .map(|s| (s.depth, s.signature.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                (0, "class Auth"),
                (1, "def check(self, t)"),
                (0, "def top(a, b)")
            ]
        );
        assert_eq!(o.symbols[0].doc.as_deref(), Some("Checks tokens."));
    }

    #[test]
    fn javascript_and_typescript_exports() {
        let js = "export function login(user) { return 1 }\nclass A { run() {} }\n";
        assert_eq!(
            sigs(Lang::JavaScript, js),
            vec![
                (0, "function login(user)".into()),
                (0, "class A".into()),
                (1, "run()".into())
            ]
        );
        let ts =
            "export interface User { name: string; greet(): void }\nexport type Id = string;\n";
        let got = sigs(Lang::TypeScript, ts);
        assert_eq!(got[0], (0, "interface User".into()));
        assert!(got.iter().any(|(d, s)| *d == 1 && s.starts_with("greet()")));
        assert!(got.iter().any(|(_, s)| s.starts_with("type Id")));
    }

    #[test]
    fn go_java_c_cpp() {
        let go = "package m\n// Serve runs.\nfunc Serve(addr string) error { return nil }\ntype Srv struct { a int }\n";
        let o = outline(Lang::Go, go).unwrap();
        assert_eq!(o.symbols[0].signature, "func Serve(addr string) error");
        assert_eq!(o.symbols[0].doc.as_deref(), Some("Serve runs."));
        assert_eq!(o.symbols[1].signature, "Srv struct");
        let java = "public class Auth {\n  /** Checks. */\n  public boolean check(String t) { return true; }\n}\n";
        assert_eq!(
            sigs(Lang::Java, java),
            vec![
                (0, "public class Auth".into()),
                (1, "public boolean check(String t)".into())
            ]
        );
        let c = "#ifndef A_H\n#define A_H\nint add(int a, int b);\nstatic int twice(int x) { return 2*x; }\n#endif\n";
        assert_eq!(
            sigs(Lang::C, c),
            vec![
                (0, "int add(int a, int b);".into()),
                (0, "static int twice(int x)".into())
            ]
        );
        let cpp = "namespace net {\nclass Conn {\n public:\n  void open();\n};\n}\n";
        let got = sigs(Lang::Cpp, cpp);
        assert_eq!(got[0], (0, "namespace net".into()));
        assert_eq!(got[1], (1, "class Conn".into()));
        assert_eq!(got[2], (2, "void open();".into()));
    }

    #[test]
    fn ruby_modules_classes_methods_and_comments() {
        let rb = "require \"json\"\n\nmodule Acme\n  # Talks to the API.\n  # Retries twice.\n  class HttpClient < Base\n    def initialize(url, retries: 2)\n      @url = url\n    end\n\n    # Fetches one path.\n    def get(path) = request(:get, path)\n\n    def self.default\n      new(\"http://x\")\n    end\n\n    class << self\n      def build; end\n    end\n  end\nend\n";
        let o = outline(Lang::Ruby, rb).unwrap();
        let got: Vec<_> = o
            .symbols
            .iter()
            .map(|s| {
                (
                    s.depth,
                    s.signature.as_str(),
                    s.name.as_str(),
                    s.line,
                    s.end_line,
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (0, "module Acme", "Acme", 3, 22),
                (1, "class HttpClient < Base", "HttpClient", 6, 21),
                (2, "def initialize(url, retries: 2)", "initialize", 7, 9),
                (2, "def get(path)", "get", 12, 12),
                (2, "def self.default", "default", 14, 16),
                (2, "class << self", "", 18, 20),
            ]
        );
        assert_eq!(
            o.symbols[1].doc.as_deref(),
            Some("Talks to the API. Retries twice.")
        );
        assert_eq!(o.symbols[3].doc.as_deref(), Some("Fetches one path."));
        assert!(!o.partial);
        assert_eq!(Lang::from_path("lib/tasks/db.rake"), Some(Lang::Ruby));
    }

    #[test]
    fn php_namespaces_classes_methods_and_doc_blocks() {
        let php = "<html><?php\nnamespace App\\Http;\n\nuse Psr\\Log;\n\n/**\n * Routes requests.\n */\nfinal class Router extends Base implements Handler\n{\n    const VERSION = 2;\n\n    /** Adds a route. */\n    public function add(string $path, callable $h): self\n    {\n        return $this;\n    }\n}\n\ninterface Handler { public function handle(Request $r): Response; }\n\ntrait Logs { private function log($m) {} }\n\nfunction helper(int $a): int { return $a; }\n";
        let o = outline(Lang::Php, php).unwrap();
        let got: Vec<_> = o
            .symbols
            .iter()
            .map(|s| (s.depth, s.signature.as_str(), s.name.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                (0, "namespace App\\Http;", "App\\Http"),
                (
                    0,
                    "final class Router extends Base implements Handler",
                    "Router"
                ),
                (1, "const VERSION = 2;", ""),
                (
                    1,
                    "public function add(string $path, callable $h): self",
                    "add"
                ),
                (0, "interface Handler", "Handler"),
                (1, "public function handle(Request $r): Response;", "handle"),
                (0, "trait Logs", "Logs"),
                (1, "private function log($m)", "log"),
                (0, "function helper(int $a): int", "helper"),
            ]
        );
        assert_eq!(o.symbols[1].doc.as_deref(), Some("Routes requests."));
        assert_eq!(o.symbols[3].doc.as_deref(), Some("Adds a route."));
    }

    #[test]
    fn csharp_namespaces_types_members_and_xml_docs() {
        let cs = "using System;\n\nnamespace Acme.Config\n{\n    /// <summary>\n    /// Reads settings files.\n    /// </summary>\n    public sealed class Parser : IParser\n    {\n        public Parser(string root) { Root = root; }\n\n        public string Root { get; }\n\n        /// <summary>Reads one file.</summary>\n        [Obsolete]\n        public Settings Read(string path)\n        {\n            return null;\n        }\n    }\n\n    public interface IParser { Settings Read(string path); }\n\n    public record Settings(string Name);\n\n    public enum Mode { Fast, Safe }\n}\n";
        let o = outline(Lang::CSharp, cs).unwrap();
        let got: Vec<_> = o
            .symbols
            .iter()
            .map(|s| (s.depth, s.signature.as_str(), s.name.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                (0, "namespace Acme.Config", "Acme.Config"),
                (1, "public sealed class Parser : IParser", "Parser"),
                (2, "public Parser(string root)", "Parser"),
                (2, "public string Root", "Root"),
                (2, "[Obsolete] public Settings Read(string path)", "Read"),
                (1, "public interface IParser", "IParser"),
                (2, "Settings Read(string path);", "Read"),
                (1, "public record Settings(string Name);", "Settings"),
                (1, "public enum Mode", "Mode"),
            ]
        );
        assert!(!o.partial);
        assert_eq!(o.symbols[1].doc.as_deref(), Some("Reads settings files."));
        assert_eq!(
            o.symbols[4].doc.as_deref(),
            Some("<summary>Reads one file.</summary>")
        );
        // A file-scoped namespace is a line of its own; the types after it stay top-level.
        let o = outline(
            Lang::CSharp,
            "namespace Acme;\n\npublic class A { void Run() {} }\n",
        )
        .unwrap();
        let got: Vec<_> = o
            .symbols
            .iter()
            .map(|s| (s.depth, s.name.as_str()))
            .collect();
        assert_eq!(got, [(0, "Acme"), (0, "A"), (1, "Run")]);
    }

    #[test]
    fn broken_source_degrades_to_partial_outline() {
        let o = outline(Lang::Rust, "fn ok() {}\nfn broken( {{{{\n").unwrap();
        assert!(o.partial);
        assert_eq!(o.symbols[0].signature, "fn ok()");
    }

    #[test]
    fn long_signatures_are_clipped_at_char_boundaries() {
        let src = format!(
            "fn f(a: &str) -> &'static str {{ \"{}\" }}\nconst X: &str = \"{}\";",
            "é".repeat(10),
            "é".repeat(300)
        );
        let o = outline(Lang::Rust, &src).unwrap();
        assert!(o.symbols[1].signature.len() <= MAX_LINE + '…'.len_utf8());
        assert!(o.symbols[1].signature.ends_with('…'));
    }
}
