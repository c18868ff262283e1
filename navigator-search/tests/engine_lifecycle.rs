//! Writes, reopening, repair of lost or stale indexes, bad input and concurrency, on real disk
//! with the real model.

mod common;

use common::{config, embedder, now};
use navigator_core::{
    Category, Item, ItemStore, ItemType, SearchMode, SearchRequest, SearchService,
};
use navigator_search::{Error, RedbStore, SearchEngine};
use std::sync::Arc;

fn item(id: &str, title: &str, body: &str) -> Item {
    Item::new(
        id,
        ItemType::Resource,
        title,
        now() - chrono::Duration::days(3),
    )
    .unwrap()
    .with_body(body)
}

fn corpus() -> Vec<Item> {
    vec![
        item(
            "r1",
            "Sourdough starter",
            "Feed the starter with rye flour twice a day.",
        ),
        item(
            "r2",
            "Bike maintenance",
            "Chain lubrication and brake pad replacement.",
        ),
        item(
            "r3",
            "Tax deadlines",
            "File the annual tax return before the end of July.",
        ),
        item(
            "r4",
            "Garden watering",
            "Water tomatoes in the early morning during heat waves.",
        ),
    ]
}

async fn top(engine: &SearchEngine, q: &str, mode: SearchMode) -> Vec<String> {
    engine
        .search(&SearchRequest::new(q).unwrap().mode(mode))
        .await
        .unwrap()
        .results
        .into_iter()
        .map(|r| r.item_id)
        .collect()
}

/// Opens an engine in `dir`, loads `items` and closes it.
async fn load_and_close(dir: &std::path::Path, items: &[Item]) {
    let engine = SearchEngine::open_with(dir, embedder(), config())
        .await
        .unwrap();
    engine.bulk_load(items, |_| {}).await.unwrap();
}

#[tokio::test]
async fn empty_index_answers_every_mode_with_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let engine = SearchEngine::open_with(dir.path(), embedder(), config())
        .await
        .unwrap();
    assert!(engine.is_empty());
    for mode in [
        SearchMode::Hybrid,
        SearchMode::Semantic,
        SearchMode::Keyword,
    ] {
        let page = engine
            .search(&SearchRequest::new("anything").unwrap().mode(mode))
            .await
            .unwrap();
        assert!(page.results.is_empty());
        assert_eq!(page.total_results, 0);
    }
    assert_eq!(engine.find_exact("anything"), None);
}

#[tokio::test]
async fn upsert_update_delete_and_access() {
    let dir = tempfile::tempdir().unwrap();
    let engine = SearchEngine::open_with(dir.path(), embedder(), config())
        .await
        .unwrap();
    let mut seen = Vec::new();
    engine
        .bulk_load(&corpus(), |p| seen.push((p.done, p.total)))
        .await
        .unwrap();
    assert_eq!(seen.last(), Some(&(4, 4)));
    assert_eq!(
        top(&engine, "bicycle repair", SearchMode::Semantic).await[0],
        "r2"
    );

    let mut changed = item(
        "r2",
        "Bike maintenance",
        "Notes moved to the workshop binder.",
    );
    changed.tags = vec!["workshop".into()];
    engine.upsert(&[changed]).await.unwrap();
    let k = top(&engine, "brake", SearchMode::Keyword).await;
    assert!(k.is_empty(), "the old body is no longer indexed: {k:?}");
    assert_eq!(
        top(&engine, "workshop", SearchMode::Keyword).await,
        vec!["r2"]
    );
    assert_eq!(engine.len(), 4);

    assert!(engine.delete("r3").await.unwrap());
    assert!(!engine.delete("r3").await.unwrap());
    assert!(top(&engine, "tax return", SearchMode::Hybrid)
        .await
        .iter()
        .all(|id| id != "r3"));

    assert_eq!(engine.record_access("r1").await.unwrap(), 1);
    assert_eq!(engine.record_access("r1").await.unwrap(), 2);
    assert_eq!(engine.item("r1").unwrap().unwrap().access_count, 2);
    let err = engine.record_access("nope").await.unwrap_err();
    assert!(err.to_string().contains("nope"), "{err}");
}

