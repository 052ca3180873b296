//! Audit bundles: a finished game's whole record, and the offline check of it.
//!
//! A bundle holds every event as stored (nothing redacted), the revealed seed and its
//! commitment. [`verify`] checks, in order: the seed against its commitment, the hash chain,
//! every event's decoding, that the log was created with the revealed seed, then the engine's
//! audit — every deal derived again from the seed, every command decided again against the
//! state before it and compared with the recorded events, every undo checked — and the final
//! scores. Since API 0.4.0 a bundle also holds the server's published signing keys and the
//! game's transparency log entry, and [`super::check_receipts`] checks receipts kept by players
//! and spectators against it (see docs/threat-model.md for what that proves).

use saboteur_domain::{AuditReport, Event};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::error::AuditError;
use super::signatures::check_signatures;
use crate::hash::{GENESIS, seed_commitment};
use crate::receipt::PublishedKey;
use crate::seal::{Sealer, event_hash};
use crate::transparency::LogRecord;

/// One stored event, as it is in the log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct BundleEvent {
    /// Its place in the log, from 1.
    pub seq: i64,
    /// Its type tag.
    pub event_type: String,
    /// The schema version of its payload.
    pub schema_version: i32,
    /// The event, unredacted.
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub payload: Value,
    /// The previous event's hash.
    pub prev_hash: String,
    /// SHA-256 over the previous hash and this event's canonical bytes.
    pub hash: String,
}

/// A finished game's whole record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct AuditBundle {
    /// The game's id.
    pub game_id: String,
    /// The ruleset.
    pub ruleset: saboteur_domain::Ruleset,
    /// The seed every shuffle was drawn from, 64 hex digits.
    pub seed: String,
    /// Hex SHA-256 of the seed, published when the game was created.
    pub seed_commitment: String,
    /// Every event, in order.
    pub events: Vec<BundleEvent>,
    /// Every key the server has signed receipts with (`GET /keys`).
    #[serde(default)]
    pub keys: Vec<PublishedKey>,
    /// The game's entry in the transparency log, once it is logged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_entry: Option<LogRecord>,
}

impl AuditBundle {
    /// The bundle of game `game_id` whose log is `log` and server seed `seed`, chained as the
    /// store chains it (each event sealed from record version 6 on, [`crate::seal::Chain`]):
    /// what a server publishes at the end, without keys or a log entry.
    pub fn of_log(game_id: &str, seed: saboteur_domain::Seed, log: &[Event]) -> AuditBundle {
        let mut chain = crate::seal::Chain::new(game_id);
        let mut prev = GENESIS.to_string();
        let version = i32::from(saboteur_domain::EVENT_SCHEMA_VERSION);
        let events = log
            .iter()
            .zip(1..)
            .map(|(e, seq)| {
                let payload = serde_json::to_value(e).unwrap_or_default();
                let hash = chain
                    .hash(&prev, seq, e.kind(), version, &payload)
                    .unwrap_or_default();
                BundleEvent {
                    seq,
                    event_type: e.kind().to_string(),
                    schema_version: version,
                    payload,
                    prev_hash: std::mem::replace(&mut prev, hash.clone()),
                    hash,
                }
            })
            .collect();
        let ruleset = match log.first() {
            Some(Event::GameCreated { ruleset, .. }) => *ruleset,
            _ => saboteur_domain::Ruleset::Base,
        };
        AuditBundle {
            game_id: game_id.to_string(),
            ruleset,
            seed: seed.to_hex(),
            seed_commitment: seed_commitment(&seed.0),
            events,
            keys: Vec::new(),
            log_entry: None,
        }
    }
}

