//! The Saboteur game engine: cards, maze geometry, rules, commands, events, the pure reducer,
//! per-audience views and legal-move listing.
//!
//! Architecture invariant: this crate does no IO, has no clock, no async and no ambient
//! randomness. Every random outcome is drawn from a ChaCha generator derived from the game's
//! seed ([`Seed::round_rng`]) inside [`decide()`], and recorded in the events it produces, so
//! replaying a game ([`Game::replay`]) never needs a generator.
//!
//! The flow of a command: [`decide()`] checks it against a [`Game`] and returns [`Event`]s or a
//! [`RuleViolation`]; [`Game::apply`] folds each event into the state; [`view()`] and
//! [`redact()`] show state and events to an [`Audience`]; [`legal_commands`] lists what a seat
//! may do.

#![warn(missing_docs)]

pub mod about;
pub mod analysis;
pub mod audit;
pub mod board;
pub mod bot;
pub mod cards;
pub mod command;
pub mod conduct;
pub mod decide;
pub mod event;
/// Saboteur 2's end of a round (§10), also reachable as `decide::saboteur2`.
pub use decide::saboteur2 as expansion;
pub mod game;
pub mod geometry;
pub mod history;
pub mod legal;
pub mod online;
pub mod options;
pub mod position;
pub mod random;
pub mod seat;
pub mod secret;
pub mod signature;
pub mod signed_log;
pub mod simulate;
pub mod status;
mod table;
pub mod view;
pub mod violation;

pub use analysis::{Analysis, AnalysisError, Decision, analyse};
pub use audit::{AuditReport, Discrepancy, audit};
pub use board::{Board, GOAL_CELLS, PlacedCard, Tile};
pub use bot::{BOT_VERSION, BotLevel, BotMove};
pub use cards::{Card, Role, Ruleset, Team, Tool};
pub use command::{Command, SeatTarget, Target};
pub use decide::{create, deal, decide, start, start_committed, start_with};
pub use event::{EVENT_SCHEMA_VERSION, Event, HandOver, Payment};
pub use game::{
    Conduct, Game, GoldCardsDrawn, Options, Phase, PhaseName, RULES_VERSION, RoundResult,
};
pub use geometry::{Cell, Edges, Side};
pub use history::{History, UndoError, UndoRequest};
pub use legal::legal_commands;
pub use online::{Deadline, TableError};
pub use options::Clock;
pub use position::{Goals, Setup};
pub use random::{Contribution, Seed, ShareCommitment};
pub use seat::Seat;
pub use secret::{Pile, Secret};
pub use signature::{
    ACT_V3_RECORD_VERSION, KEY_PROOF_SCHEME, SeatSignature, SignedAct, SigningScheme,
    act_statement, fingerprint, is_public_key, is_signature, key_proof_statement,
    key_proof_statement_at, signing_message, signing_statement,
};
pub use signed_log::{KeyProof, SignedEntry, SigningError, key_proofs, not_signed_by, signed_acts};
pub use status::{SeatStatus, TableStatus};
pub use view::{Audience, Inspection, MyGold, View, redact, view};
pub use violation::{RuleViolation, SetupError, Violation};
