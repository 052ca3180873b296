//! Events: what happened, in the past tense. The log of a game is a list of events; its state
//! is the fold of [`crate::Game::apply`] over them. Stored events are a public contract: their
//! JSON is pinned by the golden logs in `tests/golden/`.

use serde::{Deserialize, Serialize};

use crate::cards::{Card, Role, Ruleset, Tool};
use crate::command::Command;
use crate::geometry::Cell;
use crate::options::Options;
use crate::random::{Contribution, Seed, ShareCommitment};
use crate::seat::Seat;
use crate::secret::{Pile, Secret};
use crate::signature::SeatSignature;

mod helpers;

/// The pattern of every event that is a consequence on the table (of a command, or of a round
/// ending), as opposed to the record's own bookkeeping (creation, deals, commands accepted,
/// undo, talk, seats and keys, cancellation). A match that treats every consequence alike
/// names them with this pattern instead of `_`, so that a new event does not compile until it
/// is placed here or in each such match.
macro_rules! consequences {
    () => {
        $crate::event::Event::PathPlayed { .. }
            | $crate::event::Event::GoalRevealed { .. }
            | $crate::event::Event::ToolBroken { .. }
            | $crate::event::Event::ToolRepaired { .. }
            | $crate::event::Event::PathRemoved { .. }
            | $crate::event::Event::MapUsed { .. }
            | $crate::event::Event::Passed { .. }
            | $crate::event::Event::CardDrawn { .. }
            | $crate::event::Event::TurnSkipped { .. }
            | $crate::event::Event::RoundEnded { .. }
            | $crate::event::Event::GoldDrawn { .. }
            | $crate::event::Event::GoldOffered { .. }
            | $crate::event::Event::GoldKept { .. }
            | $crate::event::Event::SaboteursPaid { .. }
            | $crate::event::Event::DiscardedToRemove { .. }
            | $crate::event::Event::TheftPlayed { .. }
            | $crate::event::Event::PlayerTrapped { .. }
            | $crate::event::Event::ActionCancelled { .. }
            | $crate::event::Event::HatsSwapped { .. }
            | $crate::event::Event::Inspected { .. }
            | $crate::event::Event::HandsSwapped { .. }
            | $crate::event::Event::CoinsPaid { .. }
            | $crate::event::Event::StealingStarted { .. }
            | $crate::event::Event::CoinStolen { .. }
            | $crate::event::Event::GameEnded { .. }
    };
}
pub(crate) use consequences;

/// The schema version of [`Event`]'s JSON. Bump it, and teach [`Event::decode`] to read the
/// old form, when an event's shape changes.
pub const EVENT_SCHEMA_VERSION: u16 = 1;

/// The version of the bots' decision logic. It is recorded with each bot command so that an
/// audit re-runs the same logic; bump it whenever a bot would choose differently, and keep the
/// older logic runnable (`crate::bot::BOT_VERSIONS`).
pub const BOT_VERSION: u32 = 3;

pub use crate::options::BotLevel;

/// How a bot chose a command, recorded with it in [`Event::CommandAccepted`]: re-running
/// [`crate::bot::choose`] with this level and seed on the seat's view before the command gives the command
/// again, for the same [`BOT_VERSION`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BotMove {
    /// The bot's level.
    pub level: BotLevel,
    /// The [`BOT_VERSION`] that chose.
    pub version: u32,
    /// The decision's seed: hidden from other seats until the game is over, like the view it
    /// was applied to.
    pub seed: Secret<u64>,
}

impl BotMove {
    /// The record of a decision by the current logic.
    pub fn new(level: BotLevel, seed: u64) -> BotMove {
        BotMove {
            level,
            version: BOT_VERSION,
            seed: Secret::Known(seed),
        }
    }

    /// The record with its seed shown only if `visible`.
    pub fn shown_if(&self, visible: bool) -> BotMove {
        BotMove {
            seed: self.seed.shown_if(visible),
            ..*self
        }
    }
}

