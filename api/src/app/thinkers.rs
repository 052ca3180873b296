//! Where the bots think: the CPU an expert's search costs (tens of milliseconds a move) is spent
//! on a few threads of their own, shared fairly between clients, never on the workers that
//! answer requests. An audit's replay of a whole game (seconds, for a long game of experts)
//! runs on a second set of the same kind (`AppState::audits`), so it never holds a bot back.
//!
//! Work is queued by **share**: for a bot, the client that made the game (as the per-client
//! limits name it), or the game itself when its maker is unknown; for an audit, the client
//! asking. The threads take one piece of work from
//! each share with work waiting in turn (round robin), so a client running as many expensive
//! games as its limits allow waits behind its own searches, and another client's bot waits for
//! at most one piece of work per other share. Requests keep their workers meanwhile: a request
//! whose bots think awaits them without holding a worker thread.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Condvar, Mutex, PoisonError};

use crate::error::ApiError;

/// A piece of work: runs once on a thinker thread.
type Job = Box<dyn FnOnce() + Send + 'static>;

/// The thinker threads a server starts when not told: one fewer than the machine's cores (so
/// one core is always left to the requests), and at least one.
pub fn default_threads() -> usize {
    std::thread::available_parallelism()
        .map_or(1, std::num::NonZeroUsize::get)
        .saturating_sub(1)
        .max(1)
}

/// The queues and the threads that empty them. Cloned handles share them; when the last handle
/// is dropped the threads finish what they hold and stop.
#[derive(Clone)]
pub(crate) struct Thinkers {
    shared: Arc<Closer>,
}

/// Stops the threads when dropped (the last [`Thinkers`] handle went).
struct Closer(Arc<Shared>);

impl Drop for Closer {
    fn drop(&mut self) {
        self.0.lock().closed = true;
        self.0.ready.notify_all();
    }
}

struct Shared {
    queues: Mutex<Queues>,
    ready: Condvar,
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, Queues> {
        // A job runs outside the lock; nothing panics while it is held.
        self.queues.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[derive(Default)]
struct Queues {
    /// Each share's work waiting, oldest first.
    waiting: HashMap<String, VecDeque<Job>>,
    /// The shares with work waiting, in the order they are served.
    turn: VecDeque<String>,
    /// How many jobs wait, over all shares.
    count: usize,
    closed: bool,
}

impl Queues {
    fn push(&mut self, share: &str, job: Job) {
        let queue = self.waiting.entry(share.to_owned()).or_default();
        if queue.is_empty() {
            self.turn.push_back(share.to_owned());
        }
        queue.push_back(job);
        self.count += 1;
    }

    /// The next share's oldest job; the share goes to the back of the turn if it has more.
    fn pop(&mut self) -> Option<Job> {
        let share = self.turn.pop_front()?;
        let queue = self.waiting.get_mut(&share)?;
        let job = queue.pop_front();
        if queue.is_empty() {
            self.waiting.remove(&share);
        } else {
            self.turn.push_back(share);
        }
        self.count -= usize::from(job.is_some());
        job
    }
}

impl Thinkers {
    /// Starts `threads` thinker threads (at least one).
    pub(crate) fn new(threads: usize) -> std::io::Result<Thinkers> {
        let shared = Arc::new(Shared {
            queues: Mutex::new(Queues::default()),
            ready: Condvar::new(),
        });
        for n in 0..threads.max(1) {
            let shared = shared.clone();
            std::thread::Builder::new()
                .name(format!("saboteur-thinker-{n}"))
                .spawn(move || run(&shared))?;
        }
        Ok(Thinkers {
            shared: Arc::new(Closer(shared)),
        })
    }

    /// How many pieces of work wait for a thread now.
    pub(crate) fn waiting(&self) -> usize {
        self.shared.0.lock().count
    }

    /// Runs `work` on a thinker thread in `share`'s turn and answers what it returns. A panic in
    /// `work` is an internal error (the thread goes on).
    pub(crate) async fn think<T, F>(&self, share: &str, work: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let job: Job = Box::new(move || {
            let done = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
            // The asker may be gone (its request cancelled): nobody to answer.
            let _ = tx.send(done);
        });
        {
            let mut queues = self.shared.0.lock();
            queues.push(share, job);
        }
        self.shared.0.ready.notify_one();
        match rx.await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(_)) => Err(ApiError::Internal(
                "a bot's or an audit's work failed".into(),
            )),
            Err(_) => Err(ApiError::Internal("the thinker threads stopped".into())),
        }
    }
}

