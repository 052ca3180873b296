//! What a write answers: the batch it recorded (and the bots' answers after it), as the caller
//! may see it; what a view shows; and the signed receipt of either.
//!
//! [`outcome_body`] and [`state_view`] are the one way each body is computed, by the handlers
//! and by the offline check of receipts against an audit bundle (`crate::audit`), so a body
//! recomputed from the record hashes as the body served did.

use actix_web::HttpResponse;
use saboteur_domain::{Audience, Event, History};
use serde::Serialize;

use crate::AppState;
use crate::dto::{EventRecord, Outcome, StateView};
use crate::error::ApiError;
use crate::receipt::{Receipt, ReceiptKind, audience_of, view_hash};
use crate::table::{Committed, Table};

/// Events of `history` as an audience may see them (a message the host hid without its
/// text), numbered from `first_seq`.
pub(crate) fn redacted(
    history: &History,
    events: &[Event],
    first_seq: i64,
    audience: Audience,
) -> Vec<EventRecord> {
    events
        .iter()
        .zip(first_seq..)
        .map(|(e, seq)| EventRecord {
            seq,
            event: history.shown(seq as u64, e, audience),
        })
        .collect()
}

/// The outcome of a write whose events start at `first`, as `audience` may see them, with the
/// game's version after them and the seat it awaits then (from `history`, which holds them).
pub(crate) fn outcome_body(
    history: &History,
    first: i64,
    events: &[Event],
    audience: Audience,
) -> Outcome {
    let version = first + events.len() as i64 - 1;
    // The history as it was at `version` (a message hidden since, a game over since, change
    // nothing in what was served then).
    let earlier;
    let then = if version == history.version() as i64 {
        history
    } else {
        earlier = u64::try_from(version).ok().and_then(|v| history.at(v));
        earlier.as_ref().unwrap_or(history)
    };
    Outcome {
        version,
        events: redacted(then, events, first, audience),
        awaited: then.game().awaited().map(|s| s.0),
        receipt: None,
    }
}

/// The view at `version` of `history` for `audience`, and the table around the game then:
/// the live state for the current version, the history replayed to `version` for an earlier
/// one. `None` when the game has no such version.
pub(crate) fn state_view(history: &History, version: i64, audience: Audience) -> Option<StateView> {
    let earlier;
    let then = if version == history.version() as i64 {
        history
    } else {
        earlier = history.at(u64::try_from(version).ok()?)?;
        &earlier
    };
    Some(StateView {
        version,
        view: saboteur_domain::view(then.game(), audience),
        table: then.table_status(),
        receipt: None,
    })
}

/// A signed receipt for `body`, served to `audience` at `version` of the table's game.
pub(crate) async fn receipt(
    state: &AppState,
    table: &Table,
    kind: ReceiptKind,
    (version, first): (i64, Option<i64>),
    audience: Audience,
    body: &impl Serialize,
) -> Result<Receipt, ApiError> {
    let head = table.head_at(&state.store, version).await?;
    let value = serde_json::to_value(body).map_err(|e| ApiError::Internal(e.to_string()))?;
    let (audience, seat) = audience_of(audience);
    Ok(state.signer.sign(Receipt {
        kind,
        game_id: table.id().to_string(),
        version,
        first,
        head,
        served_at: table.time.rfc3339(),
        audience,
        seat,
        view_hash: view_hash(&value),
        key_id: String::new(),
        signature: String::new(),
    }))
}

/// A write that is not a player's command (the start, undo steps, acts at the table): commits
/// `events` through the one command cycle (with a seat's new token, if any), lets the bots
/// answer, and gives the outcome of both as `audience` may see it, signed.
pub(crate) async fn record(
    state: &AppState,
    table: &mut Table,
    events: Vec<Event>,
    token: Option<saboteur_storage::TokenSwap>,
    audience: Audience,
) -> Result<Outcome, ApiError> {
    let batch = match table
        .commit_with(&state.store, events.clone(), None, token)
        .await?
    {
        Committed::New(batch) | Committed::Retried(batch) => batch,
    };
    let mut events = events;
    events.extend(crate::bots::play(state, table).await);
    outcome(state, table, batch.first, &events, audience).await
}

/// The outcome of a write whose events start at `first`, as `audience` may see them, signed.
pub(crate) async fn outcome(
    state: &AppState,
    table: &Table,
    first: i64,
    events: &[Event],
    audience: Audience,
) -> Result<Outcome, ApiError> {
    let mut out = outcome_body(&table.history, first, events, audience);
    let at = (out.version, Some(first));
    out.receipt = Some(receipt(state, table, ReceiptKind::Outcome, at, audience, &out).await?);
    Ok(out)
}

/// A 200 with the outcome and its version as the `ETag`.
pub(crate) fn ok(out: Outcome) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header(("ETag", format!("\"{}\"", out.version)))
        .json(out)
}
