//! Bot-only games at full speed, and their statistics: how often each side and each bot level
//! wins. Pure like the rest of the crate: the caller times the runs.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::bot::{BOT_VERSION, BotLevel, bot_game};
use crate::cards::{Role, Ruleset};
use crate::event::Event;
use crate::game::{Game, Options};
use crate::random::Seed;
use crate::seat::Seat;

/// Which bot plays each seat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Seating {
    /// Seat `i` plays at level `levels[i % levels.len()]` all game, whatever its dwarf card.
    PerSeat(Vec<BotLevel>),
    /// The level follows the seat's dwarf card at each decision: saboteurs one level, every
    /// other card the other. For strength measurements.
    ByRole {
        /// The level of every seat not holding a saboteur card.
        diggers: BotLevel,
        /// The level of every seat holding a saboteur card.
        saboteurs: BotLevel,
    },
}

impl Seating {
    /// The level of `seat` holding `role` (`None`: the role is not known yet).
    pub fn level(&self, seat: usize, role: Option<Role>) -> BotLevel {
        match self {
            Seating::PerSeat(levels) if levels.is_empty() => BotLevel::Random,
            Seating::PerSeat(levels) => levels[seat % levels.len()],
            Seating::ByRole { saboteurs, .. } if role == Some(Role::Saboteur) => *saboteurs,
            Seating::ByRole { diggers, .. } => *diggers,
        }
    }
}

/// A series of bot-only games: game `i` is played by `players` seats (or, when it is 0, the
/// `i`-th count of the ruleset's range, cycling) from seed `seed + i`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Simulation {
    /// The rules played.
    pub ruleset: Ruleset,
    /// Rule variants.
    pub options: Options,
    /// Seats per game; 0 cycles over every count the ruleset allows.
    pub players: u8,
    /// How many games.
    pub games: u64,
    /// The first game's seed.
    pub seed: u64,
    /// Who plays each seat.
    pub seating: Seating,
}

impl Simulation {
    /// The number of seats of game `i`.
    pub fn players_of(&self, i: u64) -> u8 {
        let (min, max) = match self.ruleset {
            Ruleset::Base => (3u8, 10u8),
            Ruleset::Saboteur2 => (2, 12),
        };
        if self.players == 0 {
            min + (i % u64::from(max - min + 1)) as u8
        } else {
            self.players
        }
    }

    /// Plays game `i` to its end: its whole log (empty when the player count does not suit
    /// the ruleset).
    pub fn play(&self, i: u64) -> Vec<Event> {
        bot_game(
            self.ruleset,
            self.options,
            self.players_of(i),
            Seed::from_u64(self.seed.wrapping_add(i)),
            |game: &Game, seat: Seat| {
                self.seating
                    .level(seat.index(), game.roles.get(seat.index()).copied())
            },
        )
    }

    /// The statistics of the played logs (one per game, in order).
    pub fn statistics(&self, logs: &[Vec<Event>]) -> Statistics {
        let mut t = Tally::default();
        for log in logs {
            t.game(self, log);
        }
        let rate = |(held, won): (u64, u64)| won as f64 / held.max(1) as f64;
        let rounds = t.rounds.max(1) as f64;
        Statistics {
            games: logs.len() as u64,
            finished_games: t.finished,
            bot_version: BOT_VERSION,
            rounds: t.rounds,
            events: t.events,
            events_per_game: t.events as f64 / logs.len().max(1) as f64,
            gold_reached_round_rate: t.reached as f64 / rounds,
            gold_digger_round_win_rate: t.digger_wins as f64 / rounds,
            saboteur_round_win_rate: rate(t.saboteur_rounds),
            role_round_win_rate: t.roles.iter().map(|(k, v)| (*k, rate(*v))).collect(),
            level_round_win_rate: t.levels.iter().map(|(k, v)| (*k, rate(*v))).collect(),
            level_side_round_win_rate: t
                .level_side
                .iter()
                .map(|((level, side), v)| (format!("{level}/{side}"), rate(*v)))
                .collect(),
            level_game_win_share: t
                .game_wins
                .iter()
                .map(|(l, (seats, share))| (*l, share / (*seats).max(1) as f64))
                .collect(),
        }
    }
}

