//! Which files a goal's clues name: paths and traceback frames matched on their trailing
//! segments, dotted names and Rust paths matched as module paths, identifiers matched against
//! the symbols files define.
//!
//! A frame from a user's machine (`/home/me/.venv/.../site-packages/click/core.py`) names the
//! repository's `src/click/core.py` by its tail, so paths match on the longest common suffix of
//! segments; a match on the file name alone counts only when few files share that name, and
//! for a path with folders only when the file is at the repository's root.

use crate::bm25::{misspelling_edits, TYPO_WEIGHT};
use crate::goal::{FrameKind, Goal};
use crate::lang::Lang;
use crate::members::distinctive;
use crate::scan::FileEntry;
use std::collections::{BTreeMap, BTreeSet};

/// A clue that a file name alone matches in more files than this says nothing.
const MAX_NAME_TWINS: usize = 3;
/// Identifiers defined in more files than this are too generic to point anywhere.
const MAX_DEFINERS: usize = 4;
/// Definitions weigh this much against a path match.
const W_DEFINES: f64 = 0.5;
/// A clue the goal's first line names counts this many times: a report's title names what
/// broke, its body also names what the reproduction merely uses.
const W_TITLE: f64 = 4.0;
/// Folders a crate's or package's module tree starts in (Cargo's `src/`, PSR-4's `src/` or
/// `app/`, a `lib/` layout).
const SOURCE_ROOTS: &[&str] = &["src", "lib", "app"];
/// A member (a field, a variant, a class attribute) the goal names counts this share of a
/// definition.
const W_MEMBER: f64 = 0.25;

/// Whether `title` holds `clue` as a whole word (not inside a longer identifier).
fn in_title(title: &str, clue: &str) -> bool {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    !clue.is_empty()
        && title.match_indices(clue).any(|(k, _)| {
            let before = title[..k].chars().next_back();
            let after = title[k + clue.len()..].chars().next();
            !before.is_some_and(is_word) && !after.is_some_and(is_word)
        })
}

/// Per-file evidence from the goal's clues (not normalised), with a reason per file.
pub(crate) struct Mentions {
    pub score: Vec<f64>,
    pub reasons: Vec<Vec<String>>,
    /// Per file, in [0, 1]: whether the reported failure happened there (a panic's location,
    /// the innermost traceback or backtrace frame inside the repository), shared among the
    /// files that frame could name.
    pub failed: Vec<f64>,
    /// Per file: whether the goal's first line writes its whole path (`docs/options.md`,
    /// `README.md`), not only a tail of it: the person asks for that file, whatever its kind.
    pub spelled: Vec<bool>,
}

fn segments(path: &str) -> Vec<&str> {
    path.split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect()
}

/// How many trailing segments two paths share.
fn common_tail(a: &[&str], b: &[&str]) -> usize {
    a.iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count()
}

/// Files whose paths best match `tail` (segments, last one a file name), with the depth
/// matched; empty when nothing matches or a bare file name is too common to tell.
fn best_tail_matches(file_segs: &[Vec<&str>], tail: &[&str]) -> Vec<usize> {
    let depths: Vec<usize> = file_segs.iter().map(|f| common_tail(f, tail)).collect();
    let best = depths.iter().copied().max().unwrap_or(0);
    if best == 0 {
        return Vec::new();
    }
    let mut hits: Vec<usize> = (0..depths.len()).filter(|&i| depths[i] == best).collect();
    // A path with folders that shares only its file name with a file below other folders
    // names another program's file (the reporter's `/srv/app/views.py`, the standard
    // library's `json/__init__.py`, `node_modules/cookie/index.js`), not that one; a file at
    // the repository's root is every installed copy's tail (`site-packages/six.py`).
    if best == 1 && tail.len() > 1 {
        hits.retain(|&i| file_segs[i].len() == 1);
        if hits.is_empty() {
            return Vec::new();
        }
    }
    // A whole path that matches exactly is evidence however many twins its name has.
    if best < tail.len() && best == 1 && hits.len() > MAX_NAME_TWINS {
        return Vec::new();
    }
    if hits.len() > 2 * MAX_NAME_TWINS {
        return Vec::new();
    }
    hits
}

/// Module paths a qualified name can live at: `a.b.c` → `a/b/c.py`, `a/b/c/__init__.py`,
/// `a/b.py` (c defined in b), ...; with `own_root` (the first segment names the repository's
/// own crate or package), Rust `krate::a::b` also as `a/b.rs`, `a/b/mod.rs`; a class of the
/// JVM `com.acme.Parser` as `com/acme/Parser.java` (`.kt`, `.scala`), of .NET as `.cs`, of
/// PHP (`App\Http\Router`, read as `App::Http::Router`) as `.php`; Ruby's `Acme::HttpClient`
/// as `acme/http_client.rb`.
fn module_candidates(segs: &[String], own_root: bool) -> Vec<Vec<String>> {
    // `stem` with `ext` on its last segment.
    let with_ext = |stem: &[String], ext: &str| {
        let mut p = stem.to_vec();
        if let Some(last) = p.last_mut() {
            last.push_str(ext);
        }
        p
    };
    let mut out = Vec::new();
    // Longest stems first; each also without its first segment when that is the crate or
    // package name that a Rust crate keeps as `src/`. (Any other first segment is a receiver
    // a snippet calls through, `app.config[...]`, `reader.searcher()`: not a module.)
    let skip = usize::from(own_root);
    let stems: Vec<&[String]> = (1..=segs.len())
        .rev()
        .flat_map(|k| [&segs[..k], &segs[skip.min(k - 1)..k]])
        .filter(|s| !s.is_empty())
        .collect();
    for &stem in &stems {
        for ext in [".py", ".rs", ".java", ".kt", ".scala", ".cs", ".php"] {
            out.push(with_ext(stem, ext));
        }
        if stem
            .iter()
            .any(|s| s.chars().any(|c| c.is_ascii_uppercase()))
        {
            let snake: Vec<String> = stem.iter().map(|s| snake_case(s)).collect();
            out.push(with_ext(&snake, ".rb"));
        }
        for root in ["__init__.py", "mod.rs", "lib.rs"] {
            let mut p = stem.to_vec();
            p.push(root.to_string());
            out.push(p);
        }
    }
    // A .NET project folder is named by its namespace's first parts (`Acme.Store/Cache/
    // LruCache.cs` holds `Acme.Store.Cache.LruCache`): the type (the name, or the name less
    // its member) under its last namespace parts.
    for end in [segs.len(), segs.len().saturating_sub(1)] {
        for k in (2..end).rev() {
            out.push(with_ext(&segs[end - k..end], ".cs"));
        }
    }
    // A Swift type in the file of its name, under its module's folder (`Store.Cache` in
    // `Sources/Store/Cache.swift`); last, as the loosest reading.
    for &stem in &stems {
        out.push(with_ext(stem, ".swift"));
    }
    out
}

