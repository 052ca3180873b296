//! Bots at the table: what a bot does when the game waits for one ([`next_move`]), and the
//! driver that makes sure it happens exactly once, whichever process does it, whatever failed
//! in between.
//!
//! After every act the seam lets the bots answer (`crate::app::seam`, step 7), so a reply holds
//! their answers; but a person's command is answered before an expert's search, which the
//! driver thinks over after the reply while the table is free (step 11), then plays with the
//! bots after it. When that fails — the database went away, the process was killed, another
//! process won a race — the store still says the game waits for a bot (`bot_awaited`, written
//! with every append), and the driver's sweep (`crate::app::driver`) finds it and plays it. Two processes may both
//! try: a bot's move is a pure function of the game and its version, and the store's expected
//! version lets exactly one of them record it.

use saboteur_domain::bot::BotTurn;
use saboteur_domain::{BotLevel, Event};

use crate::app::state::AppState;
use crate::app::table::Table;

/// What the bots do next, if the game waits for one: a bot's vote on a pending undo request
/// (docs/rules.md §12), or the awaited bot's command. An expert's search is thought over on the
/// thinker threads in the turn of the game's maker ([`crate::app::thinkers`]); the cheaper
/// levels (tens of microseconds: a search plays hundreds of their moves) decide where they
/// are.
///
/// An expert's move thought over ahead ([`think_ahead`]) is played without a search; without
/// one, `think_here` says whether to search now, holding the table, or to stop (the driver
/// thinks it over first, and the table answers reads meanwhile).
pub(crate) async fn next_move(
    state: &AppState,
    table: &mut Table,
    think_here: bool,
) -> Option<Vec<Event>> {
    let history = table.history();
    if let Some(request) = history.pending_undo() {
        // A request waits for its humans' votes; meanwhile nobody acts.
        let voter = table.bot_voter()?;
        return history.vote_undo(voter, request.bot_approves()).ok();
    }
    let seat = history.game().awaited()?;
    let level = table.bot(seat)?;
    let turn = history.bot_turn(seat, level);
    let (turn, command) = if level != BotLevel::Expert {
        let command = turn.think();
        (turn, command)
    } else if let Some(command) = state.thoughts.get(&thought_key(table)) {
        (turn, Some(command))
    } else if !think_here {
        return None;
    } else {
        let share = table.share(&state.store).await;
        let thought = state
            .thinkers
            .think(&share, move || {
                let command = turn.think();
                (turn, command)
            })
            .await;
        match thought {
            Ok(thought) => thought,
            Err(e) => {
                tracing::warn!(game = %table.id(), seat = seat.0, "a bot did not think: {e}");
                return None;
            }
        }
    };
    let events = command.and_then(|c| table.history().play_bot_turn(&turn, &c));
    if events.is_none() {
        tracing::warn!(game = %table.id(), seat = seat.0, "a bot found no command");
    }
    events
}

/// Where a thought over move is kept ([`AppState::thoughts`]): the game, its version and its
/// head, so a move is never played on another log of the same length.
fn thought_key(table: &Table) -> String {
    format!(
        "{}@{}:{}",
        table.id(),
        table.version(),
        table.record().last_hash
    )
}

/// The expert's turn `table` awaits, if one is due and not thought over yet: taken out of the
/// table ([`BotTurn`]), so it is thought over after the table is let go ([`think_ahead`]).
pub(crate) fn expert_turn(state: &AppState, table: &Table) -> Option<(String, BotTurn)> {
    let history = table.history();
    if history.pending_undo().is_some() {
        return None;
    }
    let seat = history.game().awaited()?;
    let level = table.bot(seat)?;
    let key = thought_key(table);
    let fresh = level == BotLevel::Expert && state.thoughts.get(&key).is_none();
    fresh.then(|| (key, history.bot_turn(seat, level)))
}

/// Thinks `turn` over on the thinker threads, in `share`'s turn, holding no table, and keeps
/// the move under `key` for [`next_move`] to play.
pub(crate) async fn think_ahead(state: &AppState, share: &str, (key, turn): (String, BotTurn)) {
    match state.thinkers.think(share, move || turn.think()).await {
        Ok(Some(command)) => state.thoughts.keep(&key, &command),
        Ok(None) => tracing::warn!(%key, "a bot found no command"),
        Err(e) => tracing::warn!(%key, "a bot did not think: {e}"),
    }
}
