//! The MCP server: navigator's operations as tools over stdio, built on the official `rmcp`
//! SDK.
//!
//! Every successful call answers `{ "data": ..., "_sync_reminder"?: { message, count,
//! pending, truncated } }` (the reminder on mutating calls while anything is unconfirmed; it
//! lists the oldest [`REMINDER_PAGE`](crate::REMINDER_PAGE) syncs, `get_pending_syncs` pages
//! through the rest). Arguments of the wrong shape (a missing or unknown field, a wrong
//! type), arguments that name unknown things and arguments that break a rule are all tool
//! errors (`isError: true`) whose structured content is `{ "error": { "code", "message" } }`
//! (`invalid_argument` for the wrong shape), so the calling model sees what to fix. Every
//! tool declares this envelope as its `outputSchema` and carries read-only / destructive /
//! idempotent hints.
//!
//! With a state file ([`NavigatorServer::with_state`]) every change is written to disk
//! (atomically, fsynced) before it is acknowledged, and loaded again on start, so a crash
//! or `kill -9` loses no acknowledged change. Agents take tasks with leases
//! (`claim_task` / `release_task`), so two agents never hold one task, and a person hands a
//! task that escalated to them back with `resume_task`.
//!
//! ```no_run
//! # async fn run() -> navigator_workflow::Result<()> {
//! navigator_workflow::mcp::serve_stdio(navigator_workflow::Navigator::new()).await?;
//! # Ok(()) }
//! ```

mod args;
mod jsonrpc;
pub use jsonrpc::invalid_message_reply;
mod state;
mod tools;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use rmcp::model::{CallToolResult, JsonObject};
use rmcp::ServiceExt;
use serde::Serialize;
use serde_json::json;

use crate::error::Error;
use crate::navigator::Navigator;

/// The stdio front any rmcp server can put before itself, so a line that is not JSON gets a
/// JSON-RPC `-32700` reply instead of rmcp's silence (see [`serve_stdio`]): give it the
/// process's input and output, serve on the pair it returns. Must be called inside a tokio
/// runtime (it spawns the two pumps).
///
/// The replies reach `output` through a task of their own, so a process that exits as soon
/// as its server stops can lose the last ones; use [`json_rpc_front_drained`] and wait for
/// the drain before exiting.
pub fn json_rpc_front(
    input: impl tokio::io::AsyncRead + Unpin + Send + 'static,
    output: impl tokio::io::AsyncWrite + Unpin + Send + 'static,
) -> (tokio::io::DuplexStream, tokio::io::DuplexStream) {
    let (server_in, server_out, _drain) = jsonrpc::front(input, output);
    (server_in, server_out)
}

/// The error for a call to a tool a server lacks, naming the tool asked for and the tools
/// there are (rmcp's own says only "tool not found"). Both MCP servers of the command line
/// answer with it.
pub fn unknown_tool<S: Send + Sync + 'static>(
    name: &str,
    router: &rmcp::handler::server::router::tool::ToolRouter<S>,
) -> rmcp::ErrorData {
    let mut names: Vec<String> = router
        .list_all()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    names.sort();
    rmcp::ErrorData::invalid_params(
        format!(
            "unknown tool `{name}`; this server's tools are: {}",
            names.join(", ")
        ),
        None,
    )
}

/// [`json_rpc_front`], plus the [`FrontDrain`] to wait for once the server has stopped, so
/// that every reply the server wrote is on `output` before the process exits.
///
/// ```no_run
/// # use rmcp::ServiceExt;
/// # async fn run(server: navigator_workflow::mcp::NavigatorServer) -> Result<(), Box<dyn std::error::Error>> {
/// let (input, output) = rmcp::transport::stdio_pipes();
/// let (server_in, server_out, drain) = navigator_workflow::mcp::json_rpc_front_drained(input, output);
/// server.serve((server_in, server_out)).await?.waiting().await?;
/// drain.wait().await;
/// # Ok(()) }
/// ```
pub fn json_rpc_front_drained(
    input: impl tokio::io::AsyncRead + Unpin + Send + 'static,
    output: impl tokio::io::AsyncWrite + Unpin + Send + 'static,
) -> (tokio::io::DuplexStream, tokio::io::DuplexStream, FrontDrain) {
    let (server_in, server_out, drain) = jsonrpc::front(input, output);
    (server_in, server_out, FrontDrain(drain))
}

/// The output side of a [`json_rpc_front_drained`]: done once the server's writer is dropped
/// (the server stopped) and every line it wrote, and every parse-error reply, is written and
/// flushed to the front's output.
#[derive(Debug)]
pub struct FrontDrain(tokio::task::JoinHandle<()>);

