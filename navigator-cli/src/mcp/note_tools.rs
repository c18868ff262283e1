//! Write tools: `write_note`, `update_note`, `archive_note`. Each confines its path to the
//! vault, writes atomically, then re-indexes the paths it touched (`ingest::index_paths`: the
//! note, its new folders; a move is followed as a rename, without re-embedding; the rest of
//! the vault is not walked) and answers with the indexed item. Each takes the write lock without waiting (`busy` otherwise).

use super::errors::{input_schema, output_schema, parse, respond, ToolError, ToolResult};
use super::uri;
use super::vault::{self, NotePath, NoteText};
use super::{cancellable, McpServer, Progress};
use chrono::Utc;
use navigator_core::{Category, Item, ItemStore};
use navigator_search::ingest::IngestReport;
use rmcp::model::{CallToolResult, JsonObject};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, RoleServer};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The archive folder made when the vault has none.
const ARCHIVE_FOLDER: &str = "Archives";

/// `write_note`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct WriteNoteArgs {
    /// Where, relative to the vault: the top-level folder decides the category
    /// (`1 Projects/Phoenix/Kickoff.md`, `Areas/Health/Run log`); `.md` is added when the
    /// name has no extension. Must not exist yet (update_note changes a note).
    pub path: String,
    /// The markdown; may start with its own `---` front matter block.
    pub content: String,
    /// Sets the front matter `title`.
    #[serde(default)]
    pub title: Option<String>,
    /// Sets the front matter `tags`.
    #[serde(default)]
    pub tags: Option<Vec<String>>,
    /// More front matter keys (status, aliases, any of your own).
    #[serde(default)]
    pub front_matter: Option<Map<String, Value>>,
}

/// `update_note`: one of `id` and `path`, and at least one change.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct UpdateNoteArgs {
    /// The note's id (its vault-relative path).
    #[serde(default)]
    pub id: Option<String>,
    /// The note's vault-relative path.
    #[serde(default)]
    pub path: Option<String>,
    /// Replaces the body (the front matter is kept; keys in a `---` block at the top of
    /// `content` are merged into it).
    #[serde(default)]
    pub content: Option<String>,
    /// Appended to the body, after a blank line.
    #[serde(default)]
    pub append: Option<String>,
    /// Sets the front matter `title`.
    #[serde(default)]
    pub title: Option<String>,
    /// Sets the front matter `tags`.
    #[serde(default)]
    pub tags: Option<Vec<String>>,
    /// Sets front matter keys; `null` removes one. Other keys are kept.
    #[serde(default)]
    pub front_matter: Option<Map<String, Value>>,
}

/// `archive_note`: one of `id` and `path`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ArchiveNoteArgs {
    /// The note's id (its vault-relative path).
    #[serde(default)]
    pub id: Option<String>,
    /// The note's vault-relative path.
    #[serde(default)]
    pub path: Option<String>,
}

/// What the incremental re-index did.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct IndexSummary {
    /// Notes added.
    pub added: usize,
    /// Notes changed.
    pub updated: usize,
    /// Notes followed to a new path.
    pub renamed: usize,
    /// Notes removed.
    pub deleted: usize,
    /// Texts embedded.
    pub embedded: usize,
    /// Files skipped, with the reason (`path (reason): message`).
    pub skipped: Vec<String>,
}

/// The answer of every write tool.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct WriteOutput {
    /// `created`, `updated` or `archived`.
    pub action: String,
    /// The note's id (its vault-relative path) now.
    pub id: String,
    /// Its resource URI.
    pub uri: String,
    /// Its id before an archive move.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous_id: Option<String>,
    /// The re-index that followed the write.
    pub index: IndexSummary,
    /// The note as indexed (absent only if the indexer skipped it: see `index.skipped`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<Item>,
}

#[tool_router(router = note_tools, vis = "pub(crate)")]
impl McpServer {
    #[tool(
        description = "Create a markdown note in the vault (front matter from content, title, tags and frontMatter; created/updated dates set) and index it; a `.txt` path is a plain-text note, written as given, with no front matter. The path is relative to the vault and ends in the note's file name; its top-level folder gives the PARA category. Refuses existing notes, folder paths (ending in `/`), absolute paths, `..` and symlinks.",
        input_schema = input_schema::<WriteNoteArgs>(),
        output_schema = output_schema::<WriteOutput>(),
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = false, open_world_hint = false)
    )]
    async fn write_note(
        &self,
        arguments: JsonObject,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let progress = Progress::of(&context);
        let result = cancellable(&context, self.do_write_note(arguments, &progress)).await;
        progress.flushed().await;
        respond(result)
    }

    #[tool(
        description = "Change a note in the vault: replace or append to its body, set or remove front matter keys (the others are kept as written, comments and list style included; `updated` is set to today), then re-index it. The note keeps its line ends (CRLF or LF).",
        input_schema = input_schema::<UpdateNoteArgs>(),
        output_schema = output_schema::<WriteOutput>(),
        annotations(read_only_hint = false, destructive_hint = true, idempotent_hint = false, open_world_hint = false)
    )]
    async fn update_note(
        &self,
        arguments: JsonObject,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let progress = Progress::of(&context);
        let result = cancellable(&context, self.do_update_note(arguments, &progress)).await;
        progress.flushed().await;
        respond(result)
    }

    #[tool(
        description = "Archive a note: move it into the vault's Archives folder (keeping its sub-path), so it becomes an archived item; re-indexed as a rename, without re-embedding.",
        input_schema = input_schema::<ArchiveNoteArgs>(),
        output_schema = output_schema::<WriteOutput>(),
        annotations(read_only_hint = false, destructive_hint = true, idempotent_hint = false, open_world_hint = false)
    )]
    async fn archive_note(
        &self,
        arguments: JsonObject,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let progress = Progress::of(&context);
        let result = cancellable(&context, self.do_archive_note(arguments, &progress)).await;
        progress.flushed().await;
        respond(result)
    }
}

