//! What the Navigator answers: [`NavigatorResponse`], one variant per [`Action`], with
//! [`SearchMetadata`], [`Clarification`] and [`NavigationTarget`].
//!
//! Parse, don't validate: each action is its own variant holding only the fields that action
//! has, so a `clarify` cannot carry results and a `navigate` always has its target. On the wire
//! the variant is the `action` field (an internally tagged enum), so the JSON keeps the
//! design's flat shape: `{"action": "navigate", "navigationTarget": {...}}`.

use super::checks;
use crate::{Category, Error, ItemType, Result, SearchResult};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Facts about how a search ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SearchMetadata {
    /// The query that was run.
    pub query: String,
    /// The categories that were searched.
    pub categories_searched: Vec<Category>,
    /// How many items matched in all (before `limit`/`offset`).
    pub total_results: u64,
    /// Wall time of the search in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search_duration_ms: Option<f64>,
    /// Whether the query was embedded (semantic or hybrid search ran).
    pub embedding_used: bool,
    /// The filters that were applied, flattened to strings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filters: Option<BTreeMap<String, String>>,
}

/// A question back to the user when the request is ambiguous.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Clarification {
    /// The question.
    #[serde(deserialize_with = "checks::non_empty")]
    pub question: String,
    /// Why it is asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// Categories the user may want to scope the search to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggested_scopes: Option<Vec<Category>>,
}

/// The single item a `navigate` response points at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NavigationTarget {
    /// The item's id.
    #[serde(deserialize_with = "checks::non_empty")]
    pub item_id: String,
    /// The item's type.
    pub item_type: ItemType,
    /// The item's category.
    pub category: Category,
}

/// What kind of answer a [`NavigatorResponse`] is: its `action` on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Ranked results.
    SearchResults,
    /// Nothing matched; `suggestions` say what to try.
    NoResults,
    /// The request is ambiguous; `clarificationQuestion` asks.
    Clarify,
    /// One item is the answer; `navigationTarget` points at it.
    Navigate,
}

impl Action {
    /// The `action` value on the wire (`search_results`, `no_results`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::SearchResults => "search_results",
            Self::NoResults => "no_results",
            Self::Clarify => "clarify",
            Self::Navigate => "navigate",
        }
    }
}

impl std::fmt::Display for Action {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The `results` of a `no_results` answer: always the empty list on the wire (the design's
/// shape), and nothing else parses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NoHits;

impl Serialize for NoHits {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        s.serialize_seq(Some(0))?.end()
    }
}

impl<'de> Deserialize<'de> for NoHits {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let hits = Vec::<serde::de::IgnoredAny>::deserialize(d)?;
        match hits.len() {
            0 => Ok(NoHits),
            n => Err(serde::de::Error::custom(format!(
                "must be empty when action is no_results, got {n} result(s)"
            ))),
        }
    }
}

impl JsonSchema for NoHits {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "NoHits".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "array", "maxItems": 0})
    }
}

/// The Navigator's answer: one variant per action, each with only the fields it has.
///
/// ```
/// use navigator_core::{from_json, Action, NavigatorResponse};
/// let r: NavigatorResponse = from_json(r#"{"action":"navigate",
///     "navigationTarget":{"itemId":"proj_phoenix","itemType":"project","category":"project"}}"#)?;
/// assert_eq!(r.action(), Action::Navigate);
/// if let NavigatorResponse::Navigate { navigation_target } = &r {
///     assert_eq!(navigation_target.item_id, "proj_phoenix");
/// }
/// // A clarify that carries results is not a NavigatorResponse.
/// assert!(from_json::<NavigatorResponse>(r#"{"action":"clarify",
///     "clarificationQuestion":{"question":"Which one?"},"results":[]}"#).is_err());
/// # Ok::<(), navigator_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(tag = "action", rename_all = "snake_case", deny_unknown_fields)]
pub enum NavigatorResponse {
    /// Ranked results; `suggestions` carry hints such as how to restore an archived hit.
    #[serde(rename_all = "camelCase")]
    SearchResults {
        /// The ranked hits, best first.
        results: Vec<SearchResult>,
        /// How the search ran.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        search_metadata: Option<SearchMetadata>,
        /// Hints about the hits (restore an archived item, ...).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        suggestions: Option<Vec<String>>,
    },
    /// Nothing matched; `suggestions` say what to try instead.
    #[serde(rename_all = "camelCase")]
    NoResults {
        /// Always the empty list.
        #[serde(default)]
        results: NoHits,
        /// How the search ran.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        search_metadata: Option<SearchMetadata>,
        /// Query refinements to try.
        suggestions: Vec<String>,
    },
    /// The request is ambiguous: a question back, and how the search that showed it ran.
    #[serde(rename_all = "camelCase")]
    Clarify {
        /// The question.
        clarification_question: Clarification,
        /// How the search ran, when one did.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        search_metadata: Option<SearchMetadata>,
    },
    /// One item is the answer.
    #[serde(rename_all = "camelCase")]
    Navigate {
        /// The item to open.
        navigation_target: NavigationTarget,
    },
}

impl NavigatorResponse {
    /// A `search_results` answer.
    pub fn search_results(results: Vec<SearchResult>, metadata: SearchMetadata) -> Self {
        Self::SearchResults {
            results,
            search_metadata: Some(metadata),
            suggestions: None,
        }
    }

    /// A `no_results` answer with refinement suggestions.
    pub fn no_results(metadata: SearchMetadata, suggestions: Vec<String>) -> Self {
        Self::NoResults {
            results: NoHits,
            search_metadata: Some(metadata),
            suggestions,
        }
    }

