//! Resource URIs: `navigator://note/{id}` (a note or folder, by item id), `navigator://category/
//! {category}` (a category's listing), `navigator://flight-plan/{n}` (a Flight Plan of this
//! session).
//!
//! Ids are vault paths with spaces and any other character, so each `/`-separated segment is
//! percent-encoded; reading decodes the whole tail, so a client that encoded the `/` as well
//! (`{id}` expanded by RFC 6570 rules) reaches the same note.

use percent_encoding::{percent_decode_str, utf8_percent_encode, AsciiSet, CONTROLS};

/// Characters encoded in a segment: everything a URI path cannot hold or would misread.
const SEGMENT: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'[')
    .add(b']')
    .add(b'\\')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

/// The note resource scheme prefix.
pub(crate) const NOTE: &str = "navigator://note/";
/// The category listing prefix.
pub(crate) const CATEGORY: &str = "navigator://category/";
/// The Flight Plan prefix.
pub(crate) const FLIGHT_PLAN: &str = "navigator://flight-plan/";

/// The URI of the item `id`.
pub(crate) fn note(id: &str) -> String {
    let encoded: Vec<String> = id
        .split('/')
        .map(|s| utf8_percent_encode(s, SEGMENT).to_string())
        .collect();
    format!("{NOTE}{}", encoded.join("/"))
}

/// The item id in a note URI; `None` when `uri` is not one or does not decode.
pub(crate) fn note_id(uri: &str) -> Option<String> {
    let tail = uri.strip_prefix(NOTE)?;
    let id = percent_decode_str(tail).decode_utf8().ok()?.into_owned();
    (!id.is_empty()).then_some(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_with_spaces_and_symbols_round_trip() {
        for id in [
            "1 Projects/Website Relaunch/Project brief.md",
            "3 Resources/C# & F#/100% done?.md",
            "Projects/Phoenix/",
        ] {
            let uri = note(id);
            assert!(!uri.contains(' '), "{uri}");
            assert_eq!(note_id(&uri).as_deref(), Some(id), "{uri}");
        }
        assert_eq!(
            note_id("navigator://note/1%20Projects%2FBrief.md").as_deref(),
            Some("1 Projects/Brief.md")
        );
        assert_eq!(note_id("navigator://other/x"), None);
        assert_eq!(note_id(NOTE), None);
    }
}
