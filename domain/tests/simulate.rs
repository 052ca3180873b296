//! Simulations: each round's gold adds up to each seat's final total, every dwarf card has a
//! win measure, and one seat's level can be swapped on the same deals.

use saboteur_domain::bot::BotLevel;
use saboteur_domain::simulate::{Estimate, Seating, Simulation, rounds};
use saboteur_domain::{Event, Game, Options, Role, Ruleset};

fn sim(ruleset: Ruleset, games: u64, seating: Seating) -> Simulation {
    Simulation {
        ruleset,
        options: Options::default(),
        players: 0,
        games,
        seed: 300,
        seating,
    }
}

#[test]
fn each_rounds_gold_adds_up_to_the_final_totals() {
    for ruleset in [Ruleset::Base, Ruleset::Saboteur2] {
        let s = sim(ruleset, 12, Seating::PerSeat(vec![BotLevel::Heuristic]));
        for i in 0..s.games {
            let log = s.play(i);
            let rs = rounds(&log);
            assert_eq!(rs.len(), 3, "{ruleset:?} game {i}: three rounds");
            let game = Game::replay(&log).unwrap();
            for seat in 0..game.n() {
                let sum: i64 = rs.iter().map(|r| r.gold[seat]).sum();
                assert_eq!(
                    sum,
                    i64::from(game.gold()[seat]),
                    "{ruleset:?} game {i} seat {seat}"
                );
            }
            for r in &rs {
                assert!(!(r.diggers_won() && r.saboteurs_won()));
            }
        }
    }
}

#[test]
fn every_dwarf_card_has_a_win_measure_in_saboteur2() {
    let s = sim(
        Ruleset::Saboteur2,
        33,
        Seating::PerSeat(vec![BotLevel::Heuristic]),
    );
    let logs: Vec<Vec<Event>> = (0..s.games).map(|i| s.play(i)).collect();
    let stats = s.statistics(&logs);
    for role in [
        Role::GreenDigger,
        Role::BlueDigger,
        Role::Boss,
        Role::Geologist,
        Role::Profiteer,
        Role::Saboteur,
    ] {
        let gold = stats.role_round_gold.get(&role).copied();
        assert!(gold.is_some_and(|g| g > 0.0), "{role:?}: {gold:?}");
    }
    assert!(
        stats
            .level_role_round_gold
            .contains_key("heuristic/geologist")
    );
}

#[test]
fn one_seat_plays_at_its_level_on_the_same_deals() {
    let seating = Seating::OneSeat {
        seat: 1,
        level: BotLevel::Random,
        others: BotLevel::Heuristic,
    };
    assert_eq!(seating.level(1, None), BotLevel::Random);
    assert_eq!(seating.level(0, Some(Role::Saboteur)), BotLevel::Heuristic);
    let a = sim(
        Ruleset::Base,
        4,
        Seating::PerSeat(vec![BotLevel::Heuristic]),
    );
    let b = sim(Ruleset::Base, 4, seating);
    for i in 0..4 {
        let (la, lb) = (a.play(i), b.play(i));
        // The same deal, then seat 1's moves differ.
        assert_eq!(la[..2], lb[..2]);
        assert_ne!(la, lb);
        let random_moves = lb
            .iter()
            .filter(|e| {
                matches!(e, Event::CommandAccepted { seat, bot: Some(m), .. }
                    if m.level == BotLevel::Random && seat.index() == 1)
            })
            .count();
        let others_random = lb
            .iter()
            .filter(|e| {
                matches!(e, Event::CommandAccepted { seat, bot: Some(m), .. }
                    if m.level == BotLevel::Random && seat.index() != 1)
            })
            .count();
        assert!(random_moves > 0 && others_random == 0);
    }
    let e = Estimate::paired(&[1.0, 2.0, 3.0], &[2.0, 3.0, 5.0]);
    assert!((e.mean - 4.0 / 3.0).abs() < 1e-12 && e.half_width > 0.0 && e.samples == 3);
}
