//! What a write answers: the batch it recorded (and the bots' answers after it), as the caller
//! may see it; what a view shows; and the signed receipt of either.
//!
//! [`outcome_body`] and [`state_view`] (the verifier's, `saboteur_verifier::body`) are the one
//! way each body is computed, by the handlers and by the offline check of receipts against an
//! audit bundle, so a body recomputed from the record hashes as the body served did.

use saboteur_domain::{Audience, Seat};
pub(crate) use saboteur_verifier::body::{outcome_body, redacted, state_view};
use serde::Serialize;

use crate::app::ids::Version;
use crate::app::state::AppState;
use crate::app::table::Table;
use crate::dto::{Outcome, SeedCommitment};
use crate::error::ApiError;
use crate::receipt::{Receipt, ReceiptKind, audience_of, view_hash};

/// A signed receipt for `body`, served to `audience` at `version` of the table's game (for an
/// outcome, `first` is its first event), signed at the game's now ([`Table::now_ms`]).
pub(crate) async fn receipt(
    state: &AppState,
    table: &Table,
    kind: ReceiptKind,
    at: (Version, Option<Version>),
    audience: Audience,
    body: &impl Serialize,
) -> Result<Receipt, ApiError> {
    receipt_at(
        state,
        table,
        (kind, table.now_ms(), None),
        at,
        audience,
        body,
    )
    .await
}

/// As [`receipt`], for a time signed outside the game's events (a refusal, with the hash of
/// what was refused; a commitment): the time is kept in the store as the game's floor first
/// ([`Table::signed_now_ms`]), so no later event or receipt of the game is stamped earlier,
/// whichever process, restarted or not.
pub(crate) async fn kept_receipt(
    state: &AppState,
    table: &mut Table,
    (kind, request_hash): (ReceiptKind, Option<String>),
    at: (Version, Option<Version>),
    audience: Audience,
    body: &impl Serialize,
) -> Result<Receipt, ApiError> {
    let ms = table.signed_now_ms(&state.writer).await?;
    receipt_at(state, table, (kind, ms, request_hash), at, audience, body).await
}

/// As [`kept_receipt`], with the time not kept in the store: for a refusal signed while the
/// store cannot be reached (the table's floor in memory still holds).
pub(crate) async fn unkept_receipt(
    state: &AppState,
    table: &Table,
    (kind, request_hash): (ReceiptKind, Option<String>),
    at: (Version, Option<Version>),
    audience: Audience,
    body: &impl Serialize,
) -> Result<Receipt, ApiError> {
    let ms = table.now_ms();
    receipt_at(state, table, (kind, ms, request_hash), at, audience, body).await
}

async fn receipt_at(
    state: &AppState,
    table: &Table,
    (kind, served_ms, request_hash): (ReceiptKind, u64, Option<String>),
    (version, first): (Version, Option<Version>),
    audience: Audience,
    body: &impl Serialize,
) -> Result<Receipt, ApiError> {
    // The store cannot be reached (a demoted primary, a failover): the standby's log.
    let head = state
        .patiently(|| async {
            match (table.head_at(&state.store, version).await, &state.reads) {
                (Err(ApiError::Unreachable(_)), Some(reads)) => table.head_at(reads, version).await,
                (head, _) => head,
            }
        })
        .await?;
    let at = Signed {
        game: table.id().as_str(),
        version: version.stored(),
        first: first.map(Version::stored),
        head,
        served_at: rfc3339(served_ms),
        request_hash,
    };
    sign(state, kind, at, audience, body)
}

/// A time in milliseconds since the Unix epoch as receipts sign it: RFC 3339 in UTC, to the
/// millisecond.
pub(crate) fn rfc3339(ms: u64) -> String {
    chrono::DateTime::from_timestamp_millis(i64::try_from(ms).unwrap_or(i64::MAX))
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// Where in a game's chain, and when, a receipt is signed.
pub(crate) struct Signed<'a> {
    /// The game.
    pub game: &'a str,
    /// The version the body is of.
    pub version: i64,
    /// For an outcome, its first event.
    pub first: Option<i64>,
    /// The chain's head at `version`.
    pub head: String,
    /// When (RFC 3339).
    pub served_at: String,
    /// For a refusal, the hash of what was refused.
    pub request_hash: Option<String>,
}

/// Signs a receipt of `body`, served to `audience` at `at`.
pub(crate) fn sign(
    state: &AppState,
    kind: ReceiptKind,
    at: Signed<'_>,
    audience: Audience,
    body: &impl Serialize,
) -> Result<Receipt, ApiError> {
    let value = serde_json::to_value(body)
        .map_err(|e| ApiError::internal("a served body does not serialise", e))?;
    let (audience, seat) = audience_of(audience);
    Ok(state.signer.sign(Receipt {
        kind,
        game_id: at.game.to_string(),
        version: at.version,
        first: at.first,
        head: at.head,
        served_at: at.served_at,
        audience,
        seat,
        view_hash: view_hash(&value),
        request_hash: at.request_hash,
        key_id: String::new(),
        signature: String::new(),
    }))
}

/// The outcome of the events from `first` to `end` of the table's log — exactly as they are
/// stored, clock times included — as `audience` may see them, signed.
pub(crate) async fn outcome(
    state: &AppState,
    table: &Table,
    first: Version,
    end: Version,
    audience: Audience,
) -> Result<Outcome, ApiError> {
    let events = usize::try_from(first.get())
        .ok()
        .and_then(|f| f.checked_sub(1))
        .zip(usize::try_from(end.get()).ok())
        .and_then(|(from, to)| table.history().log().get(from..to))
        .ok_or_else(|| ApiError::Internal(format!("the log has no events {first} to {end}")))?;
    let mut out = outcome_body(
        table.history(),
        first.stored(),
        events,
        audience,
        table.sealer(),
    );
    let at = (end, Some(first));
    out.receipt = Some(receipt(state, table, ReceiptKind::Outcome, at, audience, &out).await?);
    Ok(out)
}

/// A seat's signed commitment: the seed's hash, the seat's share or the commitment to it (or
/// both, once revealed) as its credential holds them, and the key it was taken with (or the
/// one it changed to), signed as a `commitment` receipt (its time kept as the game's floor).
pub(in crate::app) async fn seat_commitment(
    state: &AppState,
    table: &mut Table,
    seat: Seat,
    public_key: Option<String>,
) -> Result<(SeedCommitment, crate::receipt::Receipt), ApiError> {
    let holder = table.holder(seat);
    let commitment = SeedCommitment {
        game_id: table.id().to_string(),
        seed_commitment: table.record().seed_commitment.clone(),
        seat: Some(seat.0),
        entropy: holder.and_then(|c| c.entropy.clone()),
        share_commitment: holder.and_then(|c| c.share_commitment.clone()),
        public_key,
    };
    let at = (table.version(), None);
    let receipt = kept_receipt(
        state,
        table,
        (ReceiptKind::Commitment, None),
        at,
        Audience::Seat(seat),
        &commitment,
    )
    .await?;
    Ok((commitment, receipt))
}
