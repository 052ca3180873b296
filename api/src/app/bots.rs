//! Bots at the table: what a bot does when the game waits for one ([`next_move`]), and the
//! driver that makes sure it happens exactly once, whichever process does it, whatever failed
//! in between.
//!
//! After every act the seam lets the bots answer (`crate::app::seam`, step 7), so a reply holds
//! their answers. When that fails — the database went away, the process was killed, another
//! process won a race — the store still says the game waits for a bot (`bot_awaited`, written
//! with every append), and the [`Driver`]'s sweep finds it and plays it. Two processes may both
//! try: a bot's move is a pure function of the game and its version, and the store's expected
//! version lets exactly one of them record it.

use std::sync::Arc;
use std::time::Duration;

use saboteur_domain::Event;

use crate::app::act::{Act, Done, Request};
use crate::app::ids::GameId;
use crate::app::seam;
use crate::app::table::Table;
use crate::state::AppState;

/// How often the driver asks the store for games waiting on a bot.
pub const SWEEP_EVERY: Duration = Duration::from_secs(1);

/// Every how many sweeps the driver also logs finished games left out of the transparency
/// log (the first sweep does it too).
const LOG_SWEEP_EVERY: u64 = 60;

/// Writes the transparency log's entries of finished games left unlogged (a crash between the
/// finishing append and its entry, or games finished before the log existed).
async fn log_unlogged(state: &AppState) {
    loop {
        let ids = match state.store.unlogged_finished_games(100).await {
            Ok(ids) => ids,
            Err(e) => {
                tracing::warn!("cannot list the games to log: {e}");
                return;
            }
        };
        for id in &ids {
            if let Err(e) = state.store.log_finished_game(id).await {
                tracing::warn!(game = %id, "the finished game is not logged yet: {e}");
                return;
            }
        }
        if ids.len() < 100 {
            return;
        }
    }
}

/// What the bots do next, if the game waits for one: a bot's vote on a pending undo request
/// (docs/rules.md §12), or the awaited bot's command.
pub(crate) fn next_move(table: &Table) -> Option<Vec<Event>> {
    let history = table.history();
    if let Some(request) = history.pending_undo() {
        // A request waits for its humans' votes; meanwhile nobody acts.
        let voter = table.bot_voter()?;
        return history.vote_undo(voter, request.bot_approves()).ok();
    }
    let seat = history.game().awaited()?;
    let level = table.bot(seat)?;
    let events = history.execute_bot(seat, level);
    if events.is_none() {
        tracing::warn!(game = %table.id(), seat = seat.0, "a bot found no command");
    }
    events
}

/// Plays the bots of games the store says are waiting for one, every [`SWEEP_EVERY`], for as
/// long as the server runs.
pub(crate) struct Driver;

impl Driver {
    /// Starts the sweep on the current runtime.
    pub fn spawn(state: Arc<AppState>) {
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(SWEEP_EVERY);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            for n in 0_u64.. {
                tick.tick().await;
                sweep(&state).await;
                if n % LOG_SWEEP_EVERY == 0 {
                    log_unlogged(&state).await;
                }
            }
        });
    }
}

/// One sweep: every game waiting for a bot, or past its deadline (opening a table records its
/// timeout), that no request of this process is serving now.
async fn sweep(state: &AppState) {
    let now = i64::try_from(state.config.time.now_ms()).unwrap_or(i64::MAX);
    let waiting = match state.store.games_due(now, 100).await {
        Ok(w) => w,
        Err(e) => {
            tracing::debug!("bot sweep: {e}");
            return;
        }
    };
    for (id, version) in waiting {
        drive(state, &id, version).await;
    }
}

/// Plays the bots of one game through the seam, unless a request of this process holds it
/// (that request lets them answer itself).
async fn drive(state: &AppState, id: &str, version: i64) {
    if state.tables.busy(id) {
        return;
    }
    let game = match GameId::parse(id) {
        Ok(g) => g,
        Err(e) => {
            tracing::warn!(game = %id, "bot sweep: {e}");
            return;
        }
    };
    match seam::act(
        state,
        Request::new(None, Act::BotsDue { game: game.clone() }),
    )
    .await
    {
        Ok(Done::Nothing) => {
            // Nothing was due: the flag outlived its reason (e.g. set by a migration).
            if let Err(e) = state.store.clear_bot_awaited(game.as_str(), version).await {
                tracing::debug!(game = %game, "bot sweep: {e}");
            }
        }
        Ok(_) => {}
        Err(e) => tracing::debug!(game = %game, "bot sweep: {e}"),
    }
}
