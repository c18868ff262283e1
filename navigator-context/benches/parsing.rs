//! Linear-time parsing: the token counter, the SSE parser, the code and document outline
//! parsers over inputs from 1 KB to 4 MB. Criterion reports throughput in bytes per second; a
//! flat figure across sizes is linear time (the token counter on one 200 KB line of dashes was
//! quadratic, and so were a document outline's line numbers).
//!
//! `cargo bench -p navigator-context --bench parsing`; figures in `docs/benchmarks.md`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use navigator_context::{document_outline, outline, Lang, Tokenizer};
use navigator_core::SseParser;

const SIZES: [usize; 5] = [1 << 10, 16 << 10, 256 << 10, 1 << 20, 4 << 20];

/// `unit` repeated to `size` bytes (cut at a character boundary).
fn repeat_to(unit: &str, size: usize) -> String {
    let mut s = unit.repeat(size / unit.len() + 1);
    let mut end = size;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s.truncate(end);
    s
}

fn tokens(c: &mut Criterion) {
    let mut group = c.benchmark_group("tokens");
    group.sample_size(10);
    let prose = include_str!("../src/tokens.rs");
    for size in SIZES {
        group.throughput(Throughput::Bytes(size as u64));
        for (name, text) in [
            ("dashes", repeat_to("-", size)),
            ("code", repeat_to(prose, size)),
        ] {
            group.bench_with_input(BenchmarkId::new(name, size), &text, |b, t| {
                b.iter(|| Tokenizer::Cl100kBase.count(t))
            });
        }
    }
    group.finish();
}

fn sse(c: &mut Criterion) {
    let mut group = c.benchmark_group("sse");
    group.sample_size(10);
    let event = "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"delta\":{\"text\":\"hello \"}}\n\n";
    for size in SIZES {
        group.throughput(Throughput::Bytes(size as u64));
        let many = repeat_to(event, size);
        let one = format!("data: {}\n\n", "x".repeat(size));
        for (name, stream, piece) in [
            ("events_64b_chunks", &many, 64),
            ("one_event_16b_chunks", &one, 16),
        ] {
            group.bench_with_input(BenchmarkId::new(name, size), stream, |b, s| {
                b.iter(|| {
                    let mut parser = SseParser::default();
                    let mut n = 0;
                    for chunk in s.as_bytes().chunks(piece) {
                        n += parser.push(chunk).unwrap().len();
                    }
                    n + parser.finish().into_iter().count()
                })
            });
        }
    }
    group.finish();
}

fn outlines(c: &mut Criterion) {
    let mut group = c.benchmark_group("outline");
    group.sample_size(10);
    let units = [
        (
            Lang::Rust,
            "/// Adds one, saturating.\npub fn add(a: i32) -> i32 {\n    a.saturating_add(1)\n}\n\nstruct Point { x: f64, y: f64 }\n\n",
        ),
        (
            Lang::Ruby,
            "# Adds one.\nclass Counter < Base\n  def add(a)\n    a + 1\n  end\nend\n\n",
        ),
        (
            Lang::Php,
            "/** Adds one. */\nclass Counter extends Base\n{\n    public function add(int $a): int { return $a + 1; }\n}\n\n",
        ),
        (
            Lang::Kotlin,
            "/** Adds one. */\nclass Counter(val base: Int) : Base() {\n    fun add(a: Int): Int {\n        return a + 1\n    }\n}\n\n",
        ),
        (
            Lang::Swift,
            "/// Adds one.\nfinal class Counter: Base {\n    func add(_ a: Int) -> Int {\n        return a + 1\n    }\n}\n\n",
        ),
    ];
    for (lang, unit) in units {
        for size in SIZES {
            let mut source = unit.repeat((size / unit.len()).max(1));
            if lang == Lang::Php {
                source.insert_str(0, "<?php\n");
            }
            group.throughput(Throughput::Bytes(source.len() as u64));
            group.bench_with_input(BenchmarkId::new(lang.name(), size), &source, |b, s| {
                b.iter(|| outline(lang, s).map(|o| o.symbols.len()))
            });
        }
    }
    group.finish();
}

/// Document outlines: a changelog of many headings and a TOML file of many tables (line
/// numbers were found by a scan per heading, 3 min 50 s for a 1 MB changelog in a debug build).
fn documents(c: &mut Criterion) {
    let mut group = c.benchmark_group("document_outline");
    group.sample_size(10);
    for size in SIZES {
        let markdown = format!(
            "# Changes\n\n{}",
            repeat_to("## 1.0\n\n- fixed a thing\n\n", size)
        );
        let toml = repeat_to("[[bin]]\nname = \"tool\"\npath = \"src/main.rs\"\n\n", size);
        group.throughput(Throughput::Bytes(size as u64));
        for (name, path, text) in [
            ("markdown", "CHANGES.md", &markdown),
            ("toml", "Cargo.toml", &toml),
        ] {
            group.bench_with_input(BenchmarkId::new(name, size), text, |b, t| {
                b.iter(|| document_outline(path, t).map(|o| o.symbols.len()))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, tokens, sse, outlines, documents);
criterion_main!(benches);
