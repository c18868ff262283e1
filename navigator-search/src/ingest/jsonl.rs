//! JSON lines → items: rows exported from an application's database, one JSON object a line.
//!
//! Schema of a row (camelCase or snake_case keys):
//!
//! | key | required | value |
//! |---|---|---|
//! | `id` | yes | string or number, unique in the file |
//! | `title` | yes | non-empty string |
//! | `body` (or `content`, `text`) | no | string |
//! | `type` (or `itemType`) | no | an item type (`task`, `project`, `contact`, ...; default `resource`) |
//! | `category` | no | `project`, `area`, `resource`, `archive` (default: the type's usual one) |
//! | `parentId` | no | string |
//! | `status` | no | string |
//! | `tags` | no | list of strings, or one comma-separated string |
//! | `createdAt`, `updatedAt` | no | RFC 3339, `2024-03-01`, ... or a Unix timestamp (default: import time) |
//! | `archived` | no | `true` moves the row to the archive |
//! | `metadata` | no | object, kept as is |
//!
//! Any other key is kept in `metadata.properties`. Blank lines are ignored. A row that breaks
//! a rule is skipped and reported with its line number, field and value; the other rows are
//! imported.

use super::front_matter::{dedup, parse_category, parse_date_str, parse_item_type};
use super::note::type_in;
use chrono::{DateTime, TimeZone, Utc};
use navigator_core::{Category, Item, ItemType};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::fmt;

/// Why a row could not be imported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowError {
    /// 1-based line number.
    pub line: usize,
    /// The offending field (`id`, `tags[2]`), or `""` when the line is not a JSON object.
    pub field: String,
    /// What was wrong, quoting the value.
    pub message: String,
}

impl fmt::Display for RowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "line {}: {}", self.line, self.message)
        } else {
            write!(
                f,
                "line {}: field `{}`: {}",
                self.line, self.field, self.message
            )
        }
    }
}

impl std::error::Error for RowError {}

const KNOWN: [&str; 22] = [
    "id",
    "title",
    "body",
    "content",
    "text",
    "type",
    "itemType",
    "item_type",
    "category",
    "parentId",
    "parent_id",
    "status",
    "tags",
    "createdAt",
    "created_at",
    "updatedAt",
    "updated_at",
    "archived",
    "metadata",
    "accessCount",
    "access_count",
    "archivedAt",
];

