//! The Butler as a REPL with specialists that act: the Navigator searches the sample PARA
//! knowledge base through its tools (embedded engine, real MiniLM embeddings), the coder builds
//! code context from the sample repository with the context explorer, the planner works the
//! sample task queue through the workflow engine's own MCP tools, and the communicator drafts.
//! The calibrated embedding pre-router decides confident delegations without an LLM call. No
//! inbox or calendar is connected, so those requests are answered with what would be needed
//! instead of invented content.
//!
//! ```sh
//! cargo run -p navigator-butler --example butler                                  # scripted demo, no key needed
//! ANTHROPIC_API_KEY=... cargo run -p navigator-butler --example butler -- --llm anthropic
//! OPENAI_API_KEY=... cargo run -p navigator-butler --example butler -- --llm openai --model gpt-4o-mini
//! ```
//!
//! The demo replays `examples/data/butler/demo_cassette.json` for every LLM call (the
//! classifications, the specialists' tool calls and answers); the tools, the searches and the
//! pre-router are real either way. Each answer says which path decided the intent, which tools
//! ran and what they cite.

use clap::{Parser, ValueEnum};
use navigator_butler::{
    knowledge_tools, Butler, ButlerResponse, CodeContextTool, LabelledSet, LlmAgent, McpToolset,
    Orchestrator, PreRouter, Split, ToolAgent, ToolCatalog,
};
use navigator_core::{
    AnthropicClient, AnthropicConfig, Embedder, FastEmbedder, Item, JsonMode, Llm, OpenAiClient,
    OpenAiConfig, Replay, ScriptedLlm,
};
use navigator_search::{EngineConfig, FixedClock, SearchEngine};
use std::io::{BufRead, Write};
use std::sync::Arc;

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Provider {
    /// Replays the demo cassette.
    Scripted,
    /// Claude through the Anthropic API (`ANTHROPIC_API_KEY`).
    Anthropic,
    /// The OpenAI API (`OPENAI_API_KEY`).
    Openai,
}

#[derive(Parser, Debug)]
#[command(about = "Talk to the Butler over the sample knowledge base")]
struct Args {
    /// Which LLM classifies and writes.
    #[arg(long, value_enum, default_value_t = Provider::Scripted)]
    llm: Provider,
    /// The model (defaults: claude-sonnet-4-5, gpt-4o-mini).
    #[arg(long)]
    model: Option<String>,
    /// Your name, for the prompt.
    #[arg(long, default_value = "Ada")]
    user: String,
}

const DEMO: [&str; 8] = [
    "Good morning!",
    "What needs my attention in my inbox today?",
    "find the Q4 report",
    "Where is the tax on an invoice computed in the code?",
    "What should I work on next in the release checklist?",
    "Look up the Q4 expansion and draft an email to Sam about it",
    "Can you do the thing?",
    "Schedule a review with John this week",
];

