//! Definition parsing and validation must reject bad input with an error, never a panic,
//! and whatever validates must lay out into an execution plan holding every node once.
//!
//! Run with `cargo +nightly fuzz run parse_definition` from `navigator-workflow/`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use navigator_workflow::{ExecutionPlan, Workflow, WorkflowDefinition};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let parsed = [WorkflowDefinition::from_json(text), WorkflowDefinition::from_yaml(text)];
    for definition in parsed.into_iter().flatten() {
        let nodes = definition.nodes.len();
        if let Ok(workflow) = Workflow::new("fuzz", definition) {
            let plan = ExecutionPlan::of(&workflow);
            assert_eq!(plan.levels.iter().map(Vec::len).sum::<usize>(), nodes);
        }
    }
});
