//! `navigator-workflow-mcp [--state FILE] [WORKFLOW_FILE_OR_DIR ...]`: the workflow GPS as an
//! MCP server over stdio.
//!
//! Each argument is a workflow definition file (`.json`, `.yaml`, `.yml`) or a directory of
//! them, loaded before serving; a workflow's id is its `id` field, else the file stem.
//! With `--state FILE` the whole state (workflows, tasks, pending syncs, claims) is loaded
//! from FILE when it exists and written back, atomically and fsynced, after every change
//! before it is acknowledged; workflows named on the command line are loaded over it.
//! Diagnostics go to stderr: stdout belongs to the protocol. `--help` and `--version` print
//! to stdout and exit 0; a bad command line exits 2.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use navigator_workflow::mcp::NavigatorServer;
use navigator_workflow::Navigator;

const USAGE: &str = "\
Usage: navigator-workflow-mcp [--state FILE] [WORKFLOW_FILE_OR_DIR ...]

The workflow GPS as an MCP server over stdio: JSON-RPC requests on stdin, replies on stdout,
diagnostics on stderr.

Arguments:
  [WORKFLOW_FILE_OR_DIR ...]  Workflow definitions (.json, .yaml, .yml), or directories of
                              them, loaded before serving; a workflow's id is its `id`
                              field, else the file stem

Options:
  --state FILE   Keep the whole state (workflows, tasks, pending syncs, claims) in FILE:
                 loaded when it exists, written atomically and fsynced after every change
                 before it is acknowledged; workflows named here are loaded over it
  --             Treat every later argument as a workflow file or directory
  -h, --help     Print this help and exit
  -V, --version  Print the version and exit
";

/// What the command line asks for.
#[derive(Debug)]
enum Command {
    Serve {
        state: Option<PathBuf>,
        definitions: Vec<PathBuf>,
    },
    Help,
    Version,
}

/// Reads the command line; the error is the message for a usage error.
fn parse_args(args: impl IntoIterator<Item = OsString>) -> Result<Command, String> {
    let mut state = None;
    let mut definitions = Vec::new();
    let mut args = args.into_iter();
    let mut options_done = false;
    while let Some(arg) = args.next() {
        let text = arg.to_string_lossy();
        if options_done || !text.starts_with('-') || text == "-" {
            definitions.push(PathBuf::from(arg));
            continue;
        }
        match text.as_ref() {
            "-h" | "--help" => return Ok(Command::Help),
            "-V" | "--version" => return Ok(Command::Version),
            "--" => options_done = true,
            "--state" => match args.next() {
                Some(file) => state = Some(PathBuf::from(file)),
                None => return Err("--state needs a file".into()),
            },
            flag => match flag.strip_prefix("--state=") {
                Some("") => return Err("--state needs a file".into()),
                Some(file) => state = Some(PathBuf::from(file)),
                None => return Err(format!("unknown option `{flag}`")),
            },
        }
    }
    Ok(Command::Serve { state, definitions })
}

fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("navigator-workflow-mcp: {message}");
    ExitCode::FAILURE
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let (state, definitions) = match parse_args(std::env::args_os().skip(1)) {
        Ok(Command::Serve { state, definitions }) => (state, definitions),
        Ok(Command::Help) => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Ok(Command::Version) => {
            println!("navigator-workflow-mcp {}", env!("CARGO_PKG_VERSION"));
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            let usage = USAGE.lines().next().unwrap_or_default();
            eprintln!("navigator-workflow-mcp: {message}\n{usage}\nTry `navigator-workflow-mcp --help` for more.");
            return ExitCode::from(2);
        }
    };
    let server = match &state {
        Some(file) => match NavigatorServer::with_state(file, Navigator::new()) {
            Ok(server) => server,
            Err(e) => return fail(e),
        },
        None => NavigatorServer::new(Navigator::new()),
    };
    match server.preload(&definitions) {
        Ok(warnings) => {
            for warning in warnings {
                eprintln!("navigator-workflow-mcp: warning: {warning}");
            }
        }
        Err(e) => return fail(e),
    }
    match server.serve_stdio().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("navigator-workflow-mcp: {e}");
            ExitCode::FAILURE
        }
    }
}
