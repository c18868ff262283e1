//! `navigator mcp`: the knowledge base, its table of contents, its notes and a repository's
//! code context, served to agents over the Model Context Protocol (official `rmcp` SDK) on
//! stdio, or with `--http ADDR` over streamable HTTP (`http.rs`, feature `http`, on by
//! default).
//!
//! - Tools (each with `inputSchema`, `outputSchema`, hints and structured content):
//!   `search`, `get_item`, `read_note`, `recent` (`search_tools.rs`); `toc_search`,
//!   `toc_children` (`toc_tools.rs`); `write_note`, `update_note`, `archive_note`
//!   (`note_tools.rs`); `build_context`, `replay_flight_plan` (`context_tools.rs`).
//! - Resources: every note as `navigator://note/{id}` (template and list, each described by
//!   its category), a category's listing as `navigator://category/{category}`, and the Flight
//!   Plans made in this session as `navigator://flight-plan/{n}`; the prompt `navigator` is the
//!   Navigator agent's template (`resources.rs`).
//! - Failures are tool results with `isError: true` and a code (`errors.rs`); a line that is
//!   not JSON gets a JSON-RPC `-32700` reply (navigator-workflow's stdio front).
//!
//! Concurrency: reads go straight to the engine and never take the write lock; writes (the
//! note tools, and the index run at start when `--vault` is given) take it without waiting,
//! so a write that finds another in progress fails at once with `busy` instead of queueing
//! behind it. One server per data directory (`crate::dir_lock`).

mod context_tools;
mod errors;
mod front_edit;
#[cfg(feature = "http")]
mod http;
mod note_tools;
mod resources;
mod search_tools;
mod toc_tools;
mod uri;
mod vault;

use crate::exit::{Failure, Outcome, CONFIG, INDEX, INPUT};
use crate::home::{runtime, Home};
use anyhow::anyhow;
use navigator_core::SearchService;
use navigator_search::ingest::{self, IngestOptions};
use navigator_search::{NavigatorAgent, SearchEngine, SystemClock};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{
    GetPromptRequestParams, GetPromptResponse, Implementation, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, PaginatedRequestParams,
    ProgressNotificationParam, ProgressToken, ReadResourceRequestParams, ReadResourceResponse,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{tool_handler, ErrorData, RoleServer, ServerHandler, ServiceExt};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

/// Serve the knowledge base (and, with --repo, a repository's code context) to AI agents over
/// the Model Context Protocol on stdin/stdout, or with --http over streamable HTTP. Logs go to
/// stderr.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The data directory (default: $NAVIGATOR_HOME, else the platform's data directory).
    #[arg(long)]
    pub home: Option<PathBuf>,
    /// The vault the note tools write into; indexed incrementally at start (in the
    /// background: reads are served meanwhile). Default: the folder the last `navigator
    /// index` run indexed. That folder is indexed with that run's `--folder` mappings and
    /// `--max-file-mib`.
    #[arg(long)]
    pub vault: Option<PathBuf>,
    /// The repository `build_context` and `replay_flight_plan` read.
    #[arg(long)]
    pub repo: Option<PathBuf>,
    /// A session log (JSON, `{"sessions": [...]}`) to build the time table of contents from,
    /// for `toc_search` and `toc_children`.
    #[arg(long)]
    pub memory: Option<PathBuf>,
    /// Serve over MCP's streamable HTTP transport at http://ADDR/mcp (for example
    /// `127.0.0.1:8765`; port 0 picks a free one, printed on stderr) instead of stdio. Many
    /// clients can connect; they share the engine and the write lock.
    #[cfg(feature = "http")]
    #[arg(long, value_name = "ADDR", value_parser = parse_listen_addr)]
    pub http: Option<std::net::SocketAddr>,
    /// A host name (or host:port) the HTTP transport accepts in the `Host` header besides
    /// loopback; repeat for more. Needed when clients reach the server by another name.
    #[cfg(feature = "http")]
    #[arg(long = "allow-host", value_name = "HOST", requires = "http")]
    pub allow_hosts: Vec<String>,
}

/// A Flight Plan made in this session, kept as a resource.
#[derive(Debug, Clone)]
pub(crate) struct SessionPlan {
    pub goal: String,
    pub yaml: String,
}

