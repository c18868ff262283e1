//! The tool catalog: tools the Butler knows about (name, description, JSON Schema of the
//! arguments, permission), offered to the model as tool definitions, and the gate every call
//! passes: the tool must exist, its arguments must satisfy its schema (checked with the
//! `jsonschema` crate, every violation named by its JSON pointer), and a write or destructive
//! tool runs only after an approval callback says yes.

pub use super::permission::Permission;
use super::{ButlerError, Result};
use async_trait::async_trait;
use navigator_core::ToolDefinition;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Longest tool name both providers accept.
const MAX_NAME: usize = 64;

/// Most schema violations quoted back for one call.
const MAX_PROBLEMS: usize = 8;

/// What a tool is, for the prompt and the gate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// A unique name, `[a-zA-Z0-9_-]{1,64}` (`search_knowledge`): the providers' rule.
    pub name: String,
    /// One line on what it does.
    pub description: String,
    /// JSON Schema of its arguments (an object).
    pub schema: Value,
    /// What it may do.
    pub permission: Permission,
}

impl ToolSpec {
    /// The spec as the model sees it.
    pub fn definition(&self) -> ToolDefinition {
        ToolDefinition {
            name: self.name.clone(),
            description: self.description.clone(),
            parameters: self.schema.clone(),
        }
    }
}

/// Where a fact in a tool's result came from: a note, a file, a task.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Source {
    /// The tool that returned it.
    pub tool: String,
    /// Its id where it lives (a note id, a repository path, a task id).
    pub id: String,
    /// A human title (the note's title, the path, the task's name).
    pub title: String,
}

/// What a tool returned: the content handed to the model and the sources it cites.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolOutput {
    /// The result, as JSON.
    pub content: Value,
    /// What it was read from.
    pub sources: Vec<Source>,
}

impl ToolOutput {
    /// A result without sources.
    pub fn new(content: Value) -> Self {
        Self {
            content,
            sources: Vec::new(),
        }
    }

    /// Adds sources.
    pub fn with_sources(mut self, sources: Vec<Source>) -> Self {
        self.sources = sources;
        self
    }
}

impl From<Value> for ToolOutput {
    fn from(content: Value) -> Self {
        Self::new(content)
    }
}

/// A tool the Butler (or a sub-agent through it) can run.
#[async_trait]
pub trait Tool: Send + Sync {
    /// Its description.
    fn spec(&self) -> &ToolSpec;

    /// Runs it with `arguments`, already checked against [`ToolSpec::schema`].
    async fn call(&self, arguments: Value) -> Result<ToolOutput>;
}

/// The question put to the approver: which tool, with what.
#[derive(Debug, Clone, PartialEq)]
pub struct ApprovalRequest<'a> {
    /// The tool.
    pub tool: &'a ToolSpec,
    /// The arguments it would run with.
    pub arguments: &'a Value,
}

/// Decides whether a write or destructive call may run (a UI prompt, a policy engine).
pub type Approver = Arc<dyn Fn(&ApprovalRequest<'_>) -> bool + Send + Sync>;

/// A compiled argument schema, or why it would not compile.
type Compiled = std::result::Result<Arc<jsonschema::Validator>, String>;

/// Tools by name.
///
/// ```
/// use navigator_butler::{Permission, ToolCatalog, ToolSpec};
/// let catalog = ToolCatalog::new().with_spec(ToolSpec {
///     name: "calendar_list".into(), description: "lists events".into(),
///     schema: serde_json::json!({"type": "object"}), permission: Permission::Read });
/// assert!(catalog.render().contains("calendar_list (read): lists events"));
/// catalog.check()?;
/// # Ok::<(), navigator_butler::ButlerError>(())
/// ```
#[derive(Clone, Default)]
pub struct ToolCatalog {
    specs: BTreeMap<String, ToolSpec>,
    tools: BTreeMap<String, Arc<dyn Tool>>,
    schemas: BTreeMap<String, Compiled>,
    approver: Option<Approver>,
}

impl std::fmt::Debug for ToolCatalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolCatalog")
            .field("tools", &self.specs.keys().collect::<Vec<_>>())
            .field("approver", &self.approver.is_some())
            .finish()
    }
}

