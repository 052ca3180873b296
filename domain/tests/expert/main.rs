//! The expert bot: it finds the obvious in pinned positions (the winning placement, §5; the
//! broken tool for the seat that blocks, §4.1; no Map on a goal it has looked at, §4.4), it is
//! a function of its view and seed, and over many games of both rulesets every command it
//! issues is legal and its games pass the audit, which chooses every expert move again. The
//! strength bench's measurement (`expert::reveal`) tells a sampled world the part of the truth
//! it names and nothing else.
//!
//! `SABOTEUR_EXPERT_GAMES` sets the games per ruleset of the legality test (default 10).

mod games;
mod positions;

use saboteur_domain::bot::expert::Tuning;
use saboteur_domain::bot::{BotLevel, bot_game, choose};
use saboteur_domain::cards::Action;
use saboteur_domain::{
    Audience, Card, Command, Event, GOAL_CELLS, Game, Options, Ruleset, Seat, Target, audit,
    decide, legal_commands, view,
};

use games::{legal_and_audited, mixed, relabelled, same_logic};
use positions::{digger_roles, peek, play, position};

#[test]
fn rule_5_the_expert_plays_the_placement_that_reaches_the_gold_it_has_seen() {
    for players in [4u8, 7] {
        // Seat 0 looked at the middle goal: gold. The maze stops one card short of it; the
        // hand holds the winning tunnel and other playable cards that do not win.
        let mut game = position(
            players,
            digger_roles(players, 2),
            vec![
                Card::Map,
                Card::TunnelNs,
                Card::TunnelNe,
                Card::TunnelEw,
                Card::DeadendN,
                Card::BreakLantern,
            ],
            vec![
                Card::DeadendE,
                Card::DeadendNs,
                Card::DeadendN,
                Card::Rockfall,
            ],
            6,
        );
        peek(&mut game, GOAL_CELLS[1]);
        let v = view(&game, Audience::Seat(Seat(0)));
        assert_eq!(
            v.goals[1].card,
            Some(Card::GoalGold),
            "the peek is in the view"
        );
        let others: Vec<Command> = legal_commands(&game, Seat(0))
            .into_iter()
            .filter(|c| !matches!(c, Command::PlayPath { at, .. } if at.x == 7 && at.y == 0))
            .collect();
        assert!(others.len() > 5, "there are other moves to make");
        for seed in 0..6 {
            let cmd = choose(BotLevel::Expert, &v, seed).expect("a command");
            let mut after = game.clone();
            let events = decide(&after, Seat(0), &cmd).expect("legal");
            events.iter().for_each(|e| after.apply(e));
            assert!(
                events.iter().any(|e| matches!(
                    e,
                    Event::RoundEnded {
                        gold_reached_by: Some(Seat(0)),
                        ..
                    }
                )),
                "{players} players, seed {seed}: {cmd:?} does not reach the gold"
            );
        }
    }
}