#[tokio::test]
async fn access_frequency_raises_hybrid_relevance() {
    let dir = tempfile::tempdir().unwrap();
    let engine = SearchEngine::open_with(dir.path(), embedder(), config())
        .await
        .unwrap();
    engine.bulk_load(&corpus(), |_| {}).await.unwrap();
    let req = SearchRequest::new("sourdough").unwrap();
    let before = engine.search(&req).await.unwrap().results[0].relevance_score;
    for _ in 0..10 {
        engine.record_access("r1").await.unwrap();
    }
    let after = engine.search(&req).await.unwrap().results[0].relevance_score;
    assert!(after > before, "{after} <= {before}");
}

#[tokio::test]
async fn reopening_keeps_everything_and_rebuilds_lost_indexes() {
    let dir = tempfile::tempdir().unwrap();
    load_and_close(dir.path(), &corpus()).await;
    {
        let engine = SearchEngine::open_with(dir.path(), embedder(), config())
            .await
            .unwrap();
        assert_eq!(engine.len(), 4);
        assert_eq!(
            top(&engine, "sourdough", SearchMode::Keyword).await,
            vec!["r1"]
        );
    }
    // Both derived indexes lost: rebuilt from the store on open.
    std::fs::remove_dir_all(dir.path().join("keyword")).unwrap();
    std::fs::remove_file(dir.path().join("chunks.usearch")).unwrap();
    let engine = SearchEngine::open_with(dir.path(), embedder(), config())
        .await
        .unwrap();
    assert_eq!(
        top(&engine, "sourdough", SearchMode::Keyword).await,
        vec!["r1"]
    );
    assert_eq!(
        top(&engine, "bicycle repair", SearchMode::Semantic).await[0],
        "r2"
    );
}

#[tokio::test]
async fn the_configured_search_beam_is_used_and_can_change_on_an_open_engine() {
    let dir = tempfile::tempdir().unwrap();
    let config = navigator_search::EngineConfig {
        search_beam: 640,
        ..config()
    };
    let engine = SearchEngine::open_with(dir.path(), embedder(), config)
        .await
        .unwrap();
    assert_eq!(engine.search_beam(), 640);
    engine.bulk_load(&corpus(), |_| {}).await.unwrap();
    engine.set_search_beam(32);
    assert_eq!(engine.search_beam(), 32);
    assert_eq!(
        top(&engine, "bicycle repair", SearchMode::Semantic).await[0],
        "r2"
    );
}

#[tokio::test]
async fn a_corrupt_vector_file_is_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    load_and_close(dir.path(), &corpus()).await;
    std::fs::write(dir.path().join("chunks.usearch"), b"garbage").unwrap();
    let engine = SearchEngine::open_with(dir.path(), embedder(), config())
        .await
        .unwrap();
    assert_eq!(
        top(&engine, "bicycle repair", SearchMode::Semantic).await[0],
        "r2"
    );
}

#[tokio::test]
async fn items_written_through_the_plain_store_are_embedded_on_open() {
    let dir = tempfile::tempdir().unwrap();
    {
        let store = RedbStore::open(dir.path().join("store.redb")).unwrap();
        store.put_items(&corpus()).await.unwrap();
        assert_eq!(store.count_items().await.unwrap(), 4);
    }
    let engine = SearchEngine::open_with(dir.path(), embedder(), config())
        .await
        .unwrap();
    assert_eq!(
        top(&engine, "growing vegetables", SearchMode::Semantic).await[0],
        "r4"
    );
    assert_eq!(
        top(&engine, "garden", SearchMode::Keyword).await,
        vec!["r4"]
    );
}

