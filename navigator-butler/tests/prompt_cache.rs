//! Prompt caching that hits: over ten turns, the bytes a provider caches — the Anthropic
//! request's tools and system blocks up to the last `cache_control` marker — are identical for
//! the Butler's classification calls and for a specialist's tool-loop calls, while the date,
//! the history and the digest (dynamic state) change behind them. The static prefix is long
//! enough to be cached at all (Anthropic caches prefixes of at least 1,024 tokens on
//! Sonnet-class models, 2,048 on Haiku-class ones).

use chrono::{DateTime, Duration, Utc};
use navigator_butler::{
    Butler, CodeContextTool, GetItemTool, McpToolset, Orchestrator, TimelineTool, ToolAgent,
    ToolCatalog,
};
use navigator_core::{
    AnthropicClient, AnthropicConfig, ApiKey, ChatRequest, Interaction, MemoryStore, ScriptedLlm,
    Store, TokenCounter, ToolCall,
};
use navigator_search::Clock;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

/// A clock the test moves forward.
#[derive(Debug)]
struct Stepping(Mutex<DateTime<Utc>>);

impl Clock for Stepping {
    fn now(&self) -> DateTime<Utc> {
        *self.0.lock().unwrap()
    }
}

/// The cached prefix of the Anthropic body for `request`: its tools and the system blocks up
/// to (and including) the last one carrying `cache_control`, as bytes.
fn cached_prefix(client: &AnthropicClient, request: &ChatRequest) -> String {
    let body = client.request_body(request);
    let system = body["system"].as_array().cloned().unwrap_or_default();
    let last = system
        .iter()
        .rposition(|b| b.get("cache_control").is_some())
        .expect("a cache marker");
    let prefix = json!({"tools": body.get("tools").cloned().unwrap_or(Value::Null), "system": system[..=last]});
    serde_json::to_string(&prefix).unwrap()
}

fn decision(intent: &str) -> String {
    match intent {
        "direct_answer" => r#"{"classification":{"intent":"direct_answer","confidence":0.9,"reasoning":"small talk"},"response":"Happy to help."}"#.into(),
        other => format!(r#"{{"classification":{{"intent":"{other}","confidence":0.9,"reasoning":"work on tasks"}}}}"#),
    }
}

#[tokio::test]
async fn ten_turns_send_a_byte_identical_cached_prefix_of_at_least_1024_tokens() {
    let clock = Arc::new(Stepping(Mutex::new(
        "2026-11-21T09:00:00Z".parse().unwrap(),
    )));
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let workflow = McpToolset::workflow(navigator_workflow::mcp::NavigatorServer::new(
        navigator_workflow::Navigator::new(),
    ))
    .await
    .unwrap();
    let planner_tools = ToolCatalog::new().with_tools(workflow.tools());
    let knowledge = ToolCatalog::new()
        .with_tool(Arc::new(GetItemTool::new(store.clone())))
        .with_tool(Arc::new(TimelineTool::new(store, clock.clone())));
    let code =
        ToolCatalog::new().with_tool(Arc::new(CodeContextTool::new(env!("CARGO_MANIFEST_DIR"))));

    // One model for the Butler and the planner, answering in call order.
    let llm = Arc::new(ScriptedLlm::from_texts(
        "claude-sonnet-4-5",
        Vec::<String>::new(),
    ));
    for turn in 0..10 {
        if turn % 2 == 0 {
            llm.push(Interaction::text(decision("direct_answer")));
        } else {
            llm.push(Interaction::text(decision("delegate_tasks")));
            llm.push(Interaction::calls(vec![ToolCall {
                id: format!("call-{turn}"),
                name: "get_tasks_by_status".into(),
                arguments: json!({"status": "PENDING"}),
            }]));
            llm.push(Interaction::text("No pending tasks."));
        }
    }
    let all_tools = planner_tools
        .definitions()
        .into_iter()
        .chain(knowledge.definitions())
        .chain(code.definitions())
        .count();
    let planner = ToolAgent::planner(llm.clone(), planner_tools.clone()).clock(clock.clone());
    let catalog = ToolCatalog::new()
        .with_tools(workflow.tools())
        .with_tools([Arc::new(CodeContextTool::new(env!("CARGO_MANIFEST_DIR")))
            as Arc<dyn navigator_butler::Tool>]);
    let butler = Butler::builder(llm.clone())
        .orchestrator(Orchestrator::new().register(Arc::new(planner)))
        .tools(catalog)
        .clock(clock.clone())
        .user_name("Ada")
        .history_tokens(100) // small: older turns fall into the digest
        .build()
        .unwrap();
    for turn in 0..10 {
        if turn == 5 {
            *clock.0.lock().unwrap() += Duration::days(1);
        }
        let r = butler
            .handle_message("c", &format!("message {turn}: what should I work on next?"))
            .await
            .unwrap();
        assert!(r.response.is_some());
    }
    assert!(all_tools >= 10);

    let client = AnthropicClient::new(
        AnthropicConfig::new("claude-sonnet-4-5").with_api_key(ApiKey::new("not-sent")),
    )
    .unwrap();
    let requests = llm.requests();
    let (classify, planning): (Vec<_>, Vec<_>) = requests
        .iter()
        .partition(|r| r.system_text().contains("Classify every message"));
    assert_eq!((classify.len(), planning.len()), (10, 10));
    let counter = TokenCounter::for_provider("anthropic");
    for calls in [&classify, &planning] {
        let first = cached_prefix(&client, calls[0]);
        for (i, r) in calls.iter().enumerate() {
            assert_eq!(
                cached_prefix(&client, r),
                first,
                "call {i} changed the cached prefix"
            );
        }
        let tokens = counter.count(&first);
        println!("cached prefix: {tokens} tokens");
        assert!(tokens >= 1024, "cached prefix is only {tokens} tokens");
    }
    // What is not cached does change: the date moved, the digest appeared, history grew.
    let dynamic = |r: &ChatRequest| {
        r.system
            .iter()
            .filter(|b| !b.cache)
            .map(|b| b.text.clone())
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert!(dynamic(classify[0]).contains("2026-11-21"));
    assert!(dynamic(classify[9]).contains("2026-11-22"));
    assert!(dynamic(classify[9]).contains("Earlier the user asked"));
    assert!(classify[9].messages.len() > classify[0].messages.len());
    // The planner's cached prefix carries the tool definitions (tools come first).
    let body = client.request_body(planning[0]);
    assert!(body["tools"].as_array().unwrap().len() >= 10);
}
