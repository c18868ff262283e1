//! The `search` round trip of `navigator mcp` over stdio, at 10k notes: a client writes a
//! `tools/call` line to the server's stdin and times until the reply line is read and parsed
//! (JSON both ways included), for each search mode.
//!
//! The vault is the synthetic corpus of the search benchmarks (`synthetic.rs`: 64 topics,
//! Zipf words, 20–60 words a note) written as markdown notes in PARA folders, indexed with
//! `navigator index` (real MiniLM embeddings), then served with `navigator mcp`.
//!
//! ```text
//! cargo build --release -p navigator-cli -p navigator-eval
//! target/release/mcp_bench [--notes 10000] [--calls 300] [--bin target/release/navigator] [--keep DIR]
//! ```
//! `--keep DIR` puts the vault and the data directory in DIR and reuses them when a run
//! already indexed them there, so the timed part can be run again without re-embedding.
//! Needs the embedding runtime and model (`scripts/setup-embeddings.sh`), found the usual way.

use anyhow::{anyhow, bail, Context};
use navigator_core::ItemType;
use navigator_eval::synthetic;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const FOLDERS: [&str; 4] = ["1 Projects", "2 Areas", "3 Resources", "4 Archives"];

struct Options {
    notes: usize,
    calls: usize,
    bin: PathBuf,
    keep: Option<PathBuf>,
}

fn options() -> anyhow::Result<Options> {
    let mut o = Options {
        notes: 10_000,
        calls: 300,
        bin: std::env::current_exe()?.with_file_name("navigator"),
        keep: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or_else(|| anyhow!("{flag} needs a value"))?;
        match flag.as_str() {
            "--notes" => o.notes = value.parse().context("--notes")?,
            "--calls" => o.calls = value.parse().context("--calls")?,
            "--bin" => o.bin = PathBuf::from(value),
            "--keep" => o.keep = Some(PathBuf::from(value)),
            other => bail!("unknown flag {other} (--notes, --calls, --bin, --keep)"),
        }
    }
    if !o.bin.exists() {
        bail!(
            "{} not found: build it with `cargo build --release -p navigator-cli`, or pass --bin",
            o.bin.display()
        );
    }
    Ok(o)
}

/// Writes the corpus as notes; returns the queries.
fn write_vault(root: &Path, notes: usize) -> anyhow::Result<Vec<String>> {
    let corpus = synthetic::corpus(notes, &[ItemType::Resource]);
    for (i, item) in corpus.items.iter().enumerate() {
        let dir = root
            .join(FOLDERS[i % FOLDERS.len()])
            .join(format!("Topic {}", i % 50));
        std::fs::create_dir_all(&dir)?;
        let text = format!(
            "---\ntitle: {}\nupdated: {}\n---\n{}\n",
            item.title,
            item.updated_at.to_rfc3339(),
            item.body
        );
        std::fs::write(dir.join(format!("note {i}.md")), text)?;
    }
    Ok(corpus.queries.into_iter().map(|(q, _)| q).collect())
}

struct Client {
    stdin: std::process::ChildStdin,
    stdout: BufReader<std::process::ChildStdout>,
    next: u64,
    line: String,
}

impl Client {
    /// One request, timed from the write to the parsed reply.
    fn call(&mut self, method: &str, params: Value) -> anyhow::Result<(Duration, Value)> {
        self.next += 1;
        let id = self.next;
        let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let started = Instant::now();
        let mut text = serde_json::to_string(&request)?;
        text.push('\n');
        self.stdin.write_all(text.as_bytes())?;
        self.stdin.flush()?;
        loop {
            self.line.clear();
            if self.stdout.read_line(&mut self.line)? == 0 {
                bail!("the server closed its stdout");
            }
            let reply: Value = serde_json::from_str(&self.line)?;
            if reply["id"] == json!(id) {
                return Ok((started.elapsed(), reply));
            }
        }
    }

    fn notify(&mut self, method: &str) -> anyhow::Result<()> {
        writeln!(
            self.stdin,
            "{}",
            json!({"jsonrpc": "2.0", "method": method})
        )?;
        Ok(self.stdin.flush()?)
    }
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1000.0
}

