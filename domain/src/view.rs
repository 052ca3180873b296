//! What each audience may see (§11): views of the state and redaction of events.
//!
//! A seat sees its own hand, role, map peeks, draws and gold; a spectator sees what is public;
//! the omniscient audience (an auditor, or anyone once the game is over) sees everything.

use serde::{Deserialize, Serialize};

use crate::board::PlacedCard;
use crate::cards::{Card, Role, Ruleset};
use crate::event::{Event, Payment};
use crate::game::{Conduct, Game, Options, Phase, PhaseName, RoundResult};
use crate::geometry::Cell;
use crate::random::Seed;
use crate::seat::Seat;

/// Who is looking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Audience {
    /// A player, who knows their own secrets.
    Seat(Seat),
    /// Someone watching, who knows what is public.
    Spectator,
    /// An auditor, who knows everything.
    Omniscient,
}

impl Audience {
    /// Whether this audience may see what only `seat` knows.
    pub fn sees(self, seat: Seat) -> bool {
        match self {
            Audience::Seat(s) => s == seat,
            Audience::Spectator => false,
            Audience::Omniscient => true,
        }
    }

    /// Whether this audience sees everything.
    pub fn is_omniscient(self) -> bool {
        self == Audience::Omniscient
    }
}

/// A goal cell as an audience sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct GoalView {
    /// The goal's cell.
    pub x: i32,
    /// The goal's row.
    pub y: i32,
    /// Whether it has been turned face up.
    pub revealed: bool,
    /// The card, when revealed, or when this audience looked at it with a map.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub card: Option<Card>,
}

/// The phase as an audience sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PhaseView {
    /// Which phase.
    pub name: PhaseName,
    /// The seat whose decision is awaited.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub awaited: Option<Seat>,
    /// The gold cards offered, only to the chooser.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub offered: Option<Vec<Card>>,
    /// How many gold cards are on offer.
    pub offered_count: usize,
}

/// The audience's own gold: its gold cards (values known to it alone until the end, §7.3)
/// and their total.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MyGold {
    /// The gold cards the audience has won.
    pub cards: Vec<Card>,
    /// Their total value.
    pub total: u32,
}

/// A dwarf card the audience looked at with Inspection (§9.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Inspection {
    /// The seat inspected.
    pub seat: Seat,
    /// Its dwarf card.
    pub role: Role,
}

/// The state of a game as one audience may see it (§11).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct View {
    /// Who this view is for.
    pub audience: Audience,
    /// `base` or `saboteur2`.
    pub ruleset: Ruleset,
    /// Rule variants.
    pub options: Options,
    /// How many seats.
    pub players: u8,
    /// The current round (0 before the start).
    pub round: u8,
    /// What the game waits for.
    pub phase: PhaseView,
    /// Whose turn it is while playing.
    pub current_player: Seat,
    /// The start and every face-up path card and goal.
    pub board: Vec<PlacedCard>,
    /// The three goals.
    pub goals: Vec<GoalView>,
    /// The action cards in front of each seat.
    pub in_front: Vec<Vec<Card>>,
    /// Cards in each hand.
    pub hand_sizes: Vec<usize>,
    /// Cards in the draw pile.
    pub draw_pile_size: usize,
    /// Cards in the discard pile.
    pub discard_pile_size: usize,
    /// Cards in the gold pile.
    pub gold_pile_size: usize,
    /// Gold cards each seat has won (values stay secret until the end, §7.3).
    pub gold_card_counts: Vec<usize>,
    /// The audience's own seat.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub seat: Option<Seat>,
    /// The audience's hand.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub hand: Option<Vec<Card>>,
    /// The audience's dwarf card.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub role: Option<Role>,
    /// The audience's gold cards and total.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub my_gold: Option<MyGold>,
    /// Every seat's dwarf card: omniscient only.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub roles: Option<Vec<Role>>,
    /// Every hand: omniscient only.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub hands: Option<Vec<Vec<Card>>>,
    /// Every seat's gold total: omniscient, or once the game is over; in `saboteur2` coins are
    /// public, as payouts follow from the revealed dwarf cards.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub gold: Option<Vec<u32>>,
    /// The dwarf cards the audience has looked at with Inspection this round.
    pub inspected: Vec<Inspection>,
    /// Dwarf cards left in the dwarf pile (`saboteur2`).
    pub dwarf_pile_size: usize,
    /// The seats with a Theft in front of them, in the order they played it.
    pub thefts: Vec<Seat>,
    /// The cards removed unseen this round: omniscient only.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub removed: Option<Vec<Card>>,
    /// The finished rounds, with their revealed dwarf cards.
    pub rounds: Vec<RoundResult>,
    /// The seats sharing the win, once the game is over.
    pub winners: Vec<Seat>,
    /// The seed of every shuffle: omniscient, or once the game is over.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub seed: Option<Seed>,
    /// What each seat has publicly done this round (public: tallied from public events).
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub conduct: Vec<Conduct>,
}

