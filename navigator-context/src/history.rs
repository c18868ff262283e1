//! How recently and how often each file changed, read from git: a prior for ranking.
//!
//! Why: the files a repository's recent commits touched are the likeliest to change next
//! (work comes in series; fragile code is fixed again). Commit subjects and bug reports often
//! name a concept that several files share; among those, the one that keeps changing is
//! usually the one to open. The prior only reorders files the goal already matches — the
//! ranking multiplies text relevance by it and never creates relevance from how often a file
//! changed alone.
//!
//! What the commits *said* is text: each file keeps the subject lines of the commits that
//! changed it ([`ChangeHistory::subjects`]), which the ranking matches against the goal like
//! the file's own words — a goal in the project's vocabulary ("fix(http2): ...") finds the
//! files its earlier changes of that kind touched, even when their code says it otherwise.

use crate::error::{Error, Result};
use std::collections::HashMap;
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// Commits read back from the revision (first parent only).
pub const HISTORY_COMMITS: usize = 500;
/// Commits touching more files than this (formatting passes, renames, merges of long
/// branches) say nothing about any one file and are skipped.
const MASS_CHANGE_FILES: usize = 30;
/// A commit's weight halves every this many commits back.
const HALF_LIFE_COMMITS: f64 = 100.0;

/// Per-file weights from recent history, in [0, 1]: 1 for the file recent commits changed
/// most, 0 for a file they never touched.
///
/// ```no_run
/// use navigator_context::ChangeHistory;
/// let history = ChangeHistory::from_git(std::path::Path::new("."), "HEAD")?;
/// println!("{} commits read", history.commits());
/// # Ok::<(), navigator_context::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChangeHistory {
    weights: HashMap<String, f64>,
    /// Per file, how many of the commits read changed it (mass changes excepted).
    counts: HashMap<String, usize>,
    /// Per file, the subject lines of the commits that changed it (mass changes excepted),
    /// newest first, one per line.
    subjects: HashMap<String, String>,
    /// The commits read (mass changes and empty subjects excepted), newest first: subject
    /// line and the paths it changed.
    changes: Vec<(String, Vec<String>)>,
    commits: usize,
}

impl ChangeHistory {
    /// Reads the last [`HISTORY_COMMITS`] first-parent commits reachable from `rev` in the
    /// git repository at `dir` (a work tree, a subdirectory of one — paths then come relative
    /// to it — or a bare repository). Errors when `rev` is not a plain revision name, git
    /// cannot be run, or git refuses (not a repository, unknown revision).
    pub fn from_git(dir: &Path, rev: &str) -> Result<ChangeHistory> {
        ChangeHistory::from_child(spawn_log(dir, rev)?, dir)
    }

    /// Waits for a `git log` started by [`spawn_log`] in `dir` and parses what it printed.
    pub(crate) fn from_child(child: Child, dir: &Path) -> Result<ChangeHistory> {
        let out = child.wait_with_output().map_err(|e| Error::Git {
            dir: dir.to_path_buf(),
            message: format!("waiting for git: {e}"),
        })?;
        if !out.status.success() {
            return Err(Error::Git {
                dir: dir.to_path_buf(),
                message: String::from_utf8_lossy(&out.stderr).trim().to_string(),
            });
        }
        Ok(ChangeHistory::from_log(&String::from_utf8_lossy(
            &out.stdout,
        )))
    }

    /// Parses `git log --format=%x00%s --name-only` output: per commit, newest first, a NUL,
    /// its subject line, then the paths it changed.
    pub(crate) fn from_log(log: &str) -> ChangeHistory {
        let mut weights: HashMap<String, f64> = HashMap::new();
        let mut counts: HashMap<String, usize> = HashMap::new();
        let mut subjects: HashMap<String, String> = HashMap::new();
        let mut changes = Vec::new();
        let mut commits = 0;
        for (age, block) in log.split('\0').skip(1).enumerate() {
            commits += 1;
            let (subject, changed) = block.split_once('\n').unwrap_or((block, ""));
            let subject = subject.trim();
            let paths: Vec<&str> = changed
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect();
            if paths.is_empty() || paths.len() > MASS_CHANGE_FILES {
                continue;
            }
            // Recency, shared among the files of the commit: a two-file fix says more about
            // each file than a twenty-file sweep.
            let w = 0.5f64.powf(age as f64 / HALF_LIFE_COMMITS) / (paths.len() as f64).sqrt();
            let paths: Vec<String> = paths.into_iter().map(unquote).collect();
            if !subject.is_empty() {
                changes.push((subject.to_string(), paths.clone()));
            }
            for path in paths {
                if !subject.is_empty() {
                    let said = subjects.entry(path.clone()).or_default();
                    said.push_str(subject);
                    said.push('\n');
                }
                *counts.entry(path.clone()).or_default() += 1;
                *weights.entry(path).or_default() += w;
            }
        }
        let max = weights.values().cloned().fold(0.0, f64::max);
        if max > 0.0 {
            weights.values_mut().for_each(|w| *w /= max);
        }
        ChangeHistory {
            weights,
            counts,
            subjects,
            changes,
            commits,
        }
    }

