//! The PARA search contract: the seven response scenarios of the design must parse and
//! round-trip; the documented bad inputs must be rejected with an error naming the field.

use navigator_core::{
    from_json, from_value, json_schema, Action, Category, Clarification, Error, Item, ItemType,
    NavigatorResponse, SearchMetadata, SearchMode, SearchRequest, SearchResult,
};
use serde_json::{json, Value};

const SCENARIOS: [&str; 7] = [
    "multi_category_results",
    "no_results",
    "semantic_search",
    "direct_navigate",
    "clarify",
    "archived_result",
    "scoped_search",
];

fn fixture(name: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/para/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn valid_result() -> Value {
    json!({"itemId": "task_1", "itemType": "task", "title": "Draft quarterly report",
           "category": "project", "relevanceScore": 0.88})
}

/// The error must name `field` (as the path of a parse error or the field of a validation).
fn assert_names_field(err: Error, field: &str) {
    let msg = err.to_string();
    assert!(
        msg.contains(field),
        "error should name `{field}`, got: {msg}"
    );
}

#[test]
fn every_scenario_parses_and_round_trips() {
    for name in SCENARIOS {
        let text = fixture(name);
        let parsed: NavigatorResponse = from_json(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let back = serde_json::to_value(&parsed).unwrap();
        let original: Value = serde_json::from_str(&text).unwrap();
        let reparsed: NavigatorResponse = from_value(back.clone()).unwrap();
        assert_eq!(parsed, reparsed, "{name}");
        // Field names survive exactly (camelCase), and so does the whole JSON.
        assert_eq!(keys(&original), keys(&back), "{name}");
        assert_eq!(numbers_as_f64(&original), numbers_as_f64(&back), "{name}");
        assert_eq!(parsed.action().as_str(), original["action"], "{name}");
    }
}

/// `v` with every number as an f64 (`145` and `145.0` are the same duration).
fn numbers_as_f64(v: &Value) -> Value {
    match v {
        Value::Number(n) => json!(n.as_f64().unwrap()),
        Value::Array(a) => Value::Array(a.iter().map(numbers_as_f64).collect()),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| (k.clone(), numbers_as_f64(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn keys(v: &Value) -> Vec<String> {
    let mut out = Vec::new();
    fn walk(v: &Value, prefix: &str, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => m.iter().for_each(|(k, v)| {
                let p = format!("{prefix}.{k}");
                out.push(p.clone());
                walk(v, &p, out);
            }),
            Value::Array(a) => a.iter().for_each(|v| walk(v, &format!("{prefix}[]"), out)),
            _ => {}
        }
    }
    walk(v, "", &mut out);
    out.sort();
    out.dedup();
    out
}

#[test]
fn scenarios_carry_what_their_action_needs() {
    let r: NavigatorResponse = from_json(&fixture("no_results")).unwrap();
    assert_eq!(r.action(), Action::NoResults);
    let NavigatorResponse::NoResults { suggestions, .. } = &r else {
        panic!("{r:?}")
    };
    assert!(suggestions.len() >= 3);
    assert!(r.hits().is_empty());

    let r: NavigatorResponse = from_json(&fixture("direct_navigate")).unwrap();
    let target = r.navigation_target().unwrap();
    assert_eq!(
        (target.item_id.as_str(), target.item_type),
        ("proj_phoenix", ItemType::Project)
    );

    let r: NavigatorResponse = from_json(&fixture("clarify")).unwrap();
    let scopes = r.clarification().unwrap().suggested_scopes.clone().unwrap();
    assert_eq!(scopes, [Category::Project, Category::Resource]);

    let r: NavigatorResponse = from_json(&fixture("archived_result")).unwrap();
    let hit = &r.hits()[0];
    assert!(hit.item_type.is_archived());
    assert_eq!(hit.category, Category::Archive);

    let r: NavigatorResponse = from_json(&fixture("scoped_search")).unwrap();
    assert_eq!(r.metadata().unwrap().categories_searched, [Category::Area]);

    let r: NavigatorResponse = from_json(&fixture("semantic_search")).unwrap();
    assert_eq!(r.hits()[0].title, "Jane Martinez");
}

#[test]
fn relevance_score_above_one_is_rejected() {
    let mut v = valid_result();
    v["relevanceScore"] = json!(1.5);
    assert_names_field(from_value::<SearchResult>(v).unwrap_err(), "relevanceScore");
    let mut v = valid_result();
    v["relevanceScore"] = json!(-0.1);
    assert_names_field(from_value::<SearchResult>(v).unwrap_err(), "relevanceScore");
    assert_names_field(
        SearchResult::new("a", ItemType::Task, "t", Category::Project, 1.5).unwrap_err(),
        "relevanceScore",
    );
}

#[test]
fn score_inside_a_response_is_reported_with_its_path() {
    let mut v: Value = serde_json::from_str(&fixture("multi_category_results")).unwrap();
    v["results"][1]["relevanceScore"] = json!(1.5);
    let err = from_value::<NavigatorResponse>(v).unwrap_err();
    assert_eq!(err.field(), Some("results[1].relevanceScore"), "{err}");
}

#[test]
fn missing_title_is_rejected() {
    let mut v = valid_result();
    v.as_object_mut().unwrap().remove("title");
    assert_names_field(from_value::<SearchResult>(v).unwrap_err(), "title");
}

#[test]
fn invalid_category_is_rejected() {
    let mut v = valid_result();
    v["category"] = json!("invalid");
    let err = from_value::<SearchResult>(v).unwrap_err();
    assert_eq!(err.field(), Some("category"), "{err}");
    assert_names_field(err, "invalid");
}

#[test]
fn limit_outside_one_to_fifty_is_rejected() {
    for bad in [0, 51] {
        let err = from_value::<SearchRequest>(json!({"query": "x", "limit": bad})).unwrap_err();
        assert_names_field(err, "limit");
        assert_names_field(
            SearchRequest::new("x")
                .unwrap()
                .limit(bad)
                .validate()
                .unwrap_err(),
            "limit",
        );
    }
    for good in [1, 50] {
        from_value::<SearchRequest>(json!({"query": "x", "limit": good})).unwrap();
    }
}

#[test]
fn empty_query_is_rejected() {
    for q in ["", "   "] {
        assert_names_field(
            from_value::<SearchRequest>(json!({ "query": q })).unwrap_err(),
            "query",
        );
        assert_names_field(SearchRequest::new(q).unwrap_err(), "query");
    }
    assert_names_field(from_value::<SearchRequest>(json!({})).unwrap_err(), "query");
    // Nothing to narrow either: archive or not is not a condition.
    assert_names_field(
        from_value::<SearchRequest>(json!({ "query": "", "includeArchived": false })).unwrap_err(),
        "query",
    );
}

#[test]
fn an_empty_query_with_categories_or_filters_is_a_listing() {
    let scoped: SearchRequest =
        from_value(json!({ "query": "", "categories": ["project"] })).unwrap();
    assert!(scoped.is_listing());
    let tagged: SearchRequest =
        from_value(json!({ "query": " ", "filters": { "tags": { "any": ["kitchen"] } } })).unwrap();
    assert!(tagged.is_listing() && tagged.validate().is_ok());
    let searched: SearchRequest = from_value(json!({ "query": "kitchen" })).unwrap();
    assert!(!searched.is_listing());
}

#[test]
fn malformed_timestamp_is_rejected() {
    let mut v = valid_result();
    v["metadata"] = json!({"createdAt": "yesterday"});
    let err = from_value::<SearchResult>(v).unwrap_err();
    assert_eq!(err.field(), Some("metadata.createdAt"), "{err}");

    let err = from_value::<SearchRequest>(
        json!({"query": "x", "filters": {"dateRange": {"start": "2026-13-01T00:00:00Z"}}}),
    )
    .unwrap_err();
    assert_names_field(err, "filters.dateRange.start");
}

#[test]
fn a_date_range_takes_plain_dates_as_whole_days() {
    let r: SearchRequest = from_value(json!({"query": "x", "filters": {"dateRange":
        {"start": "2026-01-01", "end": "2026-01-31"}}}))
    .unwrap();
    let range = r.filters.unwrap().date_range.unwrap();
    let at = |s: &str| chrono::DateTime::parse_from_rfc3339(s).unwrap().to_utc();
    assert_eq!(range.start, Some(at("2026-01-01T00:00:00Z")));
    // The end date is inclusive: what changed during the 31st is inside.
    assert!(range.contains(at("2026-01-31T22:15:00Z")));
    assert!(!range.contains(at("2026-02-01T00:00:00Z")));
    // A single day as both ends is that day.
    let r: SearchRequest = from_value(json!({"query": "x", "filters": {"dateRange":
        {"start": "2026-01-31", "end": "2026-01-31"}}}))
    .unwrap();
    assert!(r
        .filters
        .unwrap()
        .date_range
        .unwrap()
        .contains(at("2026-01-31T12:00:00Z")));
    let err = from_value::<SearchRequest>(
        json!({"query": "x", "filters": {"dateRange": {"end": "31/01/2026"}}}),
    )
    .unwrap_err();
    assert!(err.to_string().contains("nor a date (2025-01-31)"), "{err}");
    assert_names_field(err, "filters.dateRange.end");
}

#[test]
fn request_defaults_and_rules() {
    let r: SearchRequest = from_json(r#"{"query":"quarterly report"}"#).unwrap();
    assert_eq!(r.search_mode, SearchMode::Hybrid);
    assert_eq!((r.limit, r.offset, r.include_archived), (10, 0, true));
    assert_eq!(r.categories_searched(), Category::ALL);

    let r = SearchRequest::new("x")
        .unwrap()
        .categories([Category::Archive, Category::Area])
        .include_archived(false);
    assert_eq!(r.categories_searched(), [Category::Area]);

    assert_names_field(
        from_value::<SearchRequest>(json!({"query": "x", "offset": -1})).unwrap_err(),
        "offset",
    );
    assert_names_field(
        from_value::<SearchRequest>(json!({"query": "x", "categories": []})).unwrap_err(),
        "categories",
    );
    assert_names_field(
        from_value::<SearchRequest>(json!({"query": "x", "searchMode": "fuzzy"})).unwrap_err(),
        "searchMode",
    );
    assert_names_field(
        from_value::<SearchRequest>(json!({"query": "x", "filters": {"dateRange":
            {"start": "2026-02-01T00:00:00Z", "end": "2026-01-01T00:00:00Z"}}}))
        .unwrap_err(),
        "dateRange",
    );
    assert_names_field(
        from_value::<SearchRequest>(json!({"query": "x", "limt": 5})).unwrap_err(),
        "limt",
    );
}

/// The field path of a rejected response.
fn rejected_at(v: Value) -> String {
    let err = from_value::<NavigatorResponse>(v).unwrap_err();
    err.field()
        .unwrap_or_else(|| panic!("no field in {err}"))
        .to_string()
}

#[test]
fn actions_need_their_fields() {
    assert_eq!(
        rejected_at(json!({"action": "navigate"})),
        "navigationTarget"
    );
    assert_eq!(
        rejected_at(json!({"action": "clarify"})),
        "clarificationQuestion"
    );
    assert_eq!(rejected_at(json!({"action": "search_results"})), "results");
    let mut v: Value = serde_json::from_str(&fixture("no_results")).unwrap();
    v["results"] = json!([valid_result()]);
    assert_eq!(rejected_at(v), "results");
    let mut v: Value = serde_json::from_str(&fixture("no_results")).unwrap();
    v.as_object_mut().unwrap().remove("suggestions");
    assert_eq!(rejected_at(v), "suggestions");
    assert_eq!(rejected_at(json!({"action": "teleport"})), "action");
    let err = from_value::<Clarification>(json!({"question": ""})).unwrap_err();
    assert_names_field(err, "question");
}

#[test]
fn actions_refuse_the_fields_of_other_actions() {
    // A clarify cannot carry results, a navigate no search facts, a search no question.
    let mut v: Value = serde_json::from_str(&fixture("clarify")).unwrap();
    v["results"] = json!([valid_result()]);
    assert_eq!(rejected_at(v), "results");
    let mut v: Value = serde_json::from_str(&fixture("clarify")).unwrap();
    v["suggestions"] = json!(["try again"]);
    assert_eq!(rejected_at(v), "suggestions");
    let mut v: Value = serde_json::from_str(&fixture("direct_navigate")).unwrap();
    v["searchMetadata"] = json!({"query": "q", "categoriesSearched": ["project"],
                                 "totalResults": 1, "embeddingUsed": false});
    assert_eq!(rejected_at(v), "searchMetadata");
    let mut v: Value = serde_json::from_str(&fixture("multi_category_results")).unwrap();
    v["navigationTarget"] = json!({"itemId": "p", "itemType": "project", "category": "project"});
    assert_eq!(rejected_at(v), "navigationTarget");
    let mut v: Value = serde_json::from_str(&fixture("semantic_search")).unwrap();
    v["clarificationQuestion"] = json!({"question": "which?"});
    assert_eq!(rejected_at(v), "clarificationQuestion");
    // Unknown fields are still refused by name.
    let mut v: Value = serde_json::from_str(&fixture("direct_navigate")).unwrap();
    v["navigationTargets"] = json!([]);
    assert!(from_value::<NavigatorResponse>(v)
        .unwrap_err()
        .to_string()
        .contains("navigationTargets"));
}

#[test]
fn the_response_schema_is_one_shape_per_action() {
    let schema = json_schema::<NavigatorResponse>();
    let variants = schema["oneOf"].as_array().expect("oneOf per action");
    let mut seen = Vec::new();
    for v in variants {
        let action = v["properties"]["action"]["const"]
            .as_str()
            .unwrap_or_else(|| panic!("no action const in {v}"));
        let props: Vec<&str> = v["properties"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let required: Vec<&str> = v["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_str().unwrap())
            .collect();
        let (must, never): (&[&str], &[&str]) = match action {
            "search_results" => (
                &["action", "results"],
                &["clarificationQuestion", "navigationTarget"],
            ),
            "no_results" => (
                &["action", "suggestions"],
                &["clarificationQuestion", "navigationTarget"],
            ),
            "clarify" => (
                &["action", "clarificationQuestion"],
                &["results", "navigationTarget", "suggestions"],
            ),
            "navigate" => (
                &["action", "navigationTarget"],
                &[
                    "results",
                    "searchMetadata",
                    "clarificationQuestion",
                    "suggestions",
                ],
            ),
            other => panic!("unexpected action {other}"),
        };
        for f in must {
            assert!(required.contains(f), "{action} should require {f}: {v}");
        }
        for f in never {
            assert!(!props.contains(f), "{action} should not have {f}: {v}");
        }
        assert_eq!(v["additionalProperties"], json!(false), "{action}");
        seen.push(action.to_string());
    }
    seen.sort();
    assert_eq!(
        seen,
        ["clarify", "navigate", "no_results", "search_results"]
    );
    // The empty results of no_results are an empty array in the schema too.
    assert!(schema.to_string().contains("\"maxItems\":0"), "{schema}");
}

#[test]
fn metadata_total_results_cannot_be_negative() {
    let v = json!({"query": "q", "categoriesSearched": ["project"], "totalResults": -1,
                   "embeddingUsed": false});
    assert_names_field(from_value::<SearchMetadata>(v).unwrap_err(), "totalResults");
}

#[test]
fn items_keep_the_archive_consistent() {
    let now = chrono::Utc::now();
    let item = Item::new("t", ItemType::ArchivedTask, "Old task", now).unwrap();
    assert_eq!(item.category, Category::Archive);
    assert!(item.archived_at.is_some());
    let err = Item::new("t", ItemType::Task, "x", now)
        .unwrap()
        .in_category(Category::Archive)
        .unwrap_err();
    assert_eq!(err.field(), Some("category"));
    let mut live = Item::new("p", ItemType::Project, "Phoenix", now).unwrap();
    live.archive(now).unwrap();
    assert_eq!(
        (live.item_type, live.category),
        (ItemType::ArchivedProject, Category::Archive)
    );
    assert!(Item::new("o", ItemType::Organization, "Acme", now)
        .unwrap()
        .archive(now)
        .is_err());
    assert_names_field(Item::new("", ItemType::Task, "x", now).unwrap_err(), "id");
}

#[test]
fn every_contract_type_exports_a_json_schema() {
    let schema = json_schema::<SearchResult>();
    let props = &schema["properties"];
    assert_eq!(props["relevanceScore"]["minimum"], json!(0.0));
    assert_eq!(props["relevanceScore"]["maximum"], json!(1.0));
    let required: Vec<&str> = schema["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    for f in ["itemId", "itemType", "title", "category", "relevanceScore"] {
        assert!(required.contains(&f), "{f} should be required");
    }
    assert!(!required.contains(&"snippet"));

    let schema = json_schema::<SearchRequest>();
    assert_eq!(schema["properties"]["limit"]["maximum"], json!(50));
    assert_eq!(schema["required"], json!(["query"]));

    let schema = json_schema::<NavigatorResponse>();
    let text = schema.to_string();
    for token in [
        "search_results",
        "no_results",
        "clarify",
        "navigate",
        "navigationTarget",
    ] {
        assert!(
            text.contains(token),
            "NavigatorResponse schema lacks {token}"
        );
    }
    for schema in [
        json_schema::<Category>(),
        json_schema::<ItemType>(),
        json_schema::<SearchMetadata>(),
        json_schema::<Clarification>(),
        json_schema::<SearchMode>(),
        json_schema::<Item>(),
    ] {
        assert!(schema.is_object() && schema != Value::Null);
    }
    assert!(json_schema::<ItemType>()
        .to_string()
        .contains("archived_contact"));
}
