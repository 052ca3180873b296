//! Everything a client can do, mixed at random, end to end on SQLite and PostgreSQL.
//!
//! Each game is created with a random ruleset, player count, turn clock (none, per decision or
//! a bank, sometimes abandoning seats after timeouts) and spectator talk, some seats bots and
//! some players, on a server whose clock is manual. At each step the driver picks one act among
//! everything a client can do: a player's legal command (with or without `If-Match`, with or
//! without an `Idempotency-Key`, sometimes sent twice, sometimes retried much later), talk,
//! hiding a message, undo requests and votes, rollbacks, seats handed to bots and taken back,
//! new tokens, a deadline passed, views, replays and event pages for every audience, and probes
//! with revoked tokens. A finished game is sometimes followed by a rematch whose players claim
//! their seats and play on. A game or a rematch is now and then made with an `Idempotency-Key`,
//! sometimes sent twice: the retry is the first reply.
//!
//! What must hold throughout:
//! - a refusal is problem+json with a `code`, and changes nothing (the game's version);
//! - a 412 or a 409 only where the rules explain it (one client: no race);
//! - `If-Match: "v"` holds while only talk and new tokens were recorded after v, and fails once
//!   a command or an undo was;
//! - a retry with an `Idempotency-Key` is the first reply (its receipt too, but for its time
//!   and signature);
//! - a revoked token gets nothing (401 for views, replies and pages) and its event stream ends
//!   having delivered nothing from its revocation on; each seat's current stream follows the
//!   game to its end;
//! - once the game is over, every receipt served to anyone checks against its record;
//! - half the players sign their acts with a key (sent with the seat, the claim, or after a new
//!   token): every recorded signature verifies, and one byte changed in a recorded signature
//!   or in the body it signs is caught; a signed request sent again exactly, once the game has
//!   moved on or its act was recorded, is refused and records nothing (a signature is spent
//!   once, at its decision).
//!
//! `SABOTEUR_MIXED_GAMES` sets the number of games per database (default 8 on SQLite, 3 on
//! PostgreSQL), `SABOTEUR_MIXED_SEED` the seed of the first chain of games (a game and its
//! rematches); a failure names its chain's seed.
//!
//! Here: the driving loop, chains of games and the tests. `game` holds a game's state and
//! bookkeeping, `start` and `end` its beginning and end, `commands` a player's commands, `acts`
//! every other act, `dice` the seeded randomness.

mod acts;
mod commands;
mod dice;
mod end;
pub(crate) mod game;
mod keys;
mod start;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use saboteur_api::TimeSource;

use crate::helpers::{TestApp, postgres_url, sqlite_url};
use crate::players::T0;
use dice::Rng;
use game::Mixed;

/// Acts after which the players' seats are handed to bots so that the game ends.
const MOST_ACTS: usize = 400;

/// A number from the environment, decimal or `0x` hex.
fn env_number(name: &str) -> Option<u64> {
    let text = std::env::var(name).ok()?;
    let text = text.trim();
    let parsed = match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => text.parse(),
    };
    Some(parsed.unwrap_or_else(|_| panic!("{name}={text:?} is not a number")))
}

impl Mixed {
    /// Plays acts until the game is over.
    async fn play(&mut self) {
        loop {
            let look = self.look().await;
            if look.over {
                return;
            }
            if self.acts >= MOST_ACTS {
                self.abandon(&look).await;
                continue;
            }
            self.acts += 1;
            let some = |yes: bool, w: u64| if yes { w } else { 0 };
            let weights = [
                (60, "command"),
                (10, "read"),
                (8, "talk"),
                (1 + some(!self.messages.is_empty(), 2), "hide"),
                (3, "undo"),
                (1 + some(self.pending_undo, 7), "vote"),
                (2, "rollback"),
                (2, "hand over"),
                (1 + some(look.handed.contains(&true), 5), "reclaim"),
                (2, "reissue"),
                (some(look.deadline.is_some(), 3), "time out"),
                (some(look.deadline.is_some(), 6), "wait"),
                (4, "view"),
                (some(!self.keyed.is_empty(), 2), "retry"),
                (some(!self.keyed.is_empty(), 1), "reuse key"),
                (some(!self.revoked.is_empty(), 2), "revoked"),
                (2, "replay a signature"),
                (1, "cancel"),
            ];
            match self.rng.weighted(&weights, "view") {
                "command" => self.command(&look).await,
                "read" => self.think(&look).await,
                "talk" => self.talk(&look).await,
                "hide" => self.hide(&look).await,
                "undo" => self.undo(&look).await,
                "vote" => self.vote(&look).await,
                "rollback" => self.rollback(&look).await,
                "hand over" => self.hand_over(&look).await,
                "reclaim" => self.reclaim(&look).await,
                "reissue" => self.reissue(&look).await,
                "time out" => self.time_out(&look).await,
                "wait" => self.wait(&look),
                "retry" => self.retry_later().await,
                "reuse key" => self.reuse_key(&look).await,
                "revoked" => self.probe_revoked(&look).await,
                "replay a signature" => self.replay_signature(&look).await,
                "cancel" => self.cancel(&look).await,
                _ => self.view(&look).await,
            }
        }
    }
}

