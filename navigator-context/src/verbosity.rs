//! Resolving a file's verbosity from the Flight Plan's glob rules: the most specific rule wins.

use crate::error::{Error, Result};
use crate::flight_plan::{is_literal, rule_globs, Level, Rule, META};
use globset::{GlobSet, GlobSetBuilder};
use std::collections::HashMap;

/// The rule path that matches every file.
const EVERY_PATH: &str = "**";

/// The rule that won a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Resolved {
    /// Index of the winning rule in the plan.
    pub rule: usize,
    /// Its level.
    pub level: Level,
    /// Whether the rule names this file exactly (lifts the huge-file cap).
    pub exact: bool,
}

/// A plan's rules, compiled for matching.
pub(crate) struct RuleSet {
    rules: Vec<Rule>,
    set: GlobSet,
    /// The rule each glob of `set` belongs to (a rule may match through two readings).
    owner: Vec<usize>,
    /// Plain-path rules (most of an explored plan's: one per file it shows), by path without
    /// a trailing `/`: the rule and whether it matches that path itself (a `dir/` rule matches
    /// only below it). Looked up per prefix of a file's path, instead of compiled into `set`:
    /// fitting a plan renders it dozens of times, and compiling hundreds of globs each time
    /// took seconds.
    literal: HashMap<String, Vec<(usize, bool)>>,
    /// Rules of path `**` (every plan's fallback), which match every path: kept out of `set`,
    /// so that a plan of plain paths and `**` resolves a file without running a glob.
    everywhere: Vec<usize>,
    /// (literal segments, literal chars) per rule.
    weight: Vec<(usize, usize)>,
}

/// The directory a collapsing rule folds files into (`""` for the repository root).
pub(crate) fn collapse_dir(rule_path: &str) -> String {
    let literal = rule_path.split(META).next().unwrap_or("");
    if !rule_path.contains(META) && !rule_path.ends_with('/') {
        return format!("{rule_path}/");
    }
    match literal.rfind('/') {
        Some(i) => literal[..=i].to_string(),
        None => String::new(),
    }
}

impl RuleSet {
    pub(crate) fn compile(rules: &[Rule]) -> Result<RuleSet> {
        let mut b = GlobSetBuilder::new();
        let mut owner = Vec::new();
        let mut literal: HashMap<String, Vec<(usize, bool)>> = HashMap::new();
        let mut everywhere = Vec::new();
        for (i, r) in rules.iter().enumerate() {
            if r.path == EVERY_PATH {
                everywhere.push(i);
                continue;
            }
            if is_literal(&r.path) {
                let (key, itself) = match r.path.strip_suffix('/') {
                    Some(dir) => (dir, false),
                    None => (r.path.as_str(), true),
                };
                literal
                    .entry(key.to_string())
                    .or_default()
                    .push((i, itself));
                continue;
            }
            let globs = rule_globs(&r.path)
                .map_err(|m| Error::plan(None, format!("rules[{i}].path"), m))?;
            for glob in globs {
                b.add(glob);
                owner.push(i);
            }
        }
        let set = b
            .build()
            .map_err(|e| Error::plan(None, "rules", e.to_string()))?;
        let weight = rules
            .iter()
            .map(|r| {
                let segs = r
                    .path
                    .split('/')
                    .filter(|s| !s.is_empty() && !s.contains(META))
                    .count();
                let chars = r.path.chars().filter(|c| !META.contains(c)).count();
                (segs, chars)
            })
            .collect();
        Ok(RuleSet {
            rules: rules.to_vec(),
            set,
            owner,
            literal,
            everywhere,
            weight,
        })
    }

    /// The winning rule for `path`, or `None` when no rule matches (the file is hidden).
    pub(crate) fn resolve(&self, path: &str) -> Option<Resolved> {
        let globbed = if self.owner.is_empty() {
            Vec::new()
        } else {
            self.set.matches(path)
        };
        // Plain-path rules naming the file, or a directory above it.
        let mut plain = Vec::new();
        if !self.literal.is_empty() {
            let itself = self.literal.get(path).into_iter().flatten();
            plain.extend(itself.filter(|(_, own)| *own).map(|(i, _)| *i));
            for (k, _) in path.match_indices('/') {
                let above = self.literal.get(&path[..k]).into_iter().flatten();
                plain.extend(above.map(|(i, _)| *i));
            }
        }
        globbed
            .into_iter()
            .map(|g| self.owner[g])
            .chain(plain)
            .chain(self.everywhere.iter().copied())
            .map(|i| {
                let exact = self.rules[i].path == path;
                ((exact, self.weight[i].0, self.weight[i].1, i), i)
            })
            .max_by_key(|(key, _)| *key)
            .map(|((exact, ..), i)| Resolved {
                rule: i,
                level: self.rules[i].level,
                exact,
            })
    }

