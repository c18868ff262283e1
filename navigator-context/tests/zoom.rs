//! Zooming inside a file bigger than the budget: the goal's functions at full source inside
//! the file's outline, recorded in the Flight Plan (`focus`), replayed exactly, and caught as
//! drift when the file changes.

mod fixture;

use navigator_context::{render, replay, Error, FlightPlan, Level, Rule};
use std::fs;

use fixture::{explore, open};

/// A package whose `make.py` holds 80 functions (~12k tokens), one of them about slots.
fn big_repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    fs::create_dir_all(r.join("pkg")).unwrap();
    let mut make = String::from("import sys\n\n\n");
    for k in 0..80 {
        make.push_str(&format!(
            "def helper_{k}(value, options):\n    \"\"\"Transforms value number {k}.\"\"\"\n    total = value * {k} + len(options)\n    for item in options:\n        total += hash(item) % {m}\n    return total\n\n\n",
            m = k + 7
        ));
        if k == 41 {
            make.push_str("class Builder:\n    def __init__(self, cls):\n        self.cls = cls\n\n    def add_slots(self, names):\n        \"\"\"Creates the slotted class.\"\"\"\n        slots = tuple(names)\n        return type(self.cls.__name__, (self.cls,), {\"__slots__\": slots})\n\n\n");
        }
    }
    fs::write(r.join("pkg/make.py"), make).unwrap();
    fs::write(r.join("pkg/__init__.py"), "from .make import Builder\n").unwrap();
    fs::write(
        r.join("pkg/filters.py"),
        "def include(*what):\n    return lambda a: a in what\n",
    )
    .unwrap();
    dir
}

const GOAL: &str = "Fix slotted classes created by add_slots losing their name";

#[test]
fn a_file_over_the_budget_shows_the_goal_s_items_at_full_source() {
    let dir = big_repo();
    let map = open(dir.path());
    let whole = render(
        &map,
        &FlightPlan {
            rules: vec![Rule::new("pkg/make.py", Level::Full)],
            ..FlightPlan::new(GOAL, 100_000)
        },
    )
    .unwrap();
    assert!(whole.tokens > 3_000, "the fixture must exceed the budget");
    let out = explore(&map, GOAL, 3_000);
    assert!(out.tokens <= 3_000);
    let rule = out
        .plan
        .rules
        .iter()
        .find(|r| r.path == "pkg/make.py")
        .expect("the big file has a rule");
    assert!(rule.level < Level::Full, "{rule:?}");
    assert!(
        rule.focus.contains(&"Builder.add_slots".to_string()),
        "{rule:?}"
    );
    // The method's body is there, under its line range, inside the file's outline.
    assert!(out.context.contains("# lines "), "{}", out.context);
    assert!(out
        .context
        .contains("return type(self.cls.__name__, (self.cls,), {\"__slots__\": slots})"));
    assert!(out.context.contains("def helper_0(value, options)\n"));
    let rendered = render(&map, &out.plan).unwrap();
    let shown = rendered
        .shown
        .iter()
        .find(|s| s.path == "pkg/make.py")
        .unwrap();
    assert!(!shown.full_lines.is_empty() && shown.level == rule.level);
    // Listed first: the file the goal is about.
    assert_eq!(rendered.shown[0].path, "pkg/make.py");
}

#[test]
fn a_focused_plan_round_trips_replays_exactly_and_drifts_on_edit() {
    let dir = big_repo();
    let map = open(dir.path());
    let out = explore(&map, GOAL, 3_000);
    let yaml = out.plan.to_yaml(&[]);
    assert!(yaml.contains("focus:"), "{yaml}");
    let plan = FlightPlan::from_yaml(&yaml).unwrap();
    assert_eq!(plan, out.plan);
    let again = replay(&open(dir.path()), &plan, false).unwrap();
    assert_eq!(again.rendered.text, out.context);
    // An edit inside the focused method is drift, named; refit stays within the budget.
    let path = dir.path().join("pkg/make.py");
    let edited = fs::read_to_string(&path)
        .unwrap()
        .replace("slots = tuple(names)", "slots = tuple(sorted(names)) * 40");
    fs::write(&path, edited).unwrap();
    let map = open(dir.path());
    match replay(&map, &plan, false) {
        Err(Error::PlanDrift { changed, .. }) => assert_eq!(changed, ["pkg/make.py"]),
        other => panic!("expected drift, got {other:?}"),
    }
    let refit = replay(&map, &plan, true).unwrap();
    assert!(refit.rendered.tokens <= plan.token_budget);
}

#[test]
fn focus_names_that_resolve_to_nothing_fall_back_to_the_outline() {
    let dir = big_repo();
    let map = open(dir.path());
    let plan = |focus: Vec<String>| FlightPlan {
        rules: vec![Rule::focused("pkg/make.py", Level::TopLevel, focus)],
        ..FlightPlan::new(GOAL, 100_000)
    };
    let plain = render(&map, &plan(Vec::new())).unwrap();
    let unknown = render(&map, &plan(vec!["no_such_function".into()])).unwrap();
    assert_eq!(plain.text, unknown.text);
    assert!(unknown.shown[0].full_lines.is_empty());
    // Rust-style `::` and Python-style `.` name the same item.
    let dotted = render(&map, &plan(vec!["Builder.add_slots".into()])).unwrap();
    let colons = render(&map, &plan(vec!["Builder::add_slots".into()])).unwrap();
    assert_eq!(dotted.text, colons.text);
    assert!(dotted
        .text
        .contains("(level 2: top-level outline, 1 item at full source"));
}
