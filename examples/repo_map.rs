//! Prints a repository map: the satellite view, or the context a Flight Plan describes.
//!
//! ```text
//! cargo run --release --example repo_map -- [REPO] [--tokens N] [--flight-plan plan.yaml]
//! ```
//! The map goes to stdout; files, tokens and timings go to stderr.

use anyhow::{bail, Context};
use navigator_context::{render, satellite, FlightPlan, RepoMap, Tokenizer};
use std::time::Instant;

fn main() -> anyhow::Result<()> {
    let mut repo = ".".to_string();
    let mut tokens = 10_000;
    let mut plan_path = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--tokens" => {
                tokens = args
                    .next()
                    .context("--tokens needs a number")?
                    .parse()
                    .context("--tokens")?
            }
            "--flight-plan" => plan_path = Some(args.next().context("--flight-plan needs a file")?),
            "-h" | "--help" => {
                eprintln!("usage: repo_map [REPO] [--tokens N] [--flight-plan plan.yaml]");
                return Ok(());
            }
            s if s.starts_with("--") => bail!("unknown option {s}"),
            s => repo = s.to_string(),
        }
    }
    let t0 = Instant::now();
    let map = RepoMap::open(&repo)?;
    let scanned = t0.elapsed();
    let plan = match &plan_path {
        Some(p) => FlightPlan::from_yaml(
            &std::fs::read_to_string(p).with_context(|| format!("reading {p}"))?,
        )
        .with_context(|| format!("in {p}"))?,
        None => satellite(&map, "repository overview", tokens, Tokenizer::default())?,
    };
    let planned = t0.elapsed();
    let out = render(&map, &plan)?;
    print!("{}", out.text);
    eprintln!(
        "{} files ({} skipped), {} tokens ({}), scan {:.2}s, plan {:.2}s, render {:.2}s, total {:.2}s",
        map.files().len(),
        map.skipped().len(),
        out.tokens,
        plan.tokenizer,
        scanned.as_secs_f64(),
        (planned - scanned).as_secs_f64(),
        (t0.elapsed() - planned).as_secs_f64(),
        t0.elapsed().as_secs_f64()
    );
    Ok(())
}
