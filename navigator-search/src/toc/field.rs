//! The searchable parts of a node ([`SearchField`]) and how each yields [`SearchMatch`]es.

use super::score::QueryTerms;
use crate::{Error, Result};
use navigator_core::TocNode;
use std::fmt;
use std::str::FromStr;

/// A searchable part of a [`TocNode`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SearchField {
    /// The node title ("January 2026").
    Title,
    /// All bullet texts joined: nodes store no summary, the bullets are the summary. A match
    /// carries the grip ids of every bullet.
    Summary,
    /// Each bullet on its own; a match carries that bullet's grip ids.
    Bullets,
    /// The keywords, scored as one text: they describe the node together, so a query naming
    /// two of them is a full match, not two half matches.
    Keywords,
}

impl SearchField {
    /// Every field, in declaration order: what an empty field list means.
    pub const ALL: [SearchField; 4] = [
        SearchField::Title,
        SearchField::Summary,
        SearchField::Bullets,
        SearchField::Keywords,
    ];

    /// The lower-case name (`title`, `summary`, `bullets`, `keywords`).
    pub fn as_str(self) -> &'static str {
        match self {
            SearchField::Title => "title",
            SearchField::Summary => "summary",
            SearchField::Bullets => "bullets",
            SearchField::Keywords => "keywords",
        }
    }
}

impl fmt::Display for SearchField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for SearchField {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        SearchField::ALL
            .into_iter()
            .find(|f| f.as_str().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| {
                Error::Toc(format!(
                    "unknown search field `{s}` (expected title, summary, bullets or keywords)"
                ))
            })
    }
}

/// One place in a node that matched a query.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchMatch {
    /// Which field matched.
    pub field: SearchField,
    /// The matched text (the title, the joined bullets, one bullet, the joined keywords).
    pub text: String,
    /// The grips that back the text (empty for titles and keywords).
    pub grip_ids: Vec<String>,
    /// [`term_overlap_score`](super::term_overlap_score) of the query against `text`, in
    /// `(0, 1]`.
    pub score: f32,
}

/// The matches of `node` for non-empty `terms`.
pub(crate) fn match_node(
    node: &TocNode,
    terms: &QueryTerms,
    fields: &[SearchField],
) -> Vec<SearchMatch> {
    let fields = if fields.is_empty() {
        &SearchField::ALL[..]
    } else {
        fields
    };
    let mut matches = Vec::new();
    let mut push = |field, text: String, grip_ids: Vec<String>| {
        let score = terms.score(&text);
        if score > 0.0 {
            matches.push(SearchMatch {
                field,
                text,
                grip_ids,
                score,
            });
        }
    };
    for field in SearchField::ALL.into_iter().filter(|f| fields.contains(f)) {
        match field {
            SearchField::Title => push(field, node.title.clone(), Vec::new()),
            SearchField::Summary if !node.bullets.is_empty() => {
                let text = node
                    .bullets
                    .iter()
                    .map(|b| b.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" ");
                let mut grips: Vec<String> = Vec::new();
                for id in node.bullets.iter().flat_map(|b| &b.grip_ids) {
                    if !grips.contains(id) {
                        grips.push(id.clone());
                    }
                }
                push(field, text, grips);
            }
            SearchField::Bullets => {
                for b in &node.bullets {
                    push(field, b.text.clone(), b.grip_ids.clone());
                }
            }
            SearchField::Keywords if !node.keywords.is_empty() => {
                push(field, node.keywords.join(", "), Vec::new());
            }
            SearchField::Summary | SearchField::Keywords => {}
        }
    }
    matches
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_sharing_no_term_are_left_out() {
        let node = TocNode {
            node_id: "toc:day:2026-01-27".into(),
            level: navigator_core::TocLevel::Day,
            title: "Tuesday".into(),
            start_time: chrono::DateTime::UNIX_EPOCH,
            end_time: chrono::DateTime::UNIX_EPOCH,
            bullets: vec![],
            keywords: vec!["redis".into()],
            child_node_ids: vec![],
            version: 0,
            created_at: chrono::DateTime::UNIX_EPOCH,
        };
        let terms = QueryTerms::parse("jwt redis");
        let matches = match_node(&node, &terms, &[]);
        assert_eq!(matches.len(), 1);
        assert_eq!(matches[0].field, SearchField::Keywords);
        assert_eq!(matches[0].score, 0.5);
    }

    #[test]
    fn field_names_parse_case_insensitively_and_unknown_ones_are_named() {
        assert_eq!(
            "Bullets".parse::<SearchField>().unwrap(),
            SearchField::Bullets
        );
        let err = "body".parse::<SearchField>().unwrap_err();
        assert!(err.to_string().contains("`body`"), "{err}");
    }
}
