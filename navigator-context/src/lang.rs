//! Source languages with a tree-sitter grammar, and how their syntax trees map to outline items.

use serde::{Deserialize, Serialize};

/// A language navigator can outline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    /// Rust (`.rs`).
    Rust,
    /// Python (`.py`, `.pyi`).
    Python,
    /// JavaScript (`.js`, `.jsx`, `.mjs`, `.cjs`).
    JavaScript,
    /// TypeScript (`.ts`, `.mts`, `.cts`).
    TypeScript,
    /// TypeScript with JSX (`.tsx`).
    Tsx,
    /// Go (`.go`).
    Go,
    /// Java (`.java`).
    Java,
    /// C (`.c`, `.h`).
    C,
    /// C++ (`.cc`, `.cpp`, `.cxx`, `.hpp`, `.hh`, `.hxx`).
    Cpp,
    /// Ruby (`.rb`, `.rake`, `.gemspec`).
    Ruby,
    /// PHP (`.php`).
    Php,
    /// C# (`.cs`).
    CSharp,
    /// Kotlin (`.kt`, `.kts`).
    Kotlin,
    /// Swift (`.swift`).
    Swift,
}

/// How one syntax node takes part in an outline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NodeRole {
    /// A named item; `container` items hold nested items in their body.
    Item {
        /// Whether to look for nested items inside.
        container: bool,
    },
    /// Not an item itself, but items live inside (export wrappers, preprocessor guards).
    Transparent,
    /// Anything else.
    Skip,
}

impl Lang {
    /// The language of a path, by extension; `None` for files without an outline grammar.
    ///
    /// ```
    /// use navigator_context::Lang;
    /// assert_eq!(Lang::from_path("src/main.rs"), Some(Lang::Rust));
    /// assert_eq!(Lang::from_path("README.md"), None);
    /// ```
    pub fn from_path(path: &str) -> Option<Lang> {
        let ext = path.rsplit_once('.')?.1.to_ascii_lowercase();
        Some(match ext.as_str() {
            "rs" => Lang::Rust,
            "py" | "pyi" => Lang::Python,
            "js" | "jsx" | "mjs" | "cjs" => Lang::JavaScript,
            "ts" | "mts" | "cts" => Lang::TypeScript,
            "tsx" => Lang::Tsx,
            "go" => Lang::Go,
            "java" => Lang::Java,
            "c" | "h" => Lang::C,
            "cc" | "cpp" | "cxx" | "hpp" | "hh" | "hxx" => Lang::Cpp,
            "rb" | "rake" | "gemspec" => Lang::Ruby,
            "php" => Lang::Php,
            "cs" => Lang::CSharp,
            "kt" | "kts" => Lang::Kotlin,
            "swift" => Lang::Swift,
            _ => return None,
        })
    }

    /// The languages whose code can call each other's functions by name: C with C++, the
    /// JavaScript dialects, the JVM's Java with Kotlin; each other language alone.
    pub(crate) fn family(self) -> u8 {
        match self {
            Lang::C | Lang::Cpp => 0,
            Lang::JavaScript | Lang::TypeScript | Lang::Tsx => 1,
            Lang::Java | Lang::Kotlin => 2,
            Lang::Rust => 3,
            Lang::Python => 4,
            Lang::Go => 5,
            Lang::Ruby => 6,
            Lang::Php => 7,
            Lang::CSharp => 8,
            Lang::Swift => 9,
        }
    }

