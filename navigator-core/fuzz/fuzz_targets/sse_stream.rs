//! The server-sent events parser must never panic on any stream, and must find the same
//! events however the stream is cut into chunks: whole, and in chunks of a size the first
//! byte picks (1 to 64 bytes, so boundaries fall inside lines, `\r\n` pairs and multi-byte
//! characters).
//!
//! Run with `cargo +nightly fuzz run sse_stream` from `navigator-core/`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use navigator_core::{SseEvent, SseParser};

/// Every event of `chunks` fed in order, the last one included.
fn events<'a>(chunks: impl Iterator<Item = &'a [u8]>) -> Vec<SseEvent> {
    let mut parser = SseParser::default();
    let mut out = Vec::new();
    for chunk in chunks {
        out.extend(parser.push(chunk).expect("fuzz inputs are far below the event limit"));
    }
    out.extend(parser.finish());
    out
}

fuzz_target!(|data: &[u8]| {
    let Some((&seed, stream)) = data.split_first() else {
        return;
    };
    let whole = events(std::iter::once(stream));
    let cut = events(stream.chunks(usize::from(seed % 64) + 1));
    assert_eq!(whole, cut);
});
