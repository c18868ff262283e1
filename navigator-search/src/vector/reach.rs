//! Reachability of what the graph takes. An HNSW node is found only through links from other
//! nodes, and each neighbour keeps a bounded list pruned for diversity: now and then every
//! neighbour of a new node prunes its link to it, and no search reaches it again, at any
//! beam. Measured on 29,400 pseudo-random 384-d vectors (the kill -9 bulk test's): about one
//! node in 6,000 after each build, so a stored item was, rarely, not found even by its own
//! vector.
//!
//! So every key put into the graph is searched for by its own code right after the add —
//! first with a narrow beam, then the few not found (about 3 % at 100k) again with a wide
//! one ([`WIDE_BEAM`]); a key still missed leaves the graph and becomes a *stray*: scanned
//! exactly with the backlog, never built again while the index is open. A saved graph lacks
//! it, so the next open puts it back in the backlog and tries the graph once more. Cost, on
//! the bench's synthetic 100k (384-d, release, 2 cores, degree 16): building the graph
//! 17.2–20.1 s without the check, 28.9 s with it (one run; 22.5–24.8 s when the second
//! search used the default beam); 5 strays.

use super::cores::{on_cores, Codes};
use super::{Inner, GRAPH_BEAM};
use usearch::Index;

/// Results a reachability search asks for: an item stored more than once with the same
/// vector is found among its copies, as a search's re-ranked candidates find it.
const REACH_COUNT: usize = 32;
const _: () = assert!(REACH_COUNT <= WIDE_BEAM);

/// The beam of the first, cheap search for each key: most keys are found with it, and only
/// the few that are not are searched for again with [`WIDE_BEAM`].
const QUICK_BEAM: usize = 16;

/// The beam of the second search: a node missed even with it has (almost surely) no way in.
/// Not a default-sized beam: on hard data (the bench's synthetic million, recall@10 0.74 at
/// beam 160 in a degree-16 graph) a search at 160 missed a few percent of nodes that are
/// linked, and taking those out of the graph left holes that cost recall and made every open
/// rebuild them.
const WIDE_BEAM: usize = 1_280;

/// The keys of `codes` (just added to `graph`) that a search for their own code with a wide
/// beam does not find, split across the machine's cores. A failed search counts as not
/// found. The caller holds the index's write lock: no other search sees the beam change.
pub(super) fn unreachable(graph: &Index, codes: &Codes) -> Vec<u64> {
    graph.change_expansion_search(QUICK_BEAM);
    let doubtful = in_parallel(codes, |part| missed(graph, part, QUICK_BEAM));
    let retry: Vec<(u64, Vec<i8>)> = codes
        .iter()
        .filter(|(key, _)| doubtful.contains(key))
        .cloned()
        .collect();
    graph.change_expansion_search(WIDE_BEAM);
    let lost = in_parallel(&retry, |part| missed(graph, part, REACH_COUNT));
    graph.change_expansion_search(GRAPH_BEAM);
    lost
}

/// The keys of `codes` a search for their own code does not find among its `count` results.
fn missed(graph: &Index, codes: &Codes, count: usize) -> Vec<u64> {
    codes
        .iter()
        .filter(|(key, code)| {
            graph
                .search(code, count)
                .map_or(true, |found| !found.keys.contains(key))
        })
        .map(|(key, _)| *key)
        .collect()
}

/// `check` over `codes` split across the machine's cores, the results concatenated in order;
/// a part whose thread panicked is checked again on this one.
fn in_parallel(codes: &Codes, check: impl Fn(&Codes) -> Vec<u64> + Sync) -> Vec<u64> {
    on_cores(codes, &check)
        .into_iter()
        .flat_map(|(part, found)| found.unwrap_or_else(|| check(part)))
        .collect()
}

impl Inner {
    /// Takes `lost` keys out of the graph into the strays (scanned exactly); the keys the
    /// graph could not let go of stay in it.
    pub(super) fn strand(&mut self, lost: &[u64]) {
        for &key in lost {
            if self.graph.remove(key).is_ok_and(|n| n > 0) {
                self.stray.insert(key);
            } else {
                tracing::warn!(key, "an unreachable graph node could not be removed");
            }
        }
        if !lost.is_empty() {
            tracing::debug!(
                lost = lost.len(),
                strays = self.stray.len(),
                "graph nodes no search reached are scanned exactly"
            );
        }
    }
}
