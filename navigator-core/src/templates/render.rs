//! Parsing and rendering one template.

use crate::{Error, Result};
use std::collections::{BTreeMap, BTreeSet};

/// Variable values for rendering.
///
/// ```
/// use navigator_core::Vars;
/// let vars = Vars::new().set("user_name", "Ada").with_current_date(
///     chrono::NaiveDate::from_ymd_opt(2025, 11, 21).unwrap());
/// assert_eq!(vars.get("current_date"), Some("2025-11-21"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Vars(BTreeMap<String, String>);

impl Vars {
    /// No variables.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets `name` to `value`.
    pub fn set(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.0.insert(name.into(), value.into());
        self
    }

    /// Sets `current_date` (`YYYY-MM-DD`) and `current_weekday` (`Friday`).
    pub fn with_current_date(self, date: chrono::NaiveDate) -> Self {
        self.set("current_date", date.format("%Y-%m-%d").to_string())
            .set("current_weekday", date.format("%A").to_string())
    }

    /// Sets `current_date` and `current_weekday` from the local clock.
    pub fn with_today(self) -> Self {
        self.with_current_date(chrono::Local::now().date_naive())
    }

    /// The value of `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Text(String),
    Var(String),
}

/// A parsed template: text and placeholders, checked for malformed `{{` at parse time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    name: String,
    pieces: Vec<Piece>,
}

impl Template {
    /// Parses `text` as the template `name`.
    ///
    /// ```
    /// use navigator_core::{Template, Vars};
    /// let t = Template::parse("greet", "Hello {{user_name}}, today is {{ current_date }}.")?;
    /// let vars = Vars::new().set("user_name", "Ada").set("current_date", "2025-11-21");
    /// assert_eq!(t.render(&vars)?, "Hello Ada, today is 2025-11-21.");
    /// let err = t.render(&Vars::new().set("user_name", "Ada")).unwrap_err();
    /// assert!(err.to_string().contains("current_date"));
    /// # Ok::<(), navigator_core::Error>(())
    /// ```
    pub fn parse(name: &str, text: &str) -> Result<Self> {
        let mut pieces = Vec::new();
        let mut rest = text;
        while let Some(open) = rest.find("{{") {
            if open > 0 {
                pieces.push(Piece::Text(rest[..open].to_string()));
            }
            let after = &rest[open + 2..];
            let line = line_of(text, text.len() - rest.len() + open);
            let close = after.find("}}").ok_or_else(|| {
                template_error(
                    name,
                    None,
                    format!("line {line}: `{{{{` is never closed by `}}}}`"),
                )
            })?;
            let var = after[..close].trim();
            if !is_identifier(var) {
                return Err(template_error(
                    name,
                    None,
                    format!(
                        "line {line}: `{{{{{}}}}}` is not a placeholder (names are letters, digits, `_`, `.`, starting with a letter or `_`)",
                        &after[..close]
                    ),
                ));
            }
            pieces.push(Piece::Var(var.to_string()));
            rest = &after[close + 2..];
        }
        if !rest.is_empty() {
            pieces.push(Piece::Text(rest.to_string()));
        }
        Ok(Self {
            name: name.to_string(),
            pieces,
        })
    }

    /// The template's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The variables it uses.
    pub fn variables(&self) -> BTreeSet<&str> {
        self.pieces
            .iter()
            .filter_map(|p| match p {
                Piece::Var(v) => Some(v.as_str()),
                Piece::Text(_) => None,
            })
            .collect()
    }

    /// Fills in `vars`; a variable the template uses but `vars` lacks is an
    /// [`Error::Template`] naming it.
    pub fn render(&self, vars: &Vars) -> Result<String> {
        let mut out = String::new();
        for piece in &self.pieces {
            match piece {
                Piece::Text(t) => out.push_str(t),
                Piece::Var(v) => out.push_str(vars.get(v).ok_or_else(|| {
                    template_error(&self.name, Some(v), format!("no value for variable `{v}`"))
                })?),
            }
        }
        Ok(out)
    }
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
}

fn line_of(text: &str, byte: usize) -> usize {
    text[..byte].matches('\n').count() + 1
}

pub(crate) fn template_error(name: &str, variable: Option<&str>, message: String) -> Error {
    Error::Template {
        template: name.to_string(),
        variable: variable.map(str::to_string),
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_repeated_and_dotted_variables() {
        let t = Template::parse("t", "{{a}}-{{a}} {{user.name}}!").unwrap();
        assert_eq!(
            t.variables().into_iter().collect::<Vec<_>>(),
            ["a", "user.name"]
        );
        let out = t
            .render(&Vars::new().set("a", "x").set("user.name", "Ada"))
            .unwrap();
        assert_eq!(out, "x-x Ada!");
    }

    #[test]
    fn missing_variable_error_names_it() {
        let t = Template::parse("butler", "Hi {{user_name}}").unwrap();
        match t.render(&Vars::new()).unwrap_err() {
            Error::Template {
                template, variable, ..
            } => {
                assert_eq!(template, "butler");
                assert_eq!(variable.as_deref(), Some("user_name"));
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn malformed_placeholders_are_rejected_with_their_line() {
        let err = Template::parse("t", "ok\n{{ user name }}").unwrap_err();
        assert!(err.to_string().contains("line 2"), "{err}");
        assert!(err.to_string().contains("user name"), "{err}");
        let err = Template::parse("t", "a {{open").unwrap_err();
        assert!(err.to_string().contains("never closed"), "{err}");
        assert!(Template::parse("t", "{{}}").is_err());
        assert!(Template::parse("t", "{{1abc}}").is_err());
    }

    #[test]
    fn values_are_not_rescanned_and_lone_braces_are_text() {
        let t = Template::parse("t", "say: {{msg}} }} {").unwrap();
        let out = t.render(&Vars::new().set("msg", "{{not_a_var}}")).unwrap();
        assert_eq!(out, "say: {{not_a_var}} }} {");
    }

    #[test]
    fn current_date_and_weekday() {
        let v =
            Vars::new().with_current_date(chrono::NaiveDate::from_ymd_opt(2025, 11, 21).unwrap());
        assert_eq!(v.get("current_date"), Some("2025-11-21"));
        assert_eq!(v.get("current_weekday"), Some("Friday"));
    }
}
