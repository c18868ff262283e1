//! The goal-less overview: a repository's shape, breadth first, filling the token budget.
//!
//! Folders first: every directory starts as one collapsed line with its file count, and
//! directories are opened shallowest first (their files listed by path, their subdirectories
//! as collapsed lines) while the budget allows; a wide directory (a hundred locale folders)
//! after the narrower ones. Then the code files listed get their top-level outlines,
//! shallowest first (package roots before the modules under them), then every signature,
//! and only then do tests and documents get theirs, until the budget is spent. When not every path fits, paths take at most 60% of the budget and the
//! rest outlines the code listed. A directory too large to open stays a counted line, so the
//! overview of a 20,000-file repository still fits a small budget and shows some of its code.

use crate::error::Result;
use crate::flight_plan::{FlightPlan, Level, Rule};
use crate::pack::{fit, is_root_name};
use crate::relevance::is_auxiliary;
use crate::render::header;
use crate::scan::RepoMap;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// The directory part of a path, with its trailing `/` (`""` at the root).
fn parent(path: &str) -> &str {
    path.rfind('/').map_or("", |i| &path[..=i])
}

fn depth(dir: &str) -> usize {
    dir.matches('/').count()
}

/// Tokens of a collapsed line for `dir` holding `n` files.
fn dir_line(plan: &FlightPlan, dir: &str, n: usize) -> usize {
    let shown = if dir.is_empty() { "./" } else { dir };
    let noun = if n == 1 { "file" } else { "files" };
    plan.tokenizer.count(&format!("{shown} ({n} {noun})\n"))
}

/// A directory with more entries (files and subdirectories) than this is wide: opened after
/// the narrower ones.
const WIDE_DIR: usize = 32;

/// The most of the budget paths and folder lines take when not every path fits: the rest
/// outlines the files listed.
const PATHS_SHARE: f64 = 0.6;

