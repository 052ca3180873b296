//! Receipts kept by players and spectators, checked against a game's bundle: each signed by a
//! published key, its head on the bundle's chain, its time against the record's times, and its
//! `view_hash` that of the body recomputed from the bundle.

use saboteur_domain::Event;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::bundle::{AuditBundle, decode_log};
use super::commitment::{broken_commitment, commitment_in, unlike_sent};
use super::proof::check_equivocation;
use super::signed::{ReceiptProblem, check_signed, signed_body};
use crate::body::SeedCommitment;
use crate::receipt::{PublishedKey, Receipt, ReceiptKind, audience_from, view_hash};

/// What checking receipts against a bundle showed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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

/// Checks receipts against a bundle [`verify`](super::bundle::verify) accepted, in order; the error names the first
/// receipt that is refused or that contradicts the bundle.
pub fn check_receipts(
    bundle: &AuditBundle,
    receipts: &[(Receipt, Option<Value>)],
) -> Result<ReceiptsChecked, ReceiptProblem> {
    check_receipts_with_keys(bundle, receipts, &[])
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
    let log = decode_log(bundle).map_err(|e| Refused(e.to_string()))?;
    let history = saboteur_domain::History::replay(log.iter().cloned())
        .ok_or_else(|| Refused("the bundle's log does not start with a game".into()))?;
    let sealer = log
        .first()
        .and_then(|created| crate::seal::Sealer::for_game(&bundle.game_id, created));
    let mut checked = ReceiptsChecked {
        receipts: 0,
        views: 0,
        outcomes: 0,
        commitments: 0,
        refusals: 0,
        bodies: 0,
    };
    let latest = latest_commitments(receipts);
    for (receipt, body) in receipts {
        let name = format!(
            "receipt for {} at version {}",
            receipt.audience_words(),
            receipt.version
        );
        check_signed(&name, receipt, &bundle.keys, kept)?;
        // A commitment kept with the request that took the seat (`sent`) is compared with it.
        let sent = body.as_ref().and_then(|b| b.get("sent")).cloned();
        let body = body.as_ref().map(|b| signed_body(receipt, b));
        if let Some(body) = &body {
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
        let commitment = (receipt.kind == ReceiptKind::Commitment).then(|| {
            let superseded = receipt
                .seat
                .is_some_and(|s| latest.get(&s) > Some(&served_ms(receipt)));
            commitment_pair(bundle, &log, receipt.seat, body.as_deref(), superseded)
        });
        if let (Some((Some(promised), _)), Some(sent)) = (&commitment, &sent) {
            unlike_sent(&name, promised, sent)?;
        }
        if let Some((Some(promised), record)) = &commitment {
            broken_commitment(&name, promised, record)?;
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
                let view = crate::body::state_view(&history, receipt.version, audience)
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
                serde_json::to_value(crate::body::outcome_body(
                    &history,
                    first,
                    events,
                    audience,
                    sealer.as_ref(),
                ))
            }
            ReceiptKind::Commitment => {
                checked.commitments += 1;
                let record = commitment.as_ref().map(|(_, r)| r.clone());
                serde_json::to_value(record.unwrap_or_else(|| commitment_in(bundle, &log, None)))
            }
        }
        .map_err(|e| Refused(format!("{name}: {e}")))?;
        let hash = view_hash(&recomputed);
        if !signed_as(receipt, &recomputed) {
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

/// A seat's commitment as promised (the body kept with its receipt, if any) and as the record
/// gives it. A commitment given with its body says what changed: the seed, or the share mixed
/// in; and the key, for a seat's latest commitment (a key changed in the lobby is answered with
/// a new one, which supersedes the key of those before it: `superseded`).
fn commitment_pair(
    bundle: &AuditBundle,
    log: &[saboteur_domain::Event],
    seat: Option<u8>,
    body: Option<&Value>,
    superseded: bool,
) -> (Option<SeedCommitment>, SeedCommitment) {
    let promised = body.and_then(|b| serde_json::from_value::<SeedCommitment>(b.clone()).ok());
    let mut record = commitment_in(bundle, log, seat);
    if let (true, Some(p)) = (superseded, &promised) {
        record.public_key.clone_from(&p.public_key);
    }
    // Taken with a commitment, revealed later: the reply to taking the seat named the
    // commitment alone.
    if let Some(p) = &promised
        && p.share_commitment.is_some()
        && p.entropy.is_none()
    {
        record.entropy = None;
    }
    (promised, record)
}

/// Whether `receipt` signed `recomputed`, the body the bundle gives for it. A seat's commitment
/// kept without its body was signed before or after the seat revealed its share: before, it
/// named the commitment alone.
fn signed_as(receipt: &Receipt, recomputed: &Value) -> bool {
    if view_hash(recomputed) == receipt.view_hash {
        return true;
    }
    let mut before = recomputed.clone();
    let committed = before.get("share_commitment").is_some();
    before.as_object_mut().map(|o| o.remove("entropy"));
    receipt.kind == ReceiptKind::Commitment && committed && view_hash(&before) == receipt.view_hash
}

/// How much room times recorded and `served_at` signed are compared with: the clocks of the
/// processes serving one game may differ, a read may be served from a table up to
/// the server's `RECHECK_AFTER` behind, and a reply is signed after its read. A time off by more
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

/// When a receipt was served, in ms since the epoch (0 for a time that does not parse: such a
/// receipt is refused by [`times_agree`]).
fn served_ms(receipt: &Receipt) -> i64 {
    chrono::DateTime::parse_from_rfc3339(&receipt.served_at).map_or(0, |t| t.timestamp_millis())
}

/// The time of each seat's latest commitment among `receipts` (given with its body).
fn latest_commitments(receipts: &[(Receipt, Option<Value>)]) -> std::collections::HashMap<u8, i64> {
    let mut latest = std::collections::HashMap::new();
    for (receipt, body) in receipts {
        if let (ReceiptKind::Commitment, Some(seat), Some(_)) = (receipt.kind, receipt.seat, body) {
            let at = latest.entry(seat).or_insert(i64::MIN);
            *at = (*at).max(served_ms(receipt));
        }
    }
    latest
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