#[test]
fn rule_4_1_the_expert_breaks_a_tool_of_the_seat_that_blocks() {
    for (players, blocker) in [(5u8, 3usize), (7, 2), (7, 5)] {
        // Seat `blocker` lays dead ends in front of the maze twice while the others pass; the
        // expert, a gold-digger holding only broken tools, breaks one in front of it.
        let mut game = position(
            players,
            digger_roles(players, blocker),
            vec![
                Card::BreakPickaxe,
                Card::BreakLantern,
                Card::BreakCart,
                Card::BreakPickaxe,
            ],
            vec![
                Card::DeadendE,
                Card::DeadendNs,
                Card::DeadendN,
                Card::DeadendEw,
            ],
            2,
        );
        // Seat 0 passes first, then the others play: the blocker a dead end, the rest pass.
        for _ in 0..2 {
            let pass = legal_commands(&game, Seat(0))
                .into_iter()
                .find(|c| matches!(c, Command::Pass { discard } if discard == &vec![Card::BreakPickaxe]))
                .expect("a pass");
            play(&mut game, Seat(0), &pass);
            while let Some(seat) = game.awaited() {
                if seat == Seat(0) {
                    break;
                }
                let legal = legal_commands(&game, seat);
                let cmd = if seat.index() == blocker {
                    legal
                        .iter()
                        .find(|c| matches!(c, Command::PlayPath { card, .. } if saboteur_domain::conduct::is_dead_end(*card)))
                        .cloned()
                } else {
                    None
                }
                .unwrap_or_else(|| {
                    legal
                        .into_iter()
                        .find(|c| matches!(c, Command::Pass { .. }))
                        .expect("a pass")
                });
                play(&mut game, seat, &cmd);
            }
        }
        assert_eq!(
            game.conduct()[blocker].dead_ends,
            2,
            "the blocker's acts are public"
        );
        // Seat 0 drew back two cards in the meantime: whatever they are, breaking is expected.
        let v = view(&game, Audience::Seat(Seat(0)));
        for seed in 0..4 {
            let cmd = choose(BotLevel::Expert, &v, seed).expect("a command");
            match &cmd {
                Command::PlayAction {
                    card,
                    target: Some(Target::Seat(t)),
                    ..
                } if matches!(card.action(), Some(Action::Break(_))) => {
                    assert_eq!(t.seat.index(), blocker, "{players} players, seed {seed}")
                }
                other => {
                    // A digger may first repair or dig with a card drawn; never break another.
                    assert!(
                        !matches!(other, Command::PlayAction { card, .. } if matches!(card.action(), Some(Action::Break(_)))),
                        "{other:?}"
                    );
                    panic!("{players} players, seed {seed}: the expert did not break: {other:?}");
                }
            }
        }
    }
}

#[test]
fn rule_4_4_the_expert_plays_no_map_on_a_goal_it_has_seen() {
    for players in [3u8, 5, 8] {
        // Seat 0 looked at the top goal (stone); it holds another Map and path cards far from
        // the goals. It may look at another goal, never again at the top one.
        let mut game = position(
            players,
            digger_roles(players, 1),
            vec![
                Card::Map,
                Card::Map,
                Card::TunnelNs,
                Card::DeadendE,
                Card::RepairCart,
                Card::DeadendN,
            ],
            vec![
                Card::DeadendE,
                Card::DeadendNs,
                Card::DeadendN,
                Card::Rockfall,
            ],
            1,
        );
        peek(&mut game, GOAL_CELLS[0]);
        let v = view(&game, Audience::Seat(Seat(0)));
        assert!(v.goals[0].card.is_some());
        assert!(
            legal_commands(&game, Seat(0)).iter().any(|c| matches!(
                c,
                Command::PlayAction { card: Card::Map, target: Some(Target::Cell(at)), .. } if *at == GOAL_CELLS[0]
            )),
            "a Map on the seen goal is legal"
        );
        for seed in 0..8 {
            let cmd = choose(BotLevel::Expert, &v, seed).expect("a command");
            assert!(
                !matches!(
                    cmd,
                    Command::PlayAction { card: Card::Map, target: Some(Target::Cell(at)), .. } if at == GOAL_CELLS[0]
                ),
                "{players} players, seed {seed}: a Map on a goal already seen"
            );
        }
        // Once the gold is known (the middle goal looked at too), no Map at all.
        let mut game = game.clone();
        peek(&mut game, GOAL_CELLS[1]);
        let v = view(&game, Audience::Seat(Seat(0)));
        for seed in 0..8 {
            let cmd = choose(BotLevel::Expert, &v, seed).expect("a command");
            assert!(
                !matches!(
                    cmd,
                    Command::PlayAction {
                        card: Card::Map,
                        ..
                    }
                ),
                "{players} players, seed {seed}: a Map with the gold known: {cmd:?}"
            );
        }
    }
}

#[test]
fn the_expert_issues_only_legal_commands_and_its_games_pass_the_audit_base_0() {
    legal_and_audited(Ruleset::Base, 0, 2);
}

#[test]
fn the_expert_issues_only_legal_commands_and_its_games_pass_the_audit_base_1() {
    legal_and_audited(Ruleset::Base, 1, 2);
}

#[test]
fn the_expert_issues_only_legal_commands_and_its_games_pass_the_audit_saboteur2_0() {
    legal_and_audited(Ruleset::Saboteur2, 0, 2);
}

#[test]
fn the_expert_issues_only_legal_commands_and_its_games_pass_the_audit_saboteur2_1() {
    legal_and_audited(Ruleset::Saboteur2, 1, 2);
}

