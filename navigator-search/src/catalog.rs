//! [`Catalog`]: the in-memory view of every item's filterable and rankable facts (category,
//! type, status, parent, dates, access count), loaded from the store on open. The vector index
//! filters and the ranker reads recency and access frequency through it without touching disk,
//! and exact id/title lookups (navigation) are one hash probe.

use crate::filter::Filter;
use chrono::{DateTime, Utc};
use navigator_core::{Category, Item, ItemType};
use std::collections::HashMap;

/// What the engine keeps in memory about one item.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ItemMeta {
    pub(crate) key: u64,
    pub(crate) id: String,
    pub(crate) title: String,
    /// The title lower-cased with single spaces (what exact-match boosts compare against).
    pub(crate) norm_title: String,
    pub(crate) category: Category,
    pub(crate) item_type: ItemType,
    pub(crate) status: Option<String>,
    pub(crate) parent_id: Option<String>,
    /// The item's tags, normalised ([`TagFilter::normalize`](navigator_core::TagFilter::normalize)) once here.
    pub(crate) tags: Vec<String>,
    pub(crate) created_at: DateTime<Utc>,
    pub(crate) updated_at: DateTime<Utc>,
    pub(crate) access_count: u64,
}

impl ItemMeta {
    /// The facts of `item` (taken, not copied).
    pub(crate) fn from_item(key: u64, item: Item) -> Self {
        Self {
            key,
            norm_title: normalize_title(&item.title),
            tags: item
                .tags
                .iter()
                .map(|t| navigator_core::TagFilter::normalize(t))
                .collect(),
            id: item.id,
            title: item.title,
            category: item.category,
            item_type: item.item_type,
            status: item.status,
            parent_id: item.parent_id,
            created_at: item.created_at,
            updated_at: item.updated_at,
            access_count: item.access_count,
        }
    }

    /// The facts of `item` (copying the fields the catalog keeps, not the body).
    pub(crate) fn new(key: u64, item: &Item) -> Self {
        Self::from_item(
            key,
            Item {
                id: item.id.clone(),
                title: item.title.clone(),
                body: String::new(),
                parent_id: item.parent_id.clone(),
                status: item.status.clone(),
                tags: item.tags.clone(),
                metadata: Default::default(),
                ..*item
            },
        )
    }
}

/// Every live item by key, with id and normalised-title lookups.
#[derive(Debug, Default)]
pub(crate) struct Catalog {
    by_key: HashMap<u64, ItemMeta>,
    key_of_id: HashMap<String, u64>,
    keys_of_title: HashMap<String, Vec<u64>>,
    /// Live items per category (indexed like [`Category::ALL`]).
    per_category: [usize; 4],
    /// By key (keys are small sequential numbers): the bit of the item's category, 0 when no
    /// live item has the key. The vector search's filter reads it for every graph node it
    /// visits, so it must be one cache-friendly load, not a hash probe.
    category_bits: Vec<u8>,
}

/// Keys below this are tracked in the dense category table (1 byte each); larger ones (never
/// reached in practice: keys count up from 1) fall back to the hash map.
const DENSE_KEYS_MAX: usize = 1 << 28;

/// The bit of category `c`.
fn category_bit(c: Category) -> u8 {
    1 << category_slot(c)
}

/// The bits of every category in `categories`.
pub(crate) fn category_mask(categories: &[Category]) -> u8 {
    categories.iter().fold(0, |m, c| m | category_bit(*c))
}

/// The slot of `c` in [`Category::ALL`].
fn category_slot(c: Category) -> usize {
    Category::ALL.iter().position(|x| *x == c).unwrap_or(0)
}

/// Lower-case, whitespace-collapsed form used for exact title matches.
pub(crate) use navigator_core::text::normalize_phrase as normalize_title;

/// The distinct lower-cased words (three bytes or more) of `titles`, sorted: the vocabulary
/// the agent suggests near spellings from, the same on every backend.
pub(crate) fn title_words<'a>(titles: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut words: Vec<String> = titles
        .flat_map(navigator_core::text::words)
        .filter(|w| w.len() >= 3)
        .collect();
    words.sort();
    words.dedup();
    words
}

