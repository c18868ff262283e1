//! A JSON-RPC front for the stdio transport: lines that are not JSON get the `-32700 Parse
//! error` reply JSON-RPC 2.0 requires, instead of the silence rmcp gives them; JSON that is no
//! JSON-RPC message gets `-32600 Invalid Request`, and a `tools/call` with malformed params
//! `-32602 Invalid params`, each with the request's id (`null` when it has none).
//!
//! rmcp drops unparsable lines on purpose (a peer that echoes error replies back as more
//! garbage could loop). A client that sends a broken line, though, waits for an answer that
//! never comes; so this front answers each such line exactly once, with `id: null` (or the
//! request's id when the line's text names one, see below), and never answers an answer (a
//! line that parses is passed through untouched, and a parse error reply is valid JSON).
//! Requests for unknown methods reach rmcp, which answers `-32601 Method not found`.
//!
//! Lines are read with a bound ([`MAX_LINE_BYTES`]): a longer one is answered with a parse
//! error and skipped without being kept in memory. A request line that does not parse, or is
//! too long, is answered with its id when a scan of the line finds one ([`sniff_id`]), so the
//! client's call fails instead of waiting.

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// The longest request line accepted (16 MiB).
pub(crate) const MAX_LINE_BYTES: usize = 16 << 20;

/// The JSON-RPC reply for a line that is not JSON, with the id of the request the line was
/// meant to be when it could be read ([`sniff_id`]; else `null`): a client waits for the
/// reply to its request's id, and one with `id: null` leaves it waiting.
fn parse_error_reply_to(id: &Value, detail: &str) -> String {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": { "code": -32700, "message": format!("Parse error: {detail}") }
    })
    .to_string()
}

/// The id a request that names it last (`{"method": ..., "params": ..., "id": 7}`, as the
/// TypeScript SDK writes its requests) gives at the end of `tail`, the last bytes of its line;
/// `null` when the line's `head` names no `"method"` or the tail does not end so.
pub(crate) fn sniff_last_id(head: &[u8], tail: &[u8]) -> Value {
    if !head.windows(8).any(|w| w == b"\"method\"") {
        return Value::Null;
    }
    let end = tail
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(0, |i| i + 1);
    let tail = &tail[..end];
    if tail.last() != Some(&b'}') {
        return Value::Null;
    }
    let Some(at) = tail.windows(4).rposition(|w| w == b"\"id\"") else {
        return Value::Null;
    };
    let rest = &tail[at + 4..tail.len() - 1];
    let value = rest
        .iter()
        .position(|b| !(b.is_ascii_whitespace() || *b == b':'))
        .map_or(&[][..], |i| &rest[i..]);
    // The member must be the object's last: its value, then only the closing brace.
    match serde_json::from_slice::<Value>(value) {
        Ok(id @ (Value::String(_) | Value::Number(_))) => id,
        _ => Value::Null,
    }
}

/// The bytes of an over-long line kept to read its id from.
const HEAD_BYTES: usize = 64 << 10;

