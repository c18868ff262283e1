//! `navigator context`: the context window for a goal, an overview without one, or the replay
//! of a Flight Plan.
//!
//! ```text
//! navigator context "Fix the panic in Router::nest" ./repo --tokens 8000 --plan plan.yaml
//! navigator context --replay plan.yaml ./repo [--refit]
//! navigator context "..." ./repo --llm openai --base-url http://127.0.0.1:8765/v1 --model local
//! navigator context ./repo-overview-only --tokens 4000      # no goal: breadth-first overview
//! navigator context --goal-file bug-report.txt ./repo       # a long goal, from a file or `-`
//! ```
//! The context goes to stdout (or, with `--json`, one JSON object with the context, its files
//! in order with level, tokens, the line ranges shown at full source, score and reasons, and
//! the plan); reports go to stderr. Exit codes: 0 done, 1 error, 2 a command line that cannot
//! work ([`Usage`]), 3 the repository changed since the replayed plan was made, 4 the LLM
//! policy failed partway (the context is still printed: what the turns before built, filled
//! from the offline ranking).

mod llm;

pub(crate) use llm::policy;

use anyhow::{bail, Context as _};
use clap::ValueEnum;
use llm::{check_llm_flags, explained};
use navigator_context::{
    render, replay, satellite, Budgets, Error, Explorer, FlightPlan, Rendered, RepoMap,
    ScanOptions, Scored, StopReason,
};
use std::io::{IsTerminal as _, Read as _, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Whether `dir` is a bare git repository: `HEAD`, `objects/` and `refs/` at its root and no
/// `.git` (its files are git's, not a project's).
fn is_bare_git(dir: &std::path::Path) -> bool {
    dir.join("HEAD").is_file()
        && dir.join("objects").is_dir()
        && dir.join("refs").is_dir()
        && !dir.join(".git").exists()
}

/// The commit `plan` was pinned at when `root` is a git repository that does not have it (the
/// plan was made on another repository), else `None`.
fn foreign_commit<'p>(plan: &'p FlightPlan, root: &std::path::Path) -> Option<&'p str> {
    let commit = plan.pinned.as_ref()?.commit.as_deref()?;
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .arg("-C")
            .arg(root)
            .args(args)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    let object = format!("{commit}^{{commit}}");
    (git(&["rev-parse", "--git-dir"]) && !git(&["cat-file", "-e", &object])).then_some(commit)
}

/// Exit code when a replayed plan no longer matches the repository.
const EXIT_DRIFT: u8 = 3;
/// Exit code when the LLM policy failed after the exploration began (a model with no valid
/// action in its tries, a server gone at a later turn): the context is printed all the same,
/// and a script can tell it from one the model finished.
const EXIT_POLICY_FAILED: u8 = 4;
/// The token budget when `--tokens` is not given.
const DEFAULT_TOKENS: usize = 10_000;

/// A command line that cannot work as given (exit code 2, as clap's own refusals): `main`
/// tells it from a failed run by its type.
#[derive(Debug)]
pub struct Usage(pub String);

impl std::fmt::Display for Usage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Usage {}

/// How the explorer runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    /// Turn after turn until done or out of budget.
    Autonomous,
    /// Shows each turn's report on stderr and waits for approval, a decline or feedback,
    /// typed at the terminal (stdin must be one).
    Interactive,
}

/// Who decides each turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LlmKind {
    /// The offline heuristic policy: no key, no cost.
    None,
    /// The Anthropic Messages API (`ANTHROPIC_API_KEY`).
    Anthropic,
    /// An OpenAI-compatible chat completions server (`OPENAI_API_KEY` for OpenAI itself; none
    /// for a local server given with `--base-url`).
    Openai,
}

