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

/// The rule variants of a game (docs/rules.md "Variant"s).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields, default)]
pub struct Options {
    /// §7.1: how many gold cards the finder draws.
    pub gold_cards_drawn: GoldCardsDrawn,
    /// §7.1 variant: a gold-digger with a broken tool is skipped when gold is handed out.
    pub broken_tools_forfeit_gold: bool,
}