impl Catalog {
    /// An empty catalog sized for `n` items up front: loading a million items into maps
    /// that grow as they go spent most of its time rehashing.
    pub(crate) fn with_capacity(n: usize) -> Self {
        Self {
            by_key: HashMap::with_capacity(n),
            key_of_id: HashMap::with_capacity(n),
            keys_of_title: HashMap::with_capacity(n),
            category_bits: Vec::with_capacity(n.saturating_add(1).min(DENSE_KEYS_MAX)),
            ..Self::default()
        }
    }

    pub(crate) fn insert(&mut self, meta: ItemMeta) {
        self.remove(meta.key);
        self.key_of_id.insert(meta.id.clone(), meta.key);
        self.keys_of_title
            .entry(meta.norm_title.clone())
            .or_default()
            .push(meta.key);
        self.per_category[category_slot(meta.category)] += 1;
        if let Ok(k) = usize::try_from(meta.key) {
            if k < DENSE_KEYS_MAX {
                if self.category_bits.len() <= k {
                    self.category_bits.resize(k + 1, 0);
                }
                self.category_bits[k] = category_bit(meta.category);
            }
        }
        self.by_key.insert(meta.key, meta);
    }

    pub(crate) fn remove(&mut self, key: u64) -> Option<ItemMeta> {
        let meta = self.by_key.remove(&key)?;
        self.key_of_id.remove(&meta.id);
        self.per_category[category_slot(meta.category)] -= 1;
        if let Some(bits) = usize::try_from(key)
            .ok()
            .and_then(|k| self.category_bits.get_mut(k))
        {
            *bits = 0;
        }
        if let Some(keys) = self.keys_of_title.get_mut(&meta.norm_title) {
            keys.retain(|k| *k != key);
            if keys.is_empty() {
                self.keys_of_title.remove(&meta.norm_title);
            }
        }
        Some(meta)
    }

    /// Whether `key` is a live item in one of the categories of `mask` (see
    /// [`category_mask`]).
    pub(crate) fn in_categories(&self, key: u64, mask: u8) -> bool {
        match usize::try_from(key).ok().filter(|k| *k < DENSE_KEYS_MAX) {
            Some(k) => self.category_bits.get(k).is_some_and(|b| b & mask != 0),
            None => self
                .by_key
                .get(&key)
                .is_some_and(|m| category_bit(m.category) & mask != 0),
        }
    }

    pub(crate) fn get(&self, key: u64) -> Option<&ItemMeta> {
        self.by_key.get(&key)
    }

    pub(crate) fn by_id(&self, id: &str) -> Option<&ItemMeta> {
        self.key_of_id.get(id).and_then(|k| self.by_key.get(k))
    }

    /// Items whose title equals `title` (case- and spacing-insensitive), by key order.
    pub(crate) fn by_title(&self, title: &str) -> Vec<&ItemMeta> {
        let mut hits: Vec<&ItemMeta> = self
            .keys_of_title
            .get(&normalize_title(title))
            .into_iter()
            .flatten()
            .filter_map(|k| self.by_key.get(k))
            .collect();
        hits.sort_by_key(|m| m.key);
        hits
    }

    pub(crate) fn set_access_count(&mut self, key: u64, count: u64) {
        if let Some(m) = self.by_key.get_mut(&key) {
            m.access_count = count;
        }
    }

    /// Every title.
    pub(crate) fn titles(&self) -> impl Iterator<Item = &str> {
        self.by_key.values().map(|m| m.title.as_str())
    }

    pub(crate) fn len(&self) -> usize {
        self.by_key.len()
    }

    /// Keys of the items that pass `filter`, ascending.
    pub(crate) fn matching_keys(&self, filter: &Filter) -> Vec<u64> {
        let mut keys: Vec<u64> = self
            .by_key
            .values()
            .filter(|m| filter.matches(m))
            .map(|m| m.key)
            .collect();
        keys.sort_unstable();
        keys
    }

