//! [`FastEmbedder`]: any local ONNX sentence-embedding model through fastembed + ONNX Runtime.

use super::config::{ModelConfig, Pooling};
use super::locate::{locate_model_dir, locate_ort_dylib};
use crate::{l2_normalize, Embedder, Error, Result};
use async_trait::async_trait;
use fastembed::{InitOptionsUserDefined, TextEmbedding, TokenizerFiles, UserDefinedEmbeddingModel};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Real local embeddings: a fastembed [`TextEmbedding`] over a model directory on disk, with
/// ONNX Runtime loaded at run time from a shared library (so a missing or too old library is an
/// error naming the path, not a panic).
///
/// Output is L2-normalised, in input order, and deterministic: the same text gives the same
/// vector whatever batch it is in, up to float rounding of the padded batch (cosine > 0.9999).
///
/// ```no_run
/// use navigator_core::{Embedder, FastEmbedder, ModelConfig};
/// # async fn run() -> navigator_core::Result<()> {
/// // The model `scripts/setup-embeddings.sh` installs, found without configuration:
/// let minilm = FastEmbedder::default_model()?;
/// // BGE-M3 exported to ONNX on disk (model.onnx + model.onnx_data + tokenizer files):
/// let bge = FastEmbedder::from_dir("/models/bge-m3", ModelConfig::bge_m3())?;
/// let v = minilm.embed(&["the designer I met at TechConf"]).await?;
/// assert_eq!(v[0].len(), 384);
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct FastEmbedder {
    model: Arc<Mutex<TextEmbedding>>,
    /// The model's tokenizer without truncation (counting tokens must see the whole text).
    counter: Arc<tokenizers::Tokenizer>,
    /// Tokens per document before truncation, special tokens excluded.
    max_input: usize,
    config: ModelConfig,
    model_dir: PathBuf,
}

impl std::fmt::Debug for FastEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FastEmbedder")
            .field("model_id", &self.config.model_id)
            .field("model_dir", &self.model_dir)
            .field("dimensions", &self.config.dimensions)
            .finish()
    }
}

impl FastEmbedder {
    /// The embedded default: all-MiniLM-L6-v2 as installed by `scripts/setup-embeddings.sh`,
    /// located as [`EmbeddingPaths`](super::EmbeddingPaths) describes.
    pub fn default_model() -> Result<Self> {
        Self::from_dir(locate_model_dir(None)?, ModelConfig::minilm())
    }

    /// BGE-M3 from an ONNX export on disk (see [`ModelConfig::bge_m3`]).
    pub fn bge_m3(dir: impl AsRef<Path>) -> Result<Self> {
        Self::from_dir(dir, ModelConfig::bge_m3())
    }

    /// Loads any local ONNX embedding model from `dir` with `config`.
    pub fn from_dir(dir: impl AsRef<Path>, config: ModelConfig) -> Result<Self> {
        let dir = dir.as_ref().to_path_buf();
        let read = |name: &str, what: &str| -> Result<Vec<u8>> {
            let path = dir.join(name);
            std::fs::read(&path).map_err(|e| Error::File {
                what: what.into(),
                path,
                reason: e.to_string(),
                fix: Some(format!(
                    "point the embedder at a model directory holding {name}"
                )),
            })
        };
        let onnx = read(&config.onnx_file, "ONNX model")?;
        let tokenizer_files = TokenizerFiles {
            tokenizer_file: read("tokenizer.json", "tokenizer")?,
            config_file: read("config.json", "model config")?,
            special_tokens_map_file: read("special_tokens_map.json", "special tokens map")?,
            tokenizer_config_file: read("tokenizer_config.json", "tokenizer config")?,
        };
        let model_max = model_max_length(&tokenizer_files.tokenizer_config_file);
        let pooling = match config.pooling {
            Pooling::Mean => fastembed::Pooling::Mean,
            Pooling::Cls => fastembed::Pooling::Cls,
        };
        let mut model = UserDefinedEmbeddingModel::new(onnx, tokenizer_files).with_pooling(pooling);
        for name in &config.external_data {
            model =
                model.with_external_initializer(name.clone(), read(name, "ONNX external data")?);
        }
        let environment = ort_environment(&locate_ort_dylib(config.ort_dylib.as_deref())?)?;
        let mut options = InitOptionsUserDefined::new()
            .with_environment(environment)
            .with_max_length(config.max_length);
        if config.threads > 0 {
            options = options.with_intra_threads(config.threads);
        }
        let embedding = TextEmbedding::try_new_from_user_defined(model, options)
            .map_err(|e| embed_err(&config, format!("loading {}: {e}", dir.display())))?;
        let mut counter = embedding.tokenizer.clone();
        counter
            .with_truncation(None)
            .map_err(|e| embed_err(&config, format!("tokenizer of {}: {e}", dir.display())))?;
        counter.with_padding(None);
        // Special tokens ([CLS]/[SEP], <s>/</s>) take part of the model's window.
        let special = counter.encode("", true).map_or(2, |e| e.len());
        let max_input = model_max
            .map_or(config.max_length, |m| m.min(config.max_length))
            .saturating_sub(special)
            .max(1);
        let embedder = Self {
            model: Arc::new(Mutex::new(embedding)),
            counter: Arc::new(counter),
            max_input,
            config,
            model_dir: dir,
        };
        embedder.check_dimensions()?;
        Ok(embedder)
    }