/// Arguments of `navigator context`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// What the context is for: a task, a commit subject, a bug report with its traceback.
    /// Without it (and without --replay) the output is a breadth-first overview; a single
    /// argument naming a directory is the repository to overview. A long one: --goal-file.
    /// One starting with `-` goes after `--`, the options before it:
    /// `navigator context --tokens 4000 -- "--help output wraps" .`
    pub goal: Option<String>,
    /// The repository root (default: the current directory).
    pub repo: Option<PathBuf>,
    /// The most tokens the context may take (default 10000; with --replay, the plan's own
    /// budget unless --refit is given too).
    #[arg(long, value_parser = parse_tokens, allow_negative_numbers = true)]
    pub tokens: Option<usize>,
    /// Read the goal from this file (`-`: from stdin) instead of the command line, for a long
    /// one such as a bug report with its traceback; the one positional argument is then the
    /// repository.
    #[arg(long, value_name = "PATH", conflicts_with = "replay")]
    pub goal_file: Option<PathBuf>,
    /// The most USD the LLM policy may spend.
    #[arg(long, value_parser = parse_usd, allow_negative_numbers = true)]
    pub usd: Option<f64>,
    /// Autonomous, or interactive (turn reports on stderr, answers typed at the terminal; for
    /// a script, autonomous).
    #[arg(long, value_enum, default_value_t = Mode::Autonomous)]
    pub mode: Mode,
    /// The policy's model provider; `none` explores offline.
    #[arg(long, value_enum, default_value_t = LlmKind::None)]
    pub llm: LlmKind,
    /// The provider's base URL (a local OpenAI-compatible server: `http://127.0.0.1:8765/v1`).
    #[arg(long)]
    pub base_url: Option<String>,
    /// The model name.
    #[arg(long)]
    pub model: Option<String>,
    /// Seconds the LLM server has to answer each request (default 120); a request that times
    /// out is sent up to 3 more times before the exploration fails.
    #[arg(long, value_name = "SECS", value_parser = llm::parse_seconds, allow_negative_numbers = true)]
    pub llm_timeout: Option<f64>,
    /// Write the Flight Plan (pinned to the files' content) to this YAML file.
    #[arg(long)]
    pub plan: Option<PathBuf>,
    /// Regenerate the context of this Flight Plan instead of exploring (the one positional
    /// argument is then the repository).
    #[arg(long)]
    pub replay: Option<PathBuf>,
    /// With --replay: when the repository changed, fit the plan again within its budget
    /// instead of failing.
    #[arg(long)]
    pub refit: bool,
    /// Print one JSON object instead of the context text.
    #[arg(long)]
    pub json: bool,
    /// Rank on the goal's text alone, without the git history prior (how recently and how
    /// often each matched file changed).
    #[arg(long)]
    pub no_history: bool,
    /// Keep the context the policy chose even when it leaves more than a quarter of the
    /// token budget unspent (by default the offline ranking fills it, for the files no rule
    /// of the policy matches).
    #[arg(long)]
    pub no_fill: bool,
}

