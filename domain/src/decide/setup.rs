//! Creating a game and dealing its rounds (§2, §6, §9.1, §13).

use super::tx::reject;
use crate::cards::{self, Card, Role, Ruleset};
use crate::event::Event;
use crate::game::{Game, Options, Phase, RULES_VERSION};
use crate::random::{Contribution, ShareCommitment};
use crate::random::{Seed, shuffle};
use crate::seat::Seat;
use crate::secret::{Pile, Secret};
use crate::violation::{RuleViolation, SetupError, Violation as V};

/// The first event of a game, under the newest rules version ([`RULES_VERSION`], docs/rules.md
/// §13). Checks the player count against the ruleset.
pub fn create(
    ruleset: Ruleset,
    options: Options,
    players: u8,
    first_player: Seat,
    seed: Seed,
) -> Result<Event, SetupError> {
    let n = players as usize;
    if cards::role_set(ruleset, n).is_none() {
        let (name, min, max) = match ruleset {
            Ruleset::Base => ("base", 3, 10),
            Ruleset::Saboteur2 => ("saboteur2", 2, 12),
        };
        return Err(SetupError::PlayerCount {
            ruleset: name,
            players: n,
            min,
            max,
        });
    }
    if first_player.index() >= n {
        return Err(SetupError::FirstPlayer(first_player.0));
    }
    options.check().map_err(SetupError::Settings)?;
    Ok(Event::GameCreated {
        ruleset,
        options,
        players,
        first_player,
        seed: Secret::Known(seed),
        rules_version: RULES_VERSION,
        record_version: crate::options::RECORD_VERSION,
    })
}

/// Starts a created game: deals round 1.
pub fn start(game: &Game) -> Result<Vec<Event>, RuleViolation> {
    start_with(game, &[])
}

/// Starts a created game with the players' shares in its seed: [`Event::SeedMixed`] (when
/// any seat contributed), then round 1 dealt from the mixed seed. The shares come one per
/// seat at most, in seat order.
pub fn start_with(
    game: &Game,
    contributions: &[Contribution],
) -> Result<Vec<Event>, RuleViolation> {
    start_committed(game, contributions, &[])
}

/// Starts a created game with the players' shares in its seed, some committed to before any
/// was seen ([`Event::SeedMixed`]'s `committed`, recorded whole): [`Event::SeedMixed`] (when
/// any seat contributed or committed), then round 1 dealt from the mixed seed. Shares and
/// commitments come one per seat at most, in seat order, of seats at the table; a committed
/// seat's share must open its commitment ([`Seed::share_commitment`]); a committed seat
/// without a share withheld it.
pub fn start_committed(
    game: &Game,
    contributions: &[Contribution],
    committed: &[ShareCommitment],
) -> Result<Vec<Event>, RuleViolation> {
    match game.phase {
        Phase::NotStarted => {}
        Phase::GameOver => return reject(V::GameOver, "the game has ended"),
        _ => return reject(V::WrongPhase, "the game has already started"),
    }
    if contributions.is_empty() && committed.is_empty() {
        return Ok(vec![deal(game, 1, game.first_player)]);
    }
    let seats = contributions
        .iter()
        .map(|c| c.seat)
        .chain(committed.iter().map(|c| c.seat));
    if let Some(s) = seats.clone().find(|s| s.index() >= game.n()) {
        return reject(V::InvalidTarget, format!("{s} is not at this table"));
    }
    let ordered = |seats: &mut dyn Iterator<Item = Seat>| {
        let seats: Vec<Seat> = seats.collect();
        seats.windows(2).all(|w| w[0] < w[1])
    };
    if !ordered(&mut contributions.iter().map(|c| c.seat))
        || !ordered(&mut committed.iter().map(|c| c.seat))
    {
        return reject(V::InvalidTarget, "one share per seat, in seat order");
    }
    for c in committed {
        let share = contributions.iter().find(|s| s.seat == c.seat);
        if share.is_some_and(|s| s.entropy.share_commitment() != c.commitment) {
            return reject(
                V::InvalidTarget,
                format!("{}'s share does not open the commitment it made", c.seat),
            );
        }
    }
    let mut mixed = game.clone();
    mixed.seed = game.seed.mixed(contributions);
    Ok(vec![
        Event::SeedMixed {
            contributions: contributions.to_vec(),
            committed: committed.to_vec(),
        },
        deal(&mixed, 1, game.first_player),
    ])
}

/// Lays out and deals a round (§2, §6) from the seed's stream for that round.
pub fn deal(game: &Game, round: u8, first_player: Seat) -> Event {
    let n = game.n();
    let mut rng = game.seed.round_rng(round);
    let mut roles: Vec<Role> = if game.roles.is_empty() {
        cards::role_set(game.ruleset, n).unwrap_or_default()
    } else {
        game.roles
            .iter()
            .chain(&game.set_aside)
            .chain(&game.dwarf_discard)
            .copied()
            .collect()
    };
    roles.sort();
    shuffle(&mut rng, &mut roles);
    let mut goals = cards::GOALS;
    shuffle(&mut rng, &mut goals);
    let mut deck = cards::deck(game.ruleset);
    shuffle(&mut rng, &mut deck);
    let removed: Vec<Card> = match game.ruleset {
        Ruleset::Base => Vec::new(),
        Ruleset::Saboteur2 => deck.drain(..10.min(deck.len())).collect(),
    };
    let size = cards::hand_size(game.ruleset, n);
    let hands: Vec<Pile<Card>> = (0..n)
        .map(|_| Pile::Known(deck.drain(..size.min(deck.len())).collect()))
        .collect();
    let mut gold_pile = match game.ruleset {
        Ruleset::Base => game.gold_pile.clone(),
        Ruleset::Saboteur2 => Vec::new(),
    };
    gold_pile.sort();
    shuffle(&mut rng, &mut gold_pile);
    let set_aside = roles.split_off(n);
    Event::RoundStarted {
        round,
        first_player,
        roles: roles.into_iter().map(Secret::Known).collect(),
        set_aside: Pile::Known(set_aside),
        goals: Secret::Known(goals),
        hands,
        draw_pile: Pile::Known(deck),
        gold_pile: Pile::Known(gold_pile),
        removed: Pile::Known(removed),
        at: None,
    }
}
