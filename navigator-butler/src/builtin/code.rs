//! `build_code_context`: the context explorer over one repository, offline (the heuristic
//! policy: no model call, no cost), within a token budget.

use super::{parse, spec};
use crate::tools::{Source, Tool, ToolOutput, ToolSpec};
use crate::{ButlerError, Permission, Result};
use async_trait::async_trait;
use navigator_context::{render, Budgets, Explorer, HeuristicPolicy, RepoMap};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};
use std::path::PathBuf;

/// The default and the largest context budgets, in tokens.
const DEFAULT_TOKENS: usize = 4_000;
const MAX_TOKENS: usize = 32_000;

/// `build_code_context`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct CodeArgs {
    /// What the context is for: a task, a bug report with its traceback, a commit subject.
    #[schemars(length(min = 1))]
    goal: String,
    /// The most tokens the context may take, 200..=32000 (default 4000).
    #[serde(default)]
    #[schemars(range(min = 200, max = 32000))]
    tokens: Option<usize>,
}

/// `build_code_context`: ranked files of the repository shown at the level of detail that
/// fits the budget (paths, outlines, signatures, full source), as the `navigator context`
/// command builds it.
#[derive(Debug, Clone)]
pub struct CodeContextTool {
    root: PathBuf,
    spec: ToolSpec,
}

impl CodeContextTool {
    /// Explores the repository at `root` (mapped afresh on each call, so edits are seen).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self {
            root: root.into(),
            spec: spec::<CodeArgs>(
                "build_code_context",
                "Build the best code context for a goal from the person's repository within a \
                 token budget: the files that matter, shown at the level of detail that fits. \
                 Returns the files (path, level 1 path .. 4 full source) and the context text.",
                Permission::Read,
            ),
        }
    }
}

#[async_trait]
impl Tool for CodeContextTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, arguments: Value) -> Result<ToolOutput> {
        let args: CodeArgs = parse(&self.spec.name, arguments)?;
        let tokens = args.tokens.unwrap_or(DEFAULT_TOKENS).clamp(200, MAX_TOKENS);
        let root = self.root.clone();
        let goal = args.goal;
        let handle = tokio::runtime::Handle::current();
        // Mapping and outlining a repository is CPU and disk work: off the async threads.
        let (exploration, shown) = tokio::task::spawn_blocking(move || {
            let map = RepoMap::open(&root)?;
            let mut policy = HeuristicPolicy::new();
            let out = handle.block_on(
                Explorer::new(&map, Budgets::tokens(tokens)).explore(&goal, &mut policy),
            )?;
            let rendered = render(&map, &out.plan)?;
            Ok::<_, navigator_context::Error>((out, rendered.shown))
        })
        .await
        .map_err(|e| {
            ButlerError::invalid(
                "build_code_context",
                format!("the exploration stopped: {e}"),
            )
        })??;
        let files: Vec<Value> = shown
            .iter()
            .map(|s| json!({"path": s.path, "level": s.level as u8, "tokens": s.tokens}))
            .collect();
        let sources = shown
            .iter()
            .map(|s| Source {
                tool: self.spec.name.clone(),
                id: s.path.clone(),
                title: s.path.clone(),
            })
            .collect();
        Ok(ToolOutput::new(json!({
            "tokens": exploration.tokens,
            "tokenBudget": tokens,
            "stop": exploration.stop.describe(),
            "files": files,
            "context": exploration.context,
        }))
        .with_sources(sources))
    }
}
