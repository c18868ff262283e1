//! Index-free search over an agent's memory, by drilling down its table of contents:
//! year → month → week → day → segment, no index and no embeddings.
//!
//! Loads a memory of session summaries (by default the bundled sample: three months of a small
//! team's coding-agent sessions, November 2025 – January 2026) into an in-memory store with
//! the `TocBuilder`, then runs one command, mirroring a memory daemon's CLI:
//!
//! ```text
//! cargo run -p navigator-search --example toc -- search --parent toc:year:2026 --query "JWT authentication" --limit 5
//! cargo run -p navigator-search --example toc -- navigate "what did we decide about JWT last month" --expand
//! cargo run -p navigator-search --example toc -- children --parent toc:month:2025-12
//! cargo run -p navigator-search --example toc -- expand grip:2026-01-14-jwt-decision:1.1
//! ```
//!
//! Relative time hints ("last month") are resolved against `--now`, which defaults to
//! 2026-02-02T09:00:00Z — the Monday after the sample memory ends — so the commands above give
//! the same answer on every run. Pass `--memory FILE` to search your own `{"sessions": [...]}`.

use anyhow::Context;
use chrono::{DateTime, Utc};
use clap::{Parser, Subcommand};
use navigator_core::{MemoryStore, Store};
use navigator_search::toc::{
    expand_grips, navigate, search_children, NavigateOptions, Navigation, SearchField, StepOutcome,
    TocBuilder,
};
use std::path::PathBuf;

const SAMPLE_MEMORY: &str = include_str!("../data/toc/sample_memory.json");

#[derive(Parser)]
#[command(about = "Index-free table-of-contents search over an agent's memory")]
struct Cli {
    /// A memory file (`{"sessions": [...]}`); default: the bundled sample memory.
    #[arg(long, global = true)]
    memory: Option<PathBuf>,
    /// The instant relative time hints are resolved against (RFC 3339).
    #[arg(long, global = true, default_value = "2026-02-02T09:00:00Z")]
    now: DateTime<Utc>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Rank the children of a node by term overlap with a query.
    Search {
        /// The parent node; empty = the year level.
        #[arg(long, default_value = "")]
        parent: String,
        /// The query.
        #[arg(long)]
        query: String,
        /// How many children to return.
        #[arg(long, default_value_t = 10)]
        limit: usize,
        /// Fields to search, comma-separated (title, summary, bullets, keywords); default all.
        #[arg(long, value_delimiter = ',')]
        fields: Vec<SearchField>,
    },
    /// Answer a natural question by drilling down from its time hint.
    Navigate {
        /// The question, e.g. "what did we decide about JWT last month".
        query: String,
        /// Also print the quoted evidence behind every finding.
        #[arg(long)]
        expand: bool,
        /// The average score a child needs to be followed.
        #[arg(long, default_value_t = NavigateOptions::default().threshold)]
        threshold: f32,
        /// How many children to follow per level.
        #[arg(long, default_value_t = NavigateOptions::default().beam_width)]
        beam: usize,
    },
    /// List the children of a node, in time order.
    Children {
        /// The parent node; empty = the year level.
        #[arg(long, default_value = "")]
        parent: String,
    },
    /// Print the evidence behind grip ids.
    Expand {
        /// Grip ids.
        #[arg(required = true)]
        grip_ids: Vec<String>,
    },
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let json = match &cli.memory {
        Some(path) => std::fs::read_to_string(path)
            .with_context(|| format!("cannot read memory file {}", path.display()))?,
        None => SAMPLE_MEMORY.to_string(),
    };
    let store = MemoryStore::new();
    let builder = TocBuilder::from_json(&json)?;
    let nodes = builder.build(cli.now)?.write_to(&store).await?;
    eprintln!("loaded {} sessions into {nodes} nodes", builder.len());

