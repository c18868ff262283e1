//! Items JavaScript and TypeScript define by assignment rather than by declaration: CommonJS
//! code (`res.cookie = function (name, value) {...}`, `exports.parse = ...`,
//! `App.prototype.listen = function listen() {...}`, `module.exports = { get header() {...} }`,
//! `defineGetter(req, 'host', function host() {...})`) and functions held by variables
//! (`const useFetch = () => {...}`, `var compile = function () {...}`), named as a reader
//! would call them. Imports (`const fs = require('fs')`) are no items.

use crate::lang::NodeRole;
use tree_sitter::Node;

/// Kinds of a value that is a function (or a class) defined in place.
fn is_function(kind: &str) -> bool {
    matches!(
        kind,
        "function_expression"
            | "function"
            | "arrow_function"
            | "generator_function"
            | "class"
            | "async_function"
    )
}

/// The role of `node` when assignment or a variable makes it an item, `None` to leave it to
/// the node kind's own role.
pub(crate) fn role(src: &str, node: Node) -> Option<NodeRole> {
    let item = |container| Some(NodeRole::Item { container });
    match node.kind() {
        "lexical_declaration" | "variable_declaration" => {
            if declarators(node).all(|d| {
                d.child_by_field_name("value")
                    .is_some_and(|v| is_import(src, v))
            }) {
                Some(NodeRole::Skip)
            } else {
                item(false)
            }
        }
        "expression_statement" => {
            let expr = node.named_child(0)?;
            match expr.kind() {
                "assignment_expression" => {
                    let right = assigned_value(expr)?;
                    if is_function(right.kind()) {
                        item(false)
                    } else if right.kind() == "object" && holds_functions(right) {
                        item(true)
                    } else {
                        None
                    }
                }
                "call_expression" => {
                    named_function_argument(expr).map(|_| NodeRole::Item { container: false })
                }
                _ => None,
            }
        }
        // A class field holding a function (`handleClick = () => {...}`), a property of an
        // object literal holding one (`get: function (field) {...}`).
        "field_definition" | "public_field_definition" | "pair" => {
            holds_a_function(node).then_some(NodeRole::Item { container: false })
        }
        _ => None,
    }
}

/// The object an assignment made an item of holds (`module.exports = { ... }`): where its
/// methods are.
pub(crate) fn assigned_object(node: Node) -> Option<Node> {
    if node.kind() != "expression_statement" {
        return None;
    }
    let expr = node.named_child(0)?;
    if expr.kind() != "assignment_expression" {
        return None;
    }
    let right = assigned_value(expr)?;
    (right.kind() == "object").then_some(right)
}

/// The value an assignment gives, through a chain of them (`res.set = res.header = function
/// header() {...}`: the function, which both names hold).
fn assigned_value(assignment: Node) -> Option<Node> {
    let mut value = assignment.child_by_field_name("right")?;
    for _ in 0..16 {
        if value.kind() != "assignment_expression" {
            break;
        }
        value = value.child_by_field_name("right")?;
    }
    Some(value)
}

/// The node naming an item of [`role`]: a variable's name, the property assigned to (`cookie`
/// of `res.cookie = ...`, `listen` of `App.prototype.listen = ...`), the function a module's
/// exports are (`module.exports = function createApp() {...}`), a pair's key, or the name of
/// the function a call is given.
pub(crate) fn name_node<'t>(src: &str, node: Node<'t>) -> Option<Node<'t>> {
    match node.kind() {
        "lexical_declaration" | "variable_declaration" => {
            let name = declarators(node).next()?.child_by_field_name("name")?;
            (name.kind() == "identifier").then_some(name)
        }
        "expression_statement" => {
            let expr = node.named_child(0)?;
            match expr.kind() {
                "assignment_expression" => {
                    // The first name of a chain (`set` of `res.set = res.header = ...`).
                    let left = expr.child_by_field_name("left")?;
                    let right = assigned_value(expr)?;
                    let own = right.child_by_field_name("name");
                    match left.kind() {
                        "member_expression" => {
                            let property = left.child_by_field_name("property")?;
                            if own.is_some() && &src[left.byte_range()] == "module.exports" {
                                own
                            } else {
                                Some(property)
                            }
                        }
                        "identifier" => own.or(Some(left)),
                        _ => own,
                    }
                }
                "call_expression" => named_function_argument(expr)?.child_by_field_name("name"),
                _ => None,
            }
        }
        "pair" => node.child_by_field_name("key"),
        "field_definition" => node.child_by_field_name("property"),
        _ => None,
    }
}

/// The declarators of a `const`, `let` or `var`.
fn declarators<'t>(node: Node<'t>) -> impl Iterator<Item = Node<'t>> {
    let mut cursor = node.walk();
    let all: Vec<Node<'t>> = node
        .named_children(&mut cursor)
        .filter(|c| c.kind() == "variable_declarator")
        .collect();
    all.into_iter()
}

/// Whether `value` imports a module: `require('x')`, `require('x').y`, `await import('x')`.
fn is_import(src: &str, value: Node) -> bool {
    let mut v = value;
    for _ in 0..8 {
        match v.kind() {
            "call_expression" => {
                let Some(f) = v.child_by_field_name("function") else {
                    return false;
                };
                match f.kind() {
                    "identifier" => return &src[f.byte_range()] == "require",
                    "import" => return true,
                    // `require('debug')('app')`: a module's factory called at once.
                    _ => v = f,
                }
            }
            "member_expression" => match v.child_by_field_name("object") {
                Some(o) => v = o,
                None => return false,
            },
            "await_expression" | "parenthesized_expression" => match v.named_child(0) {
                Some(o) => v = o,
                None => return false,
            },
            _ => return false,
        }
    }
    false
}

/// Whether an object literal holds a method or a function-valued property.
fn holds_functions(object: Node) -> bool {
    let mut cursor = object.walk();
    let found = object.named_children(&mut cursor).any(|c| match c.kind() {
        "method_definition" => true,
        "pair" => holds_a_function(c),
        _ => false,
    });
    found
}

/// Whether a field or a property's value is a function defined in place.
fn holds_a_function(node: Node) -> bool {
    node.child_by_field_name("value")
        .is_some_and(|v| is_function(v.kind()))
}

/// The named function expression a call is given (`defineGetter(req, 'host', function host()
/// {...})`): a definition made through a helper. Anonymous callbacks (`describe('x', () =>
/// ...)`) define nothing.
fn named_function_argument(call: Node) -> Option<Node> {
    let args = call.child_by_field_name("arguments")?;
    let mut cursor = args.walk();
    let found = args.named_children(&mut cursor).find(|a| {
        matches!(a.kind(), "function_expression" | "function")
            && a.child_by_field_name("name").is_some()
    });
    found
}
