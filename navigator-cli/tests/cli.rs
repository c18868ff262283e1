//! The `navigator` binary end to end: data directory rules, exit codes, index → search →
//! toc → status on the sample vault, incremental re-index.

use std::path::Path;
use std::process::{Command, Output};

fn navigator(home: &Path, args: &[&str]) -> Output {
    // The runtime and model come from the test environment's own lookup (NAVIGATOR_HOME of
    // the developer machine, or .navigator/), passed explicitly since NAVIGATOR_HOME here is
    // the data directory under test.
    let paths =
        navigator_core::EmbeddingPaths::locate(None, None).expect("runtime and model installed");
    Command::new(env!("CARGO_BIN_EXE_navigator"))
        .args(args)
        .env("NAVIGATOR_HOME", home)
        .env("NAVIGATOR_ORT_DYLIB", paths.ort_dylib)
        .env("NAVIGATOR_MODEL_DIR", paths.model_dir)
        .output()
        .unwrap()
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
    let out = navigator(dir.path(), &["search", "anything"]);
    assert_eq!(out.status.code(), Some(4), "no index yet: {}", text(&out));
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

    let out = navigator(
        home.path(),
        &["search", "xylophone quasar", "--mode", "keyword"],
    );
    assert_eq!(out.status.code(), Some(1), "nothing found: {}", text(&out));

    let out = navigator(home.path(), &["toc", "--category", "project"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("Kitchen Renovation"), "{}", text(&out));

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