/// The member of `q` named after a one-segment module `cand` (from [`module_candidates`]):
/// `getLogger` of `logging.getLogger` read as `logging.py`, `skip` of `pytest.mark.skip` read as
/// `mark/__init__.py` past the own package `pytest`. `None` for a longer module path or when
/// nothing follows.
fn next_member<'q>(q: &'q [String], cand: &[String], own_root: bool) -> Option<&'q str> {
    let stem: Vec<&str> = match cand.last().map(String::as_str) {
        Some("__init__.py" | "mod.rs" | "lib.rs") => {
            cand[..cand.len() - 1].iter().map(String::as_str).collect()
        }
        _ => cand
            .iter()
            .map(|s| s.rsplit_once('.').map_or(s.as_str(), |(stem, _)| stem))
            .collect(),
    };
    if stem.len() != 1 {
        return None;
    }
    // The own package itself (`click` of `click.echo`) re-exports what it is used for.
    if own_root && q.first().map(String::as_str) == Some(stem[0]) {
        return None;
    }
    q.get(usize::from(own_root) + 1).map(String::as_str)
}

/// Whether `file` defines `name`: an item of its outline or a member it declares.
fn defines(file: &FileEntry, name: &str) -> bool {
    crate::scan::symbol_names(file).any(|s| s == name)
        || file
            .code_outline()
            .is_some_and(|o| o.members.iter().any(|m| m == name))
}

/// Whether `file` imports or re-exports `name`: a Rust `use` (`pub use udp::UdpSocket;` in
/// `net/mod.rs`) or a Python `import` (`from .udp import UdpSocket`) naming it.
fn imports(file: &FileEntry, name: &str) -> bool {
    static STATEMENTS: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let statements = STATEMENTS.get_or_init(|| {
        regex::Regex::new(
            r"(?m)\buse\s+[^;]*;|^\s*from\s+\S+\s+import\s+(?:\([^)]*\)|[^\n]*)|^\s*import\s+[^\n]*",
        )
        .expect("a valid built-in pattern")
    });
    file.text().is_some_and(|t| {
        statements.find_iter(t).any(|m| {
            m.as_str()
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .any(|w| w == name)
        })
    })
}

/// `HttpClient` → `http_client`, `JSONParser` → `json_parser` (Ruby's file names of classes).
fn snake_case(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len() + 4);
    for (k, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() && k > 0 {
            let prev = chars[k - 1];
            let next_lower = chars.get(k + 1).is_some_and(|n| n.is_ascii_lowercase());
            if prev.is_ascii_lowercase()
                || prev.is_ascii_digit()
                || (prev.is_ascii_uppercase() && next_lower)
            {
                out.push('_');
            }
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// The file at `path` (repository-relative) of the sorted `files`.
fn file_at<'a>(files: &'a [FileEntry], path: &str) -> Option<&'a FileEntry> {
    files
        .binary_search_by(|f| f.path.as_str().cmp(path))
        .ok()
        .map(|k| &files[k])
}

/// The module path the repository's root `go.mod` declares (`module example.com/app`).
fn go_module(files: &[FileEntry]) -> Option<String> {
    file_at(files, "go.mod")?.text()?.lines().find_map(|l| {
        let rest = l.trim().strip_prefix("module")?;
        let name = rest.trim().trim_matches('"');
        (rest.starts_with(char::is_whitespace) && !name.is_empty()).then(|| name.to_string())
    })
}

/// Whether `path` lies in Go's module cache under a module other than `module`
/// (`/root/go/pkg/mod/github.com/goccy/go-json@v0.10.2/internal/json/decode.go`): a
/// dependency's file, however like the repository's its tail. The cache writes a capital
/// letter as `!` and the letter in lower case.
fn other_go_module(path: &str, module: &str) -> bool {
    let Some((_, cached)) = path.split_once("/pkg/mod/") else {
        return false;
    };
    let Some((escaped, _)) = cached.split_once('@') else {
        return false;
    };
    let mut name = String::with_capacity(escaped.len());
    let mut upper = false;
    for c in escaped.chars() {
        match c {
            '!' => upper = true,
            c if upper => {
                name.push(c.to_ascii_uppercase());
                upper = false;
            }
            c => name.push(c),
        }
    }
    name != module
}

/// The packages the repository is, by its manifests at the root: Go's `go.mod` module, a Ruby
/// gem (`<name>.gemspec`), a Composer package (`composer.json`'s `name`). A frame in an
/// installed copy of another package is a dependency's, however like the repository's its tail.
#[derive(Debug, Default)]
struct OwnPackages {
    go: Option<String>,
    gem: Option<String>,
    composer: Option<String>,
    /// Whether the repository holds a `vendor/` folder itself (then its paths are its own).
    vendors: bool,
    /// Whether the repository has a `Cargo.toml` (without one its crates' names are unknown,
    /// so a frame in any downloaded crate may be its own).
    cargo: bool,
    /// The names a qualified name may start with to name the repository's own code: its Rust
    /// crates (each `Cargo.toml`'s package, `-` read as `_`; `crate`, `self`, `super`), its
    /// Python packages (a folder with an `__init__.py` at the root or under `src/`) and the
    /// namespaces `composer.json` maps to folders (PSR-4's `"App\\": "src/"`).
    roots: BTreeSet<String>,
}

impl OwnPackages {
    fn of(files: &[FileEntry]) -> Self {
        let gem = files
            .iter()
            .filter(|f| !f.path.contains('/'))
            .find_map(|f| f.path.strip_suffix(".gemspec"))
            .map(str::to_string);
        let manifest = file_at(files, "composer.json")
            .and_then(|f| f.text())
            .and_then(|t| serde_json::from_str::<serde_json::Value>(t).ok());
        let composer = manifest
            .as_ref()
            .and_then(|v| v.get("name")?.as_str().map(str::to_ascii_lowercase));
        OwnPackages {
            go: go_module(files),
            gem,
            composer,
            vendors: files.iter().any(|f| f.path.starts_with("vendor/")),
            cargo: files
                .iter()
                .any(|f| f.path.rsplit('/').next() == Some("Cargo.toml")),
            roots: own_roots(files, manifest.as_ref()),
        }
    }

    /// Whether `path` (a frame's file) lies in an installed package other than the
    /// repository's own.
    fn foreign(&self, path: &str) -> bool {
        self.go.as_deref().is_some_and(|m| other_go_module(path, m))
            || (path.ends_with(".rb") && other_gem(path, self.gem.as_deref()))
            || (path.ends_with(".php")
                && !self.vendors
                && other_composer_package(path, self.composer.as_deref()))
            || (path.ends_with(".rs") && self.cargo && other_crate(path, &self.roots))
    }
}

/// Whether `path` lies in a crate Cargo downloaded (`.cargo/registry/src/<index>/hyper-1.6.0/
/// src/error.rs`, `.cargo/git/checkouts/hyper-<hash>/<rev>/src/error.rs`) that is none of the
/// repository's own crates (`own`: package names with `-` read as `_`). Every crate keeps its
/// code under `src/`, so such a frame's tail would otherwise name the repository's own
/// `src/error.rs`.
fn other_crate(path: &str, own: &BTreeSet<String>) -> bool {
    let segs: Vec<&str> = path.split(['/', '\\']).collect();
    let name = segs.windows(4).find_map(|w| match w {
        ["registry", "src", _, dir] => versioned_name(dir),
        ["git", "checkouts", dir, _] => dir.rsplit_once('-').map(|(name, _)| name),
        _ => None,
    });
    name.is_some_and(|n| !own.contains(&n.replace('-', "_")))
}

