//! `navigator`: the command line over the navigator crates.

mod context;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Navigate a codebase, a knowledge base and a work queue.
#[derive(Parser, Debug)]
#[command(name = "navigator", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Build the best context window for a coding goal from a repository, within token and
    /// USD budgets; or an overview without a goal; or replay a Flight Plan.
    Context(context::Args),
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Context(args) => context::run(args).await,
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(1)
        }
    }
}
