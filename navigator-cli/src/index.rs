//! `navigator index <folder|file.jsonl> [--watch]`.

use crate::exit::{Failure, Outcome, INPUT};
use crate::home::{ingest_options, runtime, Home, LastIndex};
use anyhow::anyhow;
use indicatif::{ProgressBar, ProgressStyle};
use navigator_core::{Category, Embedder};
use navigator_search::ingest::{self, IngestOptions, IngestProgress, IngestReport};
use navigator_search::SearchEngine;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Index a folder of markdown and text notes (PARA folders, YAML front matter, wiki links)
/// or a JSON-lines export (`.jsonl`, `.ndjson`). Running it again re-embeds only what
/// changed, follows renamed notes and removes deleted ones.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The vault folder, or a .jsonl file.
    pub path: PathBuf,
    /// Keep running and re-index whenever something under the path changes.
    #[arg(long)]
    pub watch: bool,
    /// Map one more top-level folder to a category (`Inbox=resource`); repeatable.
    #[arg(long = "folder", value_name = "NAME=CATEGORY", value_parser = parse_mapping)]
    pub folders: Vec<(String, Category)>,
    /// Skip files larger than this many MiB (1 to 1024).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub max_file_mib: u64,
    /// Print the report as JSON on stdout.
    #[arg(long)]
    pub json: bool,
    /// No progress bars.
    #[arg(long, short)]
    pub quiet: bool,
}

fn parse_mapping(s: &str) -> Result<(String, Category), String> {
    let (name, cat) = s
        .split_once('=')
        .filter(|(name, _)| !name.trim().is_empty())
        .ok_or_else(|| format!("`{s}`: expected NAME=CATEGORY (a top-level folder's name)"))?;
    let category = Category::parse(&cat.trim().to_lowercase())
        .ok_or_else(|| format!("`{cat}` is not a category (project, area, resource, archive)"))?;
    Ok((name.trim().to_string(), category))
}

/// Runs the command.
pub fn run(args: Args) -> Outcome {
    let home = Home::resolve()?;
    if !args.path.exists() {
        return Err(Failure::new(
            INPUT,
            anyhow!("{}: no such file or folder", args.path.display()),
        ));
    }
    if !args.path.is_dir() && !is_jsonl(&args.path) {
        return Err(Failure::new(
            INPUT,
            anyhow!(
                "{}: neither a folder of notes nor a JSON-lines export (.jsonl): index the \
                 folder that holds it",
                args.path.display()
            ),
        ));
    }
    // Item ids are paths inside the source: two vaults in one data directory share them.
    let source = args.path.canonicalize().unwrap_or(args.path.clone());
    let mut args = args;
    // The same source again: the mappings it was indexed with still hold (without them its
    // mapped folders' notes silently changed category), as they do for `navigator mcp`;
    // `--folder` changes or adds mappings one at a time.
    let last = home.last_index();
    if let Some(last) = last
        .as_ref()
        .filter(|l| Path::new(&l.source) == source && !l.folders.is_empty())
    {
        let mut folders = last.folders.clone();
        for (name, category) in std::mem::take(&mut args.folders) {
            folders.retain(|(n, _)| *n != name);
            folders.push((name, category));
        }
        let named: Vec<String> = folders
            .iter()
            .map(|(name, c)| format!("{name}={}", c.as_str()))
            .collect();
        eprintln!(
            "note: mapping folders as the last run did, with this run's --folder on top: {} \
             (`--folder NAME=resource` sets one back to the default)",
            named.join(", ")
        );
        args.folders = folders;
    }
    let args = args;
    let options = ingest_options(&args.folders, Some(args.max_file_mib));
    if let Some(last) = last.filter(|l| Path::new(&l.source) != source) {
        eprintln!(
            "warning: this data directory holds the index of {}; notes of {} at the same \
             paths inside it will replace those (one data directory per vault: set \
             NAVIGATOR_HOME)",
            last.source,
            source.display()
        );
    }
    let rt = runtime()?;
    rt.block_on(async {
        let embedder = home.embedder()?;
        let engine = home.engine_with(Arc::clone(&embedder)).await?;
        once(&home, &engine, &args, &options).await?;
        if args.watch {
            // Between runs the index is left to other commands (`search` while watching):
            // the last handle dropped saves and closes it.
            drop(engine);
            watch(&home, &embedder, &args, &options).await?;
        }
        Ok(ExitCode::SUCCESS)
    })
}

