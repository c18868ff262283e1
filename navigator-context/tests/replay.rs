//! Flight Plans pinned to content (drift on edit, delete, add; refit within budget), contexts
//! in rank order with a header per file, and the goal-less overview spending its budget.

mod fixture;

use navigator_context::{
    pin, render, replay, satellite, Error, FlightPlan, Level, Rule, Tokenizer,
};
use std::fs;

use fixture::{explore, open};

/// A repository, an explored plan for it (through YAML, as a user would keep it).
fn explored(budget: usize) -> (tempfile::TempDir, FlightPlan, String) {
    let dir = tempfile::tempdir().unwrap();
    fixture::write_repo(dir.path());
    let map = open(dir.path());
    let out = explore(&map, "Refactor the auth middleware", budget);
    let yaml = out.plan.to_yaml(&["explored".into()]);
    let plan = FlightPlan::from_yaml(&yaml).unwrap();
    assert!(plan.pinned.is_some(), "{yaml}");
    (dir, plan, out.context)
}

#[test]
fn an_unchanged_repository_replays_byte_identical() {
    let (dir, plan, context) = explored(2_000);
    let again = replay(&open(dir.path()), &plan, false).unwrap();
    assert_eq!(again.rendered.text, context);
    assert!(again.drift.is_empty());
}

#[test]
fn an_edited_file_is_named_and_refit_stays_within_budget() {
    let (dir, plan, _) = explored(2_000);
    // The file shown at full source grows tenfold.
    let path = dir.path().join("src/auth/middleware.rs");
    let grown = fs::read_to_string(&path).unwrap().repeat(10);
    fs::write(&path, grown).unwrap();
    let map = open(dir.path());
    match replay(&map, &plan, false) {
        Err(Error::PlanDrift {
            changed,
            deleted,
            added,
            ..
        }) => {
            assert_eq!(changed, ["src/auth/middleware.rs"]);
            assert!(deleted.is_empty() && added.is_empty());
        }
        other => panic!("expected drift, got {other:?}"),
    }
    // Rendering the old rules as they are would blow the budget; refit does not.
    assert!(render(&map, &plan).unwrap().tokens > plan.token_budget);
    let refit = replay(&map, &plan, true).unwrap();
    assert!(
        refit.rendered.tokens <= plan.token_budget,
        "{}",
        refit.rendered.tokens
    );
    assert_eq!(refit.drift.changed, ["src/auth/middleware.rs"]);
    assert!(!refit.degraded.is_empty());
    // The refit plan is pinned to the new contents and replays cleanly.
    let again = replay(&map, &refit.plan, false).unwrap();
    assert_eq!(again.rendered.text, refit.rendered.text);
}

#[test]
fn a_deleted_and_an_added_file_are_named() {
    let (dir, plan, _) = explored(2_000);
    fs::remove_file(dir.path().join("src/auth/session.rs")).unwrap();
    fs::write(dir.path().join("src/auth/token.rs"), "pub fn token() {}\n").unwrap();
    let map = open(dir.path());
    let err = replay(&map, &plan, false).unwrap_err();
    let Error::PlanDrift { deleted, .. } = &err else {
        panic!("expected drift, got {err:?}");
    };
    let summary = err.to_string();
    assert_eq!(deleted, &["src/auth/session.rs"]);
    // The explored plan folds the rest of `src/auth/` into a counted line: its count moved.
    assert!(summary.contains("src/auth/"), "{summary}");
    assert!(err.to_string().contains("src/auth/session.rs"), "{err}");
    let refit = replay(&map, &plan, true).unwrap();
    assert!(refit.rendered.tokens <= plan.token_budget);
    // A plan that lists the directory's files names the new one.
    let mut listed = FlightPlan::new("auth", 2_000);
    listed.rules = vec![Rule::new("src/auth/", Level::TopLevel)];
    let before = tempfile::tempdir().unwrap();
    fixture::write_repo(before.path());
    let pinned = pin(&open(before.path()), listed).unwrap();
    fs::write(
        before.path().join("src/auth/token.rs"),
        "pub fn token() {}\n",
    )
    .unwrap();
    match replay(&open(before.path()), &pinned, false) {
        Err(Error::PlanDrift {
            added,
            changed,
            deleted,
            ..
        }) => {
            assert_eq!(added, ["src/auth/token.rs"]);
            assert!(changed.is_empty() && deleted.is_empty());
        }
        other => panic!("expected drift, got {other:?}"),
    }
}

