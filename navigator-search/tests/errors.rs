//! Errors a caller can match: each failure has an [`ErrorKind`], names its input (path,
//! field, backend) and keeps its cause in the `source()` chain, also after crossing into
//! `navigator_core::Error` (what every `SearchService` method returns).

use async_trait::async_trait;
use navigator_core::{
    Embedder, ErrorKind, Item, ItemType, SearchMode, SearchRequest, SearchService,
};
use navigator_search::{EngineConfig, Error, SearchEngine};
use std::error::Error as _;
use std::sync::Arc;

/// Four dimensions from letter counts: deterministic, no model needed.
struct Letters;

#[async_trait]
impl Embedder for Letters {
    fn model_id(&self) -> &str {
        "letters"
    }
    fn dimensions(&self) -> usize {
        4
    }
    async fn embed(&self, texts: &[&str]) -> navigator_core::Result<Vec<Vec<f32>>> {
        Ok(texts
            .iter()
            .map(|t| {
                let mut v = vec![1.0f32; 4];
                for b in t.bytes() {
                    v[(b % 4) as usize] += 1.0;
                }
                navigator_core::l2_normalize(&mut v);
                v
            })
            .collect())
    }
}

async fn open(dir: &std::path::Path) -> Result<SearchEngine, Error> {
    SearchEngine::open_with(dir, Arc::new(Letters), EngineConfig::default()).await
}

/// Every error in `e`'s `source()` chain, `e` first.
fn chain<'a>(
    e: &'a (dyn std::error::Error + 'static),
) -> Vec<&'a (dyn std::error::Error + 'static)> {
    let mut out = Vec::new();
    let mut next = Some(e);
    while let Some(e) = next {
        out.push(e);
        next = e.source();
    }
    out
}

#[tokio::test]
async fn a_corrupt_store_is_a_corrupt_index_naming_its_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store.redb");
    std::fs::write(&path, vec![0xA5u8; 64 * 1024]).unwrap();
    let err = open(dir.path()).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::CorruptIndex, "{err:?}");
    let Error::Storage { path: named, .. } = &err else {
        panic!("expected a store error: {err:?}")
    };
    assert_eq!(named, &path);
    assert!(err.to_string().contains("store.redb"), "{err}");
    // redb's own error is kept underneath.
    assert!(chain(&err).len() >= 2, "{err:?}");
    // Across the boundary into navigator-core: same kind, the original error as the source.
    let core: navigator_core::Error = err.into();
    assert_eq!(core.kind(), ErrorKind::CorruptIndex);
    let inner = core.source().unwrap().downcast_ref::<Error>().unwrap();
    assert!(matches!(inner, Error::Storage { .. }));
}

#[tokio::test]
async fn an_unreadable_keyword_index_is_an_io_error_naming_its_directory() {
    let dir = tempfile::tempdir().unwrap();
    drop(open(dir.path()).await.unwrap());
    // A file where the keyword index directory belongs: it can neither be opened nor
    // replaced by a fresh index.
    let keyword = dir.path().join("keyword");
    std::fs::remove_dir_all(&keyword).unwrap();
    std::fs::write(&keyword, b"not a directory").unwrap();
    let err = open(dir.path()).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Io, "{err:?}");
    let Error::Index { index, path, .. } = &err else {
        panic!("expected an index error: {err:?}")
    };
    assert_eq!((*index, path), ("keyword", &keyword));
    let io = chain(&err)
        .into_iter()
        .find_map(|e| e.downcast_ref::<std::io::Error>())
        .expect("the OS error is in the chain");
    assert_ne!(io.kind(), std::io::ErrorKind::Other);
}

#[tokio::test]
async fn a_corrupt_keyword_index_is_rebuilt_from_the_store() {
    let dir = tempfile::tempdir().unwrap();
    {
        let engine = open(dir.path()).await.unwrap();
        let now = chrono::Utc::now();
        let item = Item::new("t1", ItemType::Task, "Renew the passport", now).unwrap();
        engine.upsert(&[item]).await.unwrap();
    }
    std::fs::write(dir.path().join("keyword/meta.json"), b"{ garbage").unwrap();
    let engine = open(dir.path()).await.unwrap();
    let req = SearchRequest::new("passport")
        .unwrap()
        .mode(SearchMode::Keyword);
    assert_eq!(engine.search(&req).await.unwrap().results[0].item_id, "t1");
}

