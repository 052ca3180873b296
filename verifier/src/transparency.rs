//! The transparency log of finished games (`GET /log`, `GET /log/checkpoint`): its entries and
//! signed checkpoints, and the offline checks of entries against their hashes and of a
//! checkpoint against the log's entries.

use serde::{Deserialize, Serialize};

use crate::hash::{GENESIS, log_entry_hash, log_entry_hash_at};
use crate::receipt::{PublishedKey, check_bytes, jcs};

/// One entry of the transparency log: a finished game's final version and chain head.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct LogRecord {
    /// Its place in the log, from 1.
    pub seq: i64,
    /// The finished game.
    pub game_id: String,
    /// The game's final version.
    pub version: i64,
    /// The hash of the game's last event.
    pub head: String,
    /// The previous entry's hash (64 zeros for the first).
    pub prev_hash: String,
    /// Hex SHA-256 over the previous hash, `seq`, the game's id, its version and head, each
    /// length-prefixed as in the event chain, then `logged_at` in milliseconds since the Unix
    /// epoch (8 bytes, big-endian). Entries written before times were bound (API 0.8.0) hash
    /// without it; once one entry binds its time, every later one does.
    pub hash: String,
    /// When it was written (RFC 3339, to the millisecond); never earlier than the entry before
    /// it.
    pub logged_at: String,
}

/// The log's size and head, signed: a later log must extend it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct Checkpoint {
    /// How many entries the log holds.
    pub size: i64,
    /// The last entry's hash (64 zeros for an empty log).
    pub head: String,
    /// When it was signed (RFC 3339, the server's clock).
    pub time: String,
    /// The signing key's id (`GET /keys`).
    pub key_id: String,
    /// Every key the server published when it signed (`GET /keys`), retired ones included:
    /// keys are never withdrawn, so a bundle or `GET /keys` that later omits one of them, or
    /// publishes it otherwise, contradicts this checkpoint. Absent in checkpoints signed
    /// before servers committed to their keys.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keys: Vec<PublishedKey>,
    /// Ed25519 over the JCS (RFC 8785) form of this checkpoint without `signature`, 128 hex
    /// digits.
    #[serde(default)]
    pub signature: String,
}

impl Checkpoint {
    /// The bytes the signature covers.
    pub fn signed_bytes(&self) -> Vec<u8> {
        let mut v = serde_json::to_value(self).unwrap_or_default();
        if let Some(o) = v.as_object_mut() {
            o.remove("signature");
        }
        jcs(&v)
    }
}

/// The time a log entry records, in milliseconds since the Unix epoch.
fn logged_ms(entry: &LogRecord) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(&entry.logged_at)
        .ok()
        .map(|t| t.timestamp_millis())
}

/// Whether an entry's hash covers its time ([`crate::hash::log_entry_hash_at`]): `Some(true)`;
/// `Some(false)` for an entry hashed without it (written before times were bound); `None` when
/// neither matches.
fn entry_hash(entry: &LogRecord) -> Option<bool> {
    let (prev, seq, game, version, head) = (
        &entry.prev_hash,
        entry.seq,
        &entry.game_id,
        entry.version,
        &entry.head,
    );
    if let Some(ms) = logged_ms(entry)
        && log_entry_hash_at(prev, seq, game, version, head, ms) == entry.hash
    {
        return Some(true);
    }
    (log_entry_hash(prev, seq, game, version, head) == entry.hash).then_some(false)
}

/// Checks one entry's hash against its contents (its time included, for an entry that binds
/// it); whether it binds its time.
pub fn check_entry(entry: &LogRecord) -> Result<bool, String> {
    entry_hash(entry).ok_or_else(|| {
        format!(
            "log entry {}: its contents do not match its hash",
            entry.seq
        )
    })
}

/// Checks log entries (from the first) hash by hash, and their times: once an entry binds its
/// time in its hash, every later one does, and no time goes backwards. The error names the
/// first broken entry.
pub fn check_entries(entries: &[LogRecord]) -> Result<(), String> {
    let mut prev = GENESIS.to_string();
    let mut last_time: Option<i64> = None;
    for (e, seq) in entries.iter().zip(1..) {
        if e.seq != seq {
            return Err(format!("log entry {seq}: numbered {}", e.seq));
        }
        if e.prev_hash != prev {
            return Err(format!(
                "log entry {seq}: its previous hash breaks the chain"
            ));
        }
        let timed = check_entry(e)?;
        match (timed, last_time) {
            (false, Some(_)) => {
                return Err(format!(
                    "log entry {seq}: its hash does not cover its time, yet an entry before it \
                     does: the log was rewritten"
                ));
            }
            (true, Some(before)) if logged_ms(e) < Some(before) => {
                return Err(format!(
                    "log entry {seq}: logged at {}, before the entry ahead of it: the log's \
                     times were rewritten",
                    e.logged_at
                ));
            }
            (true, _) => last_time = logged_ms(e),
            (false, None) => {}
        }
        prev = e.hash.clone();
    }
    Ok(())
}