/// The view of a game for an audience. Once the game is over everything is public.
pub fn view(game: &Game, audience: Audience) -> View {
    let over = game.phase == Phase::GameOver;
    let all = audience.is_omniscient() || over;
    let me = match audience {
        Audience::Seat(s) if s.index() < game.n() => Some(s),
        _ => None,
    };
    let mine = |s: Seat| all || me == Some(s);
    let peeked: Vec<(Cell, Card)> = me
        .map(|s| game.peeked[s.index()].clone())
        .unwrap_or_default();
    let board = game
        .board
        .tiles()
        .filter(|(_, t)| !t.face_down)
        .map(|(c, t)| PlacedCard {
            x: c.x,
            y: c.y,
            card: t.card,
            rotated: t.rotated,
        })
        .collect();
    let goals = crate::board::GOAL_CELLS
        .iter()
        .filter_map(|&cell| {
            let t = game.board.get(cell)?;
            let peek = peeked.iter().any(|(c, _)| *c == cell);
            let card = (!t.face_down || all || peek).then_some(t.card);
            Some(GoalView {
                x: cell.x,
                y: cell.y,
                revealed: !t.face_down,
                card,
            })
        })
        .collect();
    let (offered, offered_count) = match &game.phase {
        Phase::ChoosingGold { chooser, offered } => {
            (mine(*chooser).then(|| offered.clone()), offered.len())
        }
        _ => (None, 0),
    };
    View {
        audience,
        ruleset: game.ruleset,
        options: game.options,
        players: game.players,
        round: game.round,
        phase: PhaseView {
            name: game.phase.kind(),
            awaited: game.awaited(),
            offered,
            offered_count,
        },
        current_player: game.current,
        board,
        goals,
        in_front: game.in_front.clone(),
        hand_sizes: game.hands.iter().map(Vec::len).collect(),
        draw_pile_size: game.draw_pile.len(),
        discard_pile_size: game.discard_pile.len(),
        gold_pile_size: game.gold_pile.len(),
        gold_card_counts: game.gold_cards.iter().map(Vec::len).collect(),
        seat: me,
        hand: me.map(|s| game.hands[s.index()].clone()),
        role: me.and_then(|s| game.roles.get(s.index()).copied()),
        my_gold: me.map(|s| MyGold {
            cards: game.gold_cards[s.index()].clone(),
            total: game.gold[s.index()],
        }),
        roles: all.then(|| game.roles.clone()),
        hands: all.then(|| game.hands.clone()),
        gold: (all || game.ruleset == Ruleset::Saboteur2).then(|| game.gold.clone()),
        inspected: me
            .map(|s| {
                game.inspected[s.index()]
                    .iter()
                    .map(|&(seat, role)| Inspection { seat, role })
                    .collect()
            })
            .unwrap_or_default(),
        dwarf_pile_size: match game.ruleset {
            Ruleset::Base => 0,
            Ruleset::Saboteur2 => game.set_aside.len(),
        },
        thefts: game.thefts.clone(),
        removed: all.then(|| game.removed.clone()),
        rounds: game.results.clone(),
        winners: game.winners.clone(),
        seed: all.then_some(game.seed),
        conduct: game.conduct.clone(),
    }
}

