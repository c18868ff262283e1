//! # navigator-search
//!
//! PARA hybrid search for navigator: a BM25 keyword index and a dense-vector index over the
//! items of a [`navigator_core::Store`], fused into calibrated relevance, the Navigator search
//! agent, and the index-free table-of-contents search over a time hierarchy ([`toc`]).
#![deny(missing_docs)]

mod error;
pub mod toc;

pub use error::{Error, Result};
