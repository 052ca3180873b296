//! Bot-only games at full speed, and their statistics: how often each side and each bot level
//! wins. Pure like the rest of the crate: the caller times the runs.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::bot::{BOT_VERSION, BotLevel, played_game};
use crate::cards::{Role, Ruleset};
use crate::event::Event;
use crate::game::{Game, Options};
use crate::history::History;
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
    /// One seat plays at one level all game, every other seat at another: what one bot earns
    /// at a table of others (compare with the same seed and `level` = `others`).
    OneSeat {
        /// The seat played at `level`.
        seat: u8,
        /// Its level.
        level: BotLevel,
        /// Every other seat's level.
        others: BotLevel,
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
            Seating::OneSeat {
                seat: s,
                level,
                others,
            } => {
                if usize::from(*s) == seat {
                    *level
                } else {
                    *others
                }
            }
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
        self.play_with(i, |history, seat, level| history.execute_bot(seat, level))
    }

    /// As [`Simulation::play`], each decision's events made by `act(history, seat, level)`,
    /// `level` being the one the seating gives the seat (a measurement may play some levels
    /// its own way); the game stops when `act` gives `None`.
    pub fn play_with(
        &self,
        i: u64,
        mut act: impl FnMut(&History, Seat, BotLevel) -> Option<Vec<Event>>,
    ) -> Vec<Event> {
        played_game(
            self.ruleset,
            self.options,
            self.players_of(i),
            Seed::from_u64(self.seed.wrapping_add(i)),
            |history, seat| {
                let roles = &history.game().roles;
                let level = self
                    .seating
                    .level(seat.index(), roles.get(seat.index()).copied());
                act(history, seat, level)
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
            role_round_gold: t
                .role_gold
                .iter()
                .map(|(k, (held, gold))| (*k, *gold as f64 / (*held).max(1) as f64))
                .collect(),
            level_role_round_gold: t
                .level_role_gold
                .iter()
                .map(|((level, role), (held, gold))| {
                    (
                        format!("{level}/{}", role_name(*role)),
                        *gold as f64 / (*held).max(1) as f64,
                    )
                })
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
    /// Per dwarf card: the gold (base: nuggets; `saboteur2`: coins, crystals and thefts
    /// included) its holder earned per round it was dealt — the win measure of every card,
    /// the geologist's, the profiteer's and the boss's included.
    pub role_round_gold: BTreeMap<Role, f64>,
    /// Per `level/card`: the gold earned per round by seats of that level holding that card.
    pub level_role_round_gold: BTreeMap<String, f64>,
}

/// A dwarf card's name as in JSON.
fn role_name(role: Role) -> &'static str {
    match role {
        Role::GoldDigger => "gold_digger",
        Role::Saboteur => "saboteur",
        Role::GreenDigger => "green_digger",
        Role::BlueDigger => "blue_digger",
        Role::Boss => "boss",
        Role::Geologist => "geologist",
        Role::Profiteer => "profiteer",
    }
}

/// One finished round of a log: who held which card, who won, and what each seat earned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RoundFigures {
    /// Every seat's dwarf card.
    pub roles: Vec<Role>,
    /// The seats that won the round.
    pub winners: Vec<Seat>,
    /// Whether the gold was reached.
    pub gold_reached: bool,
    /// The gold each seat gained from this round's start to the next one's (or the game's
    /// end): nuggets in the base game; coins in `saboteur2`, crystals included, net of thefts
    /// (so it may be negative).
    pub gold: Vec<i64>,
}

impl RoundFigures {
    /// Whether a saboteur card was dealt this round.
    pub fn has_saboteur(&self) -> bool {
        self.roles.contains(&Role::Saboteur)
    }

    /// Whether a seat on the diggers' side (gold-diggers and team diggers) won.
    pub fn diggers_won(&self) -> bool {
        self.gold_reached
            && self.winners.iter().any(|w| {
                matches!(
                    self.roles[w.index()],
                    Role::GoldDigger | Role::GreenDigger | Role::BlueDigger
                )
            })
    }

    /// Whether a saboteur won.
    pub fn saboteurs_won(&self) -> bool {
        self.winners
            .iter()
            .any(|w| self.roles[w.index()] == Role::Saboteur)
    }
}

/// The rounds of a log, in order, as [`RoundFigures`] (rounds not finished are left out).
pub fn rounds(log: &[Event]) -> Vec<RoundFigures> {
    let Some(mut game) = log.first().and_then(Game::from_created) else {
        return Vec::new();
    };
    let mut out: Vec<RoundFigures> = Vec::new();
    let mut at_start: Vec<u32> = game.gold().to_vec();
    let mut open: Option<RoundFigures> = None;
    let mut close = |open: &mut Option<RoundFigures>, game: &Game, at_start: &mut Vec<u32>| {
        if let Some(mut r) = open.take() {
            r.gold = game
                .gold()
                .iter()
                .zip(at_start.iter())
                .map(|(now, then)| i64::from(*now) - i64::from(*then))
                .collect();
            out.push(r);
        }
        *at_start = game.gold().to_vec();
    };
    for e in &log[1..] {
        if let Event::RoundStarted { .. } = e {
            close(&mut open, &game, &mut at_start);
        }
        game.apply(e);
        match e {
            Event::RoundEnded {
                gold_reached_by,
                roles,
                winners,
                ..
            } => {
                open = Some(RoundFigures {
                    roles: roles.clone(),
                    winners: winners.clone(),
                    gold_reached: gold_reached_by.is_some(),
                    gold: Vec::new(),
                });
            }
            Event::GameEnded { .. } => close(&mut open, &game, &mut at_start),
            _ => {}
        }
    }
    out
}

/// A mean with its 95 % confidence interval (normal approximation): `mean ± half_width`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Estimate {
    /// The mean.
    pub mean: f64,
    /// Half the width of the 95 % confidence interval.
    pub half_width: f64,
    /// How many samples.
    pub samples: u64,
}

impl Estimate {
    /// The mean of `samples` and its 95 % confidence interval.
    pub fn of(samples: &[f64]) -> Estimate {
        let n = samples.len() as f64;
        if samples.is_empty() {
            return Estimate {
                mean: 0.0,
                half_width: 0.0,
                samples: 0,
            };
        }
        let mean = samples.iter().sum::<f64>() / n;
        let var = if samples.len() > 1 {
            samples.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)
        } else {
            0.0
        };
        Estimate {
            mean,
            half_width: 1.96 * (var / n).sqrt(),
            samples: samples.len() as u64,
        }
    }

    /// The mean of the differences `b[i] - a[i]` of paired samples and its interval: luck
    /// shared by a pair (the same deal) cancels.
    pub fn paired(a: &[f64], b: &[f64]) -> Estimate {
        let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| y - x).collect();
        Estimate::of(&d)
    }
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
    /// (rounds held, gold gained)
    role_gold: BTreeMap<Role, (u64, i64)>,
    level_role_gold: BTreeMap<(BotLevel, Role), (u64, i64)>,
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
        for r in rounds(log) {
            for (i, (role, gold)) in r.roles.iter().zip(&r.gold).enumerate() {
                let level = sim.seating.level(i, Some(*role));
                for entry in [
                    self.role_gold.entry(*role).or_default(),
                    self.level_role_gold.entry((level, *role)).or_default(),
                ] {
                    entry.0 += 1;
                    entry.1 += *gold;
                }
            }
        }
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
