//! Step 3 of the seam: an act sent again with its `Idempotency-Key` (a seat's command, undo
//! request, vote, message, reclaim or key registered during play) answers exactly the reply it
//! was given first, read from the log; the key sent with another act is refused.

use saboteur_domain::Event;

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
    if !same_act(recorded, act) {
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

/// Whether `recorded`, the first event of the batch a key recorded, is what `act` records: the
/// same command, message or seat (the key is the seat's own, so the seat is the same).
fn same_act(recorded: Option<&Event>, act: &Act) -> bool {
    use saboteur_domain::Secret;
    match (act, recorded) {
        (
            Act::Command { command, .. },
            Some(Event::CommandAccepted {
                command: Secret::Known(first),
                ..
            }),
        ) => first == command,
        (Act::RequestUndo { .. }, Some(e)) => matches!(
            e,
            Event::UndoRequested { .. } | Event::Undone { by: Some(_), .. }
        ),
        (Act::VoteUndo { approve, .. }, Some(e)) => match e {
            Event::UndoApproved { .. } => *approve,
            Event::UndoDeclined { .. } => !*approve,
            _ => false,
        },
        (
            Act::Talk { text, .. },
            Some(Event::TalkPosted {
                text: Secret::Known(first),
                ..
            }),
        ) => first.trim() == text.trim(),
        (Act::Reclaim { seat, .. }, Some(Event::SeatReclaimed { seat: first, .. })) => {
            first == seat
        }
        (
            Act::RegisterKey { seat, key, .. },
            Some(Event::SeatKeyRegistered {
                seat: first,
                key: registered,
                ..
            }),
        ) => first == seat && registered.eq_ignore_ascii_case(&key.key),
        // Every other act takes no key (`Act::retry_key`), and a key's batch that starts with
        // another event was another act's.
        (
            Act::Command { .. }
            | Act::RequestUndo { .. }
            | Act::VoteUndo { .. }
            | Act::Talk { .. }
            | Act::Reclaim { .. }
            | Act::RegisterKey { .. }
            | Act::Create(..)
            | Act::Join { .. }
            | Act::SeatBot { .. }
            | Act::Leave { .. }
            | Act::Rename { .. }
            | Act::Start { .. }
            | Act::Cancel { .. }
            | Act::Rollback { .. }
            | Act::HideTalk { .. }
            | Act::HandOver { .. }
            | Act::ReissueToken { .. }
            | Act::Rematch { .. }
            | Act::Claim { .. }
            | Act::RevealShare { .. }
            | Act::CloseLobby { .. }
            | Act::TimeOut { .. }
            | Act::BotsDue { .. },
            _,
        ) => false,
    }
}
