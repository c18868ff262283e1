//! What a caller asks for: [`SearchRequest`], its [`SearchMode`] and [`SearchFilters`].

use super::checks;
use crate::{Category, Error, Result};
use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Which retrieval signals a search uses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SearchMode {
    /// Keyword (BM25) and vector similarity, fused.
    #[default]
    Hybrid,
    /// Vector similarity only.
    Semantic,
    /// Keyword (BM25) only.
    Keyword,
}

impl SearchMode {
    /// Whether this mode needs the query embedded.
    pub fn uses_embeddings(self) -> bool {
        !matches!(self, SearchMode::Keyword)
    }

    /// Whether this mode uses the keyword index.
    pub fn uses_keywords(self) -> bool {
        !matches!(self, SearchMode::Semantic)
    }
}

/// A time window; either end may be open. Applies to an item's updated time.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DateRange {
    /// Inclusive lower bound (RFC 3339; on the wire a date `2025-01-31` is its first instant,
    /// UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<DateTime<Utc>>,
    /// Inclusive upper bound (RFC 3339; on the wire a date `2025-01-31` is its last instant,
    /// UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<DateTime<Utc>>,
}

impl DateRange {
    /// Whether `t` falls in the window.
    pub fn contains(&self, t: DateTime<Utc>) -> bool {
        self.start.is_none_or(|s| t >= s) && self.end.is_none_or(|e| t <= e)
    }

    /// Checks that both ends fall in [`SUPPORTED_YEARS`](crate::SUPPORTED_YEARS) and that the
    /// window is not inverted.
    pub fn validate(&self) -> Result<()> {
        if let Some(s) = self.start {
            checks::check_date("filters.dateRange.start", s)?;
        }
        if let Some(e) = self.end {
            checks::check_date("filters.dateRange.end", e)?;
        }
        match (self.start, self.end) {
            (Some(s), Some(e)) if s > e => Err(Error::invalid(
                "filters.dateRange",
                format!("start {s} is after end {e}"),
            )),
            _ => Ok(()),
        }
    }
}

/// An instant as a caller writes one: RFC 3339 (`2025-01-31T09:30:00Z`), or a calendar date
/// (`2025-01-31`, UTC) standing for its first instant, or with `end_of_day` its last (an
/// inclusive end bound `2025-01-31` keeps what changed during that day).
///
/// ```
/// use navigator_core::parse_instant;
/// let start = parse_instant("2025-01-31", false).unwrap();
/// let end = parse_instant("2025-01-31", true).unwrap();
/// assert_eq!(start.to_rfc3339(), "2025-01-31T00:00:00+00:00");
/// assert!(end > parse_instant("2025-01-31T23:59:59Z", false).unwrap());
/// assert!(parse_instant("next tuesday", false).is_none());
/// ```
pub fn parse_instant(s: &str, end_of_day: bool) -> Option<DateTime<Utc>> {
    let s = s.trim();
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Some(t.with_timezone(&Utc));
    }
    let day = chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").ok()?;
    let first = day.and_hms_opt(0, 0, 0)?.and_utc();
    if end_of_day {
        Some(first + chrono::Duration::days(1) - chrono::Duration::nanoseconds(1))
    } else {
        Some(first)
    }
}

/// [`parse_instant`] of a wire field, or the typed error naming the field.
fn wire_instant(field: &str, s: Option<String>, end_of_day: bool) -> Result<Option<DateTime<Utc>>> {
    s.map(|s| {
        parse_instant(&s, end_of_day).ok_or_else(|| {
            Error::invalid(
                field,
                format!("`{s}` is neither an RFC 3339 instant (2025-01-31T09:30:00Z) nor a date (2025-01-31)"),
            )
        })
    })
    .transpose()
}

/// The unchecked wire form of [`DateRange`]: parsing goes through it so an inverted window
/// is rejected while parsing, and a plain date is read as its day's first (start) or last
/// (end) instant.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct DateRangeWire {
    #[serde(default)]
    start: Option<String>,
    #[serde(default)]
    end: Option<String>,
}

impl TryFrom<DateRangeWire> for DateRange {
    type Error = Error;