#[test]
fn a_file_added_under_a_new_folded_line_is_named_without_git() {
    let dir = tempfile::tempdir().unwrap();
    fixture::write_repo(dir.path());
    let mut plan = FlightPlan::new("auth", 2_000);
    plan.rules = vec![
        Rule {
            collapse: true,
            ..Rule::new("**", Level::Path)
        },
        Rule::new("src/auth/", Level::TopLevel),
    ];
    let pinned = pin(&open(dir.path()), plan).unwrap();
    fs::create_dir(dir.path().join("gen")).unwrap();
    fs::write(dir.path().join("gen/schema.rs"), "pub fn schema() {}\n").unwrap();
    match replay(&open(dir.path()), &pinned, false) {
        Err(Error::PlanDrift {
            added, recounted, ..
        }) => {
            assert_eq!(added, ["gen/schema.rs"]);
            assert_eq!(recounted, [("gen/".to_string(), 0, 1)]);
        }
        other => panic!("expected drift, got {other:?}"),
    }
}

#[test]
fn a_file_the_scan_now_leaves_out_is_named_with_its_reason_not_deleted() {
    let (dir, plan, _) = explored(2_000);
    // The shown file is still there, but binary now: the scan skips it.
    fs::write(
        dir.path().join("src/auth/middleware.rs"),
        b"\0\x01\x02 blob \0",
    )
    .unwrap();
    let map = open(dir.path());
    let err = replay(&map, &plan, false).unwrap_err();
    let Error::PlanDrift {
        deleted, left_out, ..
    } = &err
    else {
        panic!("expected drift, got {err:?}");
    };
    let summary = err.to_string();
    assert!(deleted.is_empty(), "{deleted:?}");
    assert_eq!(left_out.len(), 1, "{left_out:?}");
    assert_eq!(left_out[0].0, "src/auth/middleware.rs");
    assert!(left_out[0].1.contains("binary"), "{left_out:?}");
    assert!(
        summary.contains("left out: src/auth/middleware.rs (binary"),
        "{summary}"
    );
    let refit = replay(&map, &plan, true).unwrap();
    assert!(refit.rendered.tokens <= plan.token_budget);
    assert_eq!(refit.drift.left_out, left_out.clone());
}

#[cfg(unix)]
#[test]
fn a_pinned_file_replaced_by_a_socket_or_a_directory_is_left_out_not_deleted() {
    let (dir, plan, _) = explored(2_000);
    let pinned = &plan.pinned.as_ref().unwrap().files;
    for p in ["src/auth/middleware.rs", "src/auth/session.rs"] {
        assert!(pinned.contains_key(p), "{pinned:?}");
    }
    let root = dir.path();
    fs::remove_file(root.join("src/auth/middleware.rs")).unwrap();
    let _listener =
        std::os::unix::net::UnixListener::bind(root.join("src/auth/middleware.rs")).unwrap();
    fs::remove_file(root.join("src/auth/session.rs")).unwrap();
    fs::create_dir(root.join("src/auth/session.rs")).unwrap();
    let err = replay(&open(root), &plan, false).unwrap_err();
    let Error::PlanDrift {
        deleted, left_out, ..
    } = &err
    else {
        panic!("expected drift, got {err:?}");
    };
    assert!(deleted.is_empty(), "{deleted:?}");
    assert_eq!(
        left_out,
        &[
            (
                "src/auth/middleware.rs".to_string(),
                "a socket, not a regular file".to_string()
            ),
            (
                "src/auth/session.rs".to_string(),
                "now a directory".to_string()
            ),
        ]
    );
}

