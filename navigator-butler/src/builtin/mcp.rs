//! [`McpToolset`]: the tools of an MCP server as Butler tools, through the official `rmcp`
//! client. The schemas are the server's own `inputSchema`s; the permission comes from its
//! annotations (`readOnlyHint` → read, `destructiveHint` → destructive, anything else →
//! write, so an unannotated tool needs approval). A call's structured content (or its text) is
//! the result; a result with `isError` becomes a failed call whose message the model sees.

use crate::tools::{Permission, Source, Tool, ToolOutput, ToolSpec};
use crate::{ButlerError, Result};
use async_trait::async_trait;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use serde_json::Value;
use std::sync::Arc;

/// Bytes buffered each way on the in-process pipe.
const PIPE_BYTES: usize = 256 * 1024;

type Client = RunningService<RoleClient, ()>;

/// A connected MCP server and its tools.
///
/// ```no_run
/// use navigator_butler::{McpToolset, ToolCatalog};
/// # async fn run() -> navigator_butler::Result<()> {
/// // The workflow engine's MCP server, in process: the same functions `navigator mcp` serves.
/// let server = navigator_workflow::mcp::NavigatorServer::new(navigator_workflow::Navigator::new());
/// let workflow = McpToolset::workflow(server).await?;
/// let catalog = ToolCatalog::new().with_tools(workflow.tools());
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct McpToolset {
    server: String,
    tools: Vec<Arc<dyn Tool>>,
}

impl std::fmt::Debug for McpToolset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpToolset")
            .field("server", &self.server)
            .field(
                "tools",
                &self
                    .tools
                    .iter()
                    .map(|t| &t.spec().name)
                    .collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl McpToolset {
    /// The workflow engine's MCP server ([`NavigatorServer`](navigator_workflow::mcp::NavigatorServer)),
    /// served in process over a pipe: every task tool `navigator mcp` exposes, with its
    /// validation, sync reminders and state file.
    pub async fn workflow(server: navigator_workflow::mcp::NavigatorServer) -> Result<Self> {
        let (client_side, server_side) = tokio::io::duplex(PIPE_BYTES);
        let (read, write) = tokio::io::split(server_side);
        tokio::spawn(async move {
            if let Err(e) = server.serve_on(read, write).await {
                tracing::warn!(error = %e, "the in-process workflow MCP server stopped");
            }
        });
        Self::connect("workflow", client_side).await
    }

    /// Starts `command` (an MCP server speaking stdio) as a child process and takes its tools.
    pub async fn child_process(server: &str, command: tokio::process::Command) -> Result<Self> {
        let transport =
            rmcp::transport::TokioChildProcess::new(command).map_err(|e| ButlerError::Mcp {
                server: server.to_string(),
                message: format!("could not start it: {e}"),
            })?;
        Self::connect(server, transport).await
    }

    /// Connects over any rmcp transport (a byte stream pair, a child process) named `server`,
    /// and lists its tools.
    pub async fn connect<T, E, A>(server: &str, transport: T) -> Result<Self>
    where
        T: rmcp::transport::IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let failed = |what: &str, e: &dyn std::fmt::Display| ButlerError::Mcp {
            server: server.to_string(),
            message: format!("{what}: {e}"),
        };
        let client: Client = ().serve(transport).await.map_err(|e| failed("initialize", &e))?;
        let listed = client
            .list_all_tools()
            .await
            .map_err(|e| failed("tools/list", &e))?;
        let client = Arc::new(client);
        let tools = listed
            .into_iter()
            .map(|t| {
                let permission = match &t.annotations {
                    Some(a) if a.read_only_hint == Some(true) => Permission::Read,
                    Some(a) if a.destructive_hint == Some(true) => Permission::Destructive,
                    // MCP's default for destructiveHint is true when not read-only.
                    Some(a) if a.destructive_hint == Some(false) => Permission::Write,
                    _ => Permission::Destructive,
                };
                let spec = ToolSpec {
                    name: t.name.to_string(),
                    description: t.description.as_deref().unwrap_or_default().to_string(),
                    schema: Value::Object((*t.input_schema).clone()),
                    permission,
                };
                Arc::new(McpTool {
                    server: server.to_string(),
                    client: client.clone(),
                    spec,
                }) as Arc<dyn Tool>
            })
            .collect();
        Ok(Self {
            server: server.to_string(),
            tools,
        })
    }

    /// The server's name.
    pub fn server(&self) -> &str {
        &self.server
    }

    /// Its tools, to add to a [`ToolCatalog`](crate::ToolCatalog).
    pub fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.tools.clone()
    }
}

/// One tool of a connected server.
struct McpTool {
    server: String,
    client: Arc<Client>,
    spec: ToolSpec,
}

#[async_trait]
impl Tool for McpTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, arguments: Value) -> Result<ToolOutput> {
        let mut params = CallToolRequestParams::new(self.spec.name.clone());
        params.arguments = match arguments {
            Value::Object(map) => Some(map),
            _ => None,
        };
        let result = self
            .client
            .call_tool(params)
            .await
            .map_err(|e| ButlerError::Mcp {
                server: self.server.clone(),
                message: format!("tools/call {}: {e}", self.spec.name),
            })?;
        let content = content_of(&result);
        if result.is_error == Some(true) {
            return Err(ButlerError::Mcp {
                server: self.server.clone(),
                message: format!("{} failed: {content}", self.spec.name),
            });
        }
        let sources = task_sources(&self.spec.name, &content);
        Ok(ToolOutput::new(content).with_sources(sources))
    }
}

/// The structured content, else the text blocks (parsed when they are JSON).
fn content_of(result: &CallToolResult) -> Value {
    if let Some(v) = &result.structured_content {
        return v.clone();
    }
    let text: Vec<&str> = result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.as_str()))
        .collect();
    let joined = text.join("\n");
    serde_json::from_str(&joined).unwrap_or(Value::String(joined))
}

/// Tasks named in a result (`id` beside `name`, `title`, `issueId` or `description` anywhere in
/// `data`), as sources.
fn task_sources(tool: &str, content: &Value) -> Vec<Source> {
    let mut out = Vec::new();
    collect(tool, content.get("data").unwrap_or(content), &mut out, 0);
    out
}

fn collect(tool: &str, v: &Value, out: &mut Vec<Source>, depth: usize) {
    if depth > 6 || out.len() >= 50 {
        return;
    }
    match v {
        Value::Object(map) => {
            let id = map.get("id").and_then(Value::as_str);
            let title = ["name", "title", "issueId", "description"]
                .iter()
                .find_map(|k| map.get(*k).and_then(Value::as_str));
            if let (Some(id), Some(title)) = (id, title) {
                let s = Source {
                    tool: tool.to_string(),
                    id: id.to_string(),
                    title: title.to_string(),
                };
                if !out.contains(&s) {
                    out.push(s);
                }
            }
            for child in map.values() {
                collect(tool, child, out, depth + 1);
            }
        }
        Value::Array(items) => {
            for item in items {
                collect(tool, item, out, depth + 1);
            }
        }
        _ => {}
    }
}