/// How long after a game's end its entry may appear in the log: at once when the finishing
/// append is logged, else by the bots' sweep (a crash in between), within a minute; with the
/// clocks' room of 10 s (the audit's `CLOCK_SKEW_MS`).
pub const LOGGING_GRACE_MS: i64 = 70_000;

/// Where a game whose end the server signed stands in a log: what [`place_game`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Placed {
    /// The game is an entry of the log (the sentence to print).
    Logged(String),
    /// The log shows it should hold the game and does not: the game was hidden (the
    /// contradiction, named).
    Hidden(String),
    /// Nothing given is late enough to tell: the log and every checkpoint given end before the
    /// game was due to be logged (the sentence to print). A newer log or checkpoint tells.
    CannotTell(String),
}

/// A game whose end the server signed (at `ended`, RFC 3339) placed in the log: an entry of
/// it; hidden, where the log shows it should hold it (an entry logged after the end, by more
/// than [`LOGGING_GRACE_MS`], with its time bound in its hash, or a genuine checkpoint signed
/// that long after the end whose entries lack it); or, when nothing given is that late, not
/// yet told either way.
pub fn place_game(
    game_id: &str,
    version: i64,
    ended: &str,
    entries: &[LogRecord],
    checkpoints: &[Checkpoint],
) -> Placed {
    if let Some(entry) = entries.iter().find(|e| e.game_id == game_id) {
        return Placed::Logged(format!("game {game_id} is log entry {}", entry.seq));
    }
    let Some(ended) = rfc3339_ms(ended) else {
        return Placed::Hidden(format!(
            "game {game_id}: the signed end's time is not a time"
        ));
    };
    let due = ended + LOGGING_GRACE_MS;
    let hidden = |after: String| {
        Placed::Hidden(format!(
            "contradiction: the server signed game {game_id}'s end at version {version}, and \
             {after} lacks it: the game was hidden"
        ))
    };
    let later = entries
        .iter()
        .filter(|e| entry_hash(e) == Some(true) && logged_ms(e) > Some(due))
        .count();
    if later > 0 {
        return hidden(format!(
            "the log, with {later} games logged since (their times bound in their hashes),"
        ));
    }
    for c in checkpoints {
        let size = usize::try_from(c.size).unwrap_or(usize::MAX);
        if rfc3339_ms(&c.time) > Some(due) && size <= entries.len() {
            return hidden(format!(
                "the checkpoint of size {} signed at {}, after it,",
                c.size, c.time
            ));
        }
    }
    Placed::CannotTell(format!(
        "cannot tell yet whether game {game_id} was logged: the log given and every checkpoint \
         end before it was due (its end was signed at version {version}, and no game was \
         logged, nor a checkpoint signed, more than {} s after): check again with a newer \
         log and checkpoint",
        LOGGING_GRACE_MS / 1000
    ))
}

/// An RFC 3339 time in milliseconds since the Unix epoch.
fn rfc3339_ms(time: &str) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(time)
        .ok()
        .map(|t| t.timestamp_millis())
}

/// Checks the checkpoints' times against the log and each other: a checkpoint signed before
/// the last entry it covers was logged, or a larger checkpoint signed before a smaller one
/// (beyond [`TIME_ROOM_MS`] for the clocks of several processes), is a contradiction: the
/// server's clock was set back, or an older checkpoint was served again.
pub fn check_checkpoint_times(
    checkpoints: &[Checkpoint],
    entries: &[LogRecord],
) -> Result<(), String> {
    for c in checkpoints {
        let signed = rfc3339_ms(&c.time)
            .ok_or_else(|| format!("the checkpoint of size {}: its time is not a time", c.size))?;
        let last = usize::try_from(c.size)
            .ok()
            .and_then(|n| n.checked_sub(1))
            .and_then(|i| entries.get(i));
        if let Some(entry) = last
            && logged_ms(entry).is_some_and(|at| at > signed + TIME_ROOM_MS)
        {
            return Err(format!(
                "contradiction: the checkpoint of size {} was signed at {}, before its last \
                 entry ({}) was logged at {}: the server's clock was set back",
                c.size, c.time, entry.seq, entry.logged_at
            ));
        }
    }
    for a in checkpoints {
        for b in checkpoints {
            let (Some(ta), Some(tb)) = (rfc3339_ms(&a.time), rfc3339_ms(&b.time)) else {
                continue;
            };
            if a.size > b.size && ta + TIME_ROOM_MS < tb {
                return Err(format!(
                    "contradiction: the checkpoint of size {} was signed at {}, before the \
                     smaller one of size {} signed at {}: the server's clock was set back",
                    a.size, a.time, b.size, b.time
                ));
            }
        }
    }
    Ok(())
}

/// The room the time checks leave for the clocks of several processes: the audit's
/// `CLOCK_SKEW_MS`, 10 s.
pub const TIME_ROOM_MS: i64 = 10_000;

