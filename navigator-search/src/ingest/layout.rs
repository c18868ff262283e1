//! [`ParaLayout`]: which top-level folder of a vault is which PARA category.
//!
//! People number and decorate their PARA folders (`1 Projects`, `01-Projects`, `1. Projects`,
//! `PROJECTS`), so a folder name is normalised before it is looked up: leading digits and
//! the separators after them are dropped, the rest is case-folded. Extra names (`Inbox`,
//! `Journal`, `Zettelkasten`) can be mapped to a category with [`ParaLayout::with_folder`].

use navigator_core::Category;
use std::collections::BTreeMap;

/// The mapping from top-level folder names to PARA categories.
///
/// ```
/// use navigator_core::Category;
/// use navigator_search::ingest::ParaLayout;
/// let layout = ParaLayout::default().with_folder("Inbox", Category::Resource);
/// assert_eq!(layout.category_of("01-Projects"), Some(Category::Project));
/// assert_eq!(layout.category_of("4. ARCHIVES"), Some(Category::Archive));
/// assert_eq!(layout.category_of("inbox"), Some(Category::Resource));
/// assert_eq!(layout.category_of("Attachments"), None);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParaLayout {
    /// Normalised folder name → category.
    folders: BTreeMap<String, Category>,
    /// The category of notes outside every mapped folder.
    default_category: Category,
}

impl Default for ParaLayout {
    fn default() -> Self {
        let mut folders = BTreeMap::new();
        for (names, category) in [
            (&["projects", "project"][..], Category::Project),
            (&["areas", "area"][..], Category::Area),
            (&["resources", "resource"][..], Category::Resource),
            (&["archives", "archive", "archived"][..], Category::Archive),
        ] {
            for name in names {
                folders.insert((*name).to_string(), category);
            }
        }
        Self {
            folders,
            default_category: Category::Resource,
        }
    }
}

impl ParaLayout {
    /// Maps one more top-level folder name (normalised like every other) to `category`.
    pub fn with_folder(mut self, name: &str, category: Category) -> Self {
        self.folders.insert(normalise(name), category);
        self
    }

    /// Sets the category of notes outside every mapped folder (default: resource).
    pub fn with_default_category(mut self, category: Category) -> Self {
        self.default_category = category;
        self
    }

    /// The category of notes outside every mapped folder.
    pub fn default_category(&self) -> Category {
        self.default_category
    }

    /// The category a top-level folder stands for, if it is a mapped one.
    pub fn category_of(&self, folder: &str) -> Option<Category> {
        self.folders.get(&normalise(folder)).copied()
    }

    /// A short fingerprint of the mapping: part of every note's content hash, so changing the
    /// layout re-derives every note (category and parent depend on it).
    pub(crate) fn fingerprint(&self) -> String {
        let mut s = format!("default={};", self.default_category);
        for (name, c) in &self.folders {
            s.push_str(&format!("{name}={c};"));
        }
        s
    }
}

/// `"01 - Projects"` → `"projects"`: drops leading digits, dots, dashes, underscores and
/// spaces, then case-folds.
fn normalise(name: &str) -> String {
    name.trim_start_matches(|c: char| {
        c.is_ascii_digit() || c == '.' || c == '-' || c == '_' || c.is_whitespace()
    })
    .trim()
    .to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_common_numbering_is_recognised() {
        let layout = ParaLayout::default();
        for name in [
            "Projects",
            "1 Projects",
            "01-Projects",
            "1. Projects",
            "projects",
            "PROJECTS",
            "01_projects",
            "1 - Projects",
        ] {
            assert_eq!(layout.category_of(name), Some(Category::Project), "{name}");
        }
        assert_eq!(layout.category_of("2 Areas"), Some(Category::Area));
        assert_eq!(layout.category_of("3. Resources"), Some(Category::Resource));
        assert_eq!(layout.category_of("04-Archive"), Some(Category::Archive));
        assert_eq!(layout.category_of("Daily"), None);
        assert_eq!(layout.category_of("2024"), None);
    }

    #[test]
    fn the_fingerprint_changes_with_the_mapping() {
        let a = ParaLayout::default();
        let b = ParaLayout::default().with_folder("Inbox", Category::Project);
        assert_ne!(a.fingerprint(), b.fingerprint());
    }
}
