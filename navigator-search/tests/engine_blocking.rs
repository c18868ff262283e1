//! The engine's async methods keep the executor free: on a `current_thread` runtime (one
//! thread for every task), another task makes progress while the engine opens, indexes and
//! searches, because the blocking tantivy, usearch and redb work runs on the blocking pool.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use navigator_core::{Embedder, Item, ItemType, SearchMode, SearchRequest, SearchService};
use navigator_search::{Clock, EngineConfig, SearchEngine};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// Hashes words into 16 buckets: deterministic, instant, and never yields to the executor
/// (so every yield in these tests comes from the engine).
struct WordBuckets;

#[async_trait]
impl Embedder for WordBuckets {
    fn model_id(&self) -> &str {
        "word-buckets"
    }
    fn dimensions(&self) -> usize {
        16
    }
    async fn embed(&self, texts: &[&str]) -> navigator_core::Result<Vec<Vec<f32>>> {
        Ok(texts
            .iter()
            .map(|t| {
                let mut v = vec![0.1f32; 16];
                for w in t.split_whitespace() {
                    let h = w
                        .bytes()
                        .fold(7u64, |h, b| h.wrapping_mul(31) + u64::from(b));
                    v[(h % 16) as usize] += 1.0;
                }
                navigator_core::l2_normalize(&mut v);
                v
            })
            .collect())
    }
}

/// A clock that, once armed, blocks the thread that asks for the time until another task
/// opens the gate. The engine reads the clock inside a search: if that ran on the executor
/// thread of a `current_thread` runtime, the task that opens the gate could never run.
#[derive(Debug, Default)]
struct GateClock {
    armed: AtomicBool,
    gate: Mutex<bool>,
    opened: Condvar,
    /// Whether a wait gave up (the guard that keeps a broken engine from hanging the test).
    gave_up: AtomicBool,
}

impl GateClock {
    fn open(&self) {
        *self.gate.lock().unwrap() = true;
        self.opened.notify_all();
    }
}

impl Clock for GateClock {
    fn now(&self) -> DateTime<Utc> {
        if self.armed.load(Ordering::SeqCst) {
            let gate = self.gate.lock().unwrap();
            let (gate, timeout) = self
                .opened
                .wait_timeout_while(gate, Duration::from_secs(30), |open| !*open)
                .unwrap();
            if timeout.timed_out() && !*gate {
                self.gave_up.store(true, Ordering::SeqCst);
            }
        }
        DateTime::parse_from_rfc3339("2026-11-21T12:00:00Z")
            .unwrap()
            .to_utc()
    }
}

fn items(n: usize) -> Vec<Item> {
    let now = Utc::now();
    (0..n)
        .map(|i| {
            let mut item = Item::new(
                format!("t{i}"),
                ItemType::Task,
                format!("Task {i} about topic {}", i % 37),
                now,
            )
            .unwrap();
            item.body = format!("Body of task {i}: notes on subject {} and more", i % 11);
            item
        })
        .collect()
}

/// One thread for every task: a blocking call on it stops them all.
fn current_thread() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn a_search_does_not_block_the_executor() {
    current_thread().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let clock = Arc::new(GateClock::default());
        let config = EngineConfig {
            clock: clock.clone(),
            ..EngineConfig::default()
        };
        let engine = SearchEngine::open_with(dir.path(), Arc::new(WordBuckets), config)
            .await
            .unwrap();
        engine.upsert(&items(50)).await.unwrap();

        clock.armed.store(true, Ordering::SeqCst);
        let opener = {
            let clock = clock.clone();
            tokio::spawn(async move { clock.open() })
        };
        let req = SearchRequest::new("topic 5")
            .unwrap()
            .mode(SearchMode::Hybrid);
        let page = engine.search(&req).await.unwrap();
        opener.await.unwrap();
        assert!(
            !clock.gave_up.load(Ordering::SeqCst),
            "the search held the executor thread: the gate-opening task never ran"
        );
        assert!(!page.results.is_empty());
    });
}

#[test]
fn indexing_a_large_batch_lets_other_tasks_run() {
    current_thread().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let engine = SearchEngine::open(dir.path(), Arc::new(WordBuckets))
            .await
            .unwrap();
        // A task that needs the executor 100 times to finish its count.
        let counted = Arc::new(AtomicUsize::new(0));
        let counter = {
            let counted = counted.clone();
            tokio::spawn(async move {
                for _ in 0..100 {
                    counted.fetch_add(1, Ordering::SeqCst);
                    tokio::task::yield_now().await;
                }
            })
        };
        let batch = items(3_000);
        engine.bulk_load(&batch, |_| {}).await.unwrap();
        // Read before this task yields again: whatever the counter did, it did while the
        // engine was indexing.
        let during = counted.load(Ordering::SeqCst);
        assert_eq!(
            during, 100,
            "the counter could not run while the batch was indexed"
        );
        assert!(counter.is_finished());
        assert_eq!(engine.len(), 3_000);

        // Reopening (store, indexes, repair) yields too.
        drop(engine);
        let before = counted.load(Ordering::SeqCst);
        let ticks = Arc::new(AtomicUsize::new(0));
        let ticker = {
            let ticks = ticks.clone();
            tokio::spawn(async move {
                loop {
                    ticks.fetch_add(1, Ordering::SeqCst);
                    tokio::task::yield_now().await;
                }
            })
        };
        let engine = SearchEngine::open(dir.path(), Arc::new(WordBuckets))
            .await
            .unwrap();
        let during_open = ticks.load(Ordering::SeqCst);
        ticker.abort();
        assert!(during_open > 0, "opening the engine held the executor");
        assert_eq!((engine.len(), before), (3_000, 100));
    });
}