/// Parses one line (1-based `line`) into an item; `now` stands in for missing dates.
pub fn parse_row(line: usize, text: &str, now: DateTime<Utc>) -> Result<Item, RowError> {
    let err = |field: &str, message: String| RowError {
        line,
        field: field.to_string(),
        message,
    };
    let value: Value =
        serde_json::from_str(text).map_err(|e| err("", format!("not valid JSON: {e}")))?;
    let Value::Object(row) = value else {
        return Err(err(
            "",
            format!("expected a JSON object, found {}", short(&value)),
        ));
    };
    let get = |names: &[&str]| {
        names
            .iter()
            .find_map(|n| row.get(*n).filter(|v| !v.is_null()))
    };
    let id = match get(&["id"]) {
        Some(Value::String(s)) if !s.trim().is_empty() => s.trim().to_string(),
        Some(Value::Number(n)) => n.to_string(),
        Some(other) => {
            return Err(err(
                "id",
                format!("expected a non-empty string, found {}", short(other)),
            ))
        }
        None => return Err(err("id", "missing".into())),
    };
    let title = string(get(&["title"]), "title", &err)?
        .filter(|t| !t.trim().is_empty())
        .ok_or_else(|| err("title", "missing or empty".into()))?;
    let body = string(get(&["body", "content", "text"]), "body", &err)?.unwrap_or_default();
    let wanted = match string(get(&["type", "itemType", "item_type"]), "type", &err)? {
        Some(t) => Some(
            parse_item_type(&t).ok_or_else(|| err("type", format!("`{t}` is not an item type")))?,
        ),
        None => None,
    };
    let archived = match get(&["archived"]) {
        Some(Value::Bool(b)) => *b,
        Some(other) => {
            return Err(err(
                "archived",
                format!("expected true or false, found {}", short(other)),
            ))
        }
        None => false,
    };
    let category = match string(get(&["category"]), "category", &err)? {
        Some(c) => parse_category(&c)
            .ok_or_else(|| err("category", format!("`{c}` is not a PARA category")))?,
        None if archived || wanted.is_some_and(ItemType::is_archived) => Category::Archive,
        None => wanted.map_or(Category::Resource, ItemType::default_category),
    };
    let category = if archived {
        Category::Archive
    } else {
        category
    };
    let tags = match get(&["tags"]) {
        None => Vec::new(),
        Some(Value::String(s)) => s
            .split(',')
            .map(|t| t.trim().to_string())
            .filter(|t| !t.is_empty())
            .collect(),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, t)| match t {
                Value::String(s) => Ok(s.trim().to_string()),
                other => Err(err(
                    &format!("tags[{i}]"),
                    format!("expected a string, found {}", short(other)),
                )),
            })
            .collect::<Result<_, _>>()?,
        Some(other) => {
            return Err(err(
                "tags",
                format!("expected a list or a string, found {}", short(other)),
            ))
        }
    };
    let created = date(get(&["createdAt", "created_at"]), "createdAt", &err)?;
    let updated = date(get(&["updatedAt", "updated_at"]), "updatedAt", &err)?;
    // A row with one date uses it for both: an export that carries only `updatedAt` must not
    // be "updated before it was created" (now), nor one with only `createdAt` sort as if it
    // had just changed.
    let (created, updated) = match (created, updated) {
        (Some(c), Some(u)) => (c, u),
        (Some(c), None) => (c, c),
        (None, Some(u)) => (u, u),
        (None, None) => (now, now),
    };
    if updated < created {
        return Err(err(
            "updatedAt",
            format!("{updated} is before createdAt {created}"),
        ));
    }
    let mut metadata: BTreeMap<String, Value> = match get(&["metadata"]) {
        Some(Value::Object(m)) => m.clone().into_iter().collect(),
        Some(other) => {
            return Err(err(
                "metadata",
                format!("expected an object, found {}", short(other)),
            ))
        }
        None => BTreeMap::new(),
    };
    let extra: Map<String, Value> = row
        .iter()
        .filter(|(k, _)| !KNOWN.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if !extra.is_empty() {
        metadata.insert("properties".into(), Value::Object(extra));
    }
    let access_count = get(&["accessCount", "access_count"])
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let item = Item {
        id,
        item_type: type_in(
            category,
            wanted,
            wanted
                .filter(|t| !t.is_archived())
                .unwrap_or(ItemType::Resource),
        ),
        category,
        title: title.trim().to_string(),
        body,
        parent_id: string(get(&["parentId", "parent_id"]), "parentId", &err)?,
        status: string(get(&["status"]), "status", &err)?,
        tags: dedup(tags),
        created_at: created,
        updated_at: updated,
        archived_at: (category == Category::Archive).then_some(updated),
        access_count,
        metadata,
    };
    item.validate().map_err(|e| err("", e.to_string()))?;
    Ok(item)
}

fn string<E>(
    v: Option<&Value>,
    field: &str,
    err: &impl Fn(&str, String) -> E,
) -> Result<Option<String>, E> {
    match v {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(Value::Number(n)) => Ok(Some(n.to_string())),
        Some(other) => Err(err(
            field,
            format!("expected a string, found {}", short(other)),
        )),
    }
}