    /// The configuration the model was loaded with.
    pub fn config(&self) -> &ModelConfig {
        &self.config
    }

    /// The model directory.
    pub fn model_dir(&self) -> &Path {
        &self.model_dir
    }

    /// Embeds on the calling thread (the async methods move this onto a blocking thread).
    pub fn embed_blocking(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let mut model = self
            .model
            .lock()
            .map_err(|_| embed_err(&self.config, "a previous embedding call panicked".into()))?;
        let lengths: Vec<usize> = texts
            .iter()
            .map(|t| {
                model
                    .tokenizer
                    .encode(*t, true)
                    .map_or(self.config.max_length, |e| e.len())
            })
            .collect();
        let mut vectors: Vec<Vec<f32>> = vec![Vec::new(); texts.len()];
        for batch in token_batches(&lengths, self.config.batch_size, self.batch_tokens()) {
            let batch_texts: Vec<&str> = batch.iter().map(|&i| texts[i]).collect();
            let out = model
                .embed(&batch_texts, Some(batch_texts.len()))
                .map_err(|e| embed_err(&self.config, e.to_string()))?;
            for (&i, mut v) in batch.iter().zip(out) {
                l2_normalize(&mut v);
                vectors[i] = v;
            }
        }
        Ok(vectors)
    }

    /// Tokens (after padding) per forward pass: a sixteenth of a full batch of the longest
    /// inputs (MiniLM: 512, two maximum-length texts), never less than one whole text.
    /// ONNX Runtime keeps the buffers of the largest pass it has run, and they grow with
    /// batch × length² (attention), so this bound sets the peak memory of indexing: 1,000
    /// SciFact abstracts peaked at 605 MiB with a quarter of a batch (2,048 tokens) and at
    /// 300 MiB with a sixteenth, and ran faster on 2 cores (docs/benchmarks.md). Short texts
    /// still go up to `batch_size` at a time.
    fn batch_tokens(&self) -> usize {
        (self.config.batch_size * self.config.max_length / 16).max(self.config.max_length)
    }

    fn check_dimensions(&self) -> Result<()> {
        let probe = self.embed_blocking(&["dimension probe"])?;
        let got = probe.first().map_or(0, Vec::len);
        if got != self.config.dimensions {
            return Err(embed_err(
                &self.config,
                format!(
                    "the model in {} produces {got}-d vectors but the configuration says {}",
                    self.model_dir.display(),
                    self.config.dimensions
                ),
            ));
        }
        Ok(())
    }

    async fn embed_prefixed(&self, prefix: Option<&str>, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let owned: Vec<String> = texts
            .iter()
            .map(|t| format!("{}{t}", prefix.unwrap_or("")))
            .collect();
        let this = self.clone();
        let run = move || {
            let refs: Vec<&str> = owned.iter().map(String::as_str).collect();
            this.embed_blocking(&refs)
        };
        // Inference is CPU-bound: keep it off the async worker threads when a runtime exists.
        match tokio::runtime::Handle::try_current() {
            Ok(handle) => handle
                .spawn_blocking(run)
                .await
                .map_err(|e| embed_err(&self.config, format!("embedding task failed: {e}")))?,
            Err(_) => run(),
        }
    }
}

/// Splits texts into forward passes: longest first, so each pass pads to similar lengths,
/// and each pass holds at most `max_texts` texts and `max_tokens` padded tokens (so memory is
/// bounded whatever the input). Returns indices into `lengths`.
fn token_batches(lengths: &[usize], max_texts: usize, max_tokens: usize) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..lengths.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(lengths[i]));
    let mut batches: Vec<Vec<usize>> = Vec::new();
    let mut current: Vec<usize> = Vec::new();
    for i in order {
        // Sorted longest first: the batch's first text sets its padded length.
        let padded = current.first().map_or(lengths[i], |&f| lengths[f]).max(1);
        if !current.is_empty()
            && (current.len() >= max_texts.max(1) || (current.len() + 1) * padded > max_tokens)
        {
            batches.push(std::mem::take(&mut current));
        }
        current.push(i);
    }
    if !current.is_empty() {
        batches.push(current);
    }
    batches
}

/// The process-wide ONNX Runtime environment, loading the shared library at `path` on first
/// use. ONNX Runtime allows one environment per process, so every embedder shares it (a
/// different library path given later is not loaded); applications that run other ONNX models
/// in the same process build their sessions on it too.
pub fn ort_environment(path: &Path) -> Result<ort::environment::Environment> {
    static ENV: Mutex<Option<ort::environment::Environment>> = Mutex::new(None);
    let mut slot = ENV.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(env) = slot.as_ref() {
        return Ok(env.clone());
    }
    let env = ort::init_from(path)
        .map_err(|e| Error::File {
            what: "ONNX Runtime shared library".into(),
            path: path.to_path_buf(),
            reason: e.to_string(),
            fix: Some(
                "install ONNX Runtime >= 1.24 with `bash scripts/setup-embeddings.sh`".into(),
            ),
        })?
        .with_name("navigator")
        .build()
        .map_err(|e| Error::Embedding {
            model: "onnxruntime".into(),
            message: format!(
                "creating the ONNX Runtime environment from {}: {e}",
                path.display()
            ),
        })?;
    *slot = Some(env.clone());
    Ok(env)
}

