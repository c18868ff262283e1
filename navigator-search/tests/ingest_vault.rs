//! Ingest on real folders: PARA layouts, front matter edge cases, edit / rename / delete
//! cycles, odd files (non-UTF-8 names and contents, binary, 50 MB), empty folders, JSON lines,
//! and the shipped sample vault end to end.

mod common;

use common::{config, embedder};
use navigator_core::{Category, ItemType, SearchFilters, SearchMode, SearchRequest, SearchService};
use navigator_search::ingest::{
    import_jsonl, index_folder, index_paths, IngestOptions, IngestReport, SkipReason,
};
use navigator_search::SearchEngine;
use std::path::Path;

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

async fn engine(dir: &Path) -> SearchEngine {
    SearchEngine::open_with(dir, embedder(), config())
        .await
        .unwrap()
}

async fn index(engine: &SearchEngine, root: &Path) -> IngestReport {
    index_folder(engine, root, &IngestOptions::default(), |_| {})
        .await
        .unwrap()
}

async fn keyword(engine: &SearchEngine, q: &str) -> Vec<String> {
    let req = SearchRequest::new(q)
        .unwrap()
        .mode(SearchMode::Keyword)
        .include_archived(true);
    engine
        .search(&req)
        .await
        .unwrap()
        .results
        .into_iter()
        .map(|r| r.item_id)
        .collect()
}

#[tokio::test]
async fn every_para_layout_maps_to_categories_and_parents() {
    for (p, a, r, x) in [
        ("Projects", "Areas", "Resources", "Archives"),
        ("1 Projects", "2 Areas", "3 Resources", "4 Archives"),
        ("01-Projects", "02-Areas", "03-Resources", "04-Archives"),
        ("1. Projects", "2. Areas", "3. Resources", "4. Archive"),
        ("projects", "AREAS", "resources", "archive"),
    ] {
        let vault = tempfile::tempdir().unwrap();
        let data = tempfile::tempdir().unwrap();
        write(
            vault.path(),
            &format!("{p}/Phoenix/Plan.md"),
            "# Phoenix plan\nShip the beta.",
        );
        write(
            vault.path(),
            &format!("{a}/Health/Running.md"),
            "Three runs a week.",
        );
        write(
            vault.path(),
            &format!("{r}/Bread.md"),
            "Sourdough with a cold retard.",
        );
        write(
            vault.path(),
            &format!("{x}/Apollo/Retro.md"),
            "What went well.",
        );
        let engine = engine(data.path()).await;
        let report = index(&engine, vault.path()).await;
        // 4 notes + 3 folder items (Phoenix, Health, Apollo).
        assert_eq!(
            (report.added, report.skipped.len()),
            (7, 0),
            "{p}: {report}"
        );
        let plan = engine
            .item(&format!("{p}/Phoenix/Plan.md"))
            .unwrap()
            .unwrap();
        assert_eq!(plan.category, Category::Project, "{p}");
        assert_eq!(plan.title, "Phoenix plan");
        assert_eq!(plan.parent_id, Some(format!("{p}/Phoenix/")));
        let folder = engine.item(&format!("{p}/Phoenix/")).unwrap().unwrap();
        assert_eq!(
            (folder.item_type, folder.title.as_str()),
            (ItemType::Project, "Phoenix")
        );
        let health = engine.item(&format!("{a}/Health/")).unwrap().unwrap();
        assert_eq!(health.item_type, ItemType::Area, "{a}");
        let bread = engine.item(&format!("{r}/Bread.md")).unwrap().unwrap();
        assert_eq!(
            (bread.category, bread.parent_id),
            (Category::Resource, None)
        );
        let retro = engine
            .item(&format!("{x}/Apollo/Retro.md"))
            .unwrap()
            .unwrap();
        assert_eq!(
            (retro.category, retro.item_type),
            (Category::Archive, ItemType::ArchivedResource),
            "{x}"
        );
        assert!(retro.archived_at.is_some());
        let apollo = engine.item(&format!("{x}/Apollo/")).unwrap().unwrap();
        assert_eq!(apollo.item_type, ItemType::ArchivedProject);
    }
}