    /// The weight of `path` (repository-relative, `/`-separated), in [0, 1].
    pub fn weight(&self, path: &str) -> f64 {
        self.weights.get(path).copied().unwrap_or(0.0)
    }

    /// How many of the commits read changed `path` (commits sweeping over many files not
    /// counted).
    pub fn changed(&self, path: &str) -> usize {
        self.counts.get(path).copied().unwrap_or(0)
    }

    /// The subject lines of the commits read that changed `path`, newest first, one per
    /// line ("" for none): what the project called its past changes to the file.
    pub fn subjects(&self, path: &str) -> &str {
        self.subjects.get(path).map_or("", String::as_str)
    }

    /// The commits read, newest first, each as its subject line and the paths it changed
    /// (commits with no subject, or sweeping over many files, left out).
    pub fn changes(&self) -> impl Iterator<Item = (&str, &[String])> {
        self.changes.iter().map(|(s, p)| (s.as_str(), p.as_slice()))
    }

    /// How many commits were read.
    pub fn commits(&self) -> usize {
        self.commits
    }

    /// Whether no file has any weight (no history, or only mass changes).
    pub fn is_empty(&self) -> bool {
        self.weights.is_empty()
    }
}

/// Starts `git log` for `rev` in `dir`; the caller waits on it (so a scan can run meanwhile).
pub(crate) fn spawn_log(dir: &Path, rev: &str) -> Result<Child> {
    let bad = rev.is_empty()
        || rev.starts_with('-')
        || rev.chars().any(|c| c.is_whitespace() || c.is_control())
        || rev.len() > 256;
    if bad {
        return Err(Error::InvalidOption {
            field: "rev".into(),
            message: format!("`{}` is not a revision name", rev.escape_debug()),
        });
    }
    Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "core.quotePath=false", "log", "--first-parent"])
        .args(["--relative", "--name-only", "--format=%x00%s"])
        .arg(format!("-n{HISTORY_COMMITS}"))
        .arg(rev)
        .arg("--")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Error::Git {
            dir: dir.to_path_buf(),
            message: format!("cannot run git: {e}"),
        })
}

