//! YAML front matter: the `---` block at the top of a note, parsed into [`FrontMatter`].
//!
//! Known keys: `title`, `tags` (a list, or one string split at commas and spaces, `#`
//! stripped), `aliases` (list or string), `status`, `type` (an item type), `category` (a PARA
//! category overriding the folder's), `created`/`date` and `updated`/`modified` (RFC 3339,
//! `2024-03-01`, `2024-03-01 14:30`, `2024/03/01`, `01.03.2024`, `March 1, 2024`, a Unix
//! timestamp). Every other key is kept, as JSON, in [`FrontMatter::properties`].

use chrono::{DateTime, NaiveDate, NaiveDateTime, TimeZone, Utc};
use navigator_core::{Category, ItemType};
use serde_json::Value;
use std::collections::BTreeMap;

/// The parsed front matter of a note; every field is optional.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FrontMatter {
    /// `title`.
    pub title: Option<String>,
    /// `tags`, normalised (no `#`, trimmed, de-duplicated, in order).
    pub tags: Vec<String>,
    /// `aliases`.
    pub aliases: Vec<String>,
    /// `status`.
    pub status: Option<String>,
    /// `type`, when it names an item type.
    pub item_type: Option<ItemType>,
    /// `category`, overriding the folder's.
    pub category: Option<Category>,
    /// `created` (or `date`).
    pub created: Option<DateTime<Utc>>,
    /// `updated` (or `modified`).
    pub updated: Option<DateTime<Utc>>,
    /// Every other key, and known keys whose value could not be read (a date in no known
    /// format, say), as JSON.
    pub properties: BTreeMap<String, Value>,
    /// What could not be read, for the report (`created: "next week" is not a date`).
    pub warnings: Vec<String>,
}

/// Splits `text` into the front matter block (without the `---` lines) and the rest. A note
/// without a block, or with an unterminated one, is all body.
pub fn split(text: &str) -> (Option<&str>, &str) {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return (None, text);
    };
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        let trimmed = line.trim_end();
        if trimmed == "---" || trimmed == "..." {
            return (Some(&rest[..offset]), &rest[offset + line.len()..]);
        }
        offset += line.len();
    }
    (None, text)
}

/// Parses a front matter block (as [`split`] gives it). Invalid YAML, or YAML that is not a
/// mapping, is an error message, with the line the YAML parser stopped at counted in the
/// note's file ([`yaml_error`]).
pub fn parse(block: &str) -> Result<FrontMatter, String> {
    if block.trim().is_empty() {
        return Ok(FrontMatter::default());
    }
    let yaml: serde_yaml::Value = serde_yaml::from_str(block).map_err(|e| yaml_error(&e))?;
    let map = match yaml {
        serde_yaml::Value::Mapping(m) => m,
        serde_yaml::Value::Null => return Ok(FrontMatter::default()),
        other => {
            return Err(format!(
                "front matter is a {} where a mapping of keys was expected",
                kind(&other)
            ))
        }
    };
    let mut fm = FrontMatter::default();
    for (key, value) in map {
        let key = match key {
            serde_yaml::Value::String(s) => s,
            other => yaml_scalar(&other).unwrap_or_else(|| format!("{other:?}")),
        };
        fm.take(key, value);
    }
    Ok(fm)
}

