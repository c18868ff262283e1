//! Members: the names a file declares that are not outline items — struct fields, enum
//! variants, class attributes, interface properties, package constants. A goal naming one
//! (`populate_by_name`, `DeriveDisplayOrder`, `max_age`) points at the file declaring it when
//! no file defines the name as an item.

use crate::lang::Lang;
use tree_sitter::Node;

/// Deepest node visited; member declarations sit far above this in real code.
const MAX_NEST: usize = 64;

/// The member names declared in the tree under `root`, sorted, each once.
pub(crate) fn members(lang: Lang, src: &str, root: Node) -> Vec<String> {
    let mut out = Vec::new();
    walk(lang, src, root, 0, &mut out);
    out.sort_unstable();
    out.dedup();
    out
}

/// Whether a member's name is specific enough to point at its file: a compound
/// (`media_type`, `retryLimit`, `DeriveDisplayOrder`) or a constant in capitals (`NOTHING`).
/// A plain word (`hidden`, `state`, `scope`) is a field of many things and a word of many goals.
pub(crate) fn distinctive(name: &str) -> bool {
    let inner = name.trim_matches('_');
    let chars: Vec<char> = inner.chars().collect();
    let snake = inner.contains('_');
    let camel = chars
        .windows(2)
        .any(|w| w[0].is_lowercase() && w[1].is_uppercase());
    let capitals = chars.len() >= 4
        && chars.iter().any(|c| c.is_alphabetic())
        && !chars.iter().any(|c| c.is_lowercase());
    snake || camel || capitals
}

fn walk(lang: Lang, src: &str, node: Node, nest: usize, out: &mut Vec<String>) {
    if nest > MAX_NEST {
        return;
    }
    declared(lang, src, node, out);
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        walk(lang, src, child, nest + 1, out);
    }
}

/// The text of `node` when it is a plain name.
fn text_of(src: &str, node: Node) -> Option<String> {
    let t = src.get(node.byte_range())?.trim_start_matches('$');
    (!t.is_empty() && t.chars().all(|c| c.is_alphanumeric() || c == '_')).then(|| t.to_string())
}

/// The names `node` declares as members, pushed to `out`.
fn declared(lang: Lang, src: &str, node: Node, out: &mut Vec<String>) {
    let names = |field: &str, out: &mut Vec<String>| {
        let mut cursor = node.walk();
        for n in node.children_by_field_name(field, &mut cursor) {
            out.extend(text_of(src, n));
        }
    };
    match (lang, node.kind()) {
        (Lang::Rust, "field_declaration" | "enum_variant") => names("name", out),
        (Lang::Python, "assignment") => out.extend(python_member(src, node)),
        (
            Lang::JavaScript | Lang::TypeScript | Lang::Tsx,
            "property_signature" | "public_field_definition" | "enum_assignment",
        ) => names("name", out),
        (Lang::JavaScript, "field_definition") => names("property", out),
        (Lang::JavaScript | Lang::TypeScript | Lang::Tsx, "variable_declarator")
            if module_level_js(node) =>
        {
            names("name", out)
        }
        (Lang::TypeScript | Lang::Tsx, "property_identifier")
            if node.parent().is_some_and(|p| p.kind() == "enum_body") =>
        {
            out.extend(text_of(src, node))
        }
        (Lang::Go, "field_declaration") => names("name", out),
        (Lang::Go, "const_spec" | "var_spec") if package_level(node) => names("name", out),
        (Lang::Java | Lang::CSharp, "variable_declarator")
            if node.parent().is_some_and(|p| {
                matches!(p.kind(), "field_declaration")
                    || p.kind() == "variable_declaration"
                        && p.parent().is_some_and(|g| g.kind() == "field_declaration")
            }) =>
        {
            names("name", out)
        }
        (Lang::Java, "enum_constant") | (Lang::CSharp, "enum_member_declaration") => {
            names("name", out)
        }
        (Lang::C | Lang::Cpp, "field_declaration") => out.extend(c_field(src, node)),
        (Lang::C | Lang::Cpp, "enumerator" | "preproc_def") => names("name", out),
        (Lang::Php, "property_element" | "enum_case") => names("name", out),
        (Lang::Kotlin, "enum_entry") | (Lang::Swift, "enum_entry") => {
            // Swift's `case lowWater, highWater` names each; Kotlin's entry has no field.
            let before = out.len();
            names("name", out);
            if out.len() > before {
                return;
            }
            let mut cursor = node.walk();
            let id = node
                .named_children(&mut cursor)
                .find(|c| matches!(c.kind(), "simple_identifier" | "identifier"));
            out.extend(id.and_then(|n| text_of(src, n)));
        }
        _ => {}
    }
}

/// A JavaScript or TypeScript `const`, `let` or `var` of the module itself (exported or not),
/// not of a function: `export const DEFAULT_BASE_URL = ...`.
fn module_level_js(node: Node) -> bool {
    let Some(decl) = node
        .parent()
        .filter(|p| matches!(p.kind(), "lexical_declaration" | "variable_declaration"))
    else {
        return false;
    };
    let mut p = decl.parent();
    if p.is_some_and(|n| n.kind() == "export_statement") {
        p = p.and_then(|n| n.parent());
    }
    p.is_some_and(|n| n.kind() == "program")
}

/// A Go `const` or `var` spec outside any function.
fn package_level(node: Node) -> bool {
    let mut p = node.parent();
    while let Some(n) = p {
        if matches!(
            n.kind(),
            "function_declaration" | "method_declaration" | "func_literal"
        ) {
            return false;
        }
        p = n.parent();
    }
    true
}

