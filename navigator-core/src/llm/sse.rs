//! Server-sent events as both providers stream them: `event:` / `data:` lines ended by `\n`
//! or `\r\n`, events separated by a blank line. Bytes are buffered until a line is complete,
//! so a chunk boundary inside a multi-byte character or a line never corrupts the text. One
//! event may hold at most [`MAX_EVENT_BYTES`]: a server that never ends its event is an error,
//! not unbounded memory.

/// The largest event accepted (its unfinished line plus its data so far).
pub const MAX_EVENT_BYTES: usize = 16 << 20;

/// One complete event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field (Anthropic names its events; OpenAI-compatible servers do not).
    pub event: Option<String>,
    /// The `data:` lines joined with `\n`.
    pub data: String,
}

/// Incremental parser: feed chunks, get the events they complete.
///
/// Linear in the stream length: each byte is looked at once when its chunk arrives (only the
/// new bytes are searched for a line end), finished lines are folded into the event being
/// built, and the buffer keeps at most one unfinished line. The old approach, searching the
/// whole buffer for a blank line on every chunk and draining it from the front, was
/// quadratic for an event delivered in many small chunks.
///
/// ```
/// use navigator_core::SseParser;
/// let mut parser = SseParser::default();
/// assert!(parser.push(b"event: ping\nda").unwrap().is_empty());
/// let events = parser.push(b"ta: {}\n\n").unwrap();
/// assert_eq!((events[0].event.as_deref(), events[0].data.as_str()), (Some("ping"), "{}"));
/// ```
#[derive(Debug, Default)]
pub struct SseParser {
    /// The unfinished line (bytes after the last line end).
    line: Vec<u8>,
    /// The event being built from the lines seen since the last blank line.
    event: Option<String>,
    data: Option<String>,
}

impl SseParser {
    /// Adds a chunk and returns every event it completed, or an error when the event being
    /// built outgrows [`MAX_EVENT_BYTES`].
    pub fn push(&mut self, chunk: &[u8]) -> Result<Vec<SseEvent>, String> {
        let mut events = Vec::new();
        let mut rest = chunk;
        while let Some(i) = rest.iter().position(|&b| b == b'\n') {
            let (head, tail) = rest.split_at(i);
            rest = &tail[1..];
            if self.line.is_empty() {
                self.take_line(head, &mut events);
            } else {
                self.line.extend_from_slice(head);
                let line = std::mem::take(&mut self.line);
                self.take_line(&line, &mut events);
                self.line = line;
                self.line.clear();
            }
        }
        self.line.extend_from_slice(rest);
        let pending = self.line.len() + self.data.as_ref().map_or(0, String::len);
        if pending > MAX_EVENT_BYTES {
            return Err(format!(
                "a server-sent event grew past {MAX_EVENT_BYTES} bytes without ending"
            ));
        }
        Ok(events)
    }

    /// The event left over when the stream ended without a final blank line.
    pub fn finish(&mut self) -> Option<SseEvent> {
        let mut events = Vec::new();
        if !self.line.is_empty() {
            let line = std::mem::take(&mut self.line);
            self.take_line(&line, &mut events);
        }
        self.take_line(b"", &mut events);
        events.pop()
    }