    /// The keys of the `n` most recently updated items passing `filter`, newest first (ties
    /// by id, as PostgreSQL orders them), and how many pass in all.
    pub(crate) fn newest(&self, filter: &Filter, n: usize) -> (Vec<u64>, usize) {
        let order = |a: &&ItemMeta, b: &&ItemMeta| {
            b.updated_at
                .cmp(&a.updated_at)
                .then_with(|| a.id.cmp(&b.id))
        };
        let mut matching: Vec<&ItemMeta> =
            self.by_key.values().filter(|m| filter.matches(m)).collect();
        let total = matching.len();
        if n < matching.len() {
            matching.select_nth_unstable_by(n, order);
            matching.truncate(n);
        }
        matching.sort_unstable_by(order);
        (matching.into_iter().map(|m| m.key).collect(), total)
    }

    /// How many items pass `filter`, stopping once `cap` is reached.
    pub(crate) fn count_matching(&self, filter: &Filter, cap: usize) -> usize {
        if filter.is_category_only() {
            // One counter per category: no scan for the common "these categories" filter.
            let n: usize = filter
                .categories
                .iter()
                .map(|c| self.per_category[category_slot(*c)])
                .sum();
            return n.min(cap);
        }
        self.by_key
            .values()
            .filter(|m| filter.matches(m))
            .take(cap)
            .count()
    }
}

/// The catalog applies a [`Filter`] to its records; the predicate lives here, beside the
/// record, so the filter (built from a request alone) needs nothing from the catalog.
impl Filter {
    /// Whether the item `m` describes passes every condition.
    pub(crate) fn matches(&self, m: &ItemMeta) -> bool {
        self.categories.contains(&m.category)
            && self
                .status
                .as_ref()
                .is_none_or(|s| m.status.as_deref() == Some(s.as_str()))
            && self
                .parent_id
                .as_ref()
                .is_none_or(|p| m.parent_id.as_deref() == Some(p.as_str()))
            && self
                .updated
                .as_ref()
                .is_none_or(|r| r.contains(m.updated_at))
            && self
                .tags
                .as_ref()
                .is_none_or(|t| t.matches_normalized(&m.tags))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use navigator_core::{Item, ItemType};

    fn meta(key: u64, item_type: ItemType) -> ItemMeta {
        let at = "2026-01-01T00:00:00Z".parse().unwrap();
        ItemMeta::new(
            key,
            &Item::new(format!("i{key}"), item_type, "T", at).unwrap(),
        )
    }

    fn filter(categories: &[Category]) -> Filter {
        Filter {
            categories: categories.to_vec(),
            status: None,
            parent_id: None,
            updated: None,
            tags: None,
        }
    }

    #[test]
    fn category_table_and_counts_follow_inserts_moves_and_removals() {
        let mut c = Catalog::default();
        c.insert(meta(1, ItemType::Project));
        c.insert(meta(2, ItemType::Resource));
        c.insert(meta(3, ItemType::ArchivedProject));
        let projects = category_mask(&[Category::Project]);
        let live = category_mask(&[Category::Project, Category::Area, Category::Resource]);
        assert!(c.in_categories(1, projects));
        assert!(!c.in_categories(2, projects));
        assert!(c.in_categories(2, live));
        assert!(!c.in_categories(3, live), "archived");
        assert!(!c.in_categories(99, u8::MAX), "unknown key");
        // An update that moves the item to the archive moves its bit and its count.
        c.insert(meta(1, ItemType::ArchivedProject));
        assert!(!c.in_categories(1, projects));
        assert_eq!(c.count_matching(&filter(&[Category::Archive]), 10), 2);
        c.remove(3);
        assert!(!c.in_categories(3, u8::MAX));
        for cats in [
            vec![Category::Archive],
            vec![Category::Resource, Category::Project],
            Category::ALL.to_vec(),
        ] {
            let f = filter(&cats);
            let scanned = c.by_key.values().filter(|m| f.matches(m)).count();
            assert_eq!(c.count_matching(&f, 10), scanned, "{cats:?}");
        }
        assert_eq!(c.count_matching(&filter(&Category::ALL), 1), 1, "capped");
    }
}
