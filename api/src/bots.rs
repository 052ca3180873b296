//! Bots at the table: what a bot does when the game waits for one, and the driver that makes
//! sure it happens exactly once, whichever process does it, whatever failed in between.
//!
//! After every commit the request that made it lets the bots play ([`play`]), so a reply holds
//! their answers. When that fails — the database went away, the process was killed, another
//! process won a race — the store still says the game waits for a bot (`bot_awaited`, written
//! with every append), and the [`Driver`]'s sweep finds it and plays it. Two processes may both
//! try: a bot's move is a pure function of the game and its version, and the store's expected
//! version lets exactly one of them record it.

use std::sync::Arc;
use std::time::Duration;

use saboteur_domain::Event;

use crate::AppState;
use crate::table::{Committed, Table};
use crate::tables::Tables;

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
    if let Some(request) = table.history.pending_undo() {
        // A request waits for its humans' votes; meanwhile nobody acts.
        let voter = table.bot_voter()?;
        return table.history.vote_undo(voter, request.bot_approves()).ok();
    }
    let seat = table.history.game().awaited()?;
    let level = table.bot(seat)?;
    let events = table.history.execute_bot(seat, level);
    if events.is_none() {
        tracing::warn!(game = %table.id(), seat = seat.0, "a bot found no command");
    }
    events
}

/// Lets the bots act while the game waits for one of them, each move committed like a
/// player's command. Stops at a human's decision, at the end, or at the first failed commit
/// (the driver's sweep takes over from there). Returns the events recorded.
pub(crate) async fn play(state: &AppState, table: &mut Table) -> Vec<Event> {
    let mut played = Vec::new();
    while let Some(events) = next_move(table) {
        let is_command = matches!(events.first(), Some(Event::CommandAccepted { .. }));
        match table.commit(&state.store, events.clone(), None).await {
            Ok(Committed::New(_)) => {
                if is_command {
                    state.metrics.commands.with_label_values(&["bot"]).inc();
                }
                played.extend(events);
            }
            Ok(Committed::Retried(_)) => break,
            Err(e) => {
                tracing::warn!(game = %table.id(), "a bot's move was not recorded: {e}");
                break;
            }
        }
    }
    played
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
        drive(state, &state.tables, &id, version).await;
    }
}

/// Plays the bots of one game, unless a request holds it (it plays them itself).
async fn drive(state: &AppState, tables: &Arc<Tables>, id: &str, version: i64) {
    if tables.busy(id) {
        return;
    }
    let mut table = match tables.open(id).await {
        Ok(t) => t,
        Err(e) => {
            tracing::debug!(game = %id, "bot sweep: {e}");
            return;
        }
    };
    if table.bot_due() {
        play(state, &mut table).await;
    } else if table.version() == version {
        // The flag outlived its reason (e.g. set by a migration): clear it.
        let _ = state.store.clear_bot_awaited(id, version).await;
    }
}
