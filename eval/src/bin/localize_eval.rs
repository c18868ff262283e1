//! Localisation evaluation: does the explorer's context hold the files a task changed?
//!
//! ```text
//! # build a task set from a repository's history (subject = goal, changed non-test source
//! # files that existed before the commit = gold; formatting-only, docs-only and sprawling
//! # commits left out; split dev/test by the parity of the commit hash):
//! cargo run --release -p navigator-eval --bin localize_eval -- --from-git . HEAD > all.jsonl
//! # evaluate at a 10k-token budget, offline policy, against plain BM25 whole-file packing
//! # (`--split dev` while tuning; `heldout` once, at the end):
//! cargo run --release -p navigator-eval --bin localize_eval -- examples/data/localize/navigator_history.jsonl --tokens 10000
//! ```
//! The committed set holds every task of the history up to 40f31ab. Its `split` is the
//! evaluation protocol, not the builder's parity: `dev` for the 36 tasks whose results had
//! been looked at before (history up to ed57e7d, then up to ae966ae), `heldout` for the 16
//! from later commits (7 up to 3921b7a, 9 up to 40f31ab, each batch run once after the
//! ranking was fixed); `origin` records which build each came from.
//! Other repositories (`../shared/eval/localize/`: click, starlette, attrs, axum, hyper, clap):
//! `--protocol commit-digit` holds out the tasks whose commit hash ends in 0, 1 or 2,
//! `--goal report` uses subject + body as the goal (tasks with 25+ words of body), `--limit N`
//! stops after N tasks, `--cold` disables the outline cache, `--show N` prints each task's top N
//! files, the gold files' levels and the blocks shown, `--dump DIR` writes each task's context
//! to `DIR/<task>.md`; the summary ends with the peak RSS.
//! `--llm-base-url URL [--llm-model NAME]` lets a model behind an OpenAI-compatible server
//! (`scripts/llm-server.sh` starts a local one) decide the explorer's turns.
//! Gold files that do not exist at the base commit (the commit created them) are dropped from
//! a task's gold list, and a task left with none is skipped and counted, as `--from-git`
//! mines; `--all-gold` keeps them (they then count as misses for every method).
//! `examples/data/localize/bug_reports.jsonl` holds 42 bug reports written for commits of those
//! six repositories (run it from the same folder; docs/benchmarks.md says how they were made).
//! The explorer ranks with the repository's history up to `base_commit` as a prior (read from
//! `repo` with `git log`, as a work tree's history would be); `--no-history` ranks on the text
//! alone.
//! Tasks are JSON lines `{"repo": "...", "base_commit": "...", "goal": "...", "gold_files":
//! [...], "split": "dev"|"test"}`; `repo` is relative to the current directory; with
//! `base_commit` the repository is checked out at that commit (through `git archive`) into a
//! scratch directory.
//!
//! Prints per task and per split: the share of tasks with a gold file in the context at
//! verbosity >= 2, with a gold file at full source, with all the lines the commit changed in
//! some gold file at full source (the whole file, or the items a zoomed file shows; from
//! `git diff -U0` between `base_commit` and `commit`), Acc@1 of the ranking, for the explorer
//! and for the baseline; and the prompt tokens the explorer's state-over-history prompts saved
//! against resending the whole transcript each turn.

use anyhow::{bail, Context};
use navigator_context::{
    render, terms, Budgets, ChangeHistory, Exploration, Explorer, FlightPlan, HeuristicPolicy,
    Lang, Level, LlmPolicy, RepoMap, Rule, ScanOptions, Tokenizer,
};
use navigator_core::{Llm, OpenAiClient, OpenAiConfig, Pricing, PricingTable};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Instant;

/// Commits touching more gold files than this are sweeping changes, not localisable tasks.
const MAX_GOLD: usize = 8;

struct Task {
    repo: String,
    commit: Option<String>,
    base_commit: Option<String>,
    goal: String,
    gold_files: Vec<String>,
    split: String,
    body: String,
}

