//! [`Filter`]: the narrowing part of a request (scope, archive, status, parent, date range,
//! tags) in
//! one place, applied the same way to the keyword index (as query clauses) and to the vector
//! index and catalog (as a predicate: `Filter::matches`, which lives in `catalog.rs` beside the
//! record it reads, so the catalog depends on the filter and not the other way round).

use navigator_core::{Category, DateRange, SearchMode, SearchRequest, TagFilter};

/// The conditions an item must meet to be returned for a request.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Filter {
    /// The categories searched: the scope minus the archive when it is excluded.
    pub(crate) categories: Vec<Category>,
    pub(crate) status: Option<String>,
    pub(crate) parent_id: Option<String>,
    /// Applies to the updated time, as the contract's `DateRange` says.
    pub(crate) updated: Option<DateRange>,
    /// Normalised once here; the catalog holds items' tags normalised.
    pub(crate) tags: Option<TagFilter>,
}

impl Filter {
    pub(crate) fn from_request(req: &SearchRequest) -> Self {
        let f = req.filters.clone().unwrap_or_default();
        Self {
            categories: req.categories_searched(),
            status: f.status,
            parent_id: f.parent_id,
            updated: f.date_range,
            tags: f.tags.as_ref().map(TagFilter::normalized),
        }
    }

    /// No condition at all: every category, archive included.
    #[cfg_attr(not(feature = "postgres"), allow(dead_code))]
    pub(crate) fn everything() -> Self {
        Self {
            categories: Category::ALL.to_vec(),
            status: None,
            parent_id: None,
            updated: None,
            tags: None,
        }
    }

    /// Whether every category is searched and nothing else narrows the search.
    pub(crate) fn is_unrestricted(&self) -> bool {
        self.categories.len() == Category::ALL.len()
            && self.status.is_none()
            && self.is_category_only()
    }

    /// Whether the filter restricts nothing but the categories.
    pub(crate) fn is_category_only(&self) -> bool {
        self.status.is_none()
            && self.parent_id.is_none()
            && self.updated.is_none()
            && self.tags.is_none()
    }
}

/// The query vector a request in `mode` searches with: `None` when the mode does not embed;
/// an error when it does and the vector is missing or not `dims` wide (`model` names the
/// embedder in that error). Both backends check a request's vector through this.
pub(crate) fn checked_query_vector<'a>(
    mode: SearchMode,
    vector: Option<&'a [f32]>,
    dims: usize,
    model: &str,
) -> crate::Result<Option<&'a [f32]>> {
    if !mode.uses_embeddings() {
        return Ok(None);
    }
    let v = vector.ok_or_else(|| {
        navigator_core::Error::invalid(
            "searchMode",
            format!("{mode:?} search needs the query embedded"),
        )
    })?;
    if v.len() != dims {
        return Err(crate::Error::Dimensions {
            expected: dims,
            got: v.len(),
            model: model.to_string(),
        });
    }
    Ok(Some(v))
}

/// Whether two ids or paths are one: equal, or equal once composed (a folder named `Café` by
/// a system that writes it decomposed is the folder a person types).
pub(crate) fn same_path(a: &str, b: &str) -> bool {
    a == b || (!(a.is_ascii() && b.is_ascii()) && composed(a) == composed(b))
}

/// `s` in Unicode's composed form (NFC).
pub(crate) fn composed(s: &str) -> std::borrow::Cow<'_, str> {
    use unicode_normalization::UnicodeNormalization;
    match s.is_ascii() {
        true => std::borrow::Cow::Borrowed(s),
        false => std::borrow::Cow::Owned(s.nfc().collect()),
    }
}

#[cfg(test)]
mod path_tests {
    use super::*;

    #[test]
    fn composed_and_decomposed_paths_are_one() {
        let decomposed: String =
            unicode_normalization::UnicodeNormalization::nfd("1 Projects/Café/").collect();
        assert_ne!(decomposed, "1 Projects/Café/");
        assert!(same_path(&decomposed, "1 Projects/Café/"));
        assert!(same_path("a/b/", "a/b/"));
        assert!(!same_path("a/b/", "a/c/"));
        assert!(!same_path(&decomposed, "1 Projects/Cafe/"));
    }
}