    /// How a line comment starts in the language (outlines write doc comments with it).
    pub fn line_comment(self) -> &'static str {
        match self {
            Lang::Python | Lang::Ruby => "#",
            _ => "//",
        }
    }

    /// The name used in code fences and cache keys.
    pub fn name(self) -> &'static str {
        match self {
            Lang::Rust => "rust",
            Lang::Python => "python",
            Lang::JavaScript => "javascript",
            Lang::TypeScript => "typescript",
            Lang::Tsx => "tsx",
            Lang::Go => "go",
            Lang::Java => "java",
            Lang::C => "c",
            Lang::Cpp => "cpp",
            Lang::Ruby => "ruby",
            Lang::Php => "php",
            Lang::CSharp => "csharp",
            Lang::Kotlin => "kotlin",
            Lang::Swift => "swift",
        }
    }

    /// The grammar crate's version: part of the outline cache key, so a grammar upgrade
    /// never serves outlines parsed by the old one.
    pub(crate) fn grammar_version(self) -> &'static str {
        match self {
            Lang::Rust => "rust-0.24",
            Lang::Python => "python-0.25",
            Lang::JavaScript => "javascript-0.25",
            Lang::TypeScript | Lang::Tsx => "typescript-0.23",
            Lang::Go => "go-0.25",
            Lang::Java => "java-0.23",
            Lang::C => "c-0.24",
            Lang::Cpp => "cpp-0.23",
            Lang::Ruby => "ruby-0.23",
            Lang::Php => "php-0.25",
            Lang::CSharp => "c-sharp-0.23",
            Lang::Kotlin => "kotlin-ng-1.1",
            Lang::Swift => "swift-0.7",
        }
    }

    pub(crate) fn grammar(self) -> tree_sitter::Language {
        match self {
            Lang::Rust => tree_sitter_rust::LANGUAGE.into(),
            Lang::Python => tree_sitter_python::LANGUAGE.into(),
            Lang::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Lang::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Lang::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Lang::Go => tree_sitter_go::LANGUAGE.into(),
            Lang::Java => tree_sitter_java::LANGUAGE.into(),
            Lang::C => tree_sitter_c::LANGUAGE.into(),
            Lang::Cpp => tree_sitter_cpp::LANGUAGE.into(),
            Lang::Ruby => tree_sitter_ruby::LANGUAGE.into(),
            // PHP files may hold HTML around `<?php` blocks: the grammar that reads both.
            Lang::Php => tree_sitter_php::LANGUAGE_PHP.into(),
            Lang::CSharp => tree_sitter_c_sharp::LANGUAGE.into(),
            Lang::Kotlin => tree_sitter_kotlin_ng::LANGUAGE.into(),
            Lang::Swift => tree_sitter_swift::LANGUAGE.into(),
        }
    }

    /// Whether a node kind is a comment that can document the item after it.
    pub(crate) fn is_comment(self, kind: &str) -> bool {
        matches!(
            kind,
            "comment" | "line_comment" | "block_comment" | "multiline_comment"
        )
    }

    /// Whether a node kind is a namespace: a container that only groups the items in it.
    pub(crate) fn is_namespace(self, kind: &str) -> bool {
        matches!(
            (self, kind),
            (Lang::Ruby, "module")
                | (Lang::CSharp, "namespace_declaration")
                | (Lang::Cpp | Lang::Php, "namespace_definition")
                | (
                    Lang::JavaScript | Lang::TypeScript | Lang::Tsx,
                    "internal_module" | "module"
                )
        )
    }

    pub(crate) fn role(self, kind: &str) -> NodeRole {
        use NodeRole::*;
        let item = |container| Item { container };
        match (self, kind) {
            (Lang::Rust, "impl_item" | "trait_item" | "mod_item") => item(true),
            (
                Lang::Rust,
                "function_item"
                | "function_signature_item"
                | "struct_item"
                | "enum_item"
                | "union_item"
                | "type_item"
                | "const_item"
                | "static_item"
                | "macro_definition"
                | "associated_type",
            ) => item(false),
            (Lang::Python, "class_definition") => item(true),
            (Lang::Python, "function_definition") => item(false),
            (Lang::Python, "decorated_definition") => Transparent,
            // Definitions made under a condition (`if sys.version_info >= (3, 11):`,
            // `try: ... except ImportError: def ...`) are the module's or class's own; function
            // bodies are never walked, so this reaches no local function.
            (
                Lang::Python,
                "if_statement" | "elif_clause" | "else_clause" | "try_statement" | "except_clause"
                | "finally_clause" | "block",
            ) => Transparent,
            (
                Lang::JavaScript | Lang::TypeScript | Lang::Tsx,
                "class_declaration"
                | "abstract_class_declaration"
                | "interface_declaration"
                | "internal_module"
                | "module",
            ) => item(true),
            (
                Lang::JavaScript | Lang::TypeScript | Lang::Tsx,
                "function_declaration"
                | "generator_function_declaration"
                | "method_definition"
                | "lexical_declaration"
                | "type_alias_declaration"
                | "enum_declaration"
                | "method_signature"
                | "abstract_method_signature"
                | "function_signature",
            ) => item(false),
            (
                Lang::JavaScript | Lang::TypeScript | Lang::Tsx,
                "export_statement" | "ambient_declaration",
            ) => Transparent,
            (
                Lang::Go,
                "function_declaration" | "method_declaration" | "type_spec" | "const_declaration",
            ) => item(false),
            (Lang::Go, "type_declaration") => Transparent,
            (
                Lang::Java,
                "class_declaration"
                | "interface_declaration"
                | "enum_declaration"
                | "record_declaration"
                | "annotation_type_declaration",
            ) => item(true),
            (Lang::Java, "method_declaration" | "constructor_declaration") => item(false),
            (Lang::C | Lang::Cpp, "function_definition" | "type_definition" | "enum_specifier") => {
                item(false)
            }
            (Lang::C, "struct_specifier" | "union_specifier") => item(false),
            (Lang::Cpp, "class_specifier" | "struct_specifier" | "namespace_definition") => {
                item(true)
            }
            (Lang::C | Lang::Cpp, "declaration") => item(false),
            (Lang::Cpp, "field_declaration") => item(false),
            (Lang::Cpp, "template_declaration") => Transparent,
            // Ruby: `class << self` holds the class methods.
            (Lang::Ruby, "class" | "module" | "singleton_class") => item(true),
            (Lang::Ruby, "method" | "singleton_method") => item(false),
            (
                Lang::Php,
                "class_declaration"
                | "interface_declaration"
                | "trait_declaration"
                | "enum_declaration"
                | "namespace_definition",
            ) => item(true),
            (Lang::Php, "function_definition" | "method_declaration" | "const_declaration") => {
                item(false)
            }
            (
                Lang::CSharp,
                "class_declaration"
                | "struct_declaration"
                | "interface_declaration"
                | "record_declaration"
                | "namespace_declaration",
            ) => item(true),
            (
                Lang::CSharp,
                "method_declaration"
                | "constructor_declaration"
                | "destructor_declaration"
                | "operator_declaration"
                | "property_declaration"
                | "indexer_declaration"
                | "event_declaration"
                | "delegate_declaration"
                | "enum_declaration"
                | "file_scoped_namespace_declaration",
            ) => item(false),
            (Lang::CSharp, "declaration_list") => Transparent,
            // Kotlin: `interface`, `enum class` and `data class` are class declarations too; a
            // class's members sit in a body node without a field name.
            (Lang::Kotlin, "class_declaration" | "object_declaration" | "companion_object") => {
                item(true)
            }
            (
                Lang::Kotlin,
                "function_declaration"
                | "property_declaration"
                | "secondary_constructor"
                | "type_alias",
            ) => item(false),
            (Lang::Kotlin, "class_body" | "enum_class_body") => Transparent,
            // Swift: classes, structs, enums, actors and extensions are class declarations.
            (Lang::Swift, "class_declaration" | "protocol_declaration") => item(true),
            (
                Lang::Swift,
                "function_declaration"
                | "init_declaration"
                | "deinit_declaration"
                | "subscript_declaration"
                | "property_declaration"
                | "typealias_declaration"
                | "associatedtype_declaration"
                | "protocol_function_declaration"
                | "protocol_property_declaration",
            ) => item(false),
            (
                Lang::C | Lang::Cpp,
                "preproc_ifdef"
                | "preproc_if"
                | "preproc_else"
                | "preproc_elif"
                | "linkage_specification"
                | "declaration_list",
            ) => Transparent,
            _ => Skip,
        }
    }
}