/// A path as git prints it: names with unusual bytes come in C-style quotes even with
/// `core.quotePath=false`; those are rare and kept as printed, minus the quotes.
fn unquote(p: &str) -> String {
    p.strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(p)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recent_and_focused_changes_weigh_most() {
        // Newest first: a.rs alone just now, b.rs twice long ago, a 40-file sweep skipped.
        let sweep: String = (0..40).map(|i| format!("gen/f{i}.rs\n")).collect();
        let mut log = String::from("\0\nsrc/a.rs\n");
        for _ in 0..100 {
            log.push_str("\0\nREADME.md\n");
        }
        log.push_str(&format!("\0\n{sweep}"));
        log.push_str("\0\nsrc/b.rs\nsrc/c.rs\n\0\nsrc/b.rs\n");
        let h = ChangeHistory::from_log(&log);
        assert_eq!(h.commits(), 104);
        assert!(h.weight("src/a.rs") > h.weight("src/b.rs"));
        assert!(h.weight("src/b.rs") > h.weight("src/c.rs"));
        assert!(h.weight("src/c.rs") > 0.0);
        assert_eq!(h.weight("gen/f3.rs"), 0.0);
        assert_eq!(h.weight("missing.rs"), 0.0);
        assert_eq!(
            (
                h.changed("README.md"),
                h.changed("src/b.rs"),
                h.changed("src/a.rs")
            ),
            (100, 2, 1)
        );
        assert_eq!(h.changed("gen/f3.rs"), 0, "a sweep is not counted");
        assert!(
            (h.weight("README.md") - 1.0).abs() < 1e-12,
            "the most changed file is 1"
        );
        assert_eq!(h.subjects("src/a.rs"), "", "no subjects in this log");
    }

    #[test]
    fn each_file_keeps_the_subjects_of_its_commits_newest_first() {
        let sweep: String = (0..40).map(|i| format!("gen/f{i}.rs\n")).collect();
        let log = format!(
            "\0fix(h2): strip headers\n\nsrc/h2.rs\nsrc/lib.rs\n\0chore: format\n\n{sweep}\0feat: add h2 support\n\nsrc/h2.rs\n"
        );
        let h = ChangeHistory::from_log(&log);
        assert_eq!(h.commits(), 3);
        assert_eq!(
            h.subjects("src/h2.rs"),
            "fix(h2): strip headers\nfeat: add h2 support\n"
        );
        assert_eq!(h.subjects("src/lib.rs"), "fix(h2): strip headers\n");
        assert_eq!(
            h.subjects("gen/f1.rs"),
            "",
            "a mass change says nothing of a file"
        );
        assert_eq!(h.subjects("missing.rs"), "");
    }

    #[test]
    fn an_empty_log_has_no_weights() {
        let h = ChangeHistory::from_log("");
        assert!(h.is_empty());
        assert_eq!(h.commits(), 0);
    }

    #[test]
    fn option_like_revisions_are_refused() {
        for rev in ["", "--output=/tmp/x", "HEAD main", "a\nb"] {
            let e = ChangeHistory::from_git(Path::new("."), rev).unwrap_err();
            assert!(
                matches!(e, Error::InvalidOption { ref field, .. } if field == "rev"),
                "{rev:?}: {e}"
            );
        }
    }

    #[test]
    fn a_directory_outside_git_is_a_typed_error() {
        let dir = tempfile::tempdir().unwrap();
        let e = ChangeHistory::from_git(dir.path(), "HEAD").unwrap_err();
        assert!(matches!(e, Error::Git { .. }), "{e}");
    }

    #[test]
    fn reads_a_real_repository_relative_to_a_subdirectory() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let git = |args: &[&str]| {
            let ok = Command::new("git")
                .arg("-C")
                .arg(root)
                .args([
                    "-c",
                    "user.name=t",
                    "-c",
                    "user.email=t@e",
                    "-c",
                    "commit.gpgsign=false",
                ])
                .args(args)
                .output()
                .unwrap()
                .status
                .success();
            assert!(ok, "git {args:?}");
        };
        git(&["init", "-q"]);
        std::fs::create_dir_all(root.join("pkg/src")).unwrap();
        std::fs::write(root.join("pkg/src/old.rs"), "fn a() {}\n").unwrap();
        std::fs::write(root.join("top.rs"), "fn t() {}\n").unwrap();
        git(&["add", "."]);
        git(&["commit", "-q", "-m", "first"]);
        std::fs::write(root.join("pkg/src/new.rs"), "fn b() {}\n").unwrap();
        git(&["add", "."]);
        git(&["commit", "-q", "-m", "second"]);
        let h = ChangeHistory::from_git(root, "HEAD").unwrap();
        assert_eq!(h.commits(), 2);
        assert_eq!(h.subjects("pkg/src/new.rs"), "second\n");
        assert_eq!(h.subjects("top.rs"), "first\n");
        assert!(h.weight("pkg/src/new.rs") > h.weight("pkg/src/old.rs"));
        assert!(h.weight("top.rs") > 0.0);
        let sub = ChangeHistory::from_git(&root.join("pkg"), "HEAD").unwrap();
        assert!(sub.weight("src/new.rs") > 0.0, "{sub:?}");
        assert_eq!(sub.weight("top.rs"), 0.0);
        let first = ChangeHistory::from_git(root, "HEAD~1").unwrap();
        assert_eq!(first.commits(), 1);
        assert_eq!(first.weight("pkg/src/new.rs"), 0.0);
        let e = ChangeHistory::from_git(root, "no-such-branch").unwrap_err();
        assert!(matches!(e, Error::Git { .. }), "{e}");
    }
}
