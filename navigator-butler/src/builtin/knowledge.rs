//! Knowledge tools: search (through the Navigator search agent), fetch an item, the timeline
//! drill-down and re-indexing a folder of notes.

use super::{parse, spec};
use crate::tools::{Source, Tool, ToolOutput, ToolSpec};
use crate::{ButlerError, Permission, Result};
use async_trait::async_trait;
use navigator_core::{NavigatorResponse, SearchRequest, SearchService, Store};
use navigator_search::ingest::{index_folder, index_paths, IngestOptions};
use navigator_search::toc::{navigate, NavigateOptions};
use navigator_search::{Clock, NavigatorAgent, SearchEngine};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::Arc;

/// Longest item body handed back by `get_item`, in characters.
const MAX_BODY_CHARS: usize = 8_000;

/// The knowledge tools over one knowledge base: `search_knowledge` over `service`, plus
/// `get_item` and `search_timeline` over `store` when given.
pub fn knowledge_tools(
    service: Arc<dyn SearchService>,
    store: Option<Arc<dyn Store>>,
    clock: Arc<dyn Clock>,
) -> Vec<Arc<dyn Tool>> {
    let mut tools: Vec<Arc<dyn Tool>> = vec![Arc::new(SearchKnowledgeTool::new(
        NavigatorAgent::new(service, clock.clone()),
    ))];
    if let Some(store) = store {
        tools.push(Arc::new(GetItemTool::new(store.clone())));
        tools.push(Arc::new(TimelineTool::new(store, clock)));
    }
    tools
}

/// `search_knowledge`: the Navigator search agent's request and answer, as the MCP server's
/// `search` tool takes and gives them.
#[derive(Debug, Clone)]
pub struct SearchKnowledgeTool {
    agent: NavigatorAgent,
    spec: ToolSpec,
}

impl SearchKnowledgeTool {
    /// Searches through `agent`.
    pub fn new(agent: NavigatorAgent) -> Self {
        Self {
            agent,
            spec: spec::<SearchRequest>(
                "search_knowledge",
                "Search the person's PARA knowledge base (projects, areas, resources, archives). \
                 Hybrid (meaning + keywords) by default; searchMode semantic for vague \
                 descriptions, keyword for exact names. Scope with categories, narrow with \
                 filters. Answers results (ranked, relevanceScore in [0,1], snippets), navigate \
                 (an exact title), clarify or no_results (with suggestions).",
                Permission::Read,
            ),
        }
    }
}

#[async_trait]
impl Tool for SearchKnowledgeTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, arguments: Value) -> Result<ToolOutput> {
        let request: SearchRequest = parse(&self.spec.name, arguments)?;
        let response = self.agent.handle(&request).await?;
        let sources = match &response {
            NavigatorResponse::SearchResults { results, .. } => results
                .iter()
                .map(|r| source(&self.spec.name, &r.item_id, &r.title))
                .collect(),
            NavigatorResponse::Navigate { navigation_target } => vec![source(
                &self.spec.name,
                &navigation_target.item_id,
                &navigation_target.item_id,
            )],
            _ => Vec::new(),
        };
        let content = serde_json::to_value(&response)
            .map_err(|e| ButlerError::invalid("navigatorResponse", e.to_string()))?;
        Ok(ToolOutput::new(content).with_sources(sources))
    }
}

fn source(tool: &str, id: &str, title: &str) -> Source {
    Source {
        tool: tool.to_string(),
        id: id.to_string(),
        title: title.to_string(),
    }
}

/// `get_item`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct GetItemArgs {
    /// The item id, as `search_knowledge` returns it in `itemId`.
    #[schemars(length(min = 1))]
    id: String,
}

/// `get_item`: one stored item with its text (cut at 8,000 characters).
#[derive(Clone)]
pub struct GetItemTool {
    store: Arc<dyn Store>,
    spec: ToolSpec,
}

impl std::fmt::Debug for GetItemTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GetItemTool").finish_non_exhaustive()
    }
}

impl GetItemTool {
    /// Reads items from `store`.
    pub fn new(store: Arc<dyn Store>) -> Self {
        Self {
            store,
            spec: spec::<GetItemArgs>(
                "get_item",
                "Read one item of the knowledge base by id (from search_knowledge's itemId): \
                 title, category, status, tags, dates and its text.",
                Permission::Read,
            ),
        }
    }
}

#[async_trait]
impl Tool for GetItemTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, arguments: Value) -> Result<ToolOutput> {
        let args: GetItemArgs = parse(&self.spec.name, arguments)?;
        let Some(item) = self.store.get_item(&args.id).await? else {
            return Err(ButlerError::invalid(
                "id",
                format!("no item `{}` in the knowledge base", args.id),
            ));
        };
        let total = item.body.chars().count();
        let body: String = item.body.chars().take(MAX_BODY_CHARS).collect();
        let content = json!({
            "id": item.id,
            "title": item.title,
            "category": item.category,
            "itemType": item.item_type,
            "status": item.status,
            "tags": item.tags,
            "parentId": item.parent_id,
            "updatedAt": item.updated_at,
            "body": body,
            "bodyCut": total > MAX_BODY_CHARS,
        });
        Ok(ToolOutput::new(content).with_sources(vec![source(
            &self.spec.name,
            &item.id,
            &item.title,
        )]))
    }
}

