//! `navigator search [query]`: without a query, the notes matching the filters, newest first.

use crate::exit::{Failure, Outcome, NOTHING_FOUND, USAGE};
use crate::home::{runtime, Home};
use navigator_core::{
    Category, DateRange, SearchFilters, SearchMode, SearchRequest, SearchService, TagFilter,
    LIMIT_RANGE,
};
use std::process::ExitCode;

/// Search the index, or without a query list the notes the filters match, newest first. Exit
/// code 1 when nothing matched.
#[derive(Debug, clap::Args)]
#[command(group = clap::ArgGroup::new("what")
    .required(true)
    .multiple(true)
    .args(["query", "categories", "status", "parent", "since", "until", "tags", "any_tags"]))]
pub struct Args {
    /// What to look for. Leave it out (with --category, --tag, --status, --since, ...) to list
    /// the matching notes newest first.
    pub query: Option<String>,
    /// hybrid (meaning and keywords), semantic (meaning only) or keyword (BM25 only).
    #[arg(long, short, default_value = "hybrid", value_parser = parse_mode)]
    pub mode: SearchMode,
    /// Only this category (project, area, resource, archive); repeatable.
    #[arg(long = "category", short = 'c', value_parser = crate::home::parse_category)]
    pub categories: Vec<Category>,
    /// Only items with this status.
    #[arg(long)]
    pub status: Option<String>,
    /// Only children of this item (a folder's id ends in `/`: `Projects/Phoenix/`).
    #[arg(long)]
    pub parent: Option<String>,
    /// Only items updated on or after this date (2024-03-01, RFC 3339, ...).
    #[arg(long, value_parser = parse_date)]
    pub since: Option<chrono::DateTime<chrono::Utc>>,
    /// Only items updated on or before this date (a date without a time: to the end of that
    /// day).
    #[arg(long, value_parser = parse_until)]
    pub until: Option<chrono::DateTime<chrono::Utc>>,
    /// Only items with this tag (case-insensitive, `#` optional); repeatable: every one.
    #[arg(long = "tag")]
    pub tags: Vec<String>,
    /// Only items with at least one of these tags; repeatable.
    #[arg(long = "any-tag")]
    pub any_tags: Vec<String>,
    /// Include archived items when no category is given (`--category archive` includes them
    /// by itself).
    #[arg(long)]
    pub archived: bool,
    /// How many results (1-50).
    #[arg(long, short = 'n', default_value_t = 10, allow_negative_numbers = true,
          value_parser = parse_limit)]
    pub limit: u32,
    /// Skip this many results (paging).
    #[arg(long, default_value_t = 0, allow_negative_numbers = true, value_parser = parse_offset)]
    pub offset: u32,
    /// Print the results as JSON (the SearchResult contract, camelCase).
    #[arg(long)]
    pub json: bool,
}

fn parse_mode(s: &str) -> Result<SearchMode, String> {
    serde_json::from_value(serde_json::Value::String(s.to_lowercase()))
        .map_err(|_| format!("`{s}` is not a mode (hybrid, semantic, keyword)"))
}

/// `--limit`: 1 to 50, the page sizes a search request accepts.
fn parse_limit(s: &str) -> Result<u32, String> {
    let (lo, hi) = (LIMIT_RANGE.start(), LIMIT_RANGE.end());
    match s.trim().parse::<i64>() {
        Ok(n) => u32::try_from(n)
            .ok()
            .filter(|n| LIMIT_RANGE.contains(n))
            .ok_or_else(|| format!("{n} is not a page size: give {lo} to {hi}")),
        Err(_) => Err(format!("`{s}` is not a whole number ({lo} to {hi})")),
    }
}

