//! Post-game analysis: for each move a seat made in a finished game, the command the expert
//! bot would have chosen from that seat's view, and how much the move played cost by the
//! expert's own estimate.
//!
//! A pure function of the record ([`analyse`]): no clock, no generator but the decisions' own.
//! Each suggestion is exactly the command an expert seated there would have chosen at that
//! version — [`History::bot_turn`] with [`BotLevel::Expert`], thought over: the seat's view
//! ([`crate::view()`] for [`Audience::Seat`]), the generator of [`decision_seed`] at the version
//! before the command, this build's [`BOT_VERSION`] — and the command played is valued by the
//! same search, on the same sampled worlds and rollout generators, beside the candidates
//! ([`expert::appraise`]).
//!
//! Which moves: the seat's commands while the round is played ([`Phase::Playing`]) that
//! stand in the final record — a command later undone (by the player, a vote or the host's
//! rollback) is not one of the game's moves and is left out, as replaying the log leaves it
//! out. Choosing gold and stealing are not listed: the expert does not search them (the
//! heuristic decides them), so there is nothing to weigh. A move a bot made for the seat (a
//! turn timed out, a seat handed to a bot) is listed, marked with the bot's level.
//!
//! Refused while the game is being played ([`AnalysisError::NotOver`]), so that nobody gets the
//! expert's help during a game.

use serde::{Deserialize, Serialize};

use crate::bot::expert::{self, Tuning};
use crate::bot::{BOT_VERSION, BotLevel, decision_rng, decision_seed};
use crate::cards::Ruleset;
use crate::command::Command;
use crate::event::{Event, HandOver};
use crate::game::{Game, Phase};
use crate::history::History;
use crate::seat::Seat;
use crate::view::{Audience, view};

/// Why a game cannot be analysed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnalysisError {
    /// The game is not over (still played, or never started): no analysis during play.
    #[error("the game is not over: it is analysed once it has ended")]
    NotOver,
    /// The game has no such seat.
    #[error("the game has no {0}")]
    NoSuchSeat(Seat),
    /// The record hides a command of the seat (a log redacted for an audience, not the
    /// store's): the analysis needs the whole record.
    #[error("the command recorded at version {0} is hidden: the analysis needs the whole record")]
    CommandHidden(u64),
    /// The expert found no command for the seat where the record has one (a record the engine
    /// did not decide).
    #[error("the expert finds no command where the record has one, at version {0}")]
    NoSuggestion(u64),
}

impl AnalysisError {
    /// Every stable code an analysis may be refused with, in the order of the variants.
    pub const CODES: &'static [&'static str] = &[
        "game_not_over",
        "no_such_seat",
        "command_hidden",
        "no_suggestion",
    ];

    /// The stable code of the refusal (one of [`AnalysisError::CODES`]).
    pub fn code(&self) -> &'static str {
        match self {
            AnalysisError::NotOver => "game_not_over",
            AnalysisError::NoSuchSeat(_) => "no_such_seat",
            AnalysisError::CommandHidden(_) => "command_hidden",
            AnalysisError::NoSuggestion(_) => "no_suggestion",
        }
    }
}

/// What a cost and a value count, by ruleset: what the expert's search values a move by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum CostUnit {
    /// The base game: the chance of winning the round (from 0 to 1); the base game's gold is
    /// shared among the winners by cards, which the search does not value.
    RoundWon,
    /// Saboteur 2: coins the round pays the seat (§10.2).
    Coin,
}

impl CostUnit {
    /// The unit of `ruleset`.
    pub fn of(ruleset: Ruleset) -> CostUnit {
        match ruleset {
            Ruleset::Base => CostUnit::RoundWon,
            Ruleset::Saboteur2 => CostUnit::Coin,
        }
    }

    /// How many of this unit one unit of the search's own scale is: the search values a
    /// Saboteur 2 round in fifths of its coins.
    fn per_search_unit(self) -> f64 {
        match self {
            CostUnit::RoundWon => 1.0,
            CostUnit::Coin => 5.0,
        }
    }
}

/// The analysis of one seat's moves in a finished game ([`analyse`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct Analysis {
    /// The seat analysed.
    pub seat: Seat,
    /// The [`BOT_VERSION`] of the expert that suggested and judged (this build's).
    pub bot_version: u32,
    /// What every cost and value counts.
    pub unit: CostUnit,
    /// The seat's moves while playing that stand in the final record, in order.
    pub decisions: Vec<Decision>,
}