/// `text` as one POSIX shell word: bare when it holds only safe characters, else in single
/// quotes (a quote inside closes, escapes and reopens them).
fn shell_quote(text: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "_./-:=@%+,".contains(c);
    if !text.is_empty() && text.chars().all(safe) {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

/// Whether a lone argument reads as a path rather than a goal (`./x`, `../x`, `/x`, `~/x`,
/// `x/`), so that a mistyped repository is an error instead of a one-word goal.
fn looks_like_a_path(arg: &str) -> bool {
    !arg.contains(char::is_whitespace)
        && (["./", "../", "/", "~/", ".\\", "..\\"]
            .iter()
            .any(|p| arg.starts_with(p))
            || arg.ends_with('/')
            || arg == "."
            || arg == "..")
}

/// `--tokens`: a whole number of tokens, at least 1.
fn parse_tokens(s: &str) -> Result<usize, String> {
    match s.trim().parse::<i128>() {
        Ok(n) if n >= 1 => usize::try_from(n).map_err(|_| format!("{n} is too large")),
        Ok(_) => Err("the budget is a positive number of tokens, like 8000".into()),
        Err(_) => Err(format!("`{s}` is not a whole number of tokens (like 8000)")),
    }
}

/// `--usd`: a finite amount of at least 0.
fn parse_usd(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
        Ok(_) => Err("the budget is an amount of USD of at least 0, like 0.05".into()),
        Err(_) => Err(format!("`{s}` is not an amount of USD (like 0.05)")),
    }
}

/// The goal `--goal-file` names: the file's text, or stdin's for `-`.
fn read_goal(path: &Path, mode: Mode) -> anyhow::Result<String> {
    let text = if path == Path::new("-") {
        if mode == Mode::Interactive {
            return Err(Usage("--goal-file - reads the goal from stdin, where --mode interactive reads each turn's answer: put the goal in a file".into()).into());
        }
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .context("reading the goal from stdin (--goal-file -)")?;
        text
    } else {
        std::fs::read_to_string(path)
            .with_context(|| format!("reading the goal from --goal-file {}", path.display()))?
    };
    if text.trim().is_empty() {
        bail!(
            "--goal-file {}: the goal is empty (for the repository's overview, leave out the goal)",
            path.display()
        );
    }
    Ok(text.trim_end().to_string())
}

/// Says which paths the goal names that the repository does not hold (a typo, a file since
/// moved, another repository), so the context is not taken to cover them. Absolute paths
/// (a traceback's installed packages) and the reporter's own files are no paths of the
/// repository to look for.
fn note_missing_paths(map: &RepoMap, goal: &str) {
    let parsed = navigator_context::Goal::parse(goal);
    let missing: Vec<&String> = parsed
        .paths
        .iter()
        .filter(|p| p.contains('/') && !p.starts_with(['/', '~', '.']) && !p.contains(':'))
        .filter(|p| !parsed.user_files.contains(p))
        .filter(|p| {
            !["site-packages/", "node_modules/", "dist-packages/"]
                .iter()
                .any(|d| p.contains(d))
        })
        .filter(|p| {
            !map.files()
                .iter()
                .any(|f| f.path == **p || f.path.ends_with(&format!("/{p}")))
                && !map.root().join(p.as_str()).exists()
        })
        .collect();
    for p in missing {
        eprintln!("note: the goal names {p}, which is not in the repository");
    }
}

/// `n turns`, or `1 turn`.
pub(crate) fn turns(n: usize) -> String {
    match n {
        1 => "1 turn".into(),
        n => format!("{n} turns"),
    }
}

/// The reason `--json` gives for a file the goal's ranking does not hold.
const NOT_RANKED: &str = "not matched by the goal: shown by a rule of the plan";

/// The JSON form: the context, its files in order (content first, then paths), the plan. A
/// file's `score` and `reasons` come from `ranking` (an exploration's): `null` and none for a
/// replay or an overview, which rank nothing.
/// A file's `tokens` is what its block takes of the budget (its header line included);
/// `content_tokens` is the count its header states.
fn json(
    map: &RepoMap,
    rendered: &Rendered,
    ranking: Option<&[Scored]>,
    plan: &FlightPlan,
    extra: serde_json::Value,
) -> serde_json::Value {
    let scored = |p: &str| ranking.and_then(|r| r.iter().find(|s| s.path == p));
    let files: Vec<serde_json::Value> = rendered
        .shown
        .iter()
        .map(|s| {
            let r = scored(&s.path);
            // A file the goal does not match is shown for a rule of the plan (a folder's, a
            // model's choice, a replayed plan's): score 0, and that reason.
            // Without a ranking (a replay, an overview) there are no scores to give.
            let (score, reasons) = match (ranking, r) {
                (None, _) => (None, Vec::new()),
                (Some(_), Some(r)) => (Some(r.score), r.reasons.clone()),
                (Some(_), None) => (Some(0.0), vec![NOT_RANKED.to_string()]),
            };
            serde_json::json!({
                "path": s.path, "level": s.level as u8, "tokens": s.tokens,
                "content_tokens": s.content_tokens,
                "full_lines": s.full_lines, "omitted_entries": s.omitted,
                "score": score, "reasons": reasons,
            })
        })
        .collect();
    let paths: Vec<&str> = rendered.listed_paths().collect();
    let mut out = serde_json::json!({
        "goal": plan.goal, "tokens": rendered.tokens, "token_budget": plan.token_budget,
        "files": files, "paths": paths,
        "collapsed": rendered.collapsed_dirs.iter().map(|(d, n)| serde_json::json!({"dir": d, "files": n})).collect::<Vec<_>>(),
        "limited": rendered.limited.iter().map(|(p, why)| serde_json::json!({"path": p, "reason": why})).collect::<Vec<_>>(),
        "skipped": map.skipped().iter().map(|(p, why)| serde_json::json!({"path": p, "reason": why})).collect::<Vec<_>>(),
        "context": rendered.text, "plan": plan.to_yaml(&[]),
    });
    if let (Some(o), serde_json::Value::Object(e)) = (out.as_object_mut(), extra) {
        o.extend(e);
    }
    out
}

/// Files the scan left out for a reason a reader would not guess (unreadable, a link leaving
/// the root, a pipe): up to five named on stderr, the rest counted. Binary files, which every
/// repository with images has, are not named (`--json` lists every file left out under
/// `skipped`).
fn note_skipped(map: &RepoMap) {
    let odd: Vec<&(String, String)> = map
        .skipped()
        .iter()
        .filter(|(_, why)| why != "binary")
        .collect();
    note_each(
        &odd,
        "is left out",
        "are left out (--json lists them under `skipped`)",
    );
}

/// Up to five `(path, why)` notes on stderr ("note: PATH IS: WHY"), the rest counted
/// ("note: N more files ARE").
fn note_each(items: &[&(String, String)], is: &str, are: &str) {
    const NAMED: usize = 5;
    for (path, why) in items.iter().take(NAMED) {
        eprintln!("note: {path} {is}: {why}");
    }
    if items.len() > NAMED {
        eprintln!("note: {} more files {are}", items.len() - NAMED);
    }
}

/// Files shown lower than asked lest their size or encoding pass unnoticed: up to five named
/// on stderr, the rest counted (`--json` lists them all under `limited`).
/// `except`: a file already named (the best-effort note's).
fn note_limited(rendered: &Rendered, except: Option<&str>) {
    let limited: Vec<&(String, String)> = rendered
        .limited
        .iter()
        .filter(|(p, _)| Some(p.as_str()) != except)
        .collect();
    note_each(
        &limited,
        "is shown as its path",
        "are shown lower than asked (--json lists them under `limited`)",
    );
}

fn emit(args: &Args, rendered: &Rendered, value: serde_json::Value) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    if args.json {
        writeln!(stdout, "{}", serde_json::to_string_pretty(&value)?)?;
    } else {
        stdout.write_all(rendered.text.as_bytes())?;
    }
    Ok(())
}

