//! An embedder for unit tests of the engine's plumbing, where what the vectors say does not
//! matter (integration tests use the real model).

/// Three-dimensional vectors, `[0, 0, 1]` for every text.
pub(crate) struct Fixed;

#[async_trait::async_trait]
impl navigator_core::Embedder for Fixed {
    fn model_id(&self) -> &str {
        "fixed"
    }
    fn dimensions(&self) -> usize {
        3
    }
    async fn embed(&self, texts: &[&str]) -> navigator_core::Result<Vec<Vec<f32>>> {
        Ok(vec![vec![0.0, 0.0, 1.0]; texts.len()])
    }
}