/// A plan showing `map` breadth first within `tokens`: folders, then files, then the code's
/// top-level symbols and signatures, then the outlines of tests and documents.
pub(crate) fn overview(
    map: &RepoMap,
    goal: &str,
    tokens: usize,
    plan: FlightPlan,
) -> Result<FlightPlan> {
    let files = map.files();
    // Directory tree: files directly in each directory, subdirectories, files below.
    let mut direct: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    let mut below: HashMap<String, usize> = HashMap::new();
    let mut code_below: HashMap<String, usize> = HashMap::new();
    let mut children: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (i, f) in files.iter().enumerate() {
        let dir = parent(&f.path).to_string();
        direct.entry(dir.clone()).or_default().push(i);
        let mut d = dir.as_str();
        loop {
            *below.entry(d.to_string()).or_default() += 1;
            *code_below.entry(d.to_string()).or_default() += usize::from(f.lang.is_some());
            if d.is_empty() {
                break;
            }
            let up = parent(&d[..d.len() - 1]);
            children
                .entry(up.to_string())
                .or_default()
                .insert(d.to_string());
            d = up;
        }
    }
    let path_cost = |i: usize| plan.tokenizer.count(&format!("{}\n", files[i].path));
    let mut remaining = tokens.saturating_sub(plan.tokenizer.count(&header(&plan)));
    // The root starts collapsed into its top-level entries; open directories breadth first.
    // Reserve the line that heads the paths when outlines come first.
    remaining = remaining.saturating_sub(8);
    // Directories open shallowest first, in path order, except that those of tests,
    // benches and examples, and those mostly of files that are not code (docs), wait until
    // the code's directories at every depth had their turn: a `src/` layout's package opens
    // before `docs/` lists its pages.
    // (An empty tree has no root entry: looked up, not indexed.)
    let count = |m: &HashMap<String, usize>, d: &str| m.get(d).copied().unwrap_or(0);
    let secondary = |d: &str| is_auxiliary(d) || count(&code_below, d) * 2 < count(&below, d);
    // A directory of more than [`WIDE_DIR`] entries (Django's `conf/locale/`, a hundred
    // three-file folders) opens only after every narrower one at every depth: its lines would
    // take the budget of the code's folders. At one depth, the directories holding more files
    // open first.
    let entries =
        |d: &str| direct.get(d).map_or(0, Vec::len) + children.get(d).map_or(0, BTreeSet::len);
    let key = |k: String| {
        let wide = entries(&k) > WIDE_DIR;
        (
            secondary(&k),
            wide,
            depth(&k),
            std::cmp::Reverse(count(&below, &k)),
            k,
        )
    };
    // Opens directories within `budget`: those opened, in order, and the tokens left.
    let open_dirs = |mut remaining: usize| {
        let mut opened: HashSet<String> = HashSet::new();
        let mut order: Vec<String> = Vec::new();
        let mut queue = BTreeSet::from([key(String::new())]);
        let mut first = true;
        while let Some((_, _, _, _, dir)) = queue.pop_first() {
            let kids: Vec<String> = children.get(&dir).into_iter().flatten().cloned().collect();
            let opened_cost: usize = direct
                .get(&dir)
                .map_or(0, |v| v.iter().map(|&i| path_cost(i)).sum::<usize>())
                + kids
                    .iter()
                    .map(|k| dir_line(&plan, k, below[k]))
                    .sum::<usize>();
            let closed_cost = if first {
                0
            } else {
                dir_line(&plan, &dir, below[&dir])
            };
            let extra = opened_cost.saturating_sub(closed_cost);
            if first && opened_cost > remaining {
                // Not even the top level fits: one counted line per top-level entry.
                break;
            }
            if extra <= remaining {
                remaining -= extra;
                opened.insert(dir.clone());
                order.push(dir);
                queue.extend(kids.into_iter().map(key));
            }
            first = false;
        }
        (opened, order, remaining)
    };
    let full = open_dirs(remaining);
    let all_open = below.keys().all(|d| full.0.contains(d));
    let probe = FlightPlan {
        rules: Vec::new(),
        ..plan.clone()
    };
    let mut costs = crate::pack::Costs::new(map, &probe);
    if all_open {
        map.outline_all();
    }
    // The rules for the directories opened, then top-level outlines of the files listed
    // (every file, when every path is) while `remaining` lasts: the code before tests,
    // benches and examples (a `src/` layout's package before `tests/`), and before documents'
    // headings (a README's, a changelog's, `docs/*.md`), shallowest files first. Also how many
    // files are outlined.
    let mut rules_for = |(opened, order, mut remaining): (HashSet<String>, Vec<String>, usize)| {
        let folded = |path: &str| Rule {
            collapse: true,
            ..Rule::new(path, Level::Path)
        };
        let mut rules = vec![folded("**")];
        for dir in &order {
            // Files right in the directory as paths; its subdirectories stay collapsed unless
            // opened themselves (a more specific rule).
            rules.push(Rule::new(format!("{dir}*"), Level::Path));
            for k in children.get(dir).into_iter().flatten() {
                if !opened.contains(k) {
                    rules.push(folded(k));
                }
            }
        }
        let mut by_depth: Vec<usize> = (0..files.len())
            .filter(|&i| all_open || opened.contains(parent(&files[i].path)))
            .collect();
        // At one depth, folder by folder in turns: each folder's first file (its package
        // root, else its largest) before any folder's second, so that a budget that outlines
        // twenty files reaches `runtime/` and `sync/`, not twenty files of `fs/`.
        let mut turn = vec![0usize; files.len()];
        let mut in_dir: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for &i in &by_depth {
            in_dir.entry(parent(&files[i].path)).or_default().push(i);
        }
        for members in in_dir.values_mut() {
            members.sort_by_key(|&i| {
                let name = files[i].path.rsplit('/').next().unwrap_or("");
                (!is_root_name(name), std::cmp::Reverse(files[i].size), i)
            });
            for (k, &i) in members.iter().enumerate() {
                turn[i] = k;
            }
        }
        by_depth.sort_by_cached_key(|&i| {
            let path = &files[i].path;
            let document = files[i].lang.is_none();
            (
                is_auxiliary(path),
                document,
                depth(path),
                turn[i],
                path.clone(),
            )
        });
        // The code's files first (their top-level outlines, then every signature, in the same
        // order, while it lasts), then the outlines of tests, benches, examples and documents:
        // the names of a package's methods say more of it than the names of its tests (flask
        // at 4,000 tokens showed `class Flask(Scaffold)` alone beside 481 tokens of test names).
        let is_code = |i: usize| files[i].lang.is_some() && !is_auxiliary(&files[i].path);
        let mut outlined = 0;
        let mut code: Vec<(usize, usize)> = Vec::new();
        let (first, rest): (Vec<usize>, Vec<usize>) = by_depth.iter().partition(|&&i| is_code(i));
        for (pass, list) in [first, rest].into_iter().enumerate() {
            for i in list {
                let (now, _) = costs.cost(i, Level::Path);
                let (next, got) = costs.cost(i, Level::TopLevel);
                if got == Level::TopLevel && next.saturating_sub(now) <= remaining {
                    remaining -= next.saturating_sub(now);
                    if pass == 0 {
                        code.push((i, rules.len()));
                    }
                    rules.push(Rule::new(files[i].path.clone(), Level::TopLevel));
                    outlined += 1;
                }
            }
            if pass > 0 {
                break;
            }
            for &(i, r) in &code {
                let (now, _) = costs.cost(i, Level::TopLevel);
                let (next, got) = costs.cost(i, Level::Signatures);
                if got == Level::Signatures && next > now && next - now <= remaining {
                    remaining -= next.saturating_sub(now);
                    rules[r].level = Level::Signatures;
                }
            }
        }
        (rules, outlined)
    };
    // Too many paths to list them all (Django's 6,388 files): the paths take at most
    // [`PATHS_SHARE`] of the budget, and the rest outlines the files listed, shallowest code
    // first, rather than a hundred more folders' names; unless that outlines nothing (a budget
    // too small for any of the listed files' outlines).
    let capped = (!all_open).then(|| {
        let spare = remaining - (remaining as f64 * PATHS_SHARE) as usize;
        let (opened, order, left) = open_dirs(remaining - spare);
        rules_for((opened, order, left + spare))
    });
    let rules = match capped {
        Some((rules, outlined)) if outlined > 0 => rules,
        _ => rules_for(full).0,
    };
    // Estimates leave out the "Other files" line and rounding: fit makes it exact, lowering
    // the last (deepest) additions first.
    let n = rules.len().max(1) as f64;
    let values: HashMap<String, f64> = rules
        .iter()
        .enumerate()
        .map(|(k, r)| (r.path.clone(), 1.0 - k as f64 / n))
        .collect();
    let planned = FlightPlan {
        goal: goal.to_string(),
        rules,
        ..plan
    };
    Ok(fit(map, planned, &values)?.plan)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::render;

    /// Tokens of a context listing every path of `map`.
    fn every_path_tokens(map: &RepoMap) -> usize {
        let plan = FlightPlan {
            rules: vec![Rule::new("**", Level::Path)],
            ..FlightPlan::new("", 100_000)
        };
        render(map, &plan).unwrap().tokens
    }

    #[test]
    fn code_is_outlined_before_documents_headings() {
        let mut changes = String::from("# Changes\n\n");
        for v in 0..60 {
            changes.push_str(&format!("## Version 1.{v}.0\n\nFixed things.\n\n"));
        }
        let files: Vec<(String, String)> = vec![
            ("CHANGES.md".into(), changes),
            (
                "README.md".into(),
                "# Tool\n\n## Install it\n\nRun the installer for your platform and follow its prompts.\n\n## Use it\n\nPoint it at a folder of notes and ask it questions about them.\n".into(),
            ),
            ("docs/guide.md".into(), "# Guide\n\n## First steps\n".into()),
            (
                "src/tool/core.py".into(),
                (0..6)
                    .map(|k| {
                        format!("def step_{k}(args, options, context):\n    return args\n\n\n")
                    })
                    .collect(),
            ),
            (
                "tests/test_core.py".into(),
                "def test_parse():\n    pass\n".into(),
            ),
        ];
        let (_d, map) = crate::scan::temp_map(&files);
        let probe = FlightPlan::new("", 100_000);
        let mut costs = crate::pack::Costs::new(&map, &probe);
        let k = |p: &str| map.files().iter().position(|f| f.path == p).unwrap();
        let changes = costs.cost(k("CHANGES.md"), Level::TopLevel).0;
        let code = costs.cost(k("src/tool/core.py"), Level::TopLevel).0;
        assert!(
            changes > 3 * code,
            "the changelog's headings must be costly"
        );
        let readme = costs.cost(k("README.md"), Level::TopLevel).0;
        assert!(
            readme <= code,
            "the README's headings must fit in the code's room"
        );
        // Every path, and room for the code's outline alone.
        let everything = every_path_tokens(&map);
        // The overview reserves a few tokens for its own lines.
        let slack = 12;
        assert!(readme > slack, "{readme}");
        let budget = everything + code + slack;
        let plan = overview(&map, "", budget, FlightPlan::new("", budget)).unwrap();
        let out = render(&map, &plan).unwrap();
        assert!(out.tokens <= budget);
        assert_eq!(
            out.level_of("src/tool/core.py"),
            Level::TopLevel,
            "{}",
            out.text
        );
        assert_eq!(out.level_of("README.md"), Level::Path, "{}", out.text);
        // With room for everything, documents show their headings too.
        let plan = overview(&map, "", 100_000, FlightPlan::new("", 100_000)).unwrap();
        let out = render(&map, &plan).unwrap();
        assert_eq!(out.level_of("README.md"), Level::TopLevel, "{}", out.text);
    }

    #[test]
    fn a_tree_too_large_to_list_outlines_its_code_instead_of_opening_wide_folders() {
        let mut files: Vec<(String, String)> = (0..60)
            .map(|k| {
                (
                    format!("pkg/locale/lang_{k:02}/formats.py"),
                    "DATE_FORMAT = 'j F Y'\n".to_string(),
                )
            })
            .collect();
        files.push(("pkg/__init__.py".into(), "def setup():\n    pass\n".into()));
        for name in ["engine", "models", "signals"] {
            files.push((
                format!("pkg/core/{name}.py"),
                format!("class {name}_base:\n    pass\n\n\ndef make_{name}(options):\n    return options\n"),
            ));
        }
        let (_d, map) = crate::scan::temp_map(&files);
        let plan = overview(&map, "", 300, FlightPlan::new("", 300)).unwrap();
        let out = render(&map, &plan).unwrap();
        assert!(out.tokens <= 300, "{}", out.tokens);
        // The wide folder stays one counted line; the code is outlined, not only listed.
        assert!(
            out.text.contains("pkg/locale/ (60 files)\n"),
            "{}",
            out.text
        );
        for name in ["engine", "models", "signals"] {
            let path = format!("pkg/core/{name}.py");
            assert_eq!(out.level_of(&path), Level::TopLevel, "{}", out.text);
        }
    }

    #[test]
    fn outlines_take_turns_across_the_folders_of_one_depth() {
        let mut files: Vec<(String, String)> = (0..6)
            .map(|k| {
                (
                    format!("src/alpha/part_{k}.py"),
                    format!("def alpha_step_{k}(options, context):\n    return options\n"),
                )
            })
            .collect();
        files.push((
            "src/zeta/core.py".into(),
            "def zeta_core_entry(options, context):\n    return options\n".into(),
        ));
        let (_d, map) = crate::scan::temp_map(&files);
        let everything = every_path_tokens(&map);
        // Room for every path and two outlines (and the line heading the paths).
        let budget = everything + 60;
        let plan = overview(&map, "", budget, FlightPlan::new("", budget)).unwrap();
        let out = render(&map, &plan).unwrap();
        assert!(out.tokens <= budget);
        assert_eq!(
            out.level_of("src/zeta/core.py"),
            Level::TopLevel,
            "{}",
            out.text
        );
        assert_eq!(
            out.level_of("src/alpha/part_1.py"),
            Level::Path,
            "{}",
            out.text
        );
    }

    #[test]
    fn room_left_after_every_outline_shows_the_code_s_signatures() {
        let class = "class Session:\n    def send(self, request):\n        return request\n\n    def close(self):\n        pass\n";
        let (_d, map) = crate::scan::temp_map(&[
            ("src/app/session.py", class),
            ("tests/test_session.py", class),
            ("README.md", "# App\n\n## Usage\n\nRun it.\n"),
        ]);
        let plan = overview(&map, "", 2_000, FlightPlan::new("", 2_000)).unwrap();
        let out = render(&map, &plan).unwrap();
        assert!(out.tokens <= 2_000);
        assert_eq!(
            out.level_of("src/app/session.py"),
            Level::Signatures,
            "{}",
            out.text
        );
        assert!(out.text.contains("def send(self, request)"), "{}", out.text);
        // Tests and documents keep their top-level outlines.
        assert_eq!(
            out.level_of("tests/test_session.py"),
            Level::TopLevel,
            "{}",
            out.text
        );
        assert_eq!(out.level_of("README.md"), Level::TopLevel, "{}", out.text);
        // A tighter budget keeps the code's signatures before the tests' and documents'
        // outlines: they are its last additions, the first to go.
        let tight = out.tokens - 8;
        let plan = overview(&map, "", tight, FlightPlan::new("", tight)).unwrap();
        let out = render(&map, &plan).unwrap();
        assert!(out.tokens <= tight);
        assert_eq!(
            out.level_of("src/app/session.py"),
            Level::Signatures,
            "{}",
            out.text
        );
        assert!(
            out.level_of("tests/test_session.py") < Level::TopLevel
                || out.level_of("README.md") < Level::TopLevel,
            "{}",
            out.text
        );
    }

    #[test]
    fn an_empty_tree_has_an_overview_of_its_header() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("empty")).unwrap();
        let map = RepoMap::open(dir.path()).unwrap();
        assert!(map.files().is_empty());
        let plan = overview(&map, "", 500, FlightPlan::new("", 500)).unwrap();
        let out = render(&map, &plan).unwrap();
        assert!(out.shown.is_empty() && out.tokens <= 500, "{}", out.text);
    }

    #[test]
    fn build_output_and_vendored_code_open_after_the_sources() {
        let mut files: Vec<(String, String)> = (0..8)
            .map(|k| {
                (
                    format!("build/module_{k}.js"),
                    "export function f() {}\n".to_string(),
                )
            })
            .collect();
        for k in 0..8 {
            files.push((
                format!("src/app/core/part_{k}.ts"),
                "export function run() {}\n".to_string(),
            ));
        }
        let (_d, map) = crate::scan::temp_map(&files);
        // Room for the eight build files' paths or for the sources', not both.
        let plan = overview(&map, "", 90, FlightPlan::new("", 90)).unwrap();
        let out = render(&map, &plan).unwrap();
        assert!(out.text.contains("build/ (8 files)\n"), "{}", out.text);
        assert!(
            out.text.contains("src/app/core/part_7.ts\n"),
            "{}",
            out.text
        );
    }
}
