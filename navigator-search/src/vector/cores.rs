//! Work split across the machine's cores: the graph build and the stray check both add or
//! search many codes at once under the index's write lock.

use super::SEARCH_THREADS;

/// Codes of graph keys.
pub(super) type Codes = [(u64, Vec<i8>)];

/// `work` over `codes` split across the machine's cores (on this thread when they are few):
/// each part with its result, in order; `None` for a part whose thread panicked.
pub(super) fn on_cores<R: Send>(
    codes: &Codes,
    work: impl Fn(&Codes) -> R + Sync,
) -> Vec<(&Codes, Option<R>)> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(SEARCH_THREADS);
    if threads < 2 || codes.len() < 2 * threads {
        return vec![(codes, Some(work(codes)))];
    }
    let chunk = codes.len().div_ceil(threads);
    let work = &work;
    std::thread::scope(|scope| {
        let workers: Vec<_> = codes
            .chunks(chunk)
            .map(|part| (part, scope.spawn(move || work(part))))
            .collect();
        workers
            .into_iter()
            .map(|(part, w)| (part, w.join().ok()))
            .collect()
    })
}