/// The member a Python assignment declares: a name assigned in a class body or at module
/// level (`max_age = 600`, `populate_by_name: bool`), or an attribute of `self` or `cls`
/// (`self.show_default = show_default`). Locals of functions are not members.
fn python_member(src: &str, node: Node) -> Option<String> {
    let left = node.child_by_field_name("left")?;
    match left.kind() {
        "identifier" => {
            let statement = node
                .parent()
                .filter(|p| p.kind() == "expression_statement")?;
            let scope = statement.parent()?;
            let in_class = scope.kind() == "block"
                && scope
                    .parent()
                    .is_some_and(|c| c.kind() == "class_definition");
            (scope.kind() == "module" || in_class).then(|| text_of(src, left))?
        }
        "attribute" => {
            let object = left.child_by_field_name("object")?;
            if !matches!(src.get(object.byte_range())?, "self" | "cls") {
                return None;
            }
            text_of(src, left.child_by_field_name("attribute")?)
        }
        _ => None,
    }
}

/// The field a C or C++ field declaration declares, through pointers and arrays; a method
/// declaration (`void run();` in a class) is an outline item already.
fn c_field(src: &str, node: Node) -> Option<String> {
    let mut n = node.child_by_field_name("declarator")?;
    for _ in 0..8 {
        match n.kind() {
            "field_identifier" => return text_of(src, n),
            "pointer_declarator" | "array_declarator" | "reference_declarator" => {
                n = n
                    .child_by_field_name("declarator")
                    .or_else(|| n.named_child(0))?;
            }
            _ => return None,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(lang: Lang, src: &str) -> Vec<String> {
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&lang.grammar()).unwrap();
        let tree = parser.parse(src, None).unwrap();
        members(lang, src, tree.root_node())
    }

    #[test]
    fn compounds_and_capitals_are_distinctive_plain_words_are_not() {
        for name in [
            "media_type",
            "retryLimit",
            "DeriveDisplayOrder",
            "NOTHING",
            "_HASH_CACHE",
        ] {
            assert!(distinctive(name), "{name}");
        }
        for name in ["hidden", "state", "Scope", "_private", "io", "URL", "x"] {
            assert!(!distinctive(name), "{name}");
        }
    }

    #[test]
    fn rust_fields_and_variants_are_members() {
        let src = "pub struct Config { pub max_age: u64, inner: Inner }\n\
                   pub enum AppSettings { DeriveDisplayOrder, Hidden(bool), Named { x: u8 } }\n\
                   fn local() { let not_a_member = 1; }\n";
        assert_eq!(
            of(Lang::Rust, src),
            [
                "DeriveDisplayOrder",
                "Hidden",
                "Named",
                "inner",
                "max_age",
                "x"
            ]
        );
    }

    #[test]
    fn python_class_attributes_module_names_and_self_attributes_are_members() {
        let src = "TIMEOUT = 5\n\
                   class ConfigDict(TypedDict):\n    populate_by_name: bool\n    title = None\n\
                   \n    def __init__(self, show_default):\n        self.show_default = show_default\n        local = 3\n\
                   \ndef f():\n    inner = 1\n";
        assert_eq!(
            of(Lang::Python, src),
            ["TIMEOUT", "populate_by_name", "show_default", "title"]
        );
    }

    #[test]
    fn typescript_properties_fields_and_enum_members_are_members() {
        let src = "interface Options { retryLimit: number; onError?(): void }\n\
                   class Client { private baseUrl = ''; }\n\
                   enum Mode { Fast, Slow = 2 }\n\
                   export const DEFAULT_BASE_URL = '';\nconst MAX_PAGE_SIZE: number = 50;\n\
                   function f() { const local = 1; }\n";
        assert_eq!(
            of(Lang::TypeScript, src),
            [
                "DEFAULT_BASE_URL",
                "Fast",
                "MAX_PAGE_SIZE",
                "Slow",
                "baseUrl",
                "retryLimit"
            ]
        );
    }

    #[test]
    fn kotlin_swift_and_php_enum_cases_and_properties_are_members() {
        let kt = "enum class Level { LOW_WATER, HIGH_WATER }\n";
        assert_eq!(of(Lang::Kotlin, kt), ["HIGH_WATER", "LOW_WATER"]);
        let swift = "enum Level {\n    case lowWater, highWater\n    case flood\n}\n";
        assert_eq!(of(Lang::Swift, swift), ["flood", "highWater", "lowWater"]);
        let php = "<?php\nclass Pool { private $maxIdle = 8; }\nenum Level { case Low; }\n";
        assert_eq!(of(Lang::Php, php), ["Low", "maxIdle"]);
    }

    #[test]
    fn go_java_c_and_csharp_fields_are_members() {
        let go = "package p\nconst ( MaxRetries = 3 )\ntype Server struct { ReadTimeout, WriteTimeout int }\nfunc f() { const local = 1 }\n";
        assert_eq!(
            of(Lang::Go, go),
            ["MaxRetries", "ReadTimeout", "WriteTimeout"]
        );
        let java = "class Pool { private int maxIdle = 8; void run() { int local = 1; } }\nenum Level { LOW, HIGH }\n";
        assert_eq!(of(Lang::Java, java), ["HIGH", "LOW", "maxIdle"]);
        let c = "#define MAX_BACKLOG 64\nstruct kv { char *name; int sizes[4]; };\nenum color { RED, GREEN };\n";
        assert_eq!(
            of(Lang::C, c),
            ["GREEN", "MAX_BACKLOG", "RED", "name", "sizes"]
        );
        let cs = "class Pool { private int maxIdle; void Run() { int local = 1; } }\nenum Level { Low, High }\n";
        assert_eq!(of(Lang::CSharp, cs), ["High", "Low", "maxIdle"]);
    }
}