#[tokio::test]
async fn front_matter_edge_cases() {
    let vault = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let v = vault.path();
    write(v, "Resources/none.md", "No front matter at all.");
    write(
        v,
        "Resources/invalid.md",
        "---\ntitle: [unclosed\ntags: a\n---\nBody.",
    );
    write(
        v,
        "Resources/unknown.md",
        "---\ntitle: Known\nrating: 5\nsource: https://example.test\n---\nBody.",
    );
    write(
        v,
        "Resources/tags-list.md",
        "---\ntags: [alpha, '#beta']\n---\nx",
    );
    write(
        v,
        "Resources/tags-string.md",
        "---\ntags: alpha, gamma\n---\nx",
    );
    write(
        v,
        "Resources/dates-iso.md",
        "---\ncreated: 2024-03-01\nupdated: 2024-03-05T10:00:00+01:00\n---\nx",
    );
    write(
        v,
        "Resources/dates-human.md",
        "---\ndate: March 1, 2024\nmodified: 05.03.2024\n---\nx",
    );
    write(
        v,
        "Resources/dates-bad.md",
        "---\ncreated: the day after tomorrow\n---\nx",
    );
    write(v, "Resources/list.md", "---\n- just\n- a list\n---\nx");
    let engine = engine(data.path()).await;
    let report = index(&engine, v).await;
    let skipped: Vec<(&str, SkipReason)> = report
        .skipped
        .iter()
        .map(|s| (s.path.as_str(), s.reason))
        .collect();
    assert_eq!(
        skipped,
        [
            ("Resources/invalid.md", SkipReason::InvalidFrontMatter),
            ("Resources/list.md", SkipReason::InvalidFrontMatter)
        ]
    );
    assert!(
        engine.item("Resources/invalid.md").unwrap().is_none(),
        "never half-written"
    );
    assert_eq!(
        engine.item("Resources/none.md").unwrap().unwrap().title,
        "none"
    );
    let unknown = engine.item("Resources/unknown.md").unwrap().unwrap();
    assert_eq!(unknown.metadata["properties"]["rating"], 5);
    assert_eq!(
        unknown.metadata["properties"]["source"],
        "https://example.test"
    );
    assert_eq!(
        engine.item("Resources/tags-list.md").unwrap().unwrap().tags,
        ["alpha", "beta"]
    );
    assert_eq!(
        engine
            .item("Resources/tags-string.md")
            .unwrap()
            .unwrap()
            .tags,
        ["alpha", "gamma"]
    );
    for id in ["Resources/dates-iso.md", "Resources/dates-human.md"] {
        let it = engine.item(id).unwrap().unwrap();
        assert_eq!(
            it.created_at.to_rfc3339(),
            "2024-03-01T00:00:00+00:00",
            "{id}"
        );
        assert_eq!(it.updated_at.date_naive().to_string(), "2024-03-05", "{id}");
    }
    assert!(engine.item("Resources/dates-bad.md").unwrap().is_some());
    assert_eq!(report.warnings.len(), 1, "{:?}", report.warnings);
    assert!(
        report.warnings[0].contains("dates-bad.md"),
        "{:?}",
        report.warnings
    );
}

