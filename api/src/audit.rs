//! Audit bundles: a finished game's whole record, and the offline check of it.
//!
//! A bundle holds every event as stored (nothing redacted), the revealed seed and its
//! commitment. [`verify`] checks, in order: the seed against its commitment, the hash chain,
//! every event's decoding, that the log was created with the revealed seed, then the engine's
//! audit — every deal derived again from the seed, every command decided again against the
//! state before it and compared with the recorded events, every undo checked — and the final
//! scores. Since API 0.4.0 a bundle also holds the server's published signing keys and the
//! game's transparency log entry, and [`check_receipts`] checks receipts kept by players and
//! spectators against it (see docs/threat-model.md for what that proves).

use saboteur_domain::{AuditReport, Event};
use saboteur_storage::{GENESIS, StoredEvent, chain_hash, seed_commitment};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use crate::dto::SeedCommitment;
use crate::error::ApiError;
use crate::receipt::{PublishedKey, Receipt, ReceiptKind, audience_from, view_hash};
use crate::transparency::LogRecord;

/// One stored event, as it is in the log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BundleEvent {
    /// Its place in the log, from 1.
    pub seq: i64,
    /// Its type tag.
    pub event_type: String,
    /// The schema version of its payload.
    pub schema_version: i32,
    /// The event, unredacted.
    #[schema(value_type = Object)]
    pub payload: Value,
    /// The previous event's hash.
    pub prev_hash: String,
    /// SHA-256 over the previous hash and this event's canonical bytes.
    pub hash: String,
}

/// A finished game's whole record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
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

/// What a verified bundle showed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
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
    /// A bundle from a game's stored events.
    pub fn new(
        game_id: &str,
        ruleset: saboteur_domain::Ruleset,
        seed: &[u8],
        commitment: &str,
        events: &[StoredEvent],
    ) -> Self {
        AuditBundle {
            game_id: game_id.to_string(),
            ruleset,
            seed: hex::encode(seed),
            seed_commitment: commitment.to_string(),
            events: events
                .iter()
                .map(|e| BundleEvent {
                    seq: e.seq,
                    event_type: e.event_type.clone(),
                    schema_version: e.schema_version,
                    payload: e.payload.clone(),
                    prev_hash: e.prev_hash.clone(),
                    hash: e.hash.clone(),
                })
                .collect(),
            keys: Vec::new(),
            log_entry: None,
        }
    }
}

/// Checks a finished game's bundle; the error names the first discrepancy. A bundle whose log
/// does not end the game is refused: a record cut before its end would otherwise verify as a
/// game nobody won.
pub fn verify(bundle: &AuditBundle) -> Result<Verified, String> {
    let log = decode_log(bundle)?;
    check_log_entry(bundle)?;
    if !log.iter().any(|e| matches!(e, Event::GameEnded { .. })) {
        let last = log.last().map(Event::kind).unwrap_or("none");
        return Err(format!(
            "the record stops at version {} (its last event is `{last}`) before the game's \
             end: a finished game's record ends it with `game_ended` (audit a game in progress \
             with --unfinished)",
            log.len()
        ));
    }
    let mut verified = saboteur_domain::audit(&log)
        .map(Verified::from)
        .map_err(|d| d.to_string())?;
    verified.signatures_checked = check_signatures(&bundle.game_id, &log)?;
    Ok(verified)
}