/// What every tool call shares.
pub(crate) struct Shared {
    pub engine: SearchEngine,
    pub agent: NavigatorAgent,
    /// The vault, canonical; `None` when the server has none.
    pub vault: Option<PathBuf>,
    /// The repository, canonical; `None` when the server has none.
    pub repo: Option<PathBuf>,
    pub ingest: IngestOptions,
    /// Held by whoever writes the index; writers try it and never wait.
    pub writer: Arc<tokio::sync::Mutex<()>>,
    pub plans: Mutex<Vec<SessionPlan>>,
}

/// The MCP server: a cheap handle on the shared state.
#[derive(Clone)]
pub(crate) struct McpServer {
    shared: Arc<Shared>,
    /// Built once: a tool's schemas are generated when its route is made.
    router: Arc<ToolRouter<McpServer>>,
}

impl std::ops::Deref for McpServer {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.shared
    }
}

impl McpServer {
    fn new(shared: Shared) -> Self {
        Self {
            shared: Arc::new(shared),
            router: Arc::new(
                Self::search_tools()
                    + Self::toc_tools()
                    + Self::note_tools()
                    + Self::context_tools(),
            ),
        }
    }

    /// The vault, or the error saying how to give one.
    pub(crate) fn vault(&self) -> errors::ToolResult<&Path> {
        self.shared.vault.as_deref().ok_or_else(|| {
            errors::ToolError::new(
                "not_configured",
                "this server has no vault: start it with `navigator mcp --vault <folder>` (or \
                 index a folder with `navigator index` first)",
            )
        })
    }

    /// Takes the write lock without waiting.
    pub(crate) fn try_write(&self) -> errors::ToolResult<tokio::sync::OwnedMutexGuard<()>> {
        Arc::clone(&self.shared.writer)
            .try_lock_owned()
            .map_err(|_| {
                errors::ToolError::new(
                    "busy",
                    "the index is being written (another note write, the index run at \
                     start, or a re-index of notes changed in the vault outside the server, \
                     which on a large vault can take a while); reads work meanwhile, retry \
                     the write in a moment",
                )
            })
    }

    /// Re-indexes the vault incrementally (only changed notes are read and embedded), with
    /// the write lock held by the caller, reporting progress when the client asked for it:
    /// `paths` only when given (a note tool knows what it wrote), else the whole vault.
    pub(crate) async fn reindex(
        &self,
        paths: Option<&[&str]>,
        progress: &Progress,
    ) -> errors::ToolResult<ingest::IngestReport> {
        let vault = self.vault()?;
        let report = |p: ingest::IngestProgress| match p {
            ingest::IngestProgress::Walked { notes } => {
                progress.report(0, Some(notes), "indexing the vault: walked")
            }
            ingest::IngestProgress::Read { done, total } => {
                progress.report(done, Some(total), "indexing the vault")
            }
            ingest::IngestProgress::Embedded { texts } => {
                progress.report(0, None, format!("indexing the vault: {texts} embedded"))
            }
        };
        Ok(match paths {
            Some(paths) => {
                ingest::index_paths(&self.engine, vault, paths, &self.ingest, report).await?
            }
            None => ingest::index_folder(&self.engine, vault, &self.ingest, report).await?,
        })
    }
}

/// Progress notifications for one tool call, sent in order, when the client gave a progress
/// token; nothing otherwise. It also tells work running on a blocking thread whether the
/// client has cancelled the call. Clones report into the same sequence.
#[derive(Clone)]
pub(crate) struct Progress {
    sender: Option<tokio::sync::mpsc::UnboundedSender<Note>>,
    token: Option<ProgressToken>,
    step: Arc<std::sync::atomic::AtomicUsize>,
    cancelled: Option<Arc<dyn Fn() -> bool + Send + Sync>>,
}

