//! Step 2b of the seam: a player's signature. A seat whose player registered a key (sent with
//! the seat, or later) acts only with the player's Ed25519 signature of the act
//! ([`saboteur_domain::SigningScheme`]: since record version 5 the canonical statement of the
//! act naming the event it is about, in versions 3 and 4 the statement without it, before them
//! the body's bytes as sent); the seam records it with the act's event, so the audit checks
//! every one.

use saboteur_domain::{Seat, SeatSignature, SignedAct, SigningScheme, fingerprint};
use saboteur_storage::GameStatus;
// The one check of a player's signature (`verifies`), the audit's too, and of a key.
pub(crate) use saboteur_verifier::audit::{
    proves_possession, proves_possession_at, verifies, verifying_key,
};

use crate::app::act::{Act, Signed, Who};
use crate::app::tables::Held;
use crate::error::ApiError;

/// The act a player signs for `act` ([`Act::declared`]), and the seat, when the caller is a
/// seat's player.
pub(crate) fn signed_act(act: &Act, who: Who) -> Option<(Seat, SignedAct)> {
    let Who::Player(seat) = who else {
        return None;
    };
    let kind = act.declared().signed?;
    Some((seat, kind))
}

/// The key that signs `seat`'s acts now: the one sent with the seat before the start, the one
/// the log records after it.
pub(in crate::app) fn seat_key(table: &Held, seat: Seat) -> Option<String> {
    if table.record().status == GameStatus::Lobby {
        table.holder(seat).and_then(|c| c.public_key.clone())
    } else {
        table.history().seat_key(seat).map(str::to_string)
    }
}

/// A signature refused: 401 with `code` (`signature_required`, `bad_signature`).
pub(crate) fn refused(code: &'static str, detail: String) -> ApiError {
    ApiError::Refused {
        status: actix_web::http::StatusCode::UNAUTHORIZED,
        code,
        detail,
    }
}

/// What a player signs under `scheme`, as a refusal says it; `about` is the event the act
/// names (record version 5 on).
fn how_to_sign(scheme: SigningScheme, kind: SignedAct, about: Option<u64>) -> String {
    let about = about.map_or_else(|| "null".to_string(), |a| a.to_string());
    match scheme {
        SigningScheme::ActV3 => format!(
            "sign the RFC 8785 (JCS) canonical JSON of {{\"scheme\": \"saboteur-act-v3\", \
             \"act\": \"{}\", \"game\", \"seat\", \"version\", \"body\", \"about\": {about}}} \
             (the body sent, as JSON, null without one; `about`: the event the act is about, \
             as the table's status lists it)",
            kind.as_str()
        ),
        SigningScheme::ActV2 => format!(
            "sign the RFC 8785 (JCS) canonical JSON of {{\"scheme\": \"saboteur-act-v2\", \
             \"act\": \"{}\", \"game\", \"seat\", \"version\", \"body\"}} (the body sent, as \
             JSON; null without one)",
            kind.as_str()
        ),
        SigningScheme::ActV1 => format!(
            "this game (record version 1 or 2) takes `saboteur-act-v1`: sign it, the game, the \
             seat, the version, `{}` and the body exactly as sent, one per line",
            kind.as_str()
        ),
    }
}

/// What `seat`'s player signed for `kind` as `signed` says: the statement of the game's scheme
/// at the signed version, about what the act was about then; `None` when the body is not JSON
/// (nothing could sign it). What a signature is checked against, and what a refusal hashes.
pub(in crate::app) fn statement(
    table: &Held,
    seat: Seat,
    kind: SignedAct,
    signed: &Signed,
) -> Option<Vec<u8>> {
    // What the act was about when it was signed (within the decision: what it is about now).
    let about = table.history().about_at(signed.version, seat, kind);
    table.history().signing_scheme().signed_bytes(
        table.id().as_str(),
        seat,
        signed.version,
        kind,
        &signed.body,
        about,
    )
}

/// The event that already carries `signature`, among those since the decision version (the
/// only ones a signature still valid here could be recorded with).
fn recorded_with(table: &Held, signature: &str) -> Option<u64> {
    let log = table.history().log();
    let from = table.decision_version().get().saturating_sub(1) as usize;
    log.iter()
        .enumerate()
        .skip(from)
        .find(|(_, e)| e.signature().is_some_and(|s| s.signature == signature))
        .map(|(i, _)| i as u64 + 1)
}

/// Step 2b: the signature `signed` of the caller's act, checked against the seat's key. `None`
/// when the seat has no key (a signature sent then is not recorded); 401 `signature_required`
/// when it has one and none came; 401 `bad_signature` when it does not verify or is dated
/// after the game's version; 412 when a command was signed at a version that no longer holds
/// (as `If-Match`).
pub(in crate::app) fn check(
    table: &Held,
    act: &Act,
    who: Who,
    signed: Option<Signed>,
) -> Result<Option<(Seat, SeatSignature)>, ApiError> {
    let Some((seat, kind)) = signed_act(act, who) else {
        return Ok(None);
    };
    let Some(key) = seat_key(table, seat) else {
        return Ok(None);
    };
    let Some(signed) = signed else {
        return Err(refused(
            "signature_required",
            format!(
                "{seat}'s acts are signed with its player's key ({}): send `Seat-Signature` \
                 and `Seat-Signature-Version`",
                fingerprint(&key)
            ),
        ));
    };
    // A lobby act (a leave, a name, a key before the start) writes no event: it is signed at
    // the lobby's version, which the store tests in the act's own write (`LobbyAt`), and holds
    // only there. Any other act (a message in the lobby) is bound to the game's version.
    let in_lobby = table.record().status == GameStatus::Lobby && kind.writes_the_lobby();
    let now = table.version();
    if !in_lobby && signed.version > now.get() {
        return Err(refused(
            "bad_signature",
            format!(
                "the act was signed at version {}, after the game's version {now}",
                signed.version
            ),
        ));
    }
    let message = statement(table, seat, kind, &signed);
    if !message.is_some_and(|m| verifies(&key, &m, &signed.signature)) {
        return Err(refused(
            "bad_signature",
            format!(
                "the signature is not {seat}'s key's ({}) over this {} at version {}: {}",
                fingerprint(&key),
                kind.as_str(),
                signed.version,
                how_to_sign(
                    table.history().signing_scheme(),
                    kind,
                    table.history().about_at(signed.version, seat, kind)
                )
            ),
        ));
    }
    // A signature holds for the decision it was made at: a command's (as `If-Match`) and, in
    // a game of record version 2 on, every act's, so a signature refused or left unused can
    // never be recorded later in place of another act.
    let bound = !in_lobby && (kind == SignedAct::Command || table.history().records_bots());
    if bound && signed.version < table.decision_version().get() {
        return Err(ApiError::PreconditionFailed(format!(
            "the {} was signed at version {}; the game has changed since (a version holds \
             from {} on): fetch the state and sign again",
            kind.as_str(),
            signed.version,
            table.decision_version()
        )));
    }
    if let Some(seq) = recorded_with(table, &signed.signature) {
        return Err(refused(
            "bad_signature",
            format!(
                "this signature is already recorded, with event {seq}: each act is signed once"
            ),
        ));
    }
    Ok(Some((
        seat,
        SeatSignature {
            version: signed.version,
            body: signed.body,
            signature: signed.signature,
        },
    )))
}
