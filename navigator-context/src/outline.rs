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
    /// Names declared that are not items (struct fields, enum variants, class attributes,
    /// package constants), sorted: a goal naming one points at this file.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<String>,
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
        members: crate::members::members(lang, source, root),
    })
}

fn visit(lang: Lang, src: &str, node: Node, depth: usize, out: &mut Vec<Symbol>) {
    let mut items = Vec::new();
    item_children(lang, src, node, &mut items);
    // A namespace (`module ActiveSupport`, `namespace Acme.Config { ... }`) is not a level:
    // what it holds is outlined beside it, so a top-level outline shows the file's classes
    // (of each namespace, in a file of several) and gem code nested four modules deep keeps
    // its methods.
    for (child, container) in items {
        out.push(symbol(lang, src, child, depth));
        let inner = if lang.is_namespace(child.kind()) {
            depth
        } else {
            depth + 1
        };
        if container && inner < MAX_DEPTH {
            let body = child
                .child_by_field_name("body")
                .or_else(|| crate::js_items::assigned_object(child))
                .unwrap_or(child);
            visit(lang, src, body, inner, out);
        }
    }
}

/// The outline items among `node`'s children (through transparent wrappers), each with
/// whether it holds items of its own.
fn item_children<'t>(lang: Lang, src: &str, node: Node<'t>, out: &mut Vec<(Node<'t>, bool)>) {
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        let role = match lang {
            Lang::JavaScript | Lang::TypeScript | Lang::Tsx => {
                crate::js_items::role(src, child).unwrap_or_else(|| lang.role(child.kind()))
            }
            _ => lang.role(child.kind()),
        };
        match role {
            NodeRole::Item { container } => out.push((child, container)),
            NodeRole::Transparent => item_children(lang, src, child, out),
            NodeRole::Skip => {}
        }
    }
}

/// The name a C or C++ declaration declares, inside its declarator (`int *parse(...)`,
/// `void LruCache<K, V>::evict()`, `typedef struct {...} kv_t;`): these grammars have no
/// `name` field on functions, typedefs and variables.
fn declarator_name(src: &str, node: Node) -> Option<String> {
    let mut n = node.child_by_field_name("declarator")?;
    for _ in 0..16 {
        match n.kind() {
            "identifier" | "field_identifier" | "type_identifier" | "destructor_name"
            | "operator_name" => return Some(src[n.byte_range()].to_string()),
            "qualified_identifier" | "template_function" | "template_type" => {
                n = n.child_by_field_name("name")?;
            }
            _ => n = n.child_by_field_name("declarator")?,
        }
    }
    None
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

/// Where a Kotlin declaration ends: where its body starts (`{ ... }` or `= expr`); the
/// grammar gives bodies no field name.
fn kotlin_head_end(node: Node) -> Option<usize> {
    let mut cursor = node.walk();
    let body = node
        .named_children(&mut cursor)
        .find(|c| matches!(c.kind(), "class_body" | "enum_class_body" | "function_body"));
    body.map(|b| b.start_byte())
}

/// The node naming an item: its `name` field, or for a Kotlin type alias its `type` and for
/// a Kotlin property the identifier in its variable declaration.
fn name_node<'t>(lang: Lang, src: &str, node: Node<'t>) -> Option<Node<'t>> {
    if let Some(n) = node.child_by_field_name("name") {
        return Some(n);
    }
    if matches!(lang, Lang::JavaScript | Lang::TypeScript | Lang::Tsx) {
        return crate::js_items::name_node(src, node);
    }
    // C and C++: the declarator (`foo_open(const char *path)` after an export macro or an
    // attribute on the line above).
    if matches!(lang, Lang::C | Lang::Cpp) {
        return node.child_by_field_name("declarator");
    }
    if lang != Lang::Kotlin {
        return None;
    }
    if let Some(t) = node.child_by_field_name("type") {
        return Some(t);
    }
    let mut cursor = node.walk();
    let var = node
        .named_children(&mut cursor)
        .find(|c| c.kind() == "variable_declaration")?;
    let mut cursor = var.walk();
    let id = var
        .named_children(&mut cursor)
        .find(|c| c.kind() == "identifier");
    id
}

