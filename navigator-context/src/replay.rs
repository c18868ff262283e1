//! Flight Plans pinned to content, and replaying them.
//!
//! A plan's rules say *how much* of each file to show; they say nothing of *what* the files
//! held. Replayed after the repository moved on, the same rules can render a different context,
//! possibly far over its budget (an outlined file grown tenfold). So an explored plan records
//! [`Pins`]: the content hash of every file it shows with content, every file it lists by path,
//! each collapsed directory's file count, and, in a git checkout, the commit. [`replay`] checks
//! them first: a changed repository is a typed [`Error::PlanDrift`] naming the changed, deleted
//! and added files (inside a folded directory, named from the pinned commit's tree where that
//! accounts for the recount, else counted), or, when asked to refit, the plan is fitted again
//! within the same budget.
//! Either way the context never silently exceeds the budget.

use crate::error::{Error, Result};
use crate::flight_plan::{FlightPlan, Level, Pins};
use crate::pack::{fit, Fitted};
use crate::render::{render, Rendered};
use crate::scan::RepoMap;
use std::collections::{BTreeMap, HashMap};

/// How a repository differs from what a plan was pinned to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Drift {
    /// Files shown with content whose content changed.
    pub changed: Vec<String>,
    /// Pinned files no longer in the repository.
    pub deleted: Vec<String>,
    /// Pinned files still in the repository that the scan now leaves out, with the reason
    /// (unreadable, binary, a symlink leaving the root): not deleted, and not shown either.
    pub left_out: Vec<(String, String)>,
    /// Files the plan's rules now show that were not there when it was pinned, and files
    /// folded into a collapsed line that is new or that the pinned commit's tree lacks.
    pub added: Vec<String>,
    /// Collapsed directories whose file count changed: (directory, pinned, now).
    pub recounted: Vec<(String, usize, usize)>,
}

impl Drift {
    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        self.changed.is_empty()
            && self.deleted.is_empty()
            && self.left_out.is_empty()
            && self.added.is_empty()
            && self.recounted.is_empty()
    }

    /// One line naming the differences: the first ten of each kind, then how many more (the
    /// fields hold them all).
    pub fn describe(&self) -> String {
        Drift::describe_parts(
            &self.changed,
            &self.deleted,
            &self.left_out,
            &self.added,
            &self.recounted,
        )
    }

    /// [`Drift::describe`] of the parts (as [`Error::PlanDrift`] holds them).
    pub(crate) fn describe_parts(
        changed: &[String],
        deleted: &[String],
        left_out: &[(String, String)],
        added: &[String],
        recounted: &[(String, usize, usize)],
    ) -> String {
        fn listed(items: Vec<String>) -> String {
            let more = items.len().saturating_sub(DESCRIBED);
            let mut line = items
                .into_iter()
                .take(DESCRIBED)
                .collect::<Vec<_>>()
                .join(", ");
            if more > 0 {
                line.push_str(&format!(" and {more} more"));
            }
            line
        }
        let mut parts = Vec::new();
        for (what, list) in [("changed", changed), ("deleted", deleted)] {
            if !list.is_empty() {
                parts.push(format!("{what}: {}", listed(list.to_vec())));
            }
        }
        if !left_out.is_empty() {
            let files = left_out
                .iter()
                .map(|(path, why)| format!("{path} ({why})"))
                .collect();
            parts.push(format!("left out: {}", listed(files)));
        }
        if !added.is_empty() {
            parts.push(format!("added: {}", listed(added.to_vec())));
        }
        if !recounted.is_empty() {
            let dirs: Vec<String> = recounted
                .iter()
                // The files a folding rule counts there, not the line's whole count (which
                // adds the files hidden beside them): "0 -> 1 files" read as a wrong count.
                .map(|(d, a, b)| format!("{d} ({a} -> {b} files folded)"))
                .collect();
            parts.push(format!("folded lines recounted: {}", listed(dirs)));
        }
        parts.join("; ")
    }
}

/// Files of each kind [`Drift::describe`] names before counting the rest.
const DESCRIBED: usize = 10;

/// Hex digits of the content hash kept per file: 64 bits, plenty to notice an edit.
const HASH_HEX: usize = 16;

fn short_hash(text: &str) -> String {
    crate::cache::content_hash(text.as_bytes())[..HASH_HEX].to_string()
}

