//! The PARA categories and the item types that live in them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A PARA category: where an item lives.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Category {
    /// Short-term efforts with a goal and a deadline.
    Project,
    /// Ongoing responsibilities with a standard to maintain.
    Area,
    /// Topics of interest, reference material, people and organisations.
    Resource,
    /// Inactive items from the other three categories.
    Archive,
}

impl Category {
    /// All four categories, in PARA order.
    pub const ALL: [Category; 4] = [
        Category::Project,
        Category::Area,
        Category::Resource,
        Category::Archive,
    ];

    /// The wire name (`"project"`, `"area"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Project => "project",
            Category::Area => "area",
            Category::Resource => "resource",
            Category::Archive => "archive",
        }
    }

    /// Parses a wire name; `None` for anything else.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.as_str() == s)
    }

    /// The short label used when results are shown to a person (P/A/R/Archive).
    pub fn label(self) -> &'static str {
        match self {
            Category::Project => "P",
            Category::Area => "A",
            Category::Resource => "R",
            Category::Archive => "Archive",
        }
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The kind of a PARA item. Archived items carry an `archived_*` type.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ItemType {
    /// A project.
    Project,
    /// A task, usually inside a project.
    Task,
    /// An area of responsibility.
    Area,
    /// A person.
    Contact,
    /// A company, club, institution.
    Organization,
    /// Reference material: a note, document, link.
    Resource,
    /// A reusable template.
    Template,
    /// An archived project.
    ArchivedProject,
    /// An archived task.
    ArchivedTask,
    /// An archived area.
    ArchivedArea,
    /// An archived contact.
    ArchivedContact,
    /// An archived resource.
    ArchivedResource,
}

impl ItemType {
    /// Every item type.
    pub const ALL: [ItemType; 12] = [
        ItemType::Project,
        ItemType::Task,
        ItemType::Area,
        ItemType::Contact,
        ItemType::Organization,
        ItemType::Resource,
        ItemType::Template,
        ItemType::ArchivedProject,
        ItemType::ArchivedTask,
        ItemType::ArchivedArea,
        ItemType::ArchivedContact,
        ItemType::ArchivedResource,
    ];

    /// The wire name (`"task"`, `"archived_project"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            ItemType::Project => "project",
            ItemType::Task => "task",
            ItemType::Area => "area",
            ItemType::Contact => "contact",
            ItemType::Organization => "organization",
            ItemType::Resource => "resource",
            ItemType::Template => "template",
            ItemType::ArchivedProject => "archived_project",
            ItemType::ArchivedTask => "archived_task",
            ItemType::ArchivedArea => "archived_area",
            ItemType::ArchivedContact => "archived_contact",
            ItemType::ArchivedResource => "archived_resource",
        }
    }

    /// Parses a wire name; `None` for anything else.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.as_str() == s)
    }

    /// Whether this is one of the `archived_*` types.
    pub fn is_archived(self) -> bool {
        self.unarchived() != self
    }

    /// The archived form of this type; `None` for organization and template, which PARA
    /// has no archived type for.
    pub fn archived(self) -> Option<ItemType> {
        Some(match self {
            ItemType::Project | ItemType::ArchivedProject => ItemType::ArchivedProject,
            ItemType::Task | ItemType::ArchivedTask => ItemType::ArchivedTask,
            ItemType::Area | ItemType::ArchivedArea => ItemType::ArchivedArea,
            ItemType::Contact | ItemType::ArchivedContact => ItemType::ArchivedContact,
            ItemType::Resource | ItemType::ArchivedResource => ItemType::ArchivedResource,
            ItemType::Organization | ItemType::Template => return None,
        })
    }

    /// The live form of an archived type (identity for live types): what a restore yields.
    pub fn unarchived(self) -> ItemType {
        match self {
            ItemType::ArchivedProject => ItemType::Project,
            ItemType::ArchivedTask => ItemType::Task,
            ItemType::ArchivedArea => ItemType::Area,
            ItemType::ArchivedContact => ItemType::Contact,
            ItemType::ArchivedResource => ItemType::Resource,
            live => live,
        }
    }

    /// The category an item of this type usually lives in (archived types: the archive).
    pub fn default_category(self) -> Category {
        match self {
            ItemType::Project | ItemType::Task => Category::Project,
            ItemType::Area => Category::Area,
            ItemType::Contact
            | ItemType::Organization
            | ItemType::Resource
            | ItemType::Template => Category::Resource,
            _ => Category::Archive,
        }
    }
}

impl fmt::Display for ItemType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_names_round_trip() {
        for c in Category::ALL {
            assert_eq!(Category::parse(c.as_str()), Some(c));
            assert_eq!(serde_json::to_string(&c).unwrap(), format!("\"{c}\""));
        }
        for t in ItemType::ALL {
            assert_eq!(ItemType::parse(t.as_str()), Some(t));
            assert_eq!(serde_json::to_string(&t).unwrap(), format!("\"{t}\""));
        }
        assert_eq!(Category::parse("invalid"), None);
    }

    #[test]
    fn archiving_maps_types_both_ways() {
        assert_eq!(ItemType::Task.archived(), Some(ItemType::ArchivedTask));
        assert_eq!(ItemType::ArchivedTask.unarchived(), ItemType::Task);
        assert!(ItemType::ArchivedContact.is_archived());
        assert!(!ItemType::Template.is_archived());
        assert_eq!(ItemType::Template.archived(), None);
        assert_eq!(ItemType::ArchivedArea.default_category(), Category::Archive);
    }
}
