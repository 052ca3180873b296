//! What a game is created with besides its seats and seed: the rule variants and the rules
//! version (docs/rules.md "Variant"s, §13).

use serde::{Deserialize, Serialize};

/// The newest rules version (docs/rules.md §13): new games are created under it. Version 1 is the
/// rules as first implemented; version 2 turns a stone goal towards the card that reached it
/// (§5's revised ruling).
pub const RULES_VERSION: u8 = 2;

/// The rules version of a game recorded before versions existed (docs/rules.md §13).
pub const FIRST_RULES_VERSION: u8 = 1;

/// Serde's default for a rules version that was not recorded: version 1.
pub(crate) fn first_rules_version() -> u8 {
    FIRST_RULES_VERSION
}

/// Whether a rules version is version 1, which is written by omission.
pub(crate) fn is_first_rules_version(v: &u8) -> bool {
    *v == FIRST_RULES_VERSION
}

/// The record version new games are created under: what a game's record must hold for its
/// audit ([`crate::Event::GameCreated`]'s `record_version`). Version 2 records the bot seats
/// and binds a signature to its decision; version 3 has players sign a canonical statement
/// ([`crate::SigningScheme::ActV2`]); version 4 has every key a seat is taken or registered
/// with proved by its holder ([`crate::key_proof_statement`]); version 5 has a signed undo,
/// vote or reclaim name the event it is about ([`crate::SigningScheme::ActV3`]); version 6
/// hashes each event into the chain sealed, every hidden value replaced by a hiding commitment
/// ([`SEALED_RECORD_VERSION`]); version 7 has a key registered during play proved for its seat at
/// a moment after the seat's last reissued token ([`DATED_KEY_PROOF_RECORD_VERSION`]). Older
/// games stay auditable by their version's rules.
pub const RECORD_VERSION: u8 = 7;

/// The first record version whose hash chain covers each event sealed: every value some
/// audience may not see replaced by a salted commitment, its salts derived from the server's
/// seed, revealed with it at the end (`saboteur_verifier::seal`). Before it, the chain hashed
/// each event as stored, so a head could be matched against guesses of a hidden card.
pub const SEALED_RECORD_VERSION: u8 = 6;

/// The first record version whose keys must each carry their holder's proof of possession
/// ([`crate::Event::SeatKeyRegistered`]'s `proof`).
pub const KEY_PROOF_RECORD_VERSION: u8 = 4;

/// Whether a game of `record_version` records every key with its proof of possession.
pub fn proves_keys(record_version: u8) -> bool {
    record_version >= KEY_PROOF_RECORD_VERSION
}

/// The first record version in which a key registered during play is proved for its seat at a
/// version ([`crate::key_proof_statement_at`], recorded as
/// [`crate::Event::SeatKeyRegistered`]'s `at`) no earlier than the seat's last reissued token,
/// so a proof read from the record cannot seat its key again after a reissue.
pub const DATED_KEY_PROOF_RECORD_VERSION: u8 = 7;

/// Whether a game of `record_version` dates the proofs of keys registered during play.
pub fn dates_key_proofs(record_version: u8) -> bool {
    record_version >= DATED_KEY_PROOF_RECORD_VERSION
}

/// The record version of a game whose creation records none.
pub const FIRST_RECORD_VERSION: u8 = 1;

/// Serde's default for a record version that was not recorded: version 1.
pub(crate) fn first_record_version() -> u8 {
    FIRST_RECORD_VERSION
}

/// Whether a record version is version 1, which is written by omission.
pub(crate) fn is_first_record_version(v: &u8) -> bool {
    *v == FIRST_RECORD_VERSION
}

/// How many gold cards the finder draws (§7.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum GoldCardsDrawn {
    /// As many as there are players, at most 9 (the default).
    #[default]
    Players,
    /// As many as there are gold-diggers this round (variant).
    Diggers,
}

/// The turn clock chosen when a game is created: how long each seat has to decide.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Clock {
    /// Every decision has the same limit.
    PerDecision {
        /// Seconds for each decision.
        seconds: u32,
    },
    /// Each seat has a bank of time, spent while it decides, and an increment added after
    /// each of its decisions (e.g. 300 + 20).
    Bank {
        /// Seconds in each seat's bank at the start.
        seconds: u32,
        /// Seconds added to the bank after each decision.
        increment_seconds: u32,
    },
}