    match cli.command {
        Command::Search {
            parent,
            query,
            limit,
            fields,
        } => {
            let found = search_children(&store, &parent, &query, &fields, limit).await?;
            println!(
                "children of {} matching {query:?} ({} examined):",
                shown(&parent),
                found.examined
            );
            if let Some(reason) = &found.empty_reason {
                println!("  nothing: {reason}");
            }
            for (i, hit) in found.hits.iter().enumerate() {
                println!(
                    "{:>3}. {:.2}  {}  {}  ({} matches)",
                    i + 1,
                    hit.score,
                    hit.node.node_id,
                    hit.node.title,
                    hit.matches.len()
                );
                for m in hit
                    .matches
                    .iter()
                    .filter(|m| m.field == SearchField::Bullets)
                    .take(3)
                {
                    println!("         {:.2} {}", m.score, m.text);
                }
            }
        }
        Command::Navigate {
            query,
            expand,
            threshold,
            beam,
        } => {
            let options = NavigateOptions {
                threshold,
                beam_width: beam,
                ..NavigateOptions::default()
            };
            let nav = navigate(&store, &query, cli.now, &options).await?;
            print_navigation(&nav);
            if expand && !nav.findings.is_empty() {
                println!("evidence:");
                for grip in expand_grips(&store, &nav.grip_ids()).await? {
                    println!("  {}  {}  ({})", grip.grip_id, grip.excerpt, grip.source);
                }
            }
        }
        Command::Children { parent } => {
            for node in store.toc_children(&parent).await? {
                println!(
                    "{}  {}  ({} bullets, {} children)",
                    node.node_id,
                    node.title,
                    node.bullets.len(),
                    node.child_node_ids.len()
                );
            }
        }
        Command::Expand { grip_ids } => {
            for grip in expand_grips(&store, &grip_ids).await? {
                println!(
                    "{}  [{} .. {}]  {}\n  {}",
                    grip.grip_id,
                    grip.event_id_start,
                    grip.event_id_end,
                    grip.timestamp,
                    grip.excerpt
                );
            }
        }
    }
    Ok(())
}

fn shown(node_id: &str) -> &str {
    if node_id.is_empty() {
        "the year level"
    } else {
        node_id
    }
}

fn print_navigation(nav: &Navigation) {
    println!("query: {}", nav.query);
    if let Some(hint) = &nav.time_hint {
        println!(
            "time hint: {:?} -> {} ({} .. {})",
            hint.phrase,
            hint.node_id,
            hint.start.date_naive(),
            hint.end.date_naive()
        );
    }
    println!("terms: {}", nav.terms.join(", "));
    println!("path:");
    for (i, step) in nav.path.iter().enumerate() {
        let parents: Vec<&str> = step.parent_ids.iter().map(|p| shown(p)).collect();
        let level = step.level.map_or("-", |l| l.as_str());
        let outcome = match step.outcome {
            StepOutcome::AboveThreshold => "above threshold".to_string(),
            StepOutcome::BelowThreshold { best_score } => {
                format!("best effort, best {best_score:.2}")
            }
            StepOutcome::NoMatch => "no match".to_string(),
        };
        let chosen: Vec<String> = step
            .chosen
            .iter()
            .map(|c| format!("{} ({:.2})", c.node_id, c.score))
            .collect();
        println!(
            "  {}. {} of {}: {} examined, {outcome} -> {}",
            i + 1,
            level,
            parents.join(", "),
            step.examined,
            chosen.join(", ")
        );
    }
    for fallback in &nav.fallbacks {
        println!("fallback: {fallback}");
    }
    if let Some(reason) = &nav.empty_reason {
        println!("nothing found: {reason}");
    }
    println!("findings:");
    for f in &nav.findings {
        println!(
            "  {:.2}  {}  {}  [{}]",
            f.score,
            f.start_time.date_naive(),
            f.node_title,
            f.node_id
        );
        println!("        {}", f.text);
        println!("        grips: {}", f.grip_ids.join(", "));
    }
}
