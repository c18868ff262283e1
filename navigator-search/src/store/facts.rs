//! An item's facts — everything of it but the body and the application's metadata — kept in
//! their own table beside the items, written in the same transaction, so the engine's catalog
//! loads from a tenth of the bytes: at a million items, decoding every full item was most of
//! opening an index.
//!
//! Stored in a compact binary form (below): at a million items, decoding JSON with RFC 3339
//! dates was most of the catalog's load. Facts written as JSON by earlier versions (they start
//! with `{`) still decode, and [`SearchEngine::compact`](crate::SearchEngine::compact) rewrites
//! them in the binary form. The table is trusted only while its sequence counter equals the
//! store's (`facts_seq` = `next_seq`): a store written by a version without the table, or
//! whose table a crash could not have left behind, has it rebuilt from the items on open.
//!
//! Binary layout (little-endian): the format byte `2`; item type and category as their names
//! (a length byte, then the bytes); created, updated and (after a presence byte) archived as
//! seconds (`i64`) and nanoseconds (`u32`) since the Unix epoch; the access count (`u64`); id
//! and title (a `u32` length, then UTF-8); parent and status (a presence byte, then the
//! same); the tag count (`u32`) and each tag. Decoding checks what deserialising an [`Item`]
//! checks: non-empty id and title, dates in the supported years, known names.

use chrono::{DateTime, Datelike, Utc};
use navigator_core::{Category, Item, ItemType};
use redb::{ReadableTable, TableDefinition};
use std::collections::BTreeMap;

/// Item key → the item's facts.
pub(super) const FACTS: TableDefinition<u64, &[u8]> = TableDefinition::new("facts");
/// The counter that equals `next_seq` while the facts table is complete.
pub(super) const FACTS_SEQ: &str = "facts_seq";

/// The first byte of the binary form (JSON facts start with `{`).
const BINARY: u8 = 2;

/// The stored facts of `item`.
pub(super) fn encode(item: &Item) -> Vec<u8> {
    let mut out = Vec::new();
    write(
        &mut out,
        &Fields {
            item_type: item.item_type,
            category: item.category,
            created_at: &item.created_at,
            updated_at: &item.updated_at,
            archived_at: item.archived_at.as_ref(),
            access_count: item.access_count,
            id: &item.id,
            title: &item.title,
            parent_id: item.parent_id.as_deref(),
            status: item.status.as_deref(),
            tags: &item.tags,
        },
    );
    out
}

/// The fields the binary form holds, borrowed from an item or from a record of the engine's
/// catalog (whose snapshot stores its records in this form).
pub(crate) struct Fields<'a> {
    pub(crate) item_type: ItemType,
    pub(crate) category: Category,
    pub(crate) created_at: &'a DateTime<Utc>,
    pub(crate) updated_at: &'a DateTime<Utc>,
    pub(crate) archived_at: Option<&'a DateTime<Utc>>,
    pub(crate) access_count: u64,
    pub(crate) id: &'a str,
    pub(crate) title: &'a str,
    pub(crate) parent_id: Option<&'a str>,
    pub(crate) status: Option<&'a str>,
    pub(crate) tags: &'a [String],
}

/// Appends the binary form of `f` to `out`: what [`decode`] reads back.
pub(crate) fn write(out: &mut Vec<u8>, f: &Fields<'_>) {
    let strings = f.id.len()
        + f.title.len()
        + f.parent_id.map_or(0, str::len)
        + f.status.map_or(0, str::len)
        + f.tags.iter().map(String::len).sum::<usize>();
    out.reserve(80 + strings + 4 * f.tags.len());
    out.push(BINARY);
    for name in [f.item_type.as_str(), f.category.as_str()] {
        // Names are short ASCII words.
        out.push(name.len() as u8);
        out.extend_from_slice(name.as_bytes());
    }
    put_date(out, f.created_at);
    put_date(out, f.updated_at);
    out.push(u8::from(f.archived_at.is_some()));
    if let Some(at) = f.archived_at {
        put_date(out, at);
    }
    out.extend_from_slice(&f.access_count.to_le_bytes());
    put_str(out, f.id);
    put_str(out, f.title);
    for s in [f.parent_id, f.status] {
        out.push(u8::from(s.is_some()));
        if let Some(s) = s {
            put_str(out, s);
        }
    }
    out.extend_from_slice(&(f.tags.len() as u32).to_le_bytes());
    for tag in f.tags {
        put_str(out, tag);
    }
}

fn put_date(out: &mut Vec<u8>, at: &DateTime<Utc>) {
    out.extend_from_slice(&at.timestamp().to_le_bytes());
    out.extend_from_slice(&at.timestamp_subsec_nanos().to_le_bytes());
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as u32).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

