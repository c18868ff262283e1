//! A note file or a folder of a vault → an [`Item`].
//!
//! Representation (what `navigate` and the `parentId` filter see):
//! - a **note** `Projects/Phoenix/Budget.md` is an item with id `Projects/Phoenix/Budget.md`
//!   (the vault-relative path), type `resource` (or the front matter's `type`), the category
//!   of its top-level folder (or the front matter's `category`), and parent
//!   `Projects/Phoenix/`;
//! - a **folder** below a category folder is an item too, with the folder's path and a
//!   trailing `/` as id (`Projects/Phoenix/`) and the folder name as title. A folder directly
//!   in `Projects/` is a `project`, in `Areas/` an `area`, in `Resources/` a `resource`, in
//!   `Archives/` an `archived_project`; deeper folders are `resource`s. Its parent is the
//!   folder above it, if that is not a category folder. The category folders themselves are
//!   not items (the category is a filter).
//! - everything under the archive folder is archived (`archived_*` types, `archivedAt`).
//!
//! Ingest bookkeeping lives in `metadata`: `path`, `source` (`vault` or `jsonl`), `vault`
//! (the source's absolute path: re-indexing a source only deletes its own items),
//! `contentHash` (of the file and the layout: unchanged → not even parsed), `textHash` (of the
//! embedded text: same text → the stored vector is reused), `links` (wiki-link targets),
//! `aliases`, and `properties` (every front matter key that is not one of the known ones).

use super::front_matter::{self, FrontMatter};
use super::layout::ParaLayout;
use super::markdown;
use super::report::SkipReason;
use chrono::{DateTime, Utc};
use navigator_core::{Category, Item, ItemType};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;

/// Where a note sits in the vault: its category and parent folder item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Placement {
    pub category: Category,
    /// The id of the folder item holding it (`Projects/Phoenix/`), if any.
    pub parent: Option<String>,
    /// How deep below its category folder it is (1 = directly in it).
    pub depth: usize,
}

/// Where the item with vault-relative path `rel` belongs.
pub(crate) fn placement(rel: &str, layout: &ParaLayout) -> Placement {
    let parts: Vec<&str> = rel.split('/').collect();
    let folders = &parts[..parts.len().saturating_sub(1)];
    let (category, inner) = match folders.first().and_then(|f| layout.category_of(f)) {
        Some(c) => (c, &folders[1..]),
        None => (layout.default_category(), folders),
    };
    let parent = (!inner.is_empty()).then(|| format!("{}/", folders.join("/")));
    Placement {
        category,
        parent,
        depth: inner.len() + 1,
    }
}

/// A hex SHA-256 prefix (128 bits: collisions are not a concern at vault sizes).
pub(crate) fn hash(parts: &[&[u8]]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p);
    }
    h.finalize()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The ingest bookkeeping of an item, read back from its metadata.
pub(crate) fn content_hash(item: &Item) -> Option<&str> {
    item.metadata.get("contentHash").and_then(Value::as_str)
}

/// The text hash of an item, read back from its metadata.
pub(crate) fn text_hash(item: &Item) -> Option<&str> {
    item.metadata.get("textHash").and_then(Value::as_str)
}

/// Sets `textHash` from the item's embedding text.
pub(crate) fn set_text_hash(item: &mut Item) {
    let h = hash(&[item.embedding_text().as_bytes()]);
    item.metadata.insert("textHash".into(), Value::String(h));
}

/// Ingest metadata shared by notes, folders and rows.
pub(crate) fn bookkeeping(
    source: &str,
    vault: &str,
    path: &str,
    content_hash: &str,
) -> BTreeMap<String, Value> {
    BTreeMap::from([
        ("source".into(), json!(source)),
        ("vault".into(), json!(vault)),
        ("path".into(), json!(path)),
        ("contentHash".into(), json!(content_hash)),
    ])
}

/// The item type `wanted` (or `fallback`) as it must be in `category`.
pub(crate) fn type_in(
    category: Category,
    wanted: Option<ItemType>,
    fallback: ItemType,
) -> ItemType {
    let t = wanted.unwrap_or(fallback);
    if category == Category::Archive {
        if t.is_archived() {
            t
        } else {
            t.archived().unwrap_or(ItemType::ArchivedResource)
        }
    } else if t.is_archived() {
        fallback
    } else {
        t
    }
}