    fn try_from(w: DateRangeWire) -> Result<Self> {
        let r = DateRange {
            start: wire_instant("filters.dateRange.start", w.start, false)?,
            end: wire_instant("filters.dateRange.end", w.end, true)?,
        };
        r.validate()?;
        Ok(r)
    }
}

/// Tags a result must carry. Tags compare case-insensitively and without a leading `#`
/// (`#Rust` and `rust` are one tag).
///
/// ```
/// use navigator_core::TagFilter;
/// let f = TagFilter::any(["rust", "go"]);
/// assert!(f.matches(&["Rust".to_string()]));
/// assert!(!TagFilter::all(["rust", "go"]).matches(&["#rust".to_string()]));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TagFilter {
    /// At least one of these (no condition when empty).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub any: Vec<String>,
    /// Every one of these.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub all: Vec<String>,
}

impl TagFilter {
    /// Items with at least one of `tags`.
    pub fn any<S: Into<String>>(tags: impl IntoIterator<Item = S>) -> Self {
        Self {
            any: tags.into_iter().map(Into::into).collect(),
            all: Vec::new(),
        }
    }

    /// Items with every one of `tags`.
    pub fn all<S: Into<String>>(tags: impl IntoIterator<Item = S>) -> Self {
        Self {
            any: Vec::new(),
            all: tags.into_iter().map(Into::into).collect(),
        }
    }

    /// A tag as compared: trimmed, without leading `#`, lower-cased.
    pub fn normalize(tag: &str) -> String {
        use unicode_normalization::UnicodeNormalization;
        let tag = tag.trim().trim_start_matches('#');
        // Composed and decomposed spellings (`café`, as macOS may write it) are one tag.
        match tag.is_ascii() {
            true => tag.to_lowercase(),
            false => tag.nfc().collect::<String>().to_lowercase(),
        }
    }

    /// Whether an item with `tags` passes.
    pub fn matches(&self, tags: &[String]) -> bool {
        let have: Vec<String> = tags.iter().map(|t| Self::normalize(t)).collect();
        self.normalized().matches_normalized(&have)
    }

    /// The same filter with every tag [normalised](Self::normalize): what to build once
    /// before testing many items with [`matches_normalized`](Self::matches_normalized).
    pub fn normalized(&self) -> Self {
        let norm = |l: &[String]| l.iter().map(|t| Self::normalize(t)).collect();
        Self {
            any: norm(&self.any),
            all: norm(&self.all),
        }
    }

    /// [`matches`](Self::matches) for a normalised filter and normalised item tags, without
    /// normalising either again.
    pub fn matches_normalized(&self, tags: &[String]) -> bool {
        let has = |t: &String| tags.contains(t);
        (self.any.is_empty() || self.any.iter().any(has)) && self.all.iter().all(has)
    }

    /// Checks that it names at least one tag and that every tag is a valid term.
    pub fn validate(&self) -> Result<()> {
        if self.any.is_empty() && self.all.is_empty() {
            return Err(Error::invalid(
                "filters.tags",
                "name at least one tag in `any` or `all`",
            ));
        }
        for (list, tags) in [("any", &self.any), ("all", &self.all)] {
            for (i, t) in tags.iter().enumerate() {
                let field = format!("filters.tags.{list}[{i}]");
                if Self::normalize(t).is_empty() {
                    return Err(Error::invalid(&field, "must not be empty"));
                }
                checks::check_term(&field, t)?;
            }
        }
        Ok(())
    }
}

/// Narrowing conditions on a search.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SearchFilters {
    /// Only items updated within this window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date_range: Option<DateRange>,
    /// Only items with this status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// Only children of this item.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<String>,
    /// Only items with these tags.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<TagFilter>,
}

impl SearchFilters {
    /// Whether no filter is set.
    pub fn is_empty(&self) -> bool {
        self == &Self::default()
    }

