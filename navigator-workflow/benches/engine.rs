//! `advance` throughput with 10k tasks across 10 workflows, and `next(n)` latency.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use navigator_workflow::{Navigator, Task, TaskStatus, WorkflowDefinition};
use serde_json::json;

const WORKFLOWS: usize = 10;
const TASKS: usize = 10_000;
/// One review failure (a retry) then success: 7 advances from start to end.
const SCRIPT: [&str; 7] = [
    "passed", "passed", "passed", "failed", "passed", "passed", "passed",
];

fn definition() -> WorkflowDefinition {
    WorkflowDefinition::from_value(json!({
        "nodes": {
            "start": { "type": "start" },
            "analyze": { "type": "task", "name": "Analyze", "stage": "planning" },
            "implement": { "type": "task", "name": "Implement", "stage": "development" },
            "review": { "type": "gate", "name": "Review", "maxRetries": 3, "stage": "verification" },
            "end": { "type": "end", "result": "success" },
            "hitl": { "type": "end", "result": "blocked", "escalation": "hitl" }
        },
        "edges": [
            { "from": "start", "to": "analyze" },
            { "from": "analyze", "to": "implement" },
            { "from": "implement", "to": "review" },
            { "from": "review", "to": "end", "on": "passed" },
            { "from": "review", "to": "analyze", "on": "failed" },
            { "from": "review", "to": "hitl", "on": "max_retries_exceeded" }
        ]
    }))
    .expect("benchmark workflow is valid")
}

fn loaded() -> (Navigator, Vec<String>) {
    let mut nav = Navigator::new();
    for w in 0..WORKFLOWS {
        nav.load_workflow(&format!("wf-{w}"), definition()).unwrap();
    }
    let tasks: Vec<Task> = (0..TASKS)
        .map(|i| {
            let mut t = Task::new(
                format!("task-{i:05}"),
                format!("ISSUE-{i}"),
                format!("wf-{}", i % WORKFLOWS),
                (i % 97) as i64,
            );
            t.context
                .insert("targetUrl".into(), json!("https://example.com"));
            t
        })
        .collect();
    let ids = tasks.iter().map(|t| t.id.clone()).collect();
    nav.load_tasks(tasks, false).unwrap();
    (nav, ids)
}

fn advance(c: &mut Criterion) {
    let mut group = c.benchmark_group("advance");
    group.throughput(Throughput::Elements((TASKS * SCRIPT.len()) as u64));
    group.sample_size(10);
    group.bench_function("10k_tasks_10_workflows_to_completion", |b| {
        b.iter_batched(
            loaded,
            |(mut nav, ids)| {
                for result in SCRIPT {
                    for id in &ids {
                        black_box(nav.advance(id, result, None).unwrap());
                    }
                }
                debug_assert!(nav.tree().iter().all(|t| t.status == TaskStatus::Completed));
                nav
            },
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

fn next(c: &mut Criterion) {
    let (nav, _) = loaded();
    let mut group = c.benchmark_group("next");
    for n in [1usize, 10, 100] {
        group.bench_with_input(BenchmarkId::new("10k_pending", n), &n, |b, &n| {
            b.iter(|| black_box(nav.next_tasks(n)).len())
        });
    }
    group.finish();
}

criterion_group!(benches, advance, next);
criterion_main!(benches);