#[tokio::test]
async fn bad_requests_not_found_and_model_mismatch_have_their_kinds() {
    let dir = tempfile::tempdir().unwrap();
    let engine = open(dir.path()).await.unwrap();

    let mut req = SearchRequest::new("passport").unwrap();
    req.limit = 0;
    let err = engine.search(&req).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::BadRequest);
    assert_eq!(err.field(), Some("limit"));

    let err = navigator_core::from_json::<SearchRequest>(r#"{"query": "x", "mode": "fuzzy"}"#)
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::BadRequest);

    let err = engine.record_access("no_such_item").await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotFound);
    assert!(err.to_string().contains("no_such_item"));

    let req = SearchRequest::new("passport").unwrap();
    let err = engine
        .search_with_vector(&req, Some(&[0.5; 3]))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ModelMismatch, "{err:?}");
    let core: navigator_core::Error = err.into();
    assert_eq!(core.kind(), ErrorKind::ModelMismatch);
    assert!(core.to_string().contains("letters"), "{core}");
}

#[cfg(feature = "postgres")]
#[tokio::test]
async fn postgres_on_a_closed_port_is_unavailable_with_the_cause() {
    use navigator_search::pg::{PgConfig, PgStore};
    // Port 1 on loopback: nothing listens there, the connection is refused at once.
    let mut config = PgConfig::new("postgres://navigator:pw@127.0.0.1:1/navigator");
    config.connect_timeout = std::time::Duration::from_secs(2);
    config.wait_timeout = std::time::Duration::from_secs(2);
    let err = PgStore::connect(config).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unavailable, "{err:?}");
    assert!(
        matches!(
            err,
            Error::Unavailable {
                backend: "postgres",
                ..
            }
        ),
        "{err:?}"
    );
    let core: navigator_core::Error = err.into();
    assert_eq!(core.kind(), ErrorKind::Unavailable);
    let io = chain(&core)
        .into_iter()
        .find_map(|e| e.downcast_ref::<std::io::Error>())
        .expect("the refused connection is in the chain");
    assert_eq!(io.kind(), std::io::ErrorKind::ConnectionRefused);
}

/// The engine's bookkeeping beside another store is derived from that store: a damaged one is
/// rebuilt (and reported), not refused.
#[tokio::test]
async fn a_damaged_bookkeeping_file_beside_another_store_is_rebuilt_from_it() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(navigator_core::MemoryStore::new());
    let reopen = || {
        SearchEngine::with_store(
            dir.path(),
            store.clone(),
            Arc::new(Letters),
            EngineConfig::default(),
        )
    };
    {
        let engine = reopen().await.unwrap();
        let now = chrono::Utc::now();
        let items: Vec<Item> = (0..40)
            .map(|i| {
                Item::new(format!("t{i}"), ItemType::Task, format!("Errand {i}"), now).unwrap()
            })
            .collect();
        engine.upsert(&items).await.unwrap();
        assert!(engine.repairs().is_empty());
    }
    let bookkeeping = dir.path().join("index.redb");
    let bytes = std::fs::read(&bookkeeping).unwrap();
    std::fs::write(&bookkeeping, &bytes[..bytes.len() / 2]).unwrap();
    let engine = reopen().await.unwrap();
    assert_eq!(engine.len(), 40);
    let repairs = engine.repairs();
    assert!(
        repairs
            .iter()
            .any(|r| r.index == "bookkeeping" && r.path == bookkeeping),
        "{repairs:?}"
    );
    let page = engine
        .search(
            &SearchRequest::new("Errand 7")
                .unwrap()
                .mode(SearchMode::Keyword),
        )
        .await
        .unwrap();
    assert!(page.results.iter().any(|h| h.item_id == "t7"));
}