fn main() -> anyhow::Result<()> {
    navigator_eval::help::exit_on_help(include_str!("mcp_bench.rs"));
    let o = options()?;
    let temp = tempfile::tempdir()?;
    let dir = o.keep.clone().unwrap_or_else(|| temp.path().to_path_buf());
    let (vault, home) = (dir.join("vault"), dir.join("home"));
    let reuse = home.join("last-index.json").exists();
    if !reuse {
        let _ = std::fs::remove_dir_all(&vault);
        std::fs::create_dir_all(&home)?;
    }
    let queries = if reuse {
        let corpus = synthetic::corpus(o.notes, &[ItemType::Resource]);
        corpus.queries.into_iter().map(|(q, _)| q).collect()
    } else {
        write_vault(&vault, o.notes)?
    };
    let paths = navigator_core::EmbeddingPaths::locate(None, None)?;
    let env = |c: &mut Command| {
        c.env("NAVIGATOR_HOME", &home)
            .env("NAVIGATOR_ORT_DYLIB", &paths.ort_dylib)
            .env("NAVIGATOR_MODEL_DIR", &paths.model_dir);
    };

    if !reuse {
        let started = Instant::now();
        let mut index = Command::new(&o.bin);
        index.args(["index", "--quiet"]).arg(&vault);
        env(&mut index);
        let out = index.output()?;
        if !out.status.success() {
            bail!("navigator index: {}", String::from_utf8_lossy(&out.stderr));
        }
        eprintln!(
            "indexed {} notes in {:.1} s",
            o.notes,
            started.elapsed().as_secs_f64()
        );
    }

    let mut server = Command::new(&o.bin);
    server
        .arg("mcp")
        .arg("--vault")
        .arg(&vault)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    env(&mut server);
    let mut child = server.spawn()?;
    let mut client = Client {
        stdin: child.stdin.take().ok_or_else(|| anyhow!("no stdin"))?,
        stdout: BufReader::new(child.stdout.take().ok_or_else(|| anyhow!("no stdout"))?),
        next: 0,
        line: String::new(),
    };
    let (took, _) = client.call(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "mcp_bench", "version": "0"}}),
    )?;
    client.notify("notifications/initialized")?;
    eprintln!("initialize: {:.2} ms", took.as_secs_f64() * 1000.0);

    // The start-up index run (nothing changed: a walk and a hash per note) holds the index;
    // writes answer `busy` until it is done.
    let ready = Instant::now();
    let mut writes = Vec::new();
    for i in 0..6 {
        let args = json!({"path": format!("1 Projects/Bench/written {}-{i}", std::process::id()),
                          "content": format!("A note written through MCP, number {i}.")});
        loop {
            let (took, reply) = client.call(
                "tools/call",
                json!({"name": "write_note", "arguments": args}),
            )?;
            let result = &reply["result"];
            if result["isError"] == json!(true) {
                if result["structuredContent"]["error"]["code"] == "busy" {
                    std::thread::sleep(Duration::from_millis(20));
                    continue;
                }
                bail!("write_note: {reply}");
            }
            if i == 0 {
                eprintln!(
                    "start-up index run over the unchanged vault done after {:.2} s",
                    ready.elapsed().as_secs_f64()
                );
            }
            writes.push(took);
            break;
        }
    }
    writes.sort();
    eprintln!(
        "write_note (incremental re-index of the vault), 6 calls: median {:.0} ms, max {:.0} ms",
        writes[writes.len() / 2].as_secs_f64() * 1000.0,
        writes[writes.len() - 1].as_secs_f64() * 1000.0
    );

    println!("| call | calls | p50 ms | p95 ms | p99 ms | mean ms | reply bytes (mean) |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for mode in ["keyword", "semantic", "hybrid"] {
        let mut times = Vec::with_capacity(o.calls);
        let mut bytes = 0usize;
        for (i, q) in queries.iter().cycle().take(o.calls + 20).enumerate() {
            let args = json!({"query": q, "searchMode": mode, "limit": 10});
            let (took, reply) =
                client.call("tools/call", json!({"name": "search", "arguments": args}))?;
            if reply["result"]["isError"] == json!(true) || reply.get("error").is_some() {
                bail!("search {q:?} ({mode}) failed: {reply}");
            }
            // The first 20 warm the caches and the allocator; they are not counted.
            if i >= 20 {
                times.push(took);
                bytes += client.line.len();
            }
        }
        times.sort();
        let mean = times.iter().sum::<Duration>().as_secs_f64() * 1000.0 / times.len() as f64;
        println!(
            "| search ({mode}, limit 10) | {} | {:.2} | {:.2} | {:.2} | {:.2} | {} |",
            times.len(),
            percentile(&times, 0.5),
            percentile(&times, 0.95),
            percentile(&times, 0.99),
            mean,
            bytes / times.len()
        );
    }
    let mut times = Vec::new();
    for i in 0..o.calls {
        let id = format!("1 Projects/Topic {}/note {}.md", (i * 4) % 50, i * 4);
        let (took, reply) = client.call(
            "tools/call",
            json!({"name": "get_item", "arguments": {"id": id}}),
        )?;
        if reply["result"]["isError"] == json!(true) {
            bail!("get_item {id}: {reply}");
        }
        times.push(took);
    }
    times.sort();
    println!(
        "| get_item | {} | {:.2} | {:.2} | {:.2} | {:.2} | |",
        times.len(),
        percentile(&times, 0.5),
        percentile(&times, 0.95),
        percentile(&times, 0.99),
        times.iter().sum::<Duration>().as_secs_f64() * 1000.0 / times.len() as f64
    );
    drop(client);
    let _ = child.wait();
    Ok(())
}
