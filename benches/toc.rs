//! Index-free TOC search cost: `search_children` over one parent with 10,000 children (each
//! with five bullets and keywords, read from a `MemoryStore`), and a full `navigate`
//! drill-down over the bundled sample memory.
//!
//! Run: `cargo bench -p navigator-eval --bench toc`.

use chrono::{DateTime, Duration, TimeZone, Utc};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use navigator_core::{MemoryStore, Store, TocBullet, TocLevel, TocNode};
use navigator_search::toc::{navigate, search_children, NavigateOptions, TocBuilder};
use std::hint::black_box;

const CHILDREN: usize = 10_000;
const SAMPLE_MEMORY: &str = include_str!("../navigator-search/data/toc/sample_memory.json");

const TOPICS: [&str; 8] = [
    "JWT access tokens and refresh token rotation",
    "Postgres partition migration for the invoices table",
    "Stripe webhook idempotency keys",
    "Redis cache eviction tuning",
    "GitHub Actions deploy pipeline caching",
    "OpenTelemetry tracing sample rates",
    "backend hiring loop and take-home review",
    "TLS certificate renewal alerts",
];

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap()
}

/// A parent with `CHILDREN` segment children, five bullets each, topics cycling.
fn wide_store(rt: &tokio::runtime::Runtime) -> MemoryStore {
    let store = MemoryStore::new();
    let ids: Vec<String> = (0..CHILDREN).map(|i| format!("toc:segment:s{i}")).collect();
    rt.block_on(async {
        for (i, id) in ids.iter().enumerate() {
            let start = t0() + Duration::minutes(i as i64);
            let node = TocNode {
                node_id: id.clone(),
                level: TocLevel::Segment,
                title: format!("Session {i}: {}", TOPICS[i % 8]),
                start_time: start,
                end_time: start + Duration::minutes(1),
                bullets: (0..5)
                    .map(|b| TocBullet {
                        text: format!(
                            "Discussed {} (point {b} of session {i})",
                            TOPICS[(i + b) % 8]
                        ),
                        grip_ids: vec![format!("grip:{i}:{b}")],
                    })
                    .collect(),
                keywords: TOPICS[i % 8].split(' ').map(str::to_string).collect(),
                child_node_ids: Vec::new(),
                version: 0,
                created_at: t0(),
            };
            store.put_toc_node(node).await.unwrap();
        }
        let parent = TocNode {
            node_id: "toc:day:2026-01-01".into(),
            level: TocLevel::Day,
            title: "Thursday 1 January 2026".into(),
            start_time: t0(),
            end_time: t0() + Duration::days(1),
            bullets: Vec::new(),
            keywords: Vec::new(),
            child_node_ids: ids,
            version: 0,
            created_at: t0(),
        };
        store.put_toc_node(parent).await.unwrap();
    });
    store
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let store = wide_store(&rt);
    let mut group = c.benchmark_group("toc");
    group.throughput(Throughput::Elements(CHILDREN as u64));
    group.bench_function("search_children_10k", |b| {
        b.iter(|| {
            let r = rt.block_on(search_children(
                &store,
                "toc:day:2026-01-01",
                black_box("JWT refresh token rotation"),
                &[],
                10,
            ));
            black_box(r.unwrap())
        })
    });
    group.bench_function("toc_children_10k_load_only", |b| {
        b.iter(|| {
            black_box(
                rt.block_on(store.toc_children("toc:day:2026-01-01"))
                    .unwrap(),
            )
        })
    });

    let sample = MemoryStore::new();
    let now = Utc.with_ymd_and_hms(2026, 2, 2, 9, 0, 0).unwrap();
    rt.block_on(async {
        TocBuilder::from_json(SAMPLE_MEMORY)
            .unwrap()
            .build(now)
            .unwrap()
            .write_to(&sample)
            .await
            .unwrap();
    });
    group.throughput(Throughput::Elements(1));
    let options = NavigateOptions::default();
    for (name, query) in [
        (
            "navigate_sample_with_hint",
            "what did we decide about JWT last month",
        ),
        ("navigate_sample_no_hint", "what did we decide about JWT"),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| {
                black_box(
                    rt.block_on(navigate(&sample, black_box(query), now, &options))
                        .unwrap(),
                )
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
