//! Measures the Butler's embedding pre-router on the bundled labelled set (200 utterances,
//! 25 per intent): 136 exemplars embedded, the threshold calibrated for precision on them
//! (leave-one-out), figures reported on the 64 held-out utterances.
//!
//! ```sh
//! cargo run --release -p navigator-eval --bin butler_router_eval            # target precision 0.95
//! cargo run --release -p navigator-eval --bin butler_router_eval -- 0.9     # another target
//! ```
//!
//! Needs the local MiniLM model (`scripts/setup-embeddings.sh`).

use navigator_butler::{LabelledSet, PreRouter, Split};
use navigator_core::{Embedder, FastEmbedder};
use std::sync::Arc;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    navigator_eval::help::exit_on_help(include_str!("butler_router_eval.rs"));
    let target: f64 = match std::env::args().nth(1) {
        Some(t) => t.parse()?,
        None => 0.95,
    };
    let set = LabelledSet::bundled()?;
    let (exemplars, evaluation) = (set.split(Split::Exemplars), set.split(Split::Evaluation));
    let embedder: Arc<dyn Embedder> = Arc::new(FastEmbedder::default_model()?);
    println!(
        "model {}; {} utterances: {} exemplars (calibrated leave-one-out), {} held out",
        embedder.model_id(),
        set.len(),
        exemplars.len(),
        evaluation.len()
    );
    let (router, cal) = PreRouter::calibrate(embedder, &exemplars, target).await?;
    println!(
        "calibration (target precision {target:.2}): threshold {:.3}, precision {:.1}%, routed {:.1}%",
        cal.threshold,
        cal.precision * 100.0,
        cal.coverage * 100.0
    );
    let e = router.evaluate(&evaluation).await?;
    println!(
        "held out: routed {}/{} ({:.1}%) without an LLM call, {} right ({:.1}% accuracy of routed decisions)",
        e.routed,
        e.total,
        e.routed_share() * 100.0,
        e.routed_correct,
        e.routed_accuracy() * 100.0
    );
    println!(
        "held out: nearest-exemplar accuracy over all {} intents {:.1}% ({}/{})",
        navigator_butler::Intent::ALL.len(),
        e.top1_accuracy() * 100.0,
        e.top1_correct,
        e.total
    );
    println!(
        "LLM classification calls saved: {} of {} ({:.1}%)",
        e.routed,
        e.total,
        e.routed_share() * 100.0
    );
    for u in &evaluation {
        let s = router.score(&u.text).await?;
        if s.routed && s.intent != u.intent {
            println!(
                "  misrouted: {:?} → {} (labelled {}, score {:.3})",
                u.text, s.intent, u.intent, s.score
            );
        }
    }
    Ok(())
}
