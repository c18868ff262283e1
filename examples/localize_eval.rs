//! Localisation evaluation: does the explorer's context hold the files a task changed?
//!
//! ```text
//! # build a development set from a repository's history (subject = goal, changed
//! # non-test source files that existed before the commit = gold):
//! cargo run --release --example localize_eval -- --from-git . > examples/data/localize/navigator.jsonl
//! # evaluate at a 10k-token budget, offline policy:
//! cargo run --release --example localize_eval -- examples/data/localize/navigator.jsonl --tokens 10000
//! ```
//! Tasks are JSON lines `{"repo": "...", "base_commit": "...", "goal": "...", "gold_files": [...]}`;
//! `repo` is relative to the current directory; with `base_commit` the repository is checked
//! out at that commit (through `git archive`) into a scratch directory.
//!
//! Prints per task and in total: the share of tasks with a gold file in the context at
//! verbosity >= 2, with a gold file at full source, and Acc@1 of the ranking.

use anyhow::{bail, Context};
use navigator_context::{Budgets, Explorer, HeuristicPolicy, Lang, Level, RepoMap, ScanOptions};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

struct Task {
    repo: String,
    base_commit: Option<String>,
    goal: String,
    gold_files: Vec<String>,
}

impl Task {
    fn parse(line: &str, at: &str) -> anyhow::Result<Task> {
        let v: serde_json::Value = serde_json::from_str(line).with_context(|| at.to_string())?;
        let text = |field: &str| -> anyhow::Result<String> {
            v.get(field)
                .and_then(|x| x.as_str())
                .map(String::from)
                .with_context(|| format!("{at}: `{field}` must be a string"))
        };
        let gold_files = v
            .get("gold_files")
            .and_then(|g| g.as_array())
            .and_then(|g| {
                g.iter()
                    .map(|x| x.as_str().map(String::from))
                    .collect::<Option<Vec<_>>>()
            })
            .filter(|g| !g.is_empty())
            .with_context(|| format!("{at}: `gold_files` must be a non-empty list of paths"))?;
        Ok(Task {
            repo: text("repo")?,
            base_commit: v
                .get("base_commit")
                .and_then(|x| x.as_str())
                .map(String::from),
            goal: text("goal")?,
            gold_files,
        })
    }

    fn to_json(&self) -> serde_json::Value {
        serde_json::json!({"repo": self.repo, "base_commit": self.base_commit, "goal": self.goal, "gold_files": self.gold_files})
    }
}

