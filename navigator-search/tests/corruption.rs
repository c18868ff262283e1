//! The corruption suite: every file the engine writes (the redb store, tantivy's segments and
//! meta files, the usearch graph, the exact vectors) is truncated, has bytes flipped, or is
//! deleted, and the engine is opened again. Each case must end in a rebuild of the derived
//! indexes from the store (reported by [`SearchEngine::repairs`]) or in a typed error naming
//! the damaged file — never a panic, an abort or a signal, and never a further loss in the
//! store: a store the engine refuses is left byte for byte as it was found.
//!
//! Each case runs in a child process (this test binary re-invoked to run the ignored
//! `corruption_child`), so a case that crashes the process (a corrupt graph file once made
//! usearch fault with SIGSEGV) fails the suite instead of killing it.

mod common;

use common::{config, copy_dir, embedder, files, now};
use navigator_core::{Item, ItemType, SearchMode, SearchRequest};
use navigator_search::SearchEngine;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// Items in the damaged engine.
const ITEMS: usize = 48;
/// The file the store lives in.
const STORE: &str = "store.redb";

fn item(n: usize) -> Item {
    Item::new(
        format!("note_{n}"),
        ItemType::Resource,
        format!("Field note {n} about kestrel{n}"),
        now(),
    )
    .unwrap()
    .with_body(format!(
        "Observation {n}: the kestrel{n} hovered over meadow {} before the storm.",
        n % 5
    ))
}

/// The checks a child runs on the engine it opened; an empty list when everything holds.
async fn check(engine: &SearchEngine) -> Vec<String> {
    let mut problems = Vec::new();
    if engine.len() != ITEMS {
        problems.push(format!("{} items searchable, not {ITEMS}", engine.len()));
    }
    for n in (0..ITEMS).step_by(5) {
        let id = format!("note_{n}");
        let request = SearchRequest::new(format!("kestrel{n}"))
            .unwrap()
            .mode(SearchMode::Keyword);
        match engine.search_with_vector(&request, None) {
            Ok(page) if page.results.first().map(|h| h.item_id.as_str()) == Some(id.as_str()) => {}
            Ok(page) => problems.push(format!(
                "keyword search for kestrel{n} found {:?}",
                page.results.iter().map(|h| &h.item_id).collect::<Vec<_>>()
            )),
            Err(e) => problems.push(format!("keyword search for kestrel{n}: {e}")),
        }
        let vector = match engine.stored_vectors(&id) {
            Ok(Some(v)) => v.chunks[0].vector.clone(),
            other => {
                problems.push(format!("stored vectors of {id}: {other:?}"));
                continue;
            }
        };
        let request = SearchRequest::new("vector probe")
            .unwrap()
            .mode(SearchMode::Semantic);
        match engine.search_with_vector(&request, Some(&vector)) {
            Ok(page) if page.results.first().map(|h| h.item_id.as_str()) == Some(id.as_str()) => {}
            Ok(page) => problems.push(format!(
                "vector search for {id} found {:?}",
                page.results
                    .iter()
                    .map(|h| &h.item_id)
                    .take(3)
                    .collect::<Vec<_>>()
            )),
            Err(e) => problems.push(format!("vector search for {id}: {e}")),
        }
    }
    // The repaired engine still takes writes.
    let extra = item(ITEMS + 1);
    if let Err(e) = engine.upsert(&[extra]).await {
        problems.push(format!("write after open: {e}"));
    }
    problems
}

#[tokio::test]
#[ignore = "child process of corrupted_files_never_crash_or_lose_data"]
async fn corruption_child() {
    let dir = std::env::var("NAV_CORRUPT_DIR").expect("NAV_CORRUPT_DIR names the engine dir");
    match SearchEngine::open_with(&dir, embedder(), config()).await {
        Err(e) => println!(
            "OPEN_ERR {:?} {}",
            e.kind(),
            e.to_string().replace('\n', " ")
        ),
        Ok(engine) => {
            let repairs: Vec<String> = engine.repairs().iter().map(|r| r.to_string()).collect();
            println!("OPEN_OK {}", repairs.join(" | ").replace('\n', " "));
            let problems = check(&engine).await;
            println!("CHECK {}", problems.join("; ").replace('\n', " "));
        }
    }
}

/// How a file is damaged.
#[derive(Debug, Clone, Copy)]
enum Damage {
    /// Cut to half its length.
    TruncateHalf,
    /// Cut to nothing.
    TruncateEmpty,
    /// Bytes flipped near the start (headers, magic numbers).
    FlipHead,
    /// Bytes flipped in the middle and near the end.
    FlipBody,
    /// Removed.
    Delete,
}

const DAMAGES: [Damage; 5] = [
    Damage::TruncateHalf,
    Damage::TruncateEmpty,
    Damage::FlipHead,
    Damage::FlipBody,
    Damage::Delete,
];

fn damage(path: &Path, how: Damage) {
    let bytes = std::fs::read(path).unwrap();
    let len = bytes.len();
    let flip = |positions: &[usize]| {
        let mut b = bytes.clone();
        for &p in positions {
            if p < len {
                b[p] ^= 0x5a;
            }
        }
        b
    };
    match how {
        Damage::TruncateHalf => std::fs::write(path, &bytes[..len / 2]).unwrap(),
        Damage::TruncateEmpty => std::fs::write(path, b"").unwrap(),
        Damage::FlipHead => std::fs::write(path, flip(&[0, 3, 8, 17, 33])).unwrap(),
        Damage::FlipBody => std::fs::write(
            path,
            flip(&[
                len / 3,
                len / 2,
                len / 2 + 1,
                len * 3 / 4,
                len.saturating_sub(9),
            ]),
        )
        .unwrap(),
        Damage::Delete => std::fs::remove_file(path).unwrap(),
    }
}