/// An event as an audience may see it: secrets of other seats replaced by `null` or a count.
/// `game_over` says whether the game has ended, when everything becomes public (§11).
pub fn redact(event: &Event, audience: Audience, game_over: bool) -> Event {
    if audience.is_omniscient() || game_over {
        return event.clone();
    }
    let sees = |s: Seat| audience.sees(s);
    match event {
        Event::GameCreated { .. } | Event::RoundStarted { .. } => redact_deal(event, sees),
        Event::MapUsed { .. }
        | Event::Passed { .. }
        | Event::CardDrawn { .. }
        | Event::DiscardedToRemove { .. }
        | Event::HatsSwapped { .. }
        | Event::Inspected { .. }
        | Event::HandsSwapped { .. }
        | Event::CommandAccepted { .. } => redact_play(event, sees),
        Event::GoldDrawn { .. }
        | Event::GoldOffered { .. }
        | Event::GoldKept { .. }
        | Event::SaboteursPaid { .. } => redact_gold(event, sees),
        Event::PathPlayed { .. }
        | Event::UndoRequested { .. }
        | Event::UndoApproved { .. }
        | Event::UndoDeclined { .. }
        | Event::Undone { .. }
        | Event::TheftPlayed { .. }
        | Event::PlayerTrapped { .. }
        | Event::ActionCancelled { .. }
        | Event::CoinsPaid { .. }
        | Event::StealingStarted { .. }
        | Event::CoinStolen { .. }
        | Event::GoalRevealed { .. }
        | Event::ToolBroken { .. }
        | Event::ToolRepaired { .. }
        | Event::PathRemoved { .. }
        | Event::TurnSkipped { .. }
        | Event::RoundEnded { .. }
        | Event::TalkPosted { .. }
        | Event::TalkHidden { .. }
        | Event::TurnTimedOut { .. }
        | Event::SeatHandedToBot { .. }
        | Event::SeatReclaimed { .. }
        | Event::SeatKeyRegistered { .. }
        | Event::TokenReissued { .. }
        | Event::SeedMixed { .. }
        | Event::GameEnded { .. }
        | Event::GameCancelled {} => event.clone(),
    }
}

/// The creation of the game and the deal of a round: the seed and the piles hidden, each seat's
/// role and hand shown to that seat only.
fn redact_deal(event: &Event, sees: impl Fn(Seat) -> bool) -> Event {
    match event {
        Event::GameCreated {
            ruleset,
            options,
            players,
            first_player,
            seed,
            rules_version,
            record_version,
        } => Event::GameCreated {
            ruleset: *ruleset,
            options: *options,
            players: *players,
            first_player: *first_player,
            seed: seed.shown_if(false),
            rules_version: *rules_version,
            record_version: *record_version,
        },
        Event::RoundStarted {
            round,
            first_player,
            roles,
            set_aside,
            goals,
            hands,
            draw_pile,
            gold_pile,
            removed,
            at,
        } => Event::RoundStarted {
            round: *round,
            first_player: *first_player,
            roles: roles
                .iter()
                .enumerate()
                .map(|(i, r)| r.shown_if(sees(Seat(i as u8))))
                .collect(),
            set_aside: set_aside.shown_if(false),
            goals: goals.shown_if(false),
            hands: hands
                .iter()
                .enumerate()
                .map(|(i, h)| h.shown_if(sees(Seat(i as u8))))
                .collect(),
            draw_pile: draw_pile.shown_if(false),
            gold_pile: gold_pile.shown_if(false),
            removed: removed.shown_if(false),
            at: *at,
        },
        // The other events are not of this group: `redact` routes them elsewhere.
        _ => event.clone(),
    }
}

