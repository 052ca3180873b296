//! Faults a test injects into the store (feature `testing`): an append that commits, then
//! answers as if the database had gone away, as a connection lost between the commit and its
//! answer does. What the caller then knows of the append is nothing; what the store holds is
//! the append.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

use crate::ids::GameId;

/// Per game: how many appends go through before the one whose answer is lost.
static LOST: Mutex<Option<HashMap<String, u32>>> = Mutex::new(None);

/// Whether any fault was ever armed: until one is, an append looks no further (benchmarks
/// built with this feature take no lock).
static ARMED: AtomicBool = AtomicBool::new(false);

/// The answer of game `game`'s append after the next `after` is lost: it commits, then answers
/// [`crate::StoreError::Unavailable`]. Once.
pub fn lose_an_answer(game: &GameId, after: u32) {
    let mut lost = LOST.lock().unwrap_or_else(PoisonError::into_inner);
    lost.get_or_insert_with(HashMap::new)
        .insert(game.as_str().to_string(), after);
    ARMED.store(true, Ordering::Release);
}

/// Whether the answer of the append of `game` that just committed is lost (and the fault
/// spent).
pub(crate) fn answer_lost(game: &GameId) -> bool {
    if !ARMED.load(Ordering::Acquire) {
        return false;
    }
    let mut lost = LOST.lock().unwrap_or_else(PoisonError::into_inner);
    let Some(armed) = lost.as_mut() else {
        return false;
    };
    match armed.get_mut(game.as_str()) {
        Some(0) => {
            armed.remove(game.as_str());
            true
        }
        Some(n) => {
            *n -= 1;
            false
        }
        None => false,
    }
}