/// The item the stored facts describe, with an empty body and no metadata; why not when the
/// bytes are not facts this or an earlier version wrote.
pub(crate) fn decode(bytes: &[u8]) -> Result<Item, String> {
    match bytes.first() {
        Some(&BINARY) => Reader { bytes, at: 1 }.item(),
        Some(b'{') => serde_json::from_slice(bytes).map_err(|e| e.to_string()),
        Some(b) => Err(format!("unknown facts format {b}")),
        None => Err("empty facts".into()),
    }
}

/// Rows of facts decoded on every core: `bytes` holds the rows end to end, `ends` each row's
/// key and end offset in `bytes`, the first row starting at `start`; each decoded row goes
/// through `map`. `meanwhile` runs on
/// the calling thread while the others decode (the caller hands on the batch before). The
/// first row that does not decode is the error, with its key.
pub(crate) fn decode_batch<T: Send>(
    bytes: &[u8],
    ends: &[(u64, usize)],
    start: usize,
    map: &(impl Fn(u64, Item) -> T + Sync),
    meanwhile: impl FnOnce(),
) -> Result<Vec<T>, (u64, String)> {
    let decode = |part: &[(u64, usize)], start: usize| -> Result<Vec<T>, (u64, String)> {
        let mut from = start;
        part.iter()
            .map(|&(key, end)| {
                let row = bytes
                    .get(from..end)
                    .ok_or((key, "row out of bounds".to_string()))?;
                let item = decode(row).map_err(|e| (key, e))?;
                from = end;
                Ok(map(key, item))
            })
            .collect()
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let per = ends.len().div_ceil(threads).max(1);
    let parts: Vec<Result<Vec<T>, (u64, String)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = ends
            .chunks(per)
            .enumerate()
            .map(|(i, part)| {
                let start = if i == 0 { start } else { ends[i * per - 1].1 };
                let decode = &decode;
                scope.spawn(move || decode(part, start))
            })
            .collect();
        meanwhile();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    let mut out = Vec::with_capacity(ends.len());
    for part in parts {
        out.extend(part?);
    }
    Ok(out)
}

/// A bounds-checked cursor over binary facts.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.at.checked_add(n).filter(|e| *e <= self.bytes.len());
        let end = end.ok_or_else(|| format!("cut short at byte {}", self.at))?;
        let part = &self.bytes[self.at..end];
        self.at = end;
        Ok(part)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], String> {
        let part = self.take(N)?;
        Ok(std::array::from_fn(|i| part[i]))
    }

    fn flag(&mut self) -> Result<bool, String> {
        match self.array::<1>()? {
            [0] => Ok(false),
            [1] => Ok(true),
            [b] => Err(format!("presence byte {b}")),
        }
    }

    fn name(&mut self) -> Result<&'a str, String> {
        let [n] = self.array::<1>()?;
        std::str::from_utf8(self.take(n as usize)?).map_err(|e| e.to_string())
    }

    fn string(&mut self) -> Result<String, String> {
        let n = u32::from_le_bytes(self.array()?) as usize;
        let bytes = self.take(n)?;
        std::str::from_utf8(bytes)
            .map(str::to_owned)
            .map_err(|e| e.to_string())
    }

    fn non_empty(&mut self, field: &str) -> Result<String, String> {
        let s = self.string()?;
        if s.trim().is_empty() {
            return Err(format!("{field} is empty"));
        }
        Ok(s)
    }

    fn date(&mut self) -> Result<DateTime<Utc>, String> {
        let secs = i64::from_le_bytes(self.array()?);
        let nanos = u32::from_le_bytes(self.array()?);
        DateTime::from_timestamp(secs, nanos)
            .filter(|t| navigator_core::SUPPORTED_YEARS.contains(&t.year()))
            .ok_or_else(|| format!("date {secs}.{nanos} is outside the supported years"))
    }

    fn item(mut self) -> Result<Item, String> {
        let type_name = self.name()?;
        let item_type = ItemType::ALL
            .into_iter()
            .find(|t| t.as_str() == type_name)
            .ok_or_else(|| format!("unknown item type {type_name:?}"))?;
        let category_name = self.name()?;
        let category = Category::ALL
            .into_iter()
            .find(|c| c.as_str() == category_name)
            .ok_or_else(|| format!("unknown category {category_name:?}"))?;
        let created_at = self.date()?;
        let updated_at = self.date()?;
        let archived_at = if self.flag()? {
            Some(self.date()?)
        } else {
            None
        };
        let access_count = u64::from_le_bytes(self.array()?);
        let id = self.non_empty("id")?;
        let title = self.non_empty("title")?;
        let parent_id = if self.flag()? {
            Some(self.string()?)
        } else {
            None
        };
        let status = if self.flag()? {
            Some(self.string()?)
        } else {
            None
        };
        let count = u32::from_le_bytes(self.array()?) as usize;
        // Each tag takes at least its length's four bytes: a count the bytes cannot hold is
        // refused before anything is allocated for it.
        if count > (self.bytes.len() - self.at) / 4 {
            return Err(format!("{count} tags in {} bytes", self.bytes.len()));
        }
        let tags = (0..count)
            .map(|_| self.string())
            .collect::<Result<Vec<_>, _>>()?;
        if self.at != self.bytes.len() {
            return Err(format!(
                "{} bytes after the facts",
                self.bytes.len() - self.at
            ));
        }
        Ok(Item {
            id,
            item_type,
            category,
            title,
            body: String::new(),
            parent_id,
            status,
            tags,
            created_at,
            updated_at,
            archived_at,
            access_count,
            metadata: BTreeMap::new(),
        })
    }
}