/// Cards, turns and commands: what a seat drew, discarded, peeked at, inspected or was
/// handed shown to that seat only.
fn redact_play(event: &Event, sees: impl Fn(Seat) -> bool) -> Event {
    match event {
        Event::MapUsed { seat, at, goal } => Event::MapUsed {
            seat: *seat,
            at: *at,
            goal: goal.shown_if(sees(*seat)),
        },
        Event::Passed { seat, discarded } => Event::Passed {
            seat: *seat,
            discarded: discarded.shown_if(sees(*seat)),
        },
        Event::CardDrawn { seat, card } => Event::CardDrawn {
            seat: *seat,
            card: card.shown_if(sees(*seat)),
        },
        Event::DiscardedToRemove {
            seat,
            discarded,
            removed,
        } => Event::DiscardedToRemove {
            seat: *seat,
            discarded: discarded.shown_if(sees(*seat)),
            removed: *removed,
        },
        Event::HatsSwapped {
            seat,
            target,
            old,
            new,
        } => Event::HatsSwapped {
            seat: *seat,
            target: *target,
            old: old.shown_if(sees(*target)),
            new: new.shown_if(sees(*target)),
        },
        Event::Inspected { seat, target, role } => Event::Inspected {
            seat: *seat,
            target: *target,
            role: role.shown_if(sees(*seat)),
        },
        Event::HandsSwapped {
            seat,
            target,
            seat_hand,
            target_hand,
        } => Event::HandsSwapped {
            seat: *seat,
            target: *target,
            seat_hand: seat_hand.shown_if(sees(*seat)),
            target_hand: target_hand.shown_if(sees(*target)),
        },
        Event::CommandAccepted {
            seat,
            command,
            bot,
            at,
            signature,
        } => Event::CommandAccepted {
            seat: *seat,
            command: command.shown_if(sees(*seat)),
            bot: bot.as_ref().map(|b| b.shown_if(sees(*seat))),
            at: *at,
            signature: signature.as_ref().map(|s| s.shown_if(sees(*seat))),
        },
        // The other events are not of this group: `redact` routes them elsewhere.
        _ => event.clone(),
    }
}

/// Gold: the cards a seat drew, was offered, kept or was paid shown to that seat only.
fn redact_gold(event: &Event, sees: impl Fn(Seat) -> bool) -> Event {
    match event {
        Event::GoldDrawn { seat, cards } => Event::GoldDrawn {
            seat: *seat,
            cards: cards.shown_if(sees(*seat)),
        },
        Event::GoldOffered { seat, cards } => Event::GoldOffered {
            seat: *seat,
            cards: cards.shown_if(sees(*seat)),
        },
        Event::GoldKept {
            seat,
            card,
            automatic,
        } => Event::GoldKept {
            seat: *seat,
            card: card.shown_if(sees(*seat)),
            automatic: *automatic,
        },
        Event::SaboteursPaid {
            payments,
            gold_pile,
        } => Event::SaboteursPaid {
            payments: payments
                .iter()
                .map(|p| Payment {
                    seat: p.seat,
                    cards: p.cards.shown_if(sees(p.seat)),
                })
                .collect(),
            gold_pile: gold_pile.shown_if(false),
        },
        // The other events are not of this group: `redact` routes them elsewhere.
        _ => event.clone(),
    }
}

/// Whether an event could reveal hidden information to someone: a card drawn, a goal turned,
/// a map used, or anything dealt. Undoing such an event needs everyone's consent.
pub fn reveals_hidden(event: &Event) -> bool {
    !matches!(
        event,
        Event::PathPlayed { .. }
            | Event::ToolBroken { .. }
            | Event::ToolRepaired { .. }
            | Event::PathRemoved { .. }
            | Event::Passed { .. }
            | Event::TurnSkipped { .. }
            | Event::DiscardedToRemove { .. }
            | Event::TheftPlayed { .. }
            | Event::PlayerTrapped { .. }
            | Event::ActionCancelled { .. }
            | Event::CommandAccepted { .. }
            | Event::TalkPosted { .. }
            | Event::TalkHidden { .. }
            | Event::TurnTimedOut { .. }
            | Event::SeatHandedToBot { .. }
            | Event::SeatReclaimed { .. }
            | Event::SeatKeyRegistered { .. }
            | Event::TokenReissued { .. }
    )
}