/// [`OwnPackages::roots`], `composer` being the parsed `composer.json`.
fn own_roots(files: &[FileEntry], composer: Option<&serde_json::Value>) -> BTreeSet<String> {
    let mut roots: BTreeSet<String> = ["crate", "self", "super"].map(String::from).into();
    for section in ["autoload", "autoload-dev"] {
        let map = composer.and_then(|c| c.get(section)?.get("psr-4")?.as_object());
        for ns in map.into_iter().flat_map(|m| m.keys()) {
            if let Some(first) = ns.split('\\').next().filter(|f| !f.is_empty()) {
                roots.insert(first.to_string());
            }
        }
    }
    for f in files {
        let segs: Vec<&str> = f.path.split('/').collect();
        match segs.as_slice() {
            [.., pkg, "__init__.py"]
                if segs.len() == 2 || (segs.len() == 3 && segs[0] == "src") =>
            {
                roots.insert(pkg.to_string());
            }
            [.., "Cargo.toml"] => {
                let name = f
                    .text()
                    .and_then(|t| t.parse::<toml_edit::Document<String>>().ok())
                    .and_then(|d| d.get("package")?.get("name")?.as_str().map(str::to_string));
                if let Some(name) = name {
                    roots.insert(name.replace('-', "_"));
                }
            }
            _ => {}
        }
    }
    roots
}

/// Whether `path` lies in an installed gem (`.../gems/rack-2.2.3/lib/rack/builder.rb`) other
/// than `own`.
fn other_gem(path: &str, own: Option<&str>) -> bool {
    let segs: Vec<&str> = path.split('/').collect();
    segs.windows(2)
        .any(|w| w[0] == "gems" && versioned_name(w[1]).is_some_and(|name| Some(name) != own))
}

/// The package name of an installed package's folder, `name-version` (`rack-2.2.3`,
/// `hyper-util-0.1.10`): what comes before the first `-` followed by a digit.
fn versioned_name(dir: &str) -> Option<&str> {
    dir.match_indices('-')
        .find(|(i, _)| dir[i + 1..].starts_with(|c: char| c.is_ascii_digit()))
        .map(|(i, _)| &dir[..i])
}

/// Whether `path` lies in Composer's `vendor/<vendor>/<package>/` under a package other than
/// `own` (`symfony/console`).
fn other_composer_package(path: &str, own: Option<&str>) -> bool {
    let own = own.and_then(|o| o.split_once('/'));
    let segs: Vec<&str> = path.split('/').collect();
    segs.windows(4).any(|w| {
        w[0] == "vendor"
            && !w[1].is_empty()
            && !own
                .is_some_and(|(v, p)| w[1].eq_ignore_ascii_case(v) && w[2].eq_ignore_ascii_case(p))
    })
}

/// `title` is the goal's first line: the clues it names weigh [`W_TITLE`] times as much.
pub(crate) fn mentions(files: &[FileEntry], copies: &[bool], goal: &Goal, title: &str) -> Mentions {
    let weight = |clue: &str| if in_title(title, clue) { W_TITLE } else { 1.0 };
    let n = files.len();
    let mut score = vec![0.0; n];
    let mut reasons: Vec<Vec<String>> = vec![Vec::new(); n];
    let file_segs: Vec<Vec<&str>> = files.iter().map(|f| segments(&f.path)).collect();
    let own = OwnPackages::of(files);
    // Another package's file, or the reporter's own script (`app.py`, not flask's `app.py`).
    let foreign = |path: &str| own.foreign(path) || goal.names_user_file(path);
    let failed = failure_sites(&file_segs, goal, &foreign, &mut reasons);
    let mut spelled = vec![false; n];
    for p in goal.paths.iter().filter(|p| !foreign(p)) {
        let tail = segments(p);
        if tail.is_empty() {
            continue;
        }
        let hits = best_tail_matches(&file_segs, &tail);
        for &i in &hits {
            // In the title: a report's body spells the paths of the tests it ran, too.
            if common_tail(&file_segs[i], &tail) == file_segs[i].len() && in_title(title, p) {
                spelled[i] = true;
            }
            let depth = common_tail(&file_segs[i], &tail) as f64;
            score[i] += weight(p) * (depth.min(3.0) / 3.0 / hits.len() as f64 + 0.5);
            reasons[i].push(format!("named in the goal as `{p}`"));
        }
    }
    for q in &goal.qualified {
        // The longest module path that names a file, tried from the full name down.
        let own_root = q.first().is_some_and(|r| own.roots.contains(r.as_str()));
        for cand in module_candidates(q, own_root) {
            let tail: Vec<&str> = cand.iter().map(String::as_str).collect();
            let mut hits: Vec<usize> = best_tail_matches(&file_segs, &tail)
                .into_iter()
                .filter(|&i| common_tail(&file_segs[i], &tail) == tail.len())
                .collect();
            // Read past the crate's own name, a module path starts at the crate's source
            // root: `toml_edit::document` is `src/document.rs`, not `src/parser/document.rs`
            // or `tests/document.rs`.
            let past_root = own_root && q.len() > 1 && cand.first() != q.first();
            if past_root && hits.len() > 1 {
                let rooted: Vec<usize> = hits
                    .iter()
                    .copied()
                    .filter(|&i| {
                        let segs = &file_segs[i];
                        let at = segs.len().saturating_sub(tail.len() + 1);
                        segs.len() > tail.len() && SOURCE_ROOTS.contains(&segs[at])
                    })
                    .collect();
                if !rooted.is_empty() {
                    hits = rooted;
                }
            }
            // A one-word module is as often whatever the snippet called through
            // (`logging.getLogger`, `typing.List`, `pytest.mark.skip`): a file of that name is
            // its module only if it defines the member named next.
            if let Some(next) = next_member(q, &cand, own_root) {
                hits.retain(|&i| defines(&files[i], next) || imports(&files[i], next));
            }
            if hits.is_empty() || hits.len() > MAX_NAME_TWINS {
                continue;
            }
            let w = weight(&q.join(".")).max(weight(&q.join("::")));
            for &i in &hits {
                score[i] += w / hits.len() as f64;
                reasons[i].push(format!("module of `{}` named in the goal", q.join(".")));
            }
            break;
        }
    }
    // In name order, so a file's score sums its definitions in the same order every run
    // (a hash map's order changed the last bits of scores, and the reasons' order, between
    // runs).
    // Each with whether it only declares the name: a C or C++ prototype (`void kv_close(kv_t *);`
    // in a header), which counts only when no file defines the name with a body.
    let mut definers: Definers = BTreeMap::new();
    // The files declaring a name as a member (a field, a variant, a class attribute): they
    // count, less, only when no file defines it as an item.
    let mut members: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    let wanted: std::collections::HashSet<&str> =
        goal.identifiers.iter().map(String::as_str).collect();
    for (i, f) in files.iter().enumerate() {
        if let Some(o) = f.code_outline() {
            let c_like = matches!(f.lang, Some(Lang::C | Lang::Cpp));
            // Per name, whether the file only declares it (a forward declaration above the
            // definition is the definition's file).
            let mut here: BTreeMap<&str, bool> = BTreeMap::new();
            for s in o
                .symbols
                .iter()
                .filter(|s| wanted.contains(s.name.as_str()))
            {
                let declares = c_like && s.signature.ends_with(';');
                *here.entry(s.name.as_str()).or_insert(true) &= declares;
            }
            let named = |m: &&String| wanted.contains(m.as_str()) && distinctive(m);
            for m in o.members.iter().filter(named) {
                members.entry(m.as_str()).or_default().push(i);
            }
            for (name, declares) in here {
                definers.entry(name).or_default().push((i, declares));
            }
        }
    }
    // A name some file declares as a member is no misspelling.
    let unresolved = wanted
        .iter()
        .copied()
        .filter(|w| !members.contains_key(w))
        .collect();
    let read_as = misspelt_definitions(files, &unresolved, &mut definers);
    // The languages the goal's frames and paths are written in: a name defined in one of
    // them and in another language (a C `kv_close` and a Python one) is the former's.
    let spoken: BTreeSet<u8> = goal
        .paths
        .iter()
        .filter_map(|p| Lang::from_path(p))
        .map(Lang::family)
        .collect();
    let in_goal_language = |i: usize| files[i].lang.is_some_and(|l| spoken.contains(&l.family()));
    let defined: BTreeSet<&str> = definers.keys().copied().collect();
    for (name, mut who) in definers {
        if who.iter().any(|&(_, declares)| !declares) {
            who.retain(|&(_, declares)| !declares);
        }
        if who.iter().any(|&(i, _)| in_goal_language(i)) {
            who.retain(|&(i, _)| in_goal_language(i));
        }
        // A TypeScript source and its built copies are one definition: the source's.
        if who.iter().any(|&(i, _)| !copies[i]) {
            who.retain(|&(i, _)| !copies[i]);
        }
        let who: Vec<usize> = who.into_iter().map(|(i, _)| i).collect();
        if who.len() > MAX_DEFINERS {
            continue;
        }
        let (w, why) = match read_as.get(name) {
            Some(typo) => (
                weight(typo) * TYPO_WEIGHT,
                format!("defines `{name}`, which the goal's `{typo}` misspells"),
            ),
            None => (weight(name), format!("defines `{name}` named in the goal")),
        };
        for &i in &who {
            score[i] += w * W_DEFINES / who.len() as f64;
            reasons[i].push(why.clone());
        }
    }
    for (name, who) in members {
        if defined.contains(name) || who.len() > MAX_DEFINERS {
            continue;
        }
        for &i in &who {
            score[i] += weight(name) * W_DEFINES * W_MEMBER / who.len() as f64;
            reasons[i].push(format!("declares `{name}` named in the goal"));
        }
    }
    Mentions {
        score,
        reasons,
        failed,
        spelled,
    }
}