#[tokio::test]
async fn edit_rename_delete_cycles_reembed_only_what_changed() {
    let vault = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let v = vault.path();
    write(
        v,
        "Projects/Phoenix/Plan.md",
        "# Plan\nShip the phoenix beta in May.",
    );
    write(
        v,
        "Projects/Phoenix/Risks.md",
        "# Risks\nThe vendor may slip the zeppelin contract.",
    );
    write(
        v,
        "Areas/Bread.md",
        "# Bread\nSourdough with a cold retard overnight.",
    );
    let engine = engine(data.path()).await;
    let first = index(&engine, v).await;
    assert_eq!((first.added, first.embedded), (4, 4), "{first}");

    let again = index(&engine, v).await;
    assert_eq!(
        (again.unchanged, again.embedded, again.changed()),
        (4, 0, false),
        "{again}"
    );

    // Edit one note: only it is re-embedded, and the new text is what search finds.
    write(
        v,
        "Projects/Phoenix/Plan.md",
        "# Plan\nShip the phoenix beta in June, after the quokka audit.",
    );
    let edited = index(&engine, v).await;
    assert_eq!(
        (edited.updated, edited.embedded, edited.unchanged),
        (1, 1, 3),
        "{edited}"
    );
    assert_eq!(
        keyword(&engine, "quokka").await,
        ["Projects/Phoenix/Plan.md"]
    );

    // Rename: same text, new path — no embedding, old id gone, new id searchable.
    std::fs::rename(
        v.join("Projects/Phoenix/Risks.md"),
        v.join("Projects/Phoenix/Risk register.md"),
    )
    .unwrap();
    let renamed = index(&engine, v).await;
    assert_eq!(
        (renamed.renamed, renamed.embedded, renamed.deleted),
        (1, 0, 0),
        "{renamed}"
    );
    assert!(engine.item("Projects/Phoenix/Risks.md").unwrap().is_none());
    assert_eq!(
        keyword(&engine, "zeppelin").await,
        ["Projects/Phoenix/Risk register.md"]
    );
    let sem = SearchRequest::new("vendor may slip the contract")
        .unwrap()
        .mode(SearchMode::Semantic);
    assert_eq!(
        engine.search(&sem).await.unwrap().results[0].item_id,
        "Projects/Phoenix/Risk register.md"
    );

    // Move to another category: re-filed with its stored vector.
    std::fs::create_dir_all(v.join("Resources")).unwrap();
    std::fs::rename(v.join("Areas/Bread.md"), v.join("Resources/Bread.md")).unwrap();
    let moved = index(&engine, v).await;
    assert_eq!((moved.renamed, moved.embedded), (1, 0), "{moved}");
    assert_eq!(
        engine.item("Resources/Bread.md").unwrap().unwrap().category,
        Category::Resource
    );

    // Front matter only: re-written without embedding (title and body unchanged).
    write(
        v,
        "Resources/Bread.md",
        "---\nstatus: favourite\n---\n# Bread\nSourdough with a cold retard overnight.",
    );
    let meta = index(&engine, v).await;
    assert_eq!(
        (meta.updated_without_embedding, meta.embedded),
        (1, 0),
        "{meta}"
    );
    assert_eq!(
        engine
            .item("Resources/Bread.md")
            .unwrap()
            .unwrap()
            .status
            .as_deref(),
        Some("favourite")
    );

    // Delete a note and its folder: both leave the index.
    std::fs::remove_dir_all(v.join("Projects/Phoenix")).unwrap();
    let deleted = index(&engine, v).await;
    assert_eq!((deleted.deleted, deleted.embedded), (3, 0), "{deleted}");
    assert!(keyword(&engine, "zeppelin").await.is_empty());
    assert_eq!(engine.len(), 1);
}

#[tokio::test]
async fn parent_filter_and_navigation_work_on_a_vault() {
    let vault = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let v = vault.path();
    write(
        v,
        "Projects/Phoenix/Budget.md",
        "Budget for the launch: 40k.",
    );
    write(
        v,
        "Projects/Kitchen/Budget.md",
        "Budget for the kitchen: 18k.",
    );
    let engine = engine(data.path()).await;
    index(&engine, v).await;
    let filters = SearchFilters {
        parent_id: Some("Projects/Kitchen/".into()),
        ..SearchFilters::default()
    };
    let req = SearchRequest::new("budget").unwrap().filters(filters);
    let ids: Vec<String> = engine
        .search(&req)
        .await
        .unwrap()
        .results
        .into_iter()
        .map(|r| r.item_id)
        .collect();
    assert_eq!(ids, ["Projects/Kitchen/Budget.md"]);
    // The folder item is what a title search for the project lands on.
    let req = SearchRequest::new("Phoenix")
        .unwrap()
        .mode(SearchMode::Keyword);
    assert_eq!(
        engine.search(&req).await.unwrap().results[0].item_id,
        "Projects/Phoenix/"
    );
}