/// A file's text → its item, or why it cannot be one. `modified` stands in for missing
/// front matter dates.
pub(crate) fn note_item(
    rel: &str,
    text: &str,
    layout: &ParaLayout,
    modified: DateTime<Utc>,
    meta: BTreeMap<String, Value>,
) -> Result<(Item, Vec<String>), (SkipReason, String)> {
    let is_markdown = !rel.to_lowercase().ends_with(".txt");
    let (fm, body) = if is_markdown {
        match front_matter::split(text) {
            (Some(block), body) => {
                let fm =
                    front_matter::parse(block).map_err(|e| (SkipReason::InvalidFrontMatter, e))?;
                (fm, body)
            }
            (None, body) => (FrontMatter::default(), body),
        }
    } else {
        (FrontMatter::default(), text)
    };
    let parsed = if is_markdown {
        markdown::parse(body)
    } else {
        markdown::Parsed {
            text: body.trim().to_string(),
            ..Default::default()
        }
    };
    let stem = file_stem(rel);
    let title = fm
        .title
        .clone()
        .or(parsed.first_heading.clone())
        .unwrap_or_else(|| stem.to_string());
    if title.trim().is_empty() {
        return Err((SkipReason::Empty, "no title and no name".into()));
    }
    let place = placement(rel, layout);
    let type_wanted = fm.item_type.filter(|t| t.is_archived());
    let category = if type_wanted.is_some() {
        Category::Archive
    } else {
        fm.category.unwrap_or(place.category)
    };
    let item_type = type_in(category, fm.item_type, ItemType::Resource);
    let created = fm
        .created
        .unwrap_or(modified.min(fm.updated.unwrap_or(modified)));
    let updated = fm.updated.unwrap_or(modified).max(created);
    let mut metadata = meta;
    if !parsed.links.is_empty() {
        metadata.insert("links".into(), json!(parsed.links));
    }
    if !fm.aliases.is_empty() {
        metadata.insert("aliases".into(), json!(fm.aliases));
    }
    if !fm.properties.is_empty() {
        metadata.insert("properties".into(), json!(fm.properties));
    }
    let mut tags = fm.tags.clone();
    tags.extend(parsed.tags.iter().cloned());
    let mut item = Item {
        id: rel.to_string(),
        item_type,
        category,
        title: title.trim().to_string(),
        body: parsed.text,
        parent_id: place.parent,
        status: fm.status.clone(),
        tags: front_matter::dedup(tags),
        created_at: created,
        updated_at: updated,
        archived_at: (category == Category::Archive).then_some(updated),
        access_count: 0,
        metadata,
    };
    set_text_hash(&mut item);
    item.validate()
        .map_err(|e| (SkipReason::Empty, e.to_string()))?;
    let warnings = fm.warnings.iter().map(|w| format!("{rel}: {w}")).collect();
    Ok((item, warnings))
}

/// The item of a folder (see the module docs), or `None` for a category folder.
pub(crate) fn folder_item(
    rel: &str,
    layout: &ParaLayout,
    at: DateTime<Utc>,
    meta: BTreeMap<String, Value>,
) -> Option<Item> {
    let top = rel.split('/').next().unwrap_or(rel);
    if !rel.contains('/') && layout.category_of(top).is_some() {
        return None;
    }
    let id = format!("{rel}/");
    let place = placement(&id, layout);
    let fallback = match (place.depth, place.category) {
        (2, Category::Project) => ItemType::Project,
        (2, Category::Area) => ItemType::Area,
        (2, Category::Archive) => ItemType::ArchivedProject,
        _ => ItemType::Resource,
    };
    // A folder's own path ends in `/`: its parent is the folder above.
    let parent_place = placement(rel, layout);
    let title = rel.rsplit('/').next().unwrap_or(rel).to_string();
    let mut item = Item {
        id,
        item_type: type_in(place.category, None, fallback),
        category: place.category,
        title,
        body: String::new(),
        parent_id: parent_place.parent,
        status: None,
        tags: Vec::new(),
        created_at: at,
        updated_at: at,
        archived_at: (place.category == Category::Archive).then_some(at),
        access_count: 0,
        metadata: meta,
    };
    set_text_hash(&mut item);
    item.validate().ok()?;
    Some(item)
}