/// How much a thinker thread yields to the threads that answer requests (a `nice` value): a
/// search uses the CPU the requests leave, and a request never waits for a core a search holds.
const NICENESS: i32 = 10;

/// Lowers the calling thread's priority by [`NICENESS`]. When refused, the thread keeps its
/// priority and the fair queue alone holds.
fn yield_to_requests() {
    if lower_this_thread(NICENESS).is_err() {
        tracing::debug!("a thinker thread keeps its priority");
    }
}

/// Sets the calling thread's `nice` value to `niceness` (Linux: `setpriority` on the thread's
/// id, which names that one thread); threads and processes it starts afterwards inherit it.
/// Elsewhere it changes nothing and answers `Ok`.
///
/// # Errors
///
/// The system's refusal (raising a priority needs the right to).
pub fn lower_this_thread(niceness: i32) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    // SAFETY: `gettid` has no preconditions; `setpriority` only reads its arguments, and
    // PRIO_PROCESS with a thread id names that one thread on Linux.
    unsafe {
        #[allow(clippy::cast_sign_loss)]
        let who = libc::gettid() as libc::id_t;
        if libc::setpriority(libc::PRIO_PROCESS, who, niceness) != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = niceness;
    Ok(())
}

/// A thinker thread: takes the next share's job, runs it, until the queues close and empty.
fn run(shared: &Shared) {
    yield_to_requests();
    loop {
        let job = {
            let mut queues = shared.lock();
            loop {
                if let Some(job) = queues.pop() {
                    break job;
                }
                if queues.closed {
                    return;
                }
                queues = shared
                    .ready
                    .wait(queues)
                    .unwrap_or_else(PoisonError::into_inner);
            }
        };
        job();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(log: &Arc<Mutex<Vec<String>>>, name: &str) -> Job {
        let (log, name) = (log.clone(), name.to_owned());
        Box::new(move || log.lock().unwrap().push(name))
    }

    /// One share with many jobs waiting does not hold back another's: the shares are served
    /// in turn, each share's jobs in their order.
    #[test]
    fn shares_are_served_in_turn() {
        let log = Arc::new(Mutex::new(Vec::new()));
        let mut q = Queues::default();
        for i in 0..4 {
            q.push("greedy", job(&log, &format!("g{i}")));
        }
        q.push("other", job(&log, "o0"));
        q.push("third", job(&log, "t0"));
        q.push("other", job(&log, "o1"));
        assert_eq!(q.count, 7);
        while let Some(j) = q.pop() {
            j();
        }
        assert_eq!(q.count, 0);
        assert!(q.waiting.is_empty() && q.turn.is_empty());
        assert_eq!(
            *log.lock().unwrap(),
            ["g0", "o0", "t0", "g1", "o1", "g2", "g3"]
        );
    }

    #[tokio::test]
    async fn work_is_answered_and_a_panic_is_an_error() {
        let thinkers = Thinkers::new(1).unwrap();
        assert_eq!(thinkers.think("a", || 6 * 7).await.unwrap(), 42);
        let failed = thinkers.think("a", || -> u8 { panic!("a search failed") });
        assert!(matches!(failed.await, Err(ApiError::Internal(_))));
        // The thread survived the panic.
        assert_eq!(
            thinkers.think("b", || "still here").await.unwrap(),
            "still here"
        );
        assert_eq!(thinkers.waiting(), 0);
    }
}