impl Progress {
    /// Progress for the call of `context`.
    pub(crate) fn of(context: &RequestContext<RoleServer>) -> Self {
        let ct = context.ct.clone();
        let cancelled: Option<Arc<dyn Fn() -> bool + Send + Sync>> =
            Some(Arc::new(move || ct.is_cancelled()));
        let Some(token) = context.meta.get_progress_token() else {
            return Self {
                cancelled,
                ..Self::none()
            };
        };
        let (sender, mut queue) = tokio::sync::mpsc::unbounded_channel();
        let peer = context.peer.clone();
        tokio::spawn(async move {
            let mut open = true;
            while let Some(note) = queue.recv().await {
                match note {
                    Note::Progress(param) if open => {
                        open = peer.notify_progress(param).await.is_ok();
                    }
                    Note::Progress(_) => {}
                    Note::Flush(done) => {
                        let _ = done.send(());
                    }
                }
            }
        });
        Self {
            sender: Some(sender),
            token: Some(token),
            step: Arc::default(),
            cancelled,
        }
    }

    /// No notifications (the start-up index run has no caller to tell).
    pub(crate) fn none() -> Self {
        Self {
            sender: None,
            token: None,
            step: Arc::default(),
            cancelled: None,
        }
    }

    /// Waits until every notification reported so far has been handed to the transport, so
    /// none arrives after the call's result (a client drops those).
    pub(crate) async fn flushed(&self) {
        let Some(sender) = &self.sender else { return };
        let (done, wait) = tokio::sync::oneshot::channel();
        if sender.send(Note::Flush(done)).is_ok() {
            let _ = wait.await;
        }
    }

    /// Whether the client cancelled the call (`notifications/cancelled`).
    pub(crate) fn is_cancelled(&self) -> bool {
        self.cancelled.as_ref().is_some_and(|c| c())
    }

    /// Reports `done` of `total`; the progress value only grows, as MCP requires.
    pub(crate) fn report(&self, done: usize, total: Option<usize>, message: impl Into<String>) {
        let (Some(sender), Some(token)) = (&self.sender, &self.token) else {
            return;
        };
        let step = self
            .step
            .fetch_max(done, std::sync::atomic::Ordering::Relaxed)
            .max(done);
        let mut param =
            ProgressNotificationParam::new(token.clone(), step as f64).with_message(message);
        if let Some(total) = total {
            param = param.with_total(total.max(step) as f64);
        }
        let _ = sender.send(Note::Progress(param));
    }
}

/// What the notification pump of a call is handed, in order.
enum Note {
    Progress(ProgressNotificationParam),
    /// Answered once everything before it has been sent.
    Flush(tokio::sync::oneshot::Sender<()>),
}

/// Runs a tool body until it finishes or the client cancels the request
/// (`notifications/cancelled`). Writes stay safe when cancelled: a note is written atomically
/// before any await, and an interrupted re-index loses nothing it committed (the next one
/// finishes it).
pub(crate) async fn cancellable<T>(
    context: &RequestContext<RoleServer>,
    body: impl std::future::Future<Output = errors::ToolResult<T>>,
) -> errors::ToolResult<T> {
    tokio::select! {
        result = body => result,
        () = context.ct.cancelled() => Err(errors::ToolError::new(
            "cancelled",
            "the client cancelled the call",
        )),
    }
}

#[tool_handler(router = self.router)]
impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_prompts()
                .build(),
        )
        .with_server_info(Implementation::new("navigator", env!("CARGO_PKG_VERSION")))
        .with_instructions(
            "navigator: a PARA knowledge base (Projects, Areas, Resources, Archives) and code \
             context. `search` finds notes (hybrid meaning + keywords, calibrated scores in \
             [0,1]); `read_note` reads one; `recent` lists the latest; `write_note` / \
             `update_note` / `archive_note` change the vault and re-index it; `toc_search` \
             drills down the time table of contents of past sessions; `build_context` packs the \
             best code context for a goal within a token budget and returns its Flight Plan, \
             `replay_flight_plan` regenerates it.",
        )
    }

    async fn call_tool(
        &self,
        request: rmcp::model::CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, ErrorData> {
        if !self.router.has_route(&request.name) {
            return Err(navigator_workflow::mcp::unknown_tool(
                &request.name,
                &self.router,
            ));
        }
        let call = rmcp::handler::server::tool::ToolCallContext::new(self, request, context);
        self.router.call(call).await
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        resources::list(self, request).await
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(resources::templates())
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        resources::read(self, &request.uri).await.map(Into::into)
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(resources::prompts())
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        resources::prompt(&request).map(Into::into)
    }
}

