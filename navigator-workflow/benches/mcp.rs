//! MCP round trip over stdio: one `tools/call` request written to the server's stdin and its
//! reply read back from stdout, against a server holding 1k tasks.

use std::hint::black_box;
use std::io::{BufRead, BufReader, Write};
use std::process::{ChildStdin, ChildStdout, Command, Stdio};
use std::time::Instant;

use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::{json, Value};

struct Client {
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    id: u64,
    line: String,
}

impl Client {
    fn call(&mut self, method: &str, params: Value) -> usize {
        self.id += 1;
        let request =
            json!({ "jsonrpc": "2.0", "id": self.id, "method": method, "params": params });
        writeln!(self.stdin, "{request}").unwrap();
        self.stdin.flush().unwrap();
        self.line.clear();
        self.stdout.read_line(&mut self.line).unwrap()
    }

    fn notify(&mut self, method: &str) {
        writeln!(
            self.stdin,
            "{}",
            json!({ "jsonrpc": "2.0", "method": method })
        )
        .unwrap();
        self.stdin.flush().unwrap();
    }
}

fn round_trip(c: &mut Criterion) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_navigator-workflow-mcp"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn MCP server");
    let mut client = Client {
        stdin: child.stdin.take().unwrap(),
        stdout: BufReader::new(child.stdout.take().unwrap()),
        id: 0,
        line: String::new(),
    };
    client.call(
        "initialize",
        json!({ "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": { "name": "bench", "version": "0" } }),
    );
    client.notify("notifications/initialized");
    let definition: Value = serde_json::from_str(include_str!(
        "../tests/data/workflows/ui-reconstruction.json"
    ))
    .unwrap();
    client.call("tools/call", json!({ "name": "load_workflow", "arguments": { "id": "ui-reconstruction", "definition": definition } }));
    let tasks: Vec<Value> = (0..1000)
        .map(|i| json!({ "id": format!("task-{i}"), "issueId": "I", "workflowType": "ui-reconstruction", "priority": i % 17 }))
        .collect();
    client.call(
        "tools/call",
        json!({ "name": "load_task_tree", "arguments": { "tasks": tasks } }),
    );

    let get_task = json!({ "name": "get_task", "arguments": { "taskId": "task-500" } });
    let next = json!({ "name": "get_next_tasks_from_tree", "arguments": { "limit": 1 } });

    // Percentiles first, from plain samples: criterion reports means, the target is a p50.
    let mut samples: Vec<f64> = (0..2000)
        .map(|_| {
            let start = Instant::now();
            client.call("tools/call", get_task.clone());
            start.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    samples.sort_by(|a, b| a.total_cmp(b));
    let pct = |p: f64| samples[((samples.len() - 1) as f64 * p) as usize];
    eprintln!(
        "mcp get_task round trip: p50 {:.1} µs, p90 {:.1} µs, p99 {:.1} µs",
        pct(0.5),
        pct(0.9),
        pct(0.99)
    );

    let mut group = c.benchmark_group("mcp_stdio");
    group.bench_function("get_task", |b| {
        b.iter(|| black_box(client.call("tools/call", get_task.clone())))
    });
    group.bench_function("get_next_tasks_from_tree", |b| {
        b.iter(|| black_box(client.call("tools/call", next.clone())))
    });
    group.bench_function("ping", |b| {
        b.iter(|| black_box(client.call("ping", json!({}))))
    });
    group.finish();

    drop(client);
    let _ = child.wait();
}

criterion_group!(benches, round_trip);
criterion_main!(benches);