impl ToolCatalog {
    /// No tools, no approver (so only read tools can run).
    pub fn new() -> Self {
        Self::default()
    }

    /// Lists a tool the Butler should know about without running it itself (sub-agents do).
    pub fn with_spec(mut self, spec: ToolSpec) -> Self {
        self.schemas
            .insert(spec.name.clone(), compile(&spec.schema));
        self.specs.insert(spec.name.clone(), spec);
        self
    }

    /// Adds a runnable tool (replacing one of the same name).
    pub fn with_tool(mut self, tool: Arc<dyn Tool>) -> Self {
        let spec = tool.spec().clone();
        self.tools.insert(spec.name.clone(), tool);
        self.with_spec(spec)
    }

    /// Adds every tool and spec of `other` (this catalog's approver stays): one catalog for the
    /// Butler's prompt out of its specialists' catalogs.
    pub fn with_catalog(mut self, other: &ToolCatalog) -> Self {
        for tool in other.tools.values() {
            self = self.with_tool(tool.clone());
        }
        for spec in other.specs.values() {
            if !self.specs.contains_key(&spec.name) {
                self = self.with_spec(spec.clone());
            }
        }
        self
    }

    /// Adds every tool of `tools`.
    pub fn with_tools(self, tools: impl IntoIterator<Item = Arc<dyn Tool>>) -> Self {
        tools.into_iter().fold(self, Self::with_tool)
    }

