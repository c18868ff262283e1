//! The `navigator` binary end to end: data directory rules, exit codes, index → search →
//! toc → status on the sample vault, incremental re-index.

use std::path::Path;
use std::process::{Command, Output};

fn navigator(home: &Path, args: &[&str]) -> Output {
    command(home, args).output().unwrap()
}

/// `navigator args` on the data directory `home`. The runtime and model come from the test
/// environment's own lookup (NAVIGATOR_HOME of the developer machine, or .navigator/), passed
/// explicitly since NAVIGATOR_HOME here is the data directory under test.
fn command(home: &Path, args: &[&str]) -> Command {
    let paths =
        navigator_core::EmbeddingPaths::locate(None, None).expect("runtime and model installed");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_navigator"));
    cmd.args(args)
        .env("NAVIGATOR_HOME", home)
        .env("NAVIGATOR_ORT_DYLIB", paths.ort_dylib)
        .env("NAVIGATOR_MODEL_DIR", paths.model_dir);
    cmd
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn a_bad_navigator_home_is_a_configuration_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-home");
    let out = navigator(&missing, &["status"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    assert!(text(&out).contains("no-such-home"), "{}", text(&out));
}

#[test]
fn usage_errors_and_help() {
    let dir = tempfile::tempdir().unwrap();
    let out = navigator(dir.path(), &["search"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let out = navigator(dir.path(), &["search", "x", "--mode", "fuzzy"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("fuzzy"), "{}", text(&out));
    for cmd in ["index", "search", "toc", "status"] {
        let out = navigator(dir.path(), &[cmd, "--help"]);
        assert_eq!(out.status.code(), Some(0), "{cmd}: {}", text(&out));
    }
    let out = navigator(dir.path(), &["index", "/definitely/not/here"]);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out));
    // A single note is no source: refused before any warning about the data directory.
    let note = dir.path().join("Inbox.md");
    std::fs::write(&note, "# Inbox\n").unwrap();
    let out = navigator(dir.path(), &["index", note.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out));
    assert!(
        text(&out).contains("neither a folder of notes nor a JSON-lines export"),
        "{}",
        text(&out)
    );
    assert!(!text(&out).contains("warning"), "{}", text(&out));
    let out = navigator(dir.path(), &["search", "anything"]);
    assert_eq!(out.status.code(), Some(4), "no index yet: {}", text(&out));
    // A request the command line spelled wrong is a usage error (2), whoever catches it.
    for args in [
        &["search", ""][..],
        &["search", "x", "--limit", "0"],
        &["search", "x", "--limit", "51"],
        &["search", "x", "--limit", "-1"],
        &["search", "x", "--offset", "-3"],
        &["context", "x", ".", "--usd", "-1"],
    ] {
        let out = navigator(dir.path(), args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
        assert!(!text(&out).contains("use '--"), "{args:?}: {}", text(&out));
    }
    // With --json, a failure after parsing is a JSON object on stdout too.
    for args in [
        &["search", "anything", "--json"][..],
        &["toc", "--json"],
        &["index", "/definitely/not/here", "--json"],
    ] {
        let out = navigator(dir.path(), args);
        let v: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", text(&out)));
        assert_eq!(v["exit_code"], 4, "{args:?}: {v}");
        assert_eq!(out.status.code(), Some(4), "{args:?}");
    }
}

#[test]
fn index_search_toc_status_on_the_sample_vault() {
    let home = tempfile::tempdir().unwrap();
    let vault = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/data/vault");
    let out = navigator(home.path(), &["index", vault, "--quiet"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("added"), "{}", text(&out));

    let out = navigator(
        home.path(),
        &["search", "which contractor can start in spring", "--json"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let hits: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ids: Vec<&str> = hits
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["itemId"].as_str().unwrap())
        .collect();
    assert!(
        ids[..3]
            .iter()
            .any(|id| id.ends_with("Contractor quotes.md")),
        "{ids:?}"
    );

    let out = navigator(
        home.path(),
        &[
            "search",
            "budget",
            "--parent",
            "1 Projects/Kitchen Renovation/",
            "--json",
        ],
    );
    let hits: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        hits.as_array().unwrap().iter().all(|h| h["itemId"]
            .as_str()
            .unwrap()
            .starts_with("1 Projects/Kitchen Renovation/")),
        "{hits}"
    );

    // A folder named without its trailing `/`: nothing, and a hint saying how to name it.
    for json in [false, true] {
        let mut args = vec![
            "search",
            "budget",
            "--parent",
            "1 Projects/Kitchen Renovation",
        ];
        if json {
            args.push("--json");
        }
        let out = navigator(home.path(), &args);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out));
        assert!(
            String::from_utf8_lossy(&out.stderr)
                .contains("--parent '1 Projects/Kitchen Renovation/'"),
            "{}",
            text(&out)
        );
    }

    let out = navigator(
        home.path(),
        &["search", "xylophone quasar", "--mode", "keyword"],
    );
    assert_eq!(out.status.code(), Some(1), "nothing found: {}", text(&out));

    let out = navigator(home.path(), &["toc", "--category", "project"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("Kitchen Renovation"), "{}", text(&out));
    // A folder named without its trailing `/`: the error says how to name it.
    let out = navigator(
        home.path(),
        &["toc", "--under", "1 Projects/Kitchen Renovation"],
    );
    assert_eq!(out.status.code(), Some(4), "{}", text(&out));
    assert!(
        text(&out).contains("--under '1 Projects/Kitchen Renovation/'"),
        "{}",
        text(&out)
    );
    let out = navigator(
        home.path(),
        &["toc", "--under", "1 Projects/Kitchen Renovation/"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("Contractor quotes"), "{}", text(&out));

    // Naming the archive as the category is enough to search it; unscoped, it stays out.
    for args in [
        &[
            "search",
            "moving checklist",
            "--category",
            "archive",
            "--json",
        ][..],
        &["search", "--category", "archive", "--json"][..],
    ] {
        let out = navigator(home.path(), args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", text(&out));
        let hits: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
        assert!(
            !hits.is_empty()
                && hits
                    .iter()
                    .all(|h| h["itemId"].as_str().unwrap().starts_with("4 Archives/")),
            "{args:?}: {hits:?}"
        );
    }
    // Found only in the archive, which an unscoped search leaves out: nothing, and a note
    // saying how many archived items match; a misspelt title word gets its spelling.
    let out = navigator(
        home.path(),
        &["search", "deposit", "--mode", "keyword", "--json"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("1 archived item(s) match: add --archived"),
        "{stderr}"
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "[]");
    // A page past the last result says so, not that the archive holds what the page lacks.
    let out = navigator(
        home.path(),
        &["search", "kitchen", "--mode", "keyword", "--offset", "500"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("past the last result"), "{stderr}");
    assert!(!stderr.contains("archived item"), "{stderr}");
    // A listing (no query) too: it said only "no results".
    let out = navigator(
        home.path(),
        &["search", "--tag", "kitchen", "--offset", "500"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("past the last result"),
        "{}",
        text(&out)
    );
    let out = navigator(
        home.path(),
        &["search", "renovaton quotez", "--mode", "keyword"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("did you mean \"renovation quotes\"?"),
        "{}",
        text(&out)
    );
    let out = navigator(home.path(), &["search", "moving checklist", "--json"]);
    let hits: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        hits.iter()
            .all(|h| !h["itemId"].as_str().unwrap().starts_with("4 Archives/")),
        "{hits:?}"
    );

    let out = navigator(home.path(), &["status", "--json"]);
    let status: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        status["model"], "sentence-transformers/all-MiniLM-L6-v2-int8 (384-d, mean pooling)",
        "{status}"
    );
    let items = status["items"].as_u64().unwrap();
    assert!(items >= 40, "{status}");
    assert!(
        status["chunks"].as_u64().unwrap() > items,
        "the vault's long notes are chunked: {status}"
    );
    assert_eq!(
        status["lastIndex"]["report"]["skipped"],
        serde_json::json!([]),
        "{status}"
    );

    // Again: nothing re-embedded.
    let out = navigator(home.path(), &["index", vault, "--quiet", "--json"]);
    let run: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(run["report"]["embedded"], 0, "{run}");

    // Tags filter: every result carries the tag, whatever its case.
    let out = navigator(
        home.path(),
        &["search", "budget", "--tag", "KITCHEN", "--json"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let hits: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert!(!hits.is_empty());
    for hit in &hits {
        let id = hit["itemId"].as_str().unwrap();
        assert!(
            id.to_lowercase().contains("kitchen"),
            "only kitchen-tagged notes: {id}"
        );
    }

    // No query, a filter: the matching notes newest first, every one tagged.
    let out = navigator(
        home.path(),
        &["search", "--tag", "kitchen", "--json", "-n", "50"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let listed: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert!(listed.len() >= 2, "{listed:?}");
    let dates: Vec<&str> = listed
        .iter()
        .map(|h| h["metadata"]["updatedAt"].as_str().unwrap())
        .collect();
    assert!(
        dates.windows(2).all(|w| w[0] >= w[1]),
        "newest first: {dates:?}"
    );
    assert!(listed.iter().all(|h| h["relevanceScore"] == 1.0));
    let kitchen = listed.len();
    let out = navigator(home.path(), &["search", "--tag", "kitchen"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        text(&out).contains(&format!("{kitchen} of {kitchen} results")),
        "{}",
        text(&out)
    );
    // No query and nothing to narrow: a usage error saying what to give.
    let out = navigator(home.path(), &["search", "--json"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("--category"), "{}", text(&out));

    // Re-embedding from the stored text keeps every note and chunk.
    let out = navigator(home.path(), &["reindex"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("re-embedded"), "{}", text(&out));
    let out = navigator(home.path(), &["status", "--json"]);
    let after: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(after["chunks"], status["chunks"], "{after}");
    assert_eq!(after["items"], status["items"], "{after}");
}

/// `index --watch`: a note written, edited and deleted while it runs is each picked up by an
/// incremental run of its own, and the index the watcher leaves behind answers searches.
#[test]
fn index_watch_follows_writes_edits_and_deletes() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    use std::time::Duration;

    let home = tempfile::tempdir().unwrap();
    let vault = tempfile::tempdir().unwrap();
    let projects = vault.path().join("1 Projects/Orbit");
    std::fs::create_dir_all(&projects).unwrap();
    std::fs::write(
        projects.join("Plan.md"),
        "# Plan\n\nShip the orbit release.\n",
    )
    .unwrap();
    let vault_arg = vault.path().to_str().unwrap();
    let mut child = command(home.path(), &["index", vault_arg, "--watch", "--quiet"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, reports) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if line.contains(" seen: ") && tx.send(line).is_err() {
                break;
            }
        }
    });
    let stderr = child.stderr.take().unwrap();
    let (watching_tx, watching) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if line.starts_with("watching ") {
                let _ = watching_tx.send(());
            }
        }
    });
    // Hang guards, not timing assertions: a missed change would otherwise block forever.
    let wait = Duration::from_secs(120);
    let first = reports.recv_timeout(wait).expect("the first run's report");
    assert!(
        first.contains("2 added"),
        "the note and its project folder: {first}"
    );
    watching.recv_timeout(wait).expect("the watcher started");

    let note = projects.join("Launch checklist.md");
    std::fs::write(
        &note,
        "# Launch checklist\n\nBook the zephyrine telescope slot.\n",
    )
    .unwrap();
    let added = reports.recv_timeout(wait).expect("a run after the write");
    assert!(added.contains("1 added"), "{added}");

    std::fs::write(
        &note,
        "# Launch checklist\n\nBook the quasarite antenna slot.\n",
    )
    .unwrap();
    let edited = reports.recv_timeout(wait).expect("a run after the edit");
    assert!(edited.contains("1 updated"), "{edited}");
    // Between its runs the watcher leaves the index to other commands (it held it for its
    // life: a search failed, exit 5, for as long as the watch ran).
    let out = navigator(
        home.path(),
        &["search", "quasarite antenna", "--mode", "keyword"],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "a search while watching: {}",
        text(&out)
    );

    std::fs::remove_file(projects.join("Plan.md")).unwrap();
    let deleted = reports.recv_timeout(wait).expect("a run after the delete");
    assert!(deleted.contains("1 deleted"), "{deleted}");

    // Ctrl-C (SIGINT) stops the watch cleanly: exit 0, and the store was closed, so the
    // next open has nothing to recover.
    #[cfg(unix)]
    {
        let sent = Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(0), "{status:?}");
    }
    #[cfg(not(unix))]
    {
        child.kill().unwrap();
        child.wait().unwrap();
    }
    let out = navigator(
        home.path(),
        &["search", "quasarite antenna", "--mode", "keyword", "--json"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    #[cfg(unix)]
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("not closed cleanly"),
        "{}",
        text(&out)
    );
    let hits: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(hits[0]["itemId"], "1 Projects/Orbit/Launch checklist.md");
    let out = navigator(home.path(), &["search", "zephyrine", "--mode", "keyword"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "the old text is gone: {}",
        text(&out)
    );
    let out = navigator(
        home.path(),
        &["search", "orbit release", "--mode", "keyword", "--json"],
    );
    let gone: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap_or_default();
    assert!(
        gone.iter()
            .all(|h| h["itemId"] != "1 Projects/Orbit/Plan.md"),
        "the deleted note is gone: {gone:?}"
    );
}

/// A watched folder moved away stops the watch with an error naming it (the watcher kept
/// running, failing on every event, and never indexed the folder again).
#[cfg(unix)]
#[test]
fn a_watched_folder_moved_away_stops_the_watch_with_an_error() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    let home = tempfile::tempdir().unwrap();
    let parent = tempfile::tempdir().unwrap();
    let vault = parent.path().join("vault");
    std::fs::create_dir_all(vault.join("Areas")).unwrap();
    std::fs::write(vault.join("Areas/a.md"), "# A\n\nSome text.\n").unwrap();
    let mut child = command(
        home.path(),
        &["index", vault.to_str().unwrap(), "--watch", "--quiet"],
    )
    .stdout(Stdio::null())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    // Hang guards, not timing assertions.
    let wait = std::time::Duration::from_secs(120);
    loop {
        let line = lines.recv_timeout(wait).expect("the watcher started");
        if line.starts_with("watching ") {
            break;
        }
    }
    std::fs::rename(&vault, parent.path().join("moved")).unwrap();
    let mut said = String::new();
    while let Ok(line) = lines.recv_timeout(wait) {
        said.push_str(&line);
        said.push('\n');
    }
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(4), "{said}");
    assert!(said.contains("is gone (moved or deleted)"), "{said}");
}

/// A vault indexed with `--folder` mappings is indexed with them again when the next run
/// gives none (its mapped folder's notes silently changed category, every one reported as
/// updated); `--folder` given again changes or adds one, keeping the others.
#[test]
fn the_next_index_run_keeps_the_folder_mappings_of_the_last() {
    let home = tempfile::tempdir().unwrap();
    let vault = tempfile::tempdir().unwrap();
    let inbox = vault.path().join("Inbox");
    std::fs::create_dir_all(&inbox).unwrap();
    std::fs::write(inbox.join("Idea.md"), "# Idea\n\nA standing desk.\n").unwrap();
    let path = vault.path().to_str().unwrap();
    let index = |extra: &[&str]| -> Output {
        let mut args = vec!["index", path, "--quiet", "--json"];
        args.extend_from_slice(extra);
        let out = navigator(home.path(), &args);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        out
    };
    let in_projects = || -> bool {
        let out = navigator(home.path(), &["toc", "-c", "project", "--json"]);
        String::from_utf8_lossy(&out.stdout).contains("Idea.md")
    };
    index(&["--folder", "Inbox=project"]);
    assert!(in_projects());
    let again = index(&[]);
    assert!(in_projects(), "still a project: {}", text(&again));
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("Inbox=project"),
        "the run says which mappings it kept: {}",
        text(&again)
    );
    let report: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(report["report"]["updated"], 0, "{report}");
    // One mapping changed, the others kept.
    std::fs::create_dir_all(vault.path().join("Notes")).unwrap();
    std::fs::write(
        vault.path().join("Notes/Soil.md"),
        "# Soil\n\nKeep it healthy.\n",
    )
    .unwrap();
    index(&["--folder", "Notes=project"]);
    let listed = navigator(home.path(), &["toc", "-c", "project", "--json"]);
    let listed = String::from_utf8_lossy(&listed.stdout).into_owned();
    assert!(
        listed.contains("Idea.md") && listed.contains("Soil.md"),
        "{listed}"
    );
    index(&["--folder", "Inbox=resource"]);
    assert!(!in_projects());
}

/// `toc`: a note whose front matter moves it to another category is listed under that
/// category, as search scopes it, not under its folder's.
#[test]
fn toc_lists_a_note_under_the_category_its_front_matter_gives() {
    let home = tempfile::tempdir().unwrap();
    let vault = tempfile::tempdir().unwrap();
    let project = vault.path().join("1 Projects/Garden");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(
        project.join("Plan.md"),
        "# Plan\n\nDig the beds in March.\n",
    )
    .unwrap();
    std::fs::write(
        project.join("Soil.md"),
        "---\ncategory: area\n---\n# Soil\n\nKeep the soil healthy all year.\n",
    )
    .unwrap();
    let out = navigator(
        home.path(),
        &["index", vault.path().to_str().unwrap(), "--quiet"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let toc = |category: &str| -> String {
        let out = navigator(home.path(), &["toc", "-c", category, "--json"]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let (area, project) = (toc("area"), toc("project"));
    assert!(area.contains("Soil.md"), "{area}");
    assert!(
        project.contains("Plan.md") && !project.contains("Soil.md"),
        "{project}"
    );
    for depth in ["0", "-1"] {
        let out = navigator(home.path(), &["toc", "--depth", depth]);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        assert!(text(&out).contains("--depth"), "{}", text(&out));
    }
    // Another vault into the same data directory: said, not silent.
    let other = tempfile::tempdir().unwrap();
    std::fs::write(other.path().join("Note.md"), "# Note\n\nA second vault.\n").unwrap();
    let out = navigator(
        home.path(),
        &["index", other.path().to_str().unwrap(), "--quiet"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("holds the index of"),
        "{}",
        text(&out)
    );
    for bad in [&["--folder", "=project"][..], &["--max-file-mib", "0"]] {
        let mut args = vec!["index", other.path().to_str().unwrap()];
        args.extend_from_slice(bad);
        let out = navigator(home.path(), &args);
        assert_eq!(out.status.code(), Some(2), "{bad:?}: {}", text(&out));
    }
}