impl Task {
    fn parse(line: &str, at: &str) -> anyhow::Result<Task> {
        let v: serde_json::Value = serde_json::from_str(line).with_context(|| at.to_string())?;
        let opt = |field: &str| v.get(field).and_then(|x| x.as_str()).map(String::from);
        let text = |field: &str| -> anyhow::Result<String> {
            opt(field).with_context(|| format!("{at}: `{field}` must be a string"))
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
            commit: opt("commit"),
            base_commit: opt("base_commit"),
            goal: text("goal")?,
            gold_files,
            split: opt("split").unwrap_or_else(|| "all".into()),
            body: opt("body").unwrap_or_default(),
        })
    }

    fn to_json(&self) -> serde_json::Value {
        serde_json::json!({"repo": self.repo, "commit": self.commit, "base_commit": self.base_commit,
            "goal": self.goal, "gold_files": self.gold_files, "split": self.split})
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

/// Whether a file changed only in whitespace between two commits (what `cargo fmt` does).
fn only_whitespace(root: &Path, parent: &str, commit: &str, path: &str) -> bool {
    let squeeze = |rev: &str| {
        git(root, &["show", &format!("{rev}:{path}")])
            .map(|t| t.split_whitespace().collect::<String>())
            .ok()
    };
    matches!((squeeze(parent), squeeze(commit)), (Some(a), Some(b)) if a == b)
}

/// One task per non-merge commit that changed 1..=MAX_GOLD non-test source files that existed
/// in its parent, beyond whitespace. Split by the parity of the commit hash's last hex digit,
/// so the split is fixed before anyone looks at results.
fn from_git(repo: &str, rev: &str) -> anyhow::Result<()> {
    let root = PathBuf::from(repo);
    let (mut kept, mut skipped) = (0, BTreeMap::<&str, usize>::new());
    for line in git(&root, &["log", "--no-merges", "--format=%H %P|%s", rev])?.lines() {
        let Some((ids, subject)) = line.split_once('|') else {
            continue;
        };
        let mut ids = ids.split_whitespace();
        let (Some(commit), Some(parent)) = (ids.next(), ids.next()) else {
            *skipped.entry("root commit").or_default() += 1;
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
        let sources: Vec<&str> = changed
            .lines()
            .filter(|p| Lang::from_path(p).is_some() && !is_test_path(p))
            .collect();
        let existing: Vec<&str> = sources
            .iter()
            .copied()
            .filter(|p| git(&root, &["cat-file", "-e", &format!("{parent}:{p}")]).is_ok())
            .collect();
        let gold: Vec<String> = existing
            .iter()
            .copied()
            .filter(|p| !only_whitespace(&root, parent, commit, p))
            .map(String::from)
            .collect();
        let why = if sources.is_empty() {
            Some("no non-test source file changed (docs, data, tests only)")
        } else if existing.is_empty() {
            Some("only new files")
        } else if gold.is_empty() {
            Some("formatting only")
        } else if gold.len() > MAX_GOLD {
            Some("more than 8 source files")
        } else {
            None
        };
        if let Some(why) = why {
            *skipped.entry(why).or_default() += 1;
            continue;
        }
        let last = u8::from_str_radix(&commit[commit.len() - 1..], 16)?;
        let task = Task {
            repo: repo.to_string(),
            commit: Some(commit.to_string()),
            base_commit: Some(parent.to_string()),
            goal: subject.to_string(),
            gold_files: gold,
            split: if last % 2 == 0 { "dev" } else { "test" }.into(),
            body: String::new(),
        };
        println!("{}", task.to_json());
        kept += 1;
    }
    eprintln!("{kept} tasks; left out: {skipped:?}");
    Ok(())
}

fn checkout(task: &Task, scratch: &Path, at: &str) -> anyhow::Result<PathBuf> {
    let Some(commit) = &task.base_commit else {
        return Ok(PathBuf::from(&task.repo));
    };
    let dir = scratch.join(&commit[..commit.len().min(12)]);
    if !dir.exists() {
        std::fs::create_dir_all(&dir)?;
        let archive = Command::new("git")
            .arg("-C")
            .arg(&task.repo)
            .args(["archive", "--format=tar", commit])
            .output()?;
        if !archive.status.success() {
            bail!("{at}: git archive {commit} failed");
        }
        let mut tar = Command::new("tar")
            .arg("-x")
            .arg("-C")
            .arg(&dir)
            .stdin(std::process::Stdio::piped())
            .spawn()?;
        std::io::Write::write_all(tar.stdin.as_mut().context("tar stdin")?, &archive.stdout)?;
        tar.wait()?;
    }
    Ok(dir)
}

/// The bar to beat: plain BM25 (k1 1.2, b 0.75) over whole file bodies, best first.
fn bm25_ranking(map: &RepoMap, goal: &str) -> Vec<String> {
    let mut query = terms(goal);
    query.sort();
    query.dedup();
    let docs: Vec<HashMap<String, f64>> = map
        .files()
        .iter()
        .map(|f| {
            let mut tf = HashMap::new();
            for t in terms(f.text().unwrap_or("")) {
                *tf.entry(t).or_insert(0.0) += 1.0;
            }
            tf
        })
        .collect();
    let lens: Vec<f64> = docs.iter().map(|d| d.values().sum()).collect();
    let avg = (lens.iter().sum::<f64>() / lens.len().max(1) as f64).max(1.0);
    let n = docs.len() as f64;
    let df = |q: &String| docs.iter().filter(|d| d.contains_key(q)).count() as f64;
    let idf: Vec<f64> = query
        .iter()
        .map(|q| ((n - df(q) + 0.5) / (df(q) + 0.5) + 1.0).ln())
        .collect();
    let mut scored: Vec<(f64, &str)> = docs
        .iter()
        .zip(&lens)
        .zip(map.files())
        .map(|((d, len), f)| {
            let s = query
                .iter()
                .zip(&idf)
                .filter_map(|(q, idf)| d.get(q).map(|tf| (tf, idf)))
                .map(|(tf, idf)| idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * len / avg)))
                .sum();
            (s, f.path.as_str())
        })
        .filter(|(s, _)| *s > 0.0)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    scored.into_iter().map(|(_, p)| p.to_string()).collect()
}

