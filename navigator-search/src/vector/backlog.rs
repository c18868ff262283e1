//! The graph backlog: vectors of large batches are searchable as soon as they are written —
//! searches scan them exactly — and enter the HNSW graph on a background thread once writes
//! pause.
//!
//! Why: graph insertion is most of the cost of indexing (at 100k items, 12.3 s of a 19.3 s
//! bulk load), while an exact scan of the vectors written since is cheap as long as they are
//! a few hundred thousand. A bulk load therefore costs the store, the keyword index and the
//! exact table; the graph is built after it, in steps of [`STEP`] keys under the index's
//! write lock (a search waits for at most one step), or at once by
//! [`VectorIndex::finish_graph`].
//!
//! Crash safety needs no bookkeeping of its own: the exact table holds every vector, a saved
//! graph holds a subset of its keys, and opening takes the difference as the backlog again.

use super::cores::{on_cores, Codes};
use super::{quantize, Inner, VectorIndex};
use crate::Result;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};
use usearch::Index;

/// Keys put into the graph per step (one write-lock hold: about 30 ms on two cores).
const STEP: usize = 256;
/// How long writes must have paused before the builder starts (a bulk load's next batch
/// comes sooner, so the graph does not compete with the load for the cores).
const QUIET: Duration = Duration::from_millis(300);
/// A backlog this large is built even while writes go on: every search scans it.
const URGENT: usize = 200_000;

/// What wakes the builder.
#[derive(Default)]
pub(super) struct Backlog {
    signal: Arc<Signal>,
}

#[derive(Default)]
struct Signal {
    state: Mutex<State>,
    wake: Condvar,
}

#[derive(Default)]
struct State {
    /// The index is gone: the builder stops.
    closed: bool,
    /// There may be keys to build.
    work: bool,
    /// The backlog's size after the last write.
    size: usize,
    /// Engine writes in progress ([`VectorIndex::writing`]).
    writing: usize,
    /// Replays of the store in progress ([`VectorIndex::replaying`]): the builder waits for
    /// them however large the backlog grows.
    replaying: usize,
    /// When the last write ended.
    last_write: Option<Instant>,
}

impl Signal {
    fn state(&self) -> MutexGuard<'_, State> {
        // The state is plain data: a panic elsewhere leaves it usable.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl State {
    /// Whether the builder should leave the cores to writes now: any write while a replay
    /// is in progress, otherwise while the backlog is below [`URGENT`].
    fn yields(&self) -> bool {
        self.replaying > 0 || self.size < URGENT
    }

    /// Whether writes are going on: one is in progress or one ended less than [`QUIET`]
    /// ago; how long to wait before looking again.
    fn busy(&self) -> Option<Duration> {
        if self.writing > 0 {
            return Some(QUIET);
        }
        let since = self.last_write.map_or(QUIET, |t| t.elapsed());
        (since < QUIET).then(|| QUIET - since)
    }
}

/// An engine write in progress: the builder does not start while it lasts, nor within
/// [`QUIET`] after it ends.
pub(crate) struct Writing {
    signal: Arc<Signal>,
}

impl Drop for Writing {
    fn drop(&mut self) {
        let mut state = self.signal.state();
        state.writing = state.writing.saturating_sub(1);
        state.last_write = Some(Instant::now());
    }
}

/// A replay of the store into the index in progress (an open repairing its vector files):
/// the builder does not start while it lasts, even past [`URGENT`] (no search runs before
/// the open returns, and each step would hold the replay's writes back).
pub(crate) struct Replaying {
    writing: Writing,
}

impl Drop for Replaying {
    fn drop(&mut self) {
        let mut state = self.writing.signal.state();
        state.replaying = state.replaying.saturating_sub(1);
    }
}

impl Backlog {
    pub(super) fn new() -> Self {
        Self::default()
    }

    /// Notes a change that left `size` keys in the backlog (called without the index lock).
    pub(super) fn wrote(&self, size: usize) {
        let mut state = self.signal.state();
        state.last_write = Some(Instant::now());
        state.size = size;
        if size > 0 {
            state.work = true;
            self.signal.wake.notify_all();
        }
    }
}

impl Drop for Backlog {
    fn drop(&mut self) {
        self.signal.state().closed = true;
        self.signal.wake.notify_all();
    }
}