/// The YAML parser's error for a front matter block, its line numbers counted in the note's
/// file (the block starts on the file's second line, after the opening `---`): the parser
/// counts from the block's first line.
pub fn yaml_error(e: &serde_yaml::Error) -> String {
    let message = e.to_string();
    let mut out = String::with_capacity(message.len());
    let mut rest = message.as_str();
    while let Some(at) = rest.find("line ") {
        out.push_str(&rest[..at + 5]);
        rest = &rest[at + 5..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        match rest[..digits].parse::<u64>() {
            Ok(n) => out.push_str(&(n + 1).to_string()),
            Err(_) => out.push_str(&rest[..digits]),
        }
        rest = &rest[digits..];
    }
    out.push_str(rest);
    out
}

impl FrontMatter {
    fn take(&mut self, key: String, value: serde_yaml::Value) {
        let lower = key.to_lowercase();
        match lower.as_str() {
            "title" => self.title = yaml_scalar(&value).filter(|s| !s.trim().is_empty()),
            "tags" | "tag" => self.tags.extend(string_list(&value)),
            "aliases" | "alias" => self.aliases.extend(string_list(&value)),
            "status" => self.status = yaml_scalar(&value),
            "type" => match yaml_scalar(&value).and_then(|s| parse_item_type(&s)) {
                Some(t) => self.item_type = Some(t),
                None => self.keep(key, value),
            },
            "category" => match yaml_scalar(&value).and_then(|s| parse_category(&s)) {
                Some(c) => self.category = Some(c),
                None => {
                    self.warnings.push(format!(
                        "category: `{}` is not a PARA category (project, area, resource, \
                         archive)",
                        yaml_scalar(&value).unwrap_or_else(|| kind(&value).into())
                    ));
                    self.keep(key, value)
                }
            },
            "created" | "date" | "created_at" | "createdat" if self.created.is_none() => {
                match parse_date(&value) {
                    Some(d) => self.created = Some(d),
                    None => self.bad_date(key, value),
                }
            }
            "updated" | "modified" | "updated_at" | "updatedat" | "last_modified" => {
                match parse_date(&value) {
                    Some(d) => self.updated = Some(d),
                    None => self.bad_date(key, value),
                }
            }
            _ => self.keep(key, value),
        }
        self.tags = dedup(std::mem::take(&mut self.tags));
    }

    fn bad_date(&mut self, key: String, value: serde_yaml::Value) {
        self.warnings.push(format!(
            "{key}: {} is not a date in a known format",
            yaml_scalar(&value).unwrap_or_else(|| kind(&value).into())
        ));
        self.keep(key, value);
    }

    fn keep(&mut self, key: String, value: serde_yaml::Value) {
        let json = serde_json::to_value(&value).unwrap_or(Value::Null);
        self.properties.insert(key, json);
    }
}

fn kind(v: &serde_yaml::Value) -> &'static str {
    match v {
        serde_yaml::Value::Null => "null",
        serde_yaml::Value::Bool(_) => "boolean",
        serde_yaml::Value::Number(_) => "number",
        serde_yaml::Value::String(_) => "string",
        serde_yaml::Value::Sequence(_) => "list",
        serde_yaml::Value::Mapping(_) => "mapping",
        serde_yaml::Value::Tagged(_) => "tagged value",
    }
}

fn yaml_scalar(v: &serde_yaml::Value) -> Option<String> {
    match v {
        serde_yaml::Value::String(s) => Some(s.trim().to_string()),
        serde_yaml::Value::Number(n) => Some(n.to_string()),
        serde_yaml::Value::Bool(b) => Some(b.to_string()),
        serde_yaml::Value::Tagged(t) => yaml_scalar(&t.value),
        _ => None,
    }
}

/// A list of strings, or one string split at commas (and spaces when it has no comma, the
/// way `tags: rust cli` is written).
fn string_list(v: &serde_yaml::Value) -> Vec<String> {
    let raw: Vec<String> = match v {
        serde_yaml::Value::Sequence(items) => items.iter().filter_map(yaml_scalar).collect(),
        other => match yaml_scalar(other) {
            Some(s) if s.contains(',') => s.split(',').map(str::to_string).collect(),
            Some(s) => s.split_whitespace().map(str::to_string).collect(),
            None => Vec::new(),
        },
    };
    raw.iter()
        .map(|t| t.trim().trim_start_matches('#').trim().to_string())
        .filter(|t| !t.is_empty())
        .collect()
}

pub(crate) fn dedup(items: Vec<String>) -> Vec<String> {
    let mut seen = std::collections::BTreeSet::new();
    items
        .into_iter()
        .filter(|t| seen.insert(t.to_lowercase()))
        .collect()
}

pub(crate) fn parse_category(s: &str) -> Option<Category> {
    let s = s.trim().to_lowercase();
    let s = s.trim_end_matches('s');
    match s {
        "archived" => Some(Category::Archive),
        other => Category::parse(other),
    }
}

pub(crate) fn parse_item_type(s: &str) -> Option<ItemType> {
    let s = s.trim().to_lowercase().replace([' ', '-'], "_");
    match s.as_str() {
        "note" => Some(ItemType::Resource),
        "person" | "people" => Some(ItemType::Contact),
        other => ItemType::ALL.into_iter().find(|t| t.as_str() == other),
    }
}

/// A date in one of the usual formats (see the module docs); dates without a time are
/// midnight UTC, times without an offset are UTC.
pub fn parse_date(v: &serde_yaml::Value) -> Option<DateTime<Utc>> {
    match v {
        serde_yaml::Value::Number(n) => {
            let secs = n.as_i64()?;
            // Milliseconds since the epoch are as common as seconds in exported data.
            let secs = if secs.abs() > 100_000_000_000 {
                secs / 1000
            } else {
                secs
            };
            Utc.timestamp_opt(secs, 0).single()
        }
        serde_yaml::Value::String(s) => parse_date_str(s),
        serde_yaml::Value::Tagged(t) => parse_date(&t.value),
        _ => None,
    }
}

