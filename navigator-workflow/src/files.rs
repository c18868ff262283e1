//! Workflow definitions read from files: what `navigator workflow` and
//! `navigator-workflow-mcp` load before they serve.

use std::path::{Path, PathBuf};

use crate::definition::WorkflowDefinition;
use crate::error::{Error, Result};
use crate::navigator::Navigator;

/// The extensions of definition files: JSON, else YAML.
const EXTENSIONS: [&str; 3] = ["json", "yaml", "yml"];

fn file_error(path: &Path, message: impl std::fmt::Display) -> Error {
    Error::DefinitionFile {
        path: path.display().to_string(),
        message: message.to_string(),
    }
}

/// The definition files `path` names: itself, or a directory's `.json`, `.yaml` and `.yml`
/// files (not its subdirectories) in name order.
fn definition_files(path: &Path) -> Result<Vec<PathBuf>> {
    if !path.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files = Vec::new();
    for entry in std::fs::read_dir(path).map_err(|e| file_error(path, e))? {
        let file = entry.map_err(|e| file_error(path, e))?.path();
        let known = file
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| EXTENSIONS.contains(&e));
        if known && file.is_file() {
            files.push(file);
        }
    }
    files.sort();
    Ok(files)
}

impl Navigator {
    /// Loads the workflow definitions at `path` — a `.json`, `.yaml` or `.yml` file (read as
    /// YAML unless it ends in `.json`), or a directory of them, in name order — each under its
    /// `id` field, else its file stem, replacing a workflow of that id. Returns the ids loaded,
    /// in order.
    ///
    /// All or nothing: when one file cannot be read, parsed or loaded the error names it and
    /// no workflow of `path` is loaded.
    ///
    /// ```
    /// # let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(
    ///     dir.path().join("review.yaml"),
    ///     "nodes:\n  start: {type: start}\n  end: {type: end, result: success}\nedges:\n  - {from: start, to: end}\n",
    /// )
    /// .unwrap();
    /// let mut nav = navigator_workflow::Navigator::new();
    /// assert_eq!(nav.load_workflow_files(dir.path()).unwrap(), ["review"]);
    /// ```
    pub fn load_workflow_files(&mut self, path: &Path) -> Result<Vec<String>> {
        let files = definition_files(path)?;
        let mut next = self.clone();
        let mut ids = Vec::with_capacity(files.len());
        for file in files {
            let text = std::fs::read_to_string(&file).map_err(|e| file_error(&file, e))?;
            let parsed = if file.extension().is_some_and(|e| e == "json") {
                WorkflowDefinition::from_json(&text)
            } else {
                WorkflowDefinition::from_yaml(&text)
            };
            let definition = parsed.map_err(|e| file_error(&file, e))?;
            let stem = file
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default();
            let id = definition.id.clone().unwrap_or_else(|| stem.to_string());
            if id.trim().is_empty() {
                return Err(file_error(
                    &file,
                    "the workflow has no id (an `id` field, or a file name)",
                ));
            }
            next.load_workflow(&id, definition)
                .map_err(|e| file_error(&file, e))?;
            ids.push(id);
        }
        *self = next;
        Ok(ids)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const REVIEW: &str = "nodes:\n  start: {type: start}\n  check: {type: task, name: Check, agent: reviewer}\n  end: {type: end, result: success}\nedges:\n  - {from: start, to: check}\n  - {from: check, to: end, on: passed}\n  - {from: check, to: end, on: failed}\n";

    #[test]
    fn a_directory_loads_its_definition_files_in_name_order_under_their_ids() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("b-review.yml"), REVIEW).unwrap();
        std::fs::write(dir.path().join("a.yaml"), format!("id: first\n{REVIEW}")).unwrap();
        std::fs::write(dir.path().join("notes.txt"), "not a workflow").unwrap();
        std::fs::create_dir(dir.path().join("old.yaml")).unwrap();
        let mut nav = Navigator::new();
        let ids = nav.load_workflow_files(dir.path()).unwrap();
        assert_eq!(ids, ["first", "b-review"]);
        let mut listed: Vec<&str> = nav.workflows().map(|w| w.id()).collect();
        listed.sort();
        assert_eq!(listed, ["b-review", "first"]);
    }

    #[test]
    fn a_bad_file_names_itself_and_loads_nothing() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.yaml"), REVIEW).unwrap();
        // An edge to a node that does not exist: parsed, refused by validation.
        let broken = REVIEW.replace("to: end, on: failed", "to: nowhere, on: failed");
        std::fs::write(dir.path().join("b.yaml"), broken).unwrap();
        let mut nav = Navigator::new();
        let e = nav.load_workflow_files(dir.path()).unwrap_err();
        assert_eq!(e.code(), "definition_file");
        assert!(
            e.to_string().contains("b.yaml") && e.to_string().contains("nowhere"),
            "{e}"
        );
        assert_eq!(nav.workflows().count(), 0, "a.yaml must not stay loaded");
        let e = nav
            .load_workflow_files(&dir.path().join("missing.yaml"))
            .unwrap_err();
        assert!(e.to_string().contains("missing.yaml"), "{e}");
        std::fs::write(dir.path().join("c.json"), "{ not json").unwrap();
        let e = nav
            .load_workflow_files(&dir.path().join("c.json"))
            .unwrap_err();
        assert!(e.to_string().contains("c.json"), "{e}");
    }
}