fn file_stem(rel: &str) -> &str {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    name.rsplit_once('.').map_or(name, |(stem, _)| stem)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2025-01-02T03:04:05Z")
            .unwrap()
            .with_timezone(&Utc)
    }

    #[test]
    fn placement_from_folders() {
        let l = ParaLayout::default();
        let p = placement("1 Projects/Phoenix/notes/a.md", &l);
        assert_eq!(p.category, Category::Project);
        assert_eq!(p.parent.as_deref(), Some("1 Projects/Phoenix/notes/"));
        let top = placement("Projects/a.md", &l);
        assert_eq!((top.parent, top.depth), (None, 1));
        let loose = placement("Inbox/a.md", &l);
        assert_eq!(loose.category, Category::Resource);
        assert_eq!(loose.parent.as_deref(), Some("Inbox/"));
        assert_eq!(placement("a.md", &l).parent, None);
    }

    #[test]
    fn folders_become_typed_items_with_parents() {
        let l = ParaLayout::default();
        assert!(folder_item("Projects", &l, at(), BTreeMap::new()).is_none());
        let p = folder_item("Projects/Phoenix", &l, at(), BTreeMap::new()).unwrap();
        assert_eq!(
            (p.id.as_str(), p.item_type, p.parent_id),
            ("Projects/Phoenix/", ItemType::Project, None)
        );
        let sub = folder_item("Projects/Phoenix/Meetings", &l, at(), BTreeMap::new()).unwrap();
        assert_eq!(sub.item_type, ItemType::Resource);
        assert_eq!(sub.parent_id.as_deref(), Some("Projects/Phoenix/"));
        let old = folder_item("4 Archives/Apollo", &l, at(), BTreeMap::new()).unwrap();
        assert_eq!(
            (old.item_type, old.category),
            (ItemType::ArchivedProject, Category::Archive)
        );
        assert!(old.archived_at.is_some());
    }

    #[test]
    fn a_note_takes_front_matter_over_folders_and_file_names() {
        let l = ParaLayout::default();
        let text = "---\ntitle: Budget\ntags: [money]\ncreated: 2024-03-01\nowner: ana\n---\n# Heading\nSee [[Vendors]]. #q3\n";
        let (item, warnings) =
            note_item("Projects/Phoenix/b.md", text, &l, at(), BTreeMap::new()).unwrap();
        assert!(warnings.is_empty());
        assert_eq!(item.title, "Budget");
        assert_eq!(item.tags, ["money", "q3"]);
        assert_eq!(item.parent_id.as_deref(), Some("Projects/Phoenix/"));
        assert_eq!(item.created_at.to_rfc3339(), "2024-03-01T00:00:00+00:00");
        assert_eq!(item.updated_at, at());
        assert_eq!(item.metadata["links"], json!(["Vendors"]));
        assert_eq!(item.metadata["properties"]["owner"], "ana");
        let (untitled, _) = note_item(
            "Resources/Plain idea.md",
            "just text",
            &l,
            at(),
            BTreeMap::new(),
        )
        .unwrap();
        assert_eq!(untitled.title, "Plain idea");
        let (h1, _) = note_item(
            "Resources/x.md",
            "# From heading\nbody",
            &l,
            at(),
            BTreeMap::new(),
        )
        .unwrap();
        assert_eq!(h1.title, "From heading");
    }

    #[test]
    fn archive_folder_and_overrides() {
        let l = ParaLayout::default();
        let (a, _) = note_item("Archives/Apollo/x.md", "x", &l, at(), BTreeMap::new()).unwrap();
        assert_eq!(
            (a.category, a.item_type),
            (Category::Archive, ItemType::ArchivedResource)
        );
        let (t, _) = note_item(
            "Archives/y.md",
            "---\ntype: task\n---\nx",
            &l,
            at(),
            BTreeMap::new(),
        )
        .unwrap();
        assert_eq!(t.item_type, ItemType::ArchivedTask);
        let (o, _) = note_item(
            "Projects/z.md",
            "---\ncategory: area\n---\nx",
            &l,
            at(),
            BTreeMap::new(),
        )
        .unwrap();
        assert_eq!(o.category, Category::Area);
        let err = note_item(
            "Projects/bad.md",
            "---\ntitle: [oops\n---\nx",
            &l,
            at(),
            BTreeMap::new(),
        )
        .unwrap_err();
        assert_eq!(err.0, SkipReason::InvalidFrontMatter);
    }
}