/// The exact similarities of the backlog's keys and the strays passing `keep` to `query`:
/// the best `want`.
pub(super) fn scan(
    inner: &Inner,
    query: &[f32],
    q_inv: f32,
    want: usize,
    keep: &impl Fn(u64) -> bool,
) -> Vec<(u64, f32)> {
    // Vectors written since the table was read lie in memory in slot order: one sequential
    // pass over them (looking each key up instead made the scan wait on memory: 65 ms for
    // 100k waiting vectors).
    let mut hits: Vec<(u64, f32)> = Vec::with_capacity(inner.pending.len());
    let mut in_memory = 0;
    inner.exact.for_each_in_memory(|key, v, inv_norm| {
        if inner.pending.contains(&key) {
            in_memory += 1;
            if keep(key) {
                hits.push((key, super::kernels::dot(query, v) * q_inv * inv_norm));
            }
        }
    });
    // Backlog keys still in the table's file (an index saved with a backlog and reopened).
    if inner.pending.len() > in_memory {
        hits.extend(
            inner
                .pending
                .iter()
                .filter(|&&key| !inner.exact.in_memory(key) && keep(key))
                .filter_map(|&key| Some((key, inner.exact.similarity(key, query, q_inv)?))),
        );
    }
    // Strays are few (about one built key in thousands): looked up one by one.
    hits.extend(
        inner
            .stray
            .iter()
            .filter(|&&key| keep(key))
            .filter_map(|&key| Some((key, inner.exact.similarity(key, query, q_inv)?))),
    );
    if hits.len() > want {
        hits.select_nth_unstable_by(want - 1, |a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        hits.truncate(want);
    }
    hits
}

/// Whether a backlog of `pending` keys found on opening a graph of `graph` keys is built at
/// once. A few keys (the strays of the last build, the tail of a write cut short) are scanned
/// exactly instead until the next write: building them means copying the whole graph from its
/// file into memory first (at a million items, 0.5 GB and seconds of an open that otherwise
/// only maps the file), and then saving it again.
pub(super) fn builds_at_open(pending: usize, graph: usize) -> bool {
    pending > 0 && pending >= (graph / 1_000).max(STEP)
}

impl Inner {
    /// Copies the backlog keys still read from the table's file into memory, where the
    /// exact scan every search makes over the backlog is one sequential pass instead of a
    /// read per key across the file. Only a backlog left unbuilt at open
    /// ([`builds_at_open`]) — a few keys, so a few pages of memory.
    pub(super) fn hold_backlog_in_memory(&mut self) {
        if builds_at_open(self.pending.len(), self.graph.size()) {
            return;
        }
        let from_file: Vec<u64> = self
            .pending
            .iter()
            .copied()
            .filter(|&key| !self.exact.in_memory(key))
            .collect();
        for key in from_file {
            if let Some(v) = self.exact.vector(key).map(|v| v.into_owned()) {
                self.exact.put(key, &v);
            }
        }
    }
}

impl VectorIndex {
    /// Starts the background thread that moves the backlog into the graph. It holds the index
    /// only while it builds a step, and ends when the index is dropped.
    pub(crate) fn start_building(self: &Arc<Self>) {
        let index = Arc::downgrade(self);
        let signal = self.backlog.signal.clone();
        if self
            .read()
            .is_ok_and(|inner| builds_at_open(inner.pending.len(), inner.graph.size()))
        {
            signal.state().work = true;
        }
        let spawned = std::thread::Builder::new()
            .name("navigator-graph".into())
            .spawn(move || build_in_background(&index, &signal));
        if let Err(e) = spawned {
            tracing::warn!("the graph builder did not start ({e}); the backlog stays scanned");
        }
    }

    /// Marks an engine write (store, keyword index, vectors) as in progress until the
    /// returned guard is dropped, so the builder leaves the cores to it.
    pub(crate) fn writing(&self) -> Writing {
        let signal = self.backlog.signal.clone();
        signal.state().writing += 1;
        Writing { signal }
    }

    /// Marks a replay of the store (many writes) as in progress until the returned guard
    /// is dropped: the builder waits for its end even past [`URGENT`].
    pub(crate) fn replaying(&self) -> Replaying {
        let writing = self.writing();
        writing.signal.state().replaying += 1;
        Replaying { writing }
    }

    /// How many vectors wait for the graph (searches scan them exactly meanwhile).
    pub(crate) fn backlog_len(&self) -> Result<usize> {
        Ok(self.read()?.pending.len())
    }

    /// Whether the graph changed since it was last saved.
    pub(crate) fn graph_unsaved(&self) -> bool {
        self.graph_grew.load(Ordering::Acquire)
    }

    /// Puts the whole backlog into the graph now, on this thread (the background builder
    /// may share the work).
    pub(crate) fn finish_graph(&self) -> Result<()> {
        while self.build_step(STEP)? > 0 {}
        Ok(())
    }

    /// Puts up to `max` keys of the backlog into the graph (several threads at once); how
    /// many keys are left.
    fn build_step(&self, max: usize) -> Result<usize> {
        let mut guard = self.write()?;
        if guard.pending.is_empty() {
            return Ok(0);
        }
        guard.thaw().map_err(|e| self.err(e))?;
        let Inner {
            graph,
            exact,
            pending,
            ..
        } = &mut *guard;
        let keys: Vec<u64> = pending.iter().take(max).copied().collect();
        let codes: Vec<(u64, Vec<i8>)> = keys
            .iter()
            .filter_map(|&key| Some((key, quantize(&exact.vector(key)?))))
            .collect();
        self.make_room(graph, graph.size() + pending.len())?;
        let added = add_in_parallel(graph, &codes);
        // What the graph took leaves the backlog, even when another key failed; what it took
        // but no search reaches is scanned exactly instead.
        let taken: Vec<(u64, Vec<i8>)> = codes
            .into_iter()
            .filter(|(key, _)| graph.contains(*key))
            .collect();
        for (key, _) in &taken {
            pending.remove(key);
        }
        let lost = super::reach::unreachable(graph, &taken);
        guard.strand(&lost);
        self.graph_grew.store(true, Ordering::Release);
        added.map_err(|e| self.err(e))?;
        Ok(guard.pending.len())
    }
}

/// Adds `codes` to `graph`, split across the machine's cores.
fn add_in_parallel(graph: &Index, codes: &Codes) -> std::result::Result<(), String> {
    let add = |part: &Codes| {
        part.iter()
            .try_for_each(|(key, code)| graph.add(*key, code).map_err(|e| e.to_string()))
    };
    on_cores(codes, add).into_iter().try_for_each(|(_, done)| {
        done.unwrap_or_else(|| Err("a graph-building thread panicked".to_string()))
    })
}

/// The builder's loop: wait for a backlog and a pause in writes, then build step by step
/// until the backlog is empty or writes resume.
fn build_in_background(index: &Weak<VectorIndex>, signal: &Signal) {
    loop {
        {
            let mut state = signal.state();
            loop {
                if state.closed {
                    return;
                }
                if state.work {
                    let Some(wait) = state.busy().filter(|_| state.yields()) else {
                        break;
                    };
                    state = signal
                        .wake
                        .wait_timeout(state, wait)
                        .unwrap_or_else(|e| e.into_inner())
                        .0;
                } else {
                    state = signal.wake.wait(state).unwrap_or_else(|e| e.into_inner());
                }
            }
        }
        loop {
            let Some(index) = index.upgrade() else { return };
            match index.build_step(STEP) {
                Ok(0) => {
                    // Checked again under the signal's lock: a write that adds keys after
                    // this check sets `work` again after it.
                    let mut state = signal.state();
                    if index.backlog_len().unwrap_or(0) == 0 {
                        state.work = false;
                    }
                    break;
                }
                Ok(left) => {
                    let mut state = signal.state();
                    state.size = left;
                    if state.closed || (state.busy().is_some() && state.yields()) {
                        break;
                    }
                }
                Err(e) => {
                    tracing::warn!("building the vector graph failed ({e}); its backlog stays scanned until the next write");
                    signal.state().work = false;
                    break;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builder_yields_to_writes_below_urgent_and_to_a_replay_at_any_size() {
        let dir = tempfile::tempdir().unwrap();
        let (index, _) = VectorIndex::open(&dir.path().join("v.usearch"), 4).unwrap();
        let state = |size: usize| {
            let mut s = index.backlog.signal.state();
            s.size = size;
            (s.busy().is_some(), s.yields())
        };
        assert_eq!(state(URGENT - 1), (false, true));
        assert!(
            !state(URGENT).1,
            "a large backlog is built even while writes go on"
        );
        let writing = index.writing();
        assert_eq!(state(URGENT), (true, false));
        let replay = index.replaying();
        assert_eq!(state(URGENT * 4), (true, true));
        drop(replay);
        assert_eq!(state(URGENT * 4), (true, false));
        drop(writing);
        // Within the quiet time after the last write, still busy.
        assert!(state(1).0);
    }
}
