//! The Butler's prompts, loaded through navigator-core's template system: `butler` (persona,
//! constraints, intents, agent and tool catalogs), `butler_synthesis` (combining sub-agent
//! results) and `specialist` (the generic LLM agent). Embedded defaults; a directory added
//! with [`TemplateSet::with_dir`] overrides any of them without a rebuild.
//!
//! `butler.md` is split at its `<!-- dynamic` marker line: the part above is the same for every
//! call of a configured Butler and goes out as a cached [`SystemBlock`]; the part below (user
//! name, date) goes out uncached, so a new day or user does not invalidate the cache.

use super::Result;
use navigator_core::{SystemBlock, TemplateSet, Vars};

/// The Butler's prompt template, as shipped.
pub const BUTLER_TEMPLATE: &str = include_str!("templates/butler.md");
/// The template that combines sub-agent results into one answer.
pub const SYNTHESIS_TEMPLATE: &str = include_str!("templates/butler_synthesis.md");
/// The generic specialist agent's template.
pub const SPECIALIST_TEMPLATE: &str = include_str!("templates/specialist.md");
/// The prompt of a specialist that works through tools ([`ToolAgent`](crate::ToolAgent)).
pub const TOOL_SPECIALIST_TEMPLATE: &str = include_str!("templates/tool_specialist.md");

const DYNAMIC_MARKER: &str = "<!-- dynamic";

/// core's templates plus the Butler's embedded defaults.
///
/// ```
/// let set = navigator_butler::default_templates();
/// assert!(set.get("butler")?.variables().contains("tool_catalog"));
/// # Ok::<(), navigator_core::Error>(())
/// ```
pub fn default_templates() -> TemplateSet {
    TemplateSet::new()
        .with_embedded("butler", BUTLER_TEMPLATE)
        .with_embedded("butler_synthesis", SYNTHESIS_TEMPLATE)
        .with_embedded("specialist", SPECIALIST_TEMPLATE)
        .with_embedded("tool_specialist", TOOL_SPECIALIST_TEMPLATE)
}

/// The variables every specialist template takes: its name and role, the person's name and
/// today's date.
pub(crate) fn specialist_vars(
    name: &str,
    role: &str,
    user: &str,
    today: chrono::NaiveDate,
) -> Vars {
    Vars::new()
        .set("agent_name", name)
        .set("role", role)
        .set("user_name", user)
        .with_current_date(today)
}

/// Renders `butler` and splits it into a cached static block and a dynamic block.
pub(crate) fn butler_system(templates: &TemplateSet, vars: &Vars) -> Result<Vec<SystemBlock>> {
    split_template(templates, "butler", vars)
}

/// Renders the template `name` and splits it at its `<!-- dynamic` line into a cached static
/// block and an uncached dynamic one.
pub(crate) fn split_template(
    templates: &TemplateSet,
    name: &str,
    vars: &Vars,
) -> Result<Vec<SystemBlock>> {
    let text = templates.render(name, vars)?;
    let (fixed, dynamic) = match text.find(DYNAMIC_MARKER) {
        Some(at) => {
            let rest = &text[at..];
            let body = rest.find('\n').map_or("", |nl| &rest[nl + 1..]);
            (text[..at].trim_end(), body.trim())
        }
        None => (text.trim_end(), ""),
    };
    let mut blocks = vec![SystemBlock::cached(fixed)];
    if !dynamic.is_empty() {
        blocks.push(SystemBlock::dynamic(dynamic));
    }
    Ok(blocks)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars() -> Vars {
        Vars::new()
            .set("user_name", "Ada")
            .set("agent_catalog", "- navigator: searches")
            .set("tool_catalog", "- calendar.create (write): creates")
            .with_current_date(chrono::NaiveDate::from_ymd_opt(2026, 11, 21).unwrap())
    }

    #[test]
    fn template_loads_with_persona_intents_and_variables() {
        let t = default_templates().get("butler").unwrap();
        let vars = t.variables();
        for v in ["user_name", "current_date", "tool_catalog", "agent_catalog"] {
            assert!(vars.contains(v), "{v}");
        }
        for intent in super::super::Intent::ALL {
            assert!(BUTLER_TEMPLATE.contains(intent.as_str()), "{intent}");
        }
    }

    #[test]
    fn static_part_is_cached_and_session_part_is_not() {
        let blocks = butler_system(&default_templates(), &vars()).unwrap();
        assert_eq!(blocks.len(), 2);
        assert!(blocks[0].cache && !blocks[1].cache);
        assert!(blocks[0].text.contains("calendar.create (write)"));
        assert!(!blocks[0].text.contains("Ada") && !blocks[0].text.contains("2026"));
        assert_eq!(
            blocks[1].text,
            "## Session\nYou are serving Ada. Today is Saturday, 2026-11-21."
        );
    }

    #[test]
    fn a_missing_variable_is_an_error_naming_it() {
        let err =
            butler_system(&default_templates(), &Vars::new().set("user_name", "x")).unwrap_err();
        assert!(err.to_string().contains("template `butler`"), "{err}");
    }

    #[test]
    fn a_directory_overrides_the_embedded_template() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("butler.md"), "Static {{user_name}}").unwrap();
        let set = default_templates().with_dir(dir.path());
        let blocks = butler_system(&set, &vars()).unwrap();
        assert_eq!(blocks, [SystemBlock::cached("Static Ada")]);
    }
}
