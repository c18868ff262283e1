//! Repository map speed: satellite view and full render of a generated 10k-file repository
//! (cold and warm outline cache), Flight Plan regeneration, and the real crate sources of the
//! local cargo registry (`NAVIGATOR_BENCH_REGISTRY` overrides the directory).
//!
//! ```text
//! cargo bench --bench context
//! ```

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use navigator_context::{
    render, satellite, FlightPlan, Level, RepoMap, Rule, ScanOptions, Tokenizer,
};
use std::path::{Path, PathBuf};

const FILES: usize = 10_000;

/// Writes a deterministic repository of `FILES` source files in four languages.
fn generate(root: &Path) {
    for i in 0..FILES {
        let dir = root.join(format!("pkg{:02}/mod{:02}", i % 50, (i / 50) % 20));
        std::fs::create_dir_all(&dir).unwrap();
        let (ext, body) = match i % 4 {
            0 => ("rs", format!("//! Module {i}.\n\n/// Record {i}.\npub struct Record{i} {{ pub id: u64 }}\n\nimpl Record{i} {{\n    /// Loads it.\n    pub fn load(id: u64) -> Self {{ Self {{ id }} }}\n    /// Saves it.\n    pub fn save(&self) -> bool {{ self.id > {i} }}\n}}\n\npub fn helper_{i}(x: u64) -> u64 {{ x * 2 + {i} }}\n")),
            1 => ("py", format!("class Handler{i}:\n    \"\"\"Handles requests of kind {i}.\"\"\"\n    def handle(self, req):\n        return req\n\n    def close(self):\n        pass\n\ndef route_{i}(path):\n    return path\n")),
            2 => ("ts", format!("export interface Item{i} {{ id: number; name: string }}\nexport function make{i}(id: number): Item{i} {{ return {{ id, name: 'x' }}; }}\nexport class Store{i} {{ get(id: number) {{ return id; }} }}\n")),
            _ => ("go", format!("package p\n\n// Service{i} serves.\ntype Service{i} struct {{ n int }}\n\n// Run runs.\nfunc (s *Service{i}) Run() error {{ return nil }}\n\nfunc New{i}() *Service{i} {{ return &Service{i}{{}} }}\n")),
        };
        std::fs::write(dir.join(format!("file{i}.{ext}")), body).unwrap();
    }
}

fn options(root: &Path, cache: &Path) -> ScanOptions {
    ScanOptions {
        cache_dir: Some(cache.to_path_buf()),
        ..ScanOptions::for_root(root)
    }
}

fn satellite_text(root: &Path, cache: &Path) -> usize {
    let map = RepoMap::open_with(root, &options(root, cache)).unwrap();
    let plan = satellite(&map, "overview", 10_000, Tokenizer::default()).unwrap();
    render(&map, &plan).unwrap().tokens
}

fn bench_repo(c: &mut Criterion, name: &str, root: &Path) {
    let mut g = c.benchmark_group(name);
    g.sample_size(10);
    g.bench_function("satellite_cold", |b| {
        b.iter_batched(
            || tempfile::tempdir().unwrap(),
            |cache| satellite_text(root, cache.path()),
            BatchSize::PerIteration,
        )
    });
    let warm = tempfile::tempdir().unwrap();
    satellite_text(root, warm.path());
    g.bench_function("satellite_warm", |b| {
        b.iter(|| satellite_text(root, warm.path()))
    });
    let map = RepoMap::open_with(root, &options(root, warm.path())).unwrap();
    let mut full = FlightPlan::new("everything", usize::MAX / 2);
    full.rules = vec![Rule::new("**", Level::Full)];
    g.bench_function("full_render", |b| {
        b.iter(|| render(&map, &full).unwrap().tokens)
    });
    let plan = FlightPlan {
        rules: vec![
            Rule {
                path: "**".into(),
                level: Level::Path,
                collapse: true,
            },
            Rule::new("pkg01/", Level::Signatures),
            Rule::new("pkg02/mod03/", Level::Full),
        ],
        ..FlightPlan::new("regenerate", 10_000)
    };
    let yaml = plan.to_yaml(&["bench".into()]);
    g.bench_function("flight_plan_regeneration", |b| {
        b.iter(|| {
            render(&map, &FlightPlan::from_yaml(&yaml).unwrap())
                .unwrap()
                .tokens
        })
    });
    g.finish();
}

fn registry() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("NAVIGATOR_BENCH_REGISTRY") {
        return Some(PathBuf::from(p));
    }
    let home = std::env::var("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|_| std::env::var("HOME").map(|h| Path::new(&h).join(".cargo")))
        .ok()?;
    std::fs::read_dir(home.join("registry/src"))
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .find(|p| p.is_dir())
}

fn benches(c: &mut Criterion) {
    let generated = tempfile::tempdir().unwrap();
    generate(generated.path());
    bench_repo(c, "generated_10k", generated.path());
    if let Some(reg) = registry() {
        bench_repo(c, "cargo_registry", &reg);
    }
}

criterion_group!(context, benches);
criterion_main!(context);
