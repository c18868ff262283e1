//! [`Catalog`]: the in-memory view of every item's filterable and rankable facts (category,
//! type, status, parent, dates, access count), loaded from the store on open. The vector index
//! filters and the ranker reads recency and access frequency through it without touching disk,
//! and exact id/title lookups (navigation) are one hash probe.
//!
//! At a million items it is most of what opening an index allocates, so each item's facts are
//! held once: one boxed record per key, and the id and title lookups are tables of keys
//! hashed by the record's own strings rather than second copies of them.

pub(crate) mod snapshot;

use crate::filter::Filter;
use chrono::{DateTime, Utc};
use navigator_core::{Category, Item, ItemType};
use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};

/// What the engine keeps in memory about one item.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ItemMeta {
    pub(crate) key: u64,
    pub(crate) id: String,
    pub(crate) title: String,
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
        let mut meta = Self::from_normalized(key, item);
        for tag in &mut meta.tags {
            *tag = navigator_core::TagFilter::normalize(tag);
        }
        meta
    }

    /// The record of facts whose tags are normalised already (read back from a catalog
    /// snapshot): normalising is not idempotent for every tag (`"# #x"`).
    pub(crate) fn from_normalized(key: u64, item: Item) -> Self {
        Self {
            key,
            id: item.id,
            title: item.title,
            category: item.category,
            item_type: item.item_type,
            status: item.status,
            parent_id: item.parent_id,
            tags: item.tags,
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
    /// Boxed: the table's slots (a power of two above the item count) hold a pointer each,
    /// not a whole record.
    by_key: HashMap<u64, Box<ItemMeta>, KeyHash>,
    /// Keys by the hash of their item's id (one per id).
    key_of_id: hashbrown::HashTable<u64>,
    /// Keys by the hash of their item's normalised title (several items may share one).
    keys_of_title: hashbrown::HashTable<u64>,
    hasher: std::hash::RandomState,
    /// Live items per category (indexed like [`Category::ALL`]).
    per_category: [usize; 4],
    /// By key (keys are small sequential numbers): the bit of the item's category, 0 when no
    /// live item has the key. The vector search's filter reads it for every graph node it
    /// visits, so it must be one cache-friendly load, not a hash probe.
    category_bits: Vec<u8>,
}

/// Hashes item keys for the catalog's table: keys are the store's own sequence numbers (not
/// chosen by anyone who could aim them at one bucket), so one multiplication spreads them —
/// SipHash on every probe was a measurable share of loading a million items.
#[derive(Debug, Clone, Copy, Default)]
struct KeyHash;

impl BuildHasher for KeyHash {
    type Hasher = KeyHasher;

    fn build_hasher(&self) -> KeyHasher {
        KeyHasher(0)
    }
}

/// The hasher of [`KeyHash`]: a Fibonacci multiply of the `u64` key.
#[derive(Debug, Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only `u64` keys are hashed here; other input still hashes (byte by byte).
        for &b in bytes {
            self.write_u64(u64::from(b) ^ self.0.rotate_left(8));
        }
    }

    fn write_u64(&mut self, key: u64) {
        self.0 = key.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
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

/// The hash of `title`'s [`normalize_title`] form under `hasher`: its words lower-cased, one
/// space between them, fed to the hasher in blocks instead of built as a string.
fn title_hash(hasher: &std::hash::RandomState, title: &str) -> u64 {
    let mut h = hasher.build_hasher();
    let mut block = [0u8; 64];
    let mut n = 0;
    let mut push = |h: &mut std::hash::DefaultHasher, bytes: &[u8]| {
        for &b in bytes {
            if n == block.len() {
                h.write(&block);
                n = 0;
            }
            block[n] = b;
            n += 1;
        }
    };
    for (i, word) in title.split_whitespace().enumerate() {
        if i > 0 {
            push(&mut h, b" ");
        }
        if word.is_ascii() {
            for b in word.bytes() {
                push(&mut h, &[b.to_ascii_lowercase()]);
            }
        } else {
            push(&mut h, word.to_lowercase().as_bytes());
        }
    }
    h.write(&block[..n]);
    h.finish()
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
            by_key: HashMap::with_capacity_and_hasher(n, KeyHash),
            key_of_id: hashbrown::HashTable::with_capacity(n),
            keys_of_title: hashbrown::HashTable::with_capacity(n),
            category_bits: Vec::with_capacity(n.saturating_add(1).min(DENSE_KEYS_MAX)),
            ..Self::default()
        }
    }

    /// The hash of an item's id.
    fn id_hash(&self, id: &str) -> u64 {
        self.hasher.hash_one(id)
    }

    /// The hash of a title's normalised form ([`normalize_title`]), computed without
    /// building it: loading a million items, that string was most of an insert's work.
    fn title_hash(&self, title: &str) -> u64 {
        title_hash(&self.hasher, title)
    }

    pub(crate) fn insert(&mut self, meta: ItemMeta) {
        self.insert_boxed(Box::new(meta));
    }

    /// [`insert`](Self::insert) of a record already boxed (by the threads that decode a
    /// loading catalog).
    pub(crate) fn insert_boxed(&mut self, meta: Box<ItemMeta>) {
        if self.by_key.contains_key(&meta.key) {
            self.remove(meta.key);
        }
        let key = meta.key;
        // Two ids may share a hash: each entry is told apart by its item's id.
        let id_hash = self.id_hash(&meta.id);
        let by_key = &self.by_key;
        let hasher = &self.hasher;
        let rehash = |k: &u64| by_key.get(k).map_or(0, |m| hasher.hash_one(m.id.as_str()));
        match self
            .key_of_id
            .find_entry(id_hash, |k| by_key.get(k).is_some_and(|m| m.id == meta.id))
        {
            // Another key with this id (callers give one key per id): the newer one wins.
            Ok(mut entry) => *entry.get_mut() = key,
            Err(_) => {
                self.key_of_id.insert_unique(id_hash, key, rehash);
            }
        }
        let hash = self.title_hash(&meta.title);
        self.keys_of_title.insert_unique(hash, key, |k| {
            by_key.get(k).map_or(0, |m| title_hash(hasher, &m.title))
        });
        self.per_category[category_slot(meta.category)] += 1;
        if let Ok(k) = usize::try_from(key) {
            if k < DENSE_KEYS_MAX {
                if self.category_bits.len() <= k {
                    self.category_bits.resize(k + 1, 0);
                }
                self.category_bits[k] = category_bit(meta.category);
            }
        }
        self.by_key.insert(key, meta);
    }

    pub(crate) fn remove(&mut self, key: u64) -> Option<ItemMeta> {
        let meta = self.by_key.get(&key)?;
        if let Ok(entry) = self
            .key_of_id
            .find_entry(self.id_hash(&meta.id), |k| *k == key)
        {
            entry.remove();
        }
        if let Ok(entry) = self
            .keys_of_title
            .find_entry(self.title_hash(&meta.title), |k| *k == key)
        {
            entry.remove();
        }
        let meta = *self.by_key.remove(&key)?;
        self.per_category[category_slot(meta.category)] -= 1;
        if let Some(bits) = usize::try_from(key)
            .ok()
            .and_then(|k| self.category_bits.get_mut(k))
        {
            *bits = 0;
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
        self.by_key.get(&key).map(|m| &**m)
    }

    pub(crate) fn by_id(&self, id: &str) -> Option<&ItemMeta> {
        self.key_of_id
            .find(self.id_hash(id), |k| {
                self.get(*k).is_some_and(|m| m.id == id)
            })
            .and_then(|k| self.get(*k))
    }

    /// Items whose title equals `title` (case- and spacing-insensitive), by key order.
    pub(crate) fn by_title(&self, title: &str) -> Vec<&ItemMeta> {
        let norm = normalize_title(title);
        let mut hits: Vec<&ItemMeta> = self
            .keys_of_title
            .iter_hash(self.title_hash(title))
            .filter_map(|k| self.get(*k))
            .filter(|m| normalize_title(&m.title) == norm)
            .collect();
        hits.sort_by_key(|m| m.key);
        hits
    }

    pub(crate) fn set_access_count(&mut self, key: u64, count: u64) {
        if let Some(m) = self.by_key.get_mut(&key) {
            m.access_count = count;
        }
    }

    /// Every record, in no particular order.
    pub(crate) fn records(&self) -> impl Iterator<Item = &ItemMeta> {
        self.by_key.values().map(|m| &**m)
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
        let mut matching: Vec<&ItemMeta> = self
            .by_key
            .values()
            .map(|m| &**m)
            .filter(|m| filter.matches(m))
            .collect();
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
            && self.parent_id.as_ref().is_none_or(|p| {
                m.parent_id
                    .as_deref()
                    .is_some_and(|m| crate::filter::same_path(m, p))
            })
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

    fn titled(key: u64, id: &str, title: &str) -> ItemMeta {
        let at = "2026-01-01T00:00:00Z".parse().unwrap();
        ItemMeta::new(key, &Item::new(id, ItemType::Resource, title, at).unwrap())
    }

    #[test]
    fn id_and_title_lookups_follow_updates_renames_and_removals() {
        let mut c = Catalog::with_capacity(2);
        // More items than the tables were sized for: they grow and rehash by the records.
        for k in 1..=50u64 {
            c.insert(titled(k, &format!("n{k}"), &format!("Note {}", k % 5)));
        }
        assert_eq!(c.by_id("n7").map(|m| m.key), Some(7));
        assert!(c.by_id("n51").is_none());
        let keys = |c: &Catalog, t: &str| c.by_title(t).iter().map(|m| m.key).collect::<Vec<_>>();
        assert_eq!(
            keys(&c, "  note   2 "),
            [2, 7, 12, 17, 22, 27, 32, 37, 42, 47]
        );
        // A rename moves the item between titles; the id still finds it.
        c.insert(titled(7, "n7", "Renamed"));
        assert_eq!(keys(&c, "NOTE 2").len(), 9);
        assert_eq!(keys(&c, "renamed"), [7]);
        assert_eq!(c.by_id("n7").map(|m| m.title.as_str()), Some("Renamed"));
        // A removed item is gone from both lookups, and the others stay.
        assert_eq!(c.remove(7).map(|m| m.id), Some("n7".to_string()));
        assert!(c.by_id("n7").is_none());
        assert!(keys(&c, "renamed").is_empty());
        assert_eq!(c.by_id("n8").map(|m| m.key), Some(8));
        assert_eq!(c.len(), 49);
        // An id given a new key: the lookup finds the newer key, and removing the older
        // key does not lose it.
        c.insert(titled(60, "n9", "Note 4"));
        assert_eq!(c.by_id("n9").map(|m| m.key), Some(60));
        c.remove(9);
        assert_eq!(c.by_id("n9").map(|m| m.key), Some(60));
        assert_eq!(keys(&c, "note 4"), [4, 14, 19, 24, 29, 34, 39, 44, 49, 60]);
        // Non-ASCII words and titles longer than a hashing block match like the rest.
        let long = format!("Été {}", "Mots ".repeat(30));
        c.insert(titled(70, "n70", &long));
        assert_eq!(keys(&c, &long.to_uppercase()), [70]);
        assert_eq!(keys(&c, &format!("été {}", "mots ".repeat(30))), [70]);
        assert!(keys(&c, &format!("été {}", "mots ".repeat(29))).is_empty());
    }
}
