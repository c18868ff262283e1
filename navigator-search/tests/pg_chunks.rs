//! Chunked items on PostgreSQL against the embedded engine: a long note written through
//! `PgSearchService::upsert` is cut by the same chunker into the same chunks, a query about a
//! late section finds it with the engine's rolled-up score and a snippet from that section,
//! chunk rows follow their item through rewrites, store writes and deletes, and
//! `sync_from_engine` copies every chunk. A deterministic word-hash embedder keeps these
//! tests model-free; a small chunk window makes short texts long.
#![cfg(feature = "postgres")]

mod pg_common;

use chrono::{DateTime, Utc};
use navigator_core::{
    Embedder, Item, ItemStore, ItemType, SearchMode, SearchPage, SearchRequest, SearchResult,
};
use navigator_search::pg::{sync_from_engine, PgSearchService, PgStore};
use navigator_search::{ChunkRollup, EngineConfig, FixedClock, ItemVectors, SearchEngine};
use pg_common::WordHash;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

fn at(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().to_utc()
}

/// Chunks of at most 40 (estimated) tokens: each section below is one chunk.
fn config(rollup: ChunkRollup) -> EngineConfig {
    EngineConfig {
        clock: Arc::new(FixedClock(at("2026-11-21T12:00:00Z"))),
        min_similarity: 0.2,
        chunk_tokens: 40,
        chunk_overlap: 4,
        chunk_rollup: rollup,
        ..EngineConfig::default()
    }
}

const GARDEN: &str = "Tomatoes need rich soil, compost and steady watering through the summer.";
const KITCHEN: &str = "Pasta sauce simmers slowly with garlic, basil and olive oil for dinner.";
const TRAVEL: &str = "Trains across mountains, cheap hostels and museums fill the itinerary.";
const SKY: &str = "The telescope showed a faint nebula and distant galaxies above the observatory.";

/// A long note whose last section alone is about the night sky.
fn notes(sky: &str) -> Item {
    let body = format!(
        "# Garden\n\n{GARDEN}\n\n# Kitchen\n\n{KITCHEN}\n\n# Travel\n\n{TRAVEL}\n\n# Sky\n\n{sky}\n"
    );
    item("notes", "Field notes", &body)
}

fn item(id: &str, title: &str, body: &str) -> Item {
    let mut i = Item::new(id, ItemType::Resource, title, at("2026-01-01T00:00:00Z"))
        .unwrap()
        .with_body(body);
    i.updated_at = at("2026-11-01T00:00:00Z");
    i
}

fn corpus() -> Vec<Item> {
    vec![
        notes(SKY),
        item("budget", "Budget", "Quarterly budget numbers for finance."),
        item("recipes", "Recipes", "Soup, bread and salad for the week."),
    ]
}

fn find<'p>(page: &'p SearchPage, id: &str) -> &'p SearchResult {
    page.results
        .iter()
        .find(|r| r.item_id == id)
        .unwrap_or_else(|| panic!("{id} not in {page:?}"))
}

async fn pg_service(
    url: &str,
    tag: &str,
    embedder: Arc<dyn Embedder>,
    rollup: ChunkRollup,
) -> PgSearchService {
    let store = PgStore::connect(pg_common::config(url, tag, pg_common::DIMS))
        .await
        .unwrap();
    PgSearchService::new(store, embedder, config(rollup)).unwrap()
}

async fn engine(dir: &std::path::Path, rollup: ChunkRollup) -> SearchEngine {
    let engine = SearchEngine::open_with(dir, Arc::new(WordHash), config(rollup))
        .await
        .unwrap();
    engine.upsert(&corpus()).await.unwrap();
    engine
}