/// Per name, the files defining it, each with whether it only declares it (a C prototype).
type Definers<'a> = BTreeMap<&'a str, Vec<(usize, bool)>>;

/// Identifiers of the goal no file defines, at least this long, may misspell one that a file
/// defines ...
pub(crate) const MISSPELT_MIN_LEN: usize = 8;
/// ... one edit away, or two from this length on (an adjacent swap is one edit); each counts
/// [`TYPO_WEIGHT`] of a definition the goal names.
const MISSPELT_TWO_EDITS_LEN: usize = 12;

/// The edits by which `word` misspells `name` (both lower case), when it does: within
/// [`misspelling_edits`] (two from [`MISSPELT_TWO_EDITS_LEN`]), and not as a plural (`WebSockets`
/// of `WebSocket`, `responses` of the module's `Response`: BM25 already meets word forms at their
/// stem).
pub(crate) fn misspelt_as(word: &str, name: &str) -> Option<usize> {
    misspelling_edits(word, name, MISSPELT_TWO_EDITS_LEN)
        .filter(|_| name.trim_end_matches('s') != word.trim_end_matches('s'))
}

/// The definitions of the names the goal's undefined identifiers most likely misspell
/// (`DefaultBodyLimt` → `DefaultBodyLimit`, `get_manny` → `get_many`), added to `definers`:
/// case aside, within [`misspelling_edits`] (two edits from [`MISSPELT_TWO_EDITS_LEN`]), the
/// nearest name,
/// left alone when two names are equally near. Returns each such name with the identifier it
/// was read for.
fn misspelt_definitions<'a>(
    files: &'a [FileEntry],
    wanted: &std::collections::HashSet<&'a str>,
    definers: &mut Definers<'a>,
) -> BTreeMap<&'a str, &'a str> {
    let typos: Vec<(&str, String)> = wanted
        .iter()
        .filter(|w| w.chars().count() >= MISSPELT_MIN_LEN && !definers.contains_key(*w))
        .map(|w| (*w, w.to_lowercase()))
        .collect();
    let mut read_as = BTreeMap::new();
    if typos.is_empty() {
        return read_as;
    }
    // Per identifier: the nearest distance, the names at it, and their definers.
    let mut near: Vec<(usize, Definers)> = vec![(usize::MAX, BTreeMap::new()); typos.len()];
    for (i, f) in files.iter().enumerate() {
        let Some(o) = f.code_outline() else { continue };
        let c_like = matches!(f.lang, Some(Lang::C | Lang::Cpp));
        for s in &o.symbols {
            // (Lower-cased only when near enough in length to be a reading at all.)
            if typos
                .iter()
                .all(|(_, low)| s.name.len().abs_diff(low.len()) > 2)
            {
                continue;
            }
            let name = s.name.to_lowercase();
            for (k, (_, low)) in typos.iter().enumerate() {
                let Some(d) = misspelt_as(low, &name) else {
                    continue;
                };
                if d > near[k].0 {
                    continue;
                }
                if d < near[k].0 {
                    near[k] = (d, BTreeMap::new());
                }
                let declares = c_like && s.signature.ends_with(';');
                let who = near[k].1.entry(s.name.as_str()).or_default();
                match who.iter_mut().find(|(j, _)| *j == i) {
                    Some((_, d)) => *d &= declares,
                    None => who.push((i, declares)),
                }
            }
        }
    }
    for ((typo, _), (_, names)) in typos.iter().zip(near) {
        if names.len() != 1 {
            continue;
        }
        for (name, who) in names {
            if !definers.contains_key(name) {
                definers.insert(name, who);
                read_as.insert(name, *typo);
            }
        }
    }
    read_as
}