/// What a series of games came to.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Statistics {
    /// Games played.
    pub games: u64,
    /// Games played to their end (three rounds).
    pub finished_games: u64,
    /// The bots' [`BOT_VERSION`].
    pub bot_version: u32,
    /// Rounds played.
    pub rounds: u64,
    /// Events recorded, commands included.
    pub events: u64,
    /// Events per game.
    pub events_per_game: f64,
    /// Share of rounds in which the gold was reached.
    pub gold_reached_round_rate: f64,
    /// Share of rounds the gold-diggers (team diggers included) won.
    pub gold_digger_round_win_rate: f64,
    /// Share of rounds with a saboteur dealt that a saboteur won.
    pub saboteur_round_win_rate: f64,
    /// Per dwarf card: the share of the rounds it was dealt in which its holder won.
    pub role_round_win_rate: BTreeMap<Role, f64>,
    /// Per bot level: the share of rounds its seats won.
    pub level_round_win_rate: BTreeMap<BotLevel, f64>,
    /// Per `level/side` (`saboteur` or `digger_side`, every other card): the share of rounds
    /// won.
    pub level_side_round_win_rate: BTreeMap<String, f64>,
    /// Per bot level, with [`Seating::PerSeat`]: the share of game wins per seat (a win shared
    /// by `k` seats counts `1/k` for each).
    pub level_game_win_share: BTreeMap<BotLevel, f64>,
}

/// (rounds held, rounds won)
type Held = (u64, u64);

#[derive(Default)]
struct Tally {
    finished: u64,
    rounds: u64,
    events: u64,
    reached: u64,
    digger_wins: u64,
    saboteur_rounds: Held,
    roles: BTreeMap<Role, Held>,
    levels: BTreeMap<BotLevel, Held>,
    level_side: BTreeMap<(BotLevel, &'static str), Held>,
    game_wins: BTreeMap<BotLevel, (u64, f64)>,
}

fn count(entry: &mut Held, won: bool) {
    entry.0 += 1;
    entry.1 += u64::from(won);
}

impl Tally {
    fn game(&mut self, sim: &Simulation, log: &[Event]) {
        let is_digger =
            |r: &Role| matches!(r, Role::GoldDigger | Role::GreenDigger | Role::BlueDigger);
        self.events += log.len() as u64;
        for e in log {
            match e {
                Event::RoundEnded {
                    gold_reached_by,
                    roles,
                    winners,
                    ..
                } => {
                    self.rounds += 1;
                    self.reached += u64::from(gold_reached_by.is_some());
                    let digger_won = winners.iter().any(|s| is_digger(&roles[s.index()]));
                    if gold_reached_by.is_some() && digger_won {
                        self.digger_wins += 1;
                    }
                    if roles.contains(&Role::Saboteur) {
                        let won = winners.iter().any(|s| roles[s.index()] == Role::Saboteur);
                        count(&mut self.saboteur_rounds, won);
                    }
                    for (i, role) in roles.iter().enumerate() {
                        let won = winners.iter().any(|s| s.index() == i);
                        let level = sim.seating.level(i, Some(*role));
                        let side = if *role == Role::Saboteur {
                            "saboteur"
                        } else {
                            "digger_side"
                        };
                        count(self.roles.entry(*role).or_default(), won);
                        count(self.levels.entry(level).or_default(), won);
                        count(self.level_side.entry((level, side)).or_default(), won);
                    }
                }
                Event::GameEnded { winners, .. } => {
                    self.finished += 1;
                    if let Seating::PerSeat(_) = sim.seating {
                        let seats = log
                            .first()
                            .and_then(Game::from_created)
                            .map_or(0, |g| g.n());
                        for s in 0..seats {
                            let entry = self
                                .game_wins
                                .entry(sim.seating.level(s, None))
                                .or_default();
                            entry.0 += 1;
                            if winners.iter().any(|w| w.index() == s) {
                                entry.1 += 1.0 / winners.len() as f64;
                            }
                        }
                    }
                }
                _ => {}
            }
        }
    }
}
