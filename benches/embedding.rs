//! FastEmbedder throughput against a raw `ort` session on the same model, tokenizer and batch
//! sizes: what navigator's embedding layer costs on top of ONNX Runtime.
//!
//! Run: `cargo bench -p navigator-eval --bench embedding` (needs `bash scripts/setup-embeddings.sh` first).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use navigator_core::{EmbeddingPaths, FastEmbedder, ModelConfig};
use ort::session::Session;
use ort::value::Tensor;
use std::path::Path;
use std::time::Duration;
use tokenizers::{PaddingParams, Tokenizer, TruncationParams};

const SUBJECTS: [&str; 8] = [
    "the quarterly report",
    "Jane from the design team",
    "our legacy billing migration",
    "the hiring plan for Q3",
    "a note on JWT authentication",
    "the TechConf keynote",
    "budget review with finance",
    "career development goals",
];
const VERBS: [&str; 4] = [
    "needs a final review before Friday",
    "was discussed at length in the weekly sync",
    "links to three open tasks and a template",
    "should be archived once the project closes",
];

fn texts(n: usize) -> Vec<String> {
    (0..n)
        .map(|i| format!("{} {} (item {i})", SUBJECTS[i % 8], VERBS[(i / 8) % 4]))
        .collect()
}

/// The same computation FastEmbedder performs, written directly against ort + tokenizers:
/// tokenise (pad to longest, truncate at 256), run, mean-pool under the mask, L2-normalise.
struct RawOrt {
    session: Session,
    tokenizer: Tokenizer,
}

impl RawOrt {
    fn new(ort_dylib: &Path, model_dir: &Path) -> Self {
        let mut tokenizer = Tokenizer::from_file(model_dir.join("tokenizer.json")).unwrap();
        tokenizer.with_padding(Some(PaddingParams::default()));
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: 256,
                ..TruncationParams::default()
            }))
            .unwrap();
        let environment = navigator_core::embed::ort_environment(ort_dylib).unwrap();
        let session = Session::builder(&environment)
            .unwrap()
            .commit_from_file(model_dir.join("model.onnx"))
            .unwrap();
        Self { session, tokenizer }
    }

    fn embed(&mut self, texts: &[&str]) -> Vec<Vec<f32>> {
        let enc = self.tokenizer.encode_batch(texts.to_vec(), true).unwrap();
        let (b, t) = (enc.len(), enc[0].len());
        let flat = |f: &dyn Fn(&tokenizers::Encoding) -> &[u32]| -> Vec<i64> {
            enc.iter()
                .flat_map(|e| f(e).iter().map(|&x| x as i64))
                .collect()
        };
        let ids = flat(&|e| e.get_ids());
        let mask = flat(&|e| e.get_attention_mask());
        let types = flat(&|e| e.get_type_ids());
        let outputs = self
            .session
            .run(ort::inputs![
                "input_ids" => Tensor::from_array(([b, t], ids)).unwrap(),
                "attention_mask" => Tensor::from_array(([b, t], mask.clone())).unwrap(),
                "token_type_ids" => Tensor::from_array(([b, t], types)).unwrap(),
            ])
            .unwrap();
        let (shape, hidden) = outputs[0].try_extract_tensor::<f32>().unwrap();
        let d = shape[2] as usize;
        (0..b)
            .map(|i| {
                let mut v = vec![0f32; d];
                let mut n = 0f32;
                for j in 0..t {
                    if mask[i * t + j] == 1 {
                        n += 1.0;
                        let row = &hidden[(i * t + j) * d..(i * t + j + 1) * d];
                        v.iter_mut().zip(row).for_each(|(a, x)| *a += x);
                    }
                }
                v.iter_mut().for_each(|a| *a /= n.max(1.0));
                navigator_core::l2_normalize(&mut v);
                v
            })
            .collect()
    }
}

fn bench(c: &mut Criterion) {
    let paths = EmbeddingPaths::locate(None, None).expect("run scripts/setup-embeddings.sh");
    let ours = FastEmbedder::from_dir(&paths.model_dir, ModelConfig::minilm().with_batch_size(256))
        .unwrap();
    let mut raw = RawOrt::new(&paths.ort_dylib, &paths.model_dir);

    // Same vectors from both paths, or the comparison means nothing.
    let check = texts(4);
    let check: Vec<&str> = check.iter().map(String::as_str).collect();
    let (a, b) = (ours.embed_blocking(&check).unwrap(), raw.embed(&check));
    for (x, y) in a.iter().zip(&b) {
        assert!(navigator_core::cosine(x, y) > 0.9999);
    }

    let mut group = c.benchmark_group("embedding");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(2))
        .measurement_time(Duration::from_secs(8));
    for batch in [1usize, 32, 256] {
        let owned = texts(batch);
        let refs: Vec<&str> = owned.iter().map(String::as_str).collect();
        group.throughput(Throughput::Elements(batch as u64));
        group.bench_with_input(BenchmarkId::new("fastembedder", batch), &refs, |bch, t| {
            bch.iter(|| ours.embed_blocking(t).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("raw_ort", batch), &refs, |bch, t| {
            bch.iter(|| raw.embed(t))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
