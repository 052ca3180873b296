//! The decision function: checks a command against the state and returns the events it
//! causes, or the rule it breaks. Every random outcome is drawn here and recorded in events.
//!
//! This file only wires: each step of a decision lives in its own file, and the files depend
//! on each other one way (`tx` ← `setup` ← `next_round` ← `round_end`, `saboteur2` ← `turn`
//! ← `pass`, `path`, `action` ← `dispatch`).

mod action;
mod dispatch;
mod next_round;
mod pass;
mod path;
mod round_end;
pub mod saboteur2;
mod setup;
mod turn;
mod tx;

pub use dispatch::decide;
pub use round_end::saboteur_share;
pub use setup::{create, deal, start, start_committed, start_with};
