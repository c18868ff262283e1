//! A small deterministic embedder for tests that need vectors but not a model.

use async_trait::async_trait;
use navigator_core::Embedder;

/// Hashes words into `DIMS` buckets and normalises: texts sharing words are similar,
/// deterministic, no model needed.
pub struct WordHash;

pub const DIMS: usize = 32;

pub fn word_vector(text: &str) -> Vec<f32> {
    let mut v = vec![0f32; DIMS];
    for w in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() > 2)
    {
        let w = w.to_lowercase();
        let h = w.bytes().fold(1469598103934665603u64, |h, b| {
            (h ^ b as u64).wrapping_mul(1099511628211)
        });
        v[(h % DIMS as u64) as usize] += 1.0;
    }
    if v.iter().all(|x| *x == 0.0) {
        v[0] = 1.0;
    }
    navigator_core::l2_normalize(&mut v);
    v
}

#[async_trait]
impl Embedder for WordHash {
    fn model_id(&self) -> &str {
        "word-hash"
    }
    fn dimensions(&self) -> usize {
        DIMS
    }
    async fn embed(&self, texts: &[&str]) -> navigator_core::Result<Vec<Vec<f32>>> {
        Ok(texts.iter().map(|t| word_vector(t)).collect())
    }
}
