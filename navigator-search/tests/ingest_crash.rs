//! Kill -9 a process while it indexes a vault, several times over one engine directory;
//! after each kill, reopen and check that every acknowledged note is there and searchable and
//! that store and indexes agree; finally let an index run finish and check that it embeds
//! exactly the notes that were never written (nothing acknowledged is lost or redone).
//!
//! The writer is this test binary re-invoked (`ingest_crash_writer`, ignored in normal runs);
//! it prints `ACK <n>` each time an embedded batch has been committed (`n` = notes embedded in
//! that run so far).

mod common;

use common::{config, embedder};
use navigator_core::{SearchMode, SearchRequest, SearchService};
use navigator_search::ingest::{index_folder, IngestOptions, IngestProgress};
use navigator_search::SearchEngine;
use std::io::Write;
use std::path::Path;
use std::time::Duration;

const NOTES: usize = 160;
const RUNS: u64 = 6;

fn options() -> IngestOptions {
    IngestOptions {
        batch: 4,
        ..IngestOptions::default()
    }
}

fn make_vault(root: &Path) {
    for n in 0..NOTES {
        let folder = ["Projects/Alpha", "Areas/Health", "Resources"][n % 3];
        std::fs::create_dir_all(root.join(folder)).unwrap();
        std::fs::write(
            root.join(folder).join(format!("note {n}.md")),
            format!(
                "---\ntags: [crash]\n---\n# Note {n}\nCrash marker w{n}x about topic {}.",
                n % 7
            ),
        )
        .unwrap();
    }
}

#[tokio::test]
#[ignore = "writer process for kill_9_during_vault_indexing_loses_nothing"]
async fn ingest_crash_writer() {
    let vault = std::env::var("NAV_CRASH_VAULT").expect("NAV_CRASH_VAULT names the vault");
    let engine = common::writer_engine("NAV_CRASH_DIR").await;
    index_folder(&engine, Path::new(&vault), &options(), |p| {
        if let IngestProgress::Embedded { texts } = p {
            let mut out = std::io::stdout();
            writeln!(out, "ACK {texts}").unwrap();
            out.flush().unwrap();
        }
    })
    .await
    .unwrap();
    writeln!(std::io::stdout(), "DONE").unwrap();
}

async fn check_consistent(engine: &SearchEngine, at_least: usize, run: u64) {
    let all = engine
        .search(
            &SearchRequest::new("crash marker")
                .unwrap()
                .mode(SearchMode::Keyword)
                .limit(1),
        )
        .await
        .unwrap();
    let notes = engine.len() - engine_folders(engine);
    assert_eq!(
        all.total_results as usize, notes,
        "run {run}: keyword index and store disagree"
    );
    // Acknowledgements count every embedded item, folders included.
    assert!(
        engine.len() >= at_least,
        "run {run}: {} items stored, {at_least} acknowledged",
        engine.len()
    );
    for n in 0..NOTES {
        let folder = ["Projects/Alpha", "Areas/Health", "Resources"][n % 3];
        let id = format!("{folder}/note {n}.md");
        if engine.item(&id).unwrap().is_some() {
            let page = engine
                .search(
                    &SearchRequest::new(format!("w{n}x"))
                        .unwrap()
                        .mode(SearchMode::Keyword),
                )
                .await
                .unwrap();
            assert_eq!(
                page.results.len(),
                1,
                "run {run}: {id} stored but not searchable"
            );
        }
    }
}

fn engine_folders(engine: &SearchEngine) -> usize {
    ["Projects/Alpha/", "Areas/Health/"]
        .iter()
        .filter(|id| engine.item(id).unwrap().is_some())
        .count()
}

#[tokio::test]
async fn kill_9_during_vault_indexing_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let vault = tempfile::tempdir().unwrap();
    make_vault(vault.path());
    let log = dir.path().join("writer.log");
    let mut rng = 0xfeed_u64;
    let mut stored_before = 0;
    for run in 0..RUNS {
        let (writer, mut lines) = common::Writer::start(
            "ingest_crash_writer",
            &[
                ("NAV_CRASH_DIR", dir.path().join("index").as_os_str()),
                ("NAV_CRASH_VAULT", vault.path().as_os_str()),
            ],
            &log,
        );
        std::thread::sleep(Duration::from_millis(common::next_random(&mut rng) % 1200));
        lines.extend(writer.kill());
        let acked = lines
            .iter()
            .filter_map(|l| l.strip_prefix("ACK "))
            .filter_map(|n| n.parse::<usize>().ok())
            .max()
            .unwrap_or(0);
        let engine = SearchEngine::open_with(dir.path().join("index"), embedder(), config())
            .await
            .unwrap();
        check_consistent(&engine, stored_before + acked, run).await;
        stored_before = engine.len();
    }
    // Finish: only the notes never written are embedded now.
    let engine = SearchEngine::open_with(dir.path().join("index"), embedder(), config())
        .await
        .unwrap();
    let before = engine.len();
    let report = index_folder(&engine, vault.path(), &options(), |_| {})
        .await
        .unwrap();
    assert_eq!(engine.len(), NOTES + 2, "{report}");
    assert_eq!(report.embedded, NOTES + 2 - before, "{report}");
    check_consistent(&engine, NOTES, RUNS).await;
    assert!(
        stored_before > 0,
        "the writers wrote nothing before being killed: nothing was tested"
    );
}