/// What `git -C root ARGS` printed, when git runs there and succeeds.
fn git_stdout(root: &std::path::Path, args: &[&str]) -> Option<String> {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(root)
        .args(args)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    String::from_utf8(out.stdout).ok()
}

/// The git commit checked out at `root`, when it is a git work tree and git is installed.
fn git_commit(root: &std::path::Path) -> Option<String> {
    let id = git_stdout(root, &["rev-parse", "--verify", "--quiet", "HEAD"])?
        .trim()
        .to_string();
    (id.len() >= 40).then_some(id)
}

/// What `rendered` (a render of `plan` over `map`) was built from.
fn pins_of(map: &RepoMap, rendered: &Rendered) -> Pins {
    let mut files = BTreeMap::new();
    for (k, (path, level)) in rendered.levels.iter().enumerate() {
        if *level == Level::Hidden || rendered.collapsed.binary_search(&k).is_ok() {
            continue;
        }
        // A listed path depends only on the file being there; content levels on its bytes.
        let hash = match (level, map.file(path).and_then(|f| f.text())) {
            (Level::Path, _) | (_, None) => String::new(),
            (_, Some(text)) => short_hash(text),
        };
        files.insert(path.clone(), hash);
    }
    Pins {
        commit: git_commit(map.root()),
        files,
        dirs: rendered.folded_dirs.iter().cloned().collect(),
    }
}

/// `plan` with [`Pins`] of what it renders over `map` now.
///
/// ```no_run
/// use navigator_context::{pin, FlightPlan, RepoMap};
/// let map = RepoMap::open(".")?;
/// let plan = pin(&map, FlightPlan::from_yaml(&std::fs::read_to_string("plan.yaml").unwrap())?)?;
/// std::fs::write("plan.yaml", plan.to_yaml(&[])).unwrap();
/// # Ok::<(), navigator_context::Error>(())
/// ```
pub fn pin(map: &RepoMap, plan: FlightPlan) -> Result<FlightPlan> {
    let rendered = render(map, &plan)?;
    let pinned = pins_of(map, &rendered);
    Ok(FlightPlan {
        pinned: Some(pinned),
        ..plan
    })
}

/// An error when `rule` (the `i`-th of a pinned plan) can only have been edited by hand since
/// the plan was pinned, not changed by the repository: a path naming one file that neither
/// the repository nor the pins hold, or a `focus` naming no item of a file whose content is
/// the pinned one. (Replayed, such a rule rendered silently otherwise: its file a path, its
/// item left out, or the repository said to have changed.)
fn check_edited(
    map: &RepoMap,
    old: &Pins,
    i: usize,
    rule: &crate::flight_plan::Rule,
) -> Result<()> {
    let p = rule.path.as_str();
    let literal = !p.contains(crate::flight_plan::META) && !p.ends_with('/');
    if !literal {
        return Ok(());
    }
    let Some(file) = map.file(p) else {
        let dir = format!("{p}/");
        let is_dir = map.files().iter().any(|f| f.path.starts_with(&dir));
        if !is_dir && !old.files.contains_key(p) && map.root().join(p).symlink_metadata().is_err() {
            return Err(Error::plan(
                None,
                format!("rules[{i}].path"),
                format!("`{p}` is no file of the repository, and the plan was not pinned to it: an edited plan? (name a file of the repository)"),
            ));
        }
        return Ok(());
    };
    let unchanged = old.files.get(p).is_some_and(|h| {
        !h.is_empty() && file.text().map(short_hash).as_deref() == Some(h.as_str())
    });
    if unchanged && !rule.focus.is_empty() {
        let items: std::collections::HashSet<String> = crate::zoom::items(file)
            .into_iter()
            .map(|item| item.name.replace("::", "."))
            .collect();
        if let Some(missing) = rule
            .focus
            .iter()
            .find(|f| !items.contains(&f.replace("::", ".")))
        {
            return Err(Error::plan(
                None,
                format!("rules[{i}].focus"),
                format!("`{missing}` names no item of `{p}`, which is as the plan was pinned to: an edited plan? (name an item of the file)"),
            ));
        }
    }
    Ok(())
}

