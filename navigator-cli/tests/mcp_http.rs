//! `navigator mcp --http`: the streamable HTTP transport at the HTTP level — the endpoint
//! path, the `Host` check against DNS rebinding, and an `initialize` over a plain socket. (The
//! full tool session over HTTP is driven by the official Python SDK in `mcp_python.rs`.)

mod mcp_support;

use mcp_support::{navigator, Fixture};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Stdio};
use std::time::Duration;

/// The server on `127.0.0.1:0` and the address it printed.
struct HttpServer {
    child: Child,
    addr: SocketAddr,
}

impl HttpServer {
    fn start(fixture: &Fixture, extra: &[&str]) -> Self {
        let mut child = navigator(&fixture.home())
            .args(["mcp", "--http", "127.0.0.1:0"])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn navigator mcp --http");
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let addr = loop {
            let line = lines
                .next()
                .expect("the server printed its address before exiting")
                .unwrap();
            if let Some(rest) = line.split("listening on http://").nth(1) {
                break rest.trim_end_matches("/mcp").parse().unwrap();
            }
        };
        // Keep draining stderr so the server never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines {});
        HttpServer { child, addr }
    }

    /// One HTTP/1.1 exchange (`Connection: close`): the status code and the whole body.
    fn exchange(&self, method: &str, path: &str, host: &str, body: &str) -> (u16, String) {
        let mut stream = TcpStream::connect(self.addr).unwrap();
        // A hang guard, not a timing assertion.
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        write!(
            stream,
            "{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\
             Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
             Content-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut reply = String::new();
        stream.read_to_string(&mut reply).unwrap();
        let status = reply
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("an HTTP status line: {reply}"));
        let body = reply
            .split_once("\r\n\r\n")
            .map(|(_, b)| b.to_string())
            .unwrap_or_default();
        (status, body)
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"navigator-tests","version":"0"}}}"#;

#[test]
fn the_endpoint_answers_initialize_and_refuses_other_paths_and_hosts() {
    let fixture = Fixture::indexed();
    let server = HttpServer::start(&fixture, &["--allow-host", "notes.internal"]);
    let host = server.addr.to_string();

    let (status, body) = server.exchange("POST", "/mcp", &host, INITIALIZE);
    assert_eq!(status, 200, "{body}");
    assert!(body.contains(r#""name":"navigator""#), "{body}");

    let (status, body) = server.exchange("POST", "/elsewhere", &host, INITIALIZE);
    assert_eq!(status, 404, "{body}");
    assert!(body.contains("/mcp"), "the 404 names the endpoint: {body}");

    // DNS rebinding: a page on another name reaching the loopback port is refused ...
    let (status, body) = server.exchange("POST", "/mcp", "evil.example", INITIALIZE);
    assert!((400..500).contains(&status), "{status}: {body}");
    // ... and a name given with --allow-host is accepted.
    let (status, body) = server.exchange("POST", "/mcp", "notes.internal", INITIALIZE);
    assert_eq!(status, 200, "{body}");

    // Not JSON, and JSON that is no JSON-RPC message: JSON-RPC errors, as on stdio.
    for (text, code) in [
        ("this is not json", -32700),
        (r#"{"hello":"world"}"#, -32600),
    ] {
        let (status, body) = server.exchange("POST", "/mcp", &host, text);
        assert_eq!(status, 400, "{text}: {body}");
        let reply: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(reply["error"]["code"], code, "{text}: {reply}");
        assert_eq!(reply["id"], serde_json::Value::Null, "{reply}");
    }
    // A tool call whose arguments are no object: invalid params, with the request's id.
    let call = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search","arguments":"kitchen"}}"#;
    let (status, body) = server.exchange("POST", "/mcp", &host, call);
    assert_eq!(status, 400, "{body}");
    let reply: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    assert_eq!(reply["id"], 7, "{reply}");
    // The session still answers afterwards.
    let (status, body) = server.exchange("POST", "/mcp", &host, INITIALIZE);
    assert_eq!(status, 200, "{body}");
}

#[test]
fn a_second_server_on_the_same_data_directory_gets_a_clear_error() {
    let fixture = Fixture::indexed();
    let _first = HttpServer::start(&fixture, &[]);
    let out = navigator(&fixture.home())
        .args(["mcp", "--http", "127.0.0.1:0"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("in use by another `navigator mcp`"),
        "{stderr}"
    );
}
