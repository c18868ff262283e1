//! A tiny HTTP/1.1 server inside the test process that answers with scripted raw replies and
//! records every request, so the real clients can be tested on the wire format without a
//! network: status codes, headers (`retry-after`), bodies, streams cut into chunks, delays.
#![allow(dead_code)] // each test binary uses a different part

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// One scripted answer.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    /// Written one after another with a flush between, to exercise chunk boundaries.
    pub chunks: Vec<String>,
    /// Wait before answering (to trigger client timeouts).
    pub delay: Duration,
    /// Wait between chunks (to trigger stream idle timeouts and deadlines).
    pub chunk_delay: Duration,
}

impl Reply {
    pub fn json(status: u16, body: impl Into<String>) -> Self {
        Self {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            chunks: vec![body.into()],
            delay: Duration::ZERO,
            chunk_delay: Duration::ZERO,
        }
    }

    /// An SSE stream, split into pieces of `piece` bytes regardless of event boundaries.
    pub fn sse(body: &str, piece: usize) -> Self {
        let chunks = body
            .as_bytes()
            .chunks(piece)
            .map(|c| String::from_utf8_lossy(c).into_owned())
            .collect();
        Self {
            status: 200,
            headers: vec![("content-type".into(), "text/event-stream".into())],
            chunks,
            delay: Duration::ZERO,
            chunk_delay: Duration::ZERO,
        }
    }

    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    pub fn chunk_delayed(mut self, delay: Duration) -> Self {
        self.chunk_delay = delay;
        self
    }

    pub fn delayed(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }
}

/// A request as the server saw it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub method: String,
    pub path: String,
    /// Lower-cased names.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Seen {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).expect("request body is JSON")
    }
}

pub struct TestServer {
    pub url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl TestServer {
    /// Serves `replies` in order, one per connection; later connections get a 599.
    pub async fn start(replies: Vec<Reply>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        tokio::spawn(async move {
            let mut replies = replies.into_iter();
            loop {
                let Ok((socket, _)) = listener.accept().await else {
                    return;
                };
                let reply = replies.next().unwrap_or_else(|| {
                    Reply::json(599, "{\"error\":{\"message\":\"script exhausted\"}}")
                });
                let log = log.clone();
                tokio::spawn(async move { serve(socket, reply, log).await });
            }
        });
        Self { url, seen }
    }

    pub fn requests(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

async fn serve(mut socket: TcpStream, reply: Reply, log: Arc<Mutex<Vec<Seen>>>) {
    let Some(seen) = read_request(&mut socket).await else {
        return;
    };
    log.lock().unwrap().push(seen);
    tokio::time::sleep(reply.delay).await;
    let mut head = format!(
        "HTTP/1.1 {} Scripted\r\nconnection: close\r\n",
        reply.status
    );
    for (n, v) in &reply.headers {
        head.push_str(&format!("{n}: {v}\r\n"));
    }
    if reply.chunks.len() == 1 {
        head.push_str(&format!("content-length: {}\r\n", reply.chunks[0].len()));
    }
    head.push_str("\r\n");
    if socket.write_all(head.as_bytes()).await.is_err() {
        return;
    }
    for chunk in &reply.chunks {
        if socket.write_all(chunk.as_bytes()).await.is_err() {
            return;
        }
        let _ = socket.flush().await;
        tokio::task::yield_now().await;
        tokio::time::sleep(reply.chunk_delay).await;
    }
    let _ = socket.shutdown().await;
}

async fn read_request(socket: &mut TcpStream) -> Option<Seen> {
    let mut buf = Vec::new();
    let mut tmp = [0u8; 4096];
    let head_end = loop {
        let n = socket.read(&mut tmp).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&tmp[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.lines();
    let mut first = lines.next()?.split_whitespace();
    let (method, path) = (first.next()?.to_string(), first.next()?.to_string());
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let len: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = buf[head_end + 4..].to_vec();
    while body.len() < len {
        let n = socket.read(&mut tmp).await.ok()?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&tmp[..n]);
    }
    Some(Seen {
        method,
        path,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    })
}

pub fn fixture(name: &str) -> String {
    let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "tests", "fixtures", "llm", name]
        .iter()
        .collect();
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