/// Checks every player's signature the log records: each signed act listed by
/// [`saboteur_domain::signed_acts`] (which names an act of a keyed seat left unsigned) must
/// verify under the seat's key at the time, over the body recorded with it, and that body must
/// say what the event records. How many were checked.
pub fn check_signatures(game: &str, log: &[Event]) -> Result<u64, String> {
    use saboteur_domain::{SignedAct, fingerprint};
    let entries =
        saboteur_domain::signed_acts(log).map_err(|(seq, what)| format!("event {seq}: {what}"))?;
    for e in &entries {
        let s = &e.signature;
        let message = e
            .scheme
            .signed_bytes(game, e.seat, s.version, e.act, &s.body)
            .unwrap_or_default();
        let event = log
            .get(e.seq as usize - 1)
            .ok_or_else(|| format!("event {}: not in the log", e.seq))?;
        let named = || format!("event {}: {}'s {}", e.seq, e.seat, e.act.as_str());
        if !crate::app::signing::verifies(&e.key, &message, &s.signature) {
            return Err(format!(
                "{} carries a signature that does not verify under the seat's key ({}): the \
                 player did not sign what is recorded",
                named(),
                fingerprint(&e.key)
            ));
        }
        let body: Option<Value> = serde_json::from_str(&s.body).ok();
        let field = |name: &str| {
            body.as_ref()
                .and_then(|b| b.get(name))
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        let agrees = match (e.act, event) {
            (SignedAct::Command, Event::CommandAccepted { command, .. }) => {
                let signed: Option<saboteur_domain::Command> = serde_json::from_str(&s.body).ok();
                match (signed, command.known()) {
                    (Some(signed), Some(recorded)) => signed.canonical() == recorded.canonical(),
                    _ => false,
                }
            }
            (SignedAct::Talk, Event::TalkPosted { text, .. }) => {
                text.known().map(|t| t.trim()) == field("text").as_deref().map(str::trim)
            }
            (SignedAct::Key, Event::SeatKeyRegistered { key, .. }) => {
                field("public_key").map(|k| k.to_ascii_lowercase()).as_ref() == Some(key)
            }
            // Acts without a body sign an empty one.
            _ => s.body.is_empty(),
        };
        if !agrees {
            return Err(format!(
                "{}: the signed body says something else than the record",
                named()
            ));
        }
    }
    Ok(entries.len() as u64)
}

/// Every act of `seat` in the bundle that the player holding `key` (64 hex digits) did not sign
/// ([`saboteur_domain::not_signed_by`]): `(seq, what)`, empty when every act of the seat not
/// made while the record gave it to a bot is signed by that key.
pub fn acts_not_signed_by(
    bundle: &AuditBundle,
    seat: u8,
    key: &str,
) -> Result<Vec<(u64, String)>, String> {
    let log = decode_log(bundle)?;
    let players = match log.first() {
        Some(Event::GameCreated { players, .. }) => *players,
        _ => 0,
    };
    if seat >= players {
        return Err(format!("the game has no seat {seat}"));
    }
    let key = key.to_ascii_lowercase();
    if !saboteur_domain::is_public_key(&key) {
        return Err("a player's key is 64 hex digits".into());
    }
    Ok(saboteur_domain::not_signed_by(
        &log,
        saboteur_domain::Seat(seat),
        &key,
    ))
}

/// Checks the bundle of a game that may still be in progress, as [`verify`] does but without
/// asking that the record end the game.
pub fn verify_unfinished(bundle: &AuditBundle) -> Result<Verified, String> {
    let log = decode_log(bundle)?;
    check_log_entry(bundle)?;
    let mut verified = saboteur_domain::audit(&log)
        .map(Verified::from)
        .map_err(|d| d.to_string())?;
    verified.signatures_checked = check_signatures(&bundle.game_id, &log)?;
    Ok(verified)
}

/// Checks the bundle's transparency log entry, if it has one, against its events.
fn check_log_entry(bundle: &AuditBundle) -> Result<(), String> {
    let Some(entry) = &bundle.log_entry else {
        return Ok(());
    };
    let last = bundle
        .events
        .last()
        .map(|e| e.hash.as_str())
        .unwrap_or(GENESIS);
    if entry.game_id != bundle.game_id {
        return Err(format!("the log entry is game {}'s", entry.game_id));
    }
    crate::transparency::check_entry(entry)?;
    if entry.version != bundle.events.len() as i64 || entry.head != last {
        return Err(format!(
            "log entry {} says the game ended at version {} with head {}; the bundle has {} \
             events and head {last}: the record was changed after it was logged",
            entry.seq,
            entry.version,
            entry.head,
            bundle.events.len()
        ));
    }
    Ok(())
}

/// The bundle's events, its chain checked and each decoded; the error names the first
/// discrepancy.
fn decode_log(bundle: &AuditBundle) -> Result<Vec<Event>, String> {
    let seed = hex::decode(&bundle.seed).map_err(|_| "the seed is not hex".to_string())?;
    if seed_commitment(&seed) != bundle.seed_commitment {
        return Err("the revealed seed does not match the commitment published at creation".into());
    }
    let mut prev = GENESIS.to_string();
    let mut log = Vec::with_capacity(bundle.events.len());
    for (i, e) in bundle.events.iter().enumerate() {
        let seq = i as i64 + 1;
        if e.seq != seq {
            return Err(format!("event {seq}: numbered {}", e.seq));
        }
        if e.prev_hash != prev {
            return Err(format!("event {seq}: its previous hash breaks the chain"));
        }
        let hash = chain_hash(
            &prev,
            &bundle.game_id,
            seq,
            &e.event_type,
            e.schema_version,
            &e.payload,
        );
        if hash != e.hash {
            return Err(format!("event {seq}: its contents do not match its hash"));
        }
        prev = hash;
        let version = u16::try_from(e.schema_version)
            .map_err(|_| format!("event {seq}: bad schema version"))?;
        let event =
            Event::decode(version, &e.payload).map_err(|err| format!("event {seq}: {err}"))?;
        if event.kind() != e.event_type {
            return Err(format!(
                "event {seq}: recorded as {} but is {}",
                e.event_type,
                event.kind()
            ));
        }
        log.push(event);
    }
    match log.first() {
        Some(Event::GameCreated {
            seed: s, ruleset, ..
        }) if s.known().map(|s| s.0.as_slice()) == Some(seed.as_slice()) => {
            if *ruleset != bundle.ruleset {
                return Err(format!(
                    "the bundle says the ruleset is {}, event 1 created a game of {}",
                    ruleset_name(bundle.ruleset),
                    ruleset_name(*ruleset)
                ));
            }
        }
        _ => return Err("event 1: the game was not created with the revealed seed".into()),
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

/// What checking receipts against a bundle showed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ReceiptsChecked {
    /// Receipts checked: each signed by a published key, its head on the bundle's chain at its
    /// version, its `view_hash` that of the body recomputed from the bundle.
    pub receipts: u64,
    /// Of which views (`GET /games/{id}/state`).
    pub views: u64,
    /// Of which outcomes of writes.
    pub outcomes: u64,
    /// Of which commitments to the seed (at the creation, or a seat's).
    pub commitments: u64,
    /// Of which refusals of writes.
    pub refusals: u64,
    /// Receipts given with the body they were served with, the body checked against them.
    pub bodies: u64,
}

/// Why receipts do not agree with a bundle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReceiptProblem {
    /// A receipt proves nothing (a bad signature, an unknown key, another game, a body that is
    /// not the one it signed): it is refused.
    Refused(String),
    /// A genuine receipt contradicts the bundle: the record changed after it was served.
    Contradiction(String),
}

impl std::fmt::Display for ReceiptProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReceiptProblem::Refused(s) => write!(f, "refused: {s}"),
            ReceiptProblem::Contradiction(s) => write!(f, "contradiction: {s}"),
        }
    }
}