/// One of `id` and `path`.
fn one_of(id: Option<String>, path: Option<String>) -> ToolResult<String> {
    match (id, path) {
        (Some(v), None) | (None, Some(v)) => Ok(v),
        _ => Err(ToolError::bad_request(
            "give exactly one of `id` and `path`",
        )),
    }
}

/// Applies the shared front matter arguments.
fn apply_fields(
    note: &mut NoteText,
    title: Option<String>,
    tags: Option<Vec<String>>,
    fields: Option<&Map<String, Value>>,
) -> ToolResult<()> {
    if let Some(fields) = fields {
        for (key, given) in [("title", title.is_some()), ("tags", tags.is_some())] {
            if given && fields.contains_key(key) {
                return Err(ToolError::bad_request(format!(
                    "`{key}` is given twice, as an argument and in frontMatter: give it once"
                )));
            }
        }
        note.merge(fields)?;
    }
    if let Some(title) = title {
        if title.trim().is_empty() {
            return Err(ToolError::bad_request("title: must not be empty"));
        }
        note.set("title", title);
    }
    if let Some(tags) = tags {
        let list = tags.into_iter().map(serde_yaml::Value::String).collect();
        note.set("tags", serde_yaml::Value::Sequence(list));
    }
    Ok(())
}

/// A plain-text note (`.txt`) has no front matter: title, tags and keys for one are refused
/// rather than written into its text.
fn no_front_matter(
    rel: &str,
    title: Option<String>,
    tags: Option<Vec<String>>,
    front_matter: Option<Map<String, Value>>,
) -> ToolResult<()> {
    let given: Vec<&str> = [
        ("title", title.is_some()),
        ("tags", tags.is_some()),
        ("frontMatter", front_matter.is_some()),
    ]
    .into_iter()
    .filter_map(|(name, set)| set.then_some(name))
    .collect();
    if given.is_empty() {
        return Ok(());
    }
    Err(ToolError::bad_request(format!(
        "{}: `{rel}` is a plain-text note, which has no front matter (use a .md path for one)",
        given.join(", ")
    )))
}

/// `body` with `more` appended as a paragraph of its own.
fn appended(body: &str, more: &str) -> String {
    let body = body.trim_end();
    if body.is_empty() {
        more.to_string()
    } else {
        format!("{body}\n\n{more}")
    }
}

/// A plain-text note's file content: its text, ending in a newline.
fn plain_text(text: &str) -> String {
    if text.ends_with('\n') {
        text.to_string()
    } else {
        format!("{text}\n")
    }
}

fn today() -> String {
    Utc::now().date_naive().to_string()
}

fn summary(report: &IngestReport) -> IndexSummary {
    IndexSummary {
        added: report.added,
        updated: report.updated + report.updated_without_embedding,
        renamed: report.renamed,
        deleted: report.deleted,
        embedded: report.embedded,
        skipped: report
            .skipped
            .iter()
            .map(|s| format!("{} ({}): {}", s.path, s.reason, s.message))
            .collect(),
    }
}

impl McpServer {
    async fn do_write_note(
        &self,
        arguments: JsonObject,
        progress: &Progress,
    ) -> ToolResult<WriteOutput> {
        let args: WriteNoteArgs = parse(arguments)?;
        let place = vault::resolve(self.vault()?, &args.path, true)?;
        let text = if vault::is_plain_text(&place.rel) {
            no_front_matter(&place.rel, args.title, args.tags, args.front_matter)?;
            plain_text(&args.content)
        } else {
            let mut note = NoteText::parse(&place.rel, &args.content)?;
            apply_fields(&mut note, args.title, args.tags, args.front_matter.as_ref())?;
            if !note.has("created") {
                note.set("created", today());
            }
            note.set("updated", today());
            note.render()?
        };
        self.fits_the_index(&text)?;
        let _guard = self.try_write()?;
        vault::write_atomic(&place, &text, true)?;
        self.indexed("created", place, None, progress).await
    }

    /// A note the indexer would skip as too large is refused before it is written: written,
    /// it would be reported as created and never be found.
    fn fits_the_index(&self, text: &str) -> ToolResult<()> {
        let limit = self.ingest.max_file_bytes;
        if text.len() as u64 > limit {
            return Err(ToolError::bad_request(format!(
                "the note would be {} bytes, more than the index takes ({limit} bytes: \
                 `--max-file-mib`); it would never be found: split it into smaller notes",
                text.len()
            )));
        }
        Ok(())
    }