#[tokio::test]
async fn odd_files_are_skipped_by_reason_and_never_crash() {
    let vault = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let v = vault.path();
    write(v, "Resources/ok.md", "A fine note about lighthouses.");
    write(v, "Resources/image.png", "not a note, not counted");
    std::fs::write(v.join("Resources/binary.md"), b"PK\x03\x04\x00\x00binary").unwrap();
    std::fs::write(v.join("Resources/latin1.md"), b"caf\xe9 au lait").unwrap();
    std::fs::create_dir_all(v.join("Projects/Empty project")).unwrap();
    std::fs::create_dir_all(v.join(".obsidian")).unwrap();
    write(v, ".obsidian/workspace.md", "hidden, not walked");
    // 50 MB, written in the test: skipped by its size, never read.
    let big = std::fs::File::create(v.join("Resources/huge.md")).unwrap();
    big.set_len(50 * 1024 * 1024).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let name = std::ffi::OsStr::from_bytes(b"Resources/r\xe9sum\xe9.md");
        std::fs::write(v.join(name), "Curriculum vitae, latin-1 file name.").unwrap();
    }
    // Links to a note and to a folder are said to be skipped (they were passed over
    // silently); a link to something that is no note is no note either.
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("ok.md", v.join("Resources/link.md")).unwrap();
        std::os::unix::fs::symlink("../Projects", v.join("Resources/projects-link")).unwrap();
        std::os::unix::fs::symlink("image.png", v.join("Resources/image-link.png")).unwrap();
    }
    let engine = engine(data.path()).await;
    let report = index(&engine, v).await;
    let by_reason = report.skipped_by_reason();
    assert_eq!(by_reason.get(&SkipReason::TooLarge), Some(&1), "{report}");
    assert_eq!(by_reason.get(&SkipReason::Binary), Some(&1), "{report}");
    assert_eq!(by_reason.get(&SkipReason::NotUtf8), Some(&1), "{report}");
    #[cfg(unix)]
    {
        assert_eq!(by_reason.get(&SkipReason::Symlink), Some(&2), "{report}");
        let link = report
            .skipped
            .iter()
            .find(|s| s.path == "Resources/link.md")
            .expect("the link to a note");
        assert!(link.message.contains("`ok.md`"), "{}", link.message);
        assert!(engine.item("Resources/link.md").unwrap().is_none());
    }
    let links = if cfg!(unix) { 2 } else { 0 };
    assert_eq!(report.skipped.len(), 3 + links, "{:?}", report.skipped);
    assert!(engine.item("Resources/ok.md").unwrap().is_some());
    assert!(
        engine.item("Projects/Empty project/").unwrap().is_some(),
        "an empty project folder is a project"
    );
    assert!(engine.item(".obsidian/workspace.md").unwrap().is_none());
    #[cfg(unix)]
    assert_eq!(
        keyword(&engine, "curriculum").await,
        ["Resources/r%E9sum%E9.md"]
    );
    // Stable ids: nothing changes on a second run, the odd files are skipped again.
    let again = index(&engine, v).await;
    assert_eq!(
        (again.changed(), again.skipped.len()),
        (false, 3 + links),
        "{again}"
    );
}

#[tokio::test]
async fn an_empty_folder_and_a_missing_one() {
    let vault = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let engine = engine(data.path()).await;
    let report = index(&engine, vault.path()).await;
    assert_eq!(report, IngestReport::default());
    let err = index_folder(
        &engine,
        &vault.path().join("missing"),
        &IngestOptions::default(),
        |_| {},
    )
    .await
    .unwrap_err();
    assert!(err.to_string().contains("missing"), "{err}");
}

#[tokio::test]
async fn json_lines_import_reports_bad_rows_by_line_and_syncs() {
    let dir = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let file = dir.path().join("export.jsonl");
    std::fs::write(
        &file,
        concat!(
            // An editor's byte-order mark before the first row is no part of it.
            "\u{feff}",
            r#"{"id":"t1","title":"Draft the quarterly report","type":"task","parentId":"p1","tags":["q4"]}"#, "\n",
            r#"{"id":"p1","title":"Quarterly reporting","type":"project","createdAt":"2025-01-01"}"#, "\n",
            "\n",
            r#"{"id":"t2","title":"x","type":"spaceship"}"#, "\n",
            "{not json\n",
            r#"{"id":"t1","title":"duplicate"}"#, "\n",
            r#"{"id":"c1","title":"Maria Chen","type":"contact","body":"Designer met at TechConf"}"#, "\n",
        ),
    )
    .unwrap();
    let engine = engine(data.path()).await;
    let opts = IngestOptions::default();
    let report = import_jsonl(&engine, &file, &opts, |_| {}).await.unwrap();
    assert_eq!(report.added, 3, "{report}");
    let bad: Vec<(&str, &str)> = report
        .skipped
        .iter()
        .map(|s| (s.path.as_str(), s.message.split(':').next().unwrap()))
        .collect();
    assert_eq!(
        bad,
        [
            ("export.jsonl:4", "line 4"),
            ("export.jsonl:5", "line 5"),
            ("export.jsonl:6", "line 6")
        ]
    );
    assert!(
        report.skipped[0].message.contains("spaceship"),
        "{:?}",
        report.skipped
    );
    assert_eq!(
        engine.item("t1").unwrap().unwrap().parent_id.as_deref(),
        Some("p1")
    );

    // Unchanged rows are not touched; a removed row is deleted; an edited one re-embedded.
    std::fs::write(
        &file,
        concat!(
            r#"{"id":"p1","title":"Quarterly reporting","type":"project","createdAt":"2025-01-01"}"#, "\n",
            r#"{"id":"c1","title":"Maria Chen","type":"contact","body":"Designer met at TechConf in Berlin"}"#, "\n",
        ),
    )
    .unwrap();
    let again = import_jsonl(&engine, &file, &opts, |_| {}).await.unwrap();
    assert_eq!(
        (
            again.unchanged,
            again.updated,
            again.deleted,
            again.embedded
        ),
        (1, 1, 1, 1),
        "{again}"
    );
    assert!(engine.item("t1").unwrap().is_none());
}