impl FrontDrain {
    /// Waits until the front's output has everything the server wrote. Call it after the
    /// server has stopped (e.g. after `RunningService::waiting`); before, it waits for that.
    pub async fn wait(self) {
        // The pump only ends by returning; a join error means the runtime is shutting down,
        // when there is nothing left to wait for.
        let _ = self.0.await;
    }
}

pub use args::{
    AdvanceTaskArgs, ClaimTaskArgs, ConfirmSyncArgs, LoadTaskTreeArgs, LoadWorkflowArgs,
    NextTasksArgs, PendingSyncsArgs, ReleaseTaskArgs, ResumeTaskArgs, TaskIdArgs,
    TasksByStatusArgs, WorkflowIdArgs,
};

/// An MCP server around a shared [`Navigator`], optionally kept in a state file.
#[derive(Debug, Clone)]
pub struct NavigatorServer {
    state: Arc<Mutex<Navigator>>,
    file: Option<Arc<PathBuf>>,
    /// The lock on the state file's `.lock` companion, held for the server's life.
    _lock: Option<Arc<std::fs::File>>,
}

/// Serves `navigator` over stdin/stdout until the client disconnects.
///
/// When both streams are pipes — how MCP clients launch servers — they are driven by the
/// async reactor instead of tokio's blocking pool, which cuts a round trip roughly in
/// three; anything else (a terminal, a file) falls back to plain stdio.
pub async fn serve_stdio(navigator: Navigator) -> Result<(), Error> {
    NavigatorServer::new(navigator).serve_stdio().await
}

impl NavigatorServer {
    /// Wraps a navigator (possibly pre-loaded with workflows or restored from a snapshot).
    pub fn new(navigator: Navigator) -> Self {
        NavigatorServer {
            state: Arc::new(Mutex::new(navigator)),
            file: None,
            _lock: None,
        }
    }

    /// A server whose state lives in `path`: loaded from it when it exists (else `fresh`),
    /// and written back, atomically and fsynced, after every change and before the reply.
    /// The file is written once at start, so a bad path fails here rather than on the first
    /// change. One server per state file: the server holds an exclusive lock on
    /// `<path>.lock` for its life (released by the OS when the process ends, even on
    /// `kill -9`), and a second one fails here naming the process that holds it — two
    /// servers writing one file would each overwrite the other's acknowledged changes.
    ///
    /// A symbolic link is followed: the file it points to is the one locked and written (the
    /// link stays a link), so a server started through the link and one through the file are
    /// one file's servers.
    pub fn with_state(path: impl AsRef<Path>, fresh: Navigator) -> Result<Self, Error> {
        let path = state::resolve(path.as_ref());
        let lock = state::lock(&path)?;
        let navigator = state::load(&path)?.unwrap_or(fresh);
        state::save(&path, &navigator)?;
        Ok(NavigatorServer {
            state: Arc::new(Mutex::new(navigator)),
            file: Some(Arc::new(path)),
            _lock: Some(Arc::new(lock)),
        })
    }

    /// Serves over stdin/stdout until the client disconnects, answering lines that are not
    /// JSON with JSON-RPC parse errors (`-32700`, id null).
    pub async fn serve_stdio(self) -> Result<(), Error> {
        let (input, output) = rmcp::transport::stdio_pipes();
        self.serve_on(input, output).await
    }

    /// Serves over any pair of byte streams (a socket, an in-process pipe) until the client
    /// disconnects, with the same line handling as [`serve_stdio`](Self::serve_stdio): one
    /// JSON-RPC message per line, parse errors (`-32700`) for lines that are not JSON. Must
    /// be awaited inside a tokio runtime.
    pub async fn serve_on(
        self,
        input: impl tokio::io::AsyncRead + Unpin + Send + 'static,
        output: impl tokio::io::AsyncWrite + Unpin + Send + 'static,
    ) -> Result<(), Error> {
        let transport = |e: &dyn std::fmt::Display| Error::Transport {
            message: e.to_string(),
        };
        let (server_in, server_out, drain) = jsonrpc::front(input, output);
        let served = match self.serve((server_in, server_out)).await {
            Ok(service) => service.waiting().await.map(drop).map_err(|e| transport(&e)),
            // The input ended before any `initialize` (`</dev/null`, a client that connected
            // and left): nothing was asked, so nothing failed.
            Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => Ok(()),
            Err(e) => Err(transport(&e)),
        };
        // At the end of the input rmcp answers the requests still in flight and then drops
        // its writer; the replies reach `output` through the front's output pump, which the
        // process would cancel by exiting now. Wait for it, so every request read is answered.
        let _ = drain.await;
        served
    }