/// Crude packing of a ranking: whole files in rank order while they fit, then top-level
/// outlines of the next ones, everything else collapsed; trimmed until the render fits.
fn bm25_pack(map: &RepoMap, goal: &str, ranking: &[String], budget: usize) -> FlightPlan {
    let tok = Tokenizer::default();
    let mut plan = FlightPlan::new(goal, budget);
    plan.rules = vec![Rule {
        path: "**".into(),
        level: Level::Path,
        collapse: true,
        focus: Vec::new(),
        max_items: None,
    }];
    let mut left = budget.saturating_sub(tok.count(&render(map, &plan).unwrap().text));
    for path in ranking {
        let Some(f) = map.file(path) else { continue };
        let full = tok.count(f.text().unwrap_or("")) + 12;
        let outline: String = f
            .outline()
            .map(|o| {
                o.symbols
                    .iter()
                    .filter(|s| s.depth == 0)
                    .map(|s| format!("  {}\n", s.signature))
                    .collect()
            })
            .unwrap_or_default();
        let top = tok.count(&outline) + tok.count(path) + 1;
        if full <= left {
            left -= full;
            plan.rules.push(Rule::new(path.clone(), Level::Full));
        } else if top <= left {
            left -= top;
            plan.rules.push(Rule::new(path.clone(), Level::TopLevel));
        }
    }
    while render(map, &plan).unwrap().tokens > budget && plan.rules.len() > 1 {
        plan.rules.pop();
    }
    plan
}