/// One move of the seat, what the expert would have played there and what the move cost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct Decision {
    /// The history's version at which the seat decided: right before its command's event
    /// (after a timeout's `turn_timed_out`, if any). The expert's generator is this version's.
    pub version: u64,
    /// The round.
    pub round: u8,
    /// The command played, as recorded.
    pub played: Command,
    /// The command the expert would have chosen from the seat's view at that version (in
    /// canonical form).
    pub suggested: Command,
    /// How much the command played is worth less than the suggestion, per sampled world, in
    /// the analysis's [`CostUnit`]; never below 0 (the suggestion may be kept by the expert's
    /// margin over a command the search valued higher); 0 when the command played is the
    /// suggestion (in canonical form) or was not weighed (`worlds` 0).
    pub cost: f64,
    /// The sampled worlds both commands were valued in; 0 when the expert did not search (a
    /// single legal command).
    pub worlds: usize,
    /// The suggestion's mean value over those worlds, in the analysis's [`CostUnit`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggested_value: Option<f64>,
    /// The command played's mean value over the same worlds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub played_value: Option<f64>,
    /// When a bot chose the command for the seat, as the record says: its level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by_bot: Option<BotLevel>,
    /// Whether the command was the timeout bot's, after the seat ran out of time.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub timed_out: bool,
}

impl Analysis {
    /// The sum of the decisions' costs.
    pub fn total_cost(&self) -> f64 {
        self.decisions.iter().map(|d| d.cost).sum()
    }
}

/// The analysis of `seat`'s moves in the finished game of `history`: each of its commands while
/// playing that stands in the final record, with the expert's suggestion from the seat's view
/// at that version and the cost of the command played. A function of the record and this
/// build's expert: the same history gives the same analysis. Refused while the game is not
/// over, for a seat the game does not have, and for a record whose commands are hidden.
pub fn analyse(history: &History, seat: Seat) -> Result<Analysis, AnalysisError> {
    let last = history.game();
    if last.phase != Phase::GameOver {
        return Err(AnalysisError::NotOver);
    }
    if seat.index() >= last.n() {
        return Err(AnalysisError::NoSuchSeat(seat));
    }
    let tuning = Tuning::of(BOT_VERSION).expect("this build runs its own expert");
    let unit = CostUnit::of(last.ruleset);
    let log = history.log();
    // The events that stand, in order: the state before each is the state at the version
    // before it, undone events skipped (the path of that version is a prefix of this one).
    let path = history.path(history.version());
    let mut game = Game::from_created(&log[path[0]]).expect("a history holds its creation");
    let mut decisions = Vec::new();
    for &i in &path[1..] {
        if let Event::CommandAccepted {
            seat: s,
            command,
            bot,
            ..
        } = &log[i]
            && *s == seat
            && game.phase == Phase::Playing
        {
            let version = i as u64;
            let played = command
                .known()
                .ok_or(AnalysisError::CommandHidden(version))?;
            let mut decision = judge(&game, seat, version, played, tuning, unit)?;
            decision.by_bot = bot.map(|b| b.level);
            decision.timed_out = i > 0 && timed_out(&log[i - 1]);
            decisions.push(decision);
        }
        game.apply(&log[i]);
    }
    Ok(Analysis {
        seat,
        bot_version: BOT_VERSION,
        unit,
        decisions,
    })
}

/// Whether the event before a command shows it was the timeout bot's.
fn timed_out(before: &Event) -> bool {
    matches!(
        before,
        Event::TurnTimedOut { .. }
            | Event::SeatHandedToBot {
                reason: HandOver::Abandoned,
                ..
            }
    )
}

/// The expert's suggestion for `seat` in `game` at `version` and its judgement of `played`.
fn judge(
    game: &Game,
    seat: Seat,
    version: u64,
    played: &Command,
    tuning: Tuning,
    unit: CostUnit,
) -> Result<Decision, AnalysisError> {
    let seen = view(game, Audience::Seat(seat));
    let mut rng = decision_rng(decision_seed(&game.seed, version));
    let appraisal = expert::appraise(&seen, tuning, &mut rng, played)
        .ok_or(AnalysisError::NoSuggestion(version))?;
    let scale = |v: f64| v * unit.per_search_unit();
    Ok(Decision {
        version,
        round: game.round,
        played: played.clone(),
        suggested: appraisal.chosen,
        cost: scale(appraisal.cost),
        worlds: appraisal.worlds,
        suggested_value: appraisal.chosen_value.map(scale),
        played_value: appraisal.played_value.map(scale),
        by_bot: None,
        timed_out: false,
    })
}