/// Runs the child on `dir`; its exit status and stdout.
fn run_child(dir: &Path, log: &Path) -> (std::process::ExitStatus, String) {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--ignored",
            "--exact",
            "corruption_child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("NAV_CORRUPT_DIR", dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::fs::File::create(log).unwrap())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(180) {
            child.kill().unwrap();
            break child.wait().unwrap();
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut out = String::new();
    use std::io::Read;
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    (status, out)
}

/// The verdict on one case: `None` when it ended as it must.
fn verdict(
    rel: &Path,
    how: Damage,
    status: std::process::ExitStatus,
    out: &str,
    store_before: Option<&[u8]>,
    store_after: Option<&[u8]>,
) -> Option<String> {
    // libtest prints `test corruption_child ... ` before the child's own output.
    let line = |prefix: &str| {
        out.lines()
            .find_map(|l| l.find(prefix).map(|i| &l[i + prefix.len()..]))
            .map(str::trim)
    };
    if !status.success() {
        return Some(format!("the process ended with {status} (stdout: {out:?})"));
    }
    if let Some(err) = line("OPEN_ERR ") {
        let is_store = rel == Path::new(STORE);
        // Only the store may be refused: every other file is derived from it.
        if !is_store {
            return Some(format!("open failed instead of rebuilding: {err}"));
        }
        if !err.starts_with("CorruptIndex") || !err.contains(STORE) {
            return Some(format!(
                "the error is not a corrupt-index error naming {STORE}: {err}"
            ));
        }
        if store_before != store_after {
            return Some("the refused store was changed".into());
        }
        return None;
    }
    let Some(repairs) = line("OPEN_OK ") else {
        return Some(format!("no outcome printed: {out:?}"));
    };
    match line("CHECK ") {
        Some("") => {}
        Some(problems) => return Some(format!("opened ({repairs}) but: {problems}")),
        None => return Some(format!("opened ({repairs}) but the checks did not finish")),
    }
    // A damaged graph or vector table must be noticed (rebuilt), never half-used.
    let name = rel.to_string_lossy();
    if name.starts_with("chunks.") && repairs.is_empty() && !matches!(how, Damage::Delete) {
        return Some(format!(
            "{name} damaged ({how:?}) but no rebuild was reported"
        ));
    }
    None
}

#[test]
fn corrupted_files_never_crash_or_lose_data() {
    let root = tempfile::tempdir().unwrap();
    let base = root.path().join("base");
    tokio::runtime::Runtime::new().unwrap().block_on(async {
        let engine = SearchEngine::open_with(&base, embedder(), config())
            .await
            .unwrap();
        let items: Vec<Item> = (0..ITEMS).map(item).collect();
        engine.upsert(&items).await.unwrap();
        engine.flush().unwrap();
        assert!(
            check(&engine).await.is_empty(),
            "the undamaged engine works"
        );
        // Restore the pristine state: the check wrote one more item.
        assert!(engine.delete(&format!("note_{}", ITEMS + 1)).await.unwrap());
        engine.compact().unwrap();
        // Rewriting two items leaves a second segment and a delete file in the first, so
        // every kind of file tantivy writes is damaged below.
        engine.upsert(&[item(3), item(7)]).await.unwrap();
        engine.flush().unwrap();
    });
    let written = files(&base);
    let names: Vec<String> = written
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    for expected in [STORE, "chunks.usearch", "chunks.f32", "keyword/meta.json"] {
        assert!(
            names.iter().any(|n| n == expected),
            "{expected} in {names:?}"
        );
    }
    for kind in [
        ".idx",
        ".pos",
        ".term",
        ".store",
        ".fast",
        ".fieldnorm",
        ".del",
    ] {
        assert!(
            names.iter().any(|n| n.ends_with(kind)),
            "a tantivy {kind} file in {names:?}"
        );
    }

    let mut failures = Vec::new();
    let mut cases = 0;
    for rel in &written {
        for how in DAMAGES {
            cases += 1;
            let case = root.path().join(format!("case{cases}"));
            copy_dir(&base, &case);
            damage(&case.join(rel), how);
            let store_before = std::fs::read(case.join(STORE)).ok();
            let log = root.path().join(format!("case{cases}.log"));
            let (status, out) = run_child(&case, &log);
            let store_after = std::fs::read(case.join(STORE)).ok();
            if let Some(why) = verdict(
                rel,
                how,
                status,
                &out,
                store_before.as_deref(),
                store_after.as_deref(),
            ) {
                let log = std::fs::read_to_string(&log).unwrap_or_default();
                let tail: String = log.lines().rev().take(5).collect::<Vec<_>>().join(" / ");
                failures.push(format!("{} {how:?}: {why} [stderr: {tail}]", rel.display()));
            }
            let _ = std::fs::remove_dir_all(&case);
        }
    }
    assert!(cases >= 5 * 8, "{cases} cases over {names:?}");
    assert!(
        failures.is_empty(),
        "{} of {cases} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