/// Checks that a signed checkpoint is a prefix of the log `entries` (every entry from the
/// first): its signature is a published key's, the entries chain, and the entry at its size
/// has its head.
pub fn check_checkpoint(
    checkpoint: &Checkpoint,
    entries: &[LogRecord],
    keys: &[PublishedKey],
) -> Result<(), String> {
    check_bytes(
        keys,
        &checkpoint.key_id,
        &checkpoint.signed_bytes(),
        &checkpoint.signature,
    )
    .map_err(|e| format!("the checkpoint of size {} is refused: {e}", checkpoint.size))?;
    check_entries(entries)?;
    let head = match usize::try_from(checkpoint.size) {
        Ok(0) => GENESIS.to_string(),
        Ok(n) => match entries.get(n - 1) {
            Some(e) => e.hash.clone(),
            None => {
                return Err(format!(
                    "the checkpoint of size {} is longer than the log ({} entries): the log \
                     was cut",
                    checkpoint.size,
                    entries.len()
                ));
            }
        },
        Err(_) => return Err("the checkpoint's size is negative".into()),
    };
    if head != checkpoint.head {
        return Err(format!(
            "the checkpoint of size {} has head {}, the log has {head} there: the log was \
             rewritten",
            checkpoint.size, checkpoint.head
        ));
    }
    Ok(())
}

/// Keys a genuine checkpoint committed to that `published` omits or publishes otherwise
/// (compared by id and public key: a key retired since is still the same key).
pub fn withdrawn_keys<'a>(
    checkpoint: &'a Checkpoint,
    published: &[PublishedKey],
) -> Vec<&'a PublishedKey> {
    checkpoint
        .keys
        .iter()
        .filter(|k| {
            !published
                .iter()
                .any(|p| p.id == k.id && p.public_key == k.public_key)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(seq: i64, prev: &str, logged_at: &str) -> LogRecord {
        let ms = rfc3339_ms(logged_at).unwrap();
        LogRecord {
            seq,
            game_id: format!("g{seq}"),
            version: 10,
            head: "h".repeat(64),
            prev_hash: prev.to_string(),
            hash: crate::hash::log_entry_hash_at(
                prev,
                seq,
                &format!("g{seq}"),
                10,
                &"h".repeat(64),
                ms,
            ),
            logged_at: logged_at.to_string(),
        }
    }

    fn checkpoint(size: i64, time: &str) -> Checkpoint {
        Checkpoint {
            size,
            head: String::new(),
            time: time.to_string(),
            key_id: String::new(),
            keys: Vec::new(),
            signature: String::new(),
        }
    }

    #[test]
    fn a_checkpoint_is_signed_no_earlier_than_its_entries_and_than_a_smaller_one() {
        let first = entry(1, GENESIS, "2026-11-20T00:01:00Z");
        let second = entry(2, &first.hash, "2026-11-20T00:02:00Z");
        let entries = [first, second];
        let honest = [
            checkpoint(1, "2026-11-20T00:01:05Z"),
            checkpoint(2, "2026-11-20T00:02:05Z"),
        ];
        assert_eq!(check_checkpoint_times(&honest, &entries), Ok(()));
        // Within the clocks' room (10 s) of its last entry: several processes' clocks.
        let close = [checkpoint(2, "2026-11-20T00:01:55Z")];
        assert_eq!(check_checkpoint_times(&close, &entries), Ok(()));
        let early = [checkpoint(2, "2026-11-20T00:01:36Z")];
        let said = check_checkpoint_times(&early, &entries).unwrap_err();
        assert!(said.contains("before its last entry (2)"), "{said}");
        // A larger checkpoint signed well before a smaller one (its own entries bound no time:
        // a log written before times were bound, so only the order of the two says it).
        let mut untimed = entries.clone();
        untimed[1].logged_at = "not a time".into();
        let turned = [
            checkpoint(1, "2026-11-20T00:05:00Z"),
            checkpoint(2, "2026-11-20T00:02:05Z"),
        ];
        let said = check_checkpoint_times(&turned, &untimed).unwrap_err();
        assert!(said.contains("before the smaller one of size 1"), "{said}");
    }

    #[test]
    fn a_game_is_logged_hidden_or_not_yet_told() {
        let ended = "2026-11-20T00:00:00Z";
        let first = entry(1, GENESIS, "2026-11-20T00:00:30Z");
        let late = entry(2, &first.hash, "2026-11-20T00:05:00Z");
        assert!(matches!(
            place_game("g1", 10, ended, std::slice::from_ref(&first), &[]),
            Placed::Logged(_)
        ));
        assert!(matches!(
            place_game("x", 10, ended, std::slice::from_ref(&first), &[]),
            Placed::CannotTell(_)
        ));
        assert!(matches!(
            place_game("x", 10, ended, &[first.clone(), late], &[]),
            Placed::Hidden(_)
        ));
        let signed_late = [checkpoint(1, "2026-11-20T00:05:00Z")];
        assert!(matches!(
            place_game("x", 10, ended, &[first], &signed_late),
            Placed::Hidden(_)
        ));
    }
}