    /// The filters as the flat string map reported in `SearchMetadata.filters`.
    pub fn to_map(&self) -> std::collections::BTreeMap<String, String> {
        let mut m = std::collections::BTreeMap::new();
        if let Some(r) = &self.date_range {
            if let Some(s) = r.start {
                m.insert("dateRange.start".into(), s.to_rfc3339());
            }
            if let Some(e) = r.end {
                m.insert("dateRange.end".into(), e.to_rfc3339());
            }
        }
        if let Some(s) = &self.status {
            m.insert("status".into(), s.clone());
        }
        if let Some(p) = &self.parent_id {
            m.insert("parentId".into(), p.clone());
        }
        if let Some(t) = &self.tags {
            if !t.any.is_empty() {
                m.insert("tags.any".into(), t.any.join(","));
            }
            if !t.all.is_empty() {
                m.insert("tags.all".into(), t.all.join(","));
            }
        }
        m
    }
}

fn default_limit() -> u32 {
    10
}

fn default_true() -> bool {
    true
}

/// A search request, validated on parse and on construction.
///
/// ```
/// use navigator_core::{from_json, SearchMode, SearchRequest};
/// let req: SearchRequest = from_json(r#"{"query":"quarterly report"}"#)?;
/// assert_eq!((req.limit, req.offset, req.search_mode), (10, 0, SearchMode::Hybrid));
/// assert!(req.include_archived);
/// assert!(from_json::<SearchRequest>(r#"{"query":"x","limit":0}"#).is_err());
/// # Ok::<(), navigator_core::Error>(())
/// ```
// Parsed through `SearchRequestWire`, which holds the per-field parse rules (a plain
// comment: doc comments become the exported schema's description).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SearchRequest {
    /// What to look for. Empty only to list: with `categories` or a filter and no query, the
    /// matching items are listed newest first (every one with relevance 1.0).
    pub query: String,
    /// Only these categories (all four when absent); at least one when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub categories: Option<Vec<Category>>,
    /// Which signals to use.
    #[serde(default)]
    pub search_mode: SearchMode,
    /// Page size, 1..=50.
    #[serde(default = "default_limit")]
    #[schemars(range(min = 1, max = 50))]
    pub limit: u32,
    /// How many ranked results to skip; `offset + limit` at most
    /// [`MAX_RESULT_WINDOW`](crate::MAX_RESULT_WINDOW).
    #[serde(default)]
    pub offset: u32,
    /// Narrowing conditions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filters: Option<SearchFilters>,
    /// Whether archived items may be returned.
    #[serde(default = "default_true")]
    pub include_archived: bool,
}

impl SearchRequest {
    /// A request with the defaults: hybrid, all categories, limit 10, archive included.
    pub fn new(query: impl Into<String>) -> Result<Self> {
        let req = Self {
            query: query.into(),
            categories: None,
            search_mode: SearchMode::Hybrid,
            limit: default_limit(),
            offset: 0,
            filters: None,
            include_archived: true,
        };
        req.validate()?;
        Ok(req)
    }

    /// Sets the mode.
    pub fn mode(mut self, mode: SearchMode) -> Self {
        self.search_mode = mode;
        self
    }

    /// Scopes the search to these categories.
    pub fn categories(mut self, categories: impl IntoIterator<Item = Category>) -> Self {
        self.categories = Some(categories.into_iter().collect());
        self
    }

    /// Sets the page size (checked by [`validate`](Self::validate)).
    pub fn limit(mut self, limit: u32) -> Self {
        self.limit = limit;
        self
    }

    /// Sets how many ranked results to skip.
    pub fn offset(mut self, offset: u32) -> Self {
        self.offset = offset;
        self
    }

    /// Sets the filters.
    pub fn filters(mut self, filters: SearchFilters) -> Self {
        self.filters = (!filters.is_empty()).then_some(filters);
        self
    }

    /// Whether archived items may be returned.
    pub fn include_archived(mut self, include: bool) -> Self {
        self.include_archived = include;
        self
    }

    /// The categories this request searches, in PARA order: the scope (all four when
    /// unscoped), without the archive when `includeArchived` is false.
    pub fn categories_searched(&self) -> Vec<Category> {
        Category::ALL
            .into_iter()
            .filter(|c| self.categories.as_ref().is_none_or(|s| s.contains(c)))
            .filter(|c| self.include_archived || *c != Category::Archive)
            .collect()
    }

