//! The reference graph: file A points at file B when A mentions a name B defines at top level.
//! A personalised PageRank seeded with the text scores spreads relevance along those edges.

use crate::lang::Lang;
use crate::scan::{body, symbol_names, RepoMap};
use std::collections::{BTreeMap, HashMap, HashSet};

/// Names defined in more files than this are too generic (`new`, `run`) to be evidence.
const MAX_DEFINERS: usize = 3;
/// Seeds of the walk: only the best text matches spread relevance.
const SEEDS: usize = 20;
const DAMPING: f64 = 0.5;
const ITERATIONS: usize = 12;

pub(crate) struct GraphRank {
    /// Normalised to [0, 1].
    pub rank: Vec<f64>,
    /// For files that gained mostly through the graph: the seed that pointed at them.
    pub via: Vec<Option<String>>,
}

/// Whether code in one language can name what a file in the other defines: a C file calling
/// `kv_close` means the C function, not a Python one of the same name. Documents and
/// configuration (no language) may name anything.
fn may_call(from: Option<Lang>, to: Option<Lang>) -> bool {
    match (from, to) {
        (Some(a), Some(b)) => a.family() == b.family(),
        _ => true,
    }
}

pub(crate) fn personalised_pagerank(map: &RepoMap, seeds: &[f64]) -> GraphRank {
    let files = map.files();
    let n = files.len();
    let mut definers: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, f) in files.iter().enumerate() {
        let mut seen = HashSet::new();
        for name in symbol_names(f).filter(|n| n.len() >= 4) {
            if seen.insert(name) {
                definers.entry(name).or_default().push(i);
            }
        }
    }
    definers.retain(|_, v| v.len() <= MAX_DEFINERS);
    let mut order: Vec<usize> = (0..n).filter(|&i| seeds[i] > 0.0).collect();
    order.sort_by(|&a, &b| seeds[b].total_cmp(&seeds[a]).then(a.cmp(&b)));
    order.truncate(SEEDS);
    let seed_set: HashSet<usize> = order.iter().copied().collect();
    // Edges are only needed from files the walk can reach; we stop at two hops from the seeds.
    let mut out: HashMap<usize, Vec<usize>> = HashMap::new();
    let mut frontier: Vec<usize> = order.clone();
    for _hop in 0..2 {
        let mut next = Vec::new();
        for &a in &frontier {
            if out.contains_key(&a) {
                continue;
            }
            let mut targets: Vec<usize> = body(&files[a])
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .filter_map(|w| definers.get(w))
                .flatten()
                .copied()
                .filter(|&b| b != a && may_call(files[a].lang, files[b].lang))
                .collect::<HashSet<_>>()
                .into_iter()
                .collect();
            targets.sort_unstable();
            next.extend(targets.iter().copied());
            out.insert(a, targets);
        }
        frontier = next;
    }
    let total: f64 = order
        .iter()
        .map(|&i| seeds[i])
        .sum::<f64>()
        .max(f64::MIN_POSITIVE);
    // Ordered maps: the walk adds up the same shares in the same order on every run, so the
    // scores (and a tie between two files) never change from one run to the next.
    let personal: BTreeMap<usize, f64> = order.iter().map(|&i| (i, seeds[i] / total)).collect();
    let mut rank: BTreeMap<usize, f64> = personal.clone();
    let mut via: Vec<Option<String>> = vec![None; n];
    let mut best_in: HashMap<usize, (f64, usize)> = HashMap::new();
    for _ in 0..ITERATIONS {
        let mut next: BTreeMap<usize, f64> = personal
            .iter()
            .map(|(&k, &v)| (k, (1.0 - DAMPING) * v))
            .collect();
        for (&a, &r) in &rank {
            let Some(targets) = out.get(&a).filter(|t| !t.is_empty()) else {
                continue;
            };
            let share = DAMPING * r / targets.len() as f64;
            for &b in targets {
                *next.entry(b).or_default() += share;
                let e = best_in.entry(b).or_insert((0.0, a));
                if share > e.0 || (share == e.0 && a < e.1) {
                    *e = (share, a);
                }
            }
        }
        rank = next;
    }
    let mut dense = vec![0.0; n];
    for (i, r) in rank {
        dense[i] = r;
    }
    let max = dense.iter().cloned().fold(0.0, f64::max);
    if max > 0.0 {
        dense.iter_mut().for_each(|x| *x /= max);
    }
    for (b, (_, a)) in best_in {
        if !seed_set.contains(&b) && dense[b] > 0.0 {
            via[b] = Some(files[a].path.clone());
        }
    }
    GraphRank { rank: dense, via }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_walk_gives_the_same_scores_on_every_run() {
        // Many seeds of uneven weight pointing at one file: its score is a sum whose last digit
        // depends on the order of the terms.
        let mut files: Vec<(String, String)> = (0..12)
            .map(|k| {
                (
                    format!("src/caller_{k}.rs"),
                    format!("pub fn caller_number_{k}() {{ shared_target(); other_target(); }}\n"),
                )
            })
            .collect();
        files.push(("src/target.rs".into(), "pub fn shared_target() {}\n".into()));
        files.push((
            "src/other.rs".into(),
            "pub fn other_target() { shared_target(); }\n".into(),
        ));
        let refs: Vec<(&str, &str)> = files
            .iter()
            .map(|(p, t)| (p.as_str(), t.as_str()))
            .collect();
        let (_d, map) = crate::scan::temp_map(&refs);
        map.outline_all();
        let seeds: Vec<f64> = (0..map.files().len())
            .map(|i| 1.0 / (3.0 + i as f64 * 0.7))
            .collect();
        let first = personalised_pagerank(&map, &seeds).rank;
        for _ in 0..40 {
            let again = personalised_pagerank(&map, &seeds).rank;
            let same = first
                .iter()
                .zip(&again)
                .all(|(a, b)| a.to_bits() == b.to_bits());
            assert!(same, "{first:?} then {again:?}");
        }
    }

    #[test]
    fn code_points_only_at_definitions_in_a_language_it_can_call() {
        let (_d, map) = crate::scan::temp_map(&[
            ("src/main.c", "int main(void) { kv_close(kv_open(16)); return 0; }\n"),
            (
                "src/store.c",
                "void kv_close(kv_store *s) { free(s); }\nkv_store *kv_open(size_t n) { return 0; }\n",
            ),
            ("tools/store.py", "def kv_close(s):\n    pass\n\ndef kv_open(n):\n    pass\n"),
            ("README.md", "Call `kv_close` when done.\n"),
        ]);
        map.outline_all();
        let index = |p: &str| map.files().iter().position(|f| f.path == p).unwrap();
        let mut seeds = vec![0.0; map.files().len()];
        seeds[index("src/main.c")] = 1.0;
        let g = personalised_pagerank(&map, &seeds);
        assert!(g.rank[index("src/store.c")] > 0.0, "{:?}", g.rank);
        assert_eq!(g.rank[index("tools/store.py")], 0.0, "{:?}", g.rank);
        // A document names whatever it likes.
        let mut seeds = vec![0.0; map.files().len()];
        seeds[index("README.md")] = 1.0;
        let g = personalised_pagerank(&map, &seeds);
        assert!(g.rank[index("tools/store.py")] > 0.0, "{:?}", g.rank);
    }
}