#[tokio::test]
async fn bad_input_is_a_typed_error_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let engine = SearchEngine::open_with(dir.path(), embedder(), config())
        .await
        .unwrap();
    let mut bad = item("bad", "Bad", "updated before created");
    bad.updated_at = bad.created_at - chrono::Duration::days(1);
    let err = engine
        .bulk_load(&[corpus()[0].clone(), bad], |_| {})
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::Core(e) if e.field() == Some("updatedAt")),
        "{err}"
    );
    assert!(engine.is_empty());

    let mut wrong_place = item("wp", "Misplaced", "");
    wrong_place.category = navigator_core::Category::Archive;
    let err = engine.upsert(&[wrong_place]).await.unwrap_err();
    assert!(
        matches!(&err, Error::Core(e) if e.field() == Some("category")),
        "{err}"
    );

    let err = engine
        .upsert_with_vectors(&corpus()[..1], &[vec![0.5; 3]])
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::Dimensions {
                expected: 384,
                got: 3,
                ..
            }
        ),
        "{err}"
    );

    let mut req = SearchRequest::new("x").unwrap();
    req.limit = 0;
    let err = engine.search(&req).await.unwrap_err();
    assert_eq!(err.field(), Some("limit"));
    req.limit = 51;
    assert_eq!(
        engine.search(&req).await.unwrap_err().field(),
        Some("limit")
    );
    let mut req = SearchRequest::new("x").unwrap();
    req.query = "  ".into();
    assert_eq!(
        engine.search(&req).await.unwrap_err().field(),
        Some("query")
    );
    let mut req = SearchRequest::new("x").unwrap();
    req.categories = Some(vec![]);
    assert_eq!(
        engine.search(&req).await.unwrap_err().field(),
        Some("categories")
    );
    let mut req = SearchRequest::new("x").unwrap();
    req.filters = Some(navigator_core::SearchFilters {
        date_range: Some(navigator_core::DateRange {
            start: Some(now()),
            end: Some(now() - chrono::Duration::days(1)),
        }),
        ..Default::default()
    });
    assert_eq!(
        engine.search(&req).await.unwrap_err().field(),
        Some("filters.dateRange")
    );
    let err = engine
        .search_with_vector(&SearchRequest::new("x").unwrap(), None)
        .unwrap_err();
    assert!(err.to_string().contains("searchMode"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn searches_stay_correct_while_another_thread_indexes() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Arc::new(
        SearchEngine::open_with(dir.path(), embedder(), config())
            .await
            .unwrap(),
    );
    engine.bulk_load(&corpus(), |_| {}).await.unwrap();
    let writer = {
        let engine = engine.clone();
        tokio::spawn(async move {
            for i in 0..30 {
                let it = item(
                    &format!("n{i}"),
                    &format!("Meeting note {i}"),
                    "Weekly sync about the roadmap.",
                );
                engine.upsert(&[it]).await.unwrap();
            }
        })
    };
    let mut rounds = 0;
    while !writer.is_finished() || rounds < 5 {
        let page = engine
            .search(&SearchRequest::new("sourdough starter").unwrap().limit(3))
            .await
            .unwrap();
        assert_eq!(page.results[0].item_id, "r1");
        let notes = engine
            .search(
                &SearchRequest::new("meeting note")
                    .unwrap()
                    .mode(SearchMode::Keyword)
                    .limit(50),
            )
            .await
            .unwrap();
        // Every hit is a fully indexed item: it has a stored body and a snippet.
        assert!(notes.results.iter().all(|r| r.snippet.is_some()));
        rounds += 1;
    }
    writer.await.unwrap();
    let notes = engine
        .search(
            &SearchRequest::new("meeting note")
                .unwrap()
                .mode(SearchMode::Keyword)
                .limit(50),
        )
        .await
        .unwrap();
    assert_eq!(notes.results.len(), 30);
}

#[tokio::test]
async fn compacting_merges_the_keyword_index_and_changes_no_answer() {
    let dir = tempfile::tempdir().unwrap();
    let engine = SearchEngine::open_with(dir.path(), embedder(), config())
        .await
        .unwrap();
    let items = common::kb_items();
    let dims = engine.embedder().dimensions();
    // Ten small commits leave several segments (background merges wait for more).
    for (i, chunk) in items.chunks(items.len().div_ceil(10)).enumerate() {
        let vectors: Vec<Vec<f32>> = chunk
            .iter()
            .enumerate()
            .map(|(j, _)| {
                let mut v = vec![0.0; dims];
                v[(i * 31 + j) % dims] = 1.0;
                v
            })
            .collect();
        engine.upsert_with_vectors(chunk, &vectors).await.unwrap();
    }
    assert!(
        engine.keyword_segments() > 1,
        "{}",
        engine.keyword_segments()
    );
    let request = |q: &str| {
        SearchRequest::new(q)
            .unwrap()
            .mode(SearchMode::Keyword)
            .limit(20)
    };
    let queries = ["quarterly report", "designer", "migration plan", "budget"];
    let answers = |engine: &SearchEngine| {
        queries
            .iter()
            .map(|q| {
                let page = engine.search_with_vector(&request(q), None).unwrap();
                let hits: Vec<(String, f64)> = page
                    .results
                    .into_iter()
                    .map(|r| (r.item_id, r.relevance_score))
                    .collect();
                (hits, page.total_results)
            })
            .collect::<Vec<_>>()
    };
    let before = answers(&engine);
    assert!(before.iter().all(|(hits, _)| !hits.is_empty()));
    engine.compact().unwrap();
    assert_eq!(engine.keyword_segments(), 1);
    assert_eq!(answers(&engine), before);

    // The engine still writes after compacting, and reopens.
    let extra = item("late", "Quarterly report appendix", "Late numbers.");
    engine
        .upsert_with_vectors(&[extra], &[vec![1.0; dims]])
        .await
        .unwrap();
    let page = engine
        .search_with_vector(&request("appendix"), None)
        .unwrap();
    assert_eq!(page.results[0].item_id, "late");
    drop(engine);
    let engine = SearchEngine::open_with(dir.path(), embedder(), config())
        .await
        .unwrap();
    assert_eq!(engine.len(), items.len() + 1);
}

/// Every hit of each of `requests`, labelled: id, title, category, score to six places (recency
/// and access counts come from the catalog) and metadata.
async fn hits(engine: &SearchEngine, requests: Vec<(String, SearchRequest)>) -> Vec<String> {
    let mut out = Vec::new();
    for (label, req) in requests {
        for hit in engine.search(&req).await.unwrap().results {
            out.push(format!(
                "{label}: {} {} {:?} {:.6} {:?}",
                hit.item_id, hit.title, hit.category, hit.relevance_score, hit.metadata
            ));
        }
    }
    out
}

/// What a search answers, as far as the catalog shapes it.
async fn answers(engine: &SearchEngine) -> Vec<String> {
    let mut requests = Vec::new();
    for (q, scope) in [
        ("sourdough starter", None),
        ("bicycle workshop", None),
        ("notes", Some(vec![Category::Project])),
        ("tax return", None),
    ] {
        let mut req = SearchRequest::new(q).unwrap();
        if let Some(scope) = scope {
            req = req.categories(scope);
        }
        requests.push((q.to_string(), req));
    }
    hits(engine, requests).await
}

#[tokio::test]
async fn a_crash_image_opens_with_the_catalog_of_every_write_since_the_last_save() {
    let dir = tempfile::tempdir().unwrap();
    load_and_close(dir.path(), &corpus()).await;
    let snapshot = dir.path().join("catalog.snap");
    let saved = std::fs::read(&snapshot).expect("closing writes the catalog snapshot");
    let image = tempfile::tempdir().unwrap();
    let live = {
        let engine = SearchEngine::open_with(dir.path(), embedder(), config())
            .await
            .unwrap();
        let mut moved = item("r2", "Bicycle workshop", "Chain and brake notes.");
        moved.status = Some("done".into());
        let mut project = Item::new(
            "p1",
            ItemType::Project,
            "Workshop move",
            now() - chrono::Duration::days(1),
        )
        .unwrap()
        .with_body("Project notes for moving the workshop.");
        project.parent_id = Some("r4".into());
        engine.upsert(&[moved, project]).await.unwrap();
        assert!(engine.delete("r3").await.unwrap());
        for _ in 0..5 {
            engine.record_access("r1").await.unwrap();
        }
        // The files as a crash now would leave them: nothing saved since the writes.
        common::copy_dir(dir.path(), image.path());
        answers(&engine).await
    };
    assert_eq!(
        std::fs::read(image.path().join("catalog.snap")).unwrap(),
        saved,
        "the image holds the snapshot from before the writes"
    );
    let engine = SearchEngine::open_with(image.path(), embedder(), config())
        .await
        .unwrap();
    assert_eq!(engine.len(), 4);
    let reopened = answers(&engine).await;
    assert!(
        live.iter().any(|a| a.contains("p1 Workshop move")),
        "{live:?}"
    );
    assert!(live.iter().all(|a| !a.contains("r3")), "{live:?}");
    assert_eq!(reopened, live);
    drop(engine);
    assert_ne!(
        std::fs::read(image.path().join("catalog.snap")).unwrap(),
        saved,
        "closing wrote a snapshot of the state it opened at"
    );

    // A damaged snapshot costs only speed: the catalog comes from the store.
    let mut bytes = std::fs::read(image.path().join("catalog.snap")).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x10;
    std::fs::write(image.path().join("catalog.snap"), &bytes).unwrap();
    let engine = SearchEngine::open_with(image.path(), embedder(), config())
        .await
        .unwrap();
    assert_eq!(answers(&engine).await, live);
    assert!(engine.repairs().is_empty(), "{:?}", engine.repairs());
}

/// Every hit of a few semantic and hybrid searches over the sample knowledge base.
async fn vector_answers(engine: &SearchEngine) -> Vec<String> {
    let mut requests = Vec::new();
    for q in [
        "how do I keep my bread starter alive",
        "database migration plan",
        "weekly review habits",
        "travel packing list",
    ] {
        for mode in [SearchMode::Semantic, SearchMode::Hybrid] {
            let req = SearchRequest::new(q).unwrap().mode(mode);
            requests.push((format!("{q} {mode:?}"), req));
        }
    }
    hits(engine, requests).await
}

#[tokio::test]
async fn positioned_vector_reads_answer_exactly_as_mapped_ones_and_keep_later_writes() {
    use navigator_search::{EngineConfig, VectorReads};
    let dir = tempfile::tempdir().unwrap();
    load_and_close(dir.path(), &common::kb_items()).await;
    let with = |reads| EngineConfig {
        vector_reads: reads,
        ..config()
    };
    let mapped = {
        let engine = SearchEngine::open_with(dir.path(), embedder(), with(VectorReads::Mapped))
            .await
            .unwrap();
        vector_answers(&engine).await
    };
    assert!(mapped.len() > 20, "{mapped:?}");
    let engine = SearchEngine::open_with(dir.path(), embedder(), with(VectorReads::Positioned))
        .await
        .unwrap();
    assert_eq!(vector_answers(&engine).await, mapped);
    // A write after opening, saved over the file being read; reopened, both are there.
    engine
        .upsert(&[item(
            "new1",
            "Sourdough rescue",
            "Revive a neglected bread starter with fresh flour and warm water.",
        )])
        .await
        .unwrap();
    engine.flush().unwrap();
    let rescue = "revive a neglected bread starter";
    assert_eq!(top(&engine, rescue, SearchMode::Semantic).await[0], "new1");
    drop(engine);
    let engine = SearchEngine::open_with(dir.path(), embedder(), with(VectorReads::Positioned))
        .await
        .unwrap();
    assert_eq!(engine.len(), common::kb_items().len() + 1);
    assert_eq!(top(&engine, rescue, SearchMode::Semantic).await[0], "new1");
}