#[tokio::test]
async fn the_sample_vault_indexes_cleanly_and_answers_by_meaning() {
    let vault = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/data/vault");
    let data = tempfile::tempdir().unwrap();
    let engine = engine(data.path()).await;
    let report = index(&engine, Path::new(vault)).await;
    assert!(
        report.skipped.is_empty() && report.warnings.is_empty(),
        "{report:?}"
    );
    assert!(report.added >= 40, "{report}");
    let ask = |q: &'static str| {
        let engine = &engine;
        async move {
            let req = SearchRequest::new(q).unwrap();
            engine
                .search(&req)
                .await
                .unwrap()
                .results
                .into_iter()
                .take(3)
                .map(|r| r.item_id)
                .collect::<Vec<_>>()
        }
    };
    let top = ask("which contractor can start in spring").await;
    assert!(
        top.iter().any(|id| id.ends_with("Contractor quotes.md")),
        "{top:?}"
    );
    let top = ask("bread with a long cold fermentation").await;
    assert!(top[0].ends_with("Sourdough bread.md"), "{top:?}");
}

#[tokio::test]
async fn index_paths_reindexes_the_given_notes_only() {
    let vault = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let v = vault.path();
    write(
        v,
        "Projects/Phoenix/Plan.md",
        "# Plan\nShip the phoenix beta in May.",
    );
    write(
        v,
        "Areas/Bread.md",
        "# Bread\nSourdough with a cold retard overnight.",
    );
    let engine = engine(data.path()).await;
    index(&engine, v).await;
    let paths = |engine: &SearchEngine, list: &[&str]| {
        let engine = engine.clone();
        let list: Vec<String> = list.iter().map(|s| s.to_string()).collect();
        let root = v.to_path_buf();
        async move {
            let refs: Vec<&str> = list.iter().map(String::as_str).collect();
            index_paths(&engine, &root, &refs, &IngestOptions::default(), |_| {})
                .await
                .unwrap()
        }
    };

    // A new note in a new folder: both added. A file changed but not named is not read.
    write(
        v,
        "Projects/Orbit/Cutover.md",
        "# Cutover\nMove the zephyrine ledger on Saturday.",
    );
    write(v, "Areas/Bread.md", "# Bread\nRye with caraway now.");
    let added = paths(&engine, &["Projects/Orbit/Cutover.md"]).await;
    assert_eq!(
        (added.added, added.deleted, added.seen),
        (2, 0, 2),
        "{added}"
    );
    assert_eq!(
        keyword(&engine, "zephyrine").await,
        ["Projects/Orbit/Cutover.md"]
    );
    let orbit = engine
        .item("Projects/Orbit/")
        .unwrap()
        .expect("the new folder");
    assert_eq!(orbit.category, Category::Project);
    assert!(keyword(&engine, "caraway").await.is_empty(), "not walked");
    assert_eq!(engine.len(), 5, "the phoenix folder and notes are kept");

    // A move names both paths: followed as a rename, with the stored vector.
    std::fs::create_dir_all(v.join("Archives/Orbit")).unwrap();
    std::fs::rename(
        v.join("Projects/Orbit/Cutover.md"),
        v.join("Archives/Orbit/Cutover.md"),
    )
    .unwrap();
    let moved = paths(
        &engine,
        &["Projects/Orbit/Cutover.md", "Archives/Orbit/Cutover.md"],
    )
    .await;
    assert_eq!((moved.renamed, moved.deleted), (1, 0), "{moved}");
    assert!(engine.item("Projects/Orbit/Cutover.md").unwrap().is_none());
    let archived = engine.item("Archives/Orbit/Cutover.md").unwrap().unwrap();
    assert_eq!(archived.category, Category::Archive);

    // A named path whose file is gone is removed.
    std::fs::remove_file(v.join("Archives/Orbit/Cutover.md")).unwrap();
    let gone = paths(&engine, &["Archives/Orbit/Cutover.md"]).await;
    assert_eq!(gone.deleted, 1, "{gone}");
    assert!(keyword(&engine, "zephyrine").await.is_empty());

    for bad in ["../outside.md", "/etc/passwd", ""] {
        let err = index_paths(&engine, v, &[bad], &IngestOptions::default(), |_| {}).await;
        assert!(err.is_err(), "{bad} must be refused");
    }
}
