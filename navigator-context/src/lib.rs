//! # navigator-context
//!
//! Builds the best LLM context for a coding task from a repository map: satellite view first,
//! zoom in and out per path, within strict token and USD budgets, recorded as a Flight Plan
//! that regenerates the exact same context.
#![deny(missing_docs)]

mod cache;
mod error;
mod explorer;
mod flight_plan;
mod graph;
mod heuristic;
mod lang;
mod llm_policy;
mod outline;
mod pack;
mod policy;
mod relevance;
mod render;
mod report;
mod scan;
mod tokens;
mod verbosity;

pub use error::{Error, Result};
pub use explorer::{satellite, Budgets, Exploration, Explorer, StopReason};
pub use flight_plan::{FlightPlan, Level, Rule, DEFAULT_HUGE_FILE_BYTES};
pub use heuristic::HeuristicPolicy;
pub use lang::Lang;
pub use llm_policy::LlmPolicy;
pub use outline::{outline, Outline, Symbol};
pub use policy::{Action, Decision, Policy, RuleChange, TurnInput};
pub use relevance::{rank, terms, Scored};
pub use render::{render, Rendered};
pub use report::{Approver, DecisionLog, LogEntry, TurnReport, Verdict};
pub use scan::{Content, FileEntry, RepoMap, ScanOptions};
pub use tokens::Tokenizer;
