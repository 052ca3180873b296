//! Commitments to the seed: what the server signed when the game was created or a seat taken,
//! against what the record shows (the seed's hash, the share mixed in, the key registered).

use saboteur_domain::Event;

use super::bundle::AuditBundle;
use super::signed::ReceiptProblem;
use crate::body::SeedCommitment;

/// The commitment the bundle shows for `seat` (or, with none, the game's at its creation): its
/// seed's hash, and the share its `seed_mixed` event mixed in for the seat.
pub(crate) fn commitment_in(
    bundle: &AuditBundle,
    log: &[Event],
    seat: Option<u8>,
) -> SeedCommitment {
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
                ..
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
pub(crate) fn broken_commitment(
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

/// Names a commitment that does not name what the player sent with the seat (`sent`, the request
/// body kept beside the reply: its `public_key`, its `entropy`): the reply was rewritten, or the
/// seat taken with another key than the player's.
pub(crate) fn unlike_sent(
    name: &str,
    promised: &SeedCommitment,
    sent: &serde_json::Value,
) -> Result<(), ReceiptProblem> {
    let field = |f: &str| {
        sent.get(f)
            .and_then(serde_json::Value::as_str)
            .map(str::to_ascii_lowercase)
    };
    let seat = promised.seat.unwrap_or_default();
    let lower = |v: &Option<String>| v.as_deref().map(str::to_ascii_lowercase);
    if field("public_key") != lower(&promised.public_key) {
        let print = |k: Option<String>| {
            k.as_deref()
                .map_or("no key".to_string(), saboteur_domain::fingerprint)
        };
        return Err(ReceiptProblem::Contradiction(format!(
            "{name}: the server's commitment names the key {} for seat {seat}; the player sent \
             {}: the reply was rewritten, or the seat taken with another key",
            print(lower(&promised.public_key)),
            print(field("public_key"))
        )));
    }
    if field("entropy") != lower(&promised.entropy) {
        return Err(ReceiptProblem::Contradiction(format!(
            "{name}: the server's commitment names the share {} for seat {seat}; the player sent \
             {}: the reply was rewritten",
            promised.entropy.as_deref().unwrap_or("none"),
            field("entropy").as_deref().unwrap_or("none")
        )));
    }
    Ok(())
}
