//! Step 3 of the seam: an act sent again with its `Idempotency-Key` (a seat's command, undo
//! request, vote, message, reclaim or key registered during play) answers exactly the reply it
//! was given first, read from the log; the key sent with another act is refused.

use crate::app::act::{Act, Done, Reply, Who};
use crate::app::reply;
use crate::app::state::AppState;
use crate::app::table::Batch;
use crate::app::tables::Held;
use crate::error::ApiError;

/// Step 3: an act sent again with its `Idempotency-Key` answers the reply it was given
/// first — its batch and the bots' answers its request appended after it, as the store
/// recorded them under the key, never a move played later — read from the log (recorded
/// perhaps through another process, or before a restart). The key names one act: sent
/// with another act, it is refused (422 `idempotency_key_reused`).
pub(in crate::app) async fn retried(
    state: &AppState,
    table: &mut Held,
    (batch, key): (Batch, &str),
    who: Who,
    act: &Act,
) -> Result<Done, ApiError> {
    let answered = state
        .writer
        .reply_end(table.id(), key)
        .await?
        .map_or(batch.last, |v| v.max(batch.last));
    if answered > table.version() {
        // Recorded through another process: read it.
        table.follow(&state.store).await?;
    }
    let recorded = usize::try_from(batch.first.get())
        .ok()
        .and_then(|i| i.checked_sub(1))
        .and_then(|i| table.history().log().get(i));
    let declared = act.declared().retry.map(|r| r.records);
    if !declared
        .zip(recorded)
        .is_some_and(|(r, first)| r.first_of(first))
    {
        return Err(ApiError::Unprocessable {
            code: "idempotency_key_reused",
            detail: "this Idempotency-Key was used for another act; use a new key for a new act"
                .into(),
        });
    }
    state.metrics.commands.with_label_values(&["retried"]).inc();
    let outcome = reply::outcome(state, table, batch.first, answered, who.audience()).await?;
    // As the first reply was: an undo request or a vote that left votes awaited was 202.
    let awaiting = act.reply() == Reply::Vote
        && table
            .history()
            .at(answered.get())
            .is_some_and(|h| h.pending_undo().is_some());
    let first = if awaiting {
        Done::Awaiting(outcome)
    } else {
        Done::Recorded(outcome)
    };
    Ok(Done::Replayed(Box::new(first)))
}