    /// A listing: no query; the items in `categories` (all four when `None`) passing
    /// `filters`, newest first. At least one of the two must narrow something.
    ///
    /// ```
    /// use navigator_core::{Category, SearchFilters, SearchRequest, TagFilter};
    /// let recent_projects = SearchRequest::list(Some(vec![Category::Project]), SearchFilters::default())?;
    /// assert!(recent_projects.is_listing());
    /// assert!(SearchRequest::list(None, SearchFilters::default()).is_err());
    /// # Ok::<(), navigator_core::Error>(())
    /// ```
    pub fn list(categories: Option<Vec<Category>>, filters: SearchFilters) -> Result<Self> {
        let req = Self {
            query: String::new(),
            categories,
            search_mode: SearchMode::Hybrid,
            limit: default_limit(),
            offset: 0,
            filters: (!filters.is_empty()).then_some(filters),
            include_archived: true,
        };
        req.validate()?;
        Ok(req)
    }

    /// Whether this request lists rather than searches: its query is empty (or blank), so
    /// the items passing its categories and filters come newest first.
    pub fn is_listing(&self) -> bool {
        self.query.trim().is_empty()
    }

    /// An empty query is a listing, which needs something to narrow it.
    fn check_listing(&self) -> Result<()> {
        if self.is_listing() && !self.has_conditions() {
            return Err(Error::invalid(
                "query",
                "must not be empty (to list items without a query, give categories or filters)",
            ));
        }
        Ok(())
    }

    /// Whether the request narrows what it returns: categories or any filter.
    pub fn has_conditions(&self) -> bool {
        self.categories.is_some() || self.filters.as_ref().is_some_and(|f| !f.is_empty())
    }

    /// Checks every rule of a request: what parsing enforces field by field, and the rules
    /// across fields (an empty query only with categories or a filter, to list).
    pub fn validate(&self) -> Result<()> {
        self.check_listing()?;
        checks::check_limit("limit", self.limit)?;
        checks::check_window(self.offset, self.limit)?;
        if let Some(f) = &self.filters {
            if let Some(s) = &f.status {
                checks::check_term("filters.status", s)?;
            }
            if let Some(p) = &f.parent_id {
                checks::check_term("filters.parentId", p)?;
            }
            if let Some(t) = &f.tags {
                t.validate()?;
            }
        }
        if let Some(cats) = &self.categories {
            if cats.is_empty() {
                return Err(Error::invalid(
                    "categories",
                    "must name at least one category when present",
                ));
            }
        }
        if let Some(r) = self.filters.as_ref().and_then(|f| f.date_range.as_ref()) {
            r.validate()?;
        }
        Ok(())
    }
}

/// The fields of a [`SearchRequest`] as parsed one by one (each with its own rule); the rule
/// across them (an empty query needs categories or a filter) is checked before a
/// `SearchRequest` exists.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct SearchRequestWire {
    query: String,
    #[serde(default, deserialize_with = "checks::categories")]
    categories: Option<Vec<Category>>,
    #[serde(default)]
    search_mode: SearchMode,
    #[serde(default = "default_limit", deserialize_with = "checks::limit")]
    limit: u32,
    #[serde(default, deserialize_with = "checks::offset")]
    offset: u32,
    #[serde(default)]
    filters: Option<SearchFilters>,
    #[serde(default = "default_true")]
    include_archived: bool,
}

impl<'de> Deserialize<'de> for SearchRequest {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let w = SearchRequestWire::deserialize(d)?;
        let request = SearchRequest {
            query: w.query,
            categories: w.categories,
            search_mode: w.search_mode,
            limit: w.limit,
            offset: w.offset,
            filters: w.filters,
            include_archived: w.include_archived,
        };
        request.check_listing().map_err(serde::de::Error::custom)?;
        Ok(request)
    }
}

impl<'de> Deserialize<'de> for DateRange {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let wire = DateRangeWire::deserialize(d)?;
        Self::try_from(wire).map_err(serde::de::Error::custom)
    }
}