fn git(repo: &Path, args: &[&str]) -> anyhow::Result<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(args)
        .output()
        .context("running git")?;
    if !out.status.success() {
        bail!(
            "git {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn is_test_path(p: &str) -> bool {
    p.split('/')
        .any(|s| matches!(s, "tests" | "test" | "benches" | "examples" | "fuzz"))
}

/// One task per non-merge commit whose changed source files existed in its parent.
fn from_git(repo: &str) -> anyhow::Result<()> {
    let root = PathBuf::from(repo);
    for line in git(&root, &["log", "--no-merges", "--format=%H %P|%s"])?.lines() {
        let Some((ids, subject)) = line.split_once('|') else {
            continue;
        };
        let mut ids = ids.split_whitespace();
        let (Some(commit), Some(parent)) = (ids.next(), ids.next()) else {
            continue;
        };
        let changed = git(
            &root,
            &[
                "diff-tree",
                "--no-commit-id",
                "--name-only",
                "-r",
                parent,
                commit,
            ],
        )?;
        let gold: Vec<String> = changed
            .lines()
            .filter(|p| Lang::from_path(p).is_some() && !is_test_path(p))
            .filter(|p| git(&root, &["cat-file", "-e", &format!("{parent}:{p}")]).is_ok())
            .map(String::from)
            .collect();
        if gold.is_empty() {
            continue;
        }
        let task = Task {
            repo: repo.to_string(),
            base_commit: Some(parent.to_string()),
            goal: subject.to_string(),
            gold_files: gold,
        };
        println!("{}", task.to_json());
    }
    Ok(())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--from-git") {
        return from_git(args.get(1).context("--from-git needs a repository")?);
    }
    let tasks_path = args
        .first()
        .context("usage: localize_eval TASKS.jsonl [--tokens N] | --from-git REPO")?;
    let tokens: usize = match args.iter().position(|a| a == "--tokens") {
        Some(i) => args
            .get(i + 1)
            .context("--tokens needs a number")?
            .parse()?,
        None => 10_000,
    };
    let text =
        std::fs::read_to_string(tasks_path).with_context(|| format!("reading {tasks_path}"))?;
    let scratch = tempfile::tempdir()?;
    let cache = std::env::temp_dir().join("navigator-localize-cache");
    let (mut n, mut present, mut full, mut acc1, mut gold_share) =
        (0usize, 0usize, 0usize, 0usize, 0.0f64);
    let mut seconds = Vec::new();
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let task = Task::parse(line, &format!("{tasks_path}:{}", i + 1))?;
        let root = match &task.base_commit {
            Some(commit) => {
                let dir = scratch.path().join(&commit[..commit.len().min(12)]);
                if !dir.exists() {
                    std::fs::create_dir_all(&dir)?;
                    let archive = Command::new("git")
                        .arg("-C")
                        .arg(&task.repo)
                        .args(["archive", "--format=tar", commit])
                        .output()?;
                    if !archive.status.success() {
                        bail!("{tasks_path}:{}: git archive {commit} failed", i + 1);
                    }
                    let mut tar = Command::new("tar")
                        .arg("-x")
                        .arg("-C")
                        .arg(&dir)
                        .stdin(std::process::Stdio::piped())
                        .spawn()?;
                    std::io::Write::write_all(
                        tar.stdin.as_mut().context("tar stdin")?,
                        &archive.stdout,
                    )?;
                    tar.wait()?;
                }
                dir
            }
            None => PathBuf::from(&task.repo),
        };
        let t0 = Instant::now();
        let options = ScanOptions {
            cache_dir: Some(cache.clone()),
            ..ScanOptions::for_root(&root)
        };
        let map = RepoMap::open_with(&root, &options)?;
        let out = Explorer::new(&map, Budgets::tokens(tokens))
            .explore(&task.goal, &mut HeuristicPolicy::new())
            .await?;
        seconds.push(t0.elapsed().as_secs_f64());
        let rendered = navigator_context::render(&map, &out.plan)?;
        let levels: Vec<Level> = task
            .gold_files
            .iter()
            .map(|g| rendered.level_of(g))
            .collect();
        let shown = levels.iter().filter(|l| **l >= Level::TopLevel).count();
        let top1 = out
            .ranking
            .first()
            .is_some_and(|s| task.gold_files.contains(&s.path));
        n += 1;
        present += usize::from(shown > 0);
        full += usize::from(levels.contains(&Level::Full));
        acc1 += usize::from(top1);
        gold_share += shown as f64 / task.gold_files.len() as f64;
        println!(
            "{:>3}. {:<60} files {:>4}  gold shown {}/{}  full {}  top1 {}  ({} tokens)",
            n,
            task.goal.chars().take(60).collect::<String>(),
            map.files().len(),
            shown,
            task.gold_files.len(),
            if levels.contains(&Level::Full) {
                "yes"
            } else {
                "no "
            },
            out.ranking.first().map(|s| s.path.as_str()).unwrap_or("-"),
            out.tokens
        );
    }
    if n == 0 {
        bail!("{tasks_path} holds no tasks");
    }
    let pct = |k: usize| 100.0 * k as f64 / n as f64;
    seconds.sort_by(f64::total_cmp);
    println!("\n{n} tasks at a {tokens}-token budget, offline HeuristicPolicy:");
    println!(
        "  gold file in context at verbosity >= 2: {:.1}%  (mean share of gold files: {:.1}%)",
        pct(present),
        100.0 * gold_share / n as f64
    );
    println!(
        "  gold file at full source:               {:.1}%",
        pct(full)
    );
    println!(
        "  Acc@1 of the ranking:                   {:.2}",
        acc1 as f64 / n as f64
    );
    println!(
        "  seconds per task (scan + explore): median {:.2}, max {:.2}",
        seconds[seconds.len() / 2],
        seconds[seconds.len() - 1]
    );
    Ok(())
}