/// What a verified bundle showed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Verified {
    /// Events checked.
    pub events: u64,
    /// Commands decided again.
    pub commands_checked: u64,
    /// Deals derived again from the seed.
    pub deals_checked: u64,
    /// Undo events checked.
    pub undos_checked: u64,
    /// Bot commands chosen again from the bot's view and recorded seed, by the logic of the bot
    /// version that recorded each (every older version included).
    pub bot_moves_checked: u64,
    /// Bot commands of a bot version this server does not have (a newer one), decided again but
    /// not chosen again.
    pub bot_moves_of_other_versions: u64,
    /// Each seat's final total.
    pub gold: Vec<u32>,
    /// The winning seats.
    pub winners: Vec<u8>,
    /// Players' signatures checked against their seats' keys.
    #[serde(default)]
    pub signatures_checked: u64,
}

impl From<AuditReport> for Verified {
    fn from(r: AuditReport) -> Self {
        Verified {
            events: r.events,
            commands_checked: r.commands_checked,
            deals_checked: r.deals_checked,
            undos_checked: r.undos_checked,
            bot_moves_checked: r.bot_moves_checked,
            bot_moves_of_other_versions: r.bot_moves_of_other_versions,
            gold: r.gold,
            winners: r.winners.iter().map(|s| s.0).collect(),
            signatures_checked: 0,
        }
    }
}

impl AuditBundle {
    /// A bundle from a game's stored events (the store gives each as a [`BundleEvent`]).
    pub fn new(
        game_id: &str,
        ruleset: saboteur_domain::Ruleset,
        seed: &[u8],
        commitment: &str,
        events: Vec<BundleEvent>,
    ) -> Self {
        AuditBundle {
            game_id: game_id.to_string(),
            ruleset,
            seed: hex::encode(seed),
            seed_commitment: commitment.to_string(),
            events,
            keys: Vec::new(),
            log_entry: None,
        }
    }
}

/// Checks a finished game's bundle; the error names the first discrepancy. A bundle whose log
/// does not end the game is refused: a record cut before its end would otherwise verify as a
/// game nobody won.
pub fn verify(bundle: &AuditBundle) -> Result<Verified, AuditError> {
    audited(bundle, true)
}

/// The checks in order: the chain and the seed, the log entry, the end (for a finished game),
/// who signed what (an act of a seat with a key left unsigned is a signature's failure, found
/// before the rules are replayed), the rules, then every signature and key proof.
fn audited(bundle: &AuditBundle, finished: bool) -> Result<Verified, AuditError> {
    let log = decode_log(bundle)?;
    check_log_entry(bundle)?;
    if finished && !log.iter().any(|e| matches!(e, Event::GameEnded { .. })) {
        let last = log.last().map(Event::kind).unwrap_or("none");
        return Err(AuditError::Unfinished {
            version: log.len() as u64,
            last: last.to_string(),
        });
    }
    saboteur_domain::signed_acts(&log).map_err(|(seq, what)| AuditError::signature(seq, what))?;
    let mut verified = saboteur_domain::audit(&log)
        .map(Verified::from)
        .map_err(AuditError::Rules)?;
    verified.signatures_checked = check_signatures(&bundle.game_id, &log)?;
    Ok(verified)
}

/// Every act of `seat` in the bundle that the player holding `keys` (64 hex digits each: every
/// key they held for the seat) did not sign ([`saboteur_domain::not_signed_by`]): `(seq, what)`,
/// empty when every act of the seat not made while the record gave it to a bot is signed by one
/// of them.
pub fn acts_not_signed_by(
    bundle: &AuditBundle,
    seat: u8,
    keys: &[String],
) -> Result<Vec<(u64, String)>, AuditError> {
    let log = decode_log(bundle)?;
    let players = match log.first() {
        Some(Event::GameCreated { players, .. }) => *players,
        _ => 0,
    };
    if seat >= players {
        return Err(AuditError::Question(format!("the game has no seat {seat}")));
    }
    let keys: Vec<String> = keys.iter().map(|k| k.to_ascii_lowercase()).collect();
    if keys.is_empty() || !keys.iter().all(|k| saboteur_domain::is_public_key(k)) {
        return Err(AuditError::Question(
            "a player's key is 64 hex digits".into(),
        ));
    }
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    Ok(saboteur_domain::not_signed_by(
        &log,
        saboteur_domain::Seat(seat),
        &keys,
    ))
}