    pub(crate) fn rule(&self, i: usize) -> &Rule {
        &self.rules[i]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn level(rules: &[Rule], path: &str) -> Option<Level> {
        RuleSet::compile(rules)
            .unwrap()
            .resolve(path)
            .map(|r| r.level)
    }

    #[test]
    fn most_specific_rule_wins_regardless_of_order() {
        let rules = vec![
            Rule::new("src/auth/middleware.rs", Level::Full),
            Rule::new("src/auth/", Level::Signatures),
            Rule::new("**/*.rs", Level::TopLevel),
            Rule::new("**", Level::Path),
        ];
        assert_eq!(level(&rules, "src/auth/middleware.rs"), Some(Level::Full));
        assert_eq!(
            level(&rules, "src/auth/session.rs"),
            Some(Level::Signatures)
        );
        assert_eq!(level(&rules, "src/db.rs"), Some(Level::TopLevel));
        assert_eq!(level(&rules, "README.md"), Some(Level::Path));
        assert_eq!(level(&[Rule::new("src/", Level::Full)], "lib/x.rs"), None);
    }

    #[test]
    fn equal_specificity_later_rule_wins_and_literal_dirs_match_below() {
        let rules = vec![
            Rule::new("src/*.rs", Level::Full),
            Rule::new("src/*.rs", Level::Path),
        ];
        assert_eq!(level(&rules, "src/a.rs"), Some(Level::Path));
        assert_eq!(
            level(&[Rule::new("src", Level::TopLevel)], "src/deep/a.rs"),
            Some(Level::TopLevel)
        );
        // `*` does not cross directories.
        assert_eq!(
            level(&[Rule::new("src/*.rs", Level::Full)], "src/deep/a.rs"),
            None
        );
    }

    #[test]
    fn paths_with_glob_characters_also_match_literally() {
        // Next.js routes and odd names: the exact path a plan writes must find its file.
        let rules = vec![
            Rule::new("**", Level::Path),
            Rule::new("pages/blog/[slug].tsx", Level::Full),
            Rule::new("{a,b}.py", Level::Signatures),
            Rule::new("app/[id]/", Level::TopLevel),
            Rule::new("weird\\name*.rs", Level::Full),
            // How the map writes a name that is not UTF-8.
            Rule::new("src/caf\\xe9.py", Level::Full),
        ];
        assert_eq!(level(&rules, "pages/blog/[slug].tsx"), Some(Level::Full));
        assert_eq!(level(&rules, "{a,b}.py"), Some(Level::Signatures));
        assert_eq!(level(&rules, "app/[id]/page.tsx"), Some(Level::TopLevel));
        assert_eq!(level(&rules, "weird\\name*.rs"), Some(Level::Full));
        assert_eq!(level(&rules, "src/caf\\xe9.py"), Some(Level::Full));
        // The glob reading still holds.
        assert_eq!(level(&rules, "pages/blog/s.tsx"), Some(Level::Full));
        assert_eq!(level(&rules, "a.py"), Some(Level::Signatures));
        assert_eq!(level(&rules, "app/i/page.tsx"), Some(Level::TopLevel));
        let exact = RuleSet::compile(&rules)
            .unwrap()
            .resolve("pages/blog/[slug].tsx")
            .unwrap();
        assert!(exact.exact, "{exact:?}");
    }

    #[test]
    fn plain_paths_match_as_their_globs_do() {
        // Each plain path's glob reading (`x` as `{x,x/**}`, `d/` as `d/**`), compiled alone,
        // against the lookup by prefixes, over files in and around them.
        let plain = [
            "src",
            "src/",
            "src/a.rs",
            "src/deep/",
            "src/deep/b.rs",
            "README.md",
            "a b/c.py",
        ];
        let files = [
            "src",
            "src/a.rs",
            "src/a.rs/x",
            "src/ab.rs",
            "srcx/a.rs",
            "src/deep",
            "src/deep/b.rs",
            "src/deep/c/d.rs",
            "README.md",
            "README.md.bak",
            "docs/README.md",
            "a b/c.py",
            "a/c.py",
        ];
        for rule in plain {
            let glob = crate::flight_plan::compile_glob(rule)
                .unwrap()
                .compile_matcher();
            let set = RuleSet::compile(&[Rule::new(rule, Level::Full)]).unwrap();
            assert!(set.owner.is_empty(), "{rule} is looked up, not globbed");
            for file in files {
                assert_eq!(
                    set.resolve(file).is_some(),
                    glob.is_match(file),
                    "rule {rule:?}, file {file:?}"
                );
            }
        }
        // Mixed with globs, the most specific still wins, and a plain rule naming the file
        // is exact.
        let rules = vec![
            Rule::new("**", Level::Path),
            Rule::new("src/", Level::TopLevel),
            Rule::new("src/*.rs", Level::Signatures),
            Rule::new("src/a.rs", Level::Full),
        ];
        let set = RuleSet::compile(&rules).unwrap();
        assert_eq!(
            set.resolve("src/a.rs"),
            Some(Resolved {
                rule: 3,
                level: Level::Full,
                exact: true
            })
        );
        assert_eq!(set.resolve("src/b.rs").map(|r| r.rule), Some(2));
        assert_eq!(set.resolve("src/x/y.py").map(|r| r.rule), Some(1));
        assert_eq!(set.resolve("lib/y.py").map(|r| r.rule), Some(0));
    }

    #[test]
    fn collapse_dirs_come_from_the_literal_prefix() {
        assert_eq!(collapse_dir("vendor/"), "vendor/");
        assert_eq!(collapse_dir("vendor"), "vendor/");
        assert_eq!(collapse_dir("a/b/**/*.js"), "a/b/");
        assert_eq!(collapse_dir("**"), "");
    }
}