/// Runs the server until the client closes stdin.
pub fn run(args: Args) -> Outcome {
    let home = Home::resolve_with(args.home.clone())?;
    let _lock = crate::dir_lock::acquire(home.dir()).map_err(|e| Failure::new(CONFIG, e))?;
    let canonical = |what: &str, p: &Path| -> Result<PathBuf, Failure> {
        let c = p
            .canonicalize()
            .map_err(|e| Failure::new(INPUT, anyhow!("{what} {}: {e}", p.display())))?;
        if !c.is_dir() {
            return Err(Failure::new(
                INPUT,
                anyhow!("{what} {}: not a folder", p.display()),
            ));
        }
        Ok(c)
    };
    let last = home.last_index();
    let vault = match &args.vault {
        Some(v) => Some(canonical("--vault", v)?),
        None => last
            .as_ref()
            .map(|l| PathBuf::from(&l.source))
            .filter(|p| p.is_dir()),
    };
    // The vault `navigator index` last indexed is re-indexed with that run's options (its
    // `--folder` mappings): the server must not move notes back to the default categories.
    let ingest = match (&vault, &last) {
        (Some(v), Some(l)) if Path::new(&l.source) == v => l.ingest_options(),
        _ => IngestOptions::default(),
    };
    let repo = args
        .repo
        .as_deref()
        .map(|r| canonical("--repo", r))
        .transpose()?;
    let rt = runtime()?;
    let outcome = rt.block_on(async {
        let engine = home.engine().await?;
        if let Some(path) = &args.memory {
            load_memory(&engine, path).await?;
        }
        let service: Arc<dyn SearchService> = Arc::new(engine.clone());
        let server = McpServer::new(Shared {
            agent: NavigatorAgent::new(service, Arc::new(SystemClock)),
            engine,
            vault,
            repo,
            ingest,
            writer: Arc::new(tokio::sync::Mutex::new(())),
            plans: Mutex::new(Vec::new()),
        });
        if args.vault.is_some() {
            start_index(&server);
        }
        // Notes edited outside the server (an editor, a sync) are indexed as they change;
        // the watch ends with the session.
        let _watch = watch_vault(&server, home.dir());
        #[cfg(feature = "http")]
        if let Some(addr) = args.http {
            http::serve(server, addr, &args.allow_hosts).await?;
            return Ok(ExitCode::SUCCESS);
        }
        let (input, output) = rmcp::transport::stdio_pipes();
        let (server_in, server_out, drain) =
            navigator_workflow::mcp::json_rpc_front_drained(input, output);
        let served = match server.serve((server_in, server_out)).await {
            Ok(service) => {
                // Ctrl-C or SIGTERM ends the session as the end of the input does: the server
                // stops, the store is closed, nothing is left to recover at the next open.
                let token = service.cancellation_token();
                let waiting = service.waiting();
                tokio::pin!(waiting);
                let stop = crate::signal::shutdown();
                tokio::pin!(stop);
                let quit = tokio::select! {
                    quit = &mut waiting => quit,
                    _ = &mut stop => {
                        token.cancel();
                        waiting.await
                    }
                };
                quit.map(drop)
                    .map_err(|e| Failure::new(INDEX, anyhow!("MCP session: {e}")))
            }
            // The input ended before any `initialize` (a client that connected and left):
            // nothing was asked, so nothing failed.
            Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => Ok(()),
            Err(e) => Err(Failure::new(
                INDEX,
                anyhow!("starting the MCP session: {e}"),
            )),
        };
        // Every reply the server wrote reaches stdout before the process exits: at the end of
        // the input the requests still in flight are answered through the front's own task.
        drain.wait().await;
        served.map(|()| ExitCode::SUCCESS)
    });
    // Stopped by a signal, the read of a still-open stdin is left blocked on its thread: do
    // not wait for it (everything the session owned is dropped by now).
    rt.shutdown_background();
    outcome
}