/// Gold given to one seat, as recorded in [`Event::SaboteursPaid`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct Payment {
    /// Who is paid.
    pub seat: Seat,
    /// The gold cards taken (hidden from the other seats until the game ends, §7.3).
    pub cards: Pile<Card>,
}

/// Why a seat was handed to a bot ([`Event::SeatHandedToBot`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum HandOver {
    /// The seat timed out as many times in a row as the table allows
    /// ([`crate::Options::abandon_after`]).
    Abandoned,
    /// The host handed it over.
    Host,
    /// The seat was given to a bot before the start: recorded right after the deal, so that
    /// the record says which seats are bots' from the first move on (record version 2).
    Lobby,
}

/// Something that happened in a game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Event {
    /// The game was set up; nobody has a card yet.
    GameCreated {
        /// `base` or `saboteur2`.
        ruleset: Ruleset,
        /// Rule variants.
        options: Options,
        /// How many seats.
        players: u8,
        /// Who plays first in round 1 (§2).
        first_player: Seat,
        /// The seed of every shuffle; revealed when the game ends.
        seed: Secret<Seed>,
        /// The rules version the game is played, replayed and audited under (docs/rules.md §13).
        /// Absent in games created under version 1.
        #[serde(
            default = "crate::options::first_rules_version",
            skip_serializing_if = "crate::options::is_first_rules_version"
        )]
        rules_version: u8,
        /// The record version ([`crate::options::RECORD_VERSION`]): what the record of the game
        /// must hold for its audit. From version 2 on, every seat a bot plays is in the record
        /// (`seat_handed_to_bot`, with `reason: lobby` for a seat given to a bot before the
        /// start), a bot's command is only a bot seat's, its seed is derived from the game's
        /// seed and version, and a player's signature holds only at the decision it was made
        /// for. From version 3 on players sign a canonical statement (`saboteur-act-v2`); from
        /// version 4 on every key comes with its holder's proof of possession
        /// (`seat_key_registered.proof`). Absent in games recorded under version 1.
        #[serde(
            default = "crate::options::first_record_version",
            skip_serializing_if = "crate::options::is_first_record_version"
        )]
        record_version: u8,
    },
    /// The players' shares were mixed into the seed before round 1 was dealt
    /// ([`Seed::mixed`]): every deal is drawn from the mixed seed. Recorded only when a seat
    /// contributed or committed; public (the shares say nothing without the server's seed).
    SeedMixed {
        /// The shares, by seat, in seat order.
        contributions: Vec<Contribution>,
        /// The seats that committed to their share before any was seen, with their commitments,
        /// in seat order (absent when none did). A committed seat's share in `contributions`
        /// opens its commitment; a committed seat without one there withheld it, and the deal
        /// was drawn without it.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        committed: Vec<ShareCommitment>,
    },
    /// A round was laid out and dealt (§2, §6, §9.1). Records every shuffle's outcome.
    RoundStarted {
        /// 1, 2 or 3.
        round: u8,
        /// Who plays first this round.
        first_player: Seat,
        /// Each seat's dwarf card.
        roles: Vec<Secret<Role>>,
        /// The dwarf cards nobody got (`saboteur2`: the dwarf pile, top first).
        set_aside: Pile<Role>,
        /// The goal cards, top to bottom.
        #[cfg_attr(feature = "openapi", schema(value_type = Option<Vec<Card>>))]
        goals: Secret<[Card; 3]>,
        /// Each seat's hand.
        hands: Vec<Pile<Card>>,
        /// The draw pile, top first.
        draw_pile: Pile<Card>,
        /// The gold pile, top first (base game).
        gold_pile: Pile<Card>,
        /// The cards removed unseen (`saboteur2` §9.1).
        removed: Pile<Card>,
        /// When round 1 was dealt (the game started), in milliseconds since the Unix epoch: recorded in games with a turn
        /// clock (the clock is reckoned from these times), absent otherwise.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at: Option<u64>,
    },
    /// A path card was placed (§3.1).
    PathPlayed {
        /// Who played it.
        seat: Seat,
        /// The card.
        card: Card,
        /// Where.
        at: Cell,
        /// Whether it lies turned 180°.
        rotated: bool,
    },
    /// A goal card was turned face up (§5).
    GoalRevealed {
        /// The goal's cell.
        at: Cell,
        /// What it is.
        card: Card,
        /// How it lies (§5 ruling).
        rotated: bool,
    },
    /// A broken tool was put in front of a player (§4.1).
    ToolBroken {
        /// Who played it.
        seat: Seat,
        /// The broken-tool card.
        card: Card,
        /// In front of whom.
        target: Seat,
    },
    /// A broken tool was repaired (§4.2).
    ToolRepaired {
        /// Who played the repair.
        seat: Seat,
        /// The repair card.
        card: Card,
        /// Whose tool.
        target: Seat,
        /// Which tool.
        tool: Tool,
        /// The broken-tool card that went to the discard pile.
        broken: Card,
    },
    /// A rockfall removed a path card (§4.3).
    PathRemoved {
        /// Who played the rockfall.
        seat: Seat,
        /// Where.
        at: Cell,
        /// The card removed.
        removed: Card,
    },
    /// A player looked at a face-down goal with a map (§4.4).
    MapUsed {
        /// Who.
        seat: Seat,
        /// The goal's cell.
        at: Cell,
        /// What they saw (only they learn it).
        goal: Secret<Card>,
    },
    /// A player passed, discarding face down (§3.3, §9.2).
    Passed {
        /// Who.
        seat: Seat,
        /// The cards discarded (face down: only they know them).
        discarded: Pile<Card>,
    },
    /// A player drew a card from the draw pile.
    CardDrawn {
        /// Who.
        seat: Seat,
        /// The card (only they see it).
        card: Secret<Card>,
    },
    /// The engine passed the turn of a player with no card and no draw pile (§3.3 ruling).
    TurnSkipped {
        /// Whose turn it was.
        seat: Seat,
    },
    /// The round ended (§6): every dwarf card is revealed.
    RoundEnded {
        /// Which round.
        round: u8,
        /// Who turned the gold, if it was reached.
        gold_reached_by: Option<Seat>,
        /// Every seat's dwarf card, now public.
        roles: Vec<Role>,
        /// The seats that won the round (§7, §10).
        winners: Vec<Seat>,
    },
    /// The finder drew gold cards to hand out (§7.1).
    GoldDrawn {
        /// Who chooses first.
        seat: Seat,
        /// The cards drawn from the gold pile (only the chooser sees them).
        cards: Pile<Card>,
    },
    /// The remaining gold cards were handed on to the next gold-digger (§7.1).
    GoldOffered {
        /// Who chooses next.
        seat: Seat,
        /// The cards (only the chooser sees them).
        cards: Pile<Card>,
    },
    /// A gold-digger kept a gold card (§7.1).
    GoldKept {
        /// Who.
        seat: Seat,
        /// The card (its value stays secret until the game ends, §7.3).
        card: Secret<Card>,
        /// True when it was the last card, handed over without a choice (§7.1 ruling).
        automatic: bool,
    },
    /// The saboteurs took their gold (§7.2).
    SaboteursPaid {
        /// What each saboteur took, in the order they were paid.
        payments: Vec<Payment>,
        /// The gold pile afterwards, top first.
        gold_pile: Pile<Card>,
    },
    /// A player discarded two cards to remove a card in front of them (`saboteur2` §9.2).
    DiscardedToRemove {
        /// Who.
        seat: Seat,
        /// The two cards discarded (face down: only they know them).
        discarded: Pile<Card>,
        /// The card removed from in front of them.
        removed: Card,
    },
    /// A player put a Theft in front of themselves (§9.4).
    TheftPlayed {
        /// Who.
        seat: Seat,
    },
    /// A player was trapped (§9.4).
    PlayerTrapped {
        /// Who played the Trapped card.
        seat: Seat,
        /// Who is trapped.
        target: Seat,
    },
    /// Hands off or Free at last removed a card in front of a player (§9.4).
    ActionCancelled {
        /// Who played it.
        seat: Seat,
        /// `hands_off` or `free_at_last`.
        card: Card,
        /// In front of whom.
        target: Seat,
        /// The card removed (`theft` or `trapped`).
        removed: Card,
    },
    /// A player took a new dwarf card (§9.4 Swap hats).
    HatsSwapped {
        /// Who played Swap hats.
        seat: Seat,
        /// Who changed dwarf card.
        target: Seat,
        /// The dwarf card discarded unseen (only the target knows it).
        old: Secret<Role>,
        /// The dwarf card drawn (only the target sees it).
        new: Secret<Role>,
    },
    /// A player looked at another's dwarf card (§9.4 Inspection).
    Inspected {
        /// Who looked.
        seat: Seat,
        /// At whose card.
        target: Seat,
        /// What they saw (only they learn it).
        role: Secret<Role>,
    },
    /// Two players exchanged their hands (§9.4 Swap hands).
    HandsSwapped {
        /// Who played Swap hands.
        seat: Seat,
        /// With whom.
        target: Seat,
        /// The hand `seat` now holds (only they see it).
        seat_hand: Pile<Card>,
        /// The hand `target` now holds, before the compensation draw (only they see it).
        target_hand: Pile<Card>,
    },
    /// Coins were paid out (§10.2): coins are public, as the payout follows from the revealed
    /// dwarf cards.
    CoinsPaid {
        /// Each seat's coins this round.
        coins: Vec<u32>,
    },
    /// The thefts of the round are resolved in this order (§9.4).
    StealingStarted {
        /// The thieves, in order.
        order: Vec<Seat>,
    },
    /// A thief resolved their Theft (§9.4).
    CoinStolen {
        /// The thief.
        seat: Seat,
        /// The robbed seat, or none.
        from: Option<Seat>,
    },
    /// A player's command was accepted; the events it caused follow it in the log. Recorded so
    /// that an audit can decide every command again.
    CommandAccepted {
        /// Who issued it.
        seat: Seat,
        /// The command (hidden from others: a pass names the cards discarded face down).
        command: Secret<Command>,
        /// When a bot chose the command: how, so that an audit can choose it again.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        bot: Option<BotMove>,
        /// When it was accepted, in milliseconds since the Unix epoch: recorded in games with a turn
        /// clock (the clock is reckoned from these times), absent otherwise.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at: Option<u64>,
        /// The player's signature of the act, when the seat has a key
        /// (`seat_key_registered`); hidden whenever the act is.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signature: Option<Secret<SeatSignature>>,
    },
    /// A player asked to take back their last command; every other player must approve.
    UndoRequested {
        /// Who asks.
        seat: Seat,
        /// The version the game would return to.
        to_version: u64,
        /// Whether the commands it would take back showed the requester something hidden: their
        /// own draws and peeks, or anything turned face up for everyone (docs/rules.md §12). Absent
        /// in logs recorded before it was kept.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        revealed: Option<bool>,
        /// The player's signature of the act, when the seat has a key
        /// (`seat_key_registered`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signature: Option<SeatSignature>,
    },
    /// A player approved the pending undo request.
    UndoApproved {
        /// Who approved.
        seat: Seat,
        /// The player's signature of the act, when the seat has a key
        /// (`seat_key_registered`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signature: Option<SeatSignature>,
    },
    /// A player declined the pending undo request, which is dropped.
    UndoDeclined {
        /// Who declined.
        seat: Seat,
        /// The player's signature of the act, when the seat has a key
        /// (`seat_key_registered`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signature: Option<SeatSignature>,
    },
    /// The game returned to an earlier version. The log keeps the undone events; replaying
    /// skips them.
    Undone {
        /// The version the game returned to.
        to_version: u64,
        /// The player whose command was taken back, or none for the host's rollback.
        by: Option<Seat>,
        /// The host's written reason for a rollback.
        reason: Option<String>,
        /// When it happened, in milliseconds since the Unix epoch: recorded in games with a turn
        /// clock (the clock is reckoned from these times), absent otherwise.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at: Option<u64>,
        /// The player's signature of the act, when the seat has a key
        /// (`seat_key_registered`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signature: Option<SeatSignature>,
    },
    /// A message was posted at the table. Public: it shows nothing else.
    TalkPosted {
        /// The player who posted it, or none for a spectator.
        seat: Option<Seat>,
        /// A spectator's chosen name (players are known by their seat).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        /// The message; `null` once the host hid it (the audit bundle keeps it).
        text: Secret<String>,
        /// When, in milliseconds since the Unix epoch.
        at: u64,
        /// The player's signature of the act, when the seat has a key
        /// (`seat_key_registered`); hidden whenever the act is.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signature: Option<Secret<SeatSignature>>,
    },
    /// The host hid a message: it stays in the log, no longer shown.
    TalkHidden {
        /// The sequence number of the hidden [`Event::TalkPosted`].
        message: u64,
    },
    /// A seat's decision was not made by its deadline; the heuristic bot makes it, recorded in
    /// the [`Event::CommandAccepted`] that follows.
    TurnTimedOut {
        /// The seat that ran out of time.
        seat: Seat,
        /// Its deadline, in milliseconds since the Unix epoch, as reckoned from the recorded
        /// times.
        deadline: u64,
        /// When the timeout was recorded (at or after the deadline).
        at: u64,
    },
    /// A seat is played by a bot until its player takes it back.
    SeatHandedToBot {
        /// The seat.
        seat: Seat,
        /// The bot that plays it.
        level: BotLevel,
        /// Why: the seat timed out too often in a row, the host handed it over, or it was a
        /// bot's from the lobby on.
        reason: HandOver,
    },
    /// A seat's player took the seat back from the bot, with their token.
    SeatReclaimed {
        /// The seat.
        seat: Seat,
        /// The player's signature of the act, when the seat has a key
        /// (`seat_key_registered`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signature: Option<SeatSignature>,
    },
    /// A seat's player registered a public key (when the game started, with the key sent with
    /// the seat, or later): from then on every act of the seat must carry the player's
    /// signature (docs/clients.md, "Signing your acts"). A key registered over another is signed by
    /// the old one; a reissued token drops the seat's key (`token_reissued`). Public: everyone
    /// sees whose key changed.
    SeatKeyRegistered {
        /// The seat.
        seat: Seat,
        /// The Ed25519 public key, 64 hex digits.
        key: String,
        /// The player's signature with the seat's previous key, if it had one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signature: Option<SeatSignature>,
        /// The key's proof of possession (record version 4 on): its holder's signature of
        /// [`crate::key_proof_statement`] for this game and key, 128 hex digits.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        proof: Option<String>,
        /// The version the proof names (record version 7 on, for a key registered during play:
        /// [`crate::key_proof_statement_at`]); absent for a key sent in the lobby, proved by
        /// [`crate::key_proof_statement`].
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at: Option<u64>,
    },
    /// The host issued a new token for a seat; the old one no longer works, and the seat's key,
    /// if it had one, no longer signs for it. The token itself is never recorded.
    TokenReissued {
        /// The seat.
        seat: Seat,
    },
    /// The host cancelled the game before its start: nobody may take a seat in it or start
    /// it, and it no longer counts as a lobby.
    GameCancelled {},
    /// The third round is over (§8).
    GameEnded {
        /// Each seat's total.
        gold: Vec<u32>,
        /// The seats sharing the win.
        winners: Vec<Seat>,
    },
}
