//! Server-sent events as both providers stream them: `event:` / `data:` lines, events separated
//! by a blank line. Bytes are buffered until an event is complete, so a chunk boundary inside a
//! multi-byte character or a line never corrupts the text.

/// One complete event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SseEvent {
    /// The `event:` field (Anthropic names its events; OpenAI-compatible servers do not).
    pub event: Option<String>,
    /// The `data:` lines joined with `\n`.
    pub data: String,
}

/// Incremental parser: feed chunks, get the events they complete.
#[derive(Debug, Default)]
pub(crate) struct SseParser {
    buf: Vec<u8>,
}

impl SseParser {
    /// Adds a chunk and returns every event it completed.
    pub fn push(&mut self, chunk: &[u8]) -> Vec<SseEvent> {
        self.buf.extend_from_slice(chunk);
        let mut events = Vec::new();
        while let Some((end, sep)) = find_blank_line(&self.buf) {
            let raw: Vec<u8> = self.buf.drain(..end + sep).collect();
            if let Some(ev) = parse_event(&String::from_utf8_lossy(&raw[..end])) {
                events.push(ev);
            }
        }
        events
    }

    /// The event left in the buffer when the stream ended without a final blank line.
    pub fn finish(&mut self) -> Option<SseEvent> {
        let raw = std::mem::take(&mut self.buf);
        parse_event(&String::from_utf8_lossy(&raw))
    }
}

fn find_blank_line(buf: &[u8]) -> Option<(usize, usize)> {
    (0..buf.len()).find_map(|i| {
        if buf[i..].starts_with(b"\r\n\r\n") {
            Some((i, 4))
        } else if buf[i..].starts_with(b"\n\n") {
            Some((i, 2))
        } else {
            None
        }
    })
}

fn parse_event(raw: &str) -> Option<SseEvent> {
    let mut event = None;
    let mut data: Vec<&str> = Vec::new();
    for line in raw.lines() {
        if let Some(v) = line.strip_prefix("data:") {
            data.push(v.strip_prefix(' ').unwrap_or(v));
        } else if let Some(v) = line.strip_prefix("event:") {
            event = Some(v.trim().to_string());
        }
    }
    if data.is_empty() && event.is_none() {
        return None;
    }
    Some(SseEvent {
        event,
        data: data.join("\n"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_split_across_chunks_are_reassembled() {
        let mut p = SseParser::default();
        assert!(p.push(b"event: message_start\nda").is_empty());
        let evs = p.push(b"ta: {\"a\":1}\n\ndata: x\r\n\r\n: comment\n\n");
        assert_eq!(
            evs,
            vec![
                SseEvent {
                    event: Some("message_start".into()),
                    data: "{\"a\":1}".into()
                },
                SseEvent {
                    event: None,
                    data: "x".into()
                },
            ]
        );
    }

    #[test]
    fn multibyte_character_split_between_chunks_survives() {
        let mut p = SseParser::default();
        let bytes = "data: caf\u{e9}\n\n".as_bytes();
        let cut = bytes.len() - 3; // inside the two-byte é
        assert!(p.push(&bytes[..cut]).is_empty());
        assert_eq!(p.push(&bytes[cut..])[0].data, "caf\u{e9}");
    }

    #[test]
    fn trailing_event_without_blank_line_is_returned_by_finish() {
        let mut p = SseParser::default();
        assert!(p.push(b"data: [DONE]").is_empty());
        assert_eq!(p.finish().unwrap().data, "[DONE]");
        assert!(p.finish().is_none());
    }
}
