//! Regression tests for values a hostile or careless caller sends: each once crashed an index
//! or was silently mishandled, and must now be a typed error naming the field.

use chrono::{DateTime, TimeZone, Utc};
use navigator_core::{
    from_json, DateRange, Error, Item, ItemType, SearchFilters, SearchRequest, MAX_RESULT_WINDOW,
    MAX_TERM_BYTES, SUPPORTED_YEARS,
};

fn year(y: i32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(y, 6, 1, 0, 0, 0).unwrap()
}

fn field(e: Error) -> String {
    match e {
        Error::InvalidField { field, .. } => field,
        Error::Parse { path, .. } => path,
        other => panic!("expected a field error, got {other:?}"),
    }
}

#[test]
fn far_future_and_far_past_dates_are_rejected_on_items() {
    for y in [9999, 1, 0, 262_142, -5] {
        let err = Item::new("t", ItemType::Task, "Dated", year(y)).unwrap_err();
        assert_eq!(field(err), "createdAt", "year {y}");
    }
    let mut item = Item::new("t", ItemType::Task, "Dated", year(2025)).unwrap();
    item.updated_at = year(9999);
    assert_eq!(field(item.validate().unwrap_err()), "updatedAt");

    // Parsing rejects them too, with the path of the field.
    let json = r#"{"id":"t","itemType":"task","category":"project","title":"x",
        "createdAt":"9999-12-31T23:59:59Z","updatedAt":"9999-12-31T23:59:59Z"}"#;
    let err = from_json::<Item>(json).unwrap_err();
    assert_eq!(field(err), "createdAt");
    let json = r#"{"id":"t","itemType":"archived_task","category":"archive","title":"x",
        "createdAt":"2020-01-01T00:00:00Z","updatedAt":"2020-01-01T00:00:00Z",
        "archivedAt":"0001-01-01T00:00:00Z"}"#;
    assert_eq!(field(from_json::<Item>(json).unwrap_err()), "archivedAt");

    // The ends of the supported range are accepted.
    for y in [*SUPPORTED_YEARS.start(), *SUPPORTED_YEARS.end()] {
        Item::new("t", ItemType::Task, "Dated", year(y)).unwrap();
    }
}

#[test]
fn far_future_and_far_past_dates_are_rejected_in_date_range_filters() {
    for (start, end, at) in [
        (Some(year(1)), None, "filters.dateRange.start"),
        (None, Some(year(9999)), "filters.dateRange.end"),
    ] {
        let req = SearchRequest::new("q").unwrap().filters(SearchFilters {
            date_range: Some(DateRange { start, end }),
            ..SearchFilters::default()
        });
        assert_eq!(field(req.validate().unwrap_err()), at);
    }
    let json = r#"{"query":"q","filters":{"dateRange":{"end":"9999-01-01T00:00:00Z"}}}"#;
    let err = from_json::<SearchRequest>(json).unwrap_err();
    assert!(field(err).starts_with("filters.dateRange"));
}

#[test]
fn offset_near_u32_max_is_rejected_before_any_search() {
    for offset in [u32::MAX, u32::MAX - 10, MAX_RESULT_WINDOW] {
        let req = SearchRequest::new("q").unwrap().offset(offset);
        assert_eq!(field(req.validate().unwrap_err()), "offset", "{offset}");
    }
    let deepest = SearchRequest::new("q")
        .unwrap()
        .limit(50)
        .offset(MAX_RESULT_WINDOW - 50);
    deepest.validate().unwrap();
    let json = format!(r#"{{"query":"q","offset":{}}}"#, u32::MAX);
    assert_eq!(
        field(from_json::<SearchRequest>(&json).unwrap_err()),
        "offset"
    );
}

#[test]
fn long_status_is_rejected_instead_of_silently_unfilterable() {
    let long = "s".repeat(MAX_TERM_BYTES + 1);
    let item = Item::new("t", ItemType::Task, "x", year(2025))
        .unwrap()
        .with_status(long.clone());
    let err = item.validate().unwrap_err();
    assert!(err.to_string().contains("1025 bytes"), "{err}");
    assert_eq!(field(err), "status");
    let item = Item::new("t", ItemType::Task, "x", year(2025))
        .unwrap()
        .with_parent(long.clone());
    assert_eq!(field(item.validate().unwrap_err()), "parentId");

    let req = SearchRequest::new("q").unwrap().filters(SearchFilters {
        status: Some(long),
        ..SearchFilters::default()
    });
    assert_eq!(field(req.validate().unwrap_err()), "filters.status");
    // At the limit is fine.
    Item::new("t", ItemType::Task, "x", year(2025))
        .unwrap()
        .with_status("s".repeat(MAX_TERM_BYTES))
        .validate()
        .unwrap();
}