    /// A `clarify` answer.
    pub fn clarify(question: Clarification) -> Self {
        Self::Clarify {
            clarification_question: question,
            search_metadata: None,
        }
    }

    /// A `navigate` answer.
    pub fn navigate(target: NavigationTarget) -> Self {
        Self::Navigate {
            navigation_target: target,
        }
    }

    /// Which action this is.
    pub fn action(&self) -> Action {
        match self {
            Self::SearchResults { .. } => Action::SearchResults,
            Self::NoResults { .. } => Action::NoResults,
            Self::Clarify { .. } => Action::Clarify,
            Self::Navigate { .. } => Action::Navigate,
        }
    }

    /// The hits: empty for every action but `search_results`.
    pub fn hits(&self) -> &[SearchResult] {
        match self {
            Self::SearchResults { results, .. } => results,
            _ => &[],
        }
    }

    /// How the search ran, when the answer says.
    pub fn metadata(&self) -> Option<&SearchMetadata> {
        match self {
            Self::SearchResults {
                search_metadata, ..
            }
            | Self::NoResults {
                search_metadata, ..
            }
            | Self::Clarify {
                search_metadata, ..
            } => search_metadata.as_ref(),
            Self::Navigate { .. } => None,
        }
    }

    /// The suggestions (`no_results`) or hints (`search_results`); empty otherwise.
    pub fn suggestions(&self) -> &[String] {
        match self {
            Self::SearchResults { suggestions, .. } => suggestions.as_deref().unwrap_or_default(),
            Self::NoResults { suggestions, .. } => suggestions,
            _ => &[],
        }
    }

    /// The question of a `clarify`.
    pub fn clarification(&self) -> Option<&Clarification> {
        match self {
            Self::Clarify {
                clarification_question,
                ..
            } => Some(clarification_question),
            _ => None,
        }
    }

    /// The target of a `navigate`.
    pub fn navigation_target(&self) -> Option<&NavigationTarget> {
        match self {
            Self::Navigate { navigation_target } => Some(navigation_target),
            _ => None,
        }
    }

    /// Checks every hit of a response built or changed in code (parsing already did), naming
    /// the hit's path (`results[1].relevanceScore`). The shape itself needs no check: each
    /// variant holds exactly what its action has.
    pub fn validate(&self) -> Result<()> {
        for (i, hit) in self.hits().iter().enumerate() {
            hit.validate().map_err(|e| match e {
                Error::InvalidField { field, message } => {
                    Error::invalid(format!("results[{i}].{field}"), message)
                }
                other => other,
            })?;
        }
        Ok(())
    }
}

/// The flat wire form, parsed first so every field error keeps its path
/// (`results[1].relevanceScore`); [`NavigatorResponse::from_wire`] then turns it into the
/// variant of its action, naming any field that action does not have.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Wire {
    action: Action,
    #[serde(default)]
    results: Option<Vec<SearchResult>>,
    #[serde(default)]
    search_metadata: Option<SearchMetadata>,
    #[serde(default)]
    clarification_question: Option<Clarification>,
    #[serde(default)]
    navigation_target: Option<NavigationTarget>,
    #[serde(default)]
    suggestions: Option<Vec<String>>,
}

impl NavigatorResponse {
    fn from_wire(w: Wire) -> Result<Self> {
        let action = w.action;
        let forbid = |present: bool, field: &str| {
            if present {
                Err(Error::invalid(
                    field,
                    format!("is not allowed when action is {action}"),
                ))
            } else {
                Ok(())
            }
        };
        let require =
            |field: &str| Error::invalid(field, format!("is required when action is {action}"));
        match action {
            Action::SearchResults => {
                forbid(w.clarification_question.is_some(), "clarificationQuestion")?;
                forbid(w.navigation_target.is_some(), "navigationTarget")?;
                Ok(Self::SearchResults {
                    results: w.results.ok_or_else(|| require("results"))?,
                    search_metadata: w.search_metadata,
                    suggestions: w.suggestions,
                })
            }
            Action::NoResults => {
                forbid(w.clarification_question.is_some(), "clarificationQuestion")?;
                forbid(w.navigation_target.is_some(), "navigationTarget")?;
                if let Some(n) = w.results.as_ref().map(Vec::len).filter(|n| *n > 0) {
                    return Err(Error::invalid(
                        "results",
                        format!("must be empty when action is no_results, got {n} result(s)"),
                    ));
                }
                Ok(Self::NoResults {
                    results: NoHits,
                    search_metadata: w.search_metadata,
                    suggestions: w.suggestions.ok_or_else(|| require("suggestions"))?,
                })
            }
            Action::Clarify => {
                forbid(w.results.is_some(), "results")?;
                forbid(w.navigation_target.is_some(), "navigationTarget")?;
                forbid(w.suggestions.is_some(), "suggestions")?;
                Ok(Self::Clarify {
                    clarification_question: w
                        .clarification_question
                        .ok_or_else(|| require("clarificationQuestion"))?,
                    search_metadata: w.search_metadata,
                })
            }
            Action::Navigate => {
                forbid(w.results.is_some(), "results")?;
                forbid(w.search_metadata.is_some(), "searchMetadata")?;
                forbid(w.clarification_question.is_some(), "clarificationQuestion")?;
                forbid(w.suggestions.is_some(), "suggestions")?;
                Ok(Self::Navigate {
                    navigation_target: w
                        .navigation_target
                        .ok_or_else(|| require("navigationTarget"))?,
                })
            }
        }
    }
}

impl<'de> Deserialize<'de> for NavigatorResponse {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let wire = Wire::deserialize(d)?;
        Self::from_wire(wire).map_err(serde::de::Error::custom)
    }
}