/// The id of the request a line that does not parse (or is too long to) was meant to be: the
/// string or number of the top-level `"id"` member, read by a scan that needs no complete
/// document (a request too deeply nested for the parser, or cut short, usually names its id
/// before its params). `null` when there is none, or when the line names no `"method"` (an
/// answer is never answered, not even with its id).
pub(crate) fn sniff_id(text: &[u8]) -> Value {
    let has_method = text.windows(8).any(|w| w == b"\"method\"");
    if !has_method {
        return Value::Null;
    }
    let (mut depth, mut at, mut key_next) = (0usize, 0usize, false);
    while at < text.len() {
        match text[at] {
            b'{' => {
                depth += 1;
                key_next = depth == 1;
            }
            b'[' => {
                depth += 1;
                key_next = false;
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            b',' => key_next = depth == 1,
            b'"' => {
                let start = at;
                at += 1;
                while at < text.len() && text[at] != b'"' {
                    at += if text[at] == b'\\' { 2 } else { 1 };
                }
                let is_key = key_next && depth == 1;
                key_next = false;
                if is_key && text.get(start..=at) == Some(b"\"id\"".as_slice()) {
                    let rest = &text[(at + 1).min(text.len())..];
                    let value = rest
                        .iter()
                        .position(|b| !(b.is_ascii_whitespace() || *b == b':'))
                        .map_or(&[][..], |i| &rest[i..]);
                    let mut values = serde_json::Deserializer::from_slice(value).into_iter();
                    return match values.next() {
                        Some(Ok(id @ (Value::String(_) | Value::Number(_)))) => id,
                        _ => Value::Null,
                    };
                }
            }
            _ => {}
        }
        at += 1;
    }
    Value::Null
}

/// What the front makes of one complete line.
pub(crate) enum Line {
    /// Pass to the server.
    Forward,
    /// Answer with this parse error.
    Reject(String),
    /// Nothing to do (blank).
    Skip,
}

/// Classifies one line (without its newline).
pub(crate) fn classify(line: &[u8]) -> Line {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Line::Skip;
    }
    match serde_json::from_slice::<Value>(line) {
        Ok(message) => match invalid_message_reply(&message) {
            Some(reply) => Line::Reject(reply),
            None => Line::Forward,
        },
        Err(e) => Line::Reject(parse_error_reply_to(&sniff_id(line), &e.to_string())),
    }
}

/// The JSON-RPC error reply (with the request's id, `null` when it has none) for JSON that
/// is no JSON-RPC message (`-32600 Invalid Request`: not an object, no `"jsonrpc": "2.0"`,
/// neither a method nor a result or error), or a `tools/call` whose params are malformed
/// (`-32602 Invalid params`: rmcp answered those `-32601 Method not found`). `None` for what
/// the server should see; an answer (a result or an error) is never answered.
pub fn invalid_message_reply(message: &Value) -> Option<String> {
    let reply = |id: &Value, code: i64, message: String| {
        json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } })
            .to_string()
    };
    let Some(object) = message.as_object() else {
        let what = if message.is_array() {
            "a batch (an array), which this server does not take"
        } else {
            "not an object"
        };
        return Some(reply(
            &Value::Null,
            -32600,
            format!("Invalid Request: {what}"),
        ));
    };
    let id = match object.get("id") {
        Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
        _ => Value::Null,
    };
    let method = object.get("method");
    if method.is_none() && (object.contains_key("result") || object.contains_key("error")) {
        return None;
    }
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Some(reply(
            &id,
            -32600,
            "Invalid Request: `jsonrpc` must be \"2.0\"".into(),
        ));
    }
    let Some(method) = method.and_then(Value::as_str) else {
        return Some(reply(
            &id,
            -32600,
            "Invalid Request: no `method` (a string), and not a result or an error".into(),
        ));
    };
    // rmcp answers these without any `id` member, which no client can match to its call.
    if let Some(bad) = object
        .get("id")
        .filter(|v| !matches!(v, Value::String(_) | Value::Number(_)))
    {
        return Some(reply(
            &Value::Null,
            -32600,
            format!("Invalid Request: `id` must be a string or a number, not {bad}"),
        ));
    }
    if let Some(params) = object
        .get("params")
        .filter(|p| !matches!(p, Value::Object(_) | Value::Null))
    {
        let kind = if params.is_array() {
            "an array"
        } else {
            "not an object"
        };
        return Some(reply(
            &id,
            -32602,
            format!(
                "Invalid params: `params` must be an object (MCP passes them by name), not {kind}"
            ),
        ));
    }
    if method == "tools/call" {
        let params = object.get("params");
        let problem = match params {
            Some(Value::Object(p)) => match (p.get("name"), p.get("arguments")) {
                (Some(Value::String(_)), None | Some(Value::Object(_) | Value::Null)) => None,
                (Some(Value::String(_)), Some(_)) => Some("`params.arguments` must be an object"),
                _ => Some("`params.name` must be the tool's name, a string"),
            },
            _ => Some("`params` must be an object with the tool's `name` and its `arguments`"),
        };
        if let Some(problem) = problem {
            return Some(reply(&id, -32602, format!("Invalid params: {problem}")));
        }
    }
    None
}