async fn once(
    home: &Home,
    engine: &SearchEngine,
    args: &Args,
    options: &IngestOptions,
) -> Result<IngestReport, Failure> {
    let started = Instant::now();
    let bar = progress_bar(args.quiet);
    let on_progress = |p: IngestProgress| match p {
        IngestProgress::Walked { notes } => {
            bar.set_length(notes as u64);
            bar.set_style(bar_style());
        }
        IngestProgress::Read { done, .. } => bar.set_position(done as u64),
        IngestProgress::Embedded { texts } => bar.set_message(format!("{texts} embedded")),
    };
    let report = if is_jsonl(&args.path) {
        ingest::import_jsonl(engine, &args.path, options, on_progress).await?
    } else {
        ingest::index_folder(engine, &args.path, options, on_progress).await?
    };
    bar.finish_and_clear();
    let last = LastIndex {
        source: args
            .path
            .canonicalize()
            .unwrap_or(args.path.clone())
            .display()
            .to_string(),
        finished_at: chrono::Utc::now(),
        duration_ms: started.elapsed().as_millis() as u64,
        report: serde_json::to_value(&report).map_err(|e| Failure::new(crate::exit::INDEX, e))?,
        folders: args.folders.clone(),
        max_file_mib: Some(args.max_file_mib),
    };
    if let Err(e) = home.save_last_index(&last) {
        tracing::warn!(
            "could not save the run record in {}: {e}",
            home.dir().display()
        );
    }
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&last).unwrap_or_default()
        );
    } else {
        print_report(&report, started.elapsed());
    }
    Ok(report)
}

fn print_report(report: &IngestReport, took: Duration) {
    println!("{report} in {:.2} s", took.as_secs_f64());
    for s in &report.skipped {
        println!("  skipped {} ({}): {}", s.path, s.reason, s.message);
    }
    for w in &report.warnings {
        println!("  warning: {w}");
    }
}

/// Re-indexes after changes settle: events are collected until none arrived for half a
/// second (an editor's save is several events), then one incremental run, with the index
/// opened for the run and closed after it.
async fn watch(
    home: &Home,
    embedder: &Arc<dyn Embedder>,
    args: &Args,
    options: &IngestOptions,
) -> Result<(), Failure> {
    use notify::{RecursiveMode, Watcher};
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        if let Ok(e) = event {
            if !e.kind.is_access() {
                let _ = tx.send(());
            }
        }
    })
    .map_err(|e| Failure::new(INPUT, anyhow!("watching {}: {e}", args.path.display())))?;
    watcher
        .watch(&args.path, RecursiveMode::Recursive)
        .map_err(|e| Failure::new(INPUT, anyhow!("watching {}: {e}", args.path.display())))?;
    eprintln!("watching {} (Ctrl-C to stop)", args.path.display());
    let quiet = Duration::from_millis(500);
    // One future for the whole watch: a signal during a run is kept, and the run finishes
    // before the watch stops.
    let stop = crate::signal::shutdown();
    tokio::pin!(stop);
    'watch: loop {
        tokio::select! {
            _ = &mut stop => break 'watch,
            got = rx.recv() => if got.is_none() { return Ok(()) },
        }
        // Let a burst of events (an editor's save, a sync) settle into one run.
        loop {
            tokio::select! {
                _ = &mut stop => break 'watch,
                more = tokio::time::timeout(quiet, rx.recv()) => match more {
                    Ok(Some(())) => continue,
                    Ok(None) | Err(_) => break,
                },
            }
        }
        let run = async {
            let engine = home.engine_with(Arc::clone(embedder)).await?;
            once(home, &engine, args, options).await
        };
        if let Err(f) = run.await {
            // A folder moved or deleted is never seen again: say so and stop, rather than
            // fail on every event from now on.
            if !args.path.exists() {
                return Err(Failure::new(
                    INPUT,
                    anyhow!(
                        "{} is gone (moved or deleted): stopped watching it; run `navigator \
                         index` on where it is now",
                        args.path.display()
                    ),
                ));
            }
            eprintln!("error: {:#}", f.error);
        }
    }
    eprintln!("stopped watching {}", args.path.display());
    Ok(())
}

fn is_jsonl(path: &Path) -> bool {
    path.is_file()
        && path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case("jsonl") || e.eq_ignore_ascii_case("ndjson"))
}

fn progress_bar(quiet: bool) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new_spinner();
    bar.set_message("walking");
    bar.enable_steady_tick(Duration::from_millis(120));
    bar
}

fn bar_style() -> ProgressStyle {
    ProgressStyle::with_template("{bar:30} {pos}/{len} notes  {msg}  {elapsed}")
        .unwrap_or_else(|_| ProgressStyle::default_bar())
}
