//! The driver: a sweep in every process that hands the seam the games a bot is due in or whose
//! deadline passed (a kill, an outage, a lost race or a restart left them so), and logs
//! finished games the transparency log misses. Exactly once, because the store's version
//! decides.

use std::sync::Arc;
use std::time::Duration;

use crate::app::act::{Act, Request};
use crate::app::ids::{GameId, Version};
use crate::app::seam;
use crate::app::state::AppState;

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
    for (id, version) in waiting {
        drive(state, &id, version).await;
    }
}

/// Plays the bots of one game through the seam, unless a request of this process holds it
/// (that request lets them answer itself).
async fn drive(state: &AppState, game: &GameId, version: Version) {
    if state.tables.busy(game) {
        return;
    }
    match seam::act(
        state,
        Request::new(None, Act::BotsDue { game: game.clone() }),
    )
    .await
    {
        // Nothing due: the seam cleared the flag (it outlived its reason).
        Ok(_) => {}
        Err(e) => tracing::debug!(game = %game, %version, "bot sweep: {e}"),
    }
}