/// Reads `input` line by line: JSON lines go to `to_server`, parse errors to `replies`.
async fn pump_input(
    input: impl AsyncRead + Unpin,
    mut to_server: DuplexStream,
    replies: mpsc::UnboundedSender<String>,
) {
    let mut reader = BufReader::new(input);
    let mut line = Vec::new();
    let mut oversized = false;
    // The start and the end of an over-long line, for its id.
    let mut head = Vec::new();
    let mut tail: Vec<u8> = Vec::new();
    loop {
        let buf = reader.fill_buf().await.unwrap_or_default();
        let end = buf.is_empty();
        if end && line.is_empty() && !oversized {
            break;
        }
        // At the end of the input a last line without its newline is a line all the same.
        let (take, complete) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (buf.len(), end),
        };
        if !oversized {
            line.extend_from_slice(&buf[..take]);
            if line.len() > MAX_LINE_BYTES {
                oversized = true;
                tail = line[line.len() - HEAD_BYTES..].to_vec();
                line.truncate(HEAD_BYTES);
                head = std::mem::take(&mut line);
            }
        } else {
            tail.extend_from_slice(&buf[..take]);
            if tail.len() > 2 * HEAD_BYTES {
                tail.drain(..tail.len() - HEAD_BYTES);
            }
        }
        reader.consume(take);
        if !complete {
            continue;
        }
        if !line.ends_with(b"\n") {
            line.push(b'\n');
        }
        let body = line.strip_suffix(b"\n").unwrap_or(&line);
        let verdict = if oversized {
            let id = match sniff_id(&head) {
                Value::Null => sniff_last_id(&head, &tail),
                id => id,
            };
            Line::Reject(parse_error_reply_to(
                &id,
                &format!("line longer than {MAX_LINE_BYTES} bytes"),
            ))
        } else {
            classify(body)
        };
        match verdict {
            Line::Forward => {
                if to_server.write_all(&line).await.is_err() {
                    break;
                }
            }
            Line::Reject(reply) => {
                if replies.send(reply).is_err() {
                    break;
                }
            }
            Line::Skip => {}
        }
        line.clear();
        head.clear();
        tail.clear();
        oversized = false;
        if end {
            break;
        }
    }
    let _ = to_server.shutdown().await;
}

/// Copies the server's output lines and the parse-error replies to `output`, whole lines
/// only, so the two never interleave inside a line. Returns once both are exhausted, or once
/// the server has stopped and the replies already queued are written: a server that stops
/// while the input is still open must not keep its process waiting on the input.
async fn pump_output(
    from_server: DuplexStream,
    mut replies: mpsc::UnboundedReceiver<String>,
    mut output: impl AsyncWrite + Unpin,
) {
    let mut lines = BufReader::new(from_server);
    let mut line = Vec::new();
    loop {
        // Parse errors first: the one for a line is queued before any later line reaches the
        // server, so a client reads it before the replies to the requests after that line.
        tokio::select! {
            biased;
            reply = replies.recv() => match reply {
                Some(reply) => {
                    let text = format!("{reply}\n");
                    if output.write_all(text.as_bytes()).await.is_err()
                        || output.flush().await.is_err()
                    {
                        return;
                    }
                }
                None => {
                    // The input side is done; drain what the server still says.
                    while let Ok(n) = lines.read_until(b'\n', &mut line).await {
                        if n == 0 || output.write_all(&line).await.is_err() {
                            break;
                        }
                        let _ = output.flush().await;
                        line.clear();
                    }
                    return;
                }
            },
            read = lines.read_until(b'\n', &mut line) => {
                match read {
                    Ok(0) | Err(_) => {
                        // Every parse error for a line before the end of the input was
                        // queued before the server saw that end, so all are queued now.
                        while let Ok(reply) = replies.try_recv() {
                            let text = format!("{reply}\n");
                            if output.write_all(text.as_bytes()).await.is_err() {
                                return;
                            }
                        }
                        let _ = output.flush().await;
                        return;
                    }
                    Ok(_) => {
                        if output.write_all(&line).await.is_err() || output.flush().await.is_err() {
                            return;
                        }
                        line.clear();
                    }
                }
            }
        }
    }
}