fn date<E>(
    v: Option<&Value>,
    field: &str,
    err: &impl Fn(&str, String) -> E,
) -> Result<Option<DateTime<Utc>>, E> {
    match v {
        None => Ok(None),
        Some(Value::String(s)) => parse_date_str(s)
            .map(Some)
            .ok_or_else(|| err(field, format!("`{s}` is not a date in a known format"))),
        Some(Value::Number(n)) => n
            .as_i64()
            .map(|s| {
                if s.abs() > 100_000_000_000 {
                    s / 1000
                } else {
                    s
                }
            })
            .and_then(|s| Utc.timestamp_opt(s, 0).single())
            .map(Some)
            .ok_or_else(|| err(field, format!("{n} is not a Unix timestamp"))),
        Some(other) => Err(err(
            field,
            format!("expected a date, found {}", short(other)),
        )),
    }
}

/// A value quoted for an error message, cut short.
fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 60 {
        format!("{}…", s.chars().take(60).collect::<String>())
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2025, 6, 1, 0, 0, 0).unwrap()
    }

    #[test]
    fn a_full_row() {
        let item = parse_row(
            1,
            r#"{"id":"task_1","title":"Draft report","content":"Q4","type":"task","parentId":"proj_q4","tags":"a, b","createdAt":"2025-01-01","updated_at":1735776000,"priority":"high","metadata":{"src":"crm"}}"#,
            now(),
        )
        .unwrap();
        assert_eq!(item.item_type, ItemType::Task);
        assert_eq!(item.category, Category::Project);
        assert_eq!(item.parent_id.as_deref(), Some("proj_q4"));
        assert_eq!(item.tags, ["a", "b"]);
        assert_eq!(item.metadata["src"], "crm");
        assert_eq!(item.metadata["properties"]["priority"], "high");
        assert_eq!(item.updated_at.to_rfc3339(), "2025-01-02T00:00:00+00:00");
    }

    #[test]
    fn one_date_stands_for_both() {
        let row = |dates: &str| {
            let item = parse_row(1, &format!(r#"{{"id":"a","title":"x"{dates}}}"#), now()).unwrap();
            (item.created_at.to_rfc3339(), item.updated_at.to_rfc3339())
        };
        let day = "2024-03-01T00:00:00+00:00".to_string();
        assert_eq!(
            row(r#","updatedAt":"2024-03-01""#),
            (day.clone(), day.clone())
        );
        assert_eq!(row(r#","createdAt":"2024-03-01""#), (day.clone(), day));
        assert_eq!(row(""), (now().to_rfc3339(), now().to_rfc3339()));
    }

    #[test]
    fn archived_rows_get_archived_types() {
        let item = parse_row(
            3,
            r#"{"id":7,"title":"Old","type":"project","archived":true}"#,
            now(),
        )
        .unwrap();
        assert_eq!(
            (item.id.as_str(), item.item_type),
            ("7", ItemType::ArchivedProject)
        );
    }

    #[test]
    fn errors_name_line_field_and_value() {
        let cases = [
            ("not json", ""),
            ("[1,2]", ""),
            (r#"{"title":"x"}"#, "id"),
            (r#"{"id":"a"}"#, "title"),
            (r#"{"id":"a","title":"x","type":"spaceship"}"#, "type"),
            (r#"{"id":"a","title":"x","tags":["ok",3]}"#, "tags[1]"),
            (
                r#"{"id":"a","title":"x","createdAt":"someday"}"#,
                "createdAt",
            ),
            (
                r#"{"id":"a","title":"x","createdAt":"2025-02-01","updatedAt":"2025-01-01"}"#,
                "updatedAt",
            ),
            (r#"{"id":"a","title":"x","category":"inbox"}"#, "category"),
        ];
        for (text, field) in cases {
            let e = parse_row(42, text, now()).unwrap_err();
            assert_eq!((e.line, e.field.as_str()), (42, field), "{text}: {e}");
            assert!(e.to_string().starts_with("line 42"), "{e}");
        }
        let e = parse_row(1, r#"{"id":"a","title":"x","type":"spaceship"}"#, now()).unwrap_err();
        assert!(e.message.contains("spaceship"), "{e}");
    }
}
