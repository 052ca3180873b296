//! The driver: a sweep in every process that hands the seam the games a bot is due in or whose
//! deadline passed (a kill, an outage, a lost race or a restart left them so), and logs
//! finished games the transparency log misses. Exactly once, because the store's version
//! decides.

use std::sync::Arc;
use std::time::Duration;

use crate::app::act::{Act, Request};
use crate::app::bots;
use crate::app::ids::GameId;
use crate::app::seam;
use crate::app::state::{AppState, BotsQueue};
use crate::app::table::Table;

/// How often the driver asks the store for games waiting on a bot.
pub const SWEEP_EVERY: Duration = Duration::from_secs(1);

/// Every how many sweeps the driver also logs finished games left out of the transparency
/// log (the first sweep does it too).
const LOG_SWEEP_EVERY: u64 = 60;

/// Writes the transparency log's entries of finished games left unlogged (a crash between the
/// finishing append and its entry, or games finished before the log existed).
async fn log_unlogged(state: &AppState) {
    loop {
        let ids = match state.writer.unlogged_finished_games(100).await {
            Ok(ids) => ids,
            Err(e) => {
                tracing::warn!("cannot list the games to log: {e}");
                return;
            }
        };
        for id in &ids {
            let now = i64::try_from(state.config.time.now_ms()).unwrap_or(i64::MAX);
            if let Err(e) = state.writer.log_finished_game(id, now).await {
                tracing::warn!(game = %id, "the finished game is not logged yet: {e}");
                return;
            }
        }
        if ids.len() < 100 {
            return;
        }
    }
}

/// Plays the bots of games the store says are waiting for one, every [`SWEEP_EVERY`], for as
/// long as the server runs.
pub(crate) struct Driver;

impl Driver {
    /// Starts the sweep, and the bots that answer a person's command after its reply (the
    /// games sent on [`AppState::bots_due`], taken from `queue`), on the current runtime.
    pub fn spawn(state: Arc<AppState>, mut queue: BotsQueue) {
        tokio::spawn({
            let state = state.clone();
            async move {
                while let Some(game) = queue.recv().await {
                    // Each game's bots on their own: one game's searches never hold another's.
                    let state = state.clone();
                    tokio::spawn(async move { answer(&state, &game).await });
                }
            }
        });
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(SWEEP_EVERY);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            for n in 0_u64.. {
                tick.tick().await;
                sweep(&state).await;
                if n % LOG_SWEEP_EVERY == 0 {
                    log_unlogged(&state).await;
                    // What clients and idle games leave behind, given back once a minute.
                    state.tables.forget_idle(state.config.limits.lobby_expiry);
                    // A reply kept for a retry holds a host token: gone once it expires.
                    let expired = chrono::Utc::now() - saboteur_storage::KEPT_FOR;
                    if let Err(e) = state.writer.forget_kept_replies(expired).await {
                        tracing::debug!("kept replies not forgotten: {e}");
                    }
                    // Seats taken are counted over the join limit's period, at most an hour.
                    let period = state.config.limits.joins.per.max(Duration::from_secs(3600));
                    let old =
                        chrono::Utc::now() - chrono::Duration::from_std(period).unwrap_or_default();
                    if let Err(e) = state.writer.forget_seat_takes(old).await {
                        tracing::debug!("seats taken not forgotten: {e}");
                    }
                }
            }
        });
    }
}

/// One sweep: every game waiting for a bot, or past its deadline (opening a table records its
/// timeout), that no request of this process is serving now.
async fn sweep(state: &AppState) {
    let now = i64::try_from(state.config.time.now_ms()).unwrap_or(i64::MAX);
    let waiting = match state.writer.games_due(now, 100).await {
        Ok(w) => w,
        Err(e) => {
            tracing::debug!("bot sweep: {e}");
            return;
        }
    };
    for (id, _) in waiting {
        drive(state, &id).await;
    }
}

/// Plays the bots of `game` through the seam, one expert's search at a time thought over
/// first while the table is free (so it answers reads meanwhile), then played through the
/// seam with the cheaper bots after it; until no bot is due, or a round makes no progress (the
/// sweep tries again).
async fn answer(state: &AppState, game: &GameId) {
    let Some(_answering) = Answering::start(state, game) else {
        return;
    };
    let mut last = None;
    loop {
        let ahead = match seam::open(state, game).await {
            // Nothing due after a round, or no progress: done. Nothing due at first: the
            // seam's act below clears the store's flag that outlived its reason.
            Ok(table) if last.is_some() && (!table.bot_due() || last == Some(table.version())) => {
                return;
            }
            Ok(table) => {
                last = Some(table.version());
                bots::expert_turn(state, &table)
            }
            Err(e) => {
                tracing::debug!(game = %game, "the bots' answer is left to the sweep: {e}");
                return;
            }
        };
        if let Some(turn) = ahead {
            let (share, _) = Table::share_of(&state.store, game).await;
            bots::think_ahead(state, &share, turn).await;
        }
        let act = Act::BotsDue { game: game.clone() };
        if let Err(e) = seam::act(state, Request::new(None, act)).await {
            tracing::debug!(game = %game, "the bots' answer is left to the sweep: {e}");
            return;
        }
    }
}

/// A game whose bots [`answer`] plays: one at a time (the sweep and a command's answer would
/// otherwise think the same move over twice).
struct Answering<'a>(&'a AppState, GameId);

impl<'a> Answering<'a> {
    fn start(state: &'a AppState, game: &GameId) -> Option<Answering<'a>> {
        let mut answering = state
            .answering
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        answering
            .insert(game.clone())
            .then(|| Answering(state, game.clone()))
    }
}

impl Drop for Answering<'_> {
    fn drop(&mut self) {
        self.0
            .answering
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(&self.1);
    }
}

/// Plays the bots of one game ([`answer`]), unless a request of this process holds it (that
/// request lets them answer itself, or hands an expert's turn to the driver).
async fn drive(state: &AppState, game: &GameId) {
    if state.tables.busy(game) {
        return;
    }
    answer(state, game).await;
}