/// Reads a list of receipts, or of served bodies holding one (`receipt` field), or a mix.
pub fn read_receipts(items: &[Value]) -> Result<Vec<(Receipt, Option<Value>)>, String> {
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let (receipt, body) = match item.get("receipt") {
                Some(r) => (r, Some(item.clone())),
                None => (item, None),
            };
            let receipt: Receipt = serde_json::from_value(receipt.clone())
                .map_err(|e| format!("item {}: not a receipt: {e}", i + 1))?;
            Ok((receipt, body))
        })
        .collect()
}

/// Checks receipts against a bundle [`verify`] accepted, in order; the error names the first
/// receipt that is refused or that contradicts the bundle.
pub fn check_receipts(
    bundle: &AuditBundle,
    receipts: &[(Receipt, Option<Value>)],
) -> Result<ReceiptsChecked, ReceiptProblem> {
    check_receipts_with_keys(bundle, receipts, &[])
}

/// The receipt's signature checked against the keys the bundle publishes; a receipt signed by
/// a key the client kept (`GET /keys` from first contact) that the bundle no longer publishes
/// is genuine, and its key's absence is the server's contradiction, not a forgery.
fn check_signed(
    name: &str,
    receipt: &Receipt,
    published: &[PublishedKey],
    kept: &[PublishedKey],
) -> Result<(), ReceiptProblem> {
    let Err(e) = receipt.check_signature(published) else {
        return Ok(());
    };
    if receipt.check_signature(kept).is_ok() {
        return Err(ReceiptProblem::Contradiction(format!(
            "{name}: it is signed by key {}, which was kept from the server's published keys \
             and which the bundle no longer publishes as it was: the server withdrew its key",
            receipt.key_id
        )));
    }
    Err(ReceiptProblem::Refused(format!(
        "{name}: {e}: a forgery proves nothing"
    )))
}

