//! [`Item`]: the stored PARA record that the search engines index.

use super::checks;
use crate::{Category, Error, ItemType, Result};
use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A PARA record: a project, task, area, contact, organization, resource or template, live or
/// archived.
///
/// Invariants (checked by [`Item::validate`], which every `Store` runs before writing): a
/// non-empty id and title; the `archive` category holds exactly the `archived_*` types;
/// `updatedAt >= createdAt`; every date in [`SUPPORTED_YEARS`](crate::SUPPORTED_YEARS);
/// `id`, `parentId` and `status` at most [`MAX_TERM_BYTES`](crate::MAX_TERM_BYTES) long.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Item {
    /// Stable unique id (`proj_phoenix`, `task_42`, ...).
    #[serde(deserialize_with = "checks::non_empty")]
    pub id: String,
    /// What kind of item it is.
    pub item_type: ItemType,
    /// Where it lives.
    pub category: Category,
    /// Short human title.
    #[serde(deserialize_with = "checks::non_empty")]
    pub title: String,
    /// Description, notes or content.
    #[serde(default)]
    pub body: String,
    /// The parent item (a task's project, a project's area).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<String>,
    /// Free-form status (`active`, `in_progress`, `done`, `archived`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// Free-form tags.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// When it was created (a year in [`SUPPORTED_YEARS`](crate::SUPPORTED_YEARS)).
    #[serde(deserialize_with = "checks::date")]
    pub created_at: DateTime<Utc>,
    /// When it was last changed (a year in [`SUPPORTED_YEARS`](crate::SUPPORTED_YEARS)).
    #[serde(deserialize_with = "checks::date")]
    pub updated_at: DateTime<Utc>,
    /// When it was archived, for archived items.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "checks::optional_date"
    )]
    pub archived_at: Option<DateTime<Utc>>,
    /// How often a person opened it (interaction frequency).
    #[serde(default)]
    pub access_count: u64,
    /// Anything else the application keeps.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub metadata: BTreeMap<String, serde_json::Value>,
}

impl Item {
    /// A new item in the usual category for its type, created and updated at `now`.
    ///
    /// ```
    /// use navigator_core::{Item, ItemType, Category};
    /// let now = chrono::Utc::now();
    /// let item = Item::new("task_1", ItemType::Task, "Draft quarterly report", now)?
    ///     .with_body("Complete the Q4 draft by Friday")
    ///     .with_parent("proj_q4");
    /// assert_eq!(item.category, Category::Project);
    /// # Ok::<(), navigator_core::Error>(())
    /// ```
    pub fn new(
        id: impl Into<String>,
        item_type: ItemType,
        title: impl Into<String>,
        now: DateTime<Utc>,
    ) -> Result<Self> {
        let item = Self {
            id: id.into(),
            item_type,
            category: item_type.default_category(),
            title: title.into(),
            body: String::new(),
            parent_id: None,
            status: None,
            tags: Vec::new(),
            created_at: now,
            updated_at: now,
            archived_at: item_type.is_archived().then_some(now),
            access_count: 0,
            metadata: BTreeMap::new(),
        };
        item.validate()?;
        Ok(item)
    }

    /// Sets the body.
    pub fn with_body(mut self, body: impl Into<String>) -> Self {
        self.body = body.into();
        self
    }

    /// Sets the parent.
    pub fn with_parent(mut self, parent_id: impl Into<String>) -> Self {
        self.parent_id = Some(parent_id.into());
        self
    }

    /// Sets the status.
    pub fn with_status(mut self, status: impl Into<String>) -> Self {
        self.status = Some(status.into());
        self
    }

    /// Sets the tags (`SearchFilters::tags` matches them case-insensitively, a leading `#`
    /// ignored).
    pub fn with_tags<S: Into<String>>(mut self, tags: impl IntoIterator<Item = S>) -> Self {
        self.tags = tags.into_iter().map(Into::into).collect();
        self
    }

    /// Moves the item to another live category (a contact kept under an area, say).
    pub fn in_category(mut self, category: Category) -> Result<Self> {
        self.category = category;
        self.validate()?;
        Ok(self)
    }

    /// Whether the item is archived.
    pub fn is_archived(&self) -> bool {
        self.category == Category::Archive
    }

    /// Archives the item: archived type, archive category, `archivedAt = now`.
    pub fn archive(&mut self, now: DateTime<Utc>) -> Result<()> {
        let archived = self.item_type.archived().ok_or_else(|| {
            Error::invalid(
                "itemType",
                format!("{} items cannot be archived in PARA", self.item_type),
            )
        })?;
        self.item_type = archived;
        self.category = Category::Archive;
        self.archived_at = Some(now);
        self.updated_at = now.max(self.updated_at);
        Ok(())
    }

    /// Checks the invariants listed on the type.
    pub fn validate(&self) -> Result<()> {
        checks::check_non_empty("id", &self.id)?;
        checks::check_non_empty("title", &self.title)?;
        checks::check_term("id", &self.id)?;
        if let Some(p) = &self.parent_id {
            checks::check_term("parentId", p)?;
        }
        if let Some(s) = &self.status {
            checks::check_term("status", s)?;
        }
        checks::check_date("createdAt", self.created_at)?;
        checks::check_date("updatedAt", self.updated_at)?;
        if let Some(t) = self.archived_at {
            checks::check_date("archivedAt", t)?;
        }
        let archived_type = self.item_type.is_archived();
        if archived_type != (self.category == Category::Archive) {
            return Err(Error::invalid(
                "category",
                format!(
                    "item `{}` has type {} but category {}: the archive holds exactly the archived_* types",
                    self.id, self.item_type, self.category
                ),
            ));
        }
        if self.updated_at < self.created_at {
            return Err(Error::invalid(
                "updatedAt",
                format!(
                    "item `{}` was updated ({}) before it was created ({})",
                    self.id, self.updated_at, self.created_at
                ),
            ));
        }
        Ok(())
    }

    /// The text a search engine indexes for meaning: title, then body.
    pub fn embedding_text(&self) -> String {
        if self.body.is_empty() {
            self.title.clone()
        } else {
            format!("{}\n{}", self.title, self.body)
        }
    }
}