impl Clock {
    /// The fewest seconds a decision or a bank may have.
    pub const MIN_SECONDS: u32 = 5;
    /// The most seconds a decision or a bank may have: a week.
    pub const MAX_SECONDS: u32 = 7 * 24 * 3600;

    /// Why the clock cannot be used, if it cannot.
    pub fn check(&self) -> Result<(), String> {
        let (seconds, increment) = match *self {
            Clock::PerDecision { seconds } => (seconds, 0),
            Clock::Bank {
                seconds,
                increment_seconds,
            } => (seconds, increment_seconds),
        };
        if !(Clock::MIN_SECONDS..=Clock::MAX_SECONDS).contains(&seconds) {
            return Err(format!(
                "a clock needs {} to {} seconds, not {seconds}",
                Clock::MIN_SECONDS,
                Clock::MAX_SECONDS
            ));
        }
        if increment > Clock::MAX_SECONDS {
            return Err(format!(
                "an increment is at most {} seconds, not {increment}",
                Clock::MAX_SECONDS
            ));
        }
        Ok(())
    }
}

/// The most consecutive timeouts [`Options::abandon_after`] may wait for.
pub const MOST_TIMEOUTS: u8 = 20;

fn is_false(b: &bool) -> bool {
    !*b
}

/// The rule variants of a game (docs/rules.md "Variant"s) and the table's settings for online
/// play: its turn clock, when a seat counts as abandoned, whether spectators may talk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields, default)]
pub struct Options {
    /// §7.1: how many gold cards the finder draws.
    pub gold_cards_drawn: GoldCardsDrawn,
    /// §7.1 variant: a gold-digger with a broken tool is skipped when gold is handed out.
    pub broken_tools_forfeit_gold: bool,
    /// The turn clock; none by default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clock: Option<Clock>,
    /// After this many consecutive timeouts a seat is handed to a bot until its player takes it
    /// back; never when absent. Needs a clock.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub abandon_after: Option<u8>,
    /// Whether spectators may post table talk (players always may).
    #[serde(skip_serializing_if = "is_false")]
    pub spectator_talk: bool,
    /// The level of the bot that decides for a seat that ran out of time, and plays a seat
    /// handed over after `abandon_after` timeouts; the heuristic when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_bot: Option<BotLevel>,
}

impl Options {
    /// The bot that decides for a seat that ran out of time: the heuristic unless the table
    /// names another.
    pub fn timeout_bot(&self) -> BotLevel {
        self.timeout_bot.unwrap_or(BotLevel::Heuristic)
    }
}

impl Options {
    /// Why the table's settings cannot be used together, if they cannot.
    pub fn check(&self) -> Result<(), String> {
        if let Some(clock) = &self.clock {
            clock.check()?;
        }
        match self.abandon_after {
            Some(n) if !(1..=MOST_TIMEOUTS).contains(&n) => Err(format!(
                "abandon_after is 1 to {MOST_TIMEOUTS} timeouts, not {n}"
            )),
            Some(_) if self.clock.is_none() => {
                Err("abandon_after needs a clock: without one nobody times out".into())
            }
            _ => Ok(()),
        }
    }
}

/// How a bot plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum BotLevel {
    /// Uniformly random among the legal commands.
    Random,
    /// Plays its role: digs towards the gold or blocks, with beliefs about the other seats.
    Heuristic,
    /// Searches: plays each of the heuristic's best commands out in games sampled from what
    /// its seat has seen, other seats' dwarf cards weighted by their public conduct.
    Expert,
}

impl BotLevel {
    /// Every level, weakest first.
    pub const ALL: [BotLevel; 3] = [BotLevel::Random, BotLevel::Heuristic, BotLevel::Expert];

    /// The level's name as in JSON: `random`, `heuristic` or `expert`.
    pub fn name(self) -> &'static str {
        match self {
            BotLevel::Random => "random",
            BotLevel::Heuristic => "heuristic",
            BotLevel::Expert => "expert",
        }
    }
}

impl std::fmt::Display for BotLevel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for BotLevel {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        BotLevel::ALL
            .into_iter()
            .find(|l| l.name() == s)
            .ok_or_else(|| format!("unknown bot level {s:?}: use random, heuristic or expert"))
    }
}