/// The lines each gold file's commit changed, as 1-based ranges of the parent's version: a
/// deletion or change covers its old lines, a pure insertion the line it follows. Empty when
/// the task names no commit (the file-level figures still apply).
fn changed_lines(task: &Task) -> anyhow::Result<HashMap<String, Vec<(u32, u32)>>> {
    let (Some(base), Some(commit)) = (&task.base_commit, &task.commit) else {
        return Ok(HashMap::new());
    };
    let mut args = vec![
        "diff",
        "-U0",
        "--no-color",
        "--no-renames",
        base,
        commit,
        "--",
    ];
    args.extend(task.gold_files.iter().map(String::as_str));
    let diff = git(Path::new(&task.repo), &args)?;
    let mut out: HashMap<String, Vec<(u32, u32)>> = HashMap::new();
    let mut file: Option<String> = None;
    for line in diff.lines() {
        if let Some(p) = line.strip_prefix("--- a/") {
            file = Some(p.to_string());
        } else if line.starts_with("--- ") {
            file = None;
        } else if let (Some(rest), Some(f)) = (line.strip_prefix("@@ -"), &file) {
            let old = rest.split_whitespace().next().unwrap_or("");
            let (start, count) = match old.split_once(',') {
                Some((a, b)) => (a.parse::<u32>()?, b.parse::<u32>()?),
                None => (old.parse::<u32>()?, 1),
            };
            let range = if count == 0 {
                (start.max(1), start.max(1))
            } else {
                (start, start + count - 1)
            };
            out.entry(f.clone()).or_default().push(range);
        }
    }
    Ok(out)
}

/// Whether every line a gold file's commit changed is shown at full source (the whole file, or
/// the items a focused rule splices into its outline).
fn code_in_full(rendered: &navigator_context::Rendered, path: &str, hunks: &[(u32, u32)]) -> bool {
    let Some(shown) = rendered.shown.iter().find(|s| s.path == path) else {
        return false;
    };
    if hunks.is_empty() {
        return shown.level == Level::Full;
    }
    hunks
        .iter()
        .all(|&(a, b)| shown.full_lines.iter().any(|&(x, y)| x <= a && b <= y))
}

#[derive(Default)]
struct Tally {
    n: usize,
    present: usize,
    full: usize,
    code_full: usize,
    acc1: usize,
    gold_share: f64,
}

impl Tally {
    fn add(&mut self, gold: &[String], levels: &[Level], code_full: bool, top1: Option<&str>) {
        let shown = levels.iter().filter(|l| **l >= Level::TopLevel).count();
        self.n += 1;
        self.present += usize::from(shown > 0);
        self.full += usize::from(levels.contains(&Level::Full));
        self.code_full += usize::from(code_full);
        self.acc1 += usize::from(top1.is_some_and(|t| gold.iter().any(|g| g == t)));
        self.gold_share += shown as f64 / gold.len() as f64;
    }

    fn line(&self, name: &str) -> String {
        let pct = |k: usize| 100.0 * k as f64 / self.n.max(1) as f64;
        format!(
            "  {name:<22} gold present {:>5.1}%  gold at full source {:>5.1}%  changed code at full source {:>5.1}%  Acc@1 {:.2}  (mean share of gold shown {:.1}%)",
            pct(self.present),
            pct(self.full),
            pct(self.code_full),
            self.acc1 as f64 / self.n.max(1) as f64,
            100.0 * self.gold_share / self.n.max(1) as f64
        )
    }
}

/// Prompt tokens of state-over-history against resending the transcript, per split.
#[derive(Default)]
struct Saving {
    ours: usize,
    history: usize,
    per_task: Vec<f64>,
    by_turns: BTreeMap<usize, Vec<f64>>,
}

impl Saving {
    fn add(&mut self, out: &Exploration) {
        let (ours, history) = out.prompt_tokens();
        let s = 1.0 - ours as f64 / history.max(1) as f64;
        self.ours += ours;
        self.history += history;
        self.per_task.push(s);
        self.by_turns.entry(out.turns.len()).or_default().push(s);
    }

    fn lines(&self) -> String {
        let mean = |v: &[f64]| 100.0 * v.iter().sum::<f64>() / v.len().max(1) as f64;
        let mut s = format!(
            "  state over history:   mean saving {:.1}% per task; {} vs {} prompt tokens in total ({:.1}% saved)\n",
            mean(&self.per_task),
            self.ours,
            self.history,
            100.0 * (1.0 - self.ours as f64 / self.history.max(1) as f64)
        );
        for (turns, v) in &self.by_turns {
            s.push_str(&format!(
                "    {turns} turns: {} tasks, mean saving {:.1}%\n",
                v.len(),
                mean(v)
            ));
        }
        s
    }
}