/// [`parse_date`] for a string.
pub fn parse_date_str(s: &str) -> Option<DateTime<Utc>> {
    let s = s.trim();
    if let Ok(d) = DateTime::parse_from_rfc3339(s) {
        return Some(d.with_timezone(&Utc));
    }
    for f in [
        "%Y-%m-%d %H:%M:%S%.f%:z",
        "%Y-%m-%d %H:%M%:z",
        "%Y-%m-%dT%H:%M%:z",
    ] {
        if let Ok(d) = DateTime::parse_from_str(s, f) {
            return Some(d.with_timezone(&Utc));
        }
    }
    for f in [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%d %H:%M",
    ] {
        if let Ok(d) = NaiveDateTime::parse_from_str(s, f) {
            return Some(d.and_utc());
        }
    }
    for f in [
        "%Y-%m-%d",
        "%Y/%m/%d",
        "%d.%m.%Y",
        "%B %d, %Y",
        "%b %d, %Y",
        "%d %B %Y",
        "%d %b %Y",
        "%Y%m%d",
    ] {
        if let Ok(d) = NaiveDate::parse_from_str(s, f) {
            return d.and_hms_opt(0, 0, 0).map(|d| d.and_utc());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_yaml_error_names_the_line_of_the_note_s_file() {
        // Line 3 of the file is the block's second line: where the flow sequence opens.
        let note = "---\ntitle: ok\ntags: [a, b\n---\nbody";
        let (block, _) = split(note);
        let err = parse(block.unwrap()).unwrap_err();
        assert!(err.contains("line 3 column 7"), "{err}");
        assert!(!err.contains("line 2 column 7"), "{err}");
    }

    #[test]
    fn split_finds_the_block_and_leaves_a_body_without_one_alone() {
        assert_eq!(
            split("---\ntitle: A\n---\nbody"),
            (Some("title: A\n"), "body")
        );
        assert_eq!(split("no front matter"), (None, "no front matter"));
        assert_eq!(split("---\nunterminated"), (None, "---\nunterminated"));
        assert_eq!(split("---\r\na: 1\r\n---\r\nx"), (Some("a: 1\r\n"), "x"));
    }

    #[test]
    fn tags_as_list_or_string() {
        let a = parse("tags: [rust, '#cli', rust]").unwrap();
        assert_eq!(a.tags, ["rust", "cli"]);
        let b = parse("tags: rust, cli , search").unwrap();
        assert_eq!(b.tags, ["rust", "cli", "search"]);
        let c = parse("tags: '#rust #cli'").unwrap();
        assert_eq!(c.tags, ["rust", "cli"]);
        let d = parse("tags:\n  - travel\n  - 2024\n").unwrap();
        assert_eq!(d.tags, ["travel", "2024"]);
    }

    #[test]
    fn dates_in_several_formats() {
        let want = Utc.with_ymd_and_hms(2024, 3, 1, 0, 0, 0).unwrap();
        for s in [
            "2024-03-01",
            "2024/03/01",
            "01.03.2024",
            "March 1, 2024",
            "1 March 2024",
        ] {
            assert_eq!(parse_date_str(s), Some(want), "{s}");
        }
        let t = Utc.with_ymd_and_hms(2024, 3, 1, 12, 30, 0).unwrap();
        for s in [
            "2024-03-01T12:30:00Z",
            "2024-03-01T14:30:00+02:00",
            "2024-03-01 12:30",
            "2024-03-01T12:30",
        ] {
            assert_eq!(parse_date_str(s), Some(t), "{s}");
        }
        let fm = parse("created: 1709296200\nupdated: 1709296200000").unwrap();
        assert_eq!(fm.created, Some(t));
        assert_eq!(fm.updated, Some(t));
        assert_eq!(parse_date_str("next tuesday"), None);
    }

    #[test]
    fn unknown_keys_are_kept_and_bad_values_are_warned_about() {
        let fm = parse(
            "title: Plan\nsource: https://x.test\nrating: 4\ncreated: soon\ncategory: nowhere",
        )
        .unwrap();
        assert_eq!(fm.title.as_deref(), Some("Plan"));
        assert_eq!(fm.properties["source"], "https://x.test");
        assert_eq!(fm.properties["rating"], 4);
        assert_eq!(fm.properties["created"], "soon");
        assert_eq!(fm.created, None);
        assert_eq!(fm.warnings.len(), 2, "{:?}", fm.warnings);
        // Said as the note spells it, not as Rust's debug form (`String("nowhere")`).
        assert!(
            fm.warnings.contains(
                &"category: `nowhere` is not a PARA category (project, area, resource, archive)"
                    .to_string()
            ),
            "{:?}",
            fm.warnings
        );
    }

    #[test]
    fn invalid_yaml_and_non_mappings_are_errors() {
        assert!(parse("title: [unclosed").is_err());
        assert!(parse("- a\n- b").unwrap_err().contains("list"));
        assert_eq!(parse("").unwrap(), FrontMatter::default());
    }

    #[test]
    fn type_and_category_overrides() {
        let fm = parse("type: Task\ncategory: Areas").unwrap();
        assert_eq!(fm.item_type, Some(ItemType::Task));
        assert_eq!(fm.category, Some(Category::Area));
    }
}
