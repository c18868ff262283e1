//! A note file → its item: front matter (YAML), markdown, placement by folder. Any bytes must
//! give an item that passes the item contract and survives a JSON round trip, or a reason to
//! skip the note — never a panic. The first line of the input is the note's path in the
//! vault, the rest its text.
//!
//! Run with `cargo +nightly fuzz run note corpus/note seeds/note` from
//! `navigator-search/fuzz/`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use navigator_core::Item;
use navigator_search::ingest::{front_matter, markdown, note_to_item, ParaLayout};

fuzz_target!(|data: &[u8]| {
    let Ok(input) = std::str::from_utf8(data) else {
        return;
    };
    let (path, text) = input.split_once('\n').unwrap_or(("Resources/note.md", input));
    let modified = chrono::DateTime::from_timestamp(1_700_000_000, 0).expect("a valid time");
    // The parts on their own: front matter split and parse, markdown.
    if let (Some(block), body) = front_matter::split(text) {
        let _ = front_matter::parse(block);
        let _ = markdown::parse(body);
    }
    let _ = markdown::parse(text);
    match note_to_item(path, text, &ParaLayout::default(), modified) {
        Ok((item, _warnings)) => {
            item.validate().expect("an ingested item passes the item contract");
            assert!(!item.title.trim().is_empty());
            assert!(item.updated_at >= item.created_at);
            let json = serde_json::to_string(&item).expect("an item serialises");
            let back: Item = serde_json::from_str(&json).expect("an item deserialises");
            assert_eq!(back, item);
        }
        Err((_reason, message)) => assert!(!message.is_empty()),
    }
});