/// [`check_receipts`] with the keys the client kept from `GET /keys`: a receipt valid under a
/// kept key that the bundle omits (or publishes otherwise) is a contradiction, "the server
/// withdrew its key".
pub fn check_receipts_with_keys(
    bundle: &AuditBundle,
    receipts: &[(Receipt, Option<Value>)],
    kept: &[PublishedKey],
) -> Result<ReceiptsChecked, ReceiptProblem> {
    use ReceiptProblem::{Contradiction, Refused};
    check_equivocation(receipts, &bundle.keys, kept)?;
    let log = decode_log(bundle).map_err(Refused)?;
    let history = saboteur_domain::History::replay(log.iter().cloned())
        .ok_or_else(|| Refused("the bundle's log does not start with a game".into()))?;
    let mut checked = ReceiptsChecked {
        receipts: 0,
        views: 0,
        outcomes: 0,
        commitments: 0,
        refusals: 0,
        bodies: 0,
    };
    for (receipt, body) in receipts {
        let name = format!(
            "receipt for {} at version {}",
            receipt.audience_words(),
            receipt.version
        );
        check_signed(&name, receipt, &bundle.keys, kept)?;
        let body = body.as_ref().map(|b| signed_body(receipt, b));
        if let Some(body) = body {
            if view_hash(body) != receipt.view_hash {
                return Err(Refused(format!(
                    "{name}: the body given with it is not the one it signed"
                )));
            }
            checked.bodies += 1;
        }
        if receipt.game_id != bundle.game_id {
            return Err(Refused(format!(
                "{name}: it is for game {}, the bundle is game {}",
                receipt.game_id, bundle.game_id
            )));
        }
        // A commitment given with its body says what changed: the seed, or the share mixed in.
        if receipt.kind == ReceiptKind::Commitment
            && let Some(promised) =
                body.and_then(|b| serde_json::from_value::<SeedCommitment>(b.clone()).ok())
        {
            broken_commitment(&name, &promised, &commitment_in(bundle, &log, receipt.seat))?;
        }
        let audience =
            audience_from(receipt).ok_or_else(|| Refused(format!("{name}: it names no seat")))?;
        let version = u64::try_from(receipt.version)
            .ok()
            .filter(|v| (1..=history.version()).contains(v))
            .ok_or_else(|| {
                Contradiction(format!(
                    "{name}: the bundle has {} events: the record was cut after it was served",
                    history.version()
                ))
            })?;
        let head = bundle
            .events
            .get(version as usize - 1)
            .map(|e| e.hash.as_str())
            .unwrap_or_default();
        if head != receipt.head {
            return Err(Contradiction(format!(
                "{name}: the bundle's chain head at {version} is {head}, the receipt signed {}: \
                 the record was changed after it was served",
                receipt.head
            )));
        }
        times_agree(&name, receipt, &log).map_err(Contradiction)?;
        let recomputed = match receipt.kind {
            // What was refused is not in the record: the head and the times are what it
            // proves against it.
            ReceiptKind::Refusal => {
                checked.refusals += 1;
                checked.receipts += 1;
                continue;
            }
            ReceiptKind::View => {
                checked.views += 1;
                let view = crate::app::reply::state_view(&history, receipt.version, audience)
                    .ok_or_else(|| {
                        Refused(format!(
                            "{name}: the bundle's state at {version} is missing"
                        ))
                    })?;
                serde_json::to_value(view)
            }
            ReceiptKind::Outcome => {
                checked.outcomes += 1;
                let first = receipt
                    .first
                    .filter(|f| (1..=receipt.version).contains(f))
                    .ok_or_else(|| Refused(format!("{name}: it names no first event")))?;
                let events = log
                    .get(first as usize - 1..version as usize)
                    .unwrap_or_default();
                serde_json::to_value(crate::app::reply::outcome_body(
                    &history, first, events, audience,
                ))
            }
            ReceiptKind::Commitment => {
                checked.commitments += 1;
                serde_json::to_value(commitment_in(bundle, &log, receipt.seat))
            }
        }
        .map_err(|e| Refused(format!("{name}: {e}")))?;
        let hash = view_hash(&recomputed);
        if hash != receipt.view_hash {
            return Err(Contradiction(format!(
                "{name}: what the bundle gives for it hashes to {hash}, the receipt signed {}: \
                 the record was changed after it was served, or the server served what its \
                 record does not give",
                receipt.view_hash
            )));
        }
        checked.receipts += 1;
    }
    Ok(checked)
}

