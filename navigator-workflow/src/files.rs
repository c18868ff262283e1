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

/// Whether `path` ends in one of [`EXTENSIONS`].
fn is_definition(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| EXTENSIONS.contains(&e))
}

/// The definition files `path` names: itself (a `.json`, `.yaml` or `.yml` file), or a
/// directory's such files (not its subdirectories) in name order.
fn definition_files(path: &Path) -> Result<Vec<PathBuf>> {
    if !path.exists() {
        return Err(file_error(path, "no such file or directory"));
    }
    if !path.is_dir() {
        if !is_definition(path) {
            return Err(file_error(
                path,
                "not a workflow definition file (.json, .yaml or .yml) nor a directory of them",
            ));
        }
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files = Vec::new();
    for entry in std::fs::read_dir(path).map_err(|e| file_error(path, e))? {
        let file = entry.map_err(|e| file_error(path, e))?.path();
        // Hidden files (`.draft.yaml`, an editor's swap copy) are not definitions to serve.
        let hidden = file
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with('.'));
        if !hidden && is_definition(&file) && file.is_file() {
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
    /// All or nothing: when one file cannot be read, parsed or loaded, or two files give the
    /// same id, the error names them and no workflow of `path` is loaded. A directory with no
    /// definition files loads nothing: the list is empty.
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
        self.load_workflow_files_but(path, None)
    }

    /// [`Navigator::load_workflow_files`] leaving out the file `skip` (a server's state file
    /// kept in its definitions' folder is no definition).
    pub(crate) fn load_workflow_files_but(
        &mut self,
        path: &Path,
        skip: Option<&Path>,
    ) -> Result<Vec<String>> {
        let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
            (Ok(a), Ok(b)) => a == b,
            _ => a == b,
        };
        let mut files = definition_files(path)?;
        if let Some(skip) = skip {
            files.retain(|f| !same(f, skip));
        }
        let mut next = self.clone();
        let mut ids: Vec<String> = Vec::with_capacity(files.len());
        for file in &files {
            let text = std::fs::read_to_string(file).map_err(|e| file_error(file, e))?;
            let parsed = if file.extension().is_some_and(|e| e == "json") {
                WorkflowDefinition::from_json(&text)
            } else {
                WorkflowDefinition::from_yaml(&text)
            };
            let definition = parsed.map_err(|e| file_error(file, e))?;
            let stem = file
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default();
            let id = definition.id.clone().unwrap_or_else(|| stem.to_string());
            if id.trim().is_empty() {
                return Err(file_error(
                    file,
                    "the workflow has no id (an `id` field, or a file name)",
                ));
            }
            if let Some(first) = ids.iter().position(|i| *i == id) {
                return Err(file_error(
                    file,
                    format!(
                        "workflow id `{id}` is given by {} too",
                        files[first].display()
                    ),
                ));
            }
            next.load_workflow(&id, definition)
                .map_err(|e| file_error(file, e))?;
            ids.push(id);
        }
        *self = next;
        Ok(ids)
    }
}

impl Navigator {
    /// What a server should say once its workflows and state are loaded, a sentence each: the
    /// subflows no loaded workflow provides ([`Navigator::missing_subflows`]) and the tasks
    /// that cannot move ([`Navigator::stranded_tasks`]).
    pub fn load_warnings(&self) -> Vec<String> {
        let subflows = self.missing_subflows().into_iter().map(|(w, s)| {
            format!("workflow `{w}` enters subflow `{s}`, which is not loaded: a task reaching it cannot advance")
        });
        let stranded = self.stranded_tasks().into_iter().map(|t| {
            if !t.workflow_loaded {
                format!(
                    "task `{}` is on workflow `{}`, which is not loaded: advance_task refuses it until it is",
                    t.task_id, t.workflow
                )
            } else if t.reason.contains("has no step") {
                format!(
                    "task `{}` is at step `{}`, which workflow `{}` no longer has: advance_task refuses it until a definition with that step is loaded",
                    t.task_id, t.step, t.workflow
                )
            } else {
                format!(
                    "task `{}` at step `{}` of workflow `{}` no longer fits the loaded definitions ({}): advance_task refuses it until definitions it fits are loaded",
                    t.task_id, t.step, t.workflow, t.reason
                )
            }
        });
        subflows.chain(stranded).collect()
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
    fn two_files_of_one_id_and_a_file_of_another_kind_are_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("release.json"), r#"{"id": "x", "nodes": {"start": {"type": "start"}, "end": {"type": "end", "result": "success"}}, "edges": [{"from": "start", "to": "end"}]}"#).unwrap();
        std::fs::write(dir.path().join("release.yaml"), format!("id: x\n{REVIEW}")).unwrap();
        let mut nav = Navigator::new();
        let e = nav.load_workflow_files(dir.path()).unwrap_err().to_string();
        assert!(
            e.contains("release.yaml") && e.contains("release.json") && e.contains("`x`"),
            "{e}"
        );
        assert_eq!(nav.workflows().count(), 0);
        let readme = dir.path().join("README.md");
        std::fs::write(&readme, "# Workflows\n").unwrap();
        let e = nav.load_workflow_files(&readme).unwrap_err().to_string();
        assert!(e.contains("README.md") && e.contains(".yaml"), "{e}");
        let e = nav
            .load_workflow_files(&dir.path().join("gone"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("gone: no such file or directory"), "{e}");
        // An empty directory loads nothing, and says so by an empty list.
        let empty = tempfile::tempdir().unwrap();
        assert!(nav.load_workflow_files(empty.path()).unwrap().is_empty());
    }

    #[test]
    fn a_definition_loaded_again_without_a_tasks_step_strands_it() {
        let mut nav = Navigator::new();
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("review.yaml");
        std::fs::write(&file, REVIEW).unwrap();
        nav.load_workflow_files(&file).unwrap();
        nav.load_tasks(vec![crate::Task::new("t1", "I-1", "review", 1)], false)
            .unwrap();
        nav.advance("t1", "passed", None).unwrap();
        assert_eq!(nav.task("t1").unwrap().current_step, "check");
        assert!(nav.stranded_tasks().is_empty());
        let renamed = REVIEW.replace("check", "inspect");
        std::fs::write(&file, renamed).unwrap();
        nav.load_workflow_files(&file).unwrap();
        let stranded = nav.stranded_tasks();
        assert_eq!(stranded.len(), 1);
        assert_eq!(
            (stranded[0].task_id.as_str(), stranded[0].step.as_str()),
            ("t1", "check")
        );
        assert!(stranded[0].workflow_loaded);
        assert!(nav.load_warnings()[0].contains("task `t1` is at step `check`"));
        assert!(nav.advance("t1", "passed", None).is_err());
    }

    #[test]
    fn a_subflow_no_file_loads_is_reported_missing() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("outer.yaml"),
            "nodes:\n  start: {type: start}\n  inner: {type: subflow, workflow: release}\n  end: {type: end, result: success}\n  failed: {type: end, result: failure}\nedges:\n  - {from: start, to: inner}\n  - {from: inner, to: end, on: passed}\n  - {from: inner, to: failed, on: failed}\n",
        )
        .unwrap();
        let mut nav = Navigator::new();
        nav.load_workflow_files(dir.path()).unwrap();
        assert_eq!(
            nav.missing_subflows(),
            [("outer".to_string(), "release".to_string())]
        );
        let warnings = nav.load_warnings();
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].contains("subflow `release`"), "{warnings:?}");
        std::fs::write(dir.path().join("release.yaml"), REVIEW).unwrap();
        nav.load_workflow_files(dir.path()).unwrap();
        assert!(nav.missing_subflows().is_empty());
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
