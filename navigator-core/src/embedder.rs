//! The [`Embedder`] trait: text in, dense vectors out.

use crate::Result;
use async_trait::async_trait;

/// Turns text into dense vectors.
///
/// Object-safe: applications hold an `Arc<dyn Embedder>`. Implementations return one
/// L2-normalised vector of [`dimensions`](Embedder::dimensions) floats per input text, in input
/// order, deterministic for the same model and text; an empty batch gives an empty result.
///
/// Retrieval models often embed queries and documents differently (instruction prefixes);
/// [`embed_query`](Embedder::embed_query) and [`embed_documents`](Embedder::embed_documents) exist
/// for that and default to [`embed`](Embedder::embed).
#[async_trait]
pub trait Embedder: Send + Sync {
    /// A stable identifier of the model (used to key caches of vectors).
    fn model_id(&self) -> &str;

    /// The length of every vector this embedder returns.
    fn dimensions(&self) -> usize;

    /// Embeds a batch of texts.
    async fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>>;

    /// Embeds one search query.
    async fn embed_query(&self, query: &str) -> Result<Vec<f32>> {
        let mut v = self.embed(&[query]).await?;
        v.pop().ok_or_else(|| crate::Error::Embedding {
            model: self.model_id().to_string(),
            message: "the model returned no vector for the query".into(),
        })
    }

    /// Embeds documents to be indexed.
    async fn embed_documents(&self, documents: &[&str]) -> Result<Vec<Vec<f32>>> {
        self.embed(documents).await
    }

    /// What an index records about the model that built it: vectors from two embedders with
    /// different fingerprints must not be compared. Defaults to the model id and width;
    /// embedders whose configuration changes their vectors (pooling, prefixes) add it. An
    /// embedder that wraps another (a cache, a counter) forwards it.
    fn fingerprint(&self) -> String {
        format!("{} ({}-d)", self.model_id(), self.dimensions())
    }

    /// The most tokens one document may have before the model truncates it (special tokens
    /// excluded), or `None` when the model takes any length. Search engines split longer
    /// documents into chunks of at most this many tokens, so no text goes unembedded.
    fn max_input_tokens(&self) -> Option<usize> {
        None
    }

    /// How many tokens the model's tokenizer makes of `text`, special tokens excluded. The
    /// default estimates from the text (about four characters per token, at least one per
    /// word), for embedders without a tokenizer of their own.
    fn count_tokens(&self, text: &str) -> usize {
        estimate_tokens(text)
    }
}

/// A tokenizer-free estimate of a text's token count: about four characters per token, and
/// never fewer tokens than words.
///
/// ```
/// use navigator_core::estimate_tokens;
/// assert_eq!(estimate_tokens(""), 0);
/// assert!(estimate_tokens("a b c d e") >= 5);
/// ```
pub fn estimate_tokens(text: &str) -> usize {
    let words = text.split_whitespace().count();
    words.max(text.chars().count().div_ceil(4))
}

/// Cosine similarity of two vectors; 0 when either is all zeros or the lengths differ.
///
/// ```
/// use navigator_core::cosine;
/// assert!((cosine(&[1.0, 0.0], &[1.0, 0.0]) - 1.0).abs() < 1e-6);
/// assert_eq!(cosine(&[1.0, 0.0], &[0.0, 1.0]), 0.0);
/// ```
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    if a.len() != b.len() {
        return 0.0;
    }
    let (mut dot, mut na, mut nb) = (0.0f32, 0.0f32, 0.0f32);
    for (x, y) in a.iter().zip(b) {
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        dot / (na.sqrt() * nb.sqrt())
    }
}

/// Scales `v` to unit length in place (a zero vector stays zero).
pub fn l2_normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}
