//! What the Navigator answers: [`NavigatorResponse`] with its [`Action`], [`SearchMetadata`],
//! [`Clarification`] and [`NavigationTarget`].

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

/// What kind of answer a [`NavigatorResponse`] is.
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

/// The Navigator's answer: one of four actions with the fields that action needs.
///
/// Parsing checks that the fields fit the action (`navigate` has a target, `clarify` a
/// question, `no_results` no results) and that every score is in `[0, 1]`.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NavigatorResponse {
    /// What kind of answer this is.
    pub action: Action,
    /// The ranked hits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub results: Option<Vec<SearchResult>>,
    /// How the search ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search_metadata: Option<SearchMetadata>,
    /// The question for `clarify`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clarification_question: Option<Clarification>,
    /// The item for `navigate`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub navigation_target: Option<NavigationTarget>,
    /// Query refinements to try.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggestions: Option<Vec<String>>,
}

/// The unchecked wire form: parsing goes through it so cross-field rules are enforced.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct NavigatorResponseWire {
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

impl TryFrom<NavigatorResponseWire> for NavigatorResponse {
    type Error = Error;

    fn try_from(w: NavigatorResponseWire) -> Result<Self> {
        let r = NavigatorResponse {
            action: w.action,
            results: w.results,
            search_metadata: w.search_metadata,
            clarification_question: w.clarification_question,
            navigation_target: w.navigation_target,
            suggestions: w.suggestions,
        };
        r.validate()?;
        Ok(r)
    }
}

impl NavigatorResponse {
    /// A `search_results` answer.
    pub fn results(results: Vec<SearchResult>, metadata: SearchMetadata) -> Self {
        Self {
            action: Action::SearchResults,
            results: Some(results),
            search_metadata: Some(metadata),
            clarification_question: None,
            navigation_target: None,
            suggestions: None,
        }
    }

    /// A `no_results` answer with refinement suggestions.
    pub fn no_results(metadata: SearchMetadata, suggestions: Vec<String>) -> Self {
        Self {
            action: Action::NoResults,
            results: Some(Vec::new()),
            search_metadata: Some(metadata),
            clarification_question: None,
            navigation_target: None,
            suggestions: Some(suggestions),
        }
    }

    /// A `clarify` answer.
    pub fn clarify(question: Clarification) -> Self {
        Self {
            action: Action::Clarify,
            results: None,
            search_metadata: None,
            clarification_question: Some(question),
            navigation_target: None,
            suggestions: None,
        }
    }

    /// A `navigate` answer.
    pub fn navigate(target: NavigationTarget) -> Self {
        Self {
            action: Action::Navigate,
            results: None,
            search_metadata: None,
            clarification_question: None,
            navigation_target: Some(target),
            suggestions: None,
        }
    }

    /// Checks the cross-field rules and every hit, for responses built or changed in code.
    pub fn validate(&self) -> Result<()> {
        for (i, hit) in self.results.iter().flatten().enumerate() {
            hit.validate().map_err(|e| match e {
                Error::InvalidField { field, message } => {
                    Error::invalid(format!("results[{i}].{field}"), message)
                }
                other => other,
            })?;
        }
        match self.action {
            Action::Navigate if self.navigation_target.is_none() => Err(Error::invalid(
                "navigationTarget",
                "is required when action is navigate",
            )),
            Action::Clarify if self.clarification_question.is_none() => Err(Error::invalid(
                "clarificationQuestion",
                "is required when action is clarify",
            )),
            Action::NoResults if self.results.as_ref().is_some_and(|r| !r.is_empty()) => Err(
                Error::invalid("results", "must be empty when action is no_results"),
            ),
            _ => Ok(()),
        }
    }
}

impl<'de> Deserialize<'de> for NavigatorResponse {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let wire = NavigatorResponseWire::deserialize(d)?;
        Self::try_from(wire).map_err(serde::de::Error::custom)
    }
}