/// `--offset`: a whole number of results to skip, at least 0.
fn parse_offset(s: &str) -> Result<u32, String> {
    let t = s.trim();
    let digits = t.strip_prefix('-').unwrap_or(t);
    let too_large = || format!("{t} is too large (at most {})", u32::MAX);
    match t.parse::<i64>() {
        Ok(n) if n >= 0 => u32::try_from(n).map_err(|_| too_large()),
        Ok(n) => Err(format!(
            "{n}: the offset is a count of results to skip, at least 0"
        )),
        // Digits past what fits are a number too large, not a word.
        Err(_) if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => {
            match t.starts_with('-') {
                true => Err(format!(
                    "{t}: the offset is a count of results to skip, at least 0"
                )),
                false => Err(too_large()),
            }
        }
        Err(_) => Err(format!("`{s}` is not a whole number")),
    }
}

fn parse_date(s: &str) -> Result<chrono::DateTime<chrono::Utc>, String> {
    navigator_search::ingest::front_matter::parse_date_str(s)
        .ok_or_else(|| format!("`{s}` is not a date (2024-03-01, 2024-03-01T10:00:00Z, ...)"))
}

/// `--until`: a date without a time of day (`2024-03-31`) is its last instant, so the bound
/// keeps what changed during that day.
fn parse_until(s: &str) -> Result<chrono::DateTime<chrono::Utc>, String> {
    let at = parse_date(s)?;
    let day_only = !s.contains(':') && at.time() == chrono::NaiveTime::MIN;
    Ok(if day_only {
        at + chrono::Duration::days(1) - chrono::Duration::nanoseconds(1)
    } else {
        at
    })
}

/// What to try when `request`'s page came back empty: a page past the last result says
/// so; a search that matched nothing hears of the archive it left out, if that holds
/// matches, and of the query respelled after the titles' words.
async fn no_results_hints(
    engine: &navigator_search::SearchEngine,
    request: &SearchRequest,
    total: u64,
) -> Result<Vec<String>, Failure> {
    let mut hints = Vec::new();
    if total > 0 {
        hints.push(format!(
            "the page starts past the last result: {total} match; --offset {} or less shows some",
            total - 1
        ));
        return Ok(hints);
    }
    if !request.include_archived {
        let archived = engine
            .search(&request.clone().include_archived(true).limit(1).offset(0))
            .await
            .map_err(Failure::from)?;
        // Past the archive's own last result, adding it would show nothing either.
        if archived.total_results > u64::from(request.offset) {
            hints.push(format!(
                "{} archived item(s) match: add --archived to search the archive too",
                archived.total_results
            ));
        }
    }
    if request.is_listing() {
        return Ok(hints);
    }
    let words = engine.title_words().await.map_err(Failure::from)?;
    if let Some(fixed) =
        navigator_search::did_you_mean(&request.query, words.iter().map(String::as_str))
    {
        hints.push(format!("did you mean \"{fixed}\"?"));
    }
    Ok(hints)
}

