//! The retrieval helper: a second thread for hybrid searches that a search never waits on
//! before it has started.
//!
//! A hybrid search hands its keyword side to the helper and walks the vector graph itself.
//! When the walk is done it takes the keyword job back if the helper has not started it yet
//! (on a busy machine the helper may not have been scheduled), so a search takes at most about
//! as long as doing both sides on one thread, and on an idle second core about as long as
//! the slower side. One helper serves every search of an engine; searches it is too busy for
//! run their keyword side themselves.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

type Job = Box<dyn FnOnce() + Send>;

/// The helper thread; it ends when the helper is dropped.
pub(crate) struct Helper {
    jobs: Mutex<Sender<Job>>,
}

impl Helper {
    /// Starts the helper thread; `None` when the system cannot start a thread.
    pub(crate) fn start() -> Option<Self> {
        let (tx, rx) = channel::<Job>();
        std::thread::Builder::new()
            .name("navigator-retrieval".into())
            .spawn(move || {
                while let Ok(job) = rx.recv() {
                    job();
                }
            })
            .ok()?;
        Some(Self {
            jobs: Mutex::new(tx),
        })
    }

    /// Queues `work` on the helper; [`Task::finish`] gives its result, running it on the
    /// calling thread when the helper has not started it.
    pub(crate) fn submit<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Arc<Task<T>> {
        let task = Arc::new(Task {
            state: Mutex::new(State::Queued(Box::new(work))),
            done: Condvar::new(),
        });
        let queued = task.clone();
        let sent = self
            .jobs
            .lock()
            .map(|tx| tx.send(Box::new(move || queued.run_here())).is_ok())
            .unwrap_or(false);
        if !sent {
            tracing::debug!("the retrieval helper is gone; the search runs on one thread");
        }
        task
    }
}

enum State<T> {
    Queued(Box<dyn FnOnce() -> T + Send>),
    Running,
    Done(std::thread::Result<T>),
    Taken,
}

/// One piece of work handed to the [`Helper`].
pub(crate) struct Task<T> {
    state: Mutex<State<T>>,
    done: Condvar,
}

impl<T> Task<T> {
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        // The work runs outside the lock and panics are caught, so a poisoned lock still
        // holds a consistent state.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Takes the work if nobody has started it.
    fn claim(&self) -> Option<Box<dyn FnOnce() -> T + Send>> {
        let mut state = self.lock();
        match std::mem::replace(&mut *state, State::Running) {
            State::Queued(work) => Some(work),
            other => {
                *state = other;
                None
            }
        }
    }

    /// Runs the work on this (the helper's) thread unless the search took it back.
    fn run_here(&self) {
        if let Some(work) = self.claim() {
            let result = catch_unwind(AssertUnwindSafe(work));
            *self.lock() = State::Done(result);
            self.done.notify_all();
        }
    }

    /// The work's result: run here when the helper has not started it, else waited for.
    /// `Err` when the work panicked on the helper.
    pub(crate) fn finish(&self) -> std::thread::Result<T> {
        if let Some(work) = self.claim() {
            return Ok(work());
        }
        let mut state = self.lock();
        loop {
            match std::mem::replace(&mut *state, State::Taken) {
                State::Done(result) => return result,
                other => {
                    *state = other;
                    state = self.done.wait(state).unwrap_or_else(|e| e.into_inner());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    #[test]
    fn every_task_finishes_once_wherever_it_runs() {
        let helper = Helper::start().unwrap();
        let runs = Arc::new(AtomicUsize::new(0));
        let tasks: Vec<_> = (0..200)
            .map(|i| {
                let runs = runs.clone();
                helper.submit(move || {
                    runs.fetch_add(1, Ordering::SeqCst);
                    i * 2
                })
            })
            .collect();
        for (i, t) in tasks.iter().enumerate() {
            assert_eq!(t.finish().unwrap(), i * 2);
        }
        assert_eq!(runs.load(Ordering::SeqCst), 200);
    }

    #[test]
    fn a_search_takes_back_work_the_busy_helper_has_not_started() {
        let helper = Helper::start().unwrap();
        let (release, blocked) = std::sync::mpsc::channel::<()>();
        let busy = helper.submit(move || blocked.recv_timeout(Duration::from_secs(30)).is_ok());
        // Wait until the helper is inside the blocking job.
        while matches!(*busy.lock(), State::Queued(_)) {
            std::thread::yield_now();
        }
        let here = std::thread::current().id();
        let queued = helper.submit(std::thread::current);
        assert_eq!(queued.finish().unwrap().id(), here, "ran on the caller");
        release.send(()).unwrap();
        assert!(busy.finish().unwrap());
    }

    #[test]
    fn a_panic_on_the_helper_is_an_error_and_the_helper_goes_on() {
        let helper = Helper::start().unwrap();
        let (release, blocked) = std::sync::mpsc::channel::<()>();
        let gate = helper.submit(move || blocked.recv().is_ok());
        let boom = helper.submit(|| -> usize { panic!("boom") });
        release.send(()).unwrap();
        assert!(gate.finish().unwrap());
        // `boom` may have run on either thread; on this one it panics here.
        let result = catch_unwind(AssertUnwindSafe(|| boom.finish()));
        assert!(matches!(result, Err(_) | Ok(Err(_))));
        assert_eq!(helper.submit(|| 7).finish().unwrap(), 7);
    }
}
