//! Suggestions for a search that found nothing: each fits the case (what was excluded, what
//! was scoped, what looks misspelled), padded with general advice to at least three.

use navigator_core::{Category, SearchRequest};

/// At least this many suggestions accompany a `no_results` answer.
pub(crate) const MIN_SUGGESTIONS: usize = 3;

/// Suggestions for `request` (as searched) that found nothing. `searched_query` is the query
/// after understanding; `vocabulary` yields the words of the knowledge base's titles, for
/// near spellings.
pub(crate) fn no_results_suggestions<'v>(
    request: &SearchRequest,
    searched_query: &str,
    vocabulary: impl IntoIterator<Item = &'v str>,
) -> Vec<String> {
    let mut out = Vec::new();
    let words = query_words(searched_query);
    if let Some(fixed) = respell(&words, vocabulary) {
        out.push(format!("Did you mean \"{fixed}\"?"));
    }
    if !request.include_archived {
        out.push("Include archived items: the archive was not searched".to_string());
    }
    if let Some(scope) = &request.categories {
        let others: Vec<&str> = Category::ALL
            .iter()
            .filter(|c| !scope.contains(c))
            .map(|c| c.as_str())
            .collect();
        if !others.is_empty() {
            out.push(format!(
                "Search the other categories too: {}",
                others.join(", ")
            ));
        }
    }
    if let Some(f) = request.filters.as_ref().filter(|f| !f.is_empty()) {
        let names: Vec<String> = f.to_map().into_keys().collect();
        out.push(format!(
            "Remove the filters ({}) to widen the search",
            names.join(", ")
        ));
    }
    if words.len() > 1 {
        out.push(format!(
            "Use fewer or broader terms, e.g. \"{}\"",
            words
                .iter()
                .max_by_key(|w| w.len())
                .map_or("", |w| w.as_str())
        ));
    }
    for general in [
        "Describe what the item is about in your own words (search understands meaning, not only exact words)",
        "Browse by category: projects, areas, resources or the archive",
        "Check the spelling of names and titles",
    ] {
        if out.len() >= MIN_SUGGESTIONS {
            break;
        }
        out.push(general.to_string());
    }
    out
}

/// `query` respelled after the knowledge base's `vocabulary` (the words of its titles): each
/// word of four letters or more that is not in it replaced by the closest one that is (edit
/// similarity at least 0.8); `None` when nothing changes. What the Navigator's "Did you mean"
/// suggestion offers.
///
/// ```
/// use navigator_search::did_you_mean;
/// assert_eq!(did_you_mean("kitchn budget", ["Kitchen", "budget"]).as_deref(), Some("kitchen budget"));
/// assert_eq!(did_you_mean("budget", ["Kitchen", "budget"]), None);
/// ```
pub fn did_you_mean<'v>(
    query: &str,
    vocabulary: impl IntoIterator<Item = &'v str>,
) -> Option<String> {
    respell(&query_words(query), vocabulary)
}

/// The query's words, lower case, without the punctuation around them.
fn query_words(query: &str) -> Vec<String> {
    query
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect()
}

/// The query with each word that is not in the vocabulary replaced by the closest word that
/// is (edit similarity ≥ 0.8); `None` when nothing changes.
fn respell<'v>(words: &[String], vocabulary: impl IntoIterator<Item = &'v str>) -> Option<String> {
    let vocab: Vec<String> = vocabulary.into_iter().map(str::to_lowercase).collect();
    let mut changed = false;
    let fixed: Vec<String> = words
        .iter()
        .map(|w| {
            if w.len() < 4 || vocab.iter().any(|v| v == w) {
                return w.clone();
            }
            let best = vocab
                .iter()
                .map(|v| (strsim::normalized_damerau_levenshtein(w, v), v))
                .filter(|(s, _)| *s >= 0.8)
                .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(a.1)));
            match best {
                Some((_, v)) => {
                    changed = true;
                    v.clone()
                }
                None => w.clone(),
            }
        })
        .collect();
    changed.then(|| fixed.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions_fit_the_case() {
        let req = SearchRequest::new("quartrly reprt")
            .unwrap()
            .include_archived(false)
            .categories([Category::Area]);
        let s = no_results_suggestions(&req, "quartrly reprt", ["Quarterly", "Report", "Budget"]);
        assert_eq!(s[0], "Did you mean \"quarterly report\"?");
        assert!(s.iter().any(|x| x.contains("archive")));
        assert!(s.iter().any(|x| x.contains("project, resource, archive")));
        assert!(s.len() >= MIN_SUGGESTIONS);
    }

    #[test]
    fn padded_to_three_when_nothing_specific_applies() {
        let req = SearchRequest::new("xyzzy").unwrap();
        let s = no_results_suggestions(&req, "xyzzy", ["Budget"]);
        assert_eq!(s.len(), MIN_SUGGESTIONS);
    }
}
