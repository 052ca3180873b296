//! The bodies receipts sign and the one way each is computed: what a write answers
//! ([`Outcome`], by [`outcome_body`]), what a view shows ([`StateView`], by [`state_view`]), and
//! the seed a game's deals are drawn from as the server committed to it ([`SeedCommitment`]).
//!
//! The server serves these and the offline check of receipts against an audit bundle
//! recomputes them with the same functions, so a body recomputed from the record hashes as the
//! body served did.

use saboteur_domain::{Audience, Event, History};

use crate::seal::{CommitmentOpening, Sealer};
use serde::{Deserialize, Serialize};

/// The seed a game's deals will be drawn from, as the server committed to it: its hash,
/// published before anyone contributes, and the share a player sent with their seat, which the
/// start mixes in (the `seed_mixed` event). Signed by a receipt of kind `commitment`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct SeedCommitment {
    /// The game's id.
    pub game_id: String,
    /// Hex SHA-256 of the server's seed.
    pub seed_commitment: String,
    /// The seat taken, for a seat's commitment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat: Option<u8>,
    /// The share the seat sent (64 hex digits), which the start must mix into the seed: with
    /// the seat taken, or revealed once the host closed the table (then beside
    /// `share_commitment`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entropy: Option<String>,
    /// The commitment to its share the seat sent instead (64 hex digits,
    /// [`saboteur_domain::Seed::share_commitment`]), which the start must record in
    /// `seed_mixed.committed` for it (API 0.18.0 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub share_commitment: Option<String>,
    /// The public key the seat was taken with (64 hex digits), which the start must register
    /// for it (`seat_key_registered`): `saboteur verify --commitment` names another key in the
    /// record as a key swapped in the lobby. Absent for a seat taken without a key, and in
    /// commitments signed before API 0.8.0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub public_key: Option<String>,
}

/// An event of the log, as the caller may see it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct EventRecord {
    /// Its sequence number, from 1.
    pub seq: i64,
    /// The event, with what the caller may not see replaced by `null` or `{"count": n}`; for
    /// a client that declared an older `Api-Version` than the event's type, wrapped
    /// (`NewerEvent`).
    pub event: crate::newer::ServedEvent,
    /// For a seat (record version 6 on): for each value of the event that the seat sees and
    /// others do not while the game runs, the commitment the hash chain holds in its place and
    /// its salt, so the seat can check what it was shown against the chain. Absent otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub openings: Vec<CommitmentOpening>,
}

/// The openings of event `seq` for `audience` in a game sealed by `sealer`: the seat's own
/// hidden values (those it saw while the game ran) with their salts; none for anyone else or
/// an older record. Once the game is over they stay as they were, so the record a seat is
/// served of an event does not change at the end (the revealed seed gives every salt anyway).
pub fn openings(
    sealer: Option<&Sealer>,
    seq: i64,
    event: &Event,
    audience: Audience,
) -> Vec<CommitmentOpening> {
    match (sealer, audience) {
        (Some(sealer), Audience::Seat(_)) => {
            let payload = serde_json::to_value(event).unwrap_or(serde_json::Value::Null);
            sealer
                .openings(seq, event, &payload, audience)
                .into_iter()
                .filter(|o| o.salt.is_some())
                .collect()
        }
        _ => Vec::new(),
    }
}

impl EventRecord {
    /// The record as served to a client that declared `declared` (`Api-Version`): its event
    /// wrapped when its type is newer ([`crate::newer`]).
    pub fn for_client(self, declared: Option<&semver::Version>) -> EventRecord {
        EventRecord {
            seq: self.seq,
            event: self.event.for_client(declared),
            openings: self.openings,
        }
    }

    /// Records as served to a client that declared `declared` (each as [`Self::for_client`]);
    /// without a declared version, the records as they are.
    pub fn all_for_client(
        records: Vec<EventRecord>,
        declared: Option<&semver::Version>,
    ) -> Vec<EventRecord> {
        if declared.is_none() {
            return records;
        }
        records
            .into_iter()
            .map(|r| r.for_client(declared))
            .collect()
    }
}