impl super::RedbStore {
    /// Rewrites the facts that earlier versions stored as JSON in the binary form, in one
    /// write transaction (a write that lands meanwhile waits, so nothing newer is
    /// overwritten); how many rows it rewrote. Reads only the facts table: at a million
    /// items this is seconds, where rebuilding the facts from the items took 16 s.
    pub(crate) fn upgrade_facts(&self) -> crate::Result<usize> {
        let txn = self.db.begin_write().map_err(|e| self.err(e))?;
        let upgraded = {
            let mut t = txn.open_table(FACTS).map_err(|e| self.err(e))?;
            let mut rows: Vec<(u64, Vec<u8>)> = Vec::new();
            for row in t.iter().map_err(|e| self.err(e))? {
                let (key, value) = row.map_err(|e| self.err(e))?;
                if value.value().first() == Some(&b'{') {
                    let item = decode(value.value())
                        .map_err(|e| self.corrupt("facts", &key.value().to_string(), e))?;
                    rows.push((key.value(), encode(&item)));
                }
            }
            for (key, bytes) in &rows {
                t.insert(*key, bytes.as_slice()).map_err(|e| self.err(e))?;
            }
            rows.len()
        };
        if upgraded == 0 {
            txn.abort().map_err(|e| self.err(e))?;
        } else {
            txn.commit().map_err(|e| self.err(e))?;
        }
        Ok(upgraded)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facts_decode_as_the_item_without_body_and_metadata() {
        let now: DateTime<Utc> = "2026-03-01T10:00:00Z".parse().unwrap();
        let mut item = Item::new("n1", ItemType::Resource, "Rust \"notes\"", now)
            .unwrap()
            .with_body("a long body")
            .with_parent("area_dev");
        item.tags = vec!["rust".into(), "Lang".into()];
        item.status = Some("active".into());
        item.access_count = 7;
        item.metadata.insert("k".into(), serde_json::json!(1));
        let back = decode(&encode(&item)).unwrap();
        let mut expected = item.clone();
        expected.body.clear();
        expected.metadata.clear();
        assert_eq!(back, expected);
    }

    fn sample() -> Item {
        let now: DateTime<Utc> = "2026-03-01T10:00:00.123456789Z".parse().unwrap();
        let mut item = Item::new("n1", ItemType::ArchivedProject, "Ünïcode \"title\"", now)
            .unwrap()
            .with_parent("area_dev");
        item.tags = vec!["rust".into(), String::new(), "Lang".into()];
        item.status = Some("done".into());
        item.archived_at = Some(now + chrono::Duration::days(3));
        item.access_count = u64::MAX;
        item
    }

    #[test]
    fn binary_facts_keep_every_field_and_json_facts_of_earlier_versions_still_decode() {
        let item = sample();
        let bytes = encode(&item);
        assert_eq!(bytes[0], BINARY);
        assert_eq!(decode(&bytes).unwrap(), item);
        let plain = Item::new("n2", ItemType::Task, "t", item.created_at).unwrap();
        assert_eq!(decode(&encode(&plain)).unwrap(), plain);
        // What the table held before the binary form: an item's JSON without body.
        let json = serde_json::to_vec(&item).unwrap();
        assert_eq!(decode(&json).unwrap(), item);
    }

    #[test]
    fn damaged_facts_are_errors_never_panics() {
        let bytes = encode(&sample());
        for cut in 0..bytes.len() {
            assert!(decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(decode(&longer).unwrap_err().contains("after the facts"));
        let mut unknown = bytes.clone();
        unknown[0] = 9;
        assert!(decode(&unknown).is_err());
        // The type name's first letter changed: not a known type.
        let mut renamed = bytes.clone();
        renamed[2] = b'x';
        assert!(decode(&renamed).unwrap_err().contains("item type"));
        // An empty id, and a tag count no bytes could hold.
        let mut blank = sample();
        blank.id = " ".into();
        assert!(decode(&encode(&blank)).unwrap_err().contains("id"));
        let mut tags = encode(&Item::new("a", ItemType::Task, "t", sample().created_at).unwrap());
        let n = tags.len();
        tags[n - 4..].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(decode(&tags).unwrap_err().contains("tags"));
        // A date outside the supported years.
        let mut old = sample();
        old.created_at = "1600-01-01T00:00:00Z".parse().unwrap();
        assert!(decode(&encode(&old))
            .unwrap_err()
            .contains("supported years"));
    }
}