/// `search_timeline`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct TimelineArgs {
    /// The question, with or without a time phrase ("what did we decide about JWT last
    /// month").
    #[schemars(length(min = 1))]
    query: String,
    /// The most bullets, 1..=50 (default 10).
    #[serde(default)]
    #[schemars(range(min = 1, max = 50))]
    max_findings: Option<u32>,
}

/// `search_timeline`: the index-free table-of-contents drill-down (year → month → week → day
/// → segment) over the stored time hierarchy.
#[derive(Clone)]
pub struct TimelineTool {
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
    spec: ToolSpec,
}

impl std::fmt::Debug for TimelineTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TimelineTool").finish_non_exhaustive()
    }
}

impl TimelineTool {
    /// Drills down the time hierarchy of `store`; time phrases resolve against `clock`.
    pub fn new(store: Arc<dyn Store>, clock: Arc<dyn Clock>) -> Self {
        Self {
            store,
            clock,
            spec: spec::<TimelineArgs>(
                "search_timeline",
                "Find what was discussed or decided, and when, in the person's conversation \
                 timeline (year > month > week > day > segment summaries). Use for questions \
                 with a time phrase (\"last week\", \"in March\") or about past discussions.",
                Permission::Read,
            ),
        }
    }
}

#[async_trait]
impl Tool for TimelineTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, arguments: Value) -> Result<ToolOutput> {
        let args: TimelineArgs = parse(&self.spec.name, arguments)?;
        let options = NavigateOptions {
            max_findings: args.max_findings.unwrap_or(10).clamp(1, 50) as usize,
            ..NavigateOptions::default()
        };
        let nav = navigate(self.store.as_ref(), &args.query, self.clock.now(), &options).await?;
        let findings: Vec<Value> = nav
            .findings
            .iter()
            .map(|f| {
                json!({
                    "nodeId": f.node_id,
                    "nodeTitle": f.node_title,
                    "startTime": f.start_time,
                    "text": f.text,
                    "score": f.score,
                })
            })
            .collect();
        let sources = nav
            .findings
            .iter()
            .map(|f| source(&self.spec.name, &f.node_id, &f.node_title))
            .collect();
        let mut content = json!({
            "query": nav.query,
            "terms": nav.terms,
            "findings": findings,
        });
        if let Some(reason) = &nav.empty_reason {
            content["emptyReason"] = json!(format!("{reason:?}"));
        }
        Ok(ToolOutput::new(content).with_sources(sources))
    }
}

/// `index_notes`' arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct IndexArgs {
    /// Only these notes (vault-relative paths, `/`-separated); absent or empty: the whole
    /// folder (new, changed, renamed and deleted notes).
    #[serde(default)]
    paths: Vec<String>,
}

/// `index_notes`: brings the embedded index up to date with the PARA folder of notes (a write
/// tool: it runs only when the approver says yes).
#[derive(Clone)]
pub struct IndexNotesTool {
    engine: Arc<SearchEngine>,
    root: PathBuf,
    options: IngestOptions,
    spec: ToolSpec,
}

impl std::fmt::Debug for IndexNotesTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IndexNotesTool")
            .field("root", &self.root)
            .finish_non_exhaustive()
    }
}

impl IndexNotesTool {
    /// Indexes the folder `root` into `engine` with `options`.
    pub fn new(
        engine: Arc<SearchEngine>,
        root: impl Into<PathBuf>,
        options: IngestOptions,
    ) -> Self {
        Self {
            engine,
            root: root.into(),
            options,
            spec: spec::<IndexArgs>(
                "index_notes",
                "Re-index the person's folder of notes so search sees new, changed, renamed and \
                 deleted notes (all of them, or only the given paths). Changes the index: needs \
                 approval.",
                Permission::Write,
            ),
        }
    }
}

#[async_trait]
impl Tool for IndexNotesTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, arguments: Value) -> Result<ToolOutput> {
        let args: IndexArgs = parse(&self.spec.name, arguments)?;
        let report = if args.paths.is_empty() {
            index_folder(&self.engine, &self.root, &self.options, |_| {}).await?
        } else {
            let paths: Vec<&str> = args.paths.iter().map(String::as_str).collect();
            index_paths(&self.engine, &self.root, &paths, &self.options, |_| {}).await?
        };
        Ok(ToolOutput::new(json!({
            "seen": report.seen,
            "added": report.added,
            "updated": report.updated + report.updated_without_embedding,
            "renamed": report.renamed,
            "unchanged": report.unchanged,
            "deleted": report.deleted,
            "skipped": report.skipped.len(),
            "warnings": report.warnings,
        })))
    }
}