    /// What both command lines do before serving: loads the workflow definitions at `paths`
    /// ([`Navigator::load_workflow_files`], each path all or nothing) and writes the state
    /// file. Returns what is worth a line on stderr: the paths holding no definitions, then
    /// [`Navigator::load_warnings`].
    pub fn preload(&self, paths: &[std::path::PathBuf]) -> Result<Vec<String>, Error> {
        let mut navigator = self.lock();
        let mut warnings = Vec::new();
        // Which path gave each workflow id: two paths giving one id are refused, as two files
        // of one directory are (the one named last would silently win).
        let mut given: std::collections::HashMap<String, &Path> = Default::default();
        for path in paths {
            let state = self.file.as_deref().map(|f| f.as_path());
            let ids = navigator.load_workflow_files_but(path, state)?;
            if ids.is_empty() {
                warnings.push(format!(
                    "{}: no workflow definitions (.json, .yaml, .yml)",
                    path.display()
                ));
            }
            for id in ids {
                if let Some(first) = given.insert(id.clone(), path) {
                    return Err(Error::DefinitionFile {
                        path: path.display().to_string(),
                        message: format!("workflow id `{id}` is given by {} too", first.display()),
                    });
                }
            }
        }
        self.persist(&navigator)?;
        warnings.extend(navigator.load_warnings());
        Ok(warnings)
    }

    /// Writes `navigator` to the state file, if the server has one (after changing the
    /// navigator from outside the tools, e.g. preloading workflows).
    pub fn save(&self, navigator: &Navigator) -> Result<(), Error> {
        self.persist(navigator)
    }

    /// Applies `change` to the navigator and writes the state file, under the lock; when
    /// either fails the navigator is put back as it was, so an error answer changed nothing
    /// (a change the file could not keep would otherwise be acted on, and saved with the
    /// next change that could be written). Returns the change's result and the lock.
    fn change<T>(
        &self,
        change: impl FnOnce(&mut Navigator) -> Result<T, Error>,
    ) -> Result<(T, MutexGuard<'_, Navigator>), Error> {
        let mut navigator = self.lock();
        let before = self.file.as_ref().map(|_| navigator.clone());
        let done = change(&mut navigator).and_then(|out| {
            self.persist(&navigator)?;
            Ok(out)
        });
        match done {
            Ok(out) => Ok((out, navigator)),
            Err(e) => {
                if let Some(before) = before {
                    *navigator = before;
                }
                Err(e)
            }
        }
    }

    /// Writes the state file, if there is one; called with the lock held, after a change.
    fn persist(&self, navigator: &Navigator) -> Result<(), Error> {
        match &self.file {
            Some(path) => state::save(path, navigator),
            None => Ok(()),
        }
    }

    /// The shared state, e.g. to snapshot it.
    pub fn navigator(&self) -> Arc<Mutex<Navigator>> {
        Arc::clone(&self.state)
    }

    fn lock(&self) -> MutexGuard<'_, Navigator> {
        // Navigator operations never panic midway, so a poisoned lock still guards
        // consistent state.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// `{ data }`, plus the reminder when the call mutated state.
fn respond(data: impl Serialize, navigator: Option<&Navigator>) -> CallToolResult {
    let mut body = json!({ "data": data });
    if let Some(reminder) = navigator.and_then(Navigator::sync_reminder) {
        body["_sync_reminder"] = json!(reminder);
    }
    CallToolResult::structured(body)
}

fn fail(error: Error) -> CallToolResult {
    CallToolResult::structured_error(
        json!({ "error": { "code": error.code(), "message": error.to_string() } }),
    )
}

/// The `outputSchema` every tool declares: the success envelope or the error envelope.
fn envelope_schema() -> Arc<JsonObject> {
    let schema = json!({
        "type": "object",
        "properties": {
            "data": { "description": "The tool's result." },
            "_sync_reminder": {
                "type": "object",
                "properties": {
                    "message": { "type": "string" },
                    "count": { "type": "integer", "minimum": 0 },
                    "pending": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "id": { "type": "string" },
                                "taskId": { "type": "string" }
                            },
                            "required": ["id", "taskId"]
                        }
                    },
                    "truncated": { "type": "boolean" }
                },
                "required": ["message", "count", "pending", "truncated"]
            },
            "error": {
                "type": "object",
                "properties": {
                    "code": { "type": "string" },
                    "message": { "type": "string" }
                },
                "required": ["code", "message"]
            }
        },
        "oneOf": [ { "required": ["data"] }, { "required": ["error"] } ]
    });
    match schema {
        serde_json::Value::Object(map) => Arc::new(map),
        _ => Arc::new(JsonObject::new()),
    }
}

fn non_empty(argument: &'static str, value: &str) -> Result<(), Error> {
    if value.trim().is_empty() {
        return Err(Error::InvalidArgument {
            argument,
            reason: "must be a non-empty string".into(),
        });
    }
    Ok(())
}

/// Runs a tool body, turning its error into a tool error result.
fn run(body: impl FnOnce() -> Result<CallToolResult, Error>) -> CallToolResult {
    body().unwrap_or_else(fail)
}
