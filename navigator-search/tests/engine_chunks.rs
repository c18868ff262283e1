//! Long items through the real engine and the real MiniLM model: chunked at headings, every
//! chunk embedded, found by a passage deep inside, snippets from the best chunk, one result per
//! note, and only changed chunks embedded again.

mod common;

use async_trait::async_trait;
use common::{config, embedder, now};
use navigator_core::{Embedder, Item, ItemType, SearchMode, SearchRequest, SearchService};
use navigator_search::SearchEngine;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// The real model, counting the texts it is asked to embed.
struct Counting {
    inner: Arc<dyn Embedder>,
    texts: AtomicUsize,
}

#[async_trait]
impl Embedder for Counting {
    fn model_id(&self) -> &str {
        self.inner.model_id()
    }
    fn dimensions(&self) -> usize {
        self.inner.dimensions()
    }
    fn fingerprint(&self) -> String {
        self.inner.fingerprint()
    }
    fn max_input_tokens(&self) -> Option<usize> {
        self.inner.max_input_tokens()
    }
    fn count_tokens(&self, text: &str) -> usize {
        self.inner.count_tokens(text)
    }
    async fn embed(&self, texts: &[&str]) -> navigator_core::Result<Vec<Vec<f32>>> {
        self.texts.fetch_add(texts.len(), Ordering::SeqCst);
        self.inner.embed(texts).await
    }
}

