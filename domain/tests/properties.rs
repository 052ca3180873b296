//! Properties over thousands of random games: random bots pick uniformly among legal moves
//! (seeds 0..N, 3–10 players). `SABOTEUR_GAMES` sets N (default 10,000).
//!
//! Invariants checked: every card of the catalogue is in exactly one place at every step;
//! the fold of all events equals the live state; the same seed yields the same log; random
//! commands are either listed as legal and accepted, or rejected without change; listed
//! commands are accepted; views and redacted events never show a seat what it must not know;
//! every game ends after three rounds with gold conserved.

use std::collections::BTreeMap;

use rand_chacha::ChaCha20Rng;
use rand_core::Rng;
use saboteur_domain::bot::bot_rng;
use saboteur_domain::cards::{self, CATALOGUE, Kind};
use saboteur_domain::random::below;
use saboteur_domain::{
    Audience, Card, Cell, Command, Event, Game, GoldCardsDrawn, Options, Phase, Pile, Role,
    Ruleset, Seat, Secret, Side, Target, Tool, create, decide, legal_commands, redact, start, view,
};

fn games() -> u64 {
    std::env::var("SABOTEUR_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000)
}

/// Every card a game of the ruleset uses, as a multiset (`saboteur2`: no gold cards).
fn catalogue(ruleset: Ruleset) -> BTreeMap<Card, usize> {
    CATALOGUE
        .iter()
        .filter(|s| s.set == Ruleset::Base || ruleset == Ruleset::Saboteur2)
        .filter(|s| ruleset == Ruleset::Base || !matches!(s.kind, Kind::Gold(_)))
        .map(|s| (s.card, s.count as usize))
        .collect()
}

/// Where every dwarf card is now, as a sorted list.
fn dwarf_census(game: &Game) -> Vec<Role> {
    let mut v: Vec<Role> = game
        .roles()
        .iter()
        .chain(game.set_aside())
        .chain(game.dwarf_discard())
        .copied()
        .collect();
    v.sort();
    v
}

/// The dwarf cards a seat may know of in the round under way: the ones it held, the ones it
/// inspected.
fn known_roles(seat: Option<Seat>, round_events: &[Event]) -> Vec<Role> {
    let Some(me) = seat else { return Vec::new() };
    let mut known = Vec::new();
    for e in round_events {
        match e {
            Event::RoundStarted { roles, .. } => known.extend(roles[me.index()].known().copied()),
            Event::HatsSwapped {
                target, old, new, ..
            } if *target == me => {
                known.extend(old.known().copied());
                known.extend(new.known().copied());
            }
            Event::Inspected { seat, role, .. } if *seat == me => {
                known.extend(role.known().copied())
            }
            _ => {}
        }
    }
    known
}

/// Where every card is now, as a multiset.
fn census(game: &Game) -> BTreeMap<Card, usize> {
    let mut m = BTreeMap::new();
    let mut add = |c: Card| *m.entry(c).or_insert(0) += 1;
    game.board().tiles().for_each(|(_, t)| add(t.card));
    game.hands().iter().flatten().for_each(|c| add(*c));
    game.draw_pile().iter().for_each(|c| add(*c));
    game.discard_pile().iter().for_each(|c| add(*c));
    game.in_front().iter().flatten().for_each(|c| add(*c));
    game.gold_pile().iter().for_each(|c| add(*c));
    game.gold_cards().iter().flatten().for_each(|c| add(*c));
    game.removed().iter().for_each(|c| add(*c));
    if let Phase::ChoosingGold { offered, .. } = &game.phase() {
        offered.iter().for_each(|c| add(*c));
    }
    m
}

fn random_command_of_any_kind(rng: &mut ChaCha20Rng, players: u8) -> Command {
    let card = CATALOGUE[(rng.next_u64() % CATALOGUE.len() as u64) as usize].card;
    let cell = Cell::new(
        (rng.next_u64() % 12) as i32 - 2,
        (rng.next_u64() % 9) as i32 - 4,
    );
    let seat = Seat((rng.next_u64() % (players as u64 + 2)) as u8);
    let target = match rng.next_u64() % 3 {
        0 => None,
        1 => Some(Target::seat(seat)),
        _ => Some(Target::Cell(cell)),
    };
    let tool = [
        None,
        Some(Tool::Pickaxe),
        Some(Tool::Lantern),
        Some(Tool::Cart),
    ][(rng.next_u64() % 4) as usize];
    match rng.next_u64() % 5 {
        0 => Command::PlayPath {
            card,
            at: cell,
            rotated: rng.next_u64().is_multiple_of(2),
        },
        1 => Command::PlayAction { card, target, tool },
        2 => Command::Pass {
            discard: (0..rng.next_u64() % 3).map(|_| card).collect(),
        },
        3 => Command::ChooseGold { card },
        _ => Command::Steal { from: Some(seat) },
    }
}

const ROLES: [Role; 7] = [
    Role::GoldDigger,
    Role::Saboteur,
    Role::GreenDigger,
    Role::BlueDigger,
    Role::Boss,
    Role::Geologist,
    Role::Profiteer,
];

fn role_id(role: Role) -> String {
    serde_json::to_string(&role).unwrap()
}

/// No seat's view or redacted events of the round under way tell it another seat's role, hand,
/// draws, gold, or where the gold lies, unless the rules made it public or told that seat.
fn check_no_leak(game: &Game, round_events: &[Event]) {
    let gold_cell = game
        .board()
        .tiles()
        .find(|(_, t)| t.card == Card::GoalGold)
        .map(|(c, _)| c);
    let gold_public = game
        .board()
        .tiles()
        .any(|(_, t)| t.card == Card::GoalGold && !t.face_down);
    let round_over = round_events
        .iter()
        .any(|e| matches!(e, Event::RoundEnded { .. }));
    let audiences = (0..game.players())
        .map(|s| Audience::Seat(Seat(s)))
        .chain([Audience::Spectator]);
    for audience in audiences {
        let me = match audience {
            Audience::Seat(s) => Some(s),
            _ => None,
        };
        let mut v = view(game, audience);
        v.rounds.clear(); // finished rounds' roles are public
        assert!(v.roles.is_none() && v.hands.is_none() && v.seed.is_none() && v.removed.is_none());
        assert_eq!(v.gold.is_some(), game.ruleset() == Ruleset::Saboteur2);
        let redacted: Vec<Event> = round_events
            .iter()
            .map(|e| redact(e, audience, false))
            .collect();
        let json = serde_json::to_string(&(&v, &redacted)).unwrap();
        let peeked = me.is_some_and(|s| {
            game.peeked()[s.index()]
                .iter()
                .any(|(c, _)| Some(*c) == gold_cell)
        });
        if !gold_public && !peeked {
            assert!(
                !json.contains("goal_gold"),
                "{audience:?} learns where the gold is: {json}"
            );
        }
        if !round_over {
            let known = known_roles(me, round_events);
            for r in ROLES.iter().filter(|r| !known.contains(r)) {
                assert!(
                    !json.contains(&role_id(*r)),
                    "{audience:?} learns of a role {r:?}"
                );
            }
        }
        for e in &redacted {
            let foreign = |s: &Seat| Some(*s) != me;
            match e {
                Event::GameCreated { seed, .. } => assert_eq!(*seed, Secret::Hidden),
                Event::RoundStarted {
                    hands,
                    roles,
                    draw_pile,
                    gold_pile,
                    goals,
                    ..
                } => {
                    for (i, (h, r)) in hands.iter().zip(roles).enumerate() {
                        if foreign(&Seat(i as u8)) {
                            assert!(matches!(h, Pile::Hidden { .. }) && *r == Secret::Hidden);
                        }
                    }
                    assert!(matches!(draw_pile, Pile::Hidden { .. }));
                    assert!(matches!(gold_pile, Pile::Hidden { .. }));
                    assert_eq!(*goals, Secret::Hidden);
                }
                Event::CardDrawn { seat, card } if foreign(seat) => {
                    assert_eq!(*card, Secret::Hidden)
                }
                Event::MapUsed { seat, goal, .. } if foreign(seat) => {
                    assert_eq!(*goal, Secret::Hidden)
                }
                Event::Passed { seat, discarded } if foreign(seat) => {
                    assert!(matches!(discarded, Pile::Hidden { .. }))
                }
                Event::GoldDrawn { seat, cards } | Event::GoldOffered { seat, cards }
                    if foreign(seat) =>
                {
                    assert!(matches!(cards, Pile::Hidden { .. }))
                }
                Event::GoldKept { seat, card, .. } if foreign(seat) => {
                    assert_eq!(*card, Secret::Hidden)
                }
                Event::SaboteursPaid {
                    payments,
                    gold_pile,
                } => {
                    assert!(matches!(gold_pile, Pile::Hidden { .. }));
                    for p in payments.iter().filter(|p| foreign(&p.seat)) {
                        assert!(matches!(p.cards, Pile::Hidden { .. }));
                    }
                }
                _ => {}
            }
        }
        if let Some(s) = me {
            assert_eq!(v.hand.as_ref(), Some(&game.hands()[s.index()]));
        } else {
            assert!(v.hand.is_none() && v.role.is_none());
        }
    }
}

/// A legal command: uniformly random, or for an eager digger mostly a tunnel placed as far
/// east as it goes.
fn pick(legal: &[Command], eager: bool, rng: &mut ChaCha20Rng) -> Command {
    if eager && !rng.next_u64().is_multiple_of(4) {
        let east = legal
            .iter()
            .filter_map(|c| match c {
                Command::PlayPath { card, at, rotated } => {
                    let shape = card.path_shape()?;
                    let onward = shape.segments.len() == 1 && shape.open(*rotated, Side::E);
                    onward.then_some((at.x, c))
                }
                _ => None,
            })
            .max_by_key(|(x, _)| *x);
        if let Some((_, c)) = east {
            return c.clone();
        }
    }
    legal[below(rng, legal.len())].clone()
}

struct Played {
    events: Vec<Event>,
    game: Game,
}

/// Plays one random game, checking the per-step invariants. `deep` adds the costly checks
/// (every listed command accepted, leak checks, fold at every step).
fn play(ruleset: Ruleset, seed: u64, deep: bool) -> Played {
    let players = match ruleset {
        Ruleset::Base => 3 + (seed % 8) as u8,
        Ruleset::Saboteur2 => 2 + (seed % 11) as u8,
    };
    let seed_bytes = saboteur_domain::Seed::from_u64(seed);
    let first = Seat(seed_bytes.0[0] % players);
    // Half the games dig east eagerly, so that rounds reach the gold; the variants take turns.
    let eager = seed % 2 == 1;
    let options = Options {
        gold_cards_drawn: if seed.is_multiple_of(3) {
            GoldCardsDrawn::Diggers
        } else {
            GoldCardsDrawn::Players
        },
        broken_tools_forfeit_gold: seed.is_multiple_of(5),
        ..Options::default()
    };
    let mut events = vec![create(ruleset, options, players, first, seed_bytes).unwrap()];
    let mut game = Game::replay(&events).unwrap();
    events.extend(start(&game).unwrap());
    game = Game::replay(&events).unwrap();
    let mut rng = bot_rng(seed_bytes);
    let mut noise = ChaCha20Rng::from_seed_u64(seed);
    let all = catalogue(ruleset);
    let mut dwarves: Option<Vec<Role>> = None;
    let mut round_start = 1;
    let mut steps = 0;
    while let Some(seat) = game.awaited() {
        steps += 1;
        assert!(steps < 2_000, "seed {seed}: the game does not end");
        assert_eq!(census(&game), all, "seed {seed}: cards are not conserved");
        let d = dwarf_census(&game);
        assert_eq!(
            dwarves.get_or_insert_with(|| d.clone()),
            &d,
            "seed {seed}: dwarf cards"
        );
        let legal = legal_commands(&game, seat);
        assert!(
            !legal.is_empty(),
            "seed {seed}: {seat} has no legal command in {:?} holding {:?}",
            game.phase(),
            game.hands()[seat.index()]
        );
        // Nobody else may act.
        let other = seat.left(game.n(), 1);
        if other != seat {
            assert!(legal_commands(&game, other).is_empty());
        }
        // Random commands: accepted ones are listed; rejected ones change nothing.
        for _ in 0..4 {
            let cmd = random_command_of_any_kind(&mut noise, players);
            let actor = if noise.next_u64() % 4 == 0 {
                other
            } else {
                seat
            };
            let before = game.clone();
            match decide(&game, actor, &cmd) {
                Ok(_) => assert!(
                    actor == seat && legal.contains(&cmd.canonical()),
                    "seed {seed}: accepted but not listed: {cmd:?}"
                ),
                Err(_) => assert_eq!(game, before),
            }
        }
        if deep {
            for cmd in &legal {
                assert!(
                    decide(&game, seat, cmd).is_ok(),
                    "seed {seed}: listed but refused: {cmd:?}"
                );
            }
            check_no_leak(&game, &events[round_start..]);
        }
        let cmd = pick(&legal, eager, &mut rng);
        let new = decide(&game, seat, &cmd)
            .unwrap_or_else(|v| panic!("seed {seed}: legal command refused: {cmd:?}: {v}"));
        for e in new {
            if matches!(e, Event::RoundStarted { .. }) {
                round_start = events.len();
            }
            game.apply(&e);
            events.push(e);
        }
        if deep {
            assert_eq!(
                Game::replay(&events).as_ref(),
                Some(&game),
                "seed {seed}: fold differs"
            );
        }
    }
    Played { events, game }
}

trait FromU64 {
    fn from_seed_u64(seed: u64) -> Self;
}
impl FromU64 for ChaCha20Rng {
    fn from_seed_u64(seed: u64) -> Self {
        let mut rng = saboteur_domain::Seed::from_u64(seed).round_rng(0);
        rng.set_stream(7);
        rng
    }
}

fn check_game(ruleset: Ruleset, seed: u64, deep: bool) {
    let Played { events, game } = play(ruleset, seed, deep);
    assert_eq!(*game.phase(), Phase::GameOver, "seed {seed}");
    assert_eq!(game.round(), 3);
    assert_eq!(game.results().len(), 3, "seed {seed}: three rounds");
    assert_eq!(
        Game::replay(&events).as_ref(),
        Some(&game),
        "seed {seed}: fold differs"
    );
    if ruleset == Ruleset::Base {
        // Gold is conserved: won cards plus the pile are the 28 gold cards, totals match values.
        let mut gold: Vec<Card> = game
            .gold_cards()
            .iter()
            .flatten()
            .chain(game.gold_pile())
            .copied()
            .collect();
        gold.sort();
        assert_eq!(gold, cards::gold_cards(), "seed {seed}");
        for (cards, total) in game.gold_cards().iter().zip(game.gold()) {
            let sum: u32 = cards.iter().map(|c| c.gold_value().unwrap() as u32).sum();
            assert_eq!(sum, *total);
        }
    } else {
        check_coins(seed, &events, &game);
    }
    let best = *game.gold().iter().max().unwrap();
    let winners: Vec<Seat> = (0..game.players())
        .map(Seat)
        .filter(|s| game.gold()[s.index()] == best)
        .collect();
    assert_eq!(game.winners(), winners);
    let reached = events
        .iter()
        .filter(|e| matches!(e, Event::GoldKept { .. }))
        .count();
    REACHED.fetch_add(reached, std::sync::atomic::Ordering::Relaxed);
    let Some(Event::GameEnded { gold: totals, .. }) = events.last() else {
        panic!("seed {seed}: the log does not end with game_ended")
    };
    assert_eq!(totals, &game.gold());
    // Once the game is over, every event is public.
    for e in &events {
        assert_eq!(&redact(e, Audience::Spectator, true), e);
    }
}

/// `saboteur2`: each round's coins follow §10.2 from the revealed dwarf cards and winners, and
/// thefts move coins without creating any.
fn check_coins(seed: u64, events: &[Event], game: &Game) {
    let mut paid = 0u32;
    let mut board = None::<Game>;
    let mut state = Game::replay(&events[..1]).unwrap();
    for e in events {
        if let Event::RoundEnded { .. } = e {
            board = Some(state.clone());
        }
        if let (Event::CoinsPaid { coins }, Some(before)) = (e, &board) {
            let Some(result) = state.results().last() else {
                panic!("coins before a round ended")
            };
            let each: u32 = match result.winners.len() {
                0 => 0,
                1 => 5,
                2 => 4,
                3 => 3,
                4 => 2,
                _ => 1,
            };
            let geologists = (0..before.players())
                .filter(|s| {
                    result.roles[*s as usize] == Role::Geologist && !before.is_trapped(Seat(*s))
                })
                .count() as u32;
            for (i, c) in coins.iter().enumerate() {
                let seat = Seat(i as u8);
                let want = match result.roles[i] {
                    Role::Geologist if !before.is_trapped(seat) => {
                        before.board().crystals() / geologists
                    }
                    _ if !result.winners.contains(&seat) => 0,
                    Role::Boss => each.saturating_sub(1),
                    Role::Profiteer => each.saturating_sub(2),
                    _ => each,
                };
                assert_eq!(
                    *c, want,
                    "seed {seed}: {seat} was paid {c}, §10.2 says {want}"
                );
                assert!(!(result.winners.contains(&seat) && before.is_trapped(seat)));
            }
            paid += coins.iter().sum::<u32>();
        }
        state.apply(e);
    }
    assert_eq!(
        game.gold().iter().sum::<u32>(),
        paid,
        "seed {seed}: thefts created or lost coins"
    );
}

static REACHED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn run_range(ruleset: Ruleset, part: u64, parts: u64) {
    let n = games();
    for seed in (0..n).filter(|s| s % parts == part) {
        // One game in ten gets the costly checks at every step.
        check_game(ruleset, seed, seed % 10 == 0);
    }
    // The games exercise the gold choosing of §7.1, not only saboteurs' wins.
    assert!(n < 100 || REACHED.load(std::sync::atomic::Ordering::Relaxed) > 0);
}

#[test]
fn random_games_part_0() {
    run_range(Ruleset::Base, 0, 4);
}
#[test]
fn saboteur2_games_part_0() {
    run_range(Ruleset::Saboteur2, 0, 4);
}
#[test]
fn random_games_part_1() {
    run_range(Ruleset::Base, 1, 4);
}
#[test]
fn saboteur2_games_part_1() {
    run_range(Ruleset::Saboteur2, 1, 4);
}
#[test]
fn random_games_part_2() {
    run_range(Ruleset::Base, 2, 4);
}
#[test]
fn saboteur2_games_part_2() {
    run_range(Ruleset::Saboteur2, 2, 4);
}
#[test]
fn random_games_part_3() {
    run_range(Ruleset::Base, 3, 4);
}
#[test]
fn saboteur2_games_part_3() {
    run_range(Ruleset::Saboteur2, 3, 4);
}

#[test]
fn the_same_seed_yields_the_same_log() {
    for seed in 0..20 {
        let a = play(Ruleset::Base, seed, false).events;
        let b = play(Ruleset::Base, seed, false).events;
        assert_eq!(a, b, "seed {seed}");
        let json = |e: &[Event]| serde_json::to_string(e).unwrap();
        assert_eq!(json(&a), json(&b));
    }
    assert_ne!(
        play(Ruleset::Base, 1, false).events,
        play(Ruleset::Base, 9, false).events
    );
    let a = play(Ruleset::Saboteur2, 3, false).events;
    assert_eq!(a, play(Ruleset::Saboteur2, 3, false).events);
}

#[test]
fn every_card_kind_appears_in_the_catalogue_counts() {
    let all = catalogue(Ruleset::Base);
    assert_eq!(all.values().sum::<usize>(), 1 + 3 + 67 + 28);
    assert_eq!(
        catalogue(Ruleset::Saboteur2).values().sum::<usize>(),
        1 + 3 + 67 + 50
    );
    assert!(all.keys().all(|c| !matches!(c.kind(), Kind::Action(a) if matches!(a, saboteur_domain::cards::Action::Theft))));
}
