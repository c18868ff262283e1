//! # navigator-context
//!
//! Builds the best LLM context for a coding task from a repository map: satellite view first,
//! zoom in and out per path, within strict token and USD budgets, recorded as a Flight Plan
//! that regenerates the exact same context.
#![deny(missing_docs)]

mod bm25;
mod cache;
mod capped;
mod copies;
mod doc_outline;
mod error;
mod explorer;
mod fill;
mod flight_plan;
mod goal;
mod graph;
mod heuristic;
mod history;
mod js_items;
mod lang;
mod llm_policy;
mod members;
mod mentions;
mod messages;
mod outline;
mod overview;
mod pack;
mod policy;
mod relevance;
mod render;
mod replay;
mod report;
mod scan;
mod tokens;
mod verbosity;
mod zoom;

pub use bm25::terms;
pub use doc_outline::document_outline;
pub use error::{Error, Result};
pub use explorer::{satellite, Budgets, Exploration, Explorer, StopReason};
pub use flight_plan::{FlightPlan, Level, Pins, Rule, DEFAULT_HUGE_FILE_BYTES};
pub use goal::{Frame, Goal};
pub use heuristic::HeuristicPolicy;
pub use history::{ChangeHistory, HISTORY_COMMITS};
pub use lang::Lang;
pub use llm_policy::LlmPolicy;
pub use outline::{outline, Outline, Symbol};
pub use pack::{fit, Fitted};
pub use policy::{Action, Decision, Policy, RuleChange, TurnInput};
pub use relevance::{rank, Scored};
pub use render::{render, Rendered, Shown};
pub use replay::{drift, pin, replay, Drift, Replayed};
pub use report::{
    Approver, DecisionLog, LineApprover, LogEntry, TerminalApprover, TurnReport, Verdict,
};
pub use scan::{default_cache_dir, Content, FileEntry, RepoMap, ScanOptions, CACHE_DIR_ENV};
pub use tokens::Tokenizer;