/// The sample data next to the demo cassette.
const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/data/butler");

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let (llm, json_mode): (Arc<dyn Llm>, JsonMode) = match args.llm {
        Provider::Scripted => {
            let path = concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../examples/data/butler/demo_cassette.json"
            );
            (
                Arc::new(ScriptedLlm::from_file(path)?.replay(Replay::ByMatch)),
                JsonMode::JsonSchema,
            )
        }
        Provider::Anthropic => {
            let model = args
                .model
                .clone()
                .unwrap_or_else(|| "claude-sonnet-4-5".into());
            (
                Arc::new(AnthropicClient::new(AnthropicConfig::new(model))?),
                JsonMode::PromptOnly,
            )
        }
        Provider::Openai => {
            let model = args.model.clone().unwrap_or_else(|| "gpt-4o-mini".into());
            (
                Arc::new(OpenAiClient::new(OpenAiConfig::openai(model))?),
                JsonMode::JsonSchema,
            )
        }
    };

    // The sample knowledge base lives in "2026-11-21"; the Butler's date follows it.
    let clock = Arc::new(FixedClock("2026-11-21T09:00:00Z".parse()?));
    let embedder: Arc<dyn Embedder> = Arc::new(FastEmbedder::default_model()?);
    let dir = tempfile::tempdir()?;
    let items: Vec<Item> = navigator_core::from_json(&std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/data/para_kb.json"
    ))?)?;
    let config = EngineConfig {
        clock: clock.clone(),
        ..EngineConfig::default()
    };
    let engine = SearchEngine::open_with(dir.path(), embedder.clone(), config).await?;
    engine.bulk_load(&items, |_| {}).await?;
    println!("indexed {} items", engine.len());

    let set = LabelledSet::bundled()?;
    let (router, cal) = PreRouter::calibrate(embedder, &set.split(Split::Exemplars), 0.95).await?;
    println!(
        "pre-router threshold {:.3} (calibration precision {:.0}%)",
        cal.threshold,
        cal.precision * 100.0
    );

    // The specialists and their tools: real functions, no stand-ins.
    let engine = Arc::new(engine);
    let knowledge = ToolCatalog::new().with_tools(knowledge_tools(
        engine.clone(),
        Some(Arc::new(engine.store().clone())),
        clock.clone(),
    ));
    let code = ToolCatalog::new().with_tool(Arc::new(CodeContextTool::new(format!(
        "{DATA}/sample_repo"
    ))));
    let mut queue = navigator_workflow::Navigator::new();
    let definition = navigator_workflow::WorkflowDefinition::from_yaml(&std::fs::read_to_string(
        format!("{DATA}/workflow.yaml"),
    )?)?;
    queue.load_workflow("release", definition)?;
    let tasks: Vec<navigator_workflow::Task> =
        serde_json::from_str(&std::fs::read_to_string(format!("{DATA}/tasks.json"))?)?;
    queue.load_tasks(tasks, true)?;
    let workflow =
        McpToolset::workflow(navigator_workflow::mcp::NavigatorServer::new(queue)).await?;
    // The person approves task changes in this demo; a real application asks them.
    let tasks = ToolCatalog::new()
        .with_tools(workflow.tools())
        .with_approver(|request| {
            println!("  (approved: {} {})", request.tool.name, request.arguments);
            true
        });
    let orchestrator = Orchestrator::new()
        .register(Arc::new(
            ToolAgent::navigator(llm.clone(), knowledge.clone()).clock(clock.clone()),
        ))
        .register(Arc::new(
            ToolAgent::coder(llm.clone(), code.clone()).clock(clock.clone()),
        ))
        .register(Arc::new(
            ToolAgent::planner(llm.clone(), tasks.clone()).clock(clock.clone()),
        ))
        .register(Arc::new(
            LlmAgent::communicator(llm.clone()).with_clock(clock.clone()),
        ));
    let catalog = ToolCatalog::new()
        .with_catalog(&knowledge)
        .with_catalog(&code)
        .with_catalog(&tasks);
    let butler = Butler::builder(llm)
        .orchestrator(orchestrator)
        .tools(catalog)
        .pre_router(router)
        .clock(clock)
        .user_name(&args.user)
        .json_mode(json_mode)
        .build()?;

    if matches!(args.llm, Provider::Scripted) {
        for message in DEMO {
            println!("\n> {message}");
            show(&butler.handle_message("demo", message).await?);
        }
        return Ok(());
    }
    println!("Talk to the Butler (empty line or Ctrl-D to quit).");
    let stdin = std::io::stdin();
    loop {
        print!("\n> ");
        std::io::stdout().flush()?;
        let mut line = String::new();
        if stdin.lock().read_line(&mut line)? == 0 || line.trim().is_empty() {
            return Ok(());
        }
        match butler.handle_message("repl", line.trim()).await {
            Ok(r) => show(&r),
            Err(e) => println!("error: {e}"),
        }
    }
}

fn show(r: &ButlerResponse) {
    let c = &r.classification;
    println!(
        "[{} {:.2} decided by {:?}{}]",
        c.intent,
        c.confidence,
        r.decided_by,
        r.delegated_agent
            .as_deref()
            .map(|a| format!(" → {a}"))
            .unwrap_or_default()
    );
    for outcome in &r.sub_results {
        for call in outcome.data["calls"].as_array().into_iter().flatten() {
            println!(
                "  {} ran {} {} → {}",
                outcome.agent, call["tool"], call["arguments"], call["status"]
            );
        }
    }
    if let Some(text) = &r.response {
        println!("{text}");
    }
    for q in r.follow_up_questions.iter().flatten() {
        println!("? {q}");
    }
}