#[test]
fn a_file_shown_with_content_that_can_now_only_be_a_path_is_named_changed() {
    let (dir, plan, _) = explored(2_000);
    // Still there and not binary, but no longer text: the render can only list its path.
    fs::write(dir.path().join("src/auth/middleware.rs"), vec![0xffu8; 400]).unwrap();
    let map = open(dir.path());
    match replay(&map, &plan, false) {
        Err(Error::PlanDrift {
            changed, deleted, ..
        }) => {
            assert_eq!(changed, ["src/auth/middleware.rs"]);
            assert!(deleted.is_empty());
        }
        other => panic!("expected drift, got {other:?}"),
    }
}

/// Runs git in `root` with a throwaway identity, asserting it succeeds.
fn git(root: &std::path::Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["-c", "user.name=t", "-c", "user.email=t@e"])
        .args(["-c", "commit.gpgsign=false"])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

#[test]
fn files_added_to_and_deleted_from_a_folded_directory_are_named_in_git() {
    let dir = tempfile::tempdir().unwrap();
    fixture::write_repo(dir.path());
    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["add", "."]);
    git(dir.path(), &["commit", "-q", "-m", "first"]);
    let map = open(dir.path());
    let plan = explore(&map, "Refactor the auth middleware", 2_000).plan;
    let pins = plan.pinned.clone().unwrap();
    assert!(pins.commit.is_some(), "{pins:?}");
    // A ledger table only counted in a folded line goes, two arrive (one committed, one not).
    let gone = (0..40)
        .map(|i| format!("src/db/table_{i:02}.rs"))
        .rfind(|p| !pins.files.contains_key(p))
        .expect("a folded table");
    fs::remove_file(dir.path().join(&gone)).unwrap();
    fs::write(dir.path().join("src/db/table_50.rs"), "pub fn t50() {}\n").unwrap();
    git(dir.path(), &["add", "src/db/table_50.rs"]);
    git(dir.path(), &["commit", "-q", "-m", "second"]);
    fs::write(dir.path().join("src/db/table_51.rs"), "pub fn t51() {}\n").unwrap();
    let err = replay(&open(dir.path()), &plan, false).unwrap_err();
    let Error::PlanDrift {
        added,
        deleted,
        recounted,
        ..
    } = &err
    else {
        panic!("expected drift, got {err:?}");
    };
    assert_eq!(
        added,
        &["src/db/table_50.rs", "src/db/table_51.rs"],
        "{err}"
    );
    assert_eq!(deleted, &[gone], "{err}");
    assert!(!recounted.is_empty(), "{err}");
    // A file that was there untracked when the plan was pinned cannot be told from a new one:
    // nothing is named that does not account for the recount.
    let dir = tempfile::tempdir().unwrap();
    fixture::write_repo(dir.path());
    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["add", "src/auth"]);
    git(dir.path(), &["commit", "-q", "-m", "auth only"]);
    let plan = explore(&open(dir.path()), "Refactor the auth middleware", 2_000).plan;
    fs::write(dir.path().join("src/db/table_50.rs"), "pub fn t50() {}\n").unwrap();
    match replay(&open(dir.path()), &plan, false) {
        Err(Error::PlanDrift {
            added, recounted, ..
        }) => {
            assert!(added.is_empty(), "{added:?}");
            assert!(!recounted.is_empty());
        }
        other => panic!("expected drift, got {other:?}"),
    }
}

