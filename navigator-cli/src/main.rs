//! `navigator`: the command line over the navigator crates — index a folder of PARA notes (or
//! a JSON-lines export) and search it; build LLM context from a repository; serve all that,
//! and the workflow GPS, to agents over MCP.
//!
//! Every subcommand lives in its own module with an `Args` struct and a `run` function; the
//! data directory, the engine and the exit codes are shared (`home`, `exit`).

mod context;
mod dir_lock;
mod exit;
mod home;
mod index;
mod mcp;
mod search;
mod signal;
mod status;
mod toc;
mod workflow;

use clap::{Parser, Subcommand};

/// Navigate a codebase, a knowledge base and a work queue.
///
/// Data lives in $NAVIGATOR_HOME when it is set, else in the platform's data directory
/// (`~/.local/share/navigator` on Linux). Logs go to stderr; set RUST_LOG (`info`, `debug`,
/// `navigator_search=debug`) for more.
#[derive(Debug, Parser)]
#[command(name = "navigator", version, about, long_about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Index a folder of notes (or a .jsonl export); again to update it incrementally.
    Index(index::Args),
    /// Search the index (hybrid, semantic or keyword).
    Search(search::Args),
    /// Show the index as a PARA tree: categories, folders, notes.
    Toc(toc::Args),
    /// Show what the index holds: notes, chunks, model, last index run.
    Status(status::Args),
    /// Embed every indexed note again with the current model (after changing models).
    Reindex(status::ReindexArgs),
    /// Build the best context window for a coding goal from a repository, within token and
    /// USD budgets; or an overview without a goal; or replay a Flight Plan.
    Context(context::Args),
    /// Serve search, notes, the table of contents and code context to AI agents over the
    /// Model Context Protocol (stdio).
    Mcp(mcp::Args),
    /// Serve the workflow GPS to an orchestrator over the Model Context Protocol (stdio):
    /// DAG workflows, the priority task tree, where each task goes next, pending syncs.
    Workflow(workflow::Args),
}

fn main() -> std::process::ExitCode {
    few_malloc_arenas();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        // Colour only on a terminal: logs redirected to a file stay plain text.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // A script that asked for JSON gets a bad command line as JSON on stdout too.
            if e.use_stderr() && std::env::args_os().any(|a| a == "--json") {
                let message = e.to_string();
                let first = message.lines().next().unwrap_or_default();
                exit::print_json(
                    first.strip_prefix("error: ").unwrap_or(first),
                    e.exit_code(),
                );
            }
            e.exit()
        }
    };
    // The commands that only print: a reader that stops early (`| head`) ends them quietly, as
    // it ends `cat` or `grep`, instead of "error: Broken pipe" or a panic in `println!`. (Not
    // the servers, whose sockets must not kill them, nor `index`, which writes a store.)
    #[cfg(unix)]
    if matches!(
        cli.command,
        Command::Context(_) | Command::Search(_) | Command::Toc(_) | Command::Status(_)
    ) {
        // SAFETY: restores the default disposition of one signal; no other thread exists yet.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        }
    }
    let json = match &cli.command {
        Command::Index(a) => a.json,
        Command::Search(a) => a.json,
        Command::Toc(a) => a.json,
        Command::Status(a) => a.json,
        Command::Context(a) => a.json,
        Command::Reindex(_) | Command::Mcp(_) | Command::Workflow(_) => false,
    };
    let result = match cli.command {
        Command::Index(args) => index::run(args),
        Command::Search(args) => search::run(args),
        Command::Toc(args) => toc::run(args),
        Command::Status(args) => status::run(args),
        Command::Reindex(args) => status::reindex(args),
        Command::Mcp(args) => mcp::run(args),
        Command::Workflow(args) => workflow::run(args),
        Command::Context(args) => home::runtime().and_then(|rt| {
            rt.block_on(context::run(args)).map_err(|e| {
                let code = if e.is::<context::Usage>() {
                    exit::USAGE
                } else {
                    exit::CONTEXT
                };
                exit::Failure::new(code, e)
            })
        }),
    };
    if let (true, Err(f)) = (json, &result) {
        // A script reading stdout gets an answer it can parse either way.
        exit::print_json(&format!("{:#}", f.error), f.code);
    }
    exit::report(result)
}

/// Caps glibc's malloc at two arenas. By default each thread that allocates may get its own
/// arena (up to 8 per core), and the embedding runtime's worker threads, the keyword index's
/// writer threads and tokio's each keep freed memory in theirs: indexing 1,000 SciFact
/// abstracts peaked at 714 MiB that way and at 607 MiB with two arenas, no slower
/// (docs/benchmarks.md). `MALLOC_ARENA_MAX` in the environment still wins: it is read by
/// glibc when it starts, and this runs only when it is not set.
fn few_malloc_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if std::env::var_os("MALLOC_ARENA_MAX").is_none() {
        // SAFETY: mallopt only changes an allocator parameter; it is called before any other
        // thread exists.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, 2);
        }
    }
}
