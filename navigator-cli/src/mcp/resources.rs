//! Resources and prompts.
//!
//! - `navigator://note/{id}`: a note as written (markdown), or a folder's / row's indexed text.
//!   Listed by category (the four category listings first, then every item in PARA order, each
//!   described by its category), a page of [`PAGE`] at a time.
//! - `navigator://category/{category}`: a category's items (JSON: id, title, uri, updatedAt),
//!   newest first.
//! - `navigator://flight-plan/{n}`: the Flight Plans `build_context` and `replay_flight_plan`
//!   made in this session (YAML).
//! - The prompt `navigator`: the Navigator agent's template (persona, search strategy, ranking,
//!   archive handling), dated today, with the person's request after it when given.

use super::errors::ToolError;
use super::uri;
use super::McpServer;
use navigator_core::{Category, Item, ItemScan, ItemStore, Template, Vars};
use navigator_search::NAVIGATOR_TEMPLATE;
use rmcp::model::{
    GetPromptRequestParams, GetPromptResult, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, PaginatedRequestParams, Prompt, PromptArgument, PromptMessage,
    ReadResourceResult, Resource, ResourceContents, ResourceTemplate, Role,
};
use rmcp::ErrorData;
use serde_json::json;

/// Resources per `resources/list` page.
const PAGE: usize = 500;

const MARKDOWN: &str = "text/markdown";

/// The resource templates.
pub(crate) fn templates() -> ListResourceTemplatesResult {
    ListResourceTemplatesResult::with_all_items(vec![
        ResourceTemplate::new(format!("{}{{id}}", uri::NOTE), "note")
            .with_title("A note of the knowledge base")
            .with_description(
                "A note by id (its vault-relative path, as search returns it in itemId): the \
                 markdown as written, front matter included.",
            )
            .with_mime_type(MARKDOWN),
        ResourceTemplate::new(format!("{}{{category}}", uri::CATEGORY), "category")
            .with_title("A PARA category's notes")
            .with_description(
                "project, area, resource or archive: its items (id, title, uri, updatedAt), \
                 newest first.",
            )
            .with_mime_type("application/json"),
        ResourceTemplate::new(format!("{}{{n}}", uri::FLIGHT_PLAN), "flight-plan")
            .with_title("A Flight Plan of this session")
            .with_description("The n-th Flight Plan build_context made in this session (YAML).")
            .with_mime_type("application/yaml"),
    ])
}

fn resource_error(e: ToolError) -> ErrorData {
    match e.code {
        "not_found" => ErrorData::resource_not_found(e.message, None),
        "bad_request" | "outside_vault" => ErrorData::invalid_params(e.message, None),
        _ => ErrorData::internal_error(format!("{}: {}", e.code, e.message), None),
    }
}

/// One page of resources: categories, Flight Plans, then items in PARA order.
pub(crate) async fn list(
    server: &McpServer,
    request: Option<PaginatedRequestParams>,
) -> Result<ListResourcesResult, ErrorData> {
    let offset = match request.and_then(|r| r.cursor) {
        None => 0,
        Some(c) => c.parse::<usize>().map_err(|_| {
            ErrorData::invalid_params(format!("cursor `{c}` is not one of ours"), None)
        })?,
    };
    let mut all: Vec<Resource> = Category::ALL
        .into_iter()
        .map(|c| {
            Resource::new(format!("{}{}", uri::CATEGORY, c.as_str()), c.as_str())
                .with_title(match c {
                    Category::Project => "Projects (category)",
                    Category::Area => "Areas (category)",
                    Category::Resource => "Resources (category)",
                    Category::Archive => "Archives (category)",
                })
                .with_mime_type("application/json")
        })
        .collect();
    {
        let plans = server.plans.lock().unwrap_or_else(|p| p.into_inner());
        for (i, p) in plans.iter().enumerate() {
            all.push(
                Resource::new(
                    format!("{}{}", uri::FLIGHT_PLAN, i + 1),
                    format!("flight-plan-{}", i + 1),
                )
                .with_title(format!("Flight Plan: {}", p.goal))
                .with_mime_type("application/yaml"),
            );
        }
    }
    let mut items = scan(server, None).await?;
    items.sort_by(|a, b| a.category.cmp(&b.category).then(a.id.cmp(&b.id)));
    all.extend(items.iter().map(|i| {
        Resource::new(uri::note(&i.id), i.id.clone())
            .with_title(i.title.clone())
            .with_description(format!("{} · {}", i.category.label(), i.item_type))
            .with_mime_type(MARKDOWN)
    }));
    let end = offset.saturating_add(PAGE).min(all.len());
    let page = all
        .get(offset.min(all.len())..end)
        .unwrap_or_default()
        .to_vec();
    let mut result = ListResourcesResult::with_all_items(page);
    if end < all.len() {
        result.next_cursor = Some(end.to_string());
    }
    Ok(result)
}

