//! LLM query understanding: the Navigator prompt (`templates/navigator.md`) plus navigator-core's
//! structured-output helper turn a natural query into an [`UnderstoodQuery`], validated before
//! it is used (non-empty query, a non-inverted date range, a non-empty scope).

use super::understand::UnderstoodQuery;
use super::NAVIGATOR_TEMPLATE;
use crate::Result;
use chrono::{DateTime, Utc};
use navigator_core::{ChatRequest, Extractor, Llm, SystemBlock, Template, Vars};

/// Answers are short JSON objects.
const MAX_TOKENS: u32 = 300;

/// Asks `llm` what `text` means, "today" being `now`.
pub(crate) async fn understand(
    llm: &dyn Llm,
    text: &str,
    now: DateTime<Utc>,
) -> Result<UnderstoodQuery> {
    let template = Template::parse("navigator", NAVIGATOR_TEMPLATE)?;
    let system = template.render(&Vars::new().set("today", now.date_naive().to_string()))?;
    let request = ChatRequest::new(text)
        .with_system(SystemBlock::cached(system))
        .with_max_tokens(MAX_TOKENS);
    let extracted = Extractor::<UnderstoodQuery>::new()
        .validate(check)
        .extract(llm, request)
        .await?;
    Ok(extracted.value)
}

/// The rules a schema cannot say; the message is quoted back to the model on a retry.
fn check(u: &UnderstoodQuery) -> std::result::Result<(), String> {
    if u.query.trim().is_empty() {
        return Err("`query` must not be empty".into());
    }
    if u.categories.as_ref().is_some_and(Vec::is_empty) {
        return Err("`categories` must be left out or name at least one category".into());
    }
    if let Some(r) = &u.date_range {
        r.validate().map_err(|e| e.to_string())?;
    }
    Ok(())
}