/// Runs the command.
pub fn run(args: Args) -> Outcome {
    let tags = (!args.tags.is_empty() || !args.any_tags.is_empty()).then(|| TagFilter {
        any: args.any_tags.clone(),
        all: args.tags.clone(),
    });
    // The filters grow with the contract: fields not set here keep their default.
    #[allow(clippy::needless_update)]
    let filters = SearchFilters {
        tags,
        date_range: (args.since.is_some() || args.until.is_some()).then_some(DateRange {
            start: args.since,
            end: args.until,
        }),
        status: args.status.clone(),
        parent_id: args.parent.clone(),
        ..SearchFilters::default()
    };
    let categories = (!args.categories.is_empty()).then(|| args.categories.clone());
    let request = match args.query.as_deref() {
        Some(query) => SearchRequest::new(query).map(|r| {
            let r = match &categories {
                Some(c) => r.categories(c.iter().copied()),
                None => r,
            };
            if filters.is_empty() {
                r
            } else {
                r.filters(filters.clone())
            }
        }),
        None => SearchRequest::list(categories, filters).map_err(|_| {
            navigator_core::Error::invalid(
                "query",
                "give a query, or filters (--category, --tag, --any-tag, --status, --parent, \
                 --since, --until) to list the matching notes",
            )
        }),
    }
    .map_err(|e| Failure::new(USAGE, e))?
    .mode(args.mode)
    .limit(args.limit)
    .offset(args.offset)
    // Naming the archive as a category asks for archived items: no extra flag needed.
    .include_archived(args.archived || args.categories.contains(&Category::Archive));
    request.validate().map_err(|e| Failure::new(USAGE, e))?;
    let home = Home::resolve()?;
    home.require_index()?;
    let (page, hints) = runtime()?.block_on(async {
        let engine = home.engine().await?;
        let page = engine.search(&request).await.map_err(Failure::from)?;
        let hints = if page.results.is_empty() {
            no_results_hints(&engine, &request, page.total_results).await?
        } else {
            Vec::new()
        };
        Ok::<_, Failure>((page, hints))
    })?;

    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&page.results).unwrap_or_default()
        );
    } else {
        for r in &page.results {
            // A listing has no relevance to show: its order is the updated date.
            let lead = match (request.is_listing(), r.metadata.as_ref()) {
                (true, Some(m)) => m
                    .updated_at
                    .map_or_else(String::new, |d| d.format("%Y-%m-%d").to_string()),
                _ => format!("{:.2}", r.relevance_score),
            };
            println!(
                "{lead}  [{}] {}  ({})",
                r.category.label(),
                r.title,
                r.item_id
            );
            if let Some(s) = &r.snippet {
                println!("      {}", s.replace('\n', " "));
            }
        }
        if page.results.is_empty() {
            eprintln!("no results");
        } else {
            let n = page.results.len();
            if args.offset == 0 {
                eprintln!("{n} of {} results", page.total_results);
            } else {
                let first = args.offset as usize + 1;
                eprintln!(
                    "results {first}-{} of {}",
                    first + n - 1,
                    page.total_results
                );
            }
        }
    }
    // On stderr, after "no results": a `--json` reader gets them too without them touching
    // stdout.
    for hint in &hints {
        eprintln!("note: {hint}");
    }
    // Folder ids end with `/`: `--parent "1 Projects/Kitchen"` names no folder (on stderr, so
    // a `--json` reader gets it too without it touching stdout).
    if let Some(p) = args
        .parent
        .as_deref()
        .filter(|p| page.results.is_empty() && !p.ends_with('/'))
    {
        eprintln!("note: folder ids end with `/`; for the folder: --parent '{p}/'");
    }
    Ok(if page.results.is_empty() {
        ExitCode::from(NOTHING_FOUND)
    } else {
        ExitCode::SUCCESS
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn until_a_date_keeps_the_whole_day() {
        let at = |s: &str| parse_date(s).unwrap();
        let end = parse_until("2024-03-31").unwrap();
        assert!(end > at("2024-03-31T23:59:59Z") && end < at("2024-04-01T00:00:00Z"));
        assert_eq!(
            parse_until("2024-03-31T10:00:00Z").unwrap(),
            at("2024-03-31T10:00:00Z")
        );
        assert_eq!(
            parse_date("2024-03-31").unwrap(),
            at("2024-03-31T00:00:00Z")
        );
        assert!(parse_until("soon").is_err());
    }

    #[test]
    fn an_offset_too_large_is_said_to_be_too_large_however_long() {
        assert_eq!(parse_offset("12"), Ok(12));
        for big in [
            "4294967296",
            "18446744073709551615",
            "99999999999999999999999",
        ] {
            let e = parse_offset(big).unwrap_err();
            assert!(e.contains("too large"), "{big}: {e}");
        }
        assert!(parse_offset("-3").unwrap_err().contains("at least 0"));
        assert!(parse_offset("-99999999999999999999999")
            .unwrap_err()
            .contains("at least 0"));
        assert!(parse_offset("ten")
            .unwrap_err()
            .contains("not a whole number"));
        assert!(parse_offset("-")
            .unwrap_err()
            .contains("not a whole number"));
    }
}