/// `decl` up to its first `{` outside a string literal (`"..."`, `"""..."""`, a JavaScript
/// template), a character literal (`'{'`) or an escape (`/\{[a-z]+\}/`), or all of it.
fn cut_at_brace(decl: &str) -> &str {
    let mut quote: Option<char> = None;
    let mut escaped = false;
    let bytes = decl.as_bytes();
    for (k, c) in decl.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' | '`' if quote.is_none() => quote = Some(c),
            _ if quote == Some(c) => quote = None,
            '{' if quote.is_none() => {
                let char_literal =
                    k > 0 && bytes[k - 1] == b'\'' && bytes.get(k + 1) == Some(&b'\'');
                if !char_literal {
                    return &decl[..k];
                }
            }
            _ => {}
        }
    }
    decl
}

fn symbol(lang: Lang, src: &str, node: Node, depth: usize) -> Symbol {
    let text = &src[node.byte_range()];
    let custom_head = match lang {
        Lang::Ruby => ruby_head_end(node),
        Lang::Kotlin => kotlin_head_end(node),
        _ => None,
    };
    let head = match (custom_head, node.child_by_field_name("body")) {
        (Some(end), _) => &src[node.start_byte()..end],
        (None, Some(body)) if body.start_byte() > node.start_byte() => {
            &src[node.start_byte()..body.start_byte()]
        }
        // Without a body field the declaration runs to the end of the line with its name
        // (attributes on lines above it included: `@available(...)\ntypealias X = Y`); a
        // one-line body is cut off at its brace (not at one in a string).
        _ => {
            let name_end =
                name_node(lang, src, node).map_or(0, |n| n.end_byte() - node.start_byte());
            let line_end = text[name_end..]
                .find('\n')
                .map_or(text.len(), |k| name_end + k);
            let decl = &text[..line_end];
            cut_at_brace(decl)
        }
    };
    let head = head.trim_end().trim_end_matches('{').trim_end_matches(':');
    let name = match node.child_by_field_name("name") {
        Some(n) => src[n.byte_range()].to_string(),
        None if matches!(lang, Lang::C | Lang::Cpp) => {
            declarator_name(src, node).unwrap_or_default()
        }
        None => {
            name_node(lang, src, node).map_or_else(String::new, |n| src[n.byte_range()].to_string())
        }
    };
    // A C++ template's parameters belong to its head, and its line to the item:
    // `template <typename T> class Buffer`.
    let template = node
        .parent()
        .filter(|p| lang == Lang::Cpp && p.kind() == "template_declaration");
    let (head, first) = match template {
        Some(t) => (&src[t.start_byte()..node.start_byte() + head.len()], t),
        None => (head, node),
    };
    let doc = python_docstring(lang, src, node).or_else(|| leading_comment(lang, src, first));
    Symbol {
        depth: depth as u8,
        name,
        signature: clip(&collapse_ws(head)),
        doc,
        line: first.start_position().row as u32 + 1,
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
    // JavaScript's JSDoc is often set off by a blank line (`/** ... */`, blank, `app.init =
    // function init() {...}`, as Express writes it): one blank line is allowed after it.
    let js = matches!(lang, Lang::JavaScript | Lang::TypeScript | Lang::Tsx);
    while let Some(p) = prev {
        let gap = expected_row.saturating_sub(p.end_position().row + 1);
        let jsdoc = js
            && lines.is_empty()
            && gap == 1
            && lang.is_comment(p.kind())
            && src[p.byte_range()].starts_with("/**")
            && blank_between(src, p.end_byte(), node.start_byte());
        if gap > 0 && !jsdoc {
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
        // A block tag (`@param`, `@return`) ends the summary.
        .take_while(|l| !l.starts_with('@'))
        .take(2)
        .collect::<Vec<_>>()
        .join(" ");
    (!text.is_empty()).then(|| clip(&text))
}

/// Whether only whitespace lies between two byte offsets of `src`.
fn blank_between(src: &str, from: usize, to: usize) -> bool {
    src.get(from..to).is_some_and(|t| t.trim().is_empty())
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

    /// (depth, name) of each item.
    fn names(o: &Outline) -> Vec<(u8, &str)> {
        o.symbols
            .iter()
            .map(|s| (s.depth, s.name.as_str()))
            .collect()
    }

    /// (depth, signature, name) of each item.
    fn named(o: &Outline) -> Vec<(u8, &str, &str)> {
        o.symbols
            .iter()
            .map(|s| (s.depth, s.signature.as_str(), s.name.as_str()))
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
    fn python_definitions_under_a_condition_are_outlined() {
        let src = "import sys\nif sys.version_info >= (3, 11):\n    def utc():\n        return 1\nelif PY2:\n    class Text(str):\n        def lower(self):\n            pass\nelse:\n    def utc():\n        def local():\n            pass\n        return 2\ntry:\n    from json import loads\nexcept ImportError:\n    def loads(s):\n        pass\nclass A:\n    if DEBUG:\n        def dump(self):\n            pass\n";
        let got: Vec<(u8, String)> = outline(Lang::Python, src)
            .unwrap()
            .symbols
            .into_iter()
            .map(|s| (s.depth, s.name))
            .collect();
        let want = [
            (0, "utc"),
            (0, "Text"),
            (1, "lower"),
            (0, "utc"),
            (0, "loads"),
            (0, "A"),
            (1, "dump"),
        ];
        assert_eq!(
            got,
            want.map(|(d, n)| (d, n.to_string())),
            "a function's own locals stay out"
        );
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
    fn javascript_items_defined_by_assignment_are_named() {
        let js = "var fs = require('fs')\nconst debug = require('debug')('app')\nvar res = Object.create(http.ServerResponse.prototype)\n/** Sets a cookie. */\nres.cookie = function (name, value, options) {\n  return this;\n};\nexports.parse = function parse(str) {}\nconst useFetch = (url) => {\n  return url\n}\nApp.prototype.listen = function listen() {}\ndefineGetter(req, 'host', function host() {})\ndescribe('x', function () {})\nmodule.exports = {\n  get header() { return 1 },\n  set: function (field, val) {},\n  name: 'x',\n};\n";
        let o = outline(Lang::JavaScript, js).unwrap();
        let got = names(&o);
        assert_eq!(
            got,
            vec![
                (0, "res"),
                (0, "cookie"),
                (0, "parse"),
                (0, "useFetch"),
                (0, "listen"),
                (0, "host"),
                (0, "exports"),
                (1, "header"),
                (1, "set"),
            ],
            "imports and anonymous callbacks are no items"
        );
        let cookie = &o.symbols[1];
        assert_eq!(
            cookie.signature,
            "res.cookie = function (name, value, options)"
        );
        assert_eq!(cookie.doc.as_deref(), Some("Sets a cookie."));
        assert_eq!((cookie.line, cookie.end_line), (5, 7));
        let ts = "export const useStore = <T,>(init: T): Store<T> => {\n  return make(init)\n}\n";
        let o = outline(Lang::TypeScript, ts).unwrap();
        assert_eq!(o.symbols[0].name, "useStore");
        let fields = "class Form {\n  handleSubmit = (e) => {\n    e.preventDefault()\n  }\n  count = 0\n}\n";
        for lang in [Lang::JavaScript, Lang::TypeScript] {
            let names: Vec<String> = outline(lang, fields)
                .unwrap()
                .symbols
                .into_iter()
                .map(|s| s.name)
                .collect();
            assert_eq!(names, ["Form", "handleSubmit"], "{lang:?}");
        }
    }

    #[test]
    fn a_javascript_chain_of_assignments_is_an_item_named_by_its_first_name() {
        let js = "/**\n * Set header `field` to `val`.\n *\n * @param {String} field\n * @public\n */\nres.set =\nres.header = function header(field, val) {\n  return this;\n};\nres.contentType =\nres.type = function contentType(type) {};\nmodule.exports = exports = { get ip() { return 1 } };\n";
        let o = outline(Lang::JavaScript, js).unwrap();
        let got = names(&o);
        assert_eq!(
            got,
            vec![(0, "set"), (0, "contentType"), (0, "exports"), (1, "ip")]
        );
        let set = &o.symbols[0];
        assert_eq!((set.line, set.end_line), (7, 10));
        assert_eq!(set.doc.as_deref(), Some("Set header `field` to `val`."));
        // JSDoc set off by one blank line is still the item's doc; two lines, or code in
        // between, and it is not.
        let js = "/**\n * Initialize the server.\n */\n\napp.init = function init() {};\n/** Loose. */\n\n\napp.two = function two() {};\n";
        let o = outline(Lang::JavaScript, js).unwrap();
        assert_eq!(o.symbols[0].doc.as_deref(), Some("Initialize the server."));
        assert_eq!(o.symbols[1].doc, None);
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
        assert_eq!(
            got[1],
            (0, "class Conn".into()),
            "a lone namespace is no level"
        );
        assert_eq!(got[2], (1, "void open();".into()));
        // Nor are two namespaces in a file: a top-level outline shows what each holds.
        let got = sigs(
            Lang::Cpp,
            "namespace a { int f(); }\nnamespace b { int g(); }\n",
        );
        assert_eq!(
            got,
            [
                (0, "namespace a".into()),
                (0, "int f();".into()),
                (0, "namespace b".into()),
                (0, "int g();".into())
            ]
        );
        let php = "<?php\nnamespace App\\Http {\n    class Router {\n        public function add($r) {}\n    }\n}\nnamespace App\\Cli {\n    class Runner {}\n}\n";
        assert_eq!(
            sigs(Lang::Php, php),
            [
                (0, "namespace App\\Http".into()),
                (0, "class Router".into()),
                (1, "public function add($r)".into()),
                (0, "namespace App\\Cli".into()),
                (0, "class Runner".into()),
            ]
        );
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
                (0, "class HttpClient < Base", "HttpClient", 6, 21),
                (1, "def initialize(url, retries: 2)", "initialize", 7, 9),
                (1, "def get(path)", "get", 12, 12),
                (1, "def self.default", "default", 14, 16),
                (1, "class << self", "", 18, 20),
                (2, "def build", "build", 19, 19),
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
        let got = named(&o);
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
        let got = named(&o);
        assert_eq!(
            got,
            vec![
                (0, "namespace Acme.Config", "Acme.Config"),
                (0, "public sealed class Parser : IParser", "Parser"),
                (1, "public Parser(string root)", "Parser"),
                (1, "public string Root", "Root"),
                (1, "[Obsolete] public Settings Read(string path)", "Read"),
                (0, "public interface IParser", "IParser"),
                (1, "Settings Read(string path);", "Read"),
                (0, "public record Settings(string Name);", "Settings"),
                (0, "public enum Mode", "Mode"),
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
    fn kotlin_classes_objects_members_and_kdoc() {
        let kt = "package com.acme.store\n\nimport kotlin.math.max\n\n/** A key-value store. */\nclass Store(private val n: Int) : Closeable {\n    /** Puts a value. */\n    fun put(key: String, value: String): Int {\n        return 0\n    }\n    val size: Int get() = 0\n    companion object {\n        fun create(): Store = Store(1)\n    }\n    constructor(x: String) : this(1)\n}\n\ninterface Cache {\n    fun get(k: String): String?\n}\n\nobject Registry {\n    fun register(s: Store) {}\n}\n\nenum class Color {\n    RED, GREEN;\n    fun hex(): String = \"\"\n}\n\ntypealias Table = Map<String, String>\nfun top(a: Int): Int = a + 1\n";
        let o = outline(Lang::Kotlin, kt).unwrap();
        assert_eq!(
            named(&o),
            vec![
                (0, "class Store(private val n: Int) : Closeable", "Store"),
                (1, "fun put(key: String, value: String): Int", "put"),
                (1, "val size: Int get() = 0", "size"),
                (1, "companion object", ""),
                (2, "fun create(): Store", "create"),
                (1, "constructor(x: String) : this(1)", ""),
                (0, "interface Cache", "Cache"),
                (1, "fun get(k: String): String?", "get"),
                (0, "object Registry", "Registry"),
                (1, "fun register(s: Store)", "register"),
                (0, "enum class Color", "Color"),
                (1, "fun hex(): String", "hex"),
                (0, "typealias Table = Map<String, String>", "Table"),
                (0, "fun top(a: Int): Int", "top"),
            ]
        );
        assert!(!o.partial);
        assert_eq!(o.symbols[0].doc.as_deref(), Some("A key-value store."));
        assert_eq!(o.symbols[1].doc.as_deref(), Some("Puts a value."));
        assert_eq!((o.symbols[1].line, o.symbols[1].end_line), (8, 10));
    }

    #[test]
    fn swift_types_extensions_protocols_and_docs() {
        let swift = "import Foundation\n\n/// A key-value store.\npublic final class Store: Codable {\n    /// Puts a value.\n    public func put(_ key: String, value: String) -> Int {\n        return 0\n    }\n    var size: Int { return 0 }\n    init(n: Int) { self.n = n }\n}\n\nprotocol Cache {\n    func get(_ k: String) -> String?\n}\n\nstruct Point { let x: Int }\n\nextension Store: Cache {\n    func get(_ k: String) -> String? { nil }\n}\n\nfunc top(a: Int) -> Int { a + 1 }\n";
        let o = outline(Lang::Swift, swift).unwrap();
        assert_eq!(
            named(&o),
            vec![
                (0, "public final class Store: Codable", "Store"),
                (
                    1,
                    "public func put(_ key: String, value: String) -> Int",
                    "put"
                ),
                (1, "var size: Int", "size"),
                (1, "init(n: Int)", "init"),
                (0, "protocol Cache", "Cache"),
                (1, "func get(_ k: String) -> String?", "get"),
                (0, "struct Point", "Point"),
                (1, "let x: Int", "x"),
                (0, "extension Store: Cache", "Store"),
                (1, "func get(_ k: String) -> String?", "get"),
                (0, "func top(a: Int) -> Int", "top"),
            ]
        );
        assert!(!o.partial);
        assert_eq!(o.symbols[0].doc.as_deref(), Some("A key-value store."));
        assert_eq!(o.symbols[1].doc.as_deref(), Some("Puts a value."));
    }

    #[test]
    fn a_declaration_without_a_body_runs_to_its_name_and_braces_in_strings_stay() {
        let swift = "@available(*, deprecated, renamed: \"Lost\")\npublic typealias LostException = Exceptions.Lost\n\n@MainActor\npublic let shared = Thing()\nlet pattern = \"^[a-z]{3}$\"\n";
        assert_eq!(
            named(&outline(Lang::Swift, swift).unwrap()),
            [
                (
                    0,
                    "@available(*, deprecated, renamed: \"Lost\") public typealias LostException = Exceptions.Lost",
                    "LostException"
                ),
                (0, "@MainActor public let shared = Thing()", "shared"),
                (0, "let pattern = \"^[a-z]{3}$\"", "pattern"),
            ]
        );
        let kt = "@Serializable\ndata class User(val id: String)\n\n@JvmField\nval shared = Any()\nval hex = Regex(\"\"\"^#([0-9a-f]{8})$\"\"\")\nval esc = \"a\\\"{\"\n";
        assert_eq!(
            named(&outline(Lang::Kotlin, kt).unwrap()),
            [
                (0, "@Serializable data class User(val id: String)", "User"),
                (0, "@JvmField val shared = Any()", "shared"),
                (0, "val hex = Regex(\"\"\"^#([0-9a-f]{8})$\"\"\")", "hex"),
                (0, "val esc = \"a\\\"{\"", "esc"),
            ]
        );
        assert_eq!(cut_at_brace("val brace = '{'"), "val brace = '{'");
        assert_eq!(
            cut_at_brace("const p = /\\{[a-z]+\\}/g"),
            "const p = /\\{[a-z]+\\}/g"
        );
        assert_eq!(
            cut_at_brace("const t = `{${name}}`"),
            "const t = `{${name}}`"
        );
        assert_eq!(cut_at_brace("fn f() { 1 }"), "fn f() ");
        assert_eq!(
            cut_at_brace("let s = \"a\\\"{\" + x { y }"),
            "let s = \"a\\\"{\" + x "
        );
        let cpp = "/// A ring.\ntemplate <typename T>\nclass Buffer {\n  T* data;\n};\n";
        let o = outline(Lang::Cpp, cpp).unwrap();
        assert_eq!(o.symbols[0].signature, "template <typename T> class Buffer");
        // The item starts at its template line (a zoom shows it), and keeps its doc.
        assert_eq!(
            (o.symbols[0].line, o.symbols[0].doc.as_deref()),
            (2, Some("A ring."))
        );
        // An export macro or attribute on the line above a C prototype is part of it.
        let c = "LIBFOO_API\nint foo_open(const char *path);\n\n__attribute__((warn_unused_result))\nint foo_read(int fd,\n             char *buf);\n";
        assert_eq!(
            named(&outline(Lang::C, c).unwrap()),
            [
                (0, "LIBFOO_API int foo_open(const char *path);", "foo_open"),
                (
                    0,
                    "__attribute__((warn_unused_result)) int foo_read(int fd, char *buf);",
                    "foo_read"
                ),
            ]
        );
    }

    #[test]
    fn gem_code_four_modules_deep_keeps_its_methods() {
        let rb = "module ActiveSupport\n  module Cache\n    class Store\n      def fetch(name)\n        read(name)\n      end\n    end\n\n    class Entry; end\n  end\nend\n";
        let got: Vec<_> = outline(Lang::Ruby, rb)
            .unwrap()
            .symbols
            .into_iter()
            .map(|s| (s.depth, s.name))
            .collect();
        assert_eq!(
            got,
            [
                (0, "ActiveSupport".to_string()),
                (0, "Cache".into()),
                (0, "Store".into()),
                (1, "fetch".into()),
                (0, "Entry".into()),
            ]
        );
    }

    #[test]
    fn c_and_cpp_declarations_are_named() {
        let c = "typedef struct { int n; } kv_t;\nstatic kv_t *kv_open(const char *path) { return 0; }\nvoid kv_close(kv_t *kv);\nint count = 0;\nstruct node { int v; };\n";
        let names: Vec<String> = outline(Lang::C, c)
            .unwrap()
            .symbols
            .into_iter()
            .map(|s| s.name)
            .collect();
        assert_eq!(names, ["kv_t", "kv_open", "kv_close", "count", "node"]);
        let cpp = "template <typename K>\nvoid LruCache<K>::evict(int n) {}\nCache::~Cache() {}\nbool operator==(const A&, const A&);\n";
        let names: Vec<String> = outline(Lang::Cpp, cpp)
            .unwrap()
            .symbols
            .into_iter()
            .map(|s| s.name)
            .collect();
        assert_eq!(names, ["evict", "~Cache", "operator=="]);
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
