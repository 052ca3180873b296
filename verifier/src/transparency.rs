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

/// A game whose end the server signed (at `ended`, RFC 3339) that the log leaves out, where
/// the log shows it should hold it: an entry logged after the end (by more than
/// [`LOGGING_GRACE_MS`]) with its time bound in its hash, or a genuine checkpoint signed that
/// long after the end whose entries lack it. `Ok` when the game is logged, or nothing yet says
/// it should be (the sentence to print); the error names the hidden game.
pub fn hidden_game(
    game_id: &str,
    version: i64,
    ended: &str,
    entries: &[LogRecord],
    checkpoints: &[Checkpoint],
) -> Result<String, String> {
    if let Some(entry) = entries.iter().find(|e| e.game_id == game_id) {
        return Ok(format!("game {game_id} is log entry {}", entry.seq));
    }
    let Some(ended) = chrono::DateTime::parse_from_rfc3339(ended)
        .ok()
        .map(|t| t.timestamp_millis())
    else {
        return Err(format!(
            "game {game_id}: the signed end's time is not a time"
        ));
    };
    let due = ended + LOGGING_GRACE_MS;
    let hidden = |after: String| {
        format!(
            "contradiction: the server signed game {game_id}'s end at version {version}, and \
             {after} lacks it: the game was hidden"
        )
    };
    let later = entries
        .iter()
        .filter(|e| entry_hash(e) == Some(true) && logged_ms(e) > Some(due))
        .count();
    if later > 0 {
        return Err(hidden(format!(
            "the log, with {later} games logged since (their times bound in their hashes),"
        )));
    }
    for c in checkpoints {
        let signed = chrono::DateTime::parse_from_rfc3339(&c.time)
            .ok()
            .map(|t| t.timestamp_millis());
        let size = usize::try_from(c.size).unwrap_or(usize::MAX);
        if signed > Some(due) && size <= entries.len() {
            return Err(hidden(format!(
                "the checkpoint of size {} signed at {}, after it,",
                c.size, c.time
            )));
        }
    }
    Ok(format!(
        "game {game_id} is not in the log yet (no game was logged, and no checkpoint signed, \
         after its end)"
    ))
}

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
