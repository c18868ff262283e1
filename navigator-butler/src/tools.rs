//! The tool catalog: tools the Butler knows about (name, description, JSON schema of the
//! arguments, permission), rendered into its prompt, and a gate that never runs a write or
//! destructive tool without an approval callback saying yes.

pub use super::permission::Permission;
use super::{ButlerError, Result};
use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

/// What a tool is, for the prompt and the gate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// A unique name (`calendar.create_event`).
    pub name: String,
    /// One line on what it does.
    pub description: String,
    /// JSON Schema of its arguments.
    pub schema: Value,
    /// What it may do.
    pub permission: Permission,
}

/// A tool the Butler (or a sub-agent through it) can run.
#[async_trait]
pub trait Tool: Send + Sync {
    /// Its description.
    fn spec(&self) -> &ToolSpec;

    /// Runs it with `arguments` (already checked to be a JSON object).
    async fn call(&self, arguments: Value) -> Result<Value>;
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

/// Tools by name.
///
/// ```
/// use navigator_butler::{Permission, ToolCatalog, ToolSpec};
/// let catalog = ToolCatalog::new().with_spec(ToolSpec {
///     name: "calendar.list".into(), description: "lists events".into(),
///     schema: serde_json::json!({"type": "object"}), permission: Permission::Read });
/// assert!(catalog.render().contains("calendar.list (read): lists events"));
/// ```
#[derive(Clone, Default)]
pub struct ToolCatalog {
    specs: BTreeMap<String, ToolSpec>,
    tools: BTreeMap<String, Arc<dyn Tool>>,
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
        self.specs.insert(spec.name.clone(), spec);
        self
    }

    /// Adds a runnable tool.
    pub fn with_tool(mut self, tool: Arc<dyn Tool>) -> Self {
        let spec = tool.spec().clone();
        self.tools.insert(spec.name.clone(), tool);
        self.specs.insert(spec.name.clone(), spec);
        self
    }

    /// Sets the callback asked before any write or destructive call.
    pub fn with_approver(
        mut self,
        approver: impl Fn(&ApprovalRequest<'_>) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.approver = Some(Arc::new(approver));
        self
    }

    /// Every tool's spec, sorted by name.
    pub fn specs(&self) -> impl Iterator<Item = &ToolSpec> {
        self.specs.values()
    }

    /// The catalog as prompt text: one line per tool with its permission and argument schema.
    pub fn render(&self) -> String {
        if self.specs.is_empty() {
            return "(no tools registered)".into();
        }
        self.specs
            .values()
            .map(|t| {
                format!(
                    "- {} ({}): {} — arguments: {}",
                    t.name, t.permission, t.description, t.schema
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Runs the tool `name`. Read tools run at once; write and destructive tools only when the
    /// approver says yes ([`ButlerError::NotApproved`] when there is no approver or it says no).
    pub async fn call(&self, name: &str, arguments: Value) -> Result<Value> {
        let tool = self
            .tools
            .get(name)
            .ok_or_else(|| ButlerError::UnknownTool(name.to_string()))?;
        let spec = tool.spec();
        if !arguments.is_object() {
            return Err(ButlerError::invalid(
                format!("{name}.arguments"),
                format!("must be a JSON object, got {arguments}"),
            ));
        }
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
        async fn call(&self, arguments: Value) -> Result<Value> {
            self.calls.fetch_add(1, Ordering::SeqCst);
            Ok(arguments)
        }
    }

    fn tool(name: &str, permission: Permission) -> Arc<Counting> {
        Arc::new(Counting {
            spec: ToolSpec {
                name: name.into(),
                description: format!("{name} tool"),
                schema: serde_json::json!({"type": "object"}),
                permission,
            },
            calls: AtomicUsize::new(0),
        })
    }

    #[tokio::test]
    async fn read_runs_write_and_destructive_need_a_yes() {
        let (read, write, delete) = (
            tool("inbox.list", Permission::Read),
            tool("calendar.create", Permission::Write),
            tool("mail.delete", Permission::Destructive),
        );
        let unapproved = ToolCatalog::new()
            .with_tool(read.clone())
            .with_tool(write.clone())
            .with_tool(delete.clone());
        let args = serde_json::json!({"id": 1});
        assert_eq!(
            unapproved.call("inbox.list", args.clone()).await.unwrap(),
            args
        );
        for name in ["calendar.create", "mail.delete"] {
            let err = unapproved.call(name, args.clone()).await.unwrap_err();
            assert!(matches!(err, ButlerError::NotApproved { .. }), "{err}");
        }
        let refusing = unapproved.clone().with_approver(|_| false);
        assert!(refusing.call("mail.delete", args.clone()).await.is_err());
        assert_eq!(
            (
                write.calls.load(Ordering::SeqCst),
                delete.calls.load(Ordering::SeqCst)
            ),
            (0, 0)
        );

        let approving = unapproved.with_approver(|r| r.tool.permission == Permission::Write);
        approving
            .call("calendar.create", args.clone())
            .await
            .unwrap();
        assert!(approving.call("mail.delete", args.clone()).await.is_err());
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
        let catalog = ToolCatalog::new().with_tool(tool("inbox.list", Permission::Read));
        assert!(matches!(
            catalog.call("nope", serde_json::json!({})).await,
            Err(ButlerError::UnknownTool(n)) if n == "nope"
        ));
        let err = catalog
            .call("inbox.list", serde_json::json!([1]))
            .await
            .unwrap_err();
        assert!(err.to_string().contains("inbox.list.arguments"), "{err}");
    }
}
