//! The specialists' tools against the real functions behind them: the workflow engine's MCP
//! server (in process), the context explorer over the sample repository, the item store.

use navigator_butler::{
    ButlerError, CodeContextTool, GetItemTool, McpToolset, Permission, Tool, ToolCatalog,
};
use navigator_core::{Category, Item, ItemStore, ItemType, MemoryStore, Store};
use navigator_workflow::mcp::NavigatorServer;
use navigator_workflow::{Navigator, Task, WorkflowDefinition};
use serde_json::json;
use std::sync::Arc;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/data/butler");

fn release_queue() -> Navigator {
    let mut nav = Navigator::new();
    let yaml = std::fs::read_to_string(format!("{DATA}/workflow.yaml")).unwrap();
    nav.load_workflow("release", WorkflowDefinition::from_yaml(&yaml).unwrap())
        .unwrap();
    let tasks: Vec<Task> =
        serde_json::from_str(&std::fs::read_to_string(format!("{DATA}/tasks.json")).unwrap())
            .unwrap();
    nav.load_tasks(tasks, true).unwrap();
    nav
}

#[tokio::test]
async fn workflow_tools_come_from_the_mcp_server_with_its_schemas_and_hints() {
    let server = NavigatorServer::new(release_queue());
    let state = server.navigator();
    let set = McpToolset::workflow(server).await.unwrap();
    let catalog = ToolCatalog::new().with_tools(set.tools());
    catalog.check().unwrap();
    let permission = |name: &str| {
        catalog
            .specs()
            .find(|s| s.name == name)
            .unwrap_or_else(|| panic!("{name} listed"))
            .permission
    };
    assert_eq!(permission("get_task"), Permission::Read);
    assert_eq!(permission("get_next_tasks_from_tree"), Permission::Read);
    assert_ne!(permission("advance_task"), Permission::Read);

    // A read: the real queue answers, tasks come back as sources.
    let out = catalog
        .call("get_next_tasks_from_tree", json!({"limit": 2}))
        .await
        .unwrap();
    let ids: Vec<_> = out.sources.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["rel-042", "rel-041"], "{}", out.content);

    // Arguments breaking the server's schema never reach it.
    let err = catalog
        .call("get_next_tasks_from_tree", json!({"limit": "two"}))
        .await
        .unwrap_err();
    assert!(matches!(err, ButlerError::InvalidArguments { .. }), "{err}");

    // A rule the server enforces comes back as a failed call naming it.
    let err = catalog
        .call("get_task", json!({"taskId": "no-such-task"}))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ButlerError::Mcp { message, .. } if message.contains("no-such-task")),
        "{err}"
    );

    // A write needs the approver; with it, the real task moves.
    let err = catalog
        .call(
            "advance_task",
            json!({"taskId": "rel-042", "result": "passed"}),
        )
        .await
        .unwrap_err();
    assert!(matches!(err, ButlerError::NotApproved { .. }), "{err}");
    let approving = catalog.clone().with_approver(|_| true);
    approving
        .call(
            "advance_task",
            json!({"taskId": "rel-042", "result": "passed"}),
        )
        .await
        .unwrap();
    let step = state
        .lock()
        .unwrap()
        .task("rel-042")
        .unwrap()
        .current_step
        .clone();
    assert_eq!(step, "changelog");
}

#[tokio::test]
async fn code_context_comes_from_the_explorer_over_the_repository() {
    let tool = CodeContextTool::new(format!("{DATA}/sample_repo"));
    let out = tool
        .call(json!({"goal": "where is the tax on an invoice computed", "tokens": 1500}))
        .await
        .unwrap();
    let paths: Vec<_> = out.sources.iter().map(|s| s.id.as_str()).collect();
    assert!(paths[..3].contains(&"app/billing/tax.py"), "{paths:?}");
    assert!(out.content["tokens"].as_u64().unwrap() <= 1500);
    assert!(out.content["context"].as_str().unwrap().contains("tax"));

    let missing = CodeContextTool::new(format!("{DATA}/no_such_repo"));
    let err = missing.call(json!({"goal": "anything"})).await.unwrap_err();
    assert!(matches!(err, ButlerError::Context(_)), "{err}");
}

#[tokio::test]
async fn get_item_reads_the_store_and_names_a_missing_id() {
    let store = Arc::new(MemoryStore::new());
    let mut item = Item::new(
        "proj_lisbon",
        ItemType::Project,
        "Lisbon offsite",
        "2026-11-20T10:00:00Z".parse().unwrap(),
    )
    .unwrap()
    .with_body("Budget 12k EUR; venue booked in Alfama.");
    item.tags = vec!["travel".into()];
    assert_eq!(item.category, Category::Project);
    store.put_item(&item).await.unwrap();
    let store: Arc<dyn Store> = store;
    let tool = GetItemTool::new(store);
    let out = tool.call(json!({"id": "proj_lisbon"})).await.unwrap();
    assert_eq!(
        out.content["body"],
        "Budget 12k EUR; venue booked in Alfama."
    );
    assert_eq!(out.sources[0].title, "Lisbon offsite");
    let err = tool.call(json!({"id": "nope"})).await.unwrap_err();
    assert!(err.to_string().contains("nope"), "{err}");
}

#[tokio::test]
async fn index_notes_needs_approval_then_search_knowledge_finds_the_new_note() {
    use navigator_butler::{knowledge_tools, IndexNotesTool};
    use navigator_search::ingest::IngestOptions;
    use navigator_search::{FixedClock, SearchEngine};

    let vault = tempfile::tempdir().unwrap();
    let note_dir = vault.path().join("1 Projects/Lisbon Offsite");
    std::fs::create_dir_all(&note_dir).unwrap();
    std::fs::write(
        note_dir.join("Venue.md"),
        "# Venue\nWe booked the Alfama rooftop for the offsite dinner.\n",
    )
    .unwrap();
    let index = tempfile::tempdir().unwrap();
    let embedder = Arc::new(
        navigator_core::FastEmbedder::default_model()
            .expect("MiniLM installed (scripts/setup-embeddings.sh)"),
    );
    let engine = Arc::new(SearchEngine::open(index.path(), embedder).await.unwrap());
    let clock = Arc::new(FixedClock("2026-11-21T12:00:00Z".parse().unwrap()));
    let catalog = ToolCatalog::new()
        .with_tools(knowledge_tools(engine.clone(), None, clock))
        .with_tool(Arc::new(IndexNotesTool::new(
            engine.clone(),
            vault.path(),
            IngestOptions::default(),
        )));
    let err = catalog.call("index_notes", json!({})).await.unwrap_err();
    assert!(matches!(err, ButlerError::NotApproved { .. }), "{err}");
    assert_eq!(engine.len(), 0, "nothing indexed without approval");

    let approved = catalog.with_approver(|r| r.tool.name == "index_notes");
    let report = approved.call("index_notes", json!({})).await.unwrap();
    assert!(
        report.content["added"].as_u64().unwrap() >= 1,
        "{}",
        report.content
    );
    let found = approved
        .call("search_knowledge", json!({"query": "rooftop dinner venue"}))
        .await
        .unwrap();
    assert_eq!(
        found.sources[0].id, "1 Projects/Lisbon Offsite/Venue.md",
        "{}",
        found.content
    );
}