/// How `map` differs from what `plan` was pinned to (empty for an unpinned plan).
pub fn drift(map: &RepoMap, plan: &FlightPlan) -> Result<Drift> {
    let Some(old) = &plan.pinned else {
        return Ok(Drift::default());
    };
    let rendered = render(map, plan)?;
    let now = pins_of(map, &rendered);
    let mut d = Drift::default();
    let skipped = |path: &str| -> Option<String> {
        let skipped = map.skipped();
        skipped
            .binary_search_by(|(p, _)| p.as_str().cmp(path))
            .ok()
            .map(|k| skipped[k].1.clone())
    };
    // A path the walk left out (a binary, a pipe), or that is now a directory, is not gone.
    let gone = |d: &mut Drift, path: &str| match skipped(path) {
        Some(why) => d.left_out.push((path.to_string(), why)),
        None if map.root().join(path).is_dir() => d
            .left_out
            .push((path.to_string(), "now a directory".to_string())),
        None => d.deleted.push(path.to_string()),
    };
    for (path, hash) in &old.files {
        let Some(file) = map.file(path) else {
            gone(&mut d, path);
            continue;
        };
        if hash.is_empty() {
            continue;
        }
        // A file shown with content and now without (grown past the size cap, no longer
        // UTF-8, dropped to a path or a collapsed line) is checked against its bytes too.
        let h = match now.files.get(path) {
            Some(h) if !h.is_empty() => Some(h.clone()),
            _ => file.text().map(short_hash),
        };
        if h.as_deref() != Some(hash.as_str()) {
            d.changed.push(path.clone());
        }
    }
    // A rule naming one file the repository does not hold (deleted before the plan was
    // pinned, or a hand-edited path) is named too, not only the directory it was counted in.
    for (i, rule) in plan.rules.iter().enumerate() {
        let p = rule.path.as_str();
        check_edited(map, old, i, rule)?;
        let literal = !p.contains(crate::flight_plan::META) && !p.ends_with('/');
        let dir = format!("{p}/");
        let k = map
            .files()
            .partition_point(|f| f.path.as_str() < dir.as_str());
        let is_dir = map.files().get(k).is_some_and(|f| f.path.starts_with(&dir));
        let named = d.deleted.iter().any(|x| x == p) || d.left_out.iter().any(|(x, _)| x == p);
        if literal && map.file(p).is_none() && !is_dir && !named {
            gone(&mut d, p);
        }
    }
    d.added = now
        .files
        .keys()
        .filter(|p| !old.files.contains_key(*p))
        .cloned()
        .collect();
    let dirs: BTreeMap<&String, usize> = old.dirs.iter().map(|(k, v)| (k, *v)).collect();
    for (dir, n) in &now.dirs {
        let before = dirs.get(dir).copied().unwrap_or(0);
        if before != *n {
            d.recounted.push((dir.clone(), before, *n));
        }
    }
    for (dir, n) in &old.dirs {
        if !now.dirs.contains_key(dir) {
            d.recounted.push((dir.clone(), *n, 0));
        }
    }
    let folded: Vec<&str> = rendered
        .collapsed
        .iter()
        .map(|&k| rendered.levels[k].0.as_str())
        .collect();
    name_new_lines(&folded, &mut d);
    if let Some(commit) = &old.commit {
        name_folded(map, old, commit, &folded, &mut d);
    }
    Ok(d)
}

/// The folded line `path` counts in: the longest `recounted` directory holding it.
fn line_of(recounted: &[(String, usize, usize)], path: &str) -> Option<usize> {
    recounted
        .iter()
        .enumerate()
        .filter(|(_, (dir, _, _))| {
            if dir == "./" {
                !path.contains('/')
            } else {
                path.starts_with(dir.as_str())
            }
        })
        .max_by_key(|(_, (dir, _, _))| dir.len())
        .map(|(k, _)| k)
}

/// Names the files of a folded line that is new (no file was folded there before): each of
/// them was added, git or no git.
fn name_new_lines(folded: &[&str], d: &mut Drift) {
    for (dir, before, now) in &d.recounted {
        if *before != 0 {
            continue;
        }
        // Counted in this line, not in a longer recounted one.
        let here: Vec<&str> = folded
            .iter()
            .copied()
            .filter(|p| line_of(&d.recounted, p).map(|k| &d.recounted[k].0) == Some(dir))
            .collect();
        if here.len() == *now {
            d.added.extend(here.iter().map(|p| p.to_string()));
        }
    }
    d.added.sort();
    d.added.dedup();
}

