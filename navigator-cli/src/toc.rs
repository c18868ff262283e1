//! `navigator toc`: the index as a PARA tree — categories, then folders and notes by parent.

use crate::exit::{Failure, Outcome, INPUT};
use crate::home::{runtime, Home};
use anyhow::anyhow;
use navigator_core::{Category, Item, ItemScan, ItemStore};
use std::collections::{BTreeMap, HashMap};
use std::process::ExitCode;

/// Print the table of contents of the index: each category, its folders and notes as a
/// tree (children under their parent).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Only this category; repeatable.
    #[arg(long = "category", short = 'c', value_parser = crate::home::parse_category)]
    pub categories: Vec<Category>,
    /// Start at this item (a folder id such as `Projects/Phoenix/`).
    #[arg(long)]
    pub under: Option<String>,
    /// How many levels to show (at least 1).
    #[arg(long, default_value_t = 3, allow_negative_numbers = true,
          value_parser = clap::value_parser!(u16).range(1..))]
    pub depth: u16,
    /// Print the tree as JSON.
    #[arg(long)]
    pub json: bool,
}

/// One node of the printed tree.
#[derive(Debug, serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct Node {
    id: String,
    title: String,
    item_type: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    children: Vec<Node>,
}

/// Runs the command.
pub fn run(args: Args) -> Outcome {
    let home = Home::resolve()?;
    home.require_index()?;
    let items = runtime()?.block_on(async {
        let engine = home.engine().await?;
        engine
            .store()
            .scan_items(&ItemScan::default())
            .await
            .map_err(Failure::from)
    })?;
    let category_of: HashMap<&str, Category> =
        items.iter().map(|i| (i.id.as_str(), i.category)).collect();
    let mut children: BTreeMap<Option<&str>, Vec<&Item>> = BTreeMap::new();
    for item in &items {
        // A note whose front matter moved it to another category (`category: area` inside a
        // project's folder) is listed under that category, not under its folder.
        let parent = item
            .parent_id
            .as_deref()
            .filter(|p| category_of.get(p) == Some(&item.category));
        children.entry(parent).or_default().push(item);
    }
    for list in children.values_mut() {
        // Folders before notes, then by title.
        list.sort_by_key(|i| (!i.id.ends_with('/'), i.title.to_lowercase()));
    }
    let build = |roots: Vec<&Item>| -> Vec<Node> {
        roots
            .into_iter()
            .map(|i| node(i, &children, usize::from(args.depth) - 1))
            .collect()
    };
    let tree: Vec<(String, Vec<Node>)> = match &args.under {
        Some(id) => {
            let item = items.iter().find(|i| &i.id == id).ok_or_else(|| {
                // Folder ids end with `/`: `--under "1 Projects/Kitchen"` names no item.
                let folder = format!("{id}/");
                let hint = if !id.ends_with('/') && items.iter().any(|i| i.id == folder) {
                    format!("; folder ids end with `/`: --under '{folder}'")
                } else {
                    String::new()
                };
                Failure::new(INPUT, anyhow!("no item `{id}` in the index{hint}"))
            })?;
            vec![(
                item.title.clone(),
                build(
                    children
                        .get(&Some(item.id.as_str()))
                        .cloned()
                        .unwrap_or_default(),
                ),
            )]
        }
        None => Category::ALL
            .into_iter()
            .filter(|c| args.categories.is_empty() || args.categories.contains(c))
            .map(|c| {
                let roots = children
                    .get(&None)
                    .map(|l| l.iter().copied().filter(|i| i.category == c).collect())
                    .unwrap_or_default();
                (c.as_str().to_string(), build(roots))
            })
            .collect(),
    };
    if args.json {
        let map: BTreeMap<&str, &Vec<Node>> = tree.iter().map(|(k, v)| (k.as_str(), v)).collect();
        println!("{}", serde_json::to_string_pretty(&map).unwrap_or_default());
    } else {
        for (heading, nodes) in &tree {
            println!("{heading}");
            print_nodes(nodes, 1);
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn node(item: &Item, children: &BTreeMap<Option<&str>, Vec<&Item>>, depth: usize) -> Node {
    let kids = if depth == 0 {
        Vec::new()
    } else {
        children
            .get(&Some(item.id.as_str()))
            .map(|l| l.iter().map(|c| node(c, children, depth - 1)).collect())
            .unwrap_or_default()
    };
    Node {
        id: item.id.clone(),
        title: item.title.clone(),
        item_type: item.item_type.to_string(),
        children: kids,
    }
}

fn print_nodes(nodes: &[Node], indent: usize) {
    for n in nodes {
        let marker = if n.id.ends_with('/') { "▸" } else { "-" };
        println!("{}{marker} {}  ({})", "  ".repeat(indent), n.title, n.id);
        print_nodes(&n.children, indent + 1);
    }
}