fn embed_err(config: &ModelConfig, message: String) -> Error {
    Error::Embedding {
        model: config.model_id.clone(),
        message,
    }
}

#[async_trait]
impl Embedder for FastEmbedder {
    fn model_id(&self) -> &str {
        &self.config.model_id
    }

    fn dimensions(&self) -> usize {
        self.config.dimensions
    }

    async fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        self.embed_prefixed(None, texts).await
    }

    async fn embed_query(&self, query: &str) -> Result<Vec<f32>> {
        let mut v = self
            .embed_prefixed(self.config.query_prefix.as_deref(), &[query])
            .await?;
        v.pop()
            .ok_or_else(|| embed_err(&self.config, "no vector for the query".into()))
    }

    async fn embed_documents(&self, documents: &[&str]) -> Result<Vec<Vec<f32>>> {
        self.embed_prefixed(self.config.document_prefix.as_deref(), documents)
            .await
    }

    /// The smaller of the tokenizer configuration's `model_max_length` and the configured
    /// [`max_length`](ModelConfig::max_length) (the length the model was trained on, 256 for
    /// MiniLM whose position table holds 512), less the special tokens and the document
    /// prefix.
    fn max_input_tokens(&self) -> Option<usize> {
        let prefix = self
            .config
            .document_prefix
            .as_deref()
            .map_or(0, |p| self.count_tokens(p));
        Some(self.max_input.saturating_sub(prefix).max(1))
    }

    /// Model id, width and pooling, and the prefixes when set (e.g.
    /// `BAAI/bge-m3 (1024-d, cls pooling)`).
    fn fingerprint(&self) -> String {
        let pooling = match self.config.pooling {
            Pooling::Mean => "mean",
            Pooling::Cls => "cls",
        };
        let mut s = format!(
            "{} ({}-d, {pooling} pooling",
            self.config.model_id, self.config.dimensions
        );
        for (what, prefix) in [
            ("query prefix", &self.config.query_prefix),
            ("document prefix", &self.config.document_prefix),
        ] {
            if let Some(p) = prefix {
                s.push_str(&format!(", {what} {p:?}"));
            }
        }
        s.push(')');
        s
    }

    fn count_tokens(&self, text: &str) -> usize {
        self.counter
            .encode(text, false)
            .map_or_else(|_| crate::estimate_tokens(text), |e| e.len())
    }
}

/// `model_max_length` from a `tokenizer_config.json`; `None` when absent, unreadable or the
/// "no limit" sentinel (Hugging Face writes 1e30 there).
fn model_max_length(tokenizer_config: &[u8]) -> Option<usize> {
    let json: serde_json::Value = serde_json::from_slice(tokenizer_config).ok()?;
    let n = json.get("model_max_length")?.as_f64()?;
    (1.0..1e9).contains(&n).then_some(n as usize)
}

#[cfg(test)]
mod tests {
    use super::{model_max_length, token_batches};

    #[test]
    fn model_max_length_reads_the_limit_and_ignores_the_sentinel() {
        assert_eq!(model_max_length(br#"{"model_max_length": 512}"#), Some(512));
        assert_eq!(
            model_max_length(br#"{"model_max_length": 8192.0}"#),
            Some(8192)
        );
        assert_eq!(
            model_max_length(br#"{"model_max_length": 1000000000000000019884624838656}"#),
            None
        );
        assert_eq!(model_max_length(b"{}"), None);
        assert_eq!(model_max_length(b"not json"), None);
    }

    #[test]
    fn batches_are_bounded_by_texts_and_padded_tokens_and_cover_every_text_once() {
        let lengths = [10, 256, 12, 256, 40, 256, 256, 9, 100, 30];
        let batches = token_batches(&lengths, 4, 600);
        let mut seen: Vec<usize> = batches.iter().flatten().copied().collect();
        seen.sort();
        assert_eq!(seen, (0..lengths.len()).collect::<Vec<_>>());
        for b in &batches {
            let padded = b.iter().map(|&i| lengths[i]).max().unwrap();
            assert!(b.len() <= 4, "{b:?}");
            assert!(b.len() == 1 || b.len() * padded <= 600, "{b:?}");
        }
        // Long texts two at a time, the short ones four at a time (the text limit).
        let sizes: Vec<usize> = batches.iter().map(Vec::len).collect();
        assert_eq!(sizes, [2, 2, 4, 2]);
        assert!(token_batches(&[], 4, 600).is_empty());
        // A text longer than the budget still gets its own pass.
        assert_eq!(token_batches(&[900, 900], 4, 600), [vec![0], vec![1]]);
    }
}