/// How much room times recorded and `served_at` signed are compared with: the clocks of the
/// processes serving one game may differ, a read may be served from a table up to
/// [`crate::RECHECK_AFTER`] behind, and a reply is signed after its read. A time off by more
/// is the record's, not the clocks'.
pub const CLOCK_SKEW_MS: u64 = 10_000;

/// The time an event records, if it records one (in milliseconds since the Unix epoch).
fn recorded_time(event: &Event) -> Option<u64> {
    match event {
        Event::CommandAccepted { at, .. }
        | Event::Undone { at, .. }
        | Event::RoundStarted { at, .. } => *at,
        Event::TalkPosted { at, .. } | Event::TurnTimedOut { at, .. } => Some(*at),
        _ => None,
    }
}

/// A receipt's `served_at` against the times the record holds (beyond [`CLOCK_SKEW_MS`]):
/// every event up to the receipt's version existed when it was served, so none records a later
/// time. A refusal and a commitment are signed at the game's version of the moment (a view
/// may be a replay of an older version, an outcome the reply to a retried command), so no
/// event after theirs records an earlier time either.
fn times_agree(name: &str, receipt: &Receipt, log: &[Event]) -> Result<(), String> {
    let current = matches!(receipt.kind, ReceiptKind::Refusal | ReceiptKind::Commitment);
    let Ok(served) = chrono::DateTime::parse_from_rfc3339(&receipt.served_at) else {
        return Err(format!("{name}: its served_at is not a time"));
    };
    let served = u64::try_from(served.timestamp_millis()).unwrap_or_default();
    let version = usize::try_from(receipt.version).unwrap_or_default();
    for (i, event) in log.iter().enumerate() {
        let Some(at) = recorded_time(event) else {
            continue;
        };
        let seq = i + 1;
        if seq <= version && at > served + CLOCK_SKEW_MS {
            return Err(format!(
                "{name}: it was served at {} ({served} ms), yet event {seq} before it records \
                 the time {at} ms: the record's times were changed after it was served",
                receipt.served_at
            ));
        }
        if current && seq > version && at + CLOCK_SKEW_MS < served {
            return Err(format!(
                "{name}: it was served at {} ({served} ms) at version {version}, yet event \
                 {seq} after it records the time {at} ms: the event was back-dated",
                receipt.served_at
            ));
        }
    }
    Ok(())
}

/// The part of a body kept with its receipt that the receipt signs: the body, or for a
/// commitment, the reply's `commitment` alone (the rest of the reply holds a token).
fn signed_body<'a>(receipt: &Receipt, body: &'a Value) -> &'a Value {
    match receipt.kind {
        ReceiptKind::Commitment => body.get("commitment").unwrap_or(body),
        _ => body,
    }
}

