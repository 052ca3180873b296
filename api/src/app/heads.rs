//! The chain's head at each version of a game held in memory: what a receipt of a view at an
//! earlier version signs, answered without the database (a finished game's replay is served
//! through the loss of every database node from what the table holds).

/// The hash of each event a table holds, by sequence number (as read from the store, or as the
/// store's append answered it); `None` where a stored hash was not 32 bytes of hex: that one is
/// read from the store when asked.
use crate::app::ids::Version;

#[derive(Default)]
pub(crate) struct Heads(Vec<Option<[u8; 32]>>);

impl Heads {
    /// The heads of a log read whole, in order from version 1.
    pub fn of(hashes: &[String]) -> Heads {
        let mut heads = Heads(Vec::with_capacity(hashes.len()));
        for (at, hash) in hashes.iter().enumerate() {
            heads.set(Version::of(1).plus(at), hash);
        }
        heads
    }

    /// Notes the hash of the event at `seq` (a hash that is not 32 bytes of hex is not kept:
    /// the store is asked for it instead).
    pub fn set(&mut self, seq: Version, hash: &str) {
        let Some(at) = usize::try_from(seq.get())
            .ok()
            .and_then(|s| s.checked_sub(1))
        else {
            return;
        };
        if self.0.len() <= at {
            self.0.resize(at + 1, None);
        }
        let mut bytes = [0u8; 32];
        if let Some(slot) = self.0.get_mut(at) {
            *slot = hex::decode_to_slice(hash, &mut bytes).ok().map(|()| bytes);
        }
    }

    /// The hash of the event at `seq`, if held.
    pub fn get(&self, seq: Version) -> Option<String> {
        let at = usize::try_from(seq.get()).ok()?.checked_sub(1)?;
        self.0.get(at).copied().flatten().map(hex::encode)
    }
}

#[cfg(test)]
mod tests {
    use super::Heads;
    use crate::app::ids::Version;

    fn v(n: u64) -> Version {
        Version::of(n)
    }

    #[test]
    fn holds_what_it_was_told_and_nothing_else() {
        let a = "ab".repeat(32);
        let b = "cd".repeat(32);
        let mut heads = Heads::of(&[a.clone(), "not hex".into()]);
        assert_eq!(heads.get(v(1)), Some(a));
        assert_eq!(
            heads.get(v(2)),
            None,
            "a malformed hash is asked of the store"
        );
        assert_eq!(heads.get(v(0)), None);
        assert_eq!(heads.get(v(3)), None);
        heads.set(v(5), &b);
        assert_eq!(heads.get(v(5)), Some(b.clone()));
        assert_eq!(heads.get(v(4)), None, "a gap is asked of the store");
        heads.set(v(0), &b);
        assert_eq!(heads.get(v(0)), None, "version 0 holds no event");
    }
}