/// Names the files added to and deleted from recounted (folded) directories from the pinned
/// `commit`'s tree: a folded file the commit lacks is added; a file of the directory the commit
/// has, not pinned on its own, that the repository no longer holds is deleted. Named only where
/// that accounts exactly for every recount (an untracked file that was already there, or one
/// the scan skips, would not), so a name is never a guess; otherwise the recounts alone say it.
fn name_folded(map: &RepoMap, old: &Pins, commit: &str, folded: &[&str], d: &mut Drift) {
    if d.recounted.is_empty() {
        return;
    }
    let Some(tracked) = tracked_at(map.root(), commit) else {
        return;
    };
    let dir_of = |path: &str| line_of(&d.recounted, path);
    let mut delta = vec![0i64; d.recounted.len()];
    let mut added = Vec::new();
    let mut deleted = Vec::new();
    for p in folded.iter().filter(|p| !tracked.contains(**p)) {
        if let Some(k) = dir_of(p) {
            delta[k] += 1;
            added.push(p.to_string());
        }
    }
    for p in tracked
        .iter()
        .filter(|p| map.file(p).is_none() && !old.files.contains_key(*p))
    {
        if let Some(k) = dir_of(p) {
            delta[k] -= 1;
            deleted.push(p.clone());
        }
    }
    let explained = d
        .recounted
        .iter()
        .zip(&delta)
        .all(|((_, before, now), delta)| *before as i64 + delta == *now as i64);
    if !explained {
        return;
    }
    for (list, more) in [(&mut d.added, added), (&mut d.deleted, deleted)] {
        for p in more {
            if !list.contains(&p) {
                list.push(p);
            }
        }
        list.sort();
    }
}

/// The files of `commit`'s tree below `root`, relative to it; `None` when git cannot say (no
/// git, not a work tree, an unknown commit).
fn tracked_at(root: &std::path::Path, commit: &str) -> Option<std::collections::HashSet<String>> {
    let text = git_stdout(root, &["ls-tree", "-r", "-z", "--name-only", commit])?;
    Some(
        text.split('\0')
            .filter(|p| !p.is_empty())
            .map(str::to_string)
            .collect(),
    )
}

/// A replayed plan.
#[derive(Debug, Clone)]
pub struct Replayed {
    /// The context, within the plan's budget.
    pub rendered: Rendered,
    /// The plan that rendered it: the one given, or its re-fit (pinned again).
    pub plan: FlightPlan,
    /// What had changed since the plan was pinned (empty when nothing had).
    pub drift: Drift,
    /// Files the re-fit lowered to stay within the budget, with their new level.
    pub degraded: Vec<(String, Level)>,
}

/// Renders `plan` over `map` after checking its pins.
///
/// Unchanged repository: the exact context the plan was made with. Changed repository:
/// [`Error::PlanDrift`] naming the files, unless `refit`, which renders the plan over the new
/// contents and lowers the least valuable files (those of the later rules first: an explored
/// plan lists its files most relevant first) until the context fits the plan's budget again. A context over budget is an
/// [`Error::OverBudget`] without `refit`, whatever the pins say.
pub fn replay(map: &RepoMap, plan: &FlightPlan, refit: bool) -> Result<Replayed> {
    let drift = drift(map, plan)?;
    if !drift.is_empty() && !refit {
        return Err(Error::PlanDrift {
            changed: drift.changed,
            deleted: drift.deleted,
            left_out: drift.left_out,
            added: drift.added,
            recounted: drift.recounted,
        });
    }
    let rendered = render(map, plan)?;
    if rendered.tokens <= plan.token_budget && drift.is_empty() {
        return Ok(Replayed {
            rendered,
            plan: plan.clone(),
            drift,
            degraded: Vec::new(),
        });
    }
    if !refit {
        return Err(Error::OverBudget {
            tokens: rendered.tokens,
            budget: plan.token_budget,
        });
    }
    // Value: earlier rules before later ones (explored plans list files most relevant first).
    // Not the level a file was asked for first: a cheap package root shown whole, ranked
    // third, kept its source while the first file, zoomed into, fell into a folded line.
    let n = plan.rules.len().max(1) as f64;
    let values: HashMap<String, f64> = plan
        .rules
        .iter()
        .enumerate()
        .map(|(k, r)| (r.path.clone(), 1.0 - k as f64 / n))
        .collect();
    let Fitted {
        plan: fitted,
        rendered,
        degraded,
        fits,
    } = fit(map, plan.clone(), &values)?;
    if !fits {
        return Err(Error::OverBudget {
            tokens: rendered.tokens,
            budget: plan.token_budget,
        });
    }
    let fitted = pin(map, fitted)?;
    Ok(Replayed {
        rendered,
        plan: fitted,
        drift,
        degraded,
    })
}