/// The commitment the bundle shows for `seat` (or, with none, the game's at its creation): its
/// seed's hash, and the share its `seed_mixed` event mixed in for the seat.
fn commitment_in(bundle: &AuditBundle, log: &[Event], seat: Option<u8>) -> SeedCommitment {
    let entropy = seat.and_then(|s| {
        log.iter().find_map(|e| match e {
            Event::SeedMixed { contributions } => contributions
                .iter()
                .find(|c| c.seat.0 == s)
                .map(|c| c.entropy.to_hex()),
            _ => None,
        })
    });
    // The key the start registered for the seat (record version 2: commitments cover it).
    let record_v2 = matches!(log.first(), Some(Event::GameCreated { record_version, .. }) if *record_version >= 2);
    let public_key = seat.filter(|_| record_v2).and_then(|s| {
        let before_play = log
            .iter()
            .take_while(|e| !matches!(e, Event::CommandAccepted { .. }));
        before_play.into_iter().find_map(|e| match e {
            Event::SeatKeyRegistered {
                seat,
                key,
                signature: None,
            } if seat.0 == s => Some(key.clone()),
            _ => None,
        })
    });
    SeedCommitment {
        game_id: bundle.game_id.clone(),
        seed_commitment: bundle.seed_commitment.clone(),
        seat,
        entropy,
        public_key,
    }
}

/// Names how a commitment the server signed differs from what its record shows.
fn broken_commitment(
    name: &str,
    promised: &SeedCommitment,
    record: &SeedCommitment,
) -> Result<(), ReceiptProblem> {
    let when = match promised.seat {
        Some(s) => format!("when seat {s} was taken"),
        None => "when the game was created".to_string(),
    };
    if promised.seed_commitment != record.seed_commitment {
        return Err(ReceiptProblem::Contradiction(format!(
            "{name}: the server committed to a seed hashing to {} {when}; the bundle's seed \
             hashes to {}: the seed was changed after the server committed to it",
            promised.seed_commitment, record.seed_commitment
        )));
    }
    if promised.public_key != record.public_key {
        let print = |k: &Option<String>| {
            k.as_deref()
                .map_or("no key".to_string(), saboteur_domain::fingerprint)
        };
        return Err(ReceiptProblem::Contradiction(format!(
            "{name}: seat {} was taken with the key {} {when}; the record registers {} for it: \
             a key swapped in the lobby",
            promised.seat.unwrap_or_default(),
            print(&promised.public_key),
            print(&record.public_key)
        )));
    }
    if promised.entropy != record.entropy {
        let share = promised.entropy.as_deref().unwrap_or("no share");
        let mixed = record.entropy.as_deref().unwrap_or("none");
        return Err(ReceiptProblem::Contradiction(format!(
            "{name}: seat {} sent the share {share} {when}; the record mixed {mixed} into the \
             seed for it: the deal was not drawn from the seed the server committed to",
            promised.seat.unwrap_or_default()
        )));
    }
    Ok(())
}

/// The name of a receipt in a verdict: whom it was for and at which version.
fn receipt_name(receipt: &Receipt) -> String {
    format!(
        "receipt for {} at version {} of game {}",
        receipt.audience_words(),
        receipt.version,
        receipt.game_id
    )
}

/// Receipts pooled from several players, checked against each other: the server signs one
/// chain per game, so two genuine receipts with different heads at one version of a game prove
/// that it served two different records (equivocation). Receipts that no key signed are left
/// to the other checks.
pub fn check_equivocation(
    receipts: &[(Receipt, Option<Value>)],
    published: &[PublishedKey],
    kept: &[PublishedKey],
) -> Result<(), ReceiptProblem> {
    let mut heads: std::collections::BTreeMap<(&str, i64), &Receipt> = Default::default();
    for (receipt, _) in receipts {
        let genuine =
            receipt.check_signature(published).is_ok() || receipt.check_signature(kept).is_ok();
        if !genuine {
            continue;
        }
        let at = (receipt.game_id.as_str(), receipt.version);
        match heads.get(&at) {
            Some(other) if other.head != receipt.head => {
                return Err(ReceiptProblem::Contradiction(format!(
                    "equivocation: the server signed two different heads at version {} of \
                     game {}: {} ({}) and {} ({})",
                    receipt.version,
                    receipt.game_id,
                    other.head,
                    other.audience_words(),
                    receipt.head,
                    receipt.audience_words()
                )));
            }
            Some(_) => {}
            None => {
                heads.insert(at, receipt);
            }
        }
    }
    Ok(())
}