#[test]
fn the_context_comes_in_rank_order_with_a_header_per_file() {
    let dir = tempfile::tempdir().unwrap();
    fixture::write_repo(dir.path());
    let map = open(dir.path());
    let out = explore(&map, "Refactor the auth middleware", 2_000);
    let rendered = render(&map, &out.plan).unwrap();
    assert_eq!(rendered.text, out.context);
    // The first file block is the best-ranked file, at full source, with its header.
    assert_eq!(rendered.shown[0].path, out.ranking[0].path);
    let first = out.context.lines().find(|l| l.starts_with("## ")).unwrap();
    assert!(
        first.starts_with("## src/auth/middleware.rs (level 4: full source, ")
            && first.ends_with(" tokens)"),
        "{first}"
    );
    // Shown files follow the ranking: scores never increase down the context.
    let score = |p: &str| {
        out.ranking
            .iter()
            .find(|s| s.path == p)
            .map_or(0.0, |s| s.score)
    };
    let scores: Vec<f64> = rendered.shown.iter().map(|s| score(&s.path)).collect();
    assert!(
        scores.windows(2).all(|w| w[0] >= w[1]),
        "{:?}",
        rendered.shown
    );
    // In path order, `src/auth/middleware.rs` would come after `src/auth/mod.rs`.
    let pos = |p: &str| out.context.find(&format!("## {p} ")).unwrap();
    assert!(pos("src/auth/middleware.rs") < pos("src/auth/session.rs"));
    let total: usize = rendered.shown.iter().map(|s| s.tokens).sum();
    assert!(total < rendered.tokens);
}

#[test]
fn the_overview_spends_the_budget_breadth_first() {
    let dir = tempfile::tempdir().unwrap();
    fixture::write_repo(dir.path());
    // A wide tree: more paths than a small budget can list.
    for a in 0..12 {
        for b in 0..15 {
            let p = dir.path().join(format!("pkg{a:02}/mod{b:02}/file.py"));
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, format!("def f{a}_{b}():\n    return {b}\n")).unwrap();
        }
    }
    let map = open(dir.path());
    for budget in [120, 600, 1_500, 50_000] {
        let plan = satellite(&map, "overview", budget, Tokenizer::default()).unwrap();
        let r = render(&map, &plan).unwrap();
        assert!(r.tokens <= budget, "{} > {budget}", r.tokens);
        if budget < 50_000 {
            assert!(
                r.tokens as f64 >= 0.7 * budget as f64,
                "only {} of {budget}:\n{}",
                r.tokens,
                r.text
            );
        }
    }
    // At 600 tokens the top-level folders are open: their subfolders show as counted lines.
    let r = render(
        &map,
        &satellite(&map, "overview", 600, Tokenizer::default()).unwrap(),
    )
    .unwrap();
    assert!(
        r.text.contains("pkg00/mod00/ (1 file)") || r.text.contains("pkg00/mod00/file.py"),
        "{}",
        r.text
    );
    // With room for everything, every path is listed and the shallow files get outlines.
    let r = render(
        &map,
        &satellite(&map, "overview", 50_000, Tokenizer::default()).unwrap(),
    )
    .unwrap();
    assert!(r.levels.iter().all(|(_, l)| *l >= Level::Path));
    assert!(r.level_of("src/lib.rs") >= Level::TopLevel, "{}", r.text);
}