async fn scan(server: &McpServer, category: Option<Category>) -> Result<Vec<Item>, ErrorData> {
    let scan = ItemScan {
        categories: category.map(|c| vec![c]),
        ..ItemScan::default()
    };
    server
        .engine
        .store()
        .scan_items(&scan)
        .await
        .map_err(|e| resource_error(e.into()))
}

/// Reads one resource.
pub(crate) async fn read(
    server: &McpServer,
    uri_text: &str,
) -> Result<ReadResourceResult, ErrorData> {
    if let Some(id) = uri::note_id(uri_text) {
        let note = server.note(&id).await.map_err(resource_error)?;
        return Ok(ReadResourceResult::new(vec![ResourceContents::text(
            note.markdown,
            uri_text,
        )
        .with_mime_type(MARKDOWN)]));
    }
    if let Some(name) = uri_text.strip_prefix(uri::CATEGORY) {
        let category = Category::parse(&name.to_lowercase()).ok_or_else(|| {
            ErrorData::resource_not_found(
                format!("`{name}` is not a category (project, area, resource, archive)"),
                None,
            )
        })?;
        let mut items = scan(server, Some(category)).await?;
        items.sort_by(|a, b| b.updated_at.cmp(&a.updated_at).then(a.id.cmp(&b.id)));
        let listing: Vec<_> = items
            .iter()
            .map(|i| json!({"id": i.id, "title": i.title, "uri": uri::note(&i.id), "updatedAt": i.updated_at}))
            .collect();
        let text = serde_json::to_string_pretty(&listing)
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        return Ok(ReadResourceResult::new(vec![ResourceContents::text(
            text, uri_text,
        )
        .with_mime_type("application/json")]));
    }
    if let Some(n) = uri_text.strip_prefix(uri::FLIGHT_PLAN) {
        let yaml = server.plan_yaml(n).map_err(resource_error)?;
        return Ok(ReadResourceResult::new(vec![ResourceContents::text(
            yaml, uri_text,
        )
        .with_mime_type("application/yaml")]));
    }
    Err(ErrorData::resource_not_found(
        format!("`{uri_text}` is not a navigator resource (navigator://note/…, navigator://category/…, navigator://flight-plan/…)"),
        None,
    ))
}

/// The prompts.
pub(crate) fn prompts() -> ListPromptsResult {
    ListPromptsResult::with_all_items(vec![Prompt::new(
        "navigator",
        Some(
            "The Navigator search agent: how to search this PARA knowledge base (categories, \
             hybrid/semantic/keyword, time phrases, ranking, archive handling), dated today.",
        ),
        Some(vec![PromptArgument::new("request")
            .with_description("The person's request, appended after the instructions.")
            .with_required(false)]),
    )])
}

/// Renders a prompt.
pub(crate) fn prompt(request: &GetPromptRequestParams) -> Result<GetPromptResult, ErrorData> {
    if request.name != "navigator" {
        return Err(ErrorData::invalid_params(
            format!("no prompt `{}` (there is `navigator`)", request.name),
            None,
        ));
    }
    let template = Template::parse("navigator", NAVIGATOR_TEMPLATE)
        .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
    let text = template
        .render(&Vars::new().set("today", chrono::Utc::now().date_naive().to_string()))
        .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
    let mut messages = vec![PromptMessage::new_text(Role::User, text)];
    let args = request.arguments.as_ref();
    if let Some(value) = args.and_then(|a| a.get("request")) {
        let Some(text) = value.as_str() else {
            return Err(ErrorData::invalid_params(
                "argument `request` must be a string",
                None,
            ));
        };
        if !text.trim().is_empty() {
            messages.push(PromptMessage::new_text(Role::User, text));
        }
    }
    if let Some(unknown) = args.and_then(|a| a.keys().find(|k| k.as_str() != "request")) {
        return Err(ErrorData::invalid_params(
            format!("prompt `navigator` has no argument `{unknown}` (it takes `request`)"),
            None,
        ));
    }
    Ok(
        GetPromptResult::new(messages)
            .with_description("The Navigator search agent's instructions"),
    )
}
