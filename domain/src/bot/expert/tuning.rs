//! The versions of the expert's logic: how much one decision searches ([`Budget`]) and how it
//! judges ([`Tuning`]).

use crate::cards::Ruleset;

/// How much searching one decision may do: a fixed amount of work, never a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Sampled worlds (determinizations) every candidate is played in.
    pub worlds: usize,
    /// The heuristic's best commands searched (one more is drawn from the rest).
    pub candidates: usize,
    /// Turns a rollout plays after the candidate before it is estimated.
    pub horizon: usize,
}

impl Budget {
    /// The budget of versions 1 and 2 of [`crate::event::BotLevel::Expert`], and of version 3
    /// in Saboteur 2.
    pub const DEFAULT: Budget = Budget {
        worlds: 16,
        candidates: 4,
        horizon: 12,
    };

    /// The budget of version 3 in the base game: half as many worlds again, each rollout twice
    /// as long, so that more of them reach the end of the round.
    pub const DEEP: Budget = Budget {
        worlds: 24,
        candidates: 4,
        horizon: 24,
    };
}

impl Default for Budget {
    fn default() -> Budget {
        Budget::DEFAULT
    }
}

/// One version of the expert's logic: how much it searches and how it judges. Every version a
/// stored game may hold stays here, so that its audit chooses each move again as it was chosen
/// ([`Tuning::of`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tuning {
    /// How much searching one decision may do in the base game.
    pub base: Budget,
    /// How much searching one decision may do in Saboteur 2.
    pub saboteur2: Budget,
    /// How much better per world, in round wins (or fifths of a coin), a command must do than
    /// the heuristic's first choice to be played instead.
    pub margin: f64,
    /// In Saboteur 2, a rollout cut short is valued by the payment's own rules (§10.2) applied
    /// to the likely outcome — the gold reached by the team whose own route is nearer, shares
    /// by the number of winners, or not reached — instead of fixed shares by dwarf card.
    pub payout_estimate: bool,
}

impl Tuning {
    /// Version 1 of the expert.
    pub const V1: Tuning = Tuning {
        base: Budget::DEFAULT,
        saboteur2: Budget::DEFAULT,
        margin: 0.04,
        payout_estimate: false,
    };

    /// Version 2: Saboteur 2 positions valued by the payment's rules (a team digger no longer
    /// values the gold reached by the other team as its own); the base game as version 1.
    pub const V2: Tuning = Tuning {
        payout_estimate: true,
        ..Tuning::V1
    };

    /// Version 3: in the base game, rollouts of 24 turns in 24 worlds ([`Budget::DEEP`]); in
    /// Saboteur 2 as version 2.
    pub const V3: Tuning = Tuning {
        base: Budget::DEEP,
        ..Tuning::V2
    };

    /// The expert of [`crate::bot::BOT_VERSION`] `version`, if this build can run it.
    pub fn of(version: u32) -> Option<Tuning> {
        match version {
            1 => Some(Tuning::V1),
            2 => Some(Tuning::V2),
            3 => Some(Tuning::V3),
            _ => None,
        }
    }

    /// The budget of a decision in `ruleset`.
    pub fn budget(&self, ruleset: Ruleset) -> Budget {
        match ruleset {
            Ruleset::Base => self.base,
            Ruleset::Saboteur2 => self.saboteur2,
        }
    }
}