#[test]
fn a_rule_naming_a_file_the_repository_lacks_is_named() {
    let (dir, mut plan, _) = explored(2_000);
    // A hand-edited plan: a rule for a file that never existed, pins as they were.
    plan.rules
        .push(Rule::new("src/auth/no_such_file.rs", Level::Full));
    // The repository did not change, the plan did: said so, not "deleted" (regression: the
    // file was said deleted, and the files the rule no longer covered added).
    let last = plan.rules.len() - 1;
    match replay(&open(dir.path()), &plan, false) {
        Err(Error::FlightPlan { field, message, .. }) => {
            assert_eq!(field, format!("rules[{last}].path"));
            assert!(
                message.contains("src/auth/no_such_file.rs") && message.contains("edited plan"),
                "{message}"
            );
        }
        other => panic!("expected a plan error, got {other:?}"),
    }
    // A focus naming no item of a file that is as pinned: edited too.
    let (dir, mut plan, _) = explored(2_000);
    let (k, rule) = plan
        .rules
        .iter_mut()
        .enumerate()
        .find(|(_, r)| !r.focus.is_empty() || r.path == "src/auth/middleware.rs")
        .unwrap();
    rule.focus = vec!["no_such_function".into()];
    rule.level = Level::Signatures;
    match replay(&open(dir.path()), &plan, false) {
        Err(Error::FlightPlan { field, message, .. }) => {
            assert_eq!(field, format!("rules[{k}].focus"));
            assert!(message.contains("no_such_function"), "{message}");
        }
        other => panic!("expected a plan error, got {other:?}"),
    }
}

#[test]
fn a_refit_lowers_the_later_rules_first_whatever_level_they_ask_for() {
    let dir = tempfile::tempdir().unwrap();
    let fns: String = (0..30)
        .map(|k| format!("/// Step {k}.\npub fn step_{k}(input: u64) -> u64 {{ input + {k} }}\n"))
        .collect();
    fs::write(dir.path().join("best.rs"), fns).unwrap();
    let body: String = (0..20)
        .map(|k| format!("    let v{k} = input.rotate_left({k});\n"))
        .collect();
    fs::write(
        dir.path().join("root.rs"),
        format!("pub fn root(input: u64) -> u64 {{\n{body}    input\n}}\n"),
    )
    .unwrap();
    let map = open(dir.path());
    // The first file ranked, as an outline; a cheap later one whole (as a package root is).
    let mut plan = FlightPlan::new("goal", 100_000);
    plan.rules = vec![
        Rule::new("best.rs", Level::TopLevel),
        Rule::new("root.rs", Level::Full),
    ];
    let mut small = plan.clone();
    small.rules[1].level = Level::Path;
    // Room for the first file's outline and the second's path, not for both with content.
    plan.token_budget = render(&map, &small).unwrap().tokens + 5;
    assert!(render(&map, &plan).unwrap().tokens > plan.token_budget);
    let refit = replay(&map, &plan, true).unwrap();
    assert!(refit.rendered.tokens <= plan.token_budget);
    assert_eq!(
        refit.rendered.level_of("best.rs"),
        Level::TopLevel,
        "{}",
        refit.rendered.text
    );
    assert!(
        refit.rendered.level_of("root.rs") < Level::Full,
        "{}",
        refit.rendered.text
    );
}

/// A refit keeps a grown key file as an outline of its entries nearest the goal when even its
/// plain outline no longer fits, rather than its bare path. Regression: a file grown by 800
/// functions went from full source to a path, 2,136 of 10,000 tokens left unused.
#[test]
fn a_refit_keeps_a_grown_key_file_as_a_shorter_outline_not_a_path() {
    let (dir, plan, _) = explored(2_000);
    let path = dir.path().join("src/auth/middleware.rs");
    let mut grown = fs::read_to_string(&path).unwrap();
    for k in 0..800 {
        grown.push_str(&format!(
            "\n/// Helper {k}.\npub fn helper_{k}(input: u64) -> u64 {{ input.rotate_left({k}) }}\n"
        ));
    }
    fs::write(&path, grown).unwrap();
    let map = open(dir.path());
    let refit = replay(&map, &plan, true).unwrap();
    assert!(refit.rendered.tokens <= plan.token_budget);
    let level = refit.rendered.level_of("src/auth/middleware.rs");
    assert!(
        level >= Level::TopLevel,
        "{level:?}:\n{}",
        refit.rendered.text
    );
    // The entries nearest the goal are the ones kept.
    assert!(
        refit.rendered.text.contains("AuthMiddleware"),
        "{}",
        refit.rendered.text
    );
}
