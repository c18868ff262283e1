//! The real MiniLM model through FastEmbedder: dimensions, unit norm, semantic order,
//! determinism, and the documented behaviour on bad input.
#![cfg(feature = "fastembed")]

use navigator_core::{cosine, Embedder, Error, FastEmbedder, ModelConfig};
use std::sync::OnceLock;

fn embedder() -> &'static FastEmbedder {
    static E: OnceLock<FastEmbedder> = OnceLock::new();
    E.get_or_init(|| {
        FastEmbedder::default_model().unwrap_or_else(|e| {
            panic!("the real embedding model is required (run scripts/setup-embeddings.sh): {e}")
        })
    })
}

#[tokio::test]
async fn minilm_gives_384_unit_vectors() {
    let e = embedder();
    assert_eq!(e.dimensions(), 384);
    let v = e
        .embed(&[
            "quarterly budget spreadsheet",
            "a second, longer sentence about work",
        ])
        .await
        .unwrap();
    assert_eq!(v.len(), 2);
    for vec in &v {
        assert_eq!(vec.len(), 384);
        let norm: f32 = vec.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "norm {norm}");
    }
    assert!(cosine(&v[0], &v[1]) < 0.99, "different texts must differ");
}

#[tokio::test]
async fn the_designer_query_is_closer_to_jane_than_to_the_budget() {
    let e = embedder();
    let q = e
        .embed_query("the designer I met at TechConf")
        .await
        .unwrap();
    let docs = e
        .embed_documents(&[
            "Jane Martinez, UX designer, met at TechConf 2025",
            "quarterly budget spreadsheet",
        ])
        .await
        .unwrap();
    let (jane, budget) = (cosine(&q, &docs[0]), cosine(&q, &docs[1]));
    assert!(jane > budget + 0.1, "jane {jane} vs budget {budget}");
}

#[tokio::test]
async fn output_is_deterministic_and_independent_of_batching() {
    let e = embedder();
    let texts = [
        "Draft quarterly report",
        "Legacy system migration",
        "Career development goals",
    ];
    let a = e.embed(&texts).await.unwrap();
    let b = e.embed(&texts).await.unwrap();
    assert_eq!(a, b, "same batch, same vectors");
    for (i, t) in texts.iter().enumerate() {
        let single = e.embed(&[t]).await.unwrap();
        let c = cosine(&a[i], &single[0]);
        assert!(c > 0.9999, "{t}: batched vs single cosine {c}");
    }
}

#[tokio::test]
async fn empty_batch_gives_empty_result() {
    assert!(embedder().embed(&[]).await.unwrap().is_empty());
}

#[tokio::test]
async fn text_longer_than_max_length_is_truncated_not_rejected() {
    let e = embedder();
    let head = "Project Phoenix replaces the billing platform. ";
    let long = format!(
        "{head}{}",
        "filler words about nothing in particular ".repeat(2000)
    );
    let v = e.embed(&[&long, head]).await.unwrap();
    assert_eq!(v[0].len(), 384);
    // Only the first 256 tokens count, so the long text still looks like its beginning.
    assert!(cosine(&v[0], &v[1]) > 0.3);
}

#[tokio::test]
async fn non_utf8_input_converted_lossily_embeds_without_panic() {
    let bytes = b"caf\xe9 \xff\xfe notes about the design review";
    let text = String::from_utf8_lossy(bytes);
    let v = embedder().embed(&[&text, "", "   "]).await.unwrap();
    assert_eq!(v.len(), 3);
    assert!(v
        .iter()
        .all(|x| x.len() == 384 && x.iter().all(|f| f.is_finite())));
}

#[test]
fn blocking_api_works_without_a_runtime() {
    let v = embedder()
        .embed_blocking(&["no async runtime here"])
        .unwrap();
    assert_eq!(v[0].len(), 384);
}

#[test]
fn missing_model_file_is_an_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let err = FastEmbedder::from_dir(dir.path(), ModelConfig::minilm()).unwrap_err();
    match &err {
        Error::File { path, .. } => assert!(path.ends_with("model.onnx"), "{err}"),
        other => panic!("expected a file error, got {other}"),
    }
    assert!(err.to_string().contains("model.onnx"));
}

#[test]
fn missing_tokenizer_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let model_dir = embedder().model_dir();
    std::fs::copy(model_dir.join("model.onnx"), dir.path().join("model.onnx")).unwrap();
    let err = FastEmbedder::from_dir(dir.path(), ModelConfig::minilm()).unwrap_err();
    assert!(err.to_string().contains("tokenizer.json"), "{err}");
}

#[test]
fn missing_runtime_is_an_error_naming_the_path_and_the_fix() {
    let config = ModelConfig::minilm().with_ort_dylib("/nonexistent/libonnxruntime.so.1.31.1");
    let err = FastEmbedder::from_dir(embedder().model_dir(), config).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("/nonexistent/libonnxruntime.so.1.31.1"),
        "{msg}"
    );
    assert!(msg.contains("setup-embeddings.sh"), "{msg}");
}

#[test]
fn wrong_dimensions_in_config_are_caught_at_load() {
    let mut config = ModelConfig::minilm();
    config.dimensions = 1024;
    let err = FastEmbedder::from_dir(embedder().model_dir(), config).unwrap_err();
    assert!(err.to_string().contains("384"), "{err}");
}

#[test]
fn bge_m3_preset_is_configured_for_cls_1024_and_external_data() {
    let c = ModelConfig::bge_m3();
    assert_eq!((c.dimensions, c.max_length), (1024, 8192));
    assert_eq!(c.pooling, navigator_core::Pooling::Cls);
    assert_eq!(c.external_data, ["model.onnx_data"]);
    // Loading it from a directory without the export names the missing file.
    let dir = tempfile::tempdir().unwrap();
    let err = FastEmbedder::bge_m3(dir.path()).unwrap_err();
    assert!(err.to_string().contains("model.onnx"), "{err}");
}

#[test]
fn minilm_reports_its_window_and_counts_tokens_past_it() {
    let e = embedder();
    // MiniLM was trained on 256 tokens (its tokenizer config allows 512): [CLS] and [SEP]
    // leave 254 for text.
    assert_eq!(e.max_input_tokens(), Some(254));
    assert_eq!(e.count_tokens("hello world"), 2);
    // Counting must not stop at the model's window (the tokenizer truncates when embedding).
    let long = "word ".repeat(1_000);
    assert_eq!(e.count_tokens(&long), 1_000);
    assert_eq!(e.count_tokens(""), 0);
}