/// What receipts prove by themselves, without the game's record: per game, how many genuine
/// receipts there are, the latest version the server signed, and whether a body kept with a
/// receipt shows the game over.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReceiptsProve {
    /// The game.
    pub game_id: String,
    /// Genuine receipts of it.
    pub receipts: u64,
    /// The latest version a receipt signed.
    pub latest_version: i64,
    /// When the latest receipt was served (RFC 3339).
    pub latest_served_at: String,
    /// The version at which a kept body (signed by its receipt) shows the game over.
    pub signed_game_over_at: Option<i64>,
}

/// Checks receipts without a bundle: every signature (under the kept keys), then the pool for
/// equivocation; returns what they prove, game by game.
pub fn prove_with_receipts(
    receipts: &[(Receipt, Option<Value>)],
    kept: &[PublishedKey],
) -> Result<Vec<ReceiptsProve>, ReceiptProblem> {
    for (receipt, body) in receipts {
        let name = receipt_name(receipt);
        check_signed(&name, receipt, kept, &[])?;
        if let Some(body) = body
            && view_hash(signed_body(receipt, body)) != receipt.view_hash
        {
            return Err(ReceiptProblem::Refused(format!(
                "{name}: the body given with it is not the one it signed"
            )));
        }
    }
    check_equivocation(receipts, kept, &[])?;
    let mut games: Vec<ReceiptsProve> = Vec::new();
    for (receipt, body) in receipts {
        let over = body.as_ref().is_some_and(|b| {
            b.pointer("/view/phase/name").and_then(Value::as_str) == Some("game_over")
        });
        if !games.iter().any(|g| g.game_id == receipt.game_id) {
            games.push(ReceiptsProve {
                game_id: receipt.game_id.clone(),
                receipts: 0,
                latest_version: 0,
                latest_served_at: String::new(),
                signed_game_over_at: None,
            });
        }
        let Some(entry) = games.iter_mut().find(|g| g.game_id == receipt.game_id) else {
            continue;
        };
        entry.receipts += 1;
        if receipt.version >= entry.latest_version {
            entry.latest_version = receipt.version;
            entry.latest_served_at = receipt.served_at.clone();
        }
        if over {
            entry.signed_game_over_at = Some(receipt.version);
        }
    }
    Ok(games)
}

/// Builds a finished game's bundle from the store.
pub async fn bundle_from_store(
    store: &saboteur_storage::EventStore,
    id: &str,
) -> Result<AuditBundle, ApiError> {
    Ok(bundle_and_version(store, id).await?.0)
}

/// [`bundle_from_store`], with the game's version as its row gives it.
async fn bundle_and_version(
    store: &saboteur_storage::EventStore,
    id: &str,
) -> Result<(AuditBundle, i64), ApiError> {
    let game = store.get_game(id).await?;
    let Some(seed) = &game.seed else {
        return Err(ApiError::Conflict(
            "the game is not over: its record is only public once it ends".into(),
        ));
    };
    let mut events = Vec::new();
    loop {
        let page = store.events_after(id, events.len() as i64, 1000).await?;
        if page.is_empty() {
            break;
        }
        events.extend(page);
    }
    let mut bundle = AuditBundle::new(id, game.ruleset, seed, &game.seed_commitment, &events);
    bundle.keys = crate::transparency::published_keys(store).await?;
    bundle.log_entry = store.log_entry_of(id).await?.map(LogRecord::from);
    Ok((bundle, game.version))
}

/// [`bundle_from_store`] from the read-only store when it holds the whole finished game (its
/// events up to the game's version, and its transparency log entry), from the store otherwise.
pub(crate) async fn bundle_from_reads(
    state: &crate::state::AppState,
    id: &str,
) -> Result<AuditBundle, ApiError> {
    state
        .reading(
            |store| {
                let id = id.to_string();
                async move { bundle_and_version(&store, &id).await }
            },
            |(bundle, version)| {
                bundle.events.len() as i64 >= *version && bundle.log_entry.is_some()
            },
        )
        .await
        .map(|(bundle, _)| bundle)
}

