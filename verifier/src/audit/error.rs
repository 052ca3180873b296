//! Why a game's record does not verify ([`AuditError`]): the first discrepancy, by the check
//! that found it.

use std::fmt;

/// The first discrepancy an audit found, by the check that found it. Its text (`Display`) says
/// what is wrong in words a person can act on; [`AuditError::check`] names the check
/// ([`AuditCheck`], a stable code).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuditError {
    /// The bundle's parts disagree: the revealed seed is not hex or does not hash to the
    /// commitment published at creation, or the first event did not create the game the bundle
    /// describes (its seed, its ruleset).
    Bundle(String),
    /// The hash chain breaks at event `seq`: its number, its previous hash, its contents, or an
    /// event that cannot be read.
    Chain {
        /// The event.
        seq: u64,
        /// What is wrong with it.
        what: String,
    },
    /// The transparency log's entry for the game does not match it (the record changed after
    /// it was logged), or is not a valid entry.
    LogEntry(String),
    /// A finished game's record stops before the game's end.
    Unfinished {
        /// The record's last version.
        version: u64,
        /// Its last event's kind (`none` for an empty record).
        last: String,
    },
    /// Replaying the log by the rules, an event is not what the rules decide (a shuffle, a
    /// move, a score).
    Rules(saboteur_domain::Discrepancy),
    /// A player's signature or a key's proof of possession does not verify, or an act of a
    /// seat with a key is unsigned, at event `seq`.
    Signature {
        /// The event.
        seq: u64,
        /// What is wrong with it.
        what: String,
    },
    /// The question asked of the bundle makes no sense (a seat the game does not have, a key
    /// that is not 64 hex digits).
    Question(String),
}

/// Which check of an audit failed: a stable code (the variants of [`AuditError`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum AuditCheck {
    /// The bundle's parts disagree (the seed and its commitment, the first event).
    Bundle,
    /// The hash chain breaks.
    Chain,
    /// The transparency log's entry does not match the record.
    LogEntry,
    /// A finished game's record stops before the game's end.
    Unfinished,
    /// An event is not what the rules decide.
    Rules,
    /// A player's signature or a key's proof does not verify, or an act is unsigned.
    Signature,
    /// The question asked makes no sense (no such seat, a malformed key).
    Question,
}

impl AuditError {
    /// The check that failed.
    pub fn check(&self) -> AuditCheck {
        match self {
            AuditError::Bundle(_) => AuditCheck::Bundle,
            AuditError::Chain { .. } => AuditCheck::Chain,
            AuditError::LogEntry(_) => AuditCheck::LogEntry,
            AuditError::Unfinished { .. } => AuditCheck::Unfinished,
            AuditError::Rules(_) => AuditCheck::Rules,
            AuditError::Signature { .. } => AuditCheck::Signature,
            AuditError::Question(_) => AuditCheck::Question,
        }
    }

    /// The event the discrepancy is at, when it is at one.
    pub fn seq(&self) -> Option<u64> {
        match self {
            AuditError::Chain { seq, .. } | AuditError::Signature { seq, .. } => Some(*seq),
            AuditError::Rules(d) => Some(d.seq),
            AuditError::Bundle(_)
            | AuditError::LogEntry(_)
            | AuditError::Unfinished { .. }
            | AuditError::Question(_) => None,
        }
    }

    /// A discrepancy at event `seq` of the chain.
    pub(crate) fn chain(seq: impl TryInto<u64>, what: impl Into<String>) -> AuditError {
        AuditError::Chain {
            seq: seq.try_into().unwrap_or(0),
            what: what.into(),
        }
    }

    /// A discrepancy of a signature at event `seq`.
    pub(crate) fn signature(seq: u64, what: impl Into<String>) -> AuditError {
        AuditError::Signature {
            seq,
            what: what.into(),
        }
    }
}

impl fmt::Display for AuditError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AuditError::Bundle(what) | AuditError::LogEntry(what) | AuditError::Question(what) => {
                f.write_str(what)
            }
            AuditError::Chain { seq, what } | AuditError::Signature { seq, what } => {
                write!(f, "event {seq}: {what}")
            }
            AuditError::Unfinished { version, last } => write!(
                f,
                "the record stops at version {version} (its last event is `{last}`) before the \
                 game's end: a finished game's record ends it with `game_ended` (audit a game in \
                 progress with --unfinished)"
            ),
            AuditError::Rules(d) => write!(f, "{d}"),
        }
    }
}

impl std::error::Error for AuditError {}

#[cfg(test)]
mod tests {
    use super::AuditError;

    #[test]
    fn each_check_has_its_own_code() {
        let all = [
            AuditError::Bundle(String::new()),
            AuditError::chain(1u64, ""),
            AuditError::LogEntry(String::new()),
            AuditError::Unfinished {
                version: 0,
                last: String::new(),
            },
            AuditError::Rules(saboteur_domain::Discrepancy {
                seq: 1,
                what: String::new(),
            }),
            AuditError::signature(1, ""),
            AuditError::Question(String::new()),
        ];
        let codes: std::collections::HashSet<_> = all.iter().map(AuditError::check).collect();
        assert_eq!(codes.len(), all.len());
        assert_eq!(
            AuditError::chain(3u64, "numbered 4").to_string(),
            "event 3: numbered 4"
        );
    }
}