#[test]
fn the_expert_is_a_function_of_its_view_and_seed() {
    for ruleset in [Ruleset::Base, Ruleset::Saboteur2] {
        let log = bot_game(
            ruleset,
            Options::default(),
            6,
            saboteur_domain::Seed::from_u64(41),
            |_, _| BotLevel::Heuristic,
        );
        let mut game = Game::replay(&log[..1]).unwrap();
        let mut checked = 0;
        for (i, e) in log[1..].iter().enumerate() {
            game.apply(e);
            let Some(seat) = game.awaited() else { continue };
            if i % 7 != 0 || *game.phase() != saboteur_domain::Phase::Playing {
                continue;
            }
            let v = view(&game, Audience::Seat(seat));
            // Through JSON and back, as the audit reads a view.
            let again: saboteur_domain::View =
                serde_json::from_str(&serde_json::to_string(&v).unwrap()).unwrap();
            let a = choose(BotLevel::Expert, &v, i as u64);
            assert_eq!(a, choose(BotLevel::Expert, &again, i as u64));
            let b = choose(BotLevel::Expert, &v, i as u64 + 1);
            let legal = legal_commands(&game, seat);
            assert!(legal.contains(&a.unwrap().canonical()));
            assert!(legal.contains(&b.unwrap().canonical()));
            checked += 1;
        }
        assert!(checked > 10, "{ruleset:?}: {checked} views");
    }
}

#[test]
fn the_audit_chooses_each_expert_move_with_the_logic_of_the_version_that_recorded_it() {
    use saboteur_domain::bot::{BOT_VERSION, BOT_VERSIONS, choose_as, decision_rng};
    assert!(BOT_VERSIONS.contains(&1) && BOT_VERSIONS.contains(&BOT_VERSION));
    let today = Tuning::of(BOT_VERSION).expect("this build's expert");
    for ruleset in [Ruleset::Base, Ruleset::Saboteur2] {
        // Games of today's experts, played as needed and shared by the versions below.
        let mut logs: Vec<(Vec<Event>, u64)> = Vec::new();
        let mut game_of = |i: usize| {
            while logs.len() <= i {
                let seed = 70 + logs.len() as u64;
                let log = bot_game(
                    ruleset,
                    Options::default(),
                    5,
                    saboteur_domain::Seed::from_u64(seed),
                    |_, s| mixed(seed, s),
                );
                let experts = log
                    .iter()
                    .filter(|e| matches!(e, Event::CommandAccepted { bot: Some(b), .. } if b.level == BotLevel::Expert))
                    .count() as u64;
                assert!(experts > 0);
                // Today's moves, checked by today's logic.
                let report = audit(&log).unwrap();
                assert_eq!(report.bot_moves_of_other_versions, 0);
                // A version newer than this build: decided again, not chosen again, counted.
                let newer = audit(&relabelled(&log, BOT_VERSION + 1)).unwrap();
                assert_eq!(newer.bot_moves_of_other_versions, experts, "{ruleset:?}");
                assert_eq!(
                    newer.bot_moves_checked + experts,
                    report.bot_moves_checked,
                    "{ruleset:?}"
                );
                logs.push((log, report.bot_moves_checked));
            }
            logs[i].clone()
        };
        for version in BOT_VERSIONS.filter(|v| *v != BOT_VERSION) {
            let older = Tuning::of(version).expect("every version in BOT_VERSIONS");
            // The same moves claimed by an older version: the audit runs that version's logic.
            // Where it is today's, every move passes; where it is not, some game has a move
            // it chooses otherwise, and the audit says so.
            let same = same_logic(older, today, ruleset);
            let mut differed = false;
            for i in 0..if same { 2 } else { 10 } {
                let (log, checked) = game_of(i);
                match audit(&relabelled(&log, version)) {
                    Ok(again) => assert_eq!(again.bot_moves_checked, checked),
                    Err(claimed) => {
                        assert!(!same, "{ruleset:?}, version {version}: {claimed}");
                        assert!(
                            claimed.what.contains("chooses another command"),
                            "{claimed}"
                        );
                        differed = true;
                        break;
                    }
                }
            }
            assert!(
                same || differed,
                "{ruleset:?}: version {version} chose every move as today"
            );
        }
    }
    // No logic for a version this build does not have.
    let log = bot_game(
        Ruleset::Base,
        Options::default(),
        4,
        saboteur_domain::Seed::from_u64(3),
        |_, _| BotLevel::Heuristic,
    );
    let mut game = Game::replay(&log[..1]).unwrap();
    for e in &log[1..] {
        game.apply(e);
        if game.awaited().is_some() {
            break;
        }
    }
    let seat = game.awaited().unwrap();
    let v = view(&game, Audience::Seat(seat));
    assert!(choose_as(BOT_VERSION, BotLevel::Expert, &v, &mut decision_rng(1)).is_some());
    for version in [0, BOT_VERSION + 1] {
        assert_eq!(
            choose_as(version, BotLevel::Expert, &v, &mut decision_rng(1)),
            None
        );
    }
}

