//! [`ModelConfig`]: everything about an embedding model that is configuration, not code.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// How token vectors become one sentence vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Pooling {
    /// Average of the token vectors under the attention mask (sentence-transformers models).
    Mean,
    /// The first (`[CLS]`) token's vector (BGE models).
    Cls,
}

/// Configuration of a local ONNX embedding model.
///
/// Model directory layout: `onnx_file` (default `model.onnx`), optional external-data files
/// beside it, and the Hugging Face tokenizer files `tokenizer.json`, `config.json`,
/// `special_tokens_map.json`, `tokenizer_config.json`.
///
/// Texts longer than `max_length` tokens are truncated to their first `max_length` tokens
/// (the tokenizer's truncation), so very long documents embed their beginning.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelConfig {
    /// Stable id of the model, used to key vector caches.
    pub model_id: String,
    /// File name of the ONNX graph inside the model directory.
    pub onnx_file: String,
    /// External-data files the graph references (loaded from the model directory).
    pub external_data: Vec<String>,
    /// Pooling.
    pub pooling: Pooling,
    /// Vector length the model produces.
    pub dimensions: usize,
    /// Token limit per text; longer texts are truncated.
    pub max_length: usize,
    /// Prepended to queries (instruction-tuned retrieval models).
    pub query_prefix: Option<String>,
    /// Prepended to documents.
    pub document_prefix: Option<String>,
    /// Texts per forward pass.
    pub batch_size: usize,
    /// ONNX Runtime intra-op threads (0: the runtime's default, one per core).
    pub threads: usize,
    /// The ONNX Runtime shared library; located by [`EmbeddingPaths`](super::EmbeddingPaths)
    /// when `None`.
    pub ort_dylib: Option<PathBuf>,
}

impl ModelConfig {
    /// all-MiniLM-L6-v2 (384-d, mean pooling, 256 tokens): the model `scripts/setup-embeddings.sh`
    /// installs and the embedded default of the examples and tests.
    pub fn minilm() -> Self {
        Self {
            model_id: "sentence-transformers/all-MiniLM-L6-v2-int8".into(),
            onnx_file: "model.onnx".into(),
            external_data: Vec::new(),
            pooling: Pooling::Mean,
            dimensions: 384,
            max_length: 256,
            query_prefix: None,
            document_prefix: None,
            batch_size: 32,
            threads: 0,
            ort_dylib: None,
        }
    }

    /// BAAI BGE-M3, the production model: 1024-d, CLS pooling, 8192 tokens, an ONNX export
    /// with its weights in the external-data file `model.onnx_data` (as in the `BAAI/bge-m3`
    /// ONNX export). BGE-M3 needs no query instruction.
    pub fn bge_m3() -> Self {
        Self {
            model_id: "BAAI/bge-m3".into(),
            onnx_file: "model.onnx".into(),
            external_data: vec!["model.onnx_data".into()],
            pooling: Pooling::Cls,
            dimensions: 1024,
            max_length: 8192,
            query_prefix: None,
            document_prefix: None,
            batch_size: 8,
            threads: 0,
            ort_dylib: None,
        }
    }

    /// Sets the ONNX Runtime library explicitly.
    pub fn with_ort_dylib(mut self, path: impl Into<PathBuf>) -> Self {
        self.ort_dylib = Some(path.into());
        self
    }

    /// Sets the number of ONNX Runtime threads.
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// Sets the batch size.
    pub fn with_batch_size(mut self, batch_size: usize) -> Self {
        self.batch_size = batch_size.max(1);
        self
    }
}
