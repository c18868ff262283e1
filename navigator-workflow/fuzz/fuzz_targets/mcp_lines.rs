//! The MCP server over its real line transport: every input is written to one long-lived
//! server (so state from earlier inputs — loaded workflows, task trees, claims — carries
//! over, as in a real session), followed by a `ping` whose reply marks the end of the
//! input's replies. The server must never panic, never stop serving, and answer only with
//! JSON lines; each line that is not JSON gets exactly one `-32700` reply.
//!
//! Run with `cargo +nightly fuzz run mcp_lines corpus/mcp_lines seeds/mcp_lines` from
//! `navigator-workflow/fuzz/` (`seeds/` holds valid tool calls to start from).
#![no_main]

use libfuzzer_sys::fuzz_target;
use navigator_workflow::mcp::NavigatorServer;
use navigator_workflow::Navigator;
use serde_json::Value;
use std::sync::{Mutex, OnceLock};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};
use tokio::runtime::Runtime;

struct Harness {
    runtime: Runtime,
    to_server: WriteHalf<DuplexStream>,
    from_server: BufReader<ReadHalf<DuplexStream>>,
    pings: u64,
}

impl Harness {
    /// Starts a server on an in-process pipe and completes the MCP handshake.
    fn start() -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("a tokio runtime");
        let (client, server) = tokio::io::duplex(1 << 20);
        let (server_in, server_out) = tokio::io::split(server);
        runtime.spawn(async move {
            let served = NavigatorServer::new(Navigator::new())
                .serve_on(server_in, server_out)
                .await;
            eprintln!("the server stopped: {served:?}");
        });
        let (from_server, to_server) = tokio::io::split(client);
        let mut harness = Harness {
            runtime,
            to_server,
            from_server: BufReader::new(from_server),
            pings: 0,
        };
        let init = r#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"0"}}}"#;
        harness.send(format!("{init}\n").as_bytes());
        let replies = harness.replies_until("init");
        assert!(replies.last().is_some_and(|r| r.get("result").is_some()), "{replies:?}");
        harness.send(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
        harness
    }

    fn send(&mut self, bytes: &[u8]) {
        let Harness {
            runtime, to_server, ..
        } = self;
        runtime.block_on(async {
            to_server.write_all(bytes).await.expect("the server reads its input");
            to_server.flush().await.expect("the server reads its input");
        });
    }

    /// Every reply line up to and including the one whose id is `id`.
    fn replies_until(&mut self, id: &str) -> Vec<Value> {
        let Harness {
            runtime,
            from_server,
            ..
        } = self;
        runtime.block_on(async {
            let mut replies = Vec::new();
            let mut line = String::new();
            loop {
                line.clear();
                let read = tokio::time::timeout(
                    std::time::Duration::from_secs(20),
                    from_server.read_line(&mut line),
                )
                .await
                .expect("the server answers within 20 s");
                assert!(read.expect("the server's output is UTF-8") > 0, "the server hung up");
                let reply: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("a reply that is not JSON ({e}): {line:?}"));
                let done = reply["id"] == id;
                replies.push(reply);
                if done {
                    return replies;
                }
            }
        })
    }
}

fn harness() -> &'static Mutex<Harness> {
    static HARNESS: OnceLock<Mutex<Harness>> = OnceLock::new();
    HARNESS.get_or_init(|| Mutex::new(Harness::start()))
}

fuzz_target!(|data: &[u8]| {
    // A line longer than the front's limit is answered without being read whole; libFuzzer's
    // inputs stay far below it.
    let mut harness = harness().lock().unwrap_or_else(|p| p.into_inner());
    harness.pings += 1;
    let id = format!("fuzz-ping-{}", harness.pings);
    let mut input = data.to_vec();
    input.push(b'\n');
    input.extend_from_slice(format!("{{\"jsonrpc\":\"2.0\",\"id\":\"{id}\",\"method\":\"ping\"}}\n").as_bytes());
    harness.send(&input);
    let replies = harness.replies_until(&id);
    // Each line that is not JSON is answered with one parse error.
    let broken = data
        .split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
        .filter(|l| serde_json::from_slice::<serde::de::IgnoredAny>(l).is_err())
        .count();
    let parse_errors = replies
        .iter()
        .filter(|r| r["error"]["code"] == -32700)
        .count();
    assert_eq!(parse_errors, broken, "{replies:?}");
});
