//! Repository map speed: satellite view and full render of a generated 10k-file repository
//! (cold and warm outline cache), all outlines cold and warm, Flight Plan regeneration, and
//! the same over two real trees: the installed Python standard library (about 2,000 Python
//! files; `NAVIGATOR_BENCH_PYTHON` overrides the directory) and the crate sources of the local
//! cargo registry (`NAVIGATOR_BENCH_REGISTRY` overrides the directory). Set either variable to
//! a directory that does not exist to skip that tree.
//!
//! ```text
//! cargo bench -p navigator-eval --bench context -- --warm-up-time 1 --measurement-time 5
//! ```

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use navigator_context::{
    render, satellite, FlightPlan, Level, RepoMap, Rule, ScanOptions, Tokenizer,
};
use std::path::{Path, PathBuf};
use std::time::Instant;

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

/// `heavy`: the repository is large enough that a cold parse of every outline is timed once
/// rather than sampled.
fn bench_repo(c: &mut Criterion, name: &str, root: &Path, heavy: bool) {
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
    RepoMap::open_with(root, &options(root, warm.path()))
        .unwrap()
        .outline_all();
    g.bench_function("satellite_warm", |b| {
        b.iter(|| satellite_text(root, warm.path()))
    });
    // What the first exploration of a repository pays: every outline, parsed or cached.
    if heavy {
        let cache = tempfile::tempdir().unwrap();
        let t0 = Instant::now();
        RepoMap::open_with(root, &options(root, cache.path()))
            .unwrap()
            .outline_all();
        eprintln!(
            "{name}/outlines_cold once: {:.2} s",
            t0.elapsed().as_secs_f64()
        );
    } else {
        g.bench_function("outlines_cold", |b| {
            b.iter_batched(
                || tempfile::tempdir().unwrap(),
                |cache| {
                    RepoMap::open_with(root, &options(root, cache.path()))
                        .unwrap()
                        .outline_all()
                },
                BatchSize::PerIteration,
            )
        });
    }
    // The parse alone, without the disk cache's reads and writes.
    g.bench_function("outlines_uncached", |b| {
        b.iter(|| {
            let options = ScanOptions {
                cache_dir: None,
                ..ScanOptions::for_root(root)
            };
            RepoMap::open_with(root, &options).unwrap().outline_all()
        })
    });
    g.bench_function("outlines_warm", |b| {
        b.iter(|| {
            RepoMap::open_with(root, &options(root, warm.path()))
                .unwrap()
                .outline_all()
        })
    });
    let map = RepoMap::open_with(root, &options(root, warm.path())).unwrap();
    let mut full = FlightPlan::new("everything", usize::MAX / 2);
    full.rules = vec![Rule::new("**", Level::Full)];
    // The first full render counts every block's tokens; later ones reuse the counts.
    let t0 = Instant::now();
    let tokens = render(&map, &full).unwrap().tokens;
    eprintln!(
        "{name}/full_render first render (counting {tokens} tokens): {:.2} s",
        t0.elapsed().as_secs_f64()
    );
    g.bench_function("full_render", |b| {
        b.iter(|| render(&map, &full).unwrap().tokens)
    });
    // Zoom into two top-level directories of the repository, the rest collapsed.
    let mut dirs: Vec<&str> = map
        .files()
        .iter()
        .filter_map(|f| f.path.split_once('/').map(|(d, _)| d))
        .collect();
    dirs.dedup();
    let plan = FlightPlan {
        rules: vec![
            Rule {
                path: "**".into(),
                level: Level::Path,
                collapse: true,
                focus: Vec::new(),
                max_items: None,
            },
            Rule::new(format!("{}/", dirs[0]), Level::Signatures),
            Rule::new(format!("{}/", dirs[dirs.len() / 2]), Level::Full),
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
        return Some(PathBuf::from(p)).filter(|p| p.is_dir());
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

/// The standard library of the newest installed Python 3 (`os.py` marks it), or the directory
/// `NAVIGATOR_BENCH_PYTHON` names.
fn python_stdlib() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("NAVIGATOR_BENCH_PYTHON") {
        return Some(PathBuf::from(p)).filter(|p| p.is_dir());
    }
    let mut found: Vec<(u32, PathBuf)> = ["/usr/lib", "/usr/local/lib"]
        .iter()
        .filter_map(|base| std::fs::read_dir(base).ok())
        .flatten()
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let minor = name.strip_prefix("python3.")?.parse().ok()?;
            Some((minor, e.path()))
        })
        .filter(|(_, p)| p.join("os.py").is_file())
        .collect();
    found.sort();
    found.pop().map(|(_, p)| p)
}

fn benches(c: &mut Criterion) {
    let generated = tempfile::tempdir().unwrap();
    generate(generated.path());
    bench_repo(c, "generated_10k", generated.path(), false);
    if let Some(stdlib) = python_stdlib() {
        let map = RepoMap::open(&stdlib).unwrap();
        let bytes: u64 = map.files().iter().map(|f| f.size).sum();
        eprintln!(
            "python: {} ({} files, {:.1} MB)",
            stdlib.display(),
            map.files().len(),
            bytes as f64 / 1e6
        );
        bench_repo(c, "python", &stdlib, false);
    }
    if let Some(reg) = registry() {
        bench_repo(c, "cargo_registry", &reg, true);
    }
}

criterion_group!(context, benches);
criterion_main!(context);