/// Filler paragraphs about gardening, each a different sentence so chunks differ.
fn filler(topic: &str, n: usize) -> String {
    (0..n)
        .map(|i| {
            format!(
                "Paragraph {i} on {topic}: the tomato seedlings in bed {i} were watered at dawn, \
                 mulched with straw against the summer heat, staked when they reached knee \
                 height and pruned of their lower leaves to keep blight away from the stems."
            )
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// A long note whose only mention of bread baking is a section near its end.
fn long_note(id: &str) -> Item {
    let body = format!(
        "## Spring planting\n\n{}\n\n## Summer care\n\n{}\n\n## Sourdough starter\n\n\
         Feed the rye sourdough starter twice a day with equal weights of flour and water; \
         it is ready to bake bread when it doubles within six hours and smells tangy.\n\n\
         ## Autumn harvest\n\n{}",
        filler("planting", 6),
        filler("care", 6),
        filler("harvest", 4),
    );
    Item::new(id, ItemType::Resource, "Garden journal", now())
        .unwrap()
        .with_body(body)
}

async fn engine_with(embedder: Arc<dyn Embedder>) -> (SearchEngine, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let engine = SearchEngine::open_with(dir.path(), embedder, config())
        .await
        .unwrap();
    (engine, dir)
}

fn short_note(id: &str, title: &str, body: &str) -> Item {
    Item::new(id, ItemType::Resource, title, now())
        .unwrap()
        .with_body(body)
}

#[tokio::test]
async fn a_passage_deep_in_a_long_note_is_found_by_meaning_with_its_snippet() {
    let (engine, _dir) = engine_with(embedder()).await;
    let note = long_note("garden");
    engine
        .upsert(&[
            note.clone(),
            short_note(
                "tax",
                "Tax return",
                "Collect the receipts for the tax return.",
            ),
            short_note(
                "car",
                "Car service",
                "Book the car in for its annual service.",
            ),
            // Closer to the query than a note about tomatoes, further than the sourdough
            // section: it wins unless that section is embedded on its own.
            short_note(
                "shopping",
                "Shopping list",
                "Buy flour, yeast and butter at the bakery aisle.",
            ),
        ])
        .await
        .unwrap();
    let chunks = engine.chunk_count().unwrap();
    assert!(chunks > 4, "the long note is chunked: {chunks} chunks");
    let stored = engine.stored_vectors("garden").unwrap().unwrap();
    assert!(stored.chunks.len() > 2);
    assert!(
        stored.chunks.windows(2).all(|w| w[0].start <= w[1].start),
        "chunks are in body order"
    );

    let request = SearchRequest::new("how do I know my bread leaven is ready")
        .unwrap()
        .mode(SearchMode::Semantic);
    let page = engine.search(&request).await.unwrap();
    assert_eq!(page.results[0].item_id, "garden", "{:?}", page.results);
    let ids: Vec<&str> = page.results.iter().map(|r| r.item_id.as_str()).collect();
    assert_eq!(
        ids.iter().filter(|id| **id == "garden").count(),
        1,
        "one result per note: {ids:?}"
    );
    let snippet = page.results[0].snippet.clone().unwrap_or_default();
    assert!(
        snippet.contains("starter") || snippet.contains("bake"),
        "the snippet comes from the sourdough section: {snippet}"
    );
}

#[tokio::test]
async fn editing_one_section_embeds_only_the_changed_chunks() {
    let counting = Arc::new(Counting {
        inner: embedder(),
        texts: AtomicUsize::new(0),
    });
    let (engine, _dir) = engine_with(counting.clone()).await;
    let note = long_note("garden");
    engine.upsert(std::slice::from_ref(&note)).await.unwrap();
    let first = counting.texts.swap(0, Ordering::SeqCst);
    let chunks = engine.chunk_count().unwrap();
    assert!(chunks > 4, "the long note is chunked: {chunks} chunks");
    assert_eq!(first, chunks, "every chunk embedded once");

    // Unchanged: nothing to embed.
    engine.upsert(std::slice::from_ref(&note)).await.unwrap();
    assert_eq!(counting.texts.swap(0, Ordering::SeqCst), 0);

    // One section edited: only its chunk(s).
    let mut edited = note.clone();
    edited.body = edited
        .body
        .replace("smells tangy", "smells pleasantly sour and tangy");
    engine.upsert(std::slice::from_ref(&edited)).await.unwrap();
    let again = counting.texts.swap(0, Ordering::SeqCst);
    assert!(
        (1..=2).contains(&again),
        "{again} of {chunks} chunks embedded again"
    );
    let page = engine
        .search(
            &SearchRequest::new("pleasantly sour")
                .unwrap()
                .mode(SearchMode::Keyword),
        )
        .await
        .unwrap();
    assert_eq!(page.results[0].item_id, "garden");
}

/// A phrase only a long note holds, deep inside it: found first, and scored as the passage
/// that holds it would be on its own. Scored as one 2,700-word document, BM25's length
/// normalisation left it a weak match (relevance 0.2–0.3) beside short notes.
#[tokio::test]
async fn a_phrase_deep_in_a_long_note_is_a_strong_keyword_match() {
    let (engine, _dir) = engine_with(embedder()).await;
    let body = format!(
        "{}\n\nThe secret passphrase for the lighthouse keeper is periwinkle marmalade.\n\n{}",
        filler("planting", 30),
        filler("harvest", 30)
    );
    let long = Item::new("journal", ItemType::Resource, "Garden journal", now())
        .unwrap()
        .with_body(body);
    engine
        .upsert(&[
            long,
            short_note("jam", "Jam", "Orange marmalade on toast."),
            short_note(
                "car",
                "Car service",
                "Book the car in for its annual service.",
            ),
        ])
        .await
        .unwrap();
    let page = engine
        .search(
            &SearchRequest::new("periwinkle marmalade")
                .unwrap()
                .mode(SearchMode::Keyword),
        )
        .await
        .unwrap();
    assert_eq!(page.results[0].item_id, "journal", "{:?}", page.results);
    assert!(page.results[0].relevance_score >= 0.5, "{:?}", page.results);
    // One result per note, counted once, though its passages are documents of their own.
    assert_eq!(page.total_results, 2, "{page:?}");
    let ids: Vec<&str> = page.results.iter().map(|r| r.item_id.as_str()).collect();
    assert_eq!(ids, ["journal", "jam"]);
    let snippet = page.results[0].snippet.clone().unwrap_or_default();
    assert!(snippet.contains("periwinkle"), "{snippet}");
}

#[tokio::test]
async fn chunks_survive_reopening_and_a_renamed_note_keeps_its_vectors() {
    let dir = tempfile::tempdir().unwrap();
    let note = long_note("garden");
    let chunks = {
        let engine = SearchEngine::open_with(dir.path(), embedder(), config())
            .await
            .unwrap();
        engine.upsert(std::slice::from_ref(&note)).await.unwrap();
        engine.chunk_count().unwrap()
    };
    let counting = Arc::new(Counting {
        inner: embedder(),
        texts: AtomicUsize::new(0),
    });
    let engine = SearchEngine::open_with(dir.path(), counting.clone(), config())
        .await
        .unwrap();
    assert_eq!(engine.chunk_count().unwrap(), chunks);
    assert_eq!(
        counting.texts.load(Ordering::SeqCst),
        0,
        "nothing re-embedded"
    );

    let vectors = engine.stored_vectors("garden").unwrap().unwrap();
    let mut moved = note.clone();
    moved.id = "garden-2026".into();
    engine
        .upsert_embedded(&[moved], std::slice::from_ref(&vectors))
        .await
        .unwrap();
    engine.delete("garden").await.unwrap();
    assert_eq!(counting.texts.load(Ordering::SeqCst), 0);
    assert_eq!(engine.chunk_count().unwrap(), chunks);
    let page = engine
        .search(
            &SearchRequest::new("rye sourdough starter")
                .unwrap()
                .mode(SearchMode::Semantic),
        )
        .await
        .unwrap();
    assert_eq!(page.results[0].item_id, "garden-2026");
}

#[tokio::test]
async fn a_vector_set_without_vectors_is_a_typed_error() {
    let (engine, _dir) = engine_with(embedder()).await;
    let err = engine
        .upsert_embedded(
            &[short_note("a", "A", "text")],
            &[navigator_search::ItemVectors::default()],
        )
        .await
        .unwrap_err();
    assert!(err.to_string().contains("at least one vector"), "{err}");
}

/// The real model under another name: what an index built with one model sees when it is
/// opened with another of the same width.
struct Renamed(Counting);

#[async_trait]
impl Embedder for Renamed {
    fn model_id(&self) -> &str {
        "another-model"
    }
    fn dimensions(&self) -> usize {
        self.0.dimensions()
    }
    fn count_tokens(&self, text: &str) -> usize {
        self.0.count_tokens(text)
    }
    fn max_input_tokens(&self) -> Option<usize> {
        self.0.max_input_tokens()
    }
    async fn embed(&self, texts: &[&str]) -> navigator_core::Result<Vec<Vec<f32>>> {
        self.0.embed(texts).await
    }
}

#[tokio::test]
async fn another_model_is_a_typed_error_naming_both_until_reindexed() {
    let dir = tempfile::tempdir().unwrap();
    let minilm = embedder();
    let chunks = {
        let engine = SearchEngine::open_with(dir.path(), minilm.clone(), config())
            .await
            .unwrap();
        engine.upsert(&[long_note("garden")]).await.unwrap();
        engine.chunk_count().unwrap()
    };
    let other = Arc::new(Renamed(Counting {
        inner: minilm.clone(),
        texts: AtomicUsize::new(0),
    }));
    let Err(err) = SearchEngine::open_with(dir.path(), other.clone(), config()).await else {
        panic!("another model is refused");
    };
    assert_eq!(err.kind(), navigator_core::ErrorKind::ModelMismatch);
    let message = err.to_string();
    assert!(
        message.contains(&minilm.fingerprint()) && message.contains("another-model (384-d)"),
        "{message}"
    );

    let engine = SearchEngine::reindex(dir.path(), other.clone(), config())
        .await
        .unwrap();
    assert_eq!(engine.chunk_count().unwrap(), chunks);
    assert_eq!(
        other.0.texts.load(Ordering::SeqCst),
        chunks,
        "every chunk embedded again from the stored text"
    );
    drop(engine);
    SearchEngine::open_with(dir.path(), other.clone(), config())
        .await
        .unwrap();
    let Err(err) = SearchEngine::open_with(dir.path(), minilm, config()).await else {
        panic!("the index now belongs to the other model");
    };
    assert_eq!(err.kind(), navigator_core::ErrorKind::ModelMismatch);
}
