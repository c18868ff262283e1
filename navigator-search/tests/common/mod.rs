//! Shared fixtures: the real MiniLM embedder (loaded once per test binary), the sample
//! knowledge base, and one engine over it built once per test binary.
#![allow(dead_code)] // each test binary uses a different subset

use navigator_core::{Embedder, FastEmbedder, Item};
use navigator_search::{EngineConfig, FixedClock, SearchEngine};
use std::sync::{Arc, OnceLock};

/// "Today" in the sample knowledge base's world.
pub fn now() -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::parse_from_rfc3339("2026-11-21T12:00:00Z")
        .unwrap()
        .to_utc()
}

pub fn config() -> EngineConfig {
    EngineConfig {
        clock: Arc::new(FixedClock(now())),
        ..EngineConfig::default()
    }
}

pub fn embedder() -> Arc<dyn Embedder> {
    static E: OnceLock<Arc<FastEmbedder>> = OnceLock::new();
    E.get_or_init(|| {
        Arc::new(
            FastEmbedder::default_model()
                .expect("the MiniLM model is installed (scripts/setup-embeddings.sh)"),
        )
    })
    .clone()
}

pub fn kb_items() -> Vec<Item> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/data/para_kb.json");
    navigator_core::from_json(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// One engine over the sample knowledge base, shared by the tests of a binary (indexing the
/// 200 items with the real model once keeps the suite fast).
pub fn kb_engine() -> Arc<SearchEngine> {
    static ENGINE: OnceLock<(Arc<SearchEngine>, tempfile::TempDir)> = OnceLock::new();
    ENGINE
        .get_or_init(|| {
            // Built on its own thread and runtime: the tests themselves run inside one.
            std::thread::spawn(|| {
                let rt = tokio::runtime::Runtime::new().unwrap();
                rt.block_on(async {
                    let dir = tempfile::tempdir().unwrap();
                    let engine = SearchEngine::open_with(dir.path(), embedder(), config())
                        .await
                        .unwrap();
                    engine.bulk_load(&kb_items(), |_| {}).await.unwrap();
                    (Arc::new(engine), dir)
                })
            })
            .join()
            .unwrap()
        })
        .0
        .clone()
}

/// A writer process for the kill tests: this test binary re-invoked to run one ignored test,
/// its stdout lines collected on a channel.
pub struct Writer {
    child: std::process::Child,
    lines: std::sync::mpsc::Receiver<String>,
    reader: std::thread::JoinHandle<()>,
}

impl Writer {
    /// Starts the ignored test `name` with `envs`, stderr to `log`, and waits (up to two
    /// minutes) for its `READY` line; returns the lines read so far.
    pub fn start(
        name: &str,
        envs: &[(&str, &std::ffi::OsStr)],
        log: &std::path::Path,
    ) -> (Self, Vec<String>) {
        use std::io::BufRead;
        let mut cmd = std::process::Command::new(std::env::current_exe().unwrap());
        cmd.args([
            "--ignored",
            "--exact",
            name,
            "--nocapture",
            "--test-threads=1",
        ]);
        for (k, v) in envs {
            cmd.env(k, v);
        }
        let mut child = cmd
            .stdout(std::process::Stdio::piped())
            .stderr(std::fs::File::create(log).unwrap())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel::<String>();
        let reader = std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
            {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut lines: Vec<String> = Vec::new();
        while !lines.iter().any(|l| l.ends_with("READY")) {
            let l = rx
                .recv_timeout(std::time::Duration::from_secs(120))
                .unwrap_or_else(|e| {
                    let log = std::fs::read_to_string(log).unwrap_or_default();
                    panic!("the writer did not start ({e}): {lines:?}\n{log}")
                });
            lines.push(l);
        }
        (
            Self {
                child,
                lines: rx,
                reader,
            },
            lines,
        )
    }

    /// SIGKILL (no destructor, no flush); the lines it printed since `start` returned.
    pub fn kill(mut self) -> Vec<String> {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
        self.reader.join().unwrap();
        self.lines.try_iter().collect()
    }
}

/// A small deterministic generator for the kill delays (reproducible runs).
pub fn next_random(state: &mut u64) -> u64 {
    *state = state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *state >> 33
}

/// What a writer process of a kill test starts with: the engine in the directory the
/// environment variable `dir_var` names, once `READY` is printed.
pub async fn writer_engine(dir_var: &str) -> SearchEngine {
    use std::io::Write;
    let dir =
        std::env::var(dir_var).unwrap_or_else(|_| panic!("{dir_var} names the engine directory"));
    let engine = SearchEngine::open_with(&dir, embedder(), config())
        .await
        .unwrap();
    let mut out = std::io::stdout();
    writeln!(out, "READY").unwrap();
    out.flush().unwrap();
    engine
}

/// A writer's run number, from the environment variable `var`.
pub fn writer_run(var: &str) -> u64 {
    std::env::var(var).unwrap().parse().unwrap()
}

/// Prints a writer's acknowledgement that the first `n` items of `run` are written.
pub fn ack(run: u64, n: usize) {
    use std::io::Write;
    let mut out = std::io::stdout();
    writeln!(out, "ACK {run} {n}").unwrap();
    out.flush().unwrap();
}

/// How many items of `run` the writer acknowledged in `lines` (0 for none).
pub fn last_ack(lines: &[String], run: u64) -> usize {
    lines
        .iter()
        .filter_map(|l| l.strip_prefix(&format!("ACK {run} ")))
        .filter_map(|n| n.parse::<usize>().ok())
        .max()
        .unwrap_or(0)
}

/// Every file under `dir`, relative to it (lock files excluded: they hold no data).
pub fn files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if !path.to_string_lossy().ends_with(".lock") {
                out.push(path.strip_prefix(dir).unwrap().to_path_buf());
            }
        }
    }
    out.sort();
    out
}

/// Copies every file under `from` (lock files excluded) to the same place under `to`.
pub fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    for rel in files(from) {
        let target = to.join(&rel);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(from.join(&rel), target).unwrap();
    }
}
