//! Finding templates by name: directories first, then embedded defaults.

use super::render::{template_error, Template, Vars};
use crate::{Error, Result};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Core's own defaults, compiled in.
const CORE_DEFAULTS: &[(&str, &str)] = &[
    (
        "structured_output",
        include_str!("../../templates/structured_output.md"),
    ),
    (
        "structured_output_retry",
        include_str!("../../templates/structured_output_retry.md"),
    ),
];

/// Where a template was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TemplateSource {
    /// A file in one of the set's directories.
    File(PathBuf),
    /// Compiled in.
    Embedded,
}

/// Named prompt templates from directories and embedded defaults.
///
/// ```
/// use navigator_core::{TemplateSet, Vars};
/// let set = TemplateSet::new().with_embedded("navigator", "You search {{user_name}}'s PARA notes.");
/// assert_eq!(set.render("navigator", &Vars::new().set("user_name", "Ada"))?,
///            "You search Ada's PARA notes.");
/// assert!(set.render("butler", &Vars::new()).is_err()); // not registered anywhere
/// # Ok::<(), navigator_core::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct TemplateSet {
    dirs: Vec<PathBuf>,
    embedded: BTreeMap<String, Cow<'static, str>>,
}

impl Default for TemplateSet {
    fn default() -> Self {
        Self::new()
    }
}

impl TemplateSet {
    /// A set holding core's embedded defaults and no directories.
    pub fn new() -> Self {
        Self {
            dirs: Vec::new(),
            embedded: CORE_DEFAULTS
                .iter()
                .map(|(n, t)| (n.to_string(), Cow::Borrowed(*t)))
                .collect(),
        }
    }

    /// Registers an embedded default `name` (typically `include_str!("../templates/NAME.md")`),
    /// replacing an earlier one of that name.
    pub fn with_embedded(mut self, name: &str, text: impl Into<Cow<'static, str>>) -> Self {
        self.embedded.insert(name.to_string(), text.into());
        self
    }

    /// Adds a directory of `NAME.md` files; its files win over embedded defaults and over
    /// directories added before it. A directory that does not exist simply holds nothing.
    pub fn with_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.dirs.push(dir.into());
        self
    }

    /// The raw text of `name` and where it came from.
    pub fn source(&self, name: &str) -> Result<(String, TemplateSource)> {
        check_name(name)?;
        for dir in self.dirs.iter().rev() {
            let path = dir.join(format!("{name}.md"));
            match std::fs::read_to_string(&path) {
                Ok(text) => return Ok((text, TemplateSource::File(path))),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => {
                    return Err(Error::File {
                        what: format!("prompt template `{name}`"),
                        path,
                        reason: e.to_string(),
                        fix: None,
                    })
                }
            }
        }
        if let Some(text) = self.embedded.get(name) {
            return Ok((text.to_string(), TemplateSource::Embedded));
        }
        Err(template_error(
            name,
            None,
            format!(
                "not found (looked for {name}.md in [{}] and among the embedded [{}])",
                self.dirs
                    .iter()
                    .map(|d| d.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
                self.embedded.keys().cloned().collect::<Vec<_>>().join(", "),
            ),
        ))
    }

    /// The parsed template `name`.
    pub fn get(&self, name: &str) -> Result<Template> {
        let (text, _) = self.source(name)?;
        Template::parse(name, &text)
    }

    /// Renders `name` with `vars`.
    pub fn render(&self, name: &str, vars: &Vars) -> Result<String> {
        self.get(name)?.render(vars)
    }

    /// Every name available: embedded ones and `*.md` files in the directories, sorted.
    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.embedded.keys().cloned().collect();
        for dir in &self.dirs {
            names.extend(md_stems(dir));
        }
        names.sort();
        names.dedup();
        names
    }
}

fn md_stems(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let path = e.path();
            (path.extension()? == "md")
                .then(|| path.file_stem()?.to_str().map(str::to_string))
                .flatten()
        })
        .filter(|n| check_name(n).is_ok())
        .collect()
}

/// Names are file stems: no separators or dots, so a name can never leave its directory.
fn check_name(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if ok {
        Ok(())
    } else {
        Err(template_error(
            name,
            None,
            "invalid template name (use letters, digits, `_` and `-`)".into(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directory_files_override_embedded_and_later_dirs_win() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        std::fs::write(a.path().join("butler.md"), "A {{x}}").unwrap();
        std::fs::write(b.path().join("butler.md"), "B {{x}}").unwrap();
        std::fs::write(b.path().join("notes.txt"), "ignored").unwrap();
        let set = TemplateSet::new()
            .with_embedded("butler", "embedded {{x}}")
            .with_dir(a.path())
            .with_dir(b.path());
        let vars = Vars::new().set("x", "1");
        assert_eq!(set.render("butler", &vars).unwrap(), "B 1");
        assert_eq!(
            set.source("butler").unwrap().1,
            TemplateSource::File(b.path().join("butler.md"))
        );
        std::fs::remove_file(b.path().join("butler.md")).unwrap();
        assert_eq!(set.render("butler", &vars).unwrap(), "A 1");
        std::fs::remove_file(a.path().join("butler.md")).unwrap();
        assert_eq!(set.render("butler", &vars).unwrap(), "embedded 1");
    }

    #[test]
    fn names_list_embedded_and_files() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("navigator.md"), "n").unwrap();
        let names = TemplateSet::new()
            .with_dir(d.path())
            .with_dir("/nonexistent/dir")
            .names();
        assert_eq!(
            names,
            ["navigator", "structured_output", "structured_output_retry"]
        );
    }

    #[test]
    fn path_like_names_are_rejected() {
        for bad in ["../etc/passwd", "a/b", "", "x.md"] {
            let err = TemplateSet::new().get(bad).unwrap_err();
            assert!(matches!(err, Error::Template { .. }), "{bad}: {err}");
        }
    }

    #[test]
    fn missing_template_lists_where_it_looked() {
        let err = TemplateSet::new()
            .with_dir("/tmp/nowhere")
            .get("butler")
            .unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("butler")
                && msg.contains("/tmp/nowhere")
                && msg.contains("structured_output"),
            "{msg}"
        );
    }

    #[test]
    fn core_defaults_parse_and_declare_their_variables() {
        let set = TemplateSet::new();
        let t = set.get("structured_output").unwrap();
        assert_eq!(
            t.variables().into_iter().collect::<Vec<_>>(),
            ["schema", "type_name"]
        );
        let t = set.get("structured_output_retry").unwrap();
        assert_eq!(
            t.variables().into_iter().collect::<Vec<_>>(),
            ["error", "type_name"]
        );
    }
}