#[cfg(test)]
mod properties {
    //! Receipts signed as the server signs them, for every seat, a spectator and (once the game
    //! is over) everyone, agree with the views and outcomes recomputed from the game's bundle.

    use proptest::prelude::*;
    use saboteur_domain::bot::random_game;
    use saboteur_domain::{Audience, EVENT_SCHEMA_VERSION, History, Options, Ruleset, Seat, Seed};
    use saboteur_storage::{GENESIS, chain_hash, seed_commitment};

    use super::*;
    use crate::app::reply::{outcome_body, state_view};
    use crate::receipt::{Signer, audience_of};

    fn bundle(log: &[Event], seed: Seed) -> AuditBundle {
        let mut prev = GENESIS.to_string();
        let events = log
            .iter()
            .zip(1..)
            .map(|(e, seq)| {
                let payload = serde_json::to_value(e).unwrap();
                let version = i32::from(EVENT_SCHEMA_VERSION);
                let hash = chain_hash(&prev, "g", seq, e.kind(), version, &payload);
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
        AuditBundle {
            game_id: "g".into(),
            ruleset: Ruleset::Base,
            seed: seed.to_hex(),
            seed_commitment: seed_commitment(&seed.0),
            events,
            keys: Vec::new(),
            log_entry: None,
        }
    }

    fn sign(
        signer: &Signer,
        bundle: &AuditBundle,
        kind: ReceiptKind,
        (version, first): (i64, Option<i64>),
        audience: Audience,
        body: &impl Serialize,
    ) -> (Receipt, Option<Value>) {
        let value = serde_json::to_value(body).unwrap();
        let (audience, seat) = audience_of(audience);
        let receipt = signer.sign(Receipt {
            kind,
            game_id: bundle.game_id.clone(),
            version,
            first,
            head: bundle.events[version as usize - 1].hash.clone(),
            served_at: "2026-11-23T00:00:00.000Z".into(),
            audience,
            seat,
            view_hash: crate::receipt::view_hash(&value),
            request_hash: None,
            key_id: String::new(),
            signature: String::new(),
        });
        (receipt, Some(value))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        #[test]
        fn receipts_match_the_views_recomputed_from_the_bundle(
            n in any::<u64>(),
            players in 3u8..=6,
            expansion in any::<bool>(),
        ) {
            let ruleset = if expansion { Ruleset::Saboteur2 } else { Ruleset::Base };
            let seed = Seed::from_u64(n);
            let log = random_game(ruleset, Options::default(), players, seed);
            prop_assume!(log.len() > 1);
            let signer = Signer::from_secret(&[9; 32]);
            let mut bundle = bundle(&log, seed);
            bundle.ruleset = ruleset;
            bundle.keys = vec![signer.published()];
            // The server's way: a history growing event by event, the view of its current
            // state, the outcome of its last event; a sample of versions, and the last.
            let step = (log.len() / 12).max(1);
            let mut history = History::new(log[0].clone()).unwrap();
            let mut receipts = Vec::new();
            for (i, event) in log.iter().enumerate().skip(1) {
                history.push(event.clone());
                let version = i as i64 + 1;
                if i % step != 0 && i + 1 != log.len() {
                    continue;
                }
                let over = *history.game().phase() == saboteur_domain::Phase::GameOver;
                let mut audiences: Vec<Audience> =
                    (0..players).map(|s| Audience::Seat(Seat(s))).collect();
                audiences.push(Audience::Spectator);
                if over {
                    audiences = vec![Audience::Omniscient];
                }
                for audience in audiences {
                    let view = state_view(&history, version, audience).unwrap();
                    receipts.push(sign(&signer, &bundle, ReceiptKind::View, (version, None), audience, &view));
                }
                let seat = Audience::Seat(Seat((i % players as usize) as u8));
                let out = outcome_body(&history, version, std::slice::from_ref(event), seat);
                receipts.push(sign(&signer, &bundle, ReceiptKind::Outcome, (version, Some(version)), seat, &out));
            }
            let checked = check_receipts(&bundle, &receipts);
            prop_assert!(checked.is_ok(), "{:?}", checked);
            prop_assert_eq!(checked.unwrap().receipts, receipts.len() as u64);
        }
    }
}
