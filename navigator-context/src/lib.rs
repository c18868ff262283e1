//! # navigator-context
//!
//! Builds the best LLM context for a coding task from a repository map: satellite view first,
//! zoom in and out per path, within strict token and USD budgets, recorded as a Flight Plan
//! that regenerates the exact same context.
#![deny(missing_docs)]
