//! Ingest bench: a synthetic vault of N notes (default 10,000) with realistic lengths, indexed
//! with the real MiniLM embedder; then re-indexed unchanged, with one note edited, and with
//! 100 notes renamed. Prints time, notes/s, notes embedded and resident memory (peak per
//! phase, sampled every 50 ms from /proc/self/status) for each phase.
//!
//! ```bash
//! cargo run --release -p navigator-search --example vault_bench -- 10000
//! ```

use navigator_core::FastEmbedder;
use navigator_search::ingest::{index_folder, IngestOptions, IngestReport};
use navigator_search::SearchEngine;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const WORDS: &str = "the project plan budget review meeting notes team design launch customer \
feedback research summary draft report quarter goal risk vendor contract schedule deadline \
kitchen garden health running sleep habit finance tax invoice travel booking flight hotel \
recipe bread pasta book chapter idea question answer decision action owner status update \
search index vector keyword ranking model embedding query result snippet note folder archive \
area resource reference article paper study data analysis chart metric growth revenue cost \
hiring interview candidate rubric onboarding mentor feedback weekly monthly yearly retro \
improve fix bug release version deploy server database backup security password account \
family friend birthday gift dinner weekend holiday school course lesson exercise practice \
music guitar piano concert film series podcast episode interview history science nature";

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Word counts like a real vault: most notes short, a tail of long multi-section ones.
fn note_words(rng: &mut Rng) -> usize {
    match rng.below(10) {
        0..=5 => 60 + rng.below(340) as usize,
        6..=8 => 400 + rng.below(800) as usize,
        _ => 1200 + rng.below(2800) as usize,
    }
}

fn note_text(rng: &mut Rng, n: usize, words: &[&str]) -> String {
    let count = note_words(rng);
    let mut s = format!(
        "---\ntags: [t{}, t{}]\ncreated: 2024-{:02}-{:02}\n---\n# Note {n} {}\n",
        rng.below(50),
        rng.below(50),
        1 + rng.below(12),
        1 + rng.below(28),
        words[rng.below(words.len() as u64) as usize]
    );
    let mut since_heading = 0;
    for i in 0..count {
        if since_heading > 150 + rng.below(150) as usize {
            s.push_str(&format!("\n\n## Section {i}\n"));
            since_heading = 0;
        }
        s.push_str(words[rng.below(words.len() as u64) as usize]);
        s.push(if rng.below(12) == 0 { '.' } else { ' ' });
        since_heading += 1;
    }
    s
}

fn make_vault(root: &Path, notes: usize) {
    let words: Vec<&str> = WORDS.split_whitespace().collect();
    let mut rng = Rng(42);
    let tops = ["1 Projects", "2 Areas", "3 Resources", "4 Archives"];
    for n in 0..notes {
        let folder = root
            .join(tops[n % 4])
            .join(format!("Folder {}", (n / 4) % 50));
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(
            folder.join(format!("Note {n}.md")),
            note_text(&mut rng, n, &words),
        )
        .unwrap();
    }
}

fn rss_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

async fn phase(name: &str, peak: &AtomicU64, run: impl std::future::Future<Output = IngestReport>) {
    peak.store(rss_kib("VmRSS:"), Ordering::Relaxed);
    let t = Instant::now();
    let report = run.await;
    let took = t.elapsed();
    let per_s = report.seen as f64 / took.as_secs_f64();
    println!(
        "| {name} | {:.2} s | {per_s:.0} notes/s | {} embedded | {} renamed | {} MiB peak RSS |",
        took.as_secs_f64(),
        report.embedded,
        report.renamed,
        peak.load(Ordering::Relaxed) / 1024
    );
    eprintln!("  {report}");
}

#[tokio::main]
async fn main() {
    let notes: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(10_000);
    let vault = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    make_vault(vault.path(), notes);
    let bytes: u64 = walk_bytes(vault.path());
    println!(
        "vault: {notes} notes, {:.1} MiB of markdown",
        bytes as f64 / 1048576.0
    );
    let peak = Arc::new(AtomicU64::new(0));
    {
        let peak = peak.clone();
        std::thread::spawn(move || loop {
            peak.fetch_max(rss_kib("VmRSS:"), Ordering::Relaxed);
            std::thread::sleep(Duration::from_millis(50));
        });
    }
    let embedder =
        Arc::new(FastEmbedder::default_model().expect("run scripts/setup-embeddings.sh"));
    let engine = SearchEngine::open(data.path(), embedder).await.unwrap();
    let opts = IngestOptions::default();
    let v = vault.path();
    println!("| phase | time | rate | embedded | renamed | memory |\n|---|---|---|---|---|---|");
    phase("first index", &peak, async {
        index_folder(&engine, v, &opts, |_| {}).await.unwrap()
    })
    .await;
    phase("again, nothing changed", &peak, async {
        index_folder(&engine, v, &opts, |_| {}).await.unwrap()
    })
    .await;
    let edited = v.join("1 Projects/Folder 0/Note 0.md");
    let mut text = std::fs::read_to_string(&edited).unwrap();
    text.push_str("\nOne more sentence about the quarterly budget review.\n");
    std::fs::write(&edited, text).unwrap();
    phase("one note edited", &peak, async {
        index_folder(&engine, v, &opts, |_| {}).await.unwrap()
    })
    .await;
    for n in (0..notes).step_by((notes / 100).max(1)).take(100) {
        let dir = v
            .join(["1 Projects", "2 Areas", "3 Resources", "4 Archives"][n % 4])
            .join(format!("Folder {}", (n / 4) % 50));
        std::fs::rename(
            dir.join(format!("Note {n}.md")),
            dir.join(format!("Renamed {n}.md")),
        )
        .unwrap();
    }
    phase("100 notes renamed", &peak, async {
        index_folder(&engine, v, &opts, |_| {}).await.unwrap()
    })
    .await;
    println!("process peak RSS (VmHWM): {} MiB", rss_kib("VmHWM:") / 1024);
}

fn walk_bytes(root: &Path) -> u64 {
    let mut total = 0;
    for entry in std::fs::read_dir(root).unwrap().flatten() {
        let meta = entry.metadata().unwrap();
        total += if meta.is_dir() {
            walk_bytes(&entry.path())
        } else {
            meta.len()
        };
    }
    total
}