/// `--http ADDR`: an address and port, or a host name and port (`localhost:8765`) resolved
/// to its first address.
#[cfg(feature = "http")]
fn parse_listen_addr(s: &str) -> Result<std::net::SocketAddr, String> {
    use std::net::ToSocketAddrs;
    if let Ok(addr) = s.parse() {
        return Ok(addr);
    }
    let mut addrs = s
        .to_socket_addrs()
        .map_err(|e| format!("`{s}`: {e} (give HOST:PORT, like 127.0.0.1:8765)"))?;
    addrs
        .next()
        .ok_or_else(|| format!("`{s}` resolves to no address"))
}

/// Indexes the vault in the background with the write lock held, so reads are served from
/// the start and writes answer `busy` until it is done.
fn start_index(server: &McpServer) {
    let Ok(guard) = server.try_write() else {
        return;
    };
    let server = server.clone();
    tokio::spawn(async move {
        let _guard = guard;
        match server.reindex(None, &Progress::none()).await {
            Ok(report) => tracing::info!("vault indexed: {report}"),
            Err(e) => tracing::error!("indexing the vault: {}: {}", e.code, e.message),
        }
    });
}

/// Re-indexes the vault whenever something in it changes outside the index's own files (an
/// editor's save, a sync, a note tool's write): events settle for half a second, then one
/// incremental run with the write lock held (waiting for a note tool's write to finish).
/// The watch stops when the returned watcher is dropped or the server is gone; `None` when
/// there is no vault or it cannot be watched (said in the log: the server serves on).
fn watch_vault(server: &McpServer, home: &Path) -> Option<notify::RecommendedWatcher> {
    use notify::{RecursiveMode, Watcher};
    let vault = server.shared.vault.clone()?;
    // A data directory kept inside the vault changes with every write of the index.
    let home = home.canonicalize().unwrap_or_else(|_| home.to_path_buf());
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        if let Ok(e) = event {
            if !e.kind.is_access() && e.paths.iter().any(|p| !p.starts_with(&home)) {
                let _ = tx.send(());
            }
        }
    });
    let mut watcher = match watcher {
        Ok(w) => w,
        Err(e) => {
            tracing::warn!("cannot watch the vault {}: {e}", vault.display());
            return None;
        }
    };
    if let Err(e) = watcher.watch(&vault, RecursiveMode::Recursive) {
        tracing::warn!("cannot watch the vault {}: {e}", vault.display());
        return None;
    }
    let shared = Arc::downgrade(&server.shared);
    let router = Arc::clone(&server.router);
    tokio::spawn(async move {
        let quiet = std::time::Duration::from_millis(500);
        while rx.recv().await.is_some() {
            while let Ok(Some(())) = tokio::time::timeout(quiet, rx.recv()).await {}
            let Some(shared) = shared.upgrade() else {
                return;
            };
            let server = McpServer {
                shared,
                router: Arc::clone(&router),
            };
            let _guard = Arc::clone(&server.shared.writer).lock_owned().await;
            match server.reindex(None, &Progress::none()).await {
                Ok(report) if report.changed() => tracing::info!("vault re-indexed: {report}"),
                Ok(_) => {}
                Err(e) => tracing::error!("re-indexing the vault: {}: {}", e.code, e.message),
            }
        }
    });
    Some(watcher)
}

/// Builds the time table of contents from a session log into the engine's store.
async fn load_memory(engine: &SearchEngine, path: &Path) -> Result<(), Failure> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Failure::new(INPUT, anyhow!("--memory {}: {e}", path.display())))?;
    let tree = navigator_search::toc::TocBuilder::from_json(&text)
        .and_then(|b| b.build(chrono::Utc::now()))
        .map_err(|e| Failure::new(INPUT, anyhow!("--memory {}: {e}", path.display())))?;
    tree.write_to(engine.store()).await?;
    Ok(())
}

#[cfg(all(test, feature = "http"))]
mod tests {
    use super::parse_listen_addr;

    #[test]
    fn listen_addresses_take_host_names_too() {
        assert_eq!(
            parse_listen_addr("127.0.0.1:8765").unwrap().to_string(),
            "127.0.0.1:8765"
        );
        let named = parse_listen_addr("localhost:0").unwrap();
        assert!(named.ip().is_loopback(), "{named}");
        let e = parse_listen_addr("8765").unwrap_err();
        assert!(e.contains("HOST:PORT"), "{e}");
    }
}