/// The measurement's `reveal` (no level plays with it): nothing revealed leaves the sampled
/// world as drawn; each part revealed is the true game's, and only that part.
#[test]
fn a_world_told_part_of_the_truth_holds_that_part_and_only_that() {
    use saboteur_domain::bot::expert::{Reveal, reveal, world};
    let log = bot_game(
        Ruleset::Saboteur2,
        Options::default(),
        9,
        saboteur_domain::Seed::from_u64(43),
        |_, _| BotLevel::Heuristic,
    );
    let mut truth = Game::replay(&log[..1]).unwrap();
    for e in &log[1..40] {
        truth.apply(e);
    }
    let me = truth.awaited().unwrap();
    let v = view(&truth, Audience::Seat(me));
    let belief = vec![1.0; 9];
    let goals = |g: &Game| GOAL_CELLS.map(|c| g.board().get(c).map(|t| t.card));
    let cards = |g: &Game| {
        (
            g.hands().to_vec(),
            g.draw_pile().to_vec(),
            g.removed().to_vec(),
            g.discard_pile().to_vec(),
        )
    };
    let roles = |g: &Game| (g.roles().to_vec(), g.set_aside().to_vec());
    let sampled = |seed: u64| {
        world(
            &v,
            me,
            &belief,
            &mut saboteur_domain::bot::decision_rng(seed),
        )
    };
    // A sampled world that differs from the truth in each part (most do; a goal or a dwarf
    // card may be drawn right by chance).
    let drawn = (0..50)
        .map(sampled)
        .find(|w| {
            cards(w) != cards(&truth) && roles(w) != roles(&truth) && goals(w) != goals(&truth)
        })
        .expect("a world wrong in every part");
    let mut w = drawn.clone();
    reveal(&mut w, &truth, Reveal::default());
    assert_eq!(w, drawn);
    for part in 0..3 {
        let what = Reveal {
            goals: part == 0,
            roles: part == 1,
            hands: part == 2,
            piles: part == 2,
        };
        let mut w = drawn.clone();
        reveal(&mut w, &truth, what);
        assert_eq!(goals(&w) == goals(&truth), what.goals, "{what:?}");
        assert_eq!(roles(&w) == roles(&truth), what.roles, "{what:?}");
        assert_eq!(cards(&w) == cards(&truth), what.hands, "{what:?}");
        assert_eq!(w.in_front(), truth.in_front(), "public cards are the same");
    }
    // The hands alone: the piles hold the rest of the world's cards, in its order, each pile
    // of its size, so every card is still there once.
    let hands = Reveal {
        hands: true,
        ..Reveal::default()
    };
    let mut w = drawn.clone();
    reveal(&mut w, &truth, hands);
    assert_eq!(w.hands(), truth.hands());
    assert_eq!(w.draw_pile().len(), truth.draw_pile().len());
    assert_eq!(w.removed().len(), truth.removed().len());
    assert_eq!(w.discard_pile().len(), truth.discard_pile().len());
    let all = |g: &Game| {
        let mut all: Vec<Card> = g.hands().concat();
        all.extend(
            g.draw_pile()
                .iter()
                .chain(g.removed())
                .chain(g.discard_pile()),
        );
        all.sort();
        all
    };
    assert_eq!(all(&w), all(&truth), "the same cards");
    assert_ne!(
        w.draw_pile(),
        truth.draw_pile(),
        "the draw pile's order is not told"
    );
}
