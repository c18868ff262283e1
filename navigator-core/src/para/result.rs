//! One search hit: [`SearchResult`] and its [`ResultMetadata`].

use super::checks;
use crate::{Category, ItemType, Result};
use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Extra facts about a hit, for display and navigation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResultMetadata {
    /// When the item was created (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<DateTime<Utc>>,
    /// When the item was last updated (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<DateTime<Utc>>,
    /// The parent item (a task's project, for instance).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<String>,
    /// The item's status (`active`, `in_progress`, `archived`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
}

impl ResultMetadata {
    /// Whether no field is set (so the metadata can be left out).
    pub fn is_empty(&self) -> bool {
        self == &Self::default()
    }
}

/// One item found by a search, with a relevance score in `[0, 1]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SearchResult {
    /// The item's id, for navigation.
    #[serde(deserialize_with = "checks::non_empty")]
    pub item_id: String,
    /// The item's type, for routing.
    pub item_type: ItemType,
    /// The item's title.
    pub title: String,
    /// The PARA category the item lives in.
    pub category: Category,
    /// Calibrated relevance in `[0, 1]`; higher is better.
    #[serde(deserialize_with = "checks::score")]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub relevance_score: f64,
    /// A short excerpt (at most 150 characters) showing why the item matched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snippet: Option<String>,
    /// Which field matched (`title`, `description`, `notes`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matched_field: Option<String>,
    /// Extra facts about the item.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<ResultMetadata>,
}

impl SearchResult {
    /// Builds a hit, rejecting an empty id or a score outside `[0, 1]`.
    ///
    /// ```
    /// use navigator_core::{Category, ItemType, SearchResult};
    /// let hit = SearchResult::new("proj_1", ItemType::Project, "Phoenix", Category::Project, 0.9)?;
    /// assert!(SearchResult::new("p", ItemType::Project, "x", Category::Project, 1.5).is_err());
    /// # Ok::<(), navigator_core::Error>(())
    /// ```
    pub fn new(
        item_id: impl Into<String>,
        item_type: ItemType,
        title: impl Into<String>,
        category: Category,
        relevance_score: f64,
    ) -> Result<Self> {
        let hit = Self {
            item_id: item_id.into(),
            item_type,
            title: title.into(),
            category,
            relevance_score,
            snippet: None,
            matched_field: None,
            metadata: None,
        };
        hit.validate()?;
        Ok(hit)
    }

    /// Sets the snippet and the field it came from.
    pub fn with_snippet(mut self, snippet: impl Into<String>, field: impl Into<String>) -> Self {
        self.snippet = Some(snippet.into());
        self.matched_field = Some(field.into());
        self
    }

    /// Sets the metadata (left out when empty).
    pub fn with_metadata(mut self, metadata: ResultMetadata) -> Self {
        self.metadata = (!metadata.is_empty()).then_some(metadata);
        self
    }

    /// Checks the rules parsing enforces, for values built or changed in code.
    pub fn validate(&self) -> Result<()> {
        checks::check_non_empty("itemId", &self.item_id)?;
        checks::check_score("relevanceScore", self.relevance_score)?;
        Ok(())
    }
}
