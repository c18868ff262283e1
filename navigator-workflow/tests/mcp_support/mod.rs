//! The MCP binary driven over its stdio: spawn it, speak newline-delimited JSON-RPC.
#![allow(dead_code)] // each test binary uses a different part

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

use serde_json::{json, Value};

pub struct Server {
    pub child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    next_id: u64,
}

impl Server {
    pub fn spawn() -> Self {
        Self::spawn_with(&[])
    }

    /// Spawns the binary with these command-line arguments.
    pub fn spawn_with(args: &[&std::ffi::OsStr]) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_navigator-workflow-mcp"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn the MCP server");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Server {
            child,
            stdin,
            lines,
            next_id: 1,
        }
    }

    pub fn send_line(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Sends a request and returns the response with the same id, skipping notifications.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send_line(
            &json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }).to_string(),
        );
        self.response(id)
    }

    /// The next message the server writes, whatever its id.
    pub fn next_message(&mut self) -> Value {
        let line = self
            .lines
            .recv_timeout(Duration::from_secs(30))
            .expect("server replied");
        serde_json::from_str(&line).expect("server writes JSON lines")
    }

    pub fn response(&mut self, id: u64) -> Value {
        loop {
            // A hang guard, not a timing assertion: a missing reply would otherwise block forever.
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(30))
                .expect("server replied");
            let message: Value = serde_json::from_str(&line).expect("server writes JSON lines");
            if message["id"] == json!(id) {
                return message;
            }
        }
    }

    /// Calls a tool and returns (isError, structuredContent).
    pub fn call(&mut self, tool: &str, arguments: Value) -> (bool, Value) {
        let reply = self.request(
            "tools/call",
            json!({ "name": tool, "arguments": arguments }),
        );
        let result = &reply["result"];
        assert!(result.is_object(), "tools/call {tool} returned {reply}");
        (
            result["isError"] == json!(true),
            result["structuredContent"].clone(),
        )
    }

    pub fn ok(&mut self, tool: &str, arguments: Value) -> Value {
        let (is_error, content) = self.call(tool, arguments);
        assert!(!is_error, "{tool} failed: {content}");
        content
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// How [`run_to_end`] hands the input over.
#[derive(Debug, Clone, Copy)]
pub enum Stdin {
    /// A pipe, written and closed at once (how MCP clients launch servers).
    Pipe,
    /// A file (`server < requests.txt`), which the server reads through tokio's blocking pool.
    File,
}

/// Runs the binary with `args` on `input` as its whole stdin and returns every JSON line it
/// wrote before exiting, and its exit status.
pub fn run_to_end(
    args: &[&std::ffi::OsStr],
    input: &str,
    stdin: Stdin,
) -> (Vec<Value>, std::process::ExitStatus) {
    let dir = tempfile::tempdir().unwrap();
    let source = match stdin {
        Stdin::Pipe => Stdio::piped(),
        Stdin::File => {
            let path = dir.path().join("requests.txt");
            std::fs::write(&path, input).unwrap();
            Stdio::from(std::fs::File::open(&path).unwrap())
        }
    };
    let mut child = Command::new(env!("CARGO_BIN_EXE_navigator-workflow-mcp"))
        .args(args)
        .stdin(source)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn the MCP server");
    if let Some(mut pipe) = child.stdin.take() {
        pipe.write_all(input.as_bytes()).unwrap();
        // Dropped here: the end of input, with every request still to answer.
    }
    let output = child
        .wait_with_output()
        .expect("the server exits at the end of its input");
    let messages = String::from_utf8(output.stdout)
        .expect("the server writes UTF-8")
        .lines()
        .map(|line| serde_json::from_str(line).expect("server writes JSON lines"))
        .collect();
    (messages, output.status)
}

pub fn initialized() -> Server {
    initialize(Server::spawn())
}

/// Runs the MCP handshake on a spawned server.
pub fn initialize(server: Server) -> Server {
    let mut server = server;
    let init = server.request(
        "initialize",
        json!({ "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": { "name": "e2e", "version": "0" } }),
    );
    assert_eq!(init["result"]["serverInfo"]["name"], "navigator-workflow");
    assert!(init["result"]["capabilities"]["tools"].is_object());
    server.send_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    server
}
