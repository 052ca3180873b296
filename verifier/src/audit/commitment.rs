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
    let mixed = log.iter().find_map(|e| match e {
        Event::SeedMixed {
            contributions,
            committed,
        } => Some((contributions, committed)),
        _ => None,
    });
    let entropy = seat.and_then(|s| {
        let (contributions, _) = mixed?;
        contributions
            .iter()
            .find(|c| c.seat.0 == s)
            .map(|c| c.entropy.to_hex())
    });
    let share_commitment = seat.and_then(|s| {
        let (_, committed) = mixed?;
        committed
            .iter()
            .find(|c| c.seat.0 == s)
            .map(|c| c.commitment.to_hex())
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
        share_commitment,
        public_key,
    }
}

/// The seats of the bundle's log that committed to a share and never revealed it, each said
/// in a sentence: the deal was drawn without their shares. Not a discrepancy by itself (a
/// player's browser closed before the reveal withholds alike), but the seat that withheld
/// chose between two deals: a player who revealed and holds the reply says so with
/// `--commitment`.
pub fn withheld_shares(bundle: &AuditBundle) -> Vec<String> {
    let log = super::bundle::decode_log(bundle).unwrap_or_default();
    log.iter()
        .find_map(|e| match e {
            Event::SeedMixed {
                contributions,
                committed,
            } => Some(
                committed
                    .iter()
                    .filter(|c| !contributions.iter().any(|s| s.seat == c.seat))
                    .map(|c| {
                        format!(
                            "{} committed to a share and did not reveal it: the deal was drawn \
                             without it (whoever withheld it chose between two deals)",
                            c.seat
                        )
                    })
                    .collect(),
            ),
            _ => None,
        })
        .unwrap_or_default()
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
    if promised.share_commitment.is_some() && promised.share_commitment != record.share_commitment {
        return Err(ReceiptProblem::Contradiction(format!(
            "{name}: seat {} committed to the share whose commitment is {} {when}; the record \
             lists {} for it: the share committed to was left out of the deal",
            promised.seat.unwrap_or_default(),
            promised.share_commitment.as_deref().unwrap_or_default(),
            record.share_commitment.as_deref().unwrap_or("none")
        )));
    }
    // A seat that committed and has not revealed yet, by this reply, promised no share: what
    // the record mixed for it opens the commitment (the audit checks that).
    let committed_only = promised.share_commitment.is_some() && promised.entropy.is_none();
    if !committed_only && promised.entropy != record.entropy {
        let share = promised.entropy.as_deref().unwrap_or("no share");
        let mixed = record.entropy.as_deref().unwrap_or("none");
        let seat = promised.seat.unwrap_or_default();
        return Err(ReceiptProblem::Contradiction(
            if promised.share_commitment.is_some() {
                format!(
                    "{name}: the server acknowledged the share {share} seat {seat} revealed; the \
                     record mixed {mixed} into the seed for it: the deal was not drawn from the \
                     shares the players revealed"
                )
            } else {
                format!(
                    "{name}: seat {seat} sent the share {share} {when}; the record mixed {mixed} \
                     into the seed for it: the deal was not drawn from the seed the server \
                     committed to"
                )
            },
        ));
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
    // A share revealed (the reply names the share and the commitment it opens): the request
    // sent the share alone.
    if promised.share_commitment.is_some() && promised.entropy.is_some() {
        if field("entropy") != lower(&promised.entropy) {
            return Err(ReceiptProblem::Contradiction(format!(
                "{name}: the server's acknowledgement names the share {} for seat {seat}; the \
                 player revealed {}: the reply was rewritten",
                promised.entropy.as_deref().unwrap_or("none"),
                field("entropy").as_deref().unwrap_or("none")
            )));
        }
        return Ok(());
    }
    if field("share_commitment") != lower(&promised.share_commitment) {
        return Err(ReceiptProblem::Contradiction(format!(
            "{name}: the server's commitment names the share commitment {} for seat {seat}; the \
             player sent {}: the reply was rewritten",
            promised.share_commitment.as_deref().unwrap_or("none"),
            field("share_commitment").as_deref().unwrap_or("none")
        )));
    }
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
