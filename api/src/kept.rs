//! Answers this process served last, kept to answer again while no database can be reached (a
//! demoted primary restarting while the standby is away): a finished game's audit bundle (its
//! record no longer changes, so a bundle served once is still the game's) and the pages of the
//! game listing (as they were when served: games created or finished since are missing); and a
//! finished game's analyses, kept so that the expert's search runs once per seat.

use std::collections::VecDeque;
use std::sync::Mutex;

/// The last `capacity` answers served, by what was asked (a game's id, a listing's query),
/// newest last.
pub(crate) struct Kept<T> {
    capacity: usize,
    answers: Mutex<VecDeque<(String, T)>>,
}

impl<T: Clone> Kept<T> {
    /// Keeps at most `capacity` answers.
    pub fn new(capacity: usize) -> Kept<T> {
        Kept {
            capacity,
            answers: Mutex::new(VecDeque::with_capacity(capacity)),
        }
    }

    /// Keeps `answer`, served for `asked`, in place of any older answer to it.
    pub fn keep(&self, asked: &str, answer: &T) {
        let mut kept = self.answers.lock().unwrap_or_else(|e| e.into_inner());
        kept.retain(|(a, _)| a != asked);
        if kept.len() >= self.capacity {
            kept.pop_front();
        }
        kept.push_back((asked.to_string(), answer.clone()));
    }

    /// The answer last served for `asked`, if it is still kept.
    pub fn get(&self, asked: &str) -> Option<T> {
        let kept = self.answers.lock().unwrap_or_else(|e| e.into_inner());
        kept.iter()
            .find(|(a, _)| a == asked)
            .map(|(_, answer)| answer.clone())
    }

    /// The answer kept for `asked`, or `make()`'s, kept first: two asking at once get one.
    pub fn get_or_keep(&self, asked: &str, make: impl FnOnce() -> T) -> T {
        let mut kept = self.answers.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, answer)) = kept.iter().find(|(a, _)| a == asked) {
            return answer.clone();
        }
        if kept.len() >= self.capacity {
            kept.pop_front();
        }
        let answer = make();
        kept.push_back((asked.to_string(), answer.clone()));
        answer
    }
}

#[cfg(test)]
mod tests {
    use super::Kept;

    #[test]
    fn the_oldest_answer_goes_first_and_an_answer_asked_again_is_replaced() {
        let kept = Kept::new(2);
        kept.keep("a", &1);
        kept.keep("b", &2);
        kept.keep("a", &3);
        kept.keep("c", &4);
        assert_eq!(kept.get("b"), None, "b was the oldest");
        assert_eq!(kept.get("a"), Some(3));
        assert_eq!(kept.get("c"), Some(4));
        // Kept once: the second asking gets the first's.
        assert_eq!(kept.get_or_keep("d", || 5), 5);
        assert_eq!(kept.get_or_keep("d", || 6), 5);
        assert_eq!(kept.get("a"), None, "a was the oldest");
    }
}
