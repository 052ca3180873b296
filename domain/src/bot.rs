//! Computer players ("bots"). A bot is a pure function of what its seat may see — the seat's
//! [`View`] — and a seeded generator: it never reads the omniscient [`Game`]. Three levels:
//!
//! - [`BotLevel::Random`]: a legal command drawn uniformly ([`random_command`]);
//! - [`BotLevel::Heuristic`]: plays its dwarf card's side with simple beliefs about the other
//!   seats, taken from their public [`crate::Conduct`] counters (see `bot/heuristic.rs`);
//! - [`BotLevel::Expert`]: a search over deals sampled from the view, played out through the
//!   real engine ([`expert`]).
//!
//! [`choose`] is the entry point: level, view and a 64-bit seed in, command out. Running it
//! again on a recorded view and seed gives the recorded command, for the same
//! [`BOT_VERSION`]; [`choose_as`] runs the logic of any older version still in
//! [`BOT_VERSIONS`], as the audit of a stored game does.
//!
//! To list legal moves from a view, [`rebuild`] turns it back into a playable [`Game`] with
//! placeholders for what the seat cannot know; [`legal_commands`] on it equals
//! [`legal_commands`] on the real game for the awaited seat (a property test checks this).

pub mod expert;
mod heuristic;
mod placeholder;
mod seeds;

pub use placeholder::{UNKNOWN_CARD, rebuild};
pub use seeds::{decision_rng, decision_seed};

use rand_core::Rng;

use crate::cards::Ruleset;
use crate::command::Command;
use crate::decide::create;
use crate::event::Event;
use crate::game::{Game, Options};
use crate::history::History;
use crate::legal::legal_commands;
use crate::random::{Seed, below};
use crate::seat::Seat;
use crate::view::View;

pub use crate::event::{BOT_VERSION, BotLevel, BotMove};

/// The command a bot of `level` issues for the seat of `view`, with its generator seeded by
/// `seed`; `None` when the view is not a seat's or the game does not await that seat.
/// Deterministic: the same level, view and seed give the same command.
pub fn choose(level: BotLevel, view: &View, seed: u64) -> Option<Command> {
    choose_with(level, view, &mut decision_rng(seed))
}

/// As [`choose`], drawing from a generator the caller owns.
pub fn choose_with(level: BotLevel, view: &View, rng: &mut impl Rng) -> Option<Command> {
    choose_as(BOT_VERSION, level, view, rng)
}

/// Every [`BOT_VERSION`] this build can run again: the audit of a stored game chooses each bot
/// move with the logic of the version that recorded it.
pub const BOT_VERSIONS: std::ops::RangeInclusive<u32> = 1..=BOT_VERSION;

/// As [`choose_with`], with the logic of [`BOT_VERSION`] `version` (see [`BOT_VERSIONS`]);
/// `None` for a version this build cannot run. The random and heuristic levels are the same in
/// every version; the expert's versions are its [`expert::Tuning`]s.
pub fn choose_as(
    version: u32,
    level: BotLevel,
    view: &View,
    rng: &mut impl Rng,
) -> Option<Command> {
    if !BOT_VERSIONS.contains(&version) {
        return None;
    }
    match level {
        BotLevel::Random => random_command(view, rng),
        BotLevel::Heuristic => heuristic::command(view, rng),
        BotLevel::Expert => expert::command(version, view, rng),
    }
}

/// A legal command for the seat of `view` drawn uniformly, or `None` when it is not their
/// decision (or the view is not a seat's).
pub fn random_command(view: &View, rng: &mut impl Rng) -> Option<Command> {
    let seat = view.seat?;
    if view.phase.awaited != Some(seat) {
        return None;
    }
    let mut moves = legal_commands(&rebuild(view), seat);
    if moves.is_empty() {
        return None;
    }
    Some(moves.swap_remove(below(rng, moves.len())))
}

/// A whole game played by random bots: the complete event log, as [`bot_game`] records it.
pub fn random_game(ruleset: Ruleset, options: Options, players: u8, seed: Seed) -> Vec<Event> {
    bot_game(ruleset, options, players, seed, |_, _| BotLevel::Random)
}

/// A whole game in which each seat's level is picked by `level(game, seat)` at every decision
/// (the caller may look at the whole game, e.g. to seat bots by role for a strength
/// measurement; the bot itself sees only its seat's view). Recorded as a server records it:
/// each command through [`History::execute_bot`], with its [`BotMove`], so the log passes
/// [`crate::audit()`]. The first player is drawn from the seed; the log is a function of the
/// arguments. Empty when `players` does not suit the ruleset.
pub fn bot_game(
    ruleset: Ruleset,
    options: Options,
    players: u8,
    seed: Seed,
    mut level: impl FnMut(&Game, Seat) -> BotLevel,
) -> Vec<Event> {
    played_game(ruleset, options, players, seed, |history, seat| {
        let seating = seated(history, seat, &mut level);
        if !seating.is_empty() {
            return Some(seating);
        }
        history.execute_bot(seat, level(history.game(), seat))
    })
}

