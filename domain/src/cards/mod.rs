//! The cards: their vocabulary (`card.rs`), the catalogue of docs/cards.md as one data table
//! (`catalogue.rs`), and what a player count deals (`player_count.rs`).

mod card;
mod catalogue;
mod player_count;

pub use card::{Action, Card, CardSpec, Kind, Role, Ruleset, Segment, Shape, Team, Tool};
pub use catalogue::{CATALOGUE, GOALS, deck, gold_cards};
pub use player_count::{hand_size, role_set};