/// The outcome of a command or of the start.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Outcome {
    /// The game's version now.
    pub version: i64,
    /// The new events, as the caller may see them.
    pub events: Vec<EventRecord>,
    /// The seat whose decision the game awaits now (`null` once it is over): a client need
    /// not read the state to know who plays next.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub awaited: Option<u8>,
    /// The server's signed receipt for this outcome (its `view_hash` covers the rest of this
    /// body): keep it to prove later what you were told.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receipt: Option<crate::receipt::Receipt>,
}

/// What the caller sees of a game.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct StateView {
    /// The version this view is of.
    pub version: i64,
    /// The view (§11): the caller's hand and role for a seat; everything once the game is over.
    pub view: saboteur_domain::View,
    /// The table around the game at that version: the clocks and the awaited decision's
    /// deadline, seats handed to bots, messages hidden by the host.
    pub table: saboteur_domain::TableStatus,
    /// The server's signed receipt for this view (its `view_hash` covers the rest of this
    /// body): keep it to prove later what you were shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receipt: Option<crate::receipt::Receipt>,
}

/// Events of `history` as an audience may see them (a message the host hid without its
/// text), numbered from `first_seq`, each with a seat's [`openings`] in a game sealed by
/// `sealer`.
pub fn redacted(
    history: &History,
    events: &[Event],
    first_seq: i64,
    audience: Audience,
    sealer: Option<&Sealer>,
) -> Vec<EventRecord> {
    events
        .iter()
        .zip(first_seq..)
        .map(|(e, seq)| EventRecord {
            seq,
            event: history
                .shown(u64::try_from(seq).unwrap_or_default(), e, audience)
                .into(),
            openings: openings(sealer, seq, e, audience),
        })
        .collect()
}

/// The outcome of a write whose events start at `first`, as `audience` may see them, with the
/// game's version after them and the seat it awaits then (from `history`, which holds them),
/// and a seat's openings in a game sealed by `sealer`.
pub fn outcome_body(
    history: &History,
    first: i64,
    events: &[Event],
    audience: Audience,
    sealer: Option<&Sealer>,
) -> Outcome {
    let version = first.saturating_add(i64::try_from(events.len()).unwrap_or(i64::MAX)) - 1;
    // The history as it was at `version` (a message hidden since, a game over since, change
    // nothing in what was served then).
    let earlier;
    let then = match u64::try_from(version) {
        Ok(v) if v == history.version() => history,
        Ok(v) => {
            earlier = history.at(v);
            earlier.as_ref().unwrap_or(history)
        }
        Err(_) => history,
    };
    Outcome {
        version,
        events: redacted(then, events, first, audience, sealer),
        awaited: then.game().awaited().map(|s| s.0),
        receipt: None,
    }
}

/// The view at `version` of `history` for `audience`, and the table around the game then:
/// the live state for the current version, the history replayed to `version` for an earlier
/// one. `None` when the game has no such version.
pub fn state_view(history: &History, version: i64, audience: Audience) -> Option<StateView> {
    let earlier;
    let then = match u64::try_from(version).ok()? {
        v if v == history.version() => history,
        v => {
            earlier = history.at(v)?;
            &earlier
        }
    };
    Some(StateView {
        version,
        view: saboteur_domain::view(then.game(), audience),
        table: then.table_status(),
        receipt: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::newer::declared;
    use saboteur_domain::Event;

    #[test]
    fn a_list_of_records_is_wrapped_record_by_record_and_only_for_a_declared_version() {
        let records = || {
            vec![
                EventRecord {
                    seq: 1,
                    event: Event::TalkHidden { message: 7 }.into(),
                    openings: Vec::new(),
                },
                EventRecord {
                    seq: 2,
                    event: Event::GameCancelled {}.into(),
                    openings: Vec::new(),
                },
            ]
        };
        let kinds = |rs: Vec<EventRecord>| -> Vec<(i64, &'static str)> {
            rs.iter().map(|r| (r.seq, r.event.kind())).collect()
        };
        let old = declared("0.10.0").unwrap();
        assert_eq!(
            kinds(EventRecord::all_for_client(records(), Some(&old))),
            [(1, "talk_hidden"), (2, "newer")]
        );
        assert_eq!(
            kinds(EventRecord::all_for_client(records(), None)),
            [(1, "talk_hidden"), (2, "game_cancelled")]
        );
        let new = declared("0.11.0").unwrap();
        assert_eq!(
            kinds(EventRecord::all_for_client(records(), Some(&new))),
            [(1, "talk_hidden"), (2, "game_cancelled")]
        );
    }
}
