//! Local embeddings: model configuration, the lookup of the runtime and model on disk, and
//! (feature `fastembed`) [`FastEmbedder`], which runs any local ONNX sentence-embedding model
//! through fastembed and ONNX Runtime.

mod config;
#[cfg(feature = "fastembed")]
mod fastembed;
mod locate;

pub use config::{ModelConfig, Pooling};
#[cfg(feature = "fastembed")]
pub use fastembed::{ort_environment, FastEmbedder};
pub use locate::{env_home, EmbeddingPaths, ENV_HOME, ENV_MODEL_DIR, ENV_ORT_DYLIB};
