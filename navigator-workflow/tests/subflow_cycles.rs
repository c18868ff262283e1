//! A workflow that enters itself through subflows, directly or through other workflows,
//! would send a task down for ever; it is refused when loaded.

use navigator_workflow::{Error, Navigator, Workflow, WorkflowDefinition};

fn calling(subflow: &str) -> WorkflowDefinition {
    WorkflowDefinition::from_yaml(&format!(
        "nodes:\n  start: {{ type: start }}\n  inner: {{ type: subflow, workflow: {subflow} }}\n  end: {{ type: end, result: success }}\n  failed: {{ type: end, result: failure }}\nedges:\n  - {{ from: start, to: inner }}\n  - {{ from: inner, to: end, on: passed }}\n  - {{ from: inner, to: failed, on: failed }}\n"
    ))
    .unwrap()
}

#[test]
fn workflow_whose_subflow_is_itself_fails_validation() {
    let err = Workflow::new("loop", calling("loop")).unwrap_err();
    assert_eq!(
        err,
        Error::SubflowCycle {
            cycle: vec!["loop".into(), "loop".into()]
        }
    );
    assert_eq!(err.code(), "subflow_cycle");
    let mut nav = Navigator::new();
    assert!(nav.load_workflow("loop", calling("loop")).is_err());
    assert_eq!(nav.workflows().count(), 0, "nothing was loaded");
}

#[test]
fn workflow_whose_subflows_form_a_cycle_fails_validation() {
    let mut nav = Navigator::new();
    nav.load_workflow("a", calling("b")).unwrap();
    nav.load_workflow("b", calling("c")).unwrap();
    let err = nav.load_workflow("c", calling("a")).unwrap_err();
    assert_eq!(
        err,
        Error::SubflowCycle {
            cycle: vec!["c".into(), "a".into(), "b".into(), "c".into()]
        }
    );
    assert!(err.to_string().contains("c -> a -> b -> c"), "{err}");
    // Replacing `b` so that it no longer leads back is fine, and so is a diamond.
    nav.load_workflow("c", calling("d")).unwrap();
    nav.load_workflow("b", calling("d")).unwrap();
}