fn write_plan(args: &Args, plan: &FlightPlan, comments: &[String]) -> anyhow::Result<()> {
    if let Some(path) = &args.plan {
        std::fs::write(path, plan.to_yaml(comments))
            .with_context(|| format!("writing the flight plan to {}", path.display()))?;
    }
    Ok(())
}

/// Runs `navigator context`.
pub async fn run(mut args: Args) -> anyhow::Result<ExitCode> {
    if args.refit && args.replay.is_none() {
        return Err(Usage("--refit applies to --replay PLAN only".into()).into());
    }
    check_llm_flags(&args)?;
    if let Some(path) = args.goal_file.clone() {
        // `--goal-file FILE REPO`: the one positional given is the repository.
        match args.goal.take() {
            Some(repo) if args.repo.is_none() => args.repo = Some(PathBuf::from(repo)),
            Some(goal) => {
                return Err(Usage(format!(
                    "--goal-file {} gives the goal, so the command line takes none (got `{goal}`): the goal comes from the command line or from a file, not both",
                    path.display()
                ))
                .into())
            }
            None => {}
        }
        args.goal = Some(read_goal(&path, args.mode)?);
    }
    if args.replay.is_some() {
        // `--replay plan.yaml REPO`: the one positional given is the repository.
        match args.goal.take() {
            Some(repo) if args.repo.is_none() => args.repo = Some(PathBuf::from(repo)),
            Some(goal) => {
                return Err(Usage(format!(
                    "--replay regenerates a plan's context and takes no goal (got `{goal}`)"
                ))
                .into())
            }
            None => {}
        }
        if args.tokens.is_some() && !args.refit {
            return Err(Usage("--tokens with --replay needs --refit: a replay keeps the plan's own budget, and --refit fits the plan to the one given".into()).into());
        }
    } else if args.repo.is_none() && args.goal_file.is_none() {
        // `navigator context DIR`: a single argument naming a directory is the repository
        // (its overview), not a one-word goal for the current directory.
        if let Some(dir) = args
            .goal
            .take_if(|g| !g.contains(char::is_whitespace) && Path::new(g).is_dir())
        {
            if dir == "." || dir == ".." {
                eprintln!("note: `{dir}` is a directory: showing its overview");
            } else {
                eprintln!("note: `{dir}` is a directory: showing its overview (for that goal in the current directory: navigator context {dir} .)");
            }
            args.repo = Some(PathBuf::from(dir));
        } else if let Some(g) = args.goal.as_deref().filter(|g| looks_like_a_path(g)) {
            if Path::new(g).exists() {
                bail!("{g} is a file, not a directory: the repository is a directory (to read the goal from that file: navigator context --goal-file {} .)", shell_quote(g));
            }
            bail!("{g}: no such directory (for that goal in the current directory: navigator context '{g}' .)");
        }
    }
    let explores =
        args.replay.is_none() && args.goal.as_deref().is_some_and(|g| !g.trim().is_empty());
    if explores && args.mode == Mode::Interactive && !std::io::stdin().is_terminal() {
        // End of input would read as "decline" after the first turn: a weaker context that
        // looks like a success.
        return Err(Usage("--mode interactive reads each turn's answer from a terminal, and stdin is not one (it is redirected or piped): run it in a terminal, or leave out --mode interactive".into()).into());
    }
    let repo = args.repo.clone().unwrap_or_else(|| PathBuf::from("."));
    if repo.exists() && !repo.is_dir() {
        bail!(
            "{} is a file, not a directory: the repository is a directory",
            repo.display()
        );
    }
    if is_bare_git(&repo) {
        bail!(
            "{} is a bare git repository (history without a work tree): clone it and give the clone (`git clone {} DIR`)",
            repo.display(),
            repo.display()
        );
    }
    let tokens = args.tokens.unwrap_or(DEFAULT_TOKENS);
    let options = ScanOptions {
        history: !args.no_history,
        // A plan saved inside the repository is not code to show, and its replay must not
        // find it "added".
        exclude: args.plan.iter().chain(&args.replay).cloned().collect(),
        ..ScanOptions::for_root(&repo)
    };
    let map = RepoMap::open_with(&repo, &options)
        .with_context(|| format!("opening the repository {}", repo.display()))?;
    note_skipped(&map);
    if map.files().is_empty() {
        eprintln!(
            "warning: {} holds no file to show (it is empty, or everything in it is ignored)",
            repo.display()
        );
    }
    if let Some(path) = &args.replay {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading the flight plan {}", path.display()))?;
        let mut plan =
            FlightPlan::from_yaml(&text).with_context(|| format!("{}", path.display()))?;
        if let Some(tokens) = args.tokens {
            plan.token_budget = tokens;
        }
        let replayed = match replay(&map, &plan, args.refit) {
            Err(e @ Error::PlanDrift { .. }) => {
                eprintln!("error: {e}");
                if let Some(commit) = foreign_commit(&plan, map.root()) {
                    eprintln!("note: the plan was pinned at commit {commit}, which this repository does not have: is it the plan's repository?");
                }
                if let (
                    true,
                    Error::PlanDrift {
                        changed,
                        deleted,
                        left_out,
                        added,
                        recounted,
                        ..
                    },
                ) = (args.json, &e)
                {
                    let value = serde_json::json!({
                        "error": e.to_string(), "exit_code": EXIT_DRIFT,
                        "changed": changed, "deleted": deleted, "added": added,
                        "left_out": left_out.iter().map(|(p, why)| serde_json::json!({"path": p, "reason": why})).collect::<Vec<_>>(),
                        "recounted": recounted.iter().map(|(d, a, b)| serde_json::json!({"dir": d, "pinned": a, "now": b})).collect::<Vec<_>>(),
                    });
                    println!("{}", serde_json::to_string_pretty(&value)?);
                }
                return Ok(ExitCode::from(EXIT_DRIFT));
            }
            // A refit lowers every file down to nothing before it gives up: what is left is
            // the goal's header.
            Err(Error::OverBudget { tokens, budget }) if args.refit => {
                bail!("a budget of {budget} tokens is too small for the goal's header alone, which takes {tokens}: refit with --tokens {tokens} or more");
            }
            Err(Error::OverBudget { tokens, budget }) => {
                bail!("the plan's context takes {tokens} tokens, over its budget of {budget}; replay with --refit (and --tokens N for another budget) to fit it");
            }
            other => other?,
        };
        if args.refit {
            // Every file the plan pinned gone: most likely another repository than the plan's.
            let pinned = plan.pinned.as_ref().map(|p| &p.files);
            if pinned.is_some_and(|files| {
                !files.is_empty() && files.keys().all(|f| replayed.drift.deleted.contains(f))
            }) {
                eprintln!(
                    "warning: none of the plan's {} file(s) are in {}: is it the plan's \
                     repository? The refit holds nothing the plan showed",
                    pinned.map_or(0, |f| f.len()),
                    map.root().display()
                );
                if let Some(commit) = foreign_commit(&plan, map.root()) {
                    eprintln!("note: the plan was pinned at commit {commit}, which this repository does not have");
                }
            }
            let why = match (replayed.drift.is_empty(), replayed.degraded.is_empty()) {
                (false, _) => replayed.drift.describe(),
                (true, false) => "over its budget".to_string(),
                (true, true) => "nothing changed and it fits".to_string(),
            };
            eprintln!(
                "refit: {}; {} file(s) lowered, {} of {} tokens",
                why,
                replayed.degraded.len(),
                replayed.rendered.tokens,
                replayed.plan.token_budget
            );
            // A refit only lowers: a plan never shows more than its rules ask for, so a larger
            // budget stays partly unspent. Say how to fill it.
            if args.tokens.is_some()
                && replayed.degraded.is_empty()
                && replayed.rendered.tokens * 10 < replayed.plan.token_budget * 9
            {
                eprintln!(
                    "note: a refit keeps the plan's levels and only lowers them; to fill {} tokens, explore again: navigator context {} {} --tokens {}",
                    replayed.plan.token_budget,
                    shell_quote(&replayed.plan.goal),
                    shell_quote(&repo.display().to_string()),
                    replayed.plan.token_budget
                );
            }
        }
        write_plan(
            &args,
            &replayed.plan,
            &["refit by navigator context --replay".into()],
        )?;
        let lowered: Vec<serde_json::Value> = replayed
            .degraded
            .iter()
            .map(|(p, l)| serde_json::json!({"path": p, "level": *l as u8}))
            .collect();
        let drift = serde_json::json!({"drift": replayed.drift.describe(), "lowered": lowered});
        note_limited(&replayed.rendered, None);
        emit(
            &args,
            &replayed.rendered,
            json(&map, &replayed.rendered, None, &replayed.plan, drift),
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    let Some(goal) = args.goal.as_deref().filter(|g| !g.trim().is_empty()) else {
        if args.goal.is_some() {
            eprintln!("note: the goal is empty: showing the repository's overview");
        }
        let plan = satellite(&map, "repository overview", tokens, Default::default())?;
        let plan = navigator_context::pin(&map, plan)?;
        let rendered = render(&map, &plan)?;
        write_plan(&args, &plan, &["overview by navigator context".into()])?;
        let folded: usize = rendered.collapsed_dirs.iter().map(|(_, n)| n).sum();
        let folded = match rendered.collapsed_dirs.len() {
            0 => String::new(),
            dirs => format!(", {folded} in {dirs} folded directories"),
        };
        eprintln!(
            "overview: {} of {tokens} tokens; {} files outlined or shown, {} listed by path{folded}",
            rendered.tokens,
            rendered.shown.len(),
            rendered.listed_paths().count(),
        );
        note_limited(&rendered, None);
        emit(
            &args,
            &rendered,
            json(&map, &rendered, None, &plan, serde_json::json!({})),
        )?;
        return Ok(ExitCode::SUCCESS);
    };
    if let Some(usd) = args.usd {
        if !(usd.is_finite() && usd >= 0.0) {
            bail!("--usd {usd}: not a non-negative amount");
        }
    }
    note_missing_paths(&map, goal);
    let mut policy = policy(&args)?;
    let mut budgets = Budgets::tokens(tokens);
    budgets.usd = args.usd;
    let mut explorer = Explorer::new(&map, budgets).fill_unspent(!args.no_fill);
    if args.mode == Mode::Interactive {
        explorer = explorer.interactive(navigator_context::TerminalApprover);
    }
    let out = explorer
        .explore(goal, policy.as_mut())
        .await
        .map_err(|e| explained(e, &args))?;
    if out.tokens > tokens {
        // Only the goal's header and the folded directory lines are left by then.
        bail!(
            "the context takes {} tokens, over the budget of {tokens}: the goal's header and the folded directory lines alone take that much; raise --tokens",
            out.tokens
        );
    }
    let comments = vec![
        format!(
            "explored with policy `{}`: {}, ${:.4}",
            policy.name(),
            turns(out.turns.len()),
            out.usd
        ),
        format!("stopped: {}", out.stop.describe()),
    ];
    write_plan(&args, &out.plan, &comments)?;
    eprintln!(
        "{} of {} tokens, {}, ${:.4}; {}",
        out.tokens,
        tokens,
        turns(out.turns.len()),
        out.usd,
        out.stop.describe()
    );
    if let Some(note) = &out.best_effort {
        eprintln!("note: {note}");
    }
    let rendered = render(&map, &out.plan)?;
    let named = out
        .best_effort
        .as_ref()
        .and(out.ranking.first())
        .map(|s| s.path.as_str());
    note_limited(&rendered, named);
    let failed = matches!(out.stop, StopReason::PolicyFailed { .. });
    let mut extra = serde_json::json!({
        "usd": out.usd, "turns": out.turns.len(), "stop": out.stop.describe(), "reasoning": out.reasoning,
    });
    if failed {
        extra["exit_code"] = EXIT_POLICY_FAILED.into();
        eprintln!(
            "warning: the {} policy failed, so the context printed is not one the model finished (exit code {EXIT_POLICY_FAILED})",
            policy.name()
        );
    }
    emit(
        &args,
        &rendered,
        json(&map, &rendered, Some(&out.ranking), &out.plan, extra),
    )?;
    Ok(if failed {
        ExitCode::from(EXIT_POLICY_FAILED)
    } else {
        ExitCode::SUCCESS
    })
}

#[cfg(test)]
mod tests {
    use super::{json, turns, NOT_RANKED};
    use navigator_context::{render, FlightPlan, Level, RepoMap, Rule, Scored};

    #[test]
    fn a_shown_file_the_ranking_lacks_scores_0_and_says_why() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.py"), "def tax():\n    return 1\n").unwrap();
        std::fs::write(dir.path().join("b.py"), "def other():\n    return 2\n").unwrap();
        let map = RepoMap::open(dir.path()).unwrap();
        let mut plan = FlightPlan::new("tax", 1_000);
        plan.rules = vec![Rule::new("**", Level::Full)];
        let rendered = render(&map, &plan).unwrap();
        let ranking = [Scored {
            path: "a.py".into(),
            score: 1.0,
            reasons: vec!["symbols match: tax".into()],
        }];
        let v = json(
            &map,
            &rendered,
            Some(&ranking),
            &plan,
            serde_json::json!({}),
        );
        let file = |p: &str| {
            v["files"]
                .as_array()
                .unwrap()
                .iter()
                .find(|f| f["path"] == p)
                .unwrap()
                .clone()
        };
        assert_eq!(file("a.py")["score"], 1.0);
        assert_eq!(file("b.py")["score"], 0.0);
        assert_eq!(file("b.py")["reasons"], serde_json::json!([NOT_RANKED]));
        // A replay ranks nothing: no scores to give.
        let v = json(&map, &rendered, None, &plan, serde_json::json!({}));
        assert!(v["files"][0]["score"].is_null());
    }

    #[test]
    fn one_turn_is_not_1_turns() {
        assert_eq!(turns(1), "1 turn");
        assert_eq!(turns(0), "0 turns");
        assert_eq!(turns(4), "4 turns");
    }
}
