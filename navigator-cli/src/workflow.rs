//! `navigator workflow`: the workflow GPS of navigator-workflow served over MCP on stdio (the
//! server `navigator-workflow-mcp` runs), with workflow definitions loaded before it serves.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::anyhow;
use navigator_workflow::mcp::NavigatorServer;
use navigator_workflow::Navigator;

use crate::exit::{Failure, Outcome, CONFIG, INPUT};

/// The command line of `navigator workflow`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Workflow definitions (.json, .yaml, .yml), or directories of them, loaded before
    /// serving; a workflow's id is its `id` field, else the file stem
    #[arg(value_name = "WORKFLOW_FILE_OR_DIR")]
    definitions: Vec<PathBuf>,
    /// Keep the whole state (workflows, tasks, pending syncs, claims) in FILE: loaded when it
    /// exists, written atomically and fsynced after every change before it is acknowledged;
    /// the workflows named here are loaded over it
    #[arg(long, value_name = "FILE")]
    state: Option<PathBuf>,
}

/// Loads the definitions, then serves until the client closes stdin.
pub fn run(args: Args) -> Outcome {
    // A state file that cannot be read or written is input the command was given, as the
    // definitions are.
    let server = match &args.state {
        Some(file) => NavigatorServer::with_state(file, Navigator::new())
            .map_err(|e| Failure::new(INPUT, e))?,
        None => NavigatorServer::new(Navigator::new()),
    };
    // A definition or a state file that cannot be read, parsed or written is input too.
    let warnings = server
        .preload(&args.definitions)
        .map_err(|e| Failure::new(INPUT, e))?;
    let ids: Vec<String> = {
        let shared = server.navigator();
        let navigator = shared.lock().unwrap_or_else(|p| p.into_inner());
        navigator.workflows().map(|w| w.id().to_string()).collect()
    };
    eprintln!(
        "navigator workflow: serving {} workflow(s){}{} on stdio",
        ids.len(),
        if ids.is_empty() { "" } else { ": " },
        ids.join(", ")
    );
    for warning in warnings {
        eprintln!("warning: {warning}");
    }
    // One thread: requests are handled in the order they arrive (on a multi-threaded runtime
    // two requests sent back to back, such as two `advance_task` of one task, could run in
    // either order). Every tool answers from memory, so one thread loses nothing.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::new(CONFIG, anyhow!("starting the async runtime: {e}")))?;
    rt.block_on(server.serve_stdio())
        .map_err(|e| Failure::new(CONFIG, anyhow!("serving: {e}")))?;
    Ok(ExitCode::SUCCESS)
}