/// A chain of games from `seed`: a game, then, while `budget` allows and the dice say so, its
/// rematches. Counts the games finished in `played`; returns the tally of acts.
async fn chain(
    app: Arc<TestApp>,
    time: TimeSource,
    seed: u64,
    budget: usize,
    played: Arc<AtomicUsize>,
) -> BTreeMap<String, usize> {
    let mut game = Mixed::create(app, time, Rng(seed)).await;
    let mut tally = BTreeMap::new();
    loop {
        game.play().await;
        game.finish().await;
        let accepted = game.tally.get("command 200").copied().unwrap_or(0);
        game.check(accepted > 0, || {
            format!("no player's command: {:?}", game.tally)
        });
        println!(
            "mixed: seed {seed:#018x}, game {} ({}): {} acts, {} receipts checked in {:?}",
            played.load(Ordering::SeqCst) + 1,
            game.settings,
            game.acts,
            game.kept.len(),
            game.checking,
        );
        for (k, v) in &game.tally {
            *tally.entry(k.clone()).or_default() += v;
        }
        if played.fetch_add(1, Ordering::SeqCst) + 1 >= budget || !game.rng.chance(40) {
            return tally;
        }
        game = game.rematch().await;
    }
}

/// Plays `SABOTEUR_MIXED_GAMES` (or `default`) games on one server with a manual clock.
async fn mixed(database_url: String, keep: Option<tempfile::TempDir>, default: usize, salt: u64) {
    let games = env_number("SABOTEUR_MIXED_GAMES").map_or(default, |n| n as usize);
    let mut seed = env_number("SABOTEUR_MIXED_SEED").unwrap_or(0x5AB0_7E0B ^ salt);
    let time = TimeSource::manual(T0);
    let app = Arc::new(TestApp::spawn_at(database_url, keep, time.clone()).await);
    let played = Arc::new(AtomicUsize::new(0));
    let mut seeds = Rng(seed);
    let mut tally: BTreeMap<String, usize> = BTreeMap::new();
    while played.load(Ordering::SeqCst) < games {
        let before = played.load(Ordering::SeqCst);
        let run = chain(app.clone(), time.clone(), seed, games, played.clone());
        match tokio::spawn(run).await {
            Ok(t) => t
                .into_iter()
                .for_each(|(k, v)| *tally.entry(k).or_default() += v),
            Err(e) => {
                let n = played.load(Ordering::SeqCst) - before + 1;
                let payload = e.into_panic();
                let message = (payload.downcast_ref::<String>().cloned())
                    .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                panic!(
                    "mixed game {n} of the chain with seed {seed:#018x} failed (again: \
                     SABOTEUR_MIXED_SEED={seed:#x} SABOTEUR_MIXED_GAMES={n}; a rematch's deal is \
                     the server's own draw): {message}"
                );
            }
        }
        seed = seeds.next();
    }
    println!("mixed: {games} games: {tally:?}");
    for act in [
        "command 200",
        "talk 200",
        "reissue 200",
        "replay 200",
        "signatures",
    ] {
        assert!(
            games < 3 || tally.get(act).is_some_and(|n| *n > 0),
            "never {act} in {games} games: {tally:?}"
        );
    }
}

#[tokio::test]
async fn sqlite_mixed_acts() {
    let dir = tempfile::tempdir().unwrap();
    let url = sqlite_url(&dir, "mixed.db");
    mixed(url, Some(dir), 8, 0).await;
}

#[tokio::test]
async fn postgres_mixed_acts() {
    mixed(postgres_url().await, None, 3, 0x9E37_79B9).await;
}