/// Where the reported failure happened, per file: every panic location, the innermost Python
/// frame (most recent call last), the innermost backtrace frame and the innermost JavaScript,
/// Java, .NET, Go, Ruby, PHP or C/C++ stack frame that name a file of the repository. A frame outside it (the user's script, the standard library) is skipped, so
/// the failure is placed at the deepest point the repository's code reached.
fn failure_sites(
    file_segs: &[Vec<&str>],
    goal: &Goal,
    foreign: &dyn Fn(&str) -> bool,
    reasons: &mut [Vec<String>],
) -> Vec<f64> {
    let mut failed = vec![0.0; file_segs.len()];
    // Each frame of a kind with the repository files it names (none: outside it).
    let named = |kind: FrameKind| {
        goal.frames
            .iter()
            .filter(move |f| f.kind == kind && !foreign(&f.file))
            .map(|f| (f, best_tail_matches(file_segs, &segments(&f.file))))
    };
    let panics = named(FrameKind::Panic).collect::<Vec<_>>();
    let innermost_python = named(FrameKind::Python).rev().find(|(_, h)| !h.is_empty());
    let innermost_backtrace = named(FrameKind::Backtrace).find(|(_, h)| !h.is_empty());
    let innermost_stack = named(FrameKind::Stack).find(|(_, h)| !h.is_empty());
    for (f, hits) in panics
        .into_iter()
        .chain(innermost_python)
        .chain(innermost_backtrace)
        .chain(innermost_stack)
    {
        for &i in &hits {
            let share = 1.0 / hits.len() as f64;
            if share > failed[i] {
                failed[i] = share;
                let at = f.line.map_or(String::new(), |l| format!(":{l}"));
                reasons[i].push(format!(
                    "the reported failure happened here ({}{at})",
                    f.file
                ));
            }
        }
    }
    failed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tails_pick_the_file_a_site_packages_frame_names() {
        let files = [
            vec!["src", "click", "core.py"],
            vec!["src", "click", "types.py"],
            vec!["docs", "core.py"],
        ];
        let tail = segments("/home/me/.venv/lib/site-packages/click/core.py");
        assert_eq!(best_tail_matches(&files, &tail), vec![0]);
        // A bare name shared by many files says nothing.
        let many: Vec<Vec<&str>> = (0..5).map(|_| vec!["x", "mod.rs"]).collect();
        assert!(best_tail_matches(&many, &["y", "mod.rs"]).is_empty());
        // A path with folders naming only the file name of a file below other folders is
        // another program's file; a root file is any installed copy's tail.
        let flask = entries(&["src/flask/views.py", "src/flask/__init__.py", "setup.py"]);
        for other in [
            "/srv/app/views.py",
            "/usr/local/lib/python3.8/json/__init__.py",
        ] {
            assert!(
                best_tail_matches(&flask, &segments(other)).is_empty(),
                "{other}"
            );
        }
        assert_eq!(
            best_tail_matches(&flask, &segments("/tmp/build/setup.py")),
            vec![2]
        );
        assert_eq!(best_tail_matches(&flask, &["views.py"]), vec![0]);
    }

    fn entries(paths: &[&'static str]) -> Vec<Vec<&'static str>> {
        paths.iter().map(|p| segments(p)).collect()
    }

    #[test]
    fn the_failure_is_placed_at_the_innermost_frame_inside_the_repository() {
        let files = entries(&[
            "src/click/core.py",
            "src/click/types.py",
            "src/click/utils.py",
        ]);
        // Most recent call last: types.py failed, called from core.py; the last frame is
        // the standard library's, which the repository does not hold.
        let goal = Goal::parse(
            "Traceback (most recent call last):\n  File \"/env/site-packages/click/core.py\", line 10, in main\n  File \"/env/site-packages/click/types.py\", line 88, in convert\n  File \"/usr/lib/python3.12/enum.py\", line 5, in __call__\nValueError: bad",
        );
        let mut reasons = vec![Vec::new(); files.len()];
        let failed = failure_sites(&files, &goal, &|_| false, &mut reasons);
        assert_eq!(failed, [0.0, 1.0, 0.0]);
        assert!(reasons[1][0].contains("types.py:88"), "{reasons:?}");
        // Rust: the panic's location, and the innermost project frame of a backtrace.
        let files = entries(&["src/proto/h1/conn.rs", "src/proto/h1/io.rs", "src/lib.rs"]);
        let goal = Goal::parse(
            "thread 'main' panicked at src/proto/h1/io.rs:301:9:\nboom\nstack backtrace:\n   3: hyper::proto::h1::conn::Conn::poll\n             at ./src/proto/h1/conn.rs:210:24\n   4: hyper::lib::run\n             at ./src/lib.rs:1:1\n",
        );
        let mut reasons = vec![Vec::new(); files.len()];
        assert_eq!(
            failure_sites(&files, &goal, &|_| false, &mut reasons),
            [1.0, 1.0, 0.0]
        );
        // Java, JavaScript, Go: the innermost stack frame the repository holds (a Java
        // frame's package gives its folders).
        let files = entries(&[
            "src/main/java/com/acme/config/Parser.java",
            "src/main/java/com/acme/App.java",
            "src/test/java/com/acme/config/Parser.java",
        ]);
        let goal = Goal::parse(
            "java.lang.IllegalStateException: empty\n\tat java.util.Objects.requireNonNull(Objects.java:209)\n\tat com.acme.config.Parser.read(Parser.java:42)\n\tat com.acme.App.main(App.java:7)\n",
        );
        let mut reasons = vec![Vec::new(); files.len()];
        assert_eq!(
            failure_sites(&files, &goal, &|_| false, &mut reasons),
            [0.5, 0.0, 0.5]
        );
        assert!(reasons[0][0].contains("Parser.java:42"), "{reasons:?}");
        let files = entries(&["src/config/resolve.ts", "src/index.ts"]);
        let goal = Goal::parse(
            "TypeError: x is undefined\n    at resolvePort (/app/src/config/resolve.ts:41:17)\n    at main (/app/src/index.ts:3:1)\n",
        );
        let mut reasons = vec![Vec::new(); files.len()];
        assert_eq!(
            failure_sites(&files, &goal, &|_| false, &mut reasons),
            [1.0, 0.0]
        );
        // C: the innermost AddressSanitizer frame in the repository, not the C library's.
        let files = entries(&["src/lib/json.c", "src/tools/cli.c"]);
        let goal = Goal::parse(
            "==1==ERROR: AddressSanitizer: SEGV on unknown address\n    #0 0x7f01 in __strlen_avx2 /usr/src/glibc/string/strlen.c:74\n    #1 0x4f3c in json_parse_value /build/src/lib/json.c:412:15\n    #2 0x4f1b in main /build/src/tools/cli.c:88:3\n",
        );
        let mut reasons = vec![Vec::new(); files.len()];
        assert_eq!(
            failure_sites(&files, &goal, &|_| false, &mut reasons),
            [1.0, 0.0]
        );
        // A subject line has no failure site.
        let goal = Goal::parse("Fix the connection pool");
        assert!(failure_sites(&files, &goal, &|_| false, &mut reasons)
            .iter()
            .all(|&x| x == 0.0));
    }

    #[test]
    fn title_clues_are_whole_words_of_the_first_line() {
        let title = "GZipMiddleware: no `Vary` on responses";
        assert!(in_title(title, "GZipMiddleware"));
        assert!(in_title(title, "Vary"));
        assert!(!in_title(title, "Middleware"), "inside a longer identifier");
        assert!(!in_title(title, "PlainTextResponse"));
        assert!(!in_title(title, ""));
    }

    #[test]
    fn qualified_names_become_module_paths() {
        let c = module_candidates(&["click".into(), "core".into(), "Command".into()], true);
        assert!(c.contains(&vec!["click".to_string(), "core.py".into()]));
        assert!(c.contains(&vec![
            "click".to_string(),
            "core".into(),
            "__init__.py".into()
        ]));
        let java = module_candidates(&["com".into(), "acme".into(), "Parser".into()], false);
        assert!(java.contains(&vec![
            "com".to_string(),
            "acme".into(),
            "Parser.java".into()
        ]));
        let ruby = module_candidates(&["Acme".into(), "HttpClient".into()], false);
        assert!(ruby.contains(&vec!["acme".to_string(), "http_client.rb".into()]));
        assert_eq!(snake_case("JSONParser"), "json_parser");
        assert_eq!(snake_case("Http2Client"), "http2_client");
        assert_eq!(snake_case("already_snake"), "already_snake");
    }

    #[test]
    fn a_frame_in_another_go_modules_cache_names_no_file_of_the_repository() {
        let files = [
            ("go.mod", "module example.com/app\n\ngo 1.22\n"),
            ("internal/json/decode.go", "package json\n"),
            ("internal/api/handler.go", "package api\n"),
        ];
        let (_d, map) = crate::scan::temp_map(&files);
        let goal = Goal::parse(
            "panic: bad\n\ngoroutine 1 [running]:\ngithub.com/goccy/go-json/internal/json.decode(0x1)\n\t/root/go/pkg/mod/github.com/goccy/go-json@v0.10.2/internal/json/decode.go:612 +0x1d\nexample.com/app/internal/api.Handle(0x2)\n\t/src/app/internal/api/handler.go:40 +0x2f\n",
        );
        let m = mentions(
            map.files(),
            &crate::copies::built_copies(map.files()),
            &goal,
            "",
        );
        let at = |p: &str| map.files().iter().position(|f| f.path == p).unwrap();
        assert_eq!(m.failed[at("internal/json/decode.go")], 0.0);
        assert_eq!(
            m.score[at("internal/json/decode.go")],
            0.0,
            "{:?}",
            m.reasons
        );
        assert_eq!(m.failed[at("internal/api/handler.go")], 1.0);
        assert!(other_go_module(
            "/root/go/pkg/mod/github.com/!burnt!sushi/toml@v1.3.2/decode.go",
            "github.com/acme/tool"
        ));
        assert!(!other_go_module(
            "/root/go/pkg/mod/github.com/!burnt!sushi/toml@v1.3.2/decode.go",
            "github.com/BurntSushi/toml"
        ));
        assert!(!other_go_module("/src/app/main.go", "example.com/app"));
    }

    #[test]
    fn a_frame_in_a_downloaded_crate_names_the_repository_only_if_it_is_that_crate() {
        let report = "thread 'main' panicked at /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/hyper-1.6.0/src/error.rs:412:9:\n\
            dispatch dropped without returning error\n\
            stack backtrace:\n\
            \x20  2: hyper::error::Error::new_canceled\n\
            \x20            at /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/hyper-1.6.0/src/error.rs:412:9\n\
            \x20  5: reqwest::async_impl::client::PendingRequest::poll\n\
            \x20            at /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/reqwest-0.12.28/src/async_impl/client.rs:2963:27\n";
        let failed = |name: &str| {
            let manifest = format!("[package]\nname = \"{name}\"\nversion = \"1.0.0\"\n");
            let mut files = vec![
                ("src/error.rs", "pub struct Error;\n"),
                ("src/async_impl/client.rs", "pub struct Client;\n"),
            ];
            if !name.is_empty() {
                files.push(("Cargo.toml", manifest.as_str()));
            }
            let (_d, map) = crate::scan::temp_map(&files);
            let m = mentions(
                map.files(),
                &crate::copies::built_copies(map.files()),
                &Goal::parse(report),
                "",
            );
            let at = |p: &str| map.files().iter().position(|f| f.path == p).unwrap();
            (
                m.failed[at("src/error.rs")],
                m.failed[at("src/async_impl/client.rs")],
            )
        };
        // reqwest: hyper's `src/error.rs` is not reqwest's; its own frame is where it failed.
        assert_eq!(failed("reqwest"), (0.0, 1.0));
        // hyper itself: the panic's location is its own file.
        assert_eq!(failed("hyper").0, 1.0);
        // No manifest: the repository's crate is unknown, so the location may be its own.
        assert_eq!(failed("").0, 1.0);
        assert!(other_crate(
            "/home/u/.cargo/git/checkouts/hyper-util-4f2a9c1e0b7d3a55/1a2b3c4/src/rt.rs",
            &BTreeSet::from(["hyper".to_string()])
        ));
        assert!(!other_crate(
            "C:\\Users\\u\\.cargo\\registry\\src\\index.crates.io-x\\hyper-util-0.1.10\\src\\rt.rs",
            &BTreeSet::from(["hyper_util".to_string()])
        ));
    }

    #[test]
    fn a_frame_in_an_installed_gem_or_composer_package_names_the_repository_only_if_it_is_that_package(
    ) {
        let report = "NoMethodError: undefined method `bytesize' for nil\n\
            \t/app/vendor/bundle/ruby/3.2.0/gems/rack-2.2.3/lib/rack/content_length.rb:21:in 'call'\n\
            \t/app/vendor/bundle/ruby/3.2.0/gems/rack-test-2.1.0/lib/rack/test.rb:9:in 'get'\n";
        let repo = |manifest: (&'static str, &'static str)| {
            crate::scan::temp_map(&[
                manifest,
                ("lib/rack/content_length.rb", "module Rack\nend\n"),
                ("lib/rack/test.rb", "module Rack\nend\n"),
            ])
        };
        // The rack gem itself: its installed copy's frame is its own file.
        let (_d, map) = repo(("rack.gemspec", "Gem::Specification.new\n"));
        let at = |map: &crate::scan::RepoMap, p: &str| {
            map.files().iter().position(|f| f.path == p).unwrap()
        };
        let m = mentions(
            map.files(),
            &crate::copies::built_copies(map.files()),
            &Goal::parse(report),
            "",
        );
        assert_eq!(m.failed[at(&map, "lib/rack/content_length.rb")], 1.0);
        assert_eq!(
            m.score[at(&map, "lib/rack/test.rb")],
            0.0,
            "{:?}",
            m.reasons
        );
        // An application: every gem is a dependency.
        let (_d, map) = repo(("Gemfile", "gem \"rack\"\n"));
        let m = mentions(
            map.files(),
            &crate::copies::built_copies(map.files()),
            &Goal::parse(report),
            "",
        );
        assert!(m.failed.iter().all(|&f| f == 0.0), "{:?}", m.reasons);
        assert!(m.score.iter().all(|&f| f == 0.0), "{:?}", m.reasons);
        // Composer: `vendor/symfony/console/...` is the repository when it is symfony/console.
        let php = "PHP Fatal error:  Uncaught LogicException: no command in /app/vendor/symfony/console/Application.php:1040\n";
        let files = [
            (
                "composer.json",
                "{\"name\": \"symfony/console\", \"type\": \"library\"}",
            ),
            ("Application.php", "<?php\nclass Application {}\n"),
        ];
        let (_d, map) = crate::scan::temp_map(&files);
        let m = mentions(
            map.files(),
            &crate::copies::built_copies(map.files()),
            &Goal::parse(php),
            "",
        );
        assert_eq!(
            m.failed[at(&map, "Application.php")],
            1.0,
            "{:?}",
            m.reasons
        );
        let files = [
            ("composer.json", "{\"name\": \"acme/shop\"}"),
            ("src/Application.php", "<?php\nclass Application {}\n"),
        ];
        let (_d, map) = crate::scan::temp_map(&files);
        let m = mentions(
            map.files(),
            &crate::copies::built_copies(map.files()),
            &Goal::parse(php),
            "",
        );
        assert_eq!(
            m.failed[at(&map, "src/Application.php")],
            0.0,
            "{:?}",
            m.reasons
        );
        assert!(other_gem(
            "/g/gems/nokogiri-1.15.4-x86_64-linux/lib/n.rb",
            Some("rack")
        ));
        assert!(!other_gem(
            "/g/gems/rack-test-2.1.0/lib/rack/test.rb",
            Some("rack-test")
        ));
        assert!(!other_gem("lib/gems/readme.rb", None));
    }

    #[test]
    fn a_misspelt_identifier_names_the_definition_it_misspells() {
        let files = [
            (
                "core/src/default_body_limit.rs",
                "pub struct DefaultBodyLimit;\npub fn get_many() {}\n",
            ),
            ("src/multipart.rs", "pub struct Multipart;\n"),
            (
                "src/limits.rs",
                "pub fn get_mane() {}\npub fn get_mano() {}\n",
            ),
        ];
        let (_d, map) = crate::scan::temp_map(&files);
        let reasons = |goal: &str| {
            let m = mentions(
                map.files(),
                &crate::copies::built_copies(map.files()),
                &Goal::parse(goal),
                goal,
            );
            map.files()
                .iter()
                .zip(&m.reasons)
                .flat_map(|(f, r)| r.iter().map(move |r| format!("{}: {r}", f.path)))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            reasons("DefaultBodyLimt ignored for `Multipart` extractor"),
            [
                "core/src/default_body_limit.rs: defines `DefaultBodyLimit`, which the goal's \
                 `DefaultBodyLimt` misspells",
                "src/multipart.rs: defines `Multipart` named in the goal",
            ]
        );
        assert_eq!(
            reasons("`get_manny` panics"),
            ["core/src/default_body_limit.rs: defines `get_many`, which the goal's `get_manny` misspells"]
        );
        // A plural names the same thing, not a misspelling of it.
        assert!(reasons("`DefaultBodyLimits` are ignored").is_empty());
        // One edit from two names: no reading.
        assert!(reasons("`get_manx` panics").is_empty());
        // Short names are not read as misspellings.
        assert!(reasons("`get_mny` panics").is_empty());
    }

    #[test]
    fn a_name_defined_in_the_goals_language_is_that_languages() {
        let files = [
            ("src/store.c", "void kv_close(kv_t *kv) { free(kv); }\n"),
            ("tools/store.py", "def kv_close(kv):\n    pass\n"),
        ];
        let (_d, map) = crate::scan::temp_map(&files);
        let defines = |goal: &str| with_reason(&map, goal, &["defines"]);
        // No language in the goal: both define it.
        assert_eq!(
            defines("`kv_close` frees twice"),
            ["src/store.c", "tools/store.py"]
        );
        // A C frame: the C function.
        assert_eq!(
            defines("`kv_close` frees twice\n    #1 0x4f3c2a in main /src/app/main.c:12:5\n"),
            ["src/store.c"]
        );
        // A Python path: the Python one.
        assert_eq!(
            defines("`kv_close` in cli.py frees twice"),
            ["tools/store.py"]
        );
    }

    /// The files of `map` given a reason starting with one of `starts` for `goal`.
    fn with_reason<'m>(map: &'m crate::scan::RepoMap, goal: &str, starts: &[&str]) -> Vec<&'m str> {
        let m = mentions(
            map.files(),
            &crate::copies::built_copies(map.files()),
            &Goal::parse(goal),
            "",
        );
        map.files()
            .iter()
            .zip(&m.reasons)
            .filter(|(_, r)| r.iter().any(|r| starts.iter().any(|s| r.starts_with(s))))
            .map(|(f, _)| f.path.as_str())
            .collect()
    }

    #[test]
    fn a_one_word_module_names_a_file_only_if_it_defines_the_member_and_the_reporters_script_none()
    {
        let files = [
            ("pylint/__init__.py", "version = 1\n"),
            ("pylint/checkers/logging.py", "class LoggingChecker: pass\n"),
            ("pylint/checkers/similar.py", "class Similar: pass\n"),
            ("src/pytest/__init__.py", "x = 1\n"),
            (
                "src/_pytest/mark/__init__.py",
                "def pytest_addoption(parser): pass\n",
            ),
            ("src/_pytest/outcomes.py", "def skip(msg): pass\n"),
            ("src/flask/app.py", "class Flask: pass\n"),
            ("src/flask/cli.py", "def find_best_app(module): pass\n"),
            ("src/flask/__init__.py", "x = 1\n"),
            ("src/flask/json/__init__.py", "def dumps(x): pass\n"),
            ("src/net/mod.rs", "mod udp;\npub use udp::UdpSocket;\n"),
            ("src/net/udp.rs", "pub struct UdpSocket;\n"),
        ];
        let (_d, map) = crate::scan::temp_map(&files);
        let modules = |goal: &str| with_reason(&map, goal, &["module of"]);
        // The standard library's `logging` is no module of the repository, nor is a package
        // whose `__init__.py` merely re-exports the name; the own package itself still is.
        assert!(modules("Crash\n\n```python\nLOG = logging.getLogger(__name__)\n```").is_empty());
        assert_eq!(
            modules("`pytest.mark.skip` reports the wrong location"),
            ["src/pytest/__init__.py"]
        );
        // A package root re-exporting it is its module too.
        assert_eq!(
            modules("Docs of `net::UdpSocket` miss the feature"),
            ["src/net/mod.rs"]
        );
        // A one-word module defining the member named next, and a longer module path, are.
        assert_eq!(
            modules("Crash\n\n```python\nlogging.LoggingChecker(linter)\n```"),
            ["pylint/checkers/logging.py"]
        );
        assert_eq!(
            modules("Wrong output from `flask.json.dumps`"),
            ["src/flask/json/__init__.py"]
        );
        // The reporter's `app.py` (a code block headed with its name, the script of a
        // traceback's `<module>` frame) is not flask's.
        let goal = "Cannot load\n\n```python\n# app.py\ndef create_app(**kwargs): pass\n```\n\n```\nTraceback (most recent call last):\n  File \"app.py\", line 9, in <module>\n    run()\nTypeError: bad\n```";
        assert!(
            with_reason(&map, goal, &["named in the goal", "the reported failure"]).is_empty(),
            "{:?}",
            with_reason(&map, goal, &["named in the goal", "the reported failure"])
        );
        let theirs = "Cannot load\n\n```\nTraceback (most recent call last):\n  File \"/env/flask/app.py\", line 9, in run\nTypeError: bad\n```";
        assert_eq!(
            with_reason(&map, theirs, &["the reported failure"]),
            ["src/flask/app.py"]
        );
    }

    #[test]
    fn a_c_prototype_defines_a_name_only_where_no_file_has_its_body() {
        let files = [
            (
                "include/kv/store.h",
                "void kv_close(kv_t *kv);\nint kv_size(kv_t *kv);\n",
            ),
            (
                "src/store.c",
                "static void kv_close(kv_t *kv);\nvoid kv_close(kv_t *kv) { free(kv); }\n",
            ),
        ];
        let (_d, map) = crate::scan::temp_map(&files);
        let defines = |goal: &str| with_reason(&map, goal, &["defines"]);
        assert_eq!(defines("`kv_close` frees twice"), ["src/store.c"]);
        assert_eq!(defines("`kv_size` is wrong"), ["include/kv/store.h"]);
    }

    #[test]
    fn a_field_or_variant_names_its_file_only_where_no_file_defines_the_name() {
        let files = [
            (
                "src/config.rs",
                "pub struct Config { pub max_age: u64 }\npub enum Mode { DeriveOrder }\n",
            ),
            (
                "src/cache.rs",
                "pub struct Cache { pub ttl_secs: u64, pub ttl: u64 }\npub fn max_age() {}\n",
            ),
            ("src/other.rs", "pub fn other() {}\n"),
        ];
        let (_d, map) = crate::scan::temp_map(&files);
        let defines = |goal: &str| with_reason(&map, goal, &["defines", "declares"]);
        assert_eq!(defines("`DeriveOrder` is ignored"), ["src/config.rs"]);
        assert_eq!(
            defines("`ttl_secs` of zero never expires"),
            ["src/cache.rs"]
        );
        // A plain word is a field of many things.
        assert!(defines("`ttl` of zero never expires").is_empty());
        // A function of that name is the definition the goal means.
        assert_eq!(defines("`max_age` is ignored"), ["src/cache.rs"]);
    }

    #[test]
    fn jvm_classes_and_ruby_constants_name_their_files() {
        let files = [
            "src/main/java/com/acme/config/Parser.java",
            "src/main/java/com/acme/config/Writer.java",
            "lib/acme/http_client.rb",
            "lib/acme/server.rb",
            "src/Acme.Store/Cache/LruCache.cs",
            "src/Acme.Store/Cache/Entry.cs",
            "src/Http/Router.php",
            "src/Http/Kernel.php",
            "composer.json",
            "Sources/Store/Cache.swift",
            "Sources/Store/Disk.swift",
        ];
        let (_d, map) = crate::scan::temp_map(&files.map(|p| {
            let psr4 = r#"{"name": "acme/app", "autoload": {"psr-4": {"App\\": "src/"}}}"#;
            // `Router::add` names the file of the class `Router` that defines `add`.
            let router = "<?php\nnamespace App\\Http;\nclass Router { public function add() {} }\n";
            let text = match p {
                "composer.json" => psr4,
                "src/Http/Router.php" => router,
                _ => "x\n",
            };
            (p, text)
        }));
        let goal = Goal::parse(
            "NullPointerException from com.acme.config.Parser.read when Acme::HttpClient retries, \
             Acme.Store.Cache.LruCache.Evict throws, App\\Http\\Router::add fails, see \
             Acme.Store.Cache.Entry and Store.Cache.evict",
        );
        let m = mentions(
            map.files(),
            &crate::copies::built_copies(map.files()),
            &goal,
            "",
        );
        let named: Vec<&str> = map
            .files()
            .iter()
            .zip(&m.score)
            .filter(|(_, s)| **s > 0.0)
            .map(|(f, _)| f.path.as_str())
            .collect();
        assert_eq!(
            named,
            [
                "Sources/Store/Cache.swift",
                "lib/acme/http_client.rb",
                "src/Acme.Store/Cache/Entry.cs",
                "src/Acme.Store/Cache/LruCache.cs",
                "src/Http/Router.php",
                "src/main/java/com/acme/config/Parser.java"
            ]
        );
    }

    #[test]
    fn a_receiver_in_a_snippet_is_no_module_but_the_own_crate_or_package_is() {
        let files = [
            (
                "Cargo.toml",
                "[package]\nname = \"my-http\"\nversion = \"0.1.0\"\n",
            ),
            ("src/lib.rs", "pub mod proto;\n"),
            ("src/proto/h1.rs", "pub fn parse() {}\n"),
            ("src/core/searcher.rs", "pub struct Searcher;\n"),
            ("src/document.rs", "pub struct Doc;\n"),
            ("src/parser/document.rs", "pub fn parse() {}\n"),
            ("tests/document.rs", "fn doc() {}\n"),
            ("src/flask/__init__.py", "x = 1\n"),
            ("src/flask/config.py", "class Config: pass\n"),
            ("src/flask/json/__init__.py", "def dumps(x): pass\n"),
        ];
        let (_d, map) = crate::scan::temp_map(&files);
        let named = |goal: &str| -> Vec<String> {
            let m = mentions(
                map.files(),
                &crate::copies::built_copies(map.files()),
                &Goal::parse(goal),
                "",
            );
            map.files()
                .iter()
                .zip(&m.reasons)
                .filter(|(_, r)| r.iter().any(|r| r.starts_with("module of")))
                .map(|(f, _)| f.path.clone())
                .collect()
        };
        // Receivers a snippet calls through: no module of theirs.
        assert!(named("Max age ignored\n\n```python\napp.config[\"A\"] = 1\n```").is_empty());
        assert!(named("Negative scores\n\n```rust\nlet s = reader.searcher();\n```").is_empty());
        // Past the crate's name, the module path starts at its source root.
        assert_eq!(named("Wrong `my_http::document::Doc`"), ["src/document.rs"]);
        // The repository's own crate (`my-http` as `my_http`) and package.
        assert_eq!(
            named("Panics in `my_http::proto::h1::parse`"),
            ["src/proto/h1.rs"]
        );
        assert_eq!(
            named("Wrong output from `flask.json.dumps`"),
            ["src/flask/json/__init__.py"]
        );
    }
}