#[tokio::test]
async fn a_late_section_of_a_long_note_is_found_with_the_engines_score_and_snippet() {
    let Some(url) = pg_common::url() else {
        return;
    };
    let sky = "telescope nebula galaxies observatory";
    let query = WordHash.embed_query(sky).await.unwrap();
    for rollup in [
        ChunkRollup::Max,
        ChunkRollup::TopMean(2),
        ChunkRollup::MaxWithMean(0.5),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let engine = engine(dir.path(), rollup).await;
        let pg = pg_service(&url, "late", Arc::new(WordHash), rollup).await;
        pg.upsert(&corpus()).await.unwrap();

        // The same chunker cut the note into the same chunks on both sides.
        let stored = pg.store().stored_vectors("notes").await.unwrap().unwrap();
        assert_eq!(stored.chunks.len(), 4, "one chunk per section");
        assert_eq!(
            Some(&stored),
            engine.stored_vectors("notes").unwrap().as_ref()
        );
        assert_eq!(pg.store().count_chunks().await.unwrap(), 4 + 2);

        let r = SearchRequest::new(sky)
            .unwrap()
            .mode(SearchMode::Semantic)
            .limit(10);
        let a = engine.search_with_vector(&r, Some(&query)).unwrap();
        let b = pg.search_with_vector(&r, Some(&query)).await.unwrap();
        let (x, y) = (find(&a, "notes"), find(&b, "notes"));
        assert_eq!(b.results[0].item_id, "notes", "{rollup:?}: {b:?}");
        assert!(
            (x.relevance_score - y.relevance_score).abs() < 1e-4,
            "{rollup:?}: engine {} vs PostgreSQL {}",
            x.relevance_score,
            y.relevance_score
        );
        let ids = |p: &SearchPage| {
            p.results
                .iter()
                .map(|r| r.item_id.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(ids(&a), ids(&b), "{rollup:?}");
        // The snippet is the sky section's, as the engine's is.
        assert_eq!(y.snippet.as_deref(), Some(SKY), "{rollup:?}");
        assert_eq!(x.snippet, y.snippet, "{rollup:?}");

        // `nearest` rolls up the same way.
        let near = pg.nearest(&query, 1).await.unwrap();
        assert_eq!(near[0].0, "notes");
        let engine_near = engine.nearest(&query, 1).unwrap();
        assert!(
            (near[0].1 - engine_near[0].1).abs() < 1e-4,
            "{near:?} {engine_near:?}"
        );

        // Keyword and hybrid results take their snippet from the section with the words.
        for mode in [SearchMode::Keyword, SearchMode::Hybrid] {
            let r = SearchRequest::new("nebula galaxies").unwrap().mode(mode);
            let v = WordHash.embed_query("nebula galaxies").await.unwrap();
            let page = pg
                .search_with_vector(&r, mode.uses_embeddings().then_some(v.as_slice()))
                .await
                .unwrap();
            let hit = find(&page, "notes");
            assert_eq!(hit.snippet.as_deref(), Some(SKY), "{mode:?}");
            assert_eq!(hit.matched_field.as_deref(), Some("body"), "{mode:?}");
        }
        pg.store().drop_schema().await.unwrap();
    }
}

/// Counts the texts it embeds.
struct Counting(AtomicUsize);

#[async_trait::async_trait]
impl Embedder for Counting {
    fn model_id(&self) -> &str {
        "word-hash"
    }
    fn dimensions(&self) -> usize {
        pg_common::DIMS
    }
    async fn embed(&self, texts: &[&str]) -> navigator_core::Result<Vec<Vec<f32>>> {
        self.0.fetch_add(texts.len(), Ordering::SeqCst);
        WordHash.embed(texts).await
    }
}

#[tokio::test]
async fn chunks_are_replaced_with_their_item_and_deleted_with_it() {
    let Some(url) = pg_common::url() else {
        return;
    };
    let counting = Arc::new(Counting(AtomicUsize::new(0)));
    let pg = pg_service(&url, "replace", counting.clone(), ChunkRollup::Max).await;
    let embedded = || counting.0.swap(0, Ordering::SeqCst);
    let chunks_of = |id: &'static str| {
        let store = pg.store().clone();
        async move {
            store
                .stored_vectors(id)
                .await
                .unwrap()
                .map_or(0, |v| v.chunks.len())
        }
    };
    pg.upsert(&corpus()).await.unwrap();
    assert_eq!(embedded(), 6);
    assert_eq!(chunks_of("notes").await, 4);

    // The same text again: every chunk vector is reused, the rows are the same.
    pg.upsert(&corpus()).await.unwrap();
    assert_eq!(embedded(), 0, "unchanged chunks are not embedded again");
    assert_eq!(pg.store().count_chunks().await.unwrap(), 6);

    // One section edited: that chunk alone is embedded; the rows are replaced.
    let edited = notes("Clouds hid the moon all night, so the telescope stayed packed.");
    pg.upsert(std::slice::from_ref(&edited)).await.unwrap();
    assert_eq!(embedded(), 1);
    let stored = pg.store().stored_vectors("notes").await.unwrap().unwrap();
    assert_eq!(stored.chunks.len(), 4);
    assert!(stored
        .passage(&edited.body, 3)
        .starts_with("Clouds hid the moon"));

    // Shortened to one chunk: the other three rows go.
    pg.upsert(&[item("notes", "Field notes", "Short now.")])
        .await
        .unwrap();
    assert_eq!(chunks_of("notes").await, 1);
    assert_eq!(pg.store().count_chunks().await.unwrap(), 3);

    // A plain store write of other text drops the stale chunks; embed_missing chunks it again.
    pg.store().put_item(&notes(SKY)).await.unwrap();
    assert_eq!(chunks_of("notes").await, 0);
    assert_eq!(pg.embed_missing().await.unwrap(), 1);
    assert_eq!(chunks_of("notes").await, 4);
    // A plain store write of the same text (a status change) keeps them.
    pg.store()
        .put_item(&notes(SKY).with_status("read"))
        .await
        .unwrap();
    assert_eq!(chunks_of("notes").await, 4);

    // Deleting the item deletes its chunks.
    assert!(pg.store().delete_item("notes").await.unwrap());
    assert_eq!(chunks_of("notes").await, 0);
    assert_eq!(pg.store().count_chunks().await.unwrap(), 2);

    // Bad vectors are typed errors and write nothing.
    let one = [item("x", "X", "")];
    let err = pg
        .upsert_embedded(&one, &[ItemVectors::default()])
        .await
        .unwrap_err();
    assert!(err.to_string().contains("vectors"), "{err}");
    let err = pg
        .upsert_embedded(&one, &[ItemVectors::whole(vec![1.0; 3])])
        .await
        .unwrap_err();
    assert!(
        matches!(err, navigator_search::Error::Dimensions { got: 3, .. }),
        "{err}"
    );
    let err = pg.upsert_embedded(&one, &[]).await.unwrap_err();
    assert!(err.to_string().contains("vectors"), "{err}");
    assert_eq!(pg.store().get_item("x").await.unwrap(), None);
    pg.store().drop_schema().await.unwrap();
}

#[tokio::test]
async fn sync_copies_every_chunk_of_the_engine() {
    let Some(url) = pg_common::url() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path(), ChunkRollup::Max).await;
    let pg = pg_service(&url, "syncchunks", Arc::new(WordHash), ChunkRollup::Max).await;
    let report = sync_from_engine(&engine, &pg).await.unwrap();
    assert_eq!(
        (report.items, report.with_vectors, report.chunks),
        (3, 3, 6)
    );
    assert_eq!(pg.store().count_chunks().await.unwrap(), 6);
    for item in corpus() {
        assert_eq!(
            pg.store().stored_vectors(&item.id).await.unwrap(),
            engine.stored_vectors(&item.id).unwrap(),
            "{}",
            item.id
        );
    }
    // Idempotent: the same chunks again, none added.
    let again = sync_from_engine(&engine, &pg).await.unwrap();
    assert_eq!(again.chunks, 6);
    assert_eq!(pg.store().count_chunks().await.unwrap(), 6);
    assert_eq!(pg.embed_missing().await.unwrap(), 0, "vectors were copied");

    let sky = "telescope nebula galaxies observatory";
    let v = WordHash.embed_query(sky).await.unwrap();
    let r = SearchRequest::new(sky).unwrap().mode(SearchMode::Semantic);
    let a = engine.search_with_vector(&r, Some(&v)).unwrap();
    let b = pg.search_with_vector(&r, Some(&v)).await.unwrap();
    let (x, y) = (find(&a, "notes"), find(&b, "notes"));
    assert!((x.relevance_score - y.relevance_score).abs() < 1e-4);
    assert_eq!(x.snippet, y.snippet);
    pg.store().drop_schema().await.unwrap();
}
