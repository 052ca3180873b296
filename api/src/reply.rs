//! What a write answers: the batch it recorded (and the bots' answers after it), as the caller
//! may see it.

use actix_web::HttpResponse;
use saboteur_domain::{Audience, Event, History};

use crate::dto::{EventRecord, Outcome};
use crate::table::Table;

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
/// game's version after them and the seat it awaits now.
pub(crate) fn outcome(table: &Table, first: i64, events: &[Event], audience: Audience) -> Outcome {
    Outcome {
        version: first + events.len() as i64 - 1,
        events: redacted(&table.history, events, first, audience),
        awaited: table.history.game().awaited().map(|s| s.0),
    }
}

/// A 200 with the outcome and its version as the `ETag`.
pub(crate) fn ok(out: Outcome) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header(("ETag", format!("\"{}\"", out.version)))
        .json(out)
}
