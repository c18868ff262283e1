//! The Butler: the main orchestrator agent. It understands a message, answers it itself or
//! delegates it to a specialist sub-agent (the Navigator among them), runs multi-step requests
//! as ordered sub-tasks and synthesises one answer.
//!
//! - [`Butler::handle_message`]: classify (embedding [`PreRouter`] when confident, else the
//!   LLM through navigator-core's structured-output [`Extractor`](navigator_core::Extractor),
//!   validated, one retry, then degrade to `clarify`), delegate or answer, keep per-session
//!   history bounded by tokens, with the [`AgentState`](navigator_core::AgentState) lifecycle
//!   observable through [`Butler::subscribe`].
//! - The contract: [`IntentClassification`], [`ButlerResponse`] (camelCase, validated, JSON
//!   Schema through [`navigator_core::json_schema`]) and [`ButlerDecision`], what the model
//!   answers.
//! - [`Orchestrator`]: sub-agents behind [`navigator_core::Agent`], by intent;
//!   [`NavigatorSubAgent`] puts the real Navigator search behind it and [`LlmAgent`] is a
//!   template-driven specialist for triage, scheduling, drafting and preference learning.
//! - [`ToolCatalog`]: tools with permissions; write and destructive tools run only after an
//!   approval callback says yes.
//! - The prompts (`butler`, `butler_synthesis`, `specialist`) are templates
//!   ([`default_templates`]); the static part of `butler` is sent as a cached block.
//!
//! Why the pre-router only decides delegations: see [`router`](PreRouter).
#![deny(missing_docs)]

mod agent;
mod builtin;
mod error;
mod history;
mod intent;
mod labelled;
mod llm_agent;
mod navigator;
mod orchestrator;
mod permission;
mod prompt;
mod router;
mod specialist;
mod tool_loop;
mod tools;

pub use agent::{Butler, ButlerBuilder, DEFAULT_HISTORY_TOKENS};
pub use builtin::{
    knowledge_tools, CodeContextTool, GetItemTool, IndexNotesTool, McpToolset, SearchKnowledgeTool,
    TimelineTool,
};
pub use error::{ButlerError, Result};
pub use history::{SessionHistory, DIGEST_LINE_CHARS};
pub use intent::{
    ButlerDecision, ButlerResponse, DecidedBy, DelegationContext, Intent, IntentClassification,
    SubTask, Unavailable,
};
pub use labelled::{LabelledSet, LabelledUtterance, Split, BUNDLED_UTTERANCES};
pub use llm_agent::LlmAgent;
pub use navigator::NavigatorSubAgent;
pub use orchestrator::Orchestrator;
pub use prompt::{
    default_templates, BUTLER_TEMPLATE, SPECIALIST_TEMPLATE, SYNTHESIS_TEMPLATE,
    TOOL_SPECIALIST_TEMPLATE,
};
pub use router::{Calibration, Evaluation, PreRouter, RouteScore};
pub use specialist::ToolAgent;
pub use tool_loop::{CallStatus, ExecutedCall, LoopLimits, LoopOutcome, LoopStop, ToolLoop};
pub use tools::{
    ApprovalRequest, Approver, Permission, Source, Tool, ToolCatalog, ToolOutput, ToolSpec,
};