    /// Folds one complete line (without its `\n`) into the event; a blank line ends it.
    fn take_line(&mut self, line: &[u8], events: &mut Vec<SseEvent>) {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() {
            if self.data.is_some() || self.event.is_some() {
                events.push(SseEvent {
                    event: self.event.take(),
                    data: self.data.take().unwrap_or_default(),
                });
            }
            return;
        }
        // A line ending is never inside a UTF-8 sequence, so a whole line decodes cleanly
        // however the chunks were cut.
        let line = String::from_utf8_lossy(line);
        if let Some(v) = line.strip_prefix("data:") {
            let v = v.strip_prefix(' ').unwrap_or(v);
            match &mut self.data {
                Some(d) => {
                    d.push('\n');
                    d.push_str(v);
                }
                None => self.data = Some(v.to_string()),
            }
        } else if let Some(v) = line.strip_prefix("event:") {
            self.event = Some(v.trim().to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_split_across_chunks_are_reassembled() {
        let mut p = SseParser::default();
        assert!(p.push(b"event: message_start\nda").unwrap().is_empty());
        let evs = p
            .push(b"ta: {\"a\":1}\n\ndata: x\r\n\r\n: comment\n\n")
            .unwrap();
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
        assert!(p.push(&bytes[..cut]).unwrap().is_empty());
        assert_eq!(p.push(&bytes[cut..]).unwrap()[0].data, "caf\u{e9}");
    }

    #[test]
    fn trailing_event_without_blank_line_is_returned_by_finish() {
        let mut p = SseParser::default();
        assert!(p.push(b"data: [DONE]").unwrap().is_empty());
        assert_eq!(p.finish().unwrap().data, "[DONE]");
        assert!(p.finish().is_none());
    }

    /// Defect 8: the parser was quadratic in the stream length. Feeding a 2 MB stream one
    /// byte at a time (the worst case for the old rescan) must give every event, intact;
    /// `benches/parsing.rs` shows the time per byte staying flat.
    #[test]
    fn sse_parser_is_linear_in_stream_length_and_exact() {
        let mut stream = Vec::new();
        let mut expected = Vec::new();
        for i in 0..20_000 {
            let data = format!("{{\"i\":{i},\"t\":\"{}\"}}", "x".repeat(i % 97));
            stream.extend_from_slice(format!("event: e{i}\r\ndata: {data}\r\n\r\n").as_bytes());
            expected.push(data);
        }
        // One huge event as well, split in odd pieces.
        let big = "y".repeat(1 << 20);
        stream.extend_from_slice(format!("data: {big}\n\n").as_bytes());
        expected.push(big);
        let mut p = SseParser::default();
        let mut got = Vec::new();
        for piece in stream.chunks(1) {
            got.extend(p.push(piece).unwrap().into_iter().map(|e| e.data));
        }
        assert!(p.finish().is_none());
        assert_eq!(got.len(), expected.len());
        assert!(got == expected);
    }

    #[test]
    fn an_event_that_never_ends_is_an_error_not_unbounded_memory() {
        let mut p = SseParser::default();
        let piece = vec![b'z'; 1 << 20];
        p.push(b"data: ").unwrap();
        let mut failed = None;
        for i in 0..64 {
            if let Err(e) = p.push(&piece) {
                failed = Some((i, e));
                break;
            }
        }
        let (i, e) = failed.expect("the event was refused");
        assert_eq!(i, 15);
        assert!(e.contains("bytes without ending"), "{e}");
    }

    fn parse_all(stream: &[u8], cuts: &[usize]) -> Vec<SseEvent> {
        let mut p = SseParser::default();
        let mut events = Vec::new();
        let mut at = 0;
        for &cut in cuts {
            let cut = cut.clamp(at, stream.len());
            events.extend(p.push(&stream[at..cut]).unwrap());
            at = cut;
        }
        events.extend(p.push(&stream[at..]).unwrap());
        events.extend(p.finish());
        events
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        /// Fuzzing as a property: any bytes (SSE-shaped or not), cut anywhere, parse without
        /// a panic into exactly the events of the uncut stream.
        #[test]
        fn any_stream_cut_anywhere_gives_the_events_of_the_whole(
            parts in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::strategy::Just(b"data: ".to_vec()),
                    proptest::strategy::Just(b"event: x\n".to_vec()),
                    proptest::strategy::Just(b"\n".to_vec()),
                    proptest::strategy::Just(b"\r\n".to_vec()),
                    proptest::strategy::Just(b": comment\n".to_vec()),
                    proptest::strategy::Just("caf\u{e9} \u{1f600}".as_bytes().to_vec()),
                    proptest::collection::vec(proptest::num::u8::ANY, 0..12),
                ],
                0..40,
            ),
            cuts in proptest::collection::vec(0usize..400, 0..12),
        ) {
            let stream: Vec<u8> = parts.concat();
            let mut cuts = cuts;
            cuts.sort_unstable();
            let whole = parse_all(&stream, &[]);
            proptest::prop_assert_eq!(parse_all(&stream, &cuts), whole);
        }
    }
}