    async fn do_update_note(
        &self,
        arguments: JsonObject,
        progress: &Progress,
    ) -> ToolResult<WriteOutput> {
        let args: UpdateNoteArgs = parse(arguments)?;
        let given = one_of(args.id, args.path)?;
        if args.content.is_none()
            && args.append.is_none()
            && args.title.is_none()
            && args.tags.is_none()
            && args.front_matter.is_none()
        {
            return Err(ToolError::bad_request(
                "nothing to change: give content, append, title, tags or frontMatter",
            ));
        }
        let place = vault::resolve(self.vault()?, &given, false)?;
        if vault::is_plain_text(&place.rel) {
            no_front_matter(&place.rel, args.title, args.tags, args.front_matter)?;
            let _guard = self.try_write()?;
            let old = read_existing(&place)?;
            let mut body = args.content.clone().unwrap_or(old);
            if let Some(more) = &args.append {
                body = appended(&body, more);
            }
            let text = plain_text(&body);
            self.fits_the_index(&text)?;
            vault::write_atomic(&place, &text, false)?;
            return self.indexed("updated", place, None, progress).await;
        }
        let _guard = self.try_write()?;
        let old = read_existing(&place)?;
        let mut note = NoteText::parse(&place.rel, &old)?;
        if let Some(content) = &args.content {
            let new = NoteText::parse(&place.rel, content)?;
            for (k, v) in new.front {
                note.front.insert(k, v);
            }
            note.body = new.body;
        }
        if let Some(more) = &args.append {
            note.body = appended(&note.body, more);
        }
        apply_fields(&mut note, args.title, args.tags, args.front_matter.as_ref())?;
        note.set("updated", today());
        let text = note.render()?;
        self.fits_the_index(&text)?;
        vault::write_atomic(&place, &text, false)?;
        self.indexed("updated", place, None, progress).await
    }

    async fn do_archive_note(
        &self,
        arguments: JsonObject,
        progress: &Progress,
    ) -> ToolResult<WriteOutput> {
        let args: ArchiveNoteArgs = parse(arguments)?;
        let given = one_of(args.id, args.path)?;
        let root = self.vault()?;
        let place = vault::resolve(root, &given, false)?;
        let (top, rest) = place.rel.split_once('/').unwrap_or(("", &place.rel));
        let layout = &self.ingest.layout;
        if layout.category_of(top) == Some(Category::Archive) {
            return Err(ToolError::bad_request(format!(
                "note `{}` is already in the archive",
                place.rel
            )));
        }
        let archive = archive_folder(root, layout);
        // A note in a category folder keeps its path below it; any other keeps its whole path.
        let below = if layout.category_of(top).is_some() {
            rest
        } else {
            place.rel.as_str()
        };
        let target = vault::resolve(root, &format!("{archive}/{below}"), false)?;
        let _guard = self.try_write()?;
        read_existing(&place)?;
        if target.abs.exists() {
            return Err(ToolError::new(
                "already_exists",
                format!("the archive already has `{}`", target.rel),
            ));
        }
        if let Some(dir) = target.abs.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| ToolError::io("creating the folder", dir, e))?;
        }
        std::fs::rename(&place.abs, &target.abs)
            .map_err(|e| ToolError::io("moving the note to", &target.abs, e))?;
        self.indexed("archived", target, Some(place.rel), progress)
            .await
    }

    /// Re-indexes after a write and answers with the note's item.
    async fn indexed(
        &self,
        action: &str,
        place: NotePath,
        previous_id: Option<String>,
        progress: &Progress,
    ) -> ToolResult<WriteOutput> {
        let mut paths = vec![place.rel.as_str()];
        paths.extend(previous_id.as_deref());
        let report = self.reindex(Some(&paths), progress).await.map_err(|e| {
            ToolError::new(
                e.code,
                format!(
                    "`{}` was written, but indexing it failed: {}",
                    place.rel, e.message
                ),
            )
        })?;
        let item = self.engine.store().get_item(&place.rel).await?;
        Ok(WriteOutput {
            action: action.into(),
            uri: uri::note(&place.rel),
            id: place.rel,
            previous_id,
            index: summary(&report),
            item,
        })
    }
}

/// The note's text, or `not_found`.
fn read_existing(place: &NotePath) -> ToolResult<String> {
    std::fs::read_to_string(&place.abs).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            ToolError::not_found(format!("no note `{}` in the vault", place.rel))
        } else {
            ToolError::io("reading", &place.abs, e)
        }
    })
}

/// The vault's archive folder: the first top-level folder the layout maps to the archive,
/// else `Archives`.
fn archive_folder(root: &std::path::Path, layout: &navigator_search::ingest::ParaLayout) -> String {
    let mut names: Vec<String> = std::fs::read_dir(root)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| layout.category_of(n) == Some(Category::Archive))
        .collect();
    names.sort();
    names
        .into_iter()
        .next()
        .unwrap_or_else(|| ARCHIVE_FOLDER.to_string())
}
