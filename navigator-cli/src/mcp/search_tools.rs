//! Read tools over the index: `search`, `get_item`, `read_note`, `recent`. None of them takes
//! the write lock.

use super::errors::{input_schema, output_schema, parse, respond, ToolError, ToolResult};
use super::uri;
use super::vault;
use super::McpServer;
use chrono::{DateTime, Utc};
use navigator_core::{
    Category, Item, ItemScan, ItemStore, ItemType, NavigatorResponse, SearchRequest,
};
use rmcp::model::{CallToolResult, JsonObject};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The most items `recent` returns.
const MAX_RECENT: u32 = 200;

/// `get_item`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct GetItemArgs {
    /// The item id: a note's vault-relative path (`1 Projects/Website Relaunch/Budget.md`), a
    /// folder's path ending in `/`, or a row id from a JSON-lines import.
    pub id: String,
}

/// `read_note`: one of `id` and `path`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ReadNoteArgs {
    /// The note's item id (as `search` returns it in `itemId`).
    #[serde(default)]
    pub id: Option<String>,
    /// The note's path relative to the vault (the same as its id for vault notes).
    #[serde(default)]
    pub path: Option<String>,
}

/// `recent`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct RecentArgs {
    /// Only these categories (all when absent).
    #[serde(default)]
    pub categories: Option<Vec<Category>>,
    /// Only items updated at or after this instant (RFC 3339, or a date `2025-01-31`: from
    /// the start of that day, UTC).
    #[serde(default, deserialize_with = "since_instant")]
    pub since: Option<DateTime<Utc>>,
    /// How many items, 1..=200 (default 10).
    #[serde(default)]
    #[schemars(range(min = 1, max = 200))]
    pub limit: Option<u32>,
    /// Include folders (items whose id ends in `/`), not only notes.
    #[serde(default)]
    pub include_folders: bool,
}

/// `recent`'s `since`: an RFC 3339 instant or a date (its first instant).
fn since_instant<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<DateTime<Utc>>, D::Error> {
    let Some(s) = Option::<String>::deserialize(d)? else {
        return Ok(None);
    };
    navigator_core::parse_instant(&s, false)
        .map(Some)
        .ok_or_else(|| {
            serde::de::Error::custom(format!(
            "`{s}` is neither an RFC 3339 instant (2025-01-31T09:30:00Z) nor a date (2025-01-31)"
        ))
        })
}

/// `get_item`'s answer.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ItemOutput {
    /// The resource URI of the item.
    pub uri: String,
    /// The stored item.
    pub item: Item,
}

/// `read_note`'s answer.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct NoteOutput {
    /// The note's id (its vault-relative path).
    pub id: String,
    /// Its resource URI.
    pub uri: String,
    /// The note as written: the file in the vault, front matter included; the indexed text
    /// when the note is not a file of the vault (a JSON-lines row).
    pub markdown: String,
    /// `vault` (read from the file) or `index` (the stored text).
    pub source: String,
    /// The indexed item; absent when the file is not indexed (yet).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<Item>,
}

/// One entry of `recent`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RecentItem {
    /// The item id.
    pub id: String,
    /// Its resource URI.
    pub uri: String,
    /// The title.
    pub title: String,
    /// The PARA category.
    pub category: Category,
    /// The item type.
    pub item_type: ItemType,
    /// When it was last updated.
    pub updated_at: DateTime<Utc>,
    /// Its tags.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// Its parent (a folder's id).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<String>,
}

/// `recent`'s answer.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RecentOutput {
    /// How many matched in all (before `limit`).
    pub total: usize,
    /// The newest first.
    pub items: Vec<RecentItem>,
}

#[tool_router(router = search_tools, vis = "pub(crate)")]
impl McpServer {
    #[tool(
        description = "Search the PARA knowledge base (Projects, Areas, Resources, Archives). Hybrid (meaning + keywords) by default; searchMode semantic for vague descriptions, keyword for exact names. Scope with categories, narrow with filters (dateRange on the updated time, status, parentId). Answers one of: results (ranked, relevanceScore in [0,1], snippets), navigate (an exact id or title), clarify (results spread over categories), no_results (with suggestions).",
        input_schema = input_schema::<SearchRequest>(),
        output_schema = output_schema::<NavigatorResponse>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn search(&self, arguments: JsonObject) -> CallToolResult {
        respond(self.do_search(arguments).await)
    }

    #[tool(
        description = "Get one stored item (note, folder or imported row) by id, with its full indexed text and metadata.",
        input_schema = input_schema::<GetItemArgs>(),
        output_schema = output_schema::<ItemOutput>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn get_item(&self, arguments: JsonObject) -> CallToolResult {
        respond(self.do_get_item(arguments).await)
    }

    #[tool(
        description = "Read a note as written (markdown with its front matter) by id or vault-relative path.",
        input_schema = input_schema::<ReadNoteArgs>(),
        output_schema = output_schema::<NoteOutput>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn read_note(&self, arguments: JsonObject) -> CallToolResult {
        respond(self.do_read_note(arguments).await)
    }