    /// Sets the callback asked before any write or destructive call.
    pub fn with_approver(
        mut self,
        approver: impl Fn(&ApprovalRequest<'_>) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.approver = Some(Arc::new(approver));
        self
    }

    /// The runnable tools named in `names` (unknown names are an error), same approver:
    /// what one specialist may use.
    pub fn subset(&self, names: &[&str]) -> Result<Self> {
        let mut out = Self {
            approver: self.approver.clone(),
            ..Self::default()
        };
        for name in names {
            let tool = self
                .tools
                .get(*name)
                .ok_or_else(|| ButlerError::UnknownTool(name.to_string()))?;
            out = out.with_tool(tool.clone());
        }
        Ok(out)
    }

    /// Checks every tool: a name the providers accept, an object schema that compiles.
    pub fn check(&self) -> Result<()> {
        for (name, spec) in &self.specs {
            let valid = !name.is_empty()
                && name.len() <= MAX_NAME
                && name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
            if !valid {
                return Err(ButlerError::invalid(
                    "tools.name",
                    format!("`{name}` must be 1..={MAX_NAME} characters of [a-zA-Z0-9_-]"),
                ));
            }
            if spec.schema.get("type").and_then(Value::as_str) != Some("object") {
                return Err(ButlerError::invalid(
                    format!("tools.{name}.schema"),
                    "must be a JSON Schema with \"type\": \"object\"",
                ));
            }
            if let Some(Err(e)) = self.schemas.get(name) {
                return Err(ButlerError::invalid(
                    format!("tools.{name}.schema"),
                    format!("does not compile: {e}"),
                ));
            }
        }
        Ok(())
    }

    /// Whether the catalog holds no tools.
    pub fn is_empty(&self) -> bool {
        self.specs.is_empty()
    }

    /// Every tool's spec, sorted by name.
    pub fn specs(&self) -> impl Iterator<Item = &ToolSpec> {
        self.specs.values()
    }

    /// The runnable tools as the model sees them, sorted by name (a stable order: the
    /// definitions are part of the cached prompt prefix).
    pub fn definitions(&self) -> Vec<ToolDefinition> {
        self.tools.values().map(|t| t.spec().definition()).collect()
    }

    /// The catalog as prompt text: one line per tool with its permission and description
    /// (the argument schemas travel as tool definitions).
    pub fn render(&self) -> String {
        if self.specs.is_empty() {
            return "(no tools registered)".into();
        }
        self.specs
            .values()
            .map(|t| format!("- {} ({}): {}", t.name, t.permission, t.description))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Checks `arguments` against the tool's schema: every violation, by JSON pointer.
    pub fn validate(&self, name: &str, arguments: &Value) -> Result<()> {
        let compiled = self
            .schemas
            .get(name)
            .ok_or_else(|| ButlerError::UnknownTool(name.to_string()))?;
        let validator = compiled.as_ref().map_err(|e| {
            ButlerError::invalid(
                format!("tools.{name}.schema"),
                format!("does not compile: {e}"),
            )
        })?;
        if !arguments.is_object() {
            return Err(ButlerError::InvalidArguments {
                tool: name.to_string(),
                problems: vec![format!(
                    "the arguments must be a JSON object, got {arguments}"
                )],
            });
        }
        let problems: Vec<String> = validator
            .iter_errors(arguments)
            .take(MAX_PROBLEMS)
            .map(|e| {
                let at = e.instance_path().to_string();
                match at.is_empty() {
                    true => e.to_string(),
                    false => format!("{at}: {e}"),
                }
            })
            .collect();
        if problems.is_empty() {
            Ok(())
        } else {
            Err(ButlerError::InvalidArguments {
                tool: name.to_string(),
                problems,
            })
        }
    }

    /// Runs the tool `name`: its arguments must satisfy its schema
    /// ([`ButlerError::InvalidArguments`]); read tools then run at once, write and
    /// destructive tools only when the approver says yes ([`ButlerError::NotApproved`] when
    /// there is no approver or it says no).
    pub async fn call(&self, name: &str, arguments: Value) -> Result<ToolOutput> {
        let tool = self
            .tools
            .get(name)
            .ok_or_else(|| ButlerError::UnknownTool(name.to_string()))?;
        self.validate(name, &arguments)?;
        let spec = tool.spec();
        if spec.permission != Permission::Read {
            let request = ApprovalRequest {
                tool: spec,
                arguments: &arguments,
            };
            let reason = match &self.approver {
                None => Some("no approval callback is configured"),
                Some(approve) if !approve(&request) => Some("the approver refused"),
                Some(_) => None,
            };
            if let Some(reason) = reason {
                return Err(ButlerError::NotApproved {
                    tool: name.to_string(),
                    permission: spec.permission,
                    reason: reason.into(),
                });
            }
        }
        tool.call(arguments).await
    }
}

fn compile(schema: &Value) -> Compiled {
    jsonschema::validator_for(schema)
        .map(Arc::new)
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    struct Counting {
        spec: ToolSpec,
        calls: AtomicUsize,
    }

    #[async_trait]
    impl Tool for Counting {
        fn spec(&self) -> &ToolSpec {
            &self.spec
        }
        async fn call(&self, arguments: Value) -> Result<ToolOutput> {
            self.calls.fetch_add(1, Ordering::SeqCst);
            Ok(arguments.into())
        }
    }

    fn tool(name: &str, permission: Permission) -> Arc<Counting> {
        Arc::new(Counting {
            spec: ToolSpec {
                name: name.into(),
                description: format!("{name} tool"),
                schema: serde_json::json!({"type": "object",
                    "properties": {"id": {"type": "integer", "minimum": 0}}}),
                permission,
            },
            calls: AtomicUsize::new(0),
        })
    }

    #[tokio::test]
    async fn read_runs_write_and_destructive_need_a_yes() {
        let (read, write, delete) = (
            tool("inbox_list", Permission::Read),
            tool("calendar_create", Permission::Write),
            tool("mail_delete", Permission::Destructive),
        );
        let unapproved = ToolCatalog::new()
            .with_tool(read.clone())
            .with_tool(write.clone())
            .with_tool(delete.clone());
        let args = serde_json::json!({"id": 1});
        assert_eq!(
            unapproved
                .call("inbox_list", args.clone())
                .await
                .unwrap()
                .content,
            args
        );
        for name in ["calendar_create", "mail_delete"] {
            let err = unapproved.call(name, args.clone()).await.unwrap_err();
            assert!(matches!(err, ButlerError::NotApproved { .. }), "{err}");
        }
        let refusing = unapproved.clone().with_approver(|_| false);
        assert!(refusing.call("mail_delete", args.clone()).await.is_err());
        assert_eq!(
            (
                write.calls.load(Ordering::SeqCst),
                delete.calls.load(Ordering::SeqCst)
            ),
            (0, 0)
        );

        let approving = unapproved.with_approver(|r| r.tool.permission == Permission::Write);
        approving
            .call("calendar_create", args.clone())
            .await
            .unwrap();
        assert!(approving.call("mail_delete", args.clone()).await.is_err());
        assert_eq!(
            (
                write.calls.load(Ordering::SeqCst),
                delete.calls.load(Ordering::SeqCst)
            ),
            (1, 0)
        );
    }

    #[tokio::test]
    async fn unknown_tool_and_non_object_arguments_are_typed_errors() {
        let catalog = ToolCatalog::new().with_tool(tool("inbox_list", Permission::Read));
        assert!(matches!(
            catalog.call("nope", serde_json::json!({})).await,
            Err(ButlerError::UnknownTool(n)) if n == "nope"
        ));
        let err = catalog
            .call("inbox_list", serde_json::json!([1]))
            .await
            .unwrap_err();
        assert!(
            matches!(&err, ButlerError::InvalidArguments { tool, .. } if tool == "inbox_list"),
            "{err}"
        );
    }

    #[tokio::test]
    async fn arguments_breaking_the_schema_are_named_and_the_tool_does_not_run() {
        let t = tool("inbox_list", Permission::Read);
        let catalog = ToolCatalog::new().with_tool(t.clone());
        let err = catalog
            .call("inbox_list", serde_json::json!({"id": -3}))
            .await
            .unwrap_err();
        let ButlerError::InvalidArguments { problems, .. } = &err else {
            panic!("{err}")
        };
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].starts_with("/id: "), "{problems:?}");
        assert_eq!(t.calls.load(Ordering::SeqCst), 0);
        catalog
            .call("inbox_list", serde_json::json!({"id": 3}))
            .await
            .unwrap();
        assert_eq!(t.calls.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn names_and_schemas_are_checked() {
        let spec = |name: &str, schema| ToolSpec {
            name: name.into(),
            description: "d".into(),
            schema,
            permission: Permission::Read,
        };
        let ok = serde_json::json!({"type": "object"});
        assert!(ToolCatalog::new()
            .with_spec(spec("a_b-1", ok.clone()))
            .check()
            .is_ok());
        for bad in ["calendar.create", "", &"x".repeat(65)] {
            let err = ToolCatalog::new().with_spec(spec(bad, ok.clone())).check();
            assert!(err.is_err(), "{bad}");
        }
        let err = ToolCatalog::new()
            .with_spec(spec("t", serde_json::json!({"type": "array"})))
            .check()
            .unwrap_err();
        assert!(err.to_string().contains("tools.t.schema"), "{err}");
        let err = ToolCatalog::new()
            .with_spec(spec(
                "t",
                serde_json::json!({"type": "object", "minProperties": "x"}),
            ))
            .check()
            .unwrap_err();
        assert!(err.to_string().contains("does not compile"), "{err}");
    }

    #[test]
    fn subsets_keep_only_the_named_tools_in_name_order() {
        let catalog = ToolCatalog::new()
            .with_tool(tool("b_tool", Permission::Read))
            .with_tool(tool("a_tool", Permission::Write))
            .with_tool(tool("c_tool", Permission::Read));
        let names = |c: &ToolCatalog| {
            c.definitions()
                .into_iter()
                .map(|d| d.name)
                .collect::<Vec<_>>()
        };
        assert_eq!(names(&catalog), ["a_tool", "b_tool", "c_tool"]);
        assert_eq!(
            names(&catalog.subset(&["c_tool", "a_tool"]).unwrap()),
            ["a_tool", "c_tool"]
        );
        assert!(matches!(
            catalog.subset(&["nope"]),
            Err(ButlerError::UnknownTool(_))
        ));
    }
}
