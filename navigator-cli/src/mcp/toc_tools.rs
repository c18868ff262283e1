//! The time table of contents: `toc_search` (the drill-down from a question to bullets and
//! their evidence) and `toc_children` (one level, listed or ranked by a query). Index-free:
//! they read the TOC nodes in the store (built from a session log with `--memory`).

use super::errors::{input_schema, output_schema, parse, respond, ToolError, ToolResult};
use super::McpServer;
use chrono::{DateTime, Utc};
use navigator_core::{Grip, TocLevel, TocNode, TocStore};
use navigator_search::toc::{
    expand_grips, navigate, search_children, NavigateOptions, Navigation, StepOutcome,
};
use rmcp::model::{CallToolResult, JsonObject};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The largest `limit`, `beamWidth` and `maxFindings`.
const MAX_WIDTH: u32 = 100;

/// `toc_search`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct TocSearchArgs {
    /// The question, with or without a time phrase ("what did we decide about JWT last
    /// month").
    pub query: String,
    /// Children followed per level, 1..=100 (default 3).
    #[serde(default)]
    pub beam_width: Option<u32>,
    /// The most bullets returned, 1..=100 (default 10).
    #[serde(default)]
    pub max_findings: Option<u32>,
    /// Return the evidence (grips) behind the bullets (default true).
    #[serde(default = "yes")]
    pub expand_grips: bool,
}

fn yes() -> bool {
    true
}

/// `toc_children`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct TocChildrenArgs {
    /// The node whose children to return (`toc:month:2026-01`); empty or absent for the years.
    #[serde(default)]
    pub parent_id: String,
    /// Rank the children by this query (only matching ones are returned); absent: all
    /// children in time order.
    #[serde(default)]
    pub query: Option<String>,
    /// The most children, 1..=100 (default 20).
    #[serde(default)]
    pub limit: Option<u32>,
}

/// One level of the drill-down.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TocStep {
    /// The nodes whose children were searched (`""` = the years).
    pub parent_ids: Vec<String>,
    /// The level of those children.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level: Option<TocLevel>,
    /// How many children were scored.
    pub examined: usize,
    /// The children followed, best first: (id, title, score).
    pub chosen: Vec<TocChosen>,
    /// `above_threshold`, `below_threshold` or `no_match`.
    pub outcome: String,
}

/// A node the drill-down followed.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TocChosen {
    /// Its id.
    pub node_id: String,
    /// Its title.
    pub title: String,
    /// Its average match score.
    pub score: f32,
}

/// A bullet found.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TocFinding {
    /// The node it was read from.
    pub node_id: String,
    /// That node's title.
    pub node_title: String,
    /// That node's start.
    pub start_time: DateTime<Utc>,
    /// The bullet.
    pub text: String,
    /// Its evidence, to pass to the grips (returned in `evidence` unless `expandGrips` is
    /// false).
    pub grip_ids: Vec<String>,
    /// Its term overlap with the query.
    pub score: f32,
}

/// `toc_search`'s answer.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TocSearchOutput {
    /// The query as asked.
    pub query: String,
    /// The search terms left after the time phrase and question words.
    pub terms: Vec<String>,
    /// The time phrase, if the query had one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_hint: Option<String>,
    /// Where the drill-down started (`""` = the years).
    pub start_node_id: String,
    /// Every level searched, in order.
    pub path: Vec<TocStep>,
    /// The degradations applied (widened, stopped early, listed), in words.
    pub fallbacks: Vec<String>,
    /// The bullets found, best first.
    pub findings: Vec<TocFinding>,
    /// The evidence behind the findings.
    pub evidence: Vec<Grip>,
    /// Why `findings` is empty.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub empty_reason: Option<String>,
}

/// A child node, with its score when ranked by a query.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TocChild {
    /// The node.
    pub node: TocNode,
    /// Its average match score when a query ranked it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<f32>,
}

/// `toc_children`'s answer.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TocChildrenOutput {
    /// The parent (`""` = the years).
    pub parent_id: String,
    /// How many children it has (or, with a query, how many were examined).
    pub examined: usize,
    /// The children returned.
    pub children: Vec<TocChild>,
    /// Why `children` is empty.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub empty_reason: Option<String>,
}

/// Why a table-of-contents answer is empty when no session log was loaded.
const NO_TOC: &str =
    "the table of contents has no year nodes: it is built from a session log (start the server with --memory)";

fn width(name: &str, value: Option<u32>, default: u32) -> ToolResult<usize> {
    let v = value.unwrap_or(default);
    if !(1..=MAX_WIDTH).contains(&v) {
        return Err(ToolError::bad_request(format!(
            "{name}: must be 1..={MAX_WIDTH}, got {v}"
        )));
    }
    Ok(v as usize)
}