#[derive(Default)]
struct Split {
    explorer: Tally,
    baseline: Tally,
    saving: Saving,
    /// Tasks with a gold file small enough to be shown whole (its source within
    /// [`WHOLE_SHARE`] of the budget): the ceiling of "gold at full source".
    fits: usize,
}

/// The largest share of the budget one file can take at full source (the packer's share for
/// a clear first file).
const WHOLE_SHARE: f64 = 0.85;

/// The process's peak resident memory (`VmHWM`), where the platform reports it.
fn peak_rss() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .map(|l| l["VmHWM:".len()..].trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    navigator_eval::help::exit_on_help(include_str!("localize_eval.rs"));
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--from-git") {
        let repo = args.get(1).context("--from-git needs a repository")?;
        return from_git(repo, args.get(2).map_or("HEAD", String::as_str));
    }
    let tasks_path = args.first().context(
        "usage: localize_eval TASKS.jsonl [--tokens N] [--split dev|test] [--show N] | --from-git REPO [REV]",
    )?;
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .map(|i| {
                args.get(i + 1)
                    .with_context(|| format!("{name} needs a value"))
            })
            .transpose()
    };
    let tokens: usize = flag("--tokens")?.map_or(Ok(10_000), |t| t.parse())?;
    let only = flag("--split")?;
    let show: usize = flag("--show")?.map_or(Ok(0), |t| t.parse())?;
    let dump = flag("--dump")?.map(PathBuf::from);
    if let Some(d) = &dump {
        std::fs::create_dir_all(d).with_context(|| format!("creating {}", d.display()))?;
    }
    // At most this many tasks of the selected split (the file's first ones), to iterate fast.
    let limit: usize = flag("--limit")?.map_or(Ok(usize::MAX), |t| t.parse())?;
    // `--protocol commit-digit`: a task is held out when its commit hash ends in 0, 1 or 2
    // (fixed before any result was seen), otherwise dev; the file's own split is ignored.
    let protocol = flag("--protocol")?.cloned();
    // `--goal report`: the goal is the commit's whole message (subject, blank line, body),
    // for tasks whose body has at least 25 words: long, mostly prose goals.
    let goal_kind = flag("--goal")?.cloned().unwrap_or_else(|| "subject".into());
    // `--cold`: no outline cache at all, so every task parses every file.
    let cold = args.iter().any(|a| a == "--cold");
    // A gold file the commit created does not exist in the state explored: no context can
    // show it. By default such files are dropped from the gold list (a task left with none is
    // skipped and counted), the rule `--from-git` mines by; `--all-gold` keeps them.
    let all_gold = args.iter().any(|a| a == "--all-gold");
    let use_history = !args.iter().any(|a| a == "--no-history");
    // `--llm-base-url URL [--llm-model NAME]`: the explorer's turns are decided by a model
    // behind an OpenAI-compatible server (a local llama.cpp server:
    // `scripts/llm-server.sh`) instead of the heuristic policy; the BM25 baseline is the same.
    // A local server costs nothing.
    let llm: Option<(Arc<dyn Llm>, String, PricingTable)> = match flag("--llm-base-url")? {
        Some(url) => {
            let model = flag("--llm-model")?
                .cloned()
                .unwrap_or_else(|| "local".into());
            let client = OpenAiClient::new(OpenAiConfig::compatible(url, &model))?;
            let mut prices = PricingTable::default();
            prices.set(model.clone(), Pricing::free());
            Some((Arc::new(client), model, prices))
        }
        None => None,
    };
    let policy_name = llm.as_ref().map_or_else(
        || "explorer (heuristic)".to_string(),
        |(_, model, _)| format!("explorer (LLM {model})"),
    );
    let mut unfindable = 0usize;
    let mut llm_failed = 0usize;
    let text =
        std::fs::read_to_string(tasks_path).with_context(|| format!("reading {tasks_path}"))?;
    let scratch = tempfile::tempdir()?;
    let cache = std::env::temp_dir().join("navigator-localize-cache");
    let mut splits: BTreeMap<String, Split> = BTreeMap::new();
    let mut seconds = Vec::new();
    let mut n = 0;
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let at = format!("{tasks_path}:{}", i + 1);
        let mut task = Task::parse(line, &at)?;
        match protocol.as_deref() {
            None => {}
            Some("commit-digit") => {
                let commit = task.commit.as_deref().unwrap_or("");
                task.split = if commit.ends_with(['0', '1', '2']) {
                    "heldout"
                } else {
                    "dev"
                }
                .into();
            }
            Some(other) => bail!("--protocol must be commit-digit, not {other}"),
        }
        match goal_kind.as_str() {
            "subject" => {}
            "report" => {
                if task.body.split_whitespace().count() < 25 {
                    continue;
                }
                task.goal = format!("{}\n\n{}", task.goal, task.body);
            }
            other => bail!("--goal must be subject or report, not {other}"),
        }
        if only.is_some_and(|s| *s != task.split) {
            continue;
        }
        if n >= limit {
            break;
        }
        let root = checkout(&task, scratch.path(), &at)?;
        if !all_gold {
            task.gold_files.retain(|g| root.join(g).is_file());
            if task.gold_files.is_empty() {
                unfindable += 1;
                continue;
            }
        }
        let t0 = Instant::now();
        let options = ScanOptions {
            cache_dir: (!cold).then(|| cache.clone()),
            // The scratch checkout has no `.git`: history comes from the task's repository.
            history: false,
            ..ScanOptions::for_root(&root)
        };
        let mut map = RepoMap::open_with(&root, &options)?;
        if let (true, Some(base)) = (use_history, &task.base_commit) {
            let history = ChangeHistory::from_git(Path::new(&task.repo), base)
                .with_context(|| format!("{at}: history"))?;
            map = map.with_history(Some(history));
        }
        let mut explorer = Explorer::new(&map, Budgets::tokens(tokens));
        let out = match &llm {
            None => {
                explorer
                    .explore(&task.goal, &mut HeuristicPolicy::new())
                    .await?
            }
            Some((client, _, prices)) => {
                let mut policy = LlmPolicy::new(client.clone(), prices.clone());
                match explorer.explore(&task.goal, &mut policy).await {
                    Ok(out) => out,
                    Err(e) => {
                        println!("  [{}] {}: the LLM run failed: {e}", task.split, task.goal);
                        llm_failed += 1;
                        continue;
                    }
                }
            }
        };
        seconds.push(t0.elapsed().as_secs_f64());
        let rendered = render(&map, &out.plan)?;
        let levels: Vec<Level> = task
            .gold_files
            .iter()
            .map(|g| rendered.level_of(g))
            .collect();
        let top1 = out.ranking.first().map(|s| s.path.as_str());
        let bm25 = bm25_ranking(&map, &task.goal);
        let base = render(&map, &bm25_pack(&map, &task.goal, &bm25, tokens))?;
        let base_levels: Vec<Level> = task.gold_files.iter().map(|g| base.level_of(g)).collect();
        let hunks = changed_lines(&task).with_context(|| format!("{at}: diff"))?;
        let in_full = |r: &navigator_context::Rendered| {
            task.gold_files
                .iter()
                .any(|g| code_in_full(r, g, hunks.get(g).map_or(&[][..], Vec::as_slice)))
        };
        let (code_full, base_code_full) = (in_full(&rendered), in_full(&base));
        let split = splits.entry(task.split.clone()).or_default();
        split
            .explorer
            .add(&task.gold_files, &levels, code_full, top1);
        split.baseline.add(
            &task.gold_files,
            &base_levels,
            base_code_full,
            bm25.first().map(String::as_str),
        );
        split.saving.add(&out);
        // Each gold file's source in tokens (None: not a readable text file).
        let gold_tokens: Vec<Option<usize>> = task
            .gold_files
            .iter()
            .map(|g| {
                map.file(g)
                    .and_then(|f| f.text())
                    .map(|t| Tokenizer::default().count(t))
            })
            .collect();
        split.fits += usize::from(
            gold_tokens
                .iter()
                .any(|t| t.is_some_and(|t| t as f64 <= WHOLE_SHARE * tokens as f64)),
        );
        n += 1;
        if let Some(d) = &dump {
            let file = d.join(format!("{n:03}.md"));
            std::fs::write(&file, &rendered.text)
                .with_context(|| format!("writing {}", file.display()))?;
        }
        if show > 0 {
            for (g, size) in task.gold_files.iter().zip(&gold_tokens) {
                let rank = out.ranking.iter().position(|s| s.path == *g);
                let full: Vec<(u32, u32)> = rendered
                    .shown
                    .iter()
                    .find(|s| s.path == *g)
                    .map(|s| s.full_lines.clone())
                    .unwrap_or_default();
                println!(
                    "      gold {g} at {:?}, rank {rank:?}, tokens {size:?}, changed {:?}, full {full:?}",
                    rendered.level_of(g),
                    hunks.get(g).map_or(&[][..], Vec::as_slice),
                );
            }
            let blocks: Vec<String> = rendered
                .shown
                .iter()
                .map(|s| format!("{}:{}:{}", s.path, s.level as u8, s.tokens))
                .collect();
            println!("      shown {}", blocks.join(" "));
            for r in out.plan.rules.iter().filter(|r| !r.focus.is_empty()) {
                println!("      focus {} {}: {}", r.path, r.level, r.focus.join(", "));
            }
            for s in out.ranking.iter().take(show) {
                println!("      {:.3} {} {:?}", s.score, s.path, s.reasons);
            }
        }
        let shown = |l: &[Level]| l.iter().filter(|l| **l >= Level::TopLevel).count();
        // F: a gold file whole; f: the changed code of a gold file, inside a zoomed outline.
        let full = |l: &[Level], code: bool| match (l.contains(&Level::Full), code) {
            (true, _) => "F",
            (false, true) => "f",
            _ => "-",
        };
        println!(
            "{n:>3}. [{}] {:<56} gold {}/{} {} top1 {:<5} | bm25 {}/{} {} top1 {:<5} | {} turns, {} tokens, top {}",
            task.split,
            task.goal.chars().take(56).collect::<String>(),
            shown(&levels),
            task.gold_files.len(),
            full(&levels, code_full),
            top1.is_some_and(|t| task.gold_files.iter().any(|g| g == t)),
            shown(&base_levels),
            task.gold_files.len(),
            full(&base_levels, base_code_full),
            bm25.first().is_some_and(|t| task.gold_files.contains(t)),
            out.turns.len(),
            out.tokens,
            top1.unwrap_or("-"),
        );
    }
    if n == 0 && llm_failed == 0 {
        bail!("{tasks_path} holds no tasks");
    }
    seconds.sort_by(f64::total_cmp);
    match &llm {
        None => println!("\n{n} tasks at a {tokens}-token budget, no LLM:"),
        Some((_, model, _)) => println!("\n{n} tasks at a {tokens}-token budget, LLM {model}:"),
    }
    if llm_failed > 0 {
        println!("({llm_failed} more ended in an LLM error, printed above, and are not counted)");
    }
    if unfindable > 0 {
        println!(
            "({unfindable} more skipped: every gold file is new in the commit, so absent from \
             the state explored; --all-gold counts them as misses)"
        );
    }
    for (name, s) in &splits {
        println!("{name} ({} tasks):", s.explorer.n);
        println!("{}", s.explorer.line(&policy_name));
        println!(
            "  a gold file fits whole (its source within {:.0}% of the budget): {:.1}% of tasks",
            100.0 * WHOLE_SHARE,
            100.0 * s.fits as f64 / s.explorer.n.max(1) as f64
        );
        println!("{}", s.baseline.line("BM25 whole files"));
        print!("{}", s.saving.lines());
    }
    println!(
        "seconds per task (scan + explore{}): median {:.2}, max {:.2}; peak RSS {}",
        if cold { ", cold: no outline cache" } else { "" },
        seconds[seconds.len() / 2],
        seconds[seconds.len() - 1],
        peak_rss()
    );
    Ok(())
}
