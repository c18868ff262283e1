//! `navigator mcp` driven over its stdio: a data directory with the sample vault indexed, the
//! server spawned on it, newline-delimited JSON-RPC.
#![allow(dead_code)] // each test binary uses a different part

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Output, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// `navigator` with the runtime and model of the test environment, `home` as data directory.
pub fn navigator(home: &Path) -> Command {
    // The runtime and model come from the test environment's own lookup, passed explicitly
    // since NAVIGATOR_HOME here is the data directory under test.
    let paths =
        navigator_core::EmbeddingPaths::locate(None, None).expect("runtime and model installed");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_navigator"));
    cmd.env("NAVIGATOR_HOME", home)
        .env("NAVIGATOR_ORT_DYLIB", paths.ort_dylib)
        .env("NAVIGATOR_MODEL_DIR", paths.model_dir);
    cmd
}

/// A data directory and a writable copy of the sample vault.
pub struct Fixture {
    pub dir: tempfile::TempDir,
}

impl Fixture {
    /// The copy, not yet indexed.
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("home")).unwrap();
        copy_dir(
            &repo_root().join("examples/data/vault"),
            &dir.path().join("vault"),
        );
        Fixture { dir }
    }

    /// The copy, indexed with `navigator index`.
    pub fn indexed() -> Self {
        let f = Self::new();
        let out = navigator(&f.home())
            .args(["index", "--quiet"])
            .arg(f.vault())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out));
        f
    }

    pub fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    pub fn vault(&self) -> PathBuf {
        self.dir.path().join("vault").canonicalize().unwrap()
    }

    /// The server on this fixture, handshake done.
    pub fn serve(&self) -> Server {
        self.serve_with(&[])
    }

    /// The server with more arguments.
    pub fn serve_with(&self, args: &[&std::ffi::OsStr]) -> Server {
        let mut cmd = navigator(&self.home());
        cmd.arg("mcp").arg("--vault").arg(self.vault()).args(args);
        Server::spawn(cmd).initialized()
    }
}

pub fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

pub struct Server {
    pub child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    next_id: u64,
}

impl Server {
    pub fn spawn(mut cmd: Command) -> Self {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn navigator mcp");
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

    pub fn initialized(mut self) -> Self {
        let reply = self.request(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": { "name": "navigator-tests", "version": "0" }
            }),
        );
        assert_eq!(
            reply["result"]["serverInfo"]["name"], "navigator",
            "{reply}"
        );
        self.send_line(
            &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
        );
        self
    }

    pub fn send_line(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Sends a request without waiting; returns its id.
    pub fn send(&mut self, method: &str, params: Value) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send_line(
            &json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }).to_string(),
        );
        id
    }

    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send(method, params);
        self.response(id)
    }

    /// The response with this id, skipping notifications and other responses.
    pub fn response(&mut self, id: u64) -> Value {
        loop {
            // A hang guard, not a timing assertion: a missing reply would block forever.
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(120))
                .expect("the server replied");
            let message: Value = serde_json::from_str(&line).expect("JSON lines");
            if message["id"] == json!(id) {
                return message;
            }
        }
    }

    /// The next message the server writes, whatever its id.
    pub fn next_message(&mut self) -> Value {
        let line = self
            .lines
            .recv_timeout(Duration::from_secs(120))
            .expect("the server replied");
        serde_json::from_str(&line).expect("JSON lines")
    }

    /// Calls a tool: (isError, structuredContent).
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

    /// A failing call's error code.
    pub fn error_code(&mut self, tool: &str, arguments: Value) -> String {
        let (is_error, content) = self.call(tool, arguments);
        assert!(is_error, "{tool} should fail: {content}");
        content["error"]["code"].as_str().unwrap().to_string()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
