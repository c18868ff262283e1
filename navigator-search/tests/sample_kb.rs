//! The bundled sample knowledge base (`examples/data/para_kb.json`) parses, validates and
//! supports the seed scenarios the quickstart demonstrates.

use navigator_core::{from_json, Category, Item, ItemType};
use std::collections::{HashMap, HashSet};

fn load() -> Vec<Item> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/data/para_kb.json");
    let text = std::fs::read_to_string(path).expect("sample knowledge base is readable");
    from_json(&text).expect("sample knowledge base parses")
}

#[test]
fn every_item_validates_and_ids_are_unique() {
    let items = load();
    assert!(items.len() >= 200, "only {} items", items.len());
    let mut ids = HashSet::new();
    for item in &items {
        item.validate()
            .unwrap_or_else(|e| panic!("{}: {e}", item.id));
        assert!(ids.insert(item.id.as_str()), "duplicate id {}", item.id);
    }
}

#[test]
fn covers_every_type_and_category_with_sound_parents() {
    let items = load();
    let by_id: HashMap<&str, &Item> = items.iter().map(|i| (i.id.as_str(), i)).collect();
    for t in ItemType::ALL {
        assert!(items.iter().any(|i| i.item_type == t), "no {t} item");
    }
    for c in Category::ALL {
        assert!(items.iter().any(|i| i.category == c), "no {c} item");
    }
    for item in &items {
        let expected = item.item_type.default_category();
        assert_eq!(
            item.category, expected,
            "{} lives in the wrong category",
            item.id
        );
        if let Some(parent) = &item.parent_id {
            let p = by_id
                .get(parent.as_str())
                .unwrap_or_else(|| panic!("{}: unknown parent {parent}", item.id));
            let fits = match item.item_type {
                ItemType::Task => p.item_type == ItemType::Project,
                ItemType::Project => p.item_type == ItemType::Area,
                ItemType::ArchivedTask => p.item_type == ItemType::ArchivedProject,
                _ => false,
            };
            assert!(
                fits,
                "{} ({}) under {} ({})",
                item.id, item.item_type, p.id, p.item_type
            );
        }
    }
    assert!(items
        .iter()
        .filter(|i| i.item_type == ItemType::Task)
        .all(|i| i.parent_id.is_some()));
}

#[test]
fn holds_the_seed_scenarios() {
    let items = load();
    let get = |id: &str| {
        items
            .iter()
            .find(|i| i.id == id)
            .unwrap_or_else(|| panic!("{id}"))
    };
    assert_eq!(get("proj_phoenix").title, "Project Phoenix");
    assert_eq!(get("archived_proj_legacy").title, "Legacy System Migration");
    let jane = get("contact_jane");
    assert!(!jane.title.to_lowercase().contains("designer"));
    assert!(jane.body.contains("TechConf 2025"));
    let doc = get("res_design_doc_search");
    assert_eq!(doc.updated_at.format("%Y-%m").to_string(), "2026-10");
    assert!(get("tmpl_quarterly").title.contains("Quarterly Report"));
}