    #[tool(
        description = "List the most recently updated notes, newest first, optionally only some categories or since a date.",
        input_schema = input_schema::<RecentArgs>(),
        output_schema = output_schema::<RecentOutput>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn recent(&self, arguments: JsonObject) -> CallToolResult {
        respond(self.do_recent(arguments).await)
    }
}

impl McpServer {
    async fn do_search(&self, arguments: JsonObject) -> ToolResult<NavigatorResponse> {
        let request: SearchRequest = parse(arguments)?;
        Ok(self.agent.handle(&request).await?)
    }

    async fn do_get_item(&self, arguments: JsonObject) -> ToolResult<ItemOutput> {
        let args: GetItemArgs = parse(arguments)?;
        let item = self.item(&args.id).await?;
        Ok(ItemOutput {
            uri: uri::note(&item.id),
            item,
        })
    }

    /// The stored item `id`, or `not_found` naming it.
    pub(crate) async fn item(&self, id: &str) -> ToolResult<Item> {
        if id.trim().is_empty() {
            return Err(ToolError::bad_request("id: must not be empty"));
        }
        self.engine
            .store()
            .get_item(id)
            .await?
            .ok_or_else(|| ToolError::not_found(format!("no item `{id}` in the index")))
    }

    async fn do_read_note(&self, arguments: JsonObject) -> ToolResult<NoteOutput> {
        let args: ReadNoteArgs = parse(arguments)?;
        let given = match (args.id, args.path) {
            (Some(id), None) => id,
            (None, Some(path)) => path,
            _ => {
                return Err(ToolError::bad_request(
                    "give exactly one of `id` and `path`",
                ))
            }
        };
        self.note(&given).await
    }

    /// A note by id or path: the file when the vault has it, else the indexed text.
    pub(crate) async fn note(&self, given: &str) -> ToolResult<NoteOutput> {
        let item = self.engine.store().get_item(given).await?;
        let on_disk = match self.vault() {
            Ok(root) => match vault::resolve(root, given, false) {
                Ok(place) => match std::fs::read_to_string(&place.abs) {
                    Ok(text) => Some((place.rel, text)),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                    Err(e) => return Err(ToolError::io("reading", &place.abs, e)),
                },
                Err(e) if e.code == "outside_vault" => return Err(e),
                // Not a note path (a folder id, an imported row's id): the index has it.
                Err(_) => None,
            },
            Err(_) => None,
        };
        match (on_disk, item) {
            (Some((id, markdown)), item) => Ok(NoteOutput {
                uri: uri::note(&id),
                id,
                markdown,
                source: "vault".into(),
                item,
            }),
            (None, Some(item)) => Ok(NoteOutput {
                id: item.id.clone(),
                uri: uri::note(&item.id),
                markdown: item.body.clone(),
                source: "index".into(),
                item: Some(item),
            }),
            (None, None) => Err(ToolError::not_found(format!(
                "no note `{given}` in the vault or the index"
            ))),
        }
    }

    async fn do_recent(&self, arguments: JsonObject) -> ToolResult<RecentOutput> {
        let args: RecentArgs = parse(arguments)?;
        let limit = args.limit.unwrap_or(10);
        if !(1..=MAX_RECENT).contains(&limit) {
            return Err(ToolError::bad_request(format!(
                "limit: must be 1..={MAX_RECENT}, got {limit}"
            )));
        }
        if args.categories.as_ref().is_some_and(Vec::is_empty) {
            return Err(ToolError::bad_request(
                "categories: name at least one category, or leave it out",
            ));
        }
        let scan = ItemScan {
            categories: args.categories,
            updated_since: args.since,
            ..ItemScan::default()
        };
        let mut items = self.engine.store().scan_items(&scan).await?;
        items.retain(|i| args.include_folders || !i.id.ends_with('/'));
        items.sort_by(|a, b| b.updated_at.cmp(&a.updated_at).then(a.id.cmp(&b.id)));
        let total = items.len();
        items.truncate(limit as usize);
        Ok(RecentOutput {
            total,
            items: items.into_iter().map(recent_item).collect(),
        })
    }
}

fn recent_item(item: Item) -> RecentItem {
    RecentItem {
        uri: uri::note(&item.id),
        id: item.id,
        title: item.title,
        category: item.category,
        item_type: item.item_type,
        updated_at: item.updated_at,
        tags: item.tags,
        parent_id: item.parent_id,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recent_takes_a_date_or_an_instant_since() {
        let since = |v: serde_json::Value| {
            serde_json::from_value::<RecentArgs>(serde_json::json!({ "since": v }))
                .map(|a| a.since.map(|t| t.to_rfc3339()))
        };
        assert_eq!(
            since("2025-01-01".into()).unwrap().as_deref(),
            Some("2025-01-01T00:00:00+00:00")
        );
        assert_eq!(
            since("2025-01-01T08:00:00+02:00".into())
                .unwrap()
                .as_deref(),
            Some("2025-01-01T06:00:00+00:00")
        );
        assert_eq!(since(serde_json::Value::Null).unwrap(), None);
        let err = since("last week".into()).unwrap_err().to_string();
        assert!(err.contains("nor a date (2025-01-31)"), "{err}");
    }
}
