//! Players' signatures: every signed act the record holds, checked against the seat's key at
//! the time and the body recorded with it.

use ed25519_dalek::{Signature, Verifier as _, VerifyingKey};
use saboteur_domain::{Event, Seat};

use super::error::AuditError;

/// Checks every player's signature the log records: each signed act listed by
/// [`saboteur_domain::signed_acts`] (which names an act of a keyed seat left unsigned) must
/// verify under the seat's key at the time, over the body recorded with it, and that body must
/// say what the event records. How many were checked.
pub fn check_signatures(game: &str, log: &[Event]) -> Result<u64, AuditError> {
    use saboteur_domain::fingerprint;
    let entries = saboteur_domain::signed_acts(log)
        .map_err(|(seq, what)| AuditError::signature(seq, what))?;
    for e in &entries {
        let s = &e.signature;
        // The game's scheme: the canonical statement (naming the event the act is about, from
        // record version 5 on), or (record versions 1 and 2) the body's bytes; a body that is
        // not JSON has no statement, so nothing verifies.
        let message = e
            .scheme
            .signed_bytes(game, e.seat, s.version, e.act, &s.body, e.about)
            .unwrap_or_default();
        let event = log
            .get(e.seq as usize - 1)
            .ok_or_else(|| AuditError::signature(e.seq, "not in the log"))?;
        let named = || format!("{}'s {}", e.seat, e.act.as_str());
        if !verifies(&e.key, &message, &s.signature) {
            return Err(AuditError::signature(
                e.seq,
                format!(
                    "{} carries a signature that does not verify under the seat's key ({}): the \
                     player did not sign what is recorded",
                    named(),
                    fingerprint(&e.key)
                ),
            ));
        }
        // Each act says what its signed body must hold (`SignedAct::agrees`); the record's
        // event for it is the one `signed_acts` paired with the act.
        let agrees = e.act.agrees(&s.body, event);
        if !agrees {
            return Err(AuditError::signature(
                e.seq,
                format!(
                    "{}: the signed body says something else than the record",
                    named()
                ),
            ));
        }
    }
    check_key_proofs(game, log)?;
    Ok(entries.len() as u64)
}

/// Checks every key's proof of possession (record version 4 on): each key the record
/// registers must carry its holder's signature of [`saboteur_domain::key_proof_statement`]
/// for this game, so no key was seated without whoever holds it.
fn check_key_proofs(game: &str, log: &[Event]) -> Result<(), AuditError> {
    use saboteur_domain::fingerprint;
    let proofs =
        saboteur_domain::key_proofs(log).map_err(|(seq, what)| AuditError::signature(seq, what))?;
    for p in proofs {
        let proved = match p.at {
            Some(at) => proves_possession_at(game, (&p.key, p.seat), at, &p.proof),
            None => proves_possession(game, &p.key, &p.proof),
        };
        if !proved {
            return Err(AuditError::signature(
                p.seq,
                format!(
                    "{}'s key {} carries a proof of possession that does not verify: nothing \
                     shows its holder took the seat with it in this game",
                    p.seat,
                    fingerprint(&p.key)
                ),
            ));
        }
    }
    Ok(())
}

/// Whether `proof` is `key`'s signature of [`saboteur_domain::key_proof_statement`] for `game`:
/// the one check of a key's proof of possession, the server's when the key is sent too.
pub fn proves_possession(game: &str, key: &str, proof: &str) -> bool {
    verifies(key, &saboteur_domain::key_proof_statement(game, key), proof)
}

/// Whether `proof` is `key`'s signature of [`saboteur_domain::key_proof_statement_at`] for
/// `game`, `seat` and version `at`: a key registered during play (record version 7 on).
pub fn proves_possession_at(game: &str, (key, seat): (&str, Seat), at: u64, proof: &str) -> bool {
    verifies(
        key,
        &saboteur_domain::key_proof_statement_at(game, key, seat, at),
        proof,
    )
}

/// Parses a key written as 64 hex digits.
pub fn verifying_key(key: &str) -> Option<VerifyingKey> {
    let bytes: [u8; 32] = hex::decode(key).ok()?.try_into().ok()?;
    VerifyingKey::from_bytes(&bytes).ok()
}

/// Whether `signature` (128 hex digits) is `key`'s signature of `message`.
pub fn verifies(key: &str, message: &[u8], signature: &str) -> bool {
    let Some(key) = verifying_key(key) else {
        return false;
    };
    let Some(bytes) = hex::decode(signature)
        .ok()
        .and_then(|b| <[u8; 64]>::try_from(b).ok())
    else {
        return false;
    };
    key.verify(message, &Signature::from_bytes(&bytes)).is_ok()
}