/// What the record must say before a bot plays `seat` at the level `level` gives it, one step
/// at a time (record version 2, as a server records it): every seat given to its bot right
/// after the deal; a seat whose level changed (a level picked by role) taken back and handed
/// to the new level. Empty when the record already says so, or under record version 1.
fn seated(
    history: &History,
    seat: Seat,
    level: &mut impl FnMut(&Game, Seat) -> BotLevel,
) -> Vec<Event> {
    if !history.records_bots() {
        return Vec::new();
    }
    let game = history.game();
    let seated = history
        .log()
        .iter()
        .any(|e| matches!(e, Event::SeatHandedToBot { .. }));
    if !seated {
        let all: Vec<(Seat, BotLevel)> = (0..game.players())
            .map(|s| (Seat(s), level(game, Seat(s))))
            .collect();
        return history.seat_lobby_bots(&all).unwrap_or_default();
    }
    let wanted = level(game, seat);
    match history.handed_to(seat) {
        Some(now) if now == wanted => Vec::new(),
        Some(_) => history.reclaim_seat(seat).unwrap_or_default(),
        None => history.hand_to_bot(seat, wanted).unwrap_or_default(),
    }
}

/// A whole game whose every decision is made by `act(history, seat)`: the events of the
/// awaited seat's command, or `None` to stop there. [`bot_game`] is this with the bots; a
/// measurement may choose some seats' commands its own way (the strength bench's search told
/// part of the hidden state). The first player is drawn from the seed. Empty when `players`
/// does not suit the ruleset.
pub fn played_game(
    ruleset: Ruleset,
    options: Options,
    players: u8,
    seed: Seed,
    mut act: impl FnMut(&History, Seat) -> Option<Vec<Event>>,
) -> Vec<Event> {
    let first = Seat(seed.0[0] % players.max(1));
    let Some(mut history) = create(ruleset, options, players, first, seed)
        .ok()
        .and_then(History::new)
    else {
        return Vec::new();
    };
    let Ok(dealt) = history.start() else {
        return history.log().to_vec();
    };
    dealt.into_iter().for_each(|e| history.push(e));
    while let Some(seat) = history.game().awaited() {
        let Some(events) = act(&history, seat) else {
            break;
        };
        events.into_iter().for_each(|e| history.push(e));
    }
    history.log().to_vec()
}

/// The generator random bots draw from in [`random_game`].
pub fn bot_rng(seed: Seed) -> rand_chacha::ChaCha20Rng {
    let mut rng = seed.round_rng(0);
    rng.set_stream(1000);
    rng
}

impl History {
    /// Lets a bot of `level` play for `seat` now: its command (chosen from the seat's view with
    /// [`crate::bot::decision_seed`] of this version) and the events it causes, the command
    /// recorded with its [`BotMove`]. `None` when the game does not await that seat.
    pub fn execute_bot(&self, seat: Seat, level: BotLevel) -> Option<Vec<Event>> {
        self.execute_bot_as(seat, level, BOT_VERSION)
    }

    /// As [`History::execute_bot`], with the logic of [`BOT_VERSION`] `version` (the audit
    /// deciding a timeout again as it was recorded); `None` also for a version this build
    /// cannot run.
    pub fn execute_bot_as(&self, seat: Seat, level: BotLevel, version: u32) -> Option<Vec<Event>> {
        let turn = self.bot_turn_as(seat, level, version);
        let command = turn.think()?;
        self.play_bot_turn(&turn, &command)
    }

    /// The decision a bot of `level` would make for `seat` now, as a [`BotTurn`]: everything
    /// the choice depends on, owned, so that it can be thought over apart from the history
    /// (on another thread) and played back with [`History::play_bot_turn`]. The same
    /// decision as [`History::execute_bot`], split in two.
    pub fn bot_turn(&self, seat: Seat, level: BotLevel) -> BotTurn {
        self.bot_turn_as(seat, level, BOT_VERSION)
    }

    fn bot_turn_as(&self, seat: Seat, level: BotLevel, version: u32) -> BotTurn {
        BotTurn {
            seat,
            level,
            bot_version: version,
            at: self.version(),
            seed: decision_seed(&self.game().seed, self.version()),
            view: crate::view::view(self.game(), crate::view::Audience::Seat(seat)),
        }
    }

    /// The events of the command a [`BotTurn`] chose, recorded with its [`BotMove`]: `None`
    /// when the history is no longer at the turn's version (its seed and view were of another
    /// moment), or the game does not accept the command from the turn's seat.
    pub fn play_bot_turn(&self, turn: &BotTurn, command: &Command) -> Option<Vec<Event>> {
        if self.version() != turn.at {
            return None;
        }
        let bot = BotMove {
            version: turn.bot_version,
            ..BotMove::new(turn.level, turn.seed)
        };
        self.execute_as(turn.seat, command, Some(bot)).ok()
    }
}

/// A bot's decision to be made, taken out of its [`History`] by [`History::bot_turn`]: the
/// seat's view, the decision's seed and the logic's version. [`BotTurn::think`] is the whole
/// cost of a bot's move (an expert's search above all) and needs nothing else, so a server
/// can run it where it schedules its CPU; the result is played with
/// [`History::play_bot_turn`].
#[derive(Debug, Clone)]
pub struct BotTurn {
    seat: Seat,
    level: BotLevel,
    bot_version: u32,
    /// The history's version the turn was taken at (the seed is derived from it).
    at: u64,
    seed: u64,
    view: View,
}

impl BotTurn {
    /// The seat the bot plays.
    pub fn seat(&self) -> Seat {
        self.seat
    }

    /// The bot's level.
    pub fn level(&self) -> BotLevel {
        self.level
    }

    /// The command the bot chooses: a pure function of the turn (the same turn always chooses
    /// the same command). `None` when its logic's version is not in this build, or it finds
    /// no legal command.
    pub fn think(&self) -> Option<Command> {
        choose_as(
            self.bot_version,
            self.level,
            &self.view,
            &mut decision_rng(self.seed),
        )
    }
}
