//! The Butler over the real Navigator: the sample PARA knowledge base indexed by the embedded
//! engine (redb + tantivy + usearch) with the real MiniLM embedder, and the embedding
//! pre-router calibrated on the bundled labelled set.

use navigator_butler::{
    Butler, DecidedBy, Intent, LabelledSet, LlmAgent, NavigatorSubAgent, Orchestrator, PreRouter,
    Split,
};
use navigator_core::{Embedder, FastEmbedder, Item, NavigatorResponse, ScriptedLlm};
use navigator_search::{EngineConfig, FixedClock, SearchEngine};
use std::sync::{Arc, OnceLock};

fn clock() -> Arc<FixedClock> {
    Arc::new(FixedClock("2026-11-21T12:00:00Z".parse().unwrap()))
}

fn embedder() -> Arc<dyn Embedder> {
    static E: OnceLock<Arc<FastEmbedder>> = OnceLock::new();
    E.get_or_init(|| {
        Arc::new(
            FastEmbedder::default_model().expect("MiniLM installed (scripts/setup-embeddings.sh)"),
        )
    })
    .clone()
}

/// The knowledge base, indexed once per test binary on its own runtime.
fn navigator() -> NavigatorSubAgent {
    static ENGINE: OnceLock<(Arc<SearchEngine>, tempfile::TempDir)> = OnceLock::new();
    let engine = ENGINE
        .get_or_init(|| {
            std::thread::spawn(|| {
                tokio::runtime::Runtime::new().unwrap().block_on(async {
                    let path =
                        concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/data/para_kb.json");
                    let items: Vec<Item> =
                        navigator_core::from_json(&std::fs::read_to_string(path).unwrap()).unwrap();
                    let dir = tempfile::tempdir().unwrap();
                    let config = EngineConfig {
                        clock: clock(),
                        ..EngineConfig::default()
                    };
                    let engine = SearchEngine::open_with(dir.path(), embedder(), config)
                        .await
                        .unwrap();
                    engine.bulk_load(&items, |_| {}).await.unwrap();
                    (Arc::new(engine), dir)
                })
            })
            .join()
            .unwrap()
        })
        .0
        .clone();
    NavigatorSubAgent::over(engine, clock())
}

fn search_decision() -> &'static str {
    r#"{"classification":{"intent":"delegate_search","confidence":0.93,
        "reasoning":"The user wants a stored document","delegationContext":{"relevantEntities":["Q4 report"]}}}"#
}

fn titles(data: &serde_json::Value) -> Vec<String> {
    let response: NavigatorResponse = serde_json::from_value(data.clone()).unwrap();
    response.hits().iter().map(|r| r.title.clone()).collect()
}

#[tokio::test]
async fn find_the_q4_report_runs_a_real_search_and_the_answer_lists_the_hits() {
    let llm = Arc::new(ScriptedLlm::from_texts("m", [search_decision()]));
    let b = Butler::builder(llm)
        .orchestrator(Orchestrator::new().register(Arc::new(navigator())))
        .clock(clock())
        .build()
        .unwrap();
    let r = b.handle_message("s", "find the Q4 report").await.unwrap();
    assert_eq!(r.classification.intent, Intent::DelegateSearch);
    assert_eq!(r.delegated_agent.as_deref(), Some("navigator"));
    let hits = titles(&r.sub_results[0].data);
    assert!(
        hits.iter().any(|t| t == "Q4 Strategic Expansion"
            || t == "Draft quarterly report"
            || t == "Quarterly Report Template"),
        "{hits:?}"
    );
    let answer = r.response.unwrap();
    for title in hits.iter().take(3) {
        assert!(
            answer.contains(title.as_str()),
            "{title} missing from {answer}"
        );
    }
}

#[tokio::test]
async fn search_results_feed_the_draft_step_of_a_multi_step_request() {
    let plan = r#"{"classification":{"intent":"delegate_search","confidence":0.9,"reasoning":"search then write"},
        "subTasks":[{"intent":"delegate_search","instruction":"plans for the Q4 expansion"},
                    {"intent":"delegate_draft","instruction":"Email Sam a summary of what was found",
                     "delegationContext":{"relevantEntities":["Sam"]}}]}"#;
    let llm = Arc::new(ScriptedLlm::from_texts(
        "m",
        [plan, "Here is what I found, and a draft to Sam."],
    ));
    let writer = Arc::new(ScriptedLlm::from_texts(
        "m",
        ["Hi Sam, the Q4 Strategic Expansion project is on track."],
    ));
    let b = Butler::builder(llm.clone())
        .orchestrator(
            Orchestrator::new()
                .register(Arc::new(navigator()))
                .register(Arc::new(LlmAgent::communicator(writer.clone()))),
        )
        .build()
        .unwrap();
    let r = b
        .handle_message("s", "Look up the Q4 expansion and email Sam about it")
        .await
        .unwrap();
    let hits = titles(&r.sub_results[0].data);
    assert!(
        hits.iter().take(3).any(|t| t == "Q4 Strategic Expansion"),
        "{hits:?}"
    );
    assert!(writer.requests()[0]
        .system_text()
        .contains("Q4 Strategic Expansion"));
    assert!(llm.requests()[1].messages[0]
        .content
        .contains("[navigator] Found"));
}

#[tokio::test]
async fn confident_pre_router_decides_a_search_without_any_llm_call() {
    let set = LabelledSet::bundled().unwrap();
    let (router, cal) = PreRouter::calibrate(embedder(), &set.split(Split::Exemplars), 0.95)
        .await
        .unwrap();
    assert!(cal.precision >= 0.95 && cal.threshold < 1.0, "{cal:?}");
    let llm = Arc::new(ScriptedLlm::from_texts("m", Vec::<String>::new()));
    let b = Butler::builder(llm.clone())
        .orchestrator(Orchestrator::new().register(Arc::new(navigator())))
        .pre_router(router.clone())
        .build()
        .unwrap();
    let r = b.handle_message("s", "find the Q4 report").await.unwrap();
    assert_eq!(
        (r.classification.intent, r.decided_by),
        (Intent::DelegateSearch, DecidedBy::PreRouter)
    );
    assert!(r.classification.reasoning.contains("pre-router"));
    assert!(llm.requests().is_empty(), "no LLM call was needed");
    assert!(!titles(&r.sub_results[0].data).is_empty());

    // A greeting is never decided by the router: it needs the LLM to write the answer.
    let hello = router.score("Hello there!").await.unwrap();
    assert!(!hello.routed, "{hello:?}");
}