#[tool_router(router = toc_tools, vis = "pub(crate)")]
impl McpServer {
    #[tool(
        description = "Answer a question from the time table of contents of past sessions (year > month > week > day > segment): the time phrase picks the start, the drill-down follows the best-matching children, and the bullets found come with their evidence (grips). Every step and fallback is reported; an empty answer says why.",
        input_schema = input_schema::<TocSearchArgs>(),
        output_schema = output_schema::<TocSearchOutput>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn toc_search(&self, arguments: JsonObject) -> CallToolResult {
        respond(self.do_toc_search(arguments).await)
    }

    #[tool(
        description = "List the children of a table-of-contents node (the years when parentId is empty), in time order, or ranked by a query for a manual drill-down.",
        input_schema = input_schema::<TocChildrenArgs>(),
        output_schema = output_schema::<TocChildrenOutput>(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn toc_children(&self, arguments: JsonObject) -> CallToolResult {
        respond(self.do_toc_children(arguments).await)
    }
}

impl McpServer {
    async fn do_toc_search(&self, arguments: JsonObject) -> ToolResult<TocSearchOutput> {
        let args: TocSearchArgs = parse(arguments)?;
        if args.query.trim().is_empty() {
            return Err(ToolError::bad_request("query: must not be empty"));
        }
        let options = NavigateOptions {
            beam_width: width("beamWidth", args.beam_width, 3)?,
            max_findings: width("maxFindings", args.max_findings, 10)?,
            ..NavigateOptions::default()
        };
        let store = self.engine.store();
        let nav = navigate(store, &args.query, Utc::now(), &options).await?;
        let evidence = if args.expand_grips {
            expand_grips(store, &nav.grip_ids()).await?
        } else {
            Vec::new()
        };
        let mut out = toc_output(nav, evidence);
        // Nothing to search at all is said as such, not as words no field contains.
        if out.findings.is_empty() && store.toc_children("").await?.is_empty() {
            out.empty_reason = Some(NO_TOC.into());
        }
        Ok(out)
    }

    async fn do_toc_children(&self, arguments: JsonObject) -> ToolResult<TocChildrenOutput> {
        let args: TocChildrenArgs = parse(arguments)?;
        let limit = width("limit", args.limit, 20)?;
        let store = self.engine.store();
        let parent = args.parent_id.trim().to_string();
        if let Some(query) = args.query.filter(|q| !q.trim().is_empty()) {
            let found = search_children(store, &parent, &query, &[], limit).await?;
            return Ok(TocChildrenOutput {
                parent_id: found.parent_id,
                examined: found.examined,
                children: found
                    .hits
                    .into_iter()
                    .map(|h| TocChild {
                        node: h.node,
                        score: Some(h.score),
                    })
                    .collect(),
                empty_reason: found.empty_reason.map(|r| r.to_string()),
            });
        }
        let mut children = store.toc_children(&parent).await?;
        children.sort_by_key(|a| a.start_time);
        let examined = children.len();
        let empty_reason = children.is_empty().then(|| {
            if parent.is_empty() {
                NO_TOC.into()
            } else {
                format!("node `{parent}` has no children")
            }
        });
        children.truncate(limit);
        Ok(TocChildrenOutput {
            parent_id: parent,
            examined,
            children: children
                .into_iter()
                .map(|node| TocChild { node, score: None })
                .collect(),
            empty_reason,
        })
    }
}

fn toc_output(nav: Navigation, evidence: Vec<Grip>) -> TocSearchOutput {
    TocSearchOutput {
        query: nav.query,
        terms: nav.terms,
        time_hint: nav.time_hint.map(|h| h.phrase),
        start_node_id: nav.start_node_id,
        path: nav
            .path
            .into_iter()
            .map(|s| TocStep {
                parent_ids: s.parent_ids,
                level: s.level,
                examined: s.examined,
                chosen: s
                    .chosen
                    .into_iter()
                    .map(|c| TocChosen {
                        node_id: c.node_id,
                        title: c.title,
                        score: c.score,
                    })
                    .collect(),
                outcome: match s.outcome {
                    StepOutcome::AboveThreshold => "above_threshold",
                    StepOutcome::BelowThreshold { .. } => "below_threshold",
                    StepOutcome::NoMatch => "no_match",
                }
                .into(),
            })
            .collect(),
        fallbacks: nav.fallbacks.iter().map(ToString::to_string).collect(),
        findings: nav
            .findings
            .into_iter()
            .map(|f| TocFinding {
                node_id: f.node_id,
                node_title: f.node_title,
                start_time: f.start_time,
                text: f.text,
                grip_ids: f.grip_ids,
                score: f.score,
            })
            .collect(),
        evidence,
        empty_reason: nav.empty_reason.map(|r| r.to_string()),
    }
}