/// Checks the bundle of a game that may still be in progress, as [`verify`] does but without
/// asking that the record end the game.
pub fn verify_unfinished(bundle: &AuditBundle) -> Result<Verified, AuditError> {
    audited(bundle, false)
}

/// Checks the bundle's transparency log entry, if it has one, against its events.
fn check_log_entry(bundle: &AuditBundle) -> Result<(), AuditError> {
    let Some(entry) = &bundle.log_entry else {
        return Ok(());
    };
    let last = bundle
        .events
        .last()
        .map(|e| e.hash.as_str())
        .unwrap_or(GENESIS);
    if entry.game_id != bundle.game_id {
        return Err(AuditError::LogEntry(format!(
            "the log entry is game {}'s",
            entry.game_id
        )));
    }
    crate::transparency::check_entry(entry).map_err(AuditError::LogEntry)?;
    if entry.version != bundle.events.len() as i64 || entry.head != last {
        return Err(AuditError::LogEntry(format!(
            "log entry {} says the game ended at version {} with head {}; the bundle has {} \
             events and head {last}: the record was changed after it was logged",
            entry.seq,
            entry.version,
            entry.head,
            bundle.events.len()
        )));
    }
    Ok(())
}

/// The bundle's events, its chain checked and each decoded; the error names the first
/// discrepancy.
pub(crate) fn decode_log(bundle: &AuditBundle) -> Result<Vec<Event>, AuditError> {
    let seed =
        hex::decode(&bundle.seed).map_err(|_| AuditError::Bundle("the seed is not hex".into()))?;
    if seed_commitment(&seed) != bundle.seed_commitment {
        return Err(AuditError::Bundle(
            "the revealed seed does not match the commitment published at creation".into(),
        ));
    }
    let mut prev = GENESIS.to_string();
    let mut log = Vec::with_capacity(bundle.events.len());
    let mut sealer = None;
    for (i, e) in bundle.events.iter().enumerate() {
        let seq = i as i64 + 1;
        if e.seq != seq {
            return Err(AuditError::chain(seq, format!("numbered {}", e.seq)));
        }
        if e.prev_hash != prev {
            return Err(AuditError::chain(seq, "its previous hash breaks the chain"));
        }
        let version = u16::try_from(e.schema_version)
            .map_err(|_| AuditError::chain(seq, "bad schema version"))?;
        let event = Event::decode(version, &e.payload)
            .map_err(|err| AuditError::chain(seq, err.to_string()))?;
        if seq == 1 {
            // A game of record version 6 on hashes each event sealed, its salts from the seed.
            sealer = Sealer::for_game(&bundle.game_id, &event);
        }
        let hash = event_hash(
            &prev,
            &bundle.game_id,
            seq,
            &e.event_type,
            e.schema_version,
            &e.payload,
            sealer.as_ref().map(|s| (s, &event)),
        );
        if hash != e.hash {
            return Err(AuditError::chain(seq, "its contents do not match its hash"));
        }
        prev = hash;
        if event.kind() != e.event_type {
            return Err(AuditError::chain(
                seq,
                format!("recorded as {} but is {}", e.event_type, event.kind()),
            ));
        }
        log.push(event);
    }
    match log.first() {
        Some(Event::GameCreated {
            seed: s, ruleset, ..
        }) if s.known().map(|s| s.0.as_slice()) == Some(seed.as_slice()) => {
            if *ruleset != bundle.ruleset {
                return Err(AuditError::Bundle(format!(
                    "the bundle says the ruleset is {}, event 1 created a game of {}",
                    ruleset_name(bundle.ruleset),
                    ruleset_name(*ruleset)
                )));
            }
        }
        _ => {
            return Err(AuditError::Bundle(
                "event 1: the game was not created with the revealed seed".into(),
            ));
        }
    }
    Ok(log)
}

/// A ruleset's wire name (`base`, `saboteur2`).
fn ruleset_name(ruleset: saboteur_domain::Ruleset) -> String {
    serde_json::to_value(ruleset)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}
