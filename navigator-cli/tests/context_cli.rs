//! `navigator context` end to end: the binary itself, on a small repository.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

fn write_repo(root: &Path) {
    let files: &[(&str, &str)] = &[
        ("src/auth/middleware.rs", "/// Checks the bearer token of every request.\npub struct AuthMiddleware { secret: String }\nimpl AuthMiddleware {\n    /// Rejects requests without a valid session token.\n    pub fn handle(&self, token: &str) -> bool { token.ends_with(&self.secret) }\n}\n"),
        ("src/auth/mod.rs", "pub mod middleware;\n"),
        ("src/lib.rs", "pub mod auth;\npub mod db;\n"),
        ("README.md", "# Service\n"),
    ];
    for (p, text) in files {
        let path = root.join(p);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
    for i in 0..30 {
        let path = root.join(format!("src/db/table_{i:02}.rs"));
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        let body: String = (0..10)
            .map(|j| format!("/// Ledger entry {j}.\npub fn ledger_{i}_{j}(rows: &[u64]) -> u64 {{ rows.len() as u64 + {j} }}\n"))
            .collect();
        fs::write(path, body).unwrap();
    }
}

/// A fixture repository (`write_repo`) and an empty outline cache folder.
fn repo_and_cache() -> (tempfile::TempDir, tempfile::TempDir) {
    let (repo, cache) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    write_repo(repo.path());
    (repo, cache)
}

fn navigator(args: &[&str], cache: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_navigator"))
        .args(args)
        .env("NAVIGATOR_CACHE_DIR", cache)
        .output()
        .unwrap()
}

/// Asserts that the command's standard error holds `needle`, showing it when not.
fn stderr_says(out: &Output, needle: &str) {
    let err = text(&out.stderr);
    assert!(err.contains(needle), "expected `{needle}` in: {err}");
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn json_lists_files_in_rank_order_with_levels_tokens_scores_and_reasons() {
    let (repo, cache) = repo_and_cache();
    let root = repo.path().to_str().unwrap();
    let out = navigator(
        &[
            "context",
            "Refactor the auth middleware",
            root,
            "--tokens",
            "1500",
            "--json",
        ],
        cache.path(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["tokens"].as_u64().unwrap() <= 1500);
    let first = &v["files"][0];
    assert_eq!(first["path"], "src/auth/middleware.rs");
    assert_eq!(first["level"], 4);
    assert!(first["tokens"].as_u64().unwrap() > 0);
    // A whole file shows all its lines at full source.
    assert_eq!(first["full_lines"][0][0], 1);
    assert_eq!(first["omitted_entries"], 0);
    assert_eq!(first["score"], 1.0);
    assert!(!first["reasons"].as_array().unwrap().is_empty(), "{first}");
    assert!(v["context"]
        .as_str()
        .unwrap()
        .contains("## src/auth/middleware.rs (level 4"));
    // The cache went where it was told, not into the repository.
    assert!(fs::read_dir(cache.path()).unwrap().next().is_some());
    assert!(!repo.path().join(".navigator-cache").exists());
}

#[test]
fn plan_then_replay_is_identical_and_a_changed_file_fails_or_refits() {
    let (repo, cache) = repo_and_cache();
    let root = repo.path().to_str().unwrap();
    let plan = cache.path().join("plan.yaml");
    let plan = plan.to_str().unwrap();
    let first = navigator(
        &[
            "context",
            "auth middleware token",
            root,
            "--tokens",
            "1200",
            "--plan",
            plan,
        ],
        cache.path(),
    );
    assert!(first.status.success(), "{}", text(&first.stderr));
    let yaml = fs::read_to_string(plan).unwrap();
    assert!(
        yaml.contains("pinned:") && yaml.contains("src/auth/middleware.rs"),
        "{yaml}"
    );
    let again = navigator(&["context", "--replay", plan, root], cache.path());
    assert!(again.status.success(), "{}", text(&again.stderr));
    assert_eq!(text(&again.stdout), text(&first.stdout));
    // Grow the file shown at full source: replay refuses and names it, exit code 3.
    let path = repo.path().join("src/auth/middleware.rs");
    fs::write(&path, fs::read_to_string(&path).unwrap().repeat(12)).unwrap();
    let drifted = navigator(&["context", "--replay", plan, root], cache.path());
    assert_eq!(drifted.status.code(), Some(3), "{}", text(&drifted.stderr));
    stderr_says(&drifted, "src/auth/middleware.rs");
    let refit = navigator(
        &["context", "--replay", plan, root, "--refit", "--json"],
        cache.path(),
    );
    assert!(refit.status.success(), "{}", text(&refit.stderr));
    let v: serde_json::Value = serde_json::from_slice(&refit.stdout).unwrap();
    assert!(v["tokens"].as_u64().unwrap() <= 1200, "{}", v["tokens"]);
    assert!(v["drift"]
        .as_str()
        .unwrap()
        .contains("src/auth/middleware.rs"));
    // A refit against another repository, where none of the plan's files are, says so (it
    // fitted an empty context and said nothing).
    let other = tempfile::tempdir().unwrap();
    fs::write(other.path().join("notes.txt"), "nothing of the plan\n").unwrap();
    let elsewhere = navigator(
        &[
            "context",
            "--replay",
            plan,
            other.path().to_str().unwrap(),
            "--refit",
        ],
        cache.path(),
    );
    assert!(elsewhere.status.success(), "{}", text(&elsewhere.stderr));
    stderr_says(&elsewhere, "none of the plan's");
    assert!(
        !text(&refit.stderr).contains("none of the plan's"),
        "{}",
        text(&refit.stderr)
    );
}

#[test]
fn a_plan_saved_inside_the_repository_is_not_part_of_it() {
    let (repo, cache) = repo_and_cache();
    let root = repo.path().to_str().unwrap();
    let plan = repo.path().join("plan.yaml");
    let plan = plan.to_str().unwrap();
    let goal = "auth middleware token";
    let first = navigator(&["context", goal, root, "--plan", plan], cache.path());
    assert!(first.status.success(), "{}", text(&first.stderr));
    // The replay finds nothing added: the plan itself is left out of the scan.
    let again = navigator(&["context", "--replay", plan, root], cache.path());
    assert!(again.status.success(), "{}", text(&again.stderr));
    assert_eq!(text(&again.stdout), text(&first.stdout));
    // Exploring again into the same file neither shows nor lists the old plan.
    let second = navigator(&["context", goal, root, "--plan", plan], cache.path());
    assert!(second.status.success(), "{}", text(&second.stderr));
    assert!(
        !text(&second.stdout).contains("plan.yaml"),
        "{}",
        text(&second.stdout)
    );
    // Another explore without --plan sees it as any other file.
    let plain = navigator(&["context", "pinned plan yaml", root], cache.path());
    assert!(
        text(&plain.stdout).contains("plan.yaml"),
        "{}",
        text(&plain.stdout)
    );
}

#[test]
fn without_a_goal_the_overview_spends_the_budget() {
    let (repo, cache) = repo_and_cache();
    // A lone positional would be the goal: the overview runs in the repository itself.
    let out = Command::new(env!("CARGO_BIN_EXE_navigator"))
        .args(["context", "--tokens", "300", "--json"])
        .current_dir(repo.path())
        .env("NAVIGATOR_CACHE_DIR", cache.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let tokens = v["tokens"].as_u64().unwrap();
    assert!((200..=300).contains(&tokens), "{tokens}: {}", v["context"]);
}

#[test]
fn bad_flags_are_refused_with_the_flag_named() {
    let cache = tempfile::tempdir().unwrap();
    for (args, needle) in [
        (vec!["context", "g", ".", "--mode", "sideways"], "--mode"),
        (vec!["context", "g", ".", "--llm", "bard"], "--llm"),
        (vec!["context", "g", ".", "--refit"], "--replay"),
        (vec!["context", "g", ".", "--usd=-1"], "--usd"),
    ] {
        let out = navigator(&args, cache.path());
        // A command line that cannot work is a usage error, whoever notices it.
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            text(&out.stderr).contains(needle),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
    for (args, needle) in [
        (
            vec!["context", "g", ".", "--base-url", "http://127.0.0.1:9/v1"],
            "--llm none",
        ),
        (vec!["context", "g", ".", "--model", "local"], "--llm none"),
        (vec!["context", "g", ".", "--usd", "0.5"], "--llm none"),
        // Zero too: it was taken silently while any other amount was refused.
        (vec!["context", "g", ".", "--usd", "0"], "--llm none"),
        (
            vec![
                "context",
                "g",
                ".",
                "--llm",
                "openai",
                "--base-url",
                "notaurl",
            ],
            "not an http",
        ),
    ] {
        let out = navigator(&args, cache.path());
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            text(&out.stderr).contains(needle),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
    let missing = navigator(&["context", "g", "/definitely/not/here"], cache.path());
    assert_eq!(missing.status.code(), Some(1));
    assert!(text(&missing.stderr).contains("/definitely/not/here"));
    // A lone argument that reads as a path but is not there is a mistyped repository, not a
    // one-word goal for the current directory.
    for typo in ["./no-such-repo", "/definitely/not/here", "no-such-repo/"] {
        let out = navigator(&["context", typo], cache.path());
        assert_eq!(out.status.code(), Some(1), "{typo}");
        assert!(
            text(&out.stderr).contains("no such directory"),
            "{typo}: {}",
            text(&out.stderr)
        );
    }
}

#[test]
fn git_history_reorders_equal_matches_unless_turned_off() {
    let (repo, cache) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = repo.path();
    let body = "pub fn evict_stale_entries(limit: usize) -> usize { limit }\n";
    fs::create_dir_all(root.join("src")).unwrap();
    fs::write(root.join("src/a_cache.rs"), body).unwrap();
    fs::write(root.join("src/b_cache.rs"), body).unwrap();
    // One commit of both files, then four that change only the second.
    let script = "set -e; export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@e \
        GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@e; \
        git init -q; git add .; git -c commit.gpgsign=false commit -qm both; \
        for i in 1 2 3 4; do echo \"// revision $i\" >> src/b_cache.rs; \
        git -c commit.gpgsign=false commit -qam tune; done";
    let out = Command::new("sh")
        .args(["-c", script])
        .current_dir(root)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let first = |extra: &[&str]| {
        let r = root.to_str().unwrap();
        let mut args = vec!["context", "evict stale cache entries", r, "--json"];
        args.extend_from_slice(extra);
        let out = navigator(&args, cache.path());
        assert!(out.status.success(), "{}", text(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v["files"][0].clone()
    };
    let with_history = first(&[]);
    assert_eq!(with_history["path"], "src/b_cache.rs", "{with_history}");
    assert!(with_history["reasons"]
        .to_string()
        .contains("changed often"));
    assert_eq!(first(&["--no-history"])["path"], "src/a_cache.rs");
    // The offline policy spends the budget itself: nothing is left to fill.
    assert_eq!(first(&["--no-fill"]), with_history);
}

#[test]
fn a_lone_directory_argument_is_the_repository_to_overview() {
    let (repo, cache) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    write_repo(&repo.path().join("svc"));
    let out = Command::new(env!("CARGO_BIN_EXE_navigator"))
        .args(["context", "svc", "--tokens", "300", "--json"])
        .current_dir(repo.path())
        .env("NAVIGATOR_CACHE_DIR", cache.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    stderr_says(&out, "is a directory");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["goal"], "repository overview");
    // Paths are relative to `svc`, the repository, not to the current directory.
    let context = v["context"].as_str().unwrap();
    assert!(context.contains("src/"), "{context}");
    assert!(!context.contains("svc/"), "{context}");
}

#[test]
fn replay_takes_a_new_budget_only_with_refit() {
    let (repo, cache) = repo_and_cache();
    let root = repo.path().to_str().unwrap();
    let plan = cache.path().join("plan.yaml");
    let plan = plan.to_str().unwrap();
    let first = navigator(
        &[
            "context",
            "ledger entry rows",
            root,
            "--tokens",
            "3000",
            "--plan",
            plan,
        ],
        cache.path(),
    );
    assert!(first.status.success(), "{}", text(&first.stderr));
    let refused = navigator(
        &["context", "--replay", plan, root, "--tokens", "800"],
        cache.path(),
    );
    assert_eq!(refused.status.code(), Some(2), "a usage error");
    stderr_says(&refused, "--refit");
    let refit = navigator(
        &[
            "context", "--replay", plan, root, "--tokens", "800", "--refit", "--json",
        ],
        cache.path(),
    );
    assert!(refit.status.success(), "{}", text(&refit.stderr));
    let v: serde_json::Value = serde_json::from_slice(&refit.stdout).unwrap();
    assert_eq!(v["token_budget"], 800);
    assert!(v["tokens"].as_u64().unwrap() <= 800, "{}", v["tokens"]);
    stderr_says(&refit, "over its budget");
    // A larger budget is not filled by a refit (it only lowers); it says how to fill it.
    let wider = navigator(
        &[
            "context", "--replay", plan, root, "--tokens", "30000", "--refit",
        ],
        cache.path(),
    );
    assert!(wider.status.success(), "{}", text(&wider.stderr));
    let note = text(&wider.stderr);
    assert!(
        note.contains(
            "to fill 30000 tokens, explore again: navigator context 'ledger entry rows' "
        ) && note.contains("--tokens 30000"),
        "{note}"
    );
}

#[test]
fn a_budget_the_goal_alone_overflows_is_an_error_not_a_context() {
    let (repo, cache) = repo_and_cache();
    let root = repo.path().to_str().unwrap();
    let out = navigator(
        &["context", "auth middleware token", root, "--tokens", "3"],
        cache.path(),
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    stderr_says(&out, "raise --tokens");
    assert!(out.stdout.is_empty());
    // A goal as long as a pasted report is cut in the header, so the budget still holds.
    let report =
        "The middleware rejects the token of every request after the upgrade. ".repeat(200);
    let out = navigator(
        &["context", &report, root, "--tokens", "1500", "--json"],
        cache.path(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["tokens"].as_u64().unwrap() <= 1500, "{}", v["tokens"]);
    assert_eq!(v["files"][0]["path"], "src/auth/middleware.rs");
}

#[test]
fn files_named_like_globs_are_shown() {
    let (repo, cache) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let files: &[(&str, &str)] = &[
        (
            "pages/blog/[slug].tsx",
            "export default function BlogSlugPage({ slug }) {\n  return renderSlug(slug);\n}\n",
        ),
        (
            "pages/index.tsx",
            "export default function Home() {\n  return null;\n}\n",
        ),
        (
            "lib/format.ts",
            "export function formatDate(d: Date) {\n  return d.toISOString();\n}\n",
        ),
    ];
    for (p, body) in files {
        let path = repo.path().join(p);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, body).unwrap();
    }
    let root = repo.path().to_str().unwrap();
    let out = navigator(
        &[
            "context",
            "blog slug page renders the wrong slug",
            root,
            "--tokens",
            "2000",
            "--json",
        ],
        cache.path(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["files"][0]["path"], "pages/blog/[slug].tsx",
        "{}",
        v["context"]
    );
    assert_eq!(v["files"][0]["level"], 4);
    assert!(v["context"].as_str().unwrap().contains("renderSlug(slug)"));
}

#[test]
fn with_json_errors_and_drift_are_json_on_stdout_too() {
    let (repo, cache) = repo_and_cache();
    let root = repo.path().to_str().unwrap();
    let bad = cache.path().join("bad.yaml");
    fs::write(&bad, "goal: g\ntoken_budget: 0\nrules: []\n").unwrap();
    let out = navigator(
        &["context", "--replay", bad.to_str().unwrap(), root, "--json"],
        cache.path(),
    );
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["exit_code"], 1);
    let error = v["error"].as_str().unwrap();
    assert!(
        error.contains("(line 2): token_budget: must be at least 1"),
        "{error}"
    );
    assert!(text(&out.stderr).contains("token_budget"));
    // Drift: the changed file is named in the object, exit code 3.
    let plan = cache.path().join("plan.yaml");
    let plan = plan.to_str().unwrap();
    let first = navigator(
        &["context", "auth middleware token", root, "--plan", plan],
        cache.path(),
    );
    assert!(first.status.success(), "{}", text(&first.stderr));
    let path = repo.path().join("src/auth/middleware.rs");
    fs::write(&path, fs::read_to_string(&path).unwrap() + "// edited\n").unwrap();
    let drifted = navigator(&["context", "--replay", plan, root, "--json"], cache.path());
    assert_eq!(drifted.status.code(), Some(3), "{}", text(&drifted.stderr));
    let v: serde_json::Value = serde_json::from_slice(&drifted.stdout).unwrap();
    assert_eq!(v["changed"][0], "src/auth/middleware.rs", "{v}");
    assert_eq!(v["exit_code"], 3);
    // Without --json, stdout stays empty.
    let plain = navigator(&["context", "--replay", plan, root], cache.path());
    assert_eq!(plain.status.code(), Some(3));
    assert!(plain.stdout.is_empty());
    // A file added to a folded directory shows as its recount.
    fs::write(
        repo.path().join("src/db/table_30.rs"),
        "pub fn ledger_extra() -> u64 { 0 }\n",
    )
    .unwrap();
    let drifted = navigator(&["context", "--replay", plan, root, "--json"], cache.path());
    assert_eq!(drifted.status.code(), Some(3));
    let v: serde_json::Value = serde_json::from_slice(&drifted.stdout).unwrap();
    let recounted = v["recounted"].as_array().unwrap();
    assert!(
        recounted
            .iter()
            .any(|r| r["dir"] == "src/"
                && r["now"].as_u64() == r["pinned"].as_u64().map(|n| n + 1)),
        "{v}"
    );
    // A plan whose context no longer fits says how to fit it.
    let small = cache.path().join("small.yaml");
    let yaml = fs::read_to_string(plan).unwrap();
    let budget = yaml
        .lines()
        .find(|l| l.starts_with("token_budget:"))
        .unwrap()
        .to_string();
    // Unpinned, so that the budget and not the drift is what fails.
    let unpinned = yaml.split("\npinned:").next().unwrap();
    fs::write(&small, unpinned.replace(&budget, "token_budget: 40")).unwrap();
    let over = navigator(
        &["context", "--replay", small.to_str().unwrap(), root],
        cache.path(),
    );
    assert_eq!(over.status.code(), Some(1));
    stderr_says(&over, "--refit");
}

#[test]
fn a_token_budget_below_one_is_refused_by_the_parser() {
    let cache = tempfile::tempdir().unwrap();
    for bad in ["-5", "0", "lots"] {
        let out = navigator(&["context", "g", ".", "--tokens", bad], cache.path());
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let err = text(&out.stderr);
        assert!(
            err.contains("--tokens") && err.contains("number of tokens"),
            "{bad}: {err}"
        );
        assert!(out.stdout.is_empty());
        // With --json, the same refusal as JSON on stdout.
        let out = navigator(
            &["context", "g", ".", "--json", "--tokens", bad],
            cache.path(),
        );
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["exit_code"], 2);
        assert!(v["error"].as_str().unwrap().contains("--tokens"), "{v}");
    }
}

#[test]
fn the_overview_reports_what_it_shows_and_an_empty_directory_is_named() {
    let (repo, cache) = repo_and_cache();
    let root = repo.path().to_str().unwrap();
    let out = navigator(
        &["context", root, "--tokens", "120", "--json"],
        cache.path(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let summary = format!("overview: {} of 120 tokens", v["tokens"]);
    assert!(err.contains(&summary), "{err}");
    // Files counted in a folded directory line are not listed as paths of their own.
    let folded: Vec<&str> = v["collapsed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["dir"].as_str().unwrap())
        .collect();
    assert!(!folded.is_empty(), "{v}");
    for p in v["paths"].as_array().unwrap() {
        let p = p.as_str().unwrap();
        assert!(
            !folded.iter().any(|d| p.starts_with(d)),
            "{p} is in a folded directory: {v}"
        );
    }
    // An empty goal is the overview too, and says so.
    let out = navigator(&["context", "  ", root, "--tokens", "120"], cache.path());
    assert!(out.status.success(), "{}", text(&out.stderr));
    stderr_says(&out, "the goal is empty");
    let empty = tempfile::tempdir().unwrap();
    let out = navigator(&["context", empty.path().to_str().unwrap()], cache.path());
    assert!(out.status.success(), "{}", text(&out.stderr));
    stderr_says(&out, "holds no file to show");
}

#[test]
fn json_files_state_their_content_tokens_as_their_headers_do() {
    let (repo, cache) = repo_and_cache();
    let root = repo.path().to_str().unwrap();
    let out = navigator(
        &["context", "ledger rows", root, "--tokens", "1500", "--json"],
        cache.path(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let context = v["context"].as_str().unwrap();
    let files = v["files"].as_array().unwrap();
    assert!(!files.is_empty());
    for f in files {
        let (tokens, content) = (
            f["tokens"].as_u64().unwrap(),
            f["content_tokens"].as_u64().unwrap(),
        );
        assert!(content > 0 && content < tokens, "{f}");
        let header = format!("## {} (level {}", f["path"].as_str().unwrap(), f["level"]);
        let line = context.lines().find(|l| l.starts_with(&header)).unwrap();
        assert!(
            line.ends_with(&format!(" {content} tokens)")),
            "{line}: {f}"
        );
    }
}

#[test]
fn an_llm_server_that_never_answers_fails_at_the_llm_timeout_and_says_so() {
    let (repo, cache) = repo_and_cache();
    let root = repo.path().to_str().unwrap();
    // Bound and listening, never accepting: the kernel completes the connection, and the
    // request then waits for an answer that never comes.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", silent.local_addr().unwrap());
    let out = navigator(
        &[
            "context",
            "Refactor the auth middleware",
            root,
            "--llm",
            "openai",
            "--base-url",
            &url,
            "--llm-timeout",
            "0.5",
        ],
        cache.path(),
    );
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!(
            "the LLM server at {url} did not answer within 0.5 s"
        )) && err.contains("--llm-timeout"),
        "{err}"
    );
    drop(silent);
    for bad in ["0", "-3", "soon"] {
        let out = navigator(
            &[
                "context",
                "g",
                root,
                "--llm",
                "openai",
                "--llm-timeout",
                bad,
            ],
            cache.path(),
        );
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let err = text(&out.stderr);
        assert!(
            err.contains("--llm-timeout") && err.contains("seconds"),
            "{bad}: {err}"
        );
    }
    let unused = navigator(&["context", "g", root, "--llm-timeout", "5"], cache.path());
    assert_eq!(unused.status.code(), Some(2), "a usage error");
    stderr_says(&unused, "--llm none");
}

#[test]
fn interactive_mode_without_a_terminal_on_stdin_is_a_usage_error() {
    let (repo, cache) = repo_and_cache();
    let root = repo.path().to_str().unwrap();
    // `output()` gives the child no stdin: end of input at once, as `</dev/null` does.
    let args = [
        "context",
        "auth middleware token",
        root,
        "--mode",
        "interactive",
    ];
    let out = navigator(&args, cache.path());
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--mode interactive") && err.contains("terminal"),
        "{err}"
    );
    // It fails before the first turn: no report, no context.
    assert!(!err.contains("approve"), "{err}");
    assert!(out.stdout.is_empty());
    let out = navigator(&[&args[..], &["--json"]].concat(), cache.path());
    assert_eq!(out.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["exit_code"], 2);
    assert!(v["error"].as_str().unwrap().contains("terminal"), "{v}");
}

#[test]
fn a_file_given_as_the_repository_is_named_a_file_not_a_missing_directory() {
    let (dir, cache) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let report = dir.path().join("report.txt");
    fs::write(&report, "thread 'main' panicked at src/lib.rs:3:5\n").unwrap();
    let report = report.to_str().unwrap();
    for args in [vec!["context", report], vec!["context", "the goal", report]] {
        let out = navigator(&args, cache.path());
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains(&format!("{report} is a file, not a directory")),
            "{args:?}: {err}"
        );
        assert!(!err.contains("no such directory"), "{args:?}: {err}");
    }
    // The lone file's error points to the flag that reads a goal from it.
    let out = navigator(&["context", report], cache.path());
    assert!(text(&out.stderr).contains("--goal-file"));
}

#[test]
fn a_long_goal_comes_from_a_file_or_stdin() {
    let (repo, cache) = repo_and_cache();
    let root = repo.path().to_str().unwrap();
    let report = "Every request is rejected after the upgrade.\n\nTraceback:\n  at AuthMiddleware::handle (src/auth/middleware.rs:5)\n  at Router::dispatch\n";
    let file = cache.path().join("bug.txt");
    fs::write(&file, report).unwrap();
    let file = file.to_str().unwrap();
    let check = |out: &Output| {
        assert!(out.status.success(), "{}", text(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        // The plan keeps the whole report, the traceback included.
        assert_eq!(v["goal"], report.trim_end());
        assert_eq!(v["files"][0]["path"], "src/auth/middleware.rs", "{v}");
    };
    let args = ["--tokens", "1500", "--json"];
    check(&navigator(
        &[&["context", "--goal-file", file, root][..], &args].concat(),
        cache.path(),
    ));
    // `-`: stdin.
    let mut child = Command::new(env!("CARGO_BIN_EXE_navigator"))
        .args([&["context", "--goal-file", "-", root][..], &args].concat())
        .env("NAVIGATOR_CACHE_DIR", cache.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), report.as_bytes()).unwrap();
    check(&child.wait_with_output().unwrap());
    // A goal on the command line and one from a file: refused, both named.
    let both = navigator(
        &["context", "fix auth", root, "--goal-file", file],
        cache.path(),
    );
    let err = text(&both.stderr);
    assert_eq!(both.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--goal-file") && err.contains("fix auth") && err.contains("not both"),
        "{err}"
    );
    let replay = navigator(
        &["context", root, "--goal-file", file, "--replay", file],
        cache.path(),
    );
    assert_eq!(replay.status.code(), Some(2), "{}", text(&replay.stderr));
    // An empty or missing file is an error that names it, not an overview.
    let empty = cache.path().join("empty.txt");
    fs::write(&empty, "\n  \n").unwrap();
    let missing = cache.path().join("missing.txt");
    for (path, needle) in [(&empty, "the goal is empty"), (&missing, "missing.txt")] {
        let out = navigator(
            &["context", "--goal-file", path.to_str().unwrap(), root],
            cache.path(),
        );
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains(needle), "{err}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn a_refit_to_a_budget_below_the_goal_header_says_the_tokens_it_needs() {
    let (repo, cache) = repo_and_cache();
    let root = repo.path().to_str().unwrap();
    let plan = cache.path().join("plan.yaml");
    let plan = plan.to_str().unwrap();
    let first = navigator(
        &["context", "auth middleware token", root, "--plan", plan],
        cache.path(),
    );
    assert!(first.status.success(), "{}", text(&first.stderr));
    let out = navigator(
        &[
            "context", "--replay", plan, root, "--refit", "--tokens", "3",
        ],
        cache.path(),
    );
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("a budget of 3 tokens is too small for the goal's header alone"),
        "{err}"
    );
    // --refit was given: the error does not ask for it again.
    assert!(!err.contains("replay with --refit"), "{err}");
    // The budget it names is enough.
    let needed = err
        .split("refit with --tokens ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .unwrap_or_else(|| panic!("no budget named: {err}"));
    let out = navigator(
        &[
            "context", "--replay", plan, root, "--refit", "--tokens", needed,
        ],
        cache.path(),
    );
    assert!(out.status.success(), "{needed}: {}", text(&out.stderr));
}

/// Serves every request with an OpenAI-style completion whose message is `content` (prose, no
/// tool call), closing each connection; returns the base URL.
fn prose_server(content: &'static str) -> String {
    use std::io::{BufRead, BufReader, Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            let mut reader = BufReader::new(stream);
            let mut length = 0usize;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some((name, value)) = line.split_once(':') {
                    if name.eq_ignore_ascii_case("content-length") {
                        length = value.trim().parse().unwrap_or(0);
                    }
                }
            }
            let mut body = vec![0; length];
            let _ = reader.read_exact(&mut body);
            let answer = serde_json::json!({
                "choices": [{"message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5},
            })
            .to_string();
            let mut stream = reader.into_inner();
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{answer}",
                answer.len()
            );
        }
    });
    url
}

#[test]
fn a_model_that_never_gives_a_valid_action_exits_4_with_the_context_printed() {
    let (repo, cache) = repo_and_cache();
    let root = repo.path().to_str().unwrap();
    let url = prose_server("I would start by reading the middleware, it looks important.");
    let args = [
        "context",
        "Refactor the auth middleware",
        root,
        "--llm",
        "openai",
        "--base-url",
        &url,
        "--json",
    ];
    let out = navigator(&args, cache.path());
    assert_eq!(out.status.code(), Some(4), "{}", text(&out.stderr));
    stderr_says(&out, "policy failed");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["exit_code"], 4, "{v}");
    assert!(
        v["stop"].as_str().unwrap().contains("no valid action"),
        "{v}"
    );
    // The context is still there, the middleware in it.
    assert!(
        v["files"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["path"] == "src/auth/middleware.rs"),
        "{v}"
    );
}

#[test]
fn a_document_too_large_to_outline_is_named_with_the_reason() {
    let (repo, cache) = repo_and_cache();
    let root = repo.path().to_str().unwrap();
    // Over the default 1 MiB outline cap.
    let big = format!(
        "# Changes\n\n{}",
        "## 1.0\n\n- fixed a thing\n\n".repeat(50_000)
    );
    fs::write(repo.path().join("CHANGES.md"), big).unwrap();
    let plan = cache.path().join("hand.yaml");
    fs::write(
        &plan,
        "goal: changes\ntoken_budget: 5000\nrules:\n  - path: CHANGES.md\n    level: 2\n",
    )
    .unwrap();
    let out = navigator(
        &[
            "context",
            "--replay",
            plan.to_str().unwrap(),
            root,
            "--json",
        ],
        cache.path(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    stderr_says(
        &out,
        "CHANGES.md is shown as its path: too large to outline",
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["limited"][0]["path"], "CHANGES.md", "{v}");
    assert!(v["paths"]
        .as_array()
        .unwrap()
        .iter()
        .any(|p| p == "CHANGES.md"));
}

#[test]
fn a_reader_that_stops_early_ends_the_command_quietly() {
    let (repo, cache) = repo_and_cache();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_navigator"))
        .args(["context", "Refactor the auth middleware"])
        .arg(repo.path())
        .env("NAVIGATOR_CACHE_DIR", cache.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Like `| head -0`: the reader is gone before the context is written.
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = text(&out.stderr);
    assert!(
        !err.contains("Broken pipe") && !err.contains("panicked"),
        "{err}"
    );
}

/// `git init` and one commit of everything in `root`, with `message`.
fn commit_all(root: &Path, message: &str) {
    let script = format!(
        "set -e; export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@e \
         GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@e; \
         git init -q; git add .; git -c commit.gpgsign=false commit -qm '{message}'"
    );
    let out = Command::new("sh")
        .args(["-c", &script])
        .current_dir(root)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn a_plan_replayed_on_another_repository_says_its_commit_is_not_there() {
    let (repo, cache) = repo_and_cache();
    commit_all(repo.path(), "first");
    let plan = cache.path().join("plan.yaml");
    let (root, plan) = (repo.path().to_str().unwrap(), plan.to_str().unwrap());
    let goal = "auth middleware token";
    let made = navigator(&["context", goal, root, "--plan", plan], cache.path());
    assert!(made.status.success(), "{}", text(&made.stderr));
    // The same repository, edited: drift, and no word of another repository.
    let path = repo.path().join("src/auth/middleware.rs");
    fs::write(&path, fs::read_to_string(&path).unwrap().repeat(3)).unwrap();
    let drifted = navigator(&["context", "--replay", plan, root], cache.path());
    assert_eq!(drifted.status.code(), Some(3), "{}", text(&drifted.stderr));
    stderr_says(&drifted, "--refit [REPO]");
    assert!(!text(&drifted.stderr).contains("does not have"));
    // Another repository of the same files, edited the same way: its commit is not the pin's.
    let other = tempfile::tempdir().unwrap();
    write_repo(other.path());
    fs::write(
        other.path().join("src/auth/middleware.rs"),
        fs::read_to_string(&path).unwrap(),
    )
    .unwrap();
    commit_all(other.path(), "elsewhere");
    let elsewhere = other.path().to_str().unwrap();
    let foreign = navigator(&["context", "--replay", plan, elsewhere], cache.path());
    assert_eq!(foreign.status.code(), Some(3), "{}", text(&foreign.stderr));
    stderr_says(&foreign, "which this repository does not have");
}

#[test]
fn files_the_scan_leaves_out_are_named_on_stderr_and_listed_in_json() {
    let (repo, cache) = repo_and_cache();
    fs::write(repo.path().join("blob.bin"), b"\x00\x01\x02binary").unwrap();
    let _socket = std::os::unix::net::UnixListener::bind(repo.path().join("app.sock")).unwrap();
    let root = repo.path().to_str().unwrap();
    let out = navigator(
        &["context", "auth middleware token", root, "--json"],
        cache.path(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    // The socket is named; a binary, which most repositories have, only in the JSON.
    stderr_says(&out, "note: app.sock is left out: a socket");
    assert!(
        !text(&out.stderr).contains("blob.bin"),
        "{}",
        text(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let skipped: Vec<(String, String)> = v["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["path"].to_string(), s["reason"].to_string()))
        .collect();
    assert_eq!(
        skipped,
        [
            (
                "\"app.sock\"".into(),
                "\"a socket, not a regular file\"".into()
            ),
            ("\"blob.bin\"".into(), "\"binary\"".into())
        ]
    );
}

#[test]
fn a_bare_repository_is_refused_with_the_clone_to_make() {
    let (repo, cache) = repo_and_cache();
    commit_all(repo.path(), "first");
    let bare = cache.path().join("svc.git");
    let out = Command::new("git")
        .args(["clone", "-q", "--bare"])
        .arg(repo.path())
        .arg(&bare)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = navigator(
        &["context", "auth middleware", bare.to_str().unwrap()],
        cache.path(),
    );
    assert!(!out.status.success());
    stderr_says(&out, "is a bare git repository");
    // Its clone is a repository like any other.
    let out = navigator(
        &["context", "auth middleware", repo.path().to_str().unwrap()],
        cache.path(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
}

/// A path the goal names that the repository lacks is said on stderr (the context came back
/// as if it covered it); one it holds, or one written from a subfolder, is not.
#[test]
fn a_path_the_goal_names_that_is_not_in_the_repository_is_said() {
    let (repo, cache) = repo_and_cache();
    let root = repo.path().to_str().unwrap();
    let out = navigator(
        &[
            "context",
            "Fix the bug in src/auth/session_store.rs where tokens are not refreshed",
            root,
            "--tokens",
            "800",
        ],
        cache.path(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    stderr_says(
        &out,
        "the goal names src/auth/session_store.rs, which is not in the repository",
    );
    for goal in [
        "Fix the bug in src/auth/middleware.rs where tokens are not refreshed",
        "Fix the bug in auth/middleware.rs where tokens are not refreshed",
    ] {
        let out = navigator(&["context", goal, root, "--tokens", "800"], cache.path());
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert!(
            !text(&out.stderr).contains("which is not in the repository"),
            "{goal}: {}",
            text(&out.stderr)
        );
    }
}