/// Puts the front between `input`/`output` and the server: returns the reader and writer
/// the server should be served on, and spawns the two pumps. The handle is the output pump:
/// it finishes once the server's writer is dropped and everything it wrote is on `output`.
pub(crate) fn front(
    input: impl AsyncRead + Unpin + Send + 'static,
    output: impl AsyncWrite + Unpin + Send + 'static,
) -> (DuplexStream, DuplexStream, JoinHandle<()>) {
    let (to_server, server_in) = tokio::io::duplex(1 << 16);
    let (server_out, from_server) = tokio::io::duplex(1 << 16);
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(pump_input(input, to_server, tx));
    let output = tokio::spawn(pump_output(from_server, rx, output));
    (server_in, server_out, output)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_id_of_a_request_that_does_not_parse_is_read_from_its_text() {
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"arguments":{{"x":{}}}}}}}"#,
            "[".repeat(100_000)
        );
        assert!(serde_json::from_str::<Value>(&deep).is_err());
        assert_eq!(sniff_id(deep.as_bytes()), json!(7));
        // A string id, after other members; an `id` inside the params is not the request's.
        let cut = r#"{"jsonrpc":"2.0","params":{"id":1,"x":"a\"id\":"},"id" : "req-9","method":"tools/call","params":{"#;
        assert_eq!(sniff_id(cut.as_bytes()), json!("req-9"));
        // No id, an id of another type, an answer: null.
        assert_eq!(
            sniff_id(br#"{"jsonrpc":"2.0","method":"x","params":["#),
            Value::Null
        );
        assert_eq!(sniff_id(br#"{"id":{"a":1},"method":"x","#), Value::Null);
        assert_eq!(
            sniff_id(br#"{"jsonrpc":"2.0","id":3,"result":{"#),
            Value::Null
        );
        // Named last, as the TypeScript SDK writes it: read from the line's end.
        let head = br#"{"method":"tools/call","params":{"arguments":{"x":"aaaa"#;
        assert_eq!(
            sniff_last_id(head, br#"aaaa"}},"jsonrpc":"2.0","id":42}"#),
            json!(42)
        );
        assert_eq!(
            sniff_last_id(head, b"aaa\"}},\"id\": \"r-1\" }\n"),
            json!("r-1")
        );
        // An `id` that is not the last member, or a line that is no request: null.
        assert_eq!(sniff_last_id(head, br#""id":4,"x":1}"#), Value::Null);
        assert_eq!(sniff_last_id(br#"{"result":{"#, br#""id":4}"#), Value::Null);
        match classify(deep.as_bytes()) {
            Line::Reject(reply) => {
                let reply: Value = serde_json::from_str(&reply).unwrap();
                assert_eq!(reply["id"], json!(7), "{reply}");
                assert_eq!(reply["error"]["code"], json!(-32700), "{reply}");
            }
            _ => panic!("a line that does not parse must be rejected"),
        }
    }

    #[test]
    fn json_that_is_no_json_rpc_message_gets_an_invalid_request_with_its_id() {
        let code = |line: &str| match classify(line.as_bytes()) {
            Line::Reject(reply) => {
                let v: Value = serde_json::from_str(&reply).unwrap();
                assert!(v.as_object().unwrap().contains_key("id"), "{reply}");
                (v["error"]["code"].as_i64(), v["id"].clone())
            }
            Line::Forward => (None, Value::Null),
            Line::Skip => panic!("{line} skipped"),
        };
        assert_eq!(code("[]"), (Some(-32600), Value::Null));
        assert_eq!(code(r#"{"foo":1}"#), (Some(-32600), Value::Null));
        assert_eq!(code(r#"{"jsonrpc":"2.0"}"#), (Some(-32600), Value::Null));
        assert_eq!(
            code(r#"{"jsonrpc":"1.0","id":4,"method":"ping"}"#),
            (Some(-32600), json!(4))
        );
        assert_eq!(
            code(
                r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"search","arguments":"q"}}"#
            ),
            (Some(-32602), json!("a"))
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"arguments":{}}}"#),
            (Some(-32602), json!(5))
        );
        // Parameters by position, and ids of other types (which rmcp answered without any
        // `id` member): with the id when it is one, else null.
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":"x","method":"ping","params":[1]}"#),
            (Some(-32602), json!("x"))
        );
        for bad in ["null", "true", "{}", "[1]"] {
            let line = format!(r#"{{"jsonrpc":"2.0","id":{bad},"method":"ping"}}"#);
            assert_eq!(code(&line), (Some(-32600), Value::Null), "{line}");
        }
        // Requests, notifications and answers pass.
        for ok in [
            r#"{"jsonrpc":"2.0","id":7,"method":"ping","params":null}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":"x"}}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"status"}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"no/such/method"}"#,
            r#"{"jsonrpc":"2.0","id":3,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#,
        ] {
            assert_eq!(code(ok), (None, Value::Null), "{ok}");
        }
    }

    #[test]
    fn broken_lines_get_a_parse_error_and_json_passes() {
        assert!(matches!(
            classify(b"{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":1}"),
            Line::Forward
        ));
        assert!(matches!(classify(b"  \r"), Line::Skip));
        let Line::Reject(reply) = classify(b"{not json") else {
            panic!("a broken line must be rejected");
        };
        let v: Value = serde_json::from_str(&reply).unwrap();
        assert_eq!(v["error"]["code"], -32700);
        assert_eq!(v["id"], Value::Null);
        // The reply is itself JSON: echoed back, it is forwarded, not answered again.
        assert!(matches!(classify(reply.as_bytes()), Line::Forward));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(5000))]

        /// Fuzzing as a property: any line is either passed on (it is JSON), skipped (blank)
        /// or answered with exactly one JSON-RPC error (a parse error when it is not JSON),
        /// never a panic.
        #[test]
        fn any_line_is_forwarded_skipped_or_answered_with_a_parse_error(
            line in proptest::collection::vec(proptest::num::u8::ANY, 0..200),
        ) {
            let json_ok = serde_json::from_slice::<Value>(
                line.strip_suffix(b"\r").unwrap_or(&line),
            )
            .is_ok();
            match classify(&line) {
                Line::Forward => proptest::prop_assert!(json_ok),
                Line::Skip => proptest::prop_assert!(line.iter().all(u8::is_ascii_whitespace)),
                Line::Reject(reply) => {
                    let v: Value = serde_json::from_str(&reply).unwrap();
                    let expected = if json_ok { -32600 } else { -32700 };
                    proptest::prop_assert_eq!(&v["error"]["code"], &json!(expected));
                }
            }
        }

        /// Lines that look like JSON-RPC requests, cut short anywhere, are answered too.
        #[test]
        fn truncated_requests_are_answered_with_a_parse_error(cut in 1usize..60) {
            let request = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}"#;
            let cut = cut.min(request.len() - 1);
            proptest::prop_assert!(matches!(classify(&request[..cut]), Line::Reject(_)));
        }
    }
}
