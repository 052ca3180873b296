//! The expert bot's strength, in games paired by seed: each seed is played twice, with the
//! same deals, once by a baseline seating and once with one side's or one seat's level
//! swapped, so the luck of the deal cancels in the difference. Prints each figure with its
//! 95 % confidence interval.
//!
//! `cargo bench -p saboteur-domain --bench strength` — `SABOTEUR_STRENGTH_GAMES` paired games
//! per figure (default 200), `SABOTEUR_STRENGTH_FIGURES` a comma-separated subset of
//! `base_diggers`, `base_saboteurs`, `s2_saboteurs`, `s2_seat` (default all),
//! `SABOTEUR_STRENGTH_SEED` the first game's seed (default 1,000,000; the games play it and
//! the seeds after it), `SABOTEUR_STRENGTH_REVEAL` a comma-separated subset of `goals`,
//! `roles`, `hands`, `cards` (the hands and the piles) or `none` that the expert's search is
//! told of the true game (see `expert::Reveal`: a measurement of what knowing them is worth;
//! no level plays so),
//! `SABOTEUR_STRENGTH_BUDGET` `worlds,candidates,turns[,margin]` the expert's budget (and
//! margin) in both rulesets in place of this version's, to try a variant.

use std::time::Instant;

use saboteur_domain::bot::BotLevel::{Expert as E, Heuristic as H};
use saboteur_domain::bot::expert::{Budget, Reveal, Tuning, command_sampled, reveal, world};
use saboteur_domain::bot::{decision_rng, decision_seed};
use saboteur_domain::simulate::{Estimate, RoundFigures, Seating, Simulation, rounds};
use saboteur_domain::{Audience, BOT_VERSION, Event, Options, Role, Ruleset, view};

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

fn sim(ruleset: Ruleset, games: u64, seating: Seating) -> Simulation {
    Simulation {
        ruleset,
        options: Options::default(),
        players: 0,
        games,
        seed: env("SABOTEUR_STRENGTH_SEED")
            .map(|v| v.parse().expect("SABOTEUR_STRENGTH_SEED is a number"))
            .unwrap_or(1_000_000),
        seating,
    }
}

/// What `SABOTEUR_STRENGTH_REVEAL` tells the expert's search and the tuning
/// `SABOTEUR_STRENGTH_BUDGET` gives it, if either is set.
fn searched() -> Option<(Reveal, Tuning)> {
    let names = env("SABOTEUR_STRENGTH_REVEAL");
    let budget = env("SABOTEUR_STRENGTH_BUDGET");
    if names.is_none() && budget.is_none() {
        return None;
    }
    let mut what = Reveal::default();
    for name in names.as_deref().unwrap_or("none").split(',') {
        match name.trim() {
            "goals" => what.goals = true,
            "roles" => what.roles = true,
            "hands" => what.hands = true,
            "cards" => {
                what.hands = true;
                what.piles = true;
            }
            "none" | "" => {}
            other => panic!("SABOTEUR_STRENGTH_REVEAL: unknown part {other}"),
        }
    }
    let mut tuning = Tuning::of(BOT_VERSION).expect("this build's expert");
    if let Some(budget) = budget {
        let v: Vec<f64> = budget
            .split(',')
            .map(|x| x.trim().parse().expect("SABOTEUR_STRENGTH_BUDGET: numbers"))
            .collect();
        assert!(
            v.len() == 3 || v.len() == 4,
            "SABOTEUR_STRENGTH_BUDGET: worlds,candidates,turns[,margin]"
        );
        let b = Budget {
            worlds: v[0] as usize,
            candidates: v[1] as usize,
            horizon: v[2] as usize,
        };
        tuning.base = b;
        tuning.saboteur2 = b;
        if let Some(margin) = v.get(3) {
            tuning.margin = *margin;
        }
    }
    Some((what, tuning))
}

/// Game `i` of `sim` as [`Simulation::play`] plays it, but every expert decision searched as
/// `tuning` says in worlds that are told `what` of the true game. With nothing revealed and
/// this version's tuning the game is the one `Simulation::play` records (without the bots'
/// records), so the figures are the same.
fn revealed_game(sim: &Simulation, i: u64, what: Reveal, tuning: Tuning) -> Vec<Event> {
    sim.play_with(i, |history, seat, level| {
        if level != E {
            return history.execute_bot(seat, level);
        }
        let game = history.game();
        let mut rng = decision_rng(decision_seed(&game.seed(), history.version()));
        let command = command_sampled(
            &view(game, Audience::Seat(seat)),
            tuning,
            &mut rng,
            |v, me, belief, rng| {
                let mut w = world(v, me, belief, rng);
                reveal(&mut w, game, what);
                w
            },
        )?;
        history.execute(seat, &command).ok()
    })
}

/// Every game's rounds under `sim`, in the order of their seeds. The games are shared out
/// over the machine's cores (`SABOTEUR_STRENGTH_THREADS` to choose); each is a pure function
/// of its seed, so the figures do not depend on how many threads played them.
fn play(sim: &Simulation) -> Vec<Vec<RoundFigures>> {
    let searched = searched();
    let threads = env("SABOTEUR_STRENGTH_THREADS")
        .and_then(|v| v.parse().ok())
        .or_else(|| std::thread::available_parallelism().ok().map(|n| n.get()))
        .unwrap_or(1)
        .max(1) as u64;
    let mut out: Vec<Vec<RoundFigures>> = vec![Vec::new(); sim.games as usize];
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                s.spawn(move || {
                    (t..sim.games)
                        .step_by(threads as usize)
                        .map(|i| match searched {
                            Some((what, tuning)) => {
                                (i, rounds(&revealed_game(sim, i, what, tuning)))
                            }
                            None => (i, rounds(&sim.play(i))),
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for h in handles {
            for (i, r) in h.join().expect("a game panicked") {
                out[i as usize] = r;
            }
        }
    });
    out
}

/// Per game, the share of its rounds with a saboteur dealt that satisfy `f` (games without
/// such a round left out of both sides of the pair).
fn rates(
    a: &[Vec<RoundFigures>],
    b: &[Vec<RoundFigures>],
    f: fn(&RoundFigures) -> bool,
) -> (Vec<f64>, Vec<f64>) {
    let share = |rs: &Vec<RoundFigures>| {
        let with: Vec<&RoundFigures> = rs.iter().filter(|r| r.has_saboteur()).collect();
        (!with.is_empty()).then(|| with.iter().filter(|r| f(r)).count() as f64 / with.len() as f64)
    };
    a.iter()
        .zip(b)
        .filter_map(|(x, y)| Some((share(x)?, share(y)?)))
        .unzip()
}

/// The side's round win rate by player count, without and with the expert: every round with a
/// saboteur dealt, pooled.
fn by_players(a: &[Vec<RoundFigures>], b: &[Vec<RoundFigures>], f: fn(&RoundFigures) -> bool) {
    let mut counts: std::collections::BTreeMap<usize, (usize, usize, usize)> = Default::default();
    for (x, y) in a.iter().zip(b) {
        for (rx, ry) in x.iter().zip(y) {
            if !rx.has_saboteur() || !ry.has_saboteur() {
                continue;
            }
            let e = counts.entry(rx.roles.len()).or_default();
            e.0 += 1;
            e.1 += usize::from(f(rx));
            e.2 += usize::from(f(ry));
        }
    }
    let line: Vec<String> = counts
        .iter()
        .map(|(n, (r, h, e))| {
            format!(
                "{n}: {:.1} → {:.1} % ({r})",
                100.0 * *h as f64 / *r as f64,
                100.0 * *e as f64 / *r as f64
            )
        })
        .collect();
    println!(
        "  by players (heuristic → expert, rounds): {}",
        line.join("; ")
    );
}

fn show(name: &str, e: Estimate) -> String {
    format!(
        "{name}: {:.3} ± {:.3} (95 % CI, {} paired games)",
        e.mean, e.half_width, e.samples
    )
}

fn main() {
    let games: u64 = env("SABOTEUR_STRENGTH_GAMES")
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let figures = env("SABOTEUR_STRENGTH_FIGURES")
        .unwrap_or_else(|| "base_diggers,base_saboteurs,s2_saboteurs,s2_seat".into());
    println!(
        "expert strength, {games} games per figure, players cycling over each ruleset's range"
    );
    for figure in figures.split(',') {
        let started = Instant::now();
        match figure {
            "base_diggers" | "base_saboteurs" => {
                let hh = play(&sim(
                    Ruleset::Base,
                    games,
                    Seating::ByRole {
                        diggers: H,
                        saboteurs: H,
                    },
                ));
                let (diggers, saboteurs, f): (_, _, fn(&RoundFigures) -> bool) =
                    if figure == "base_diggers" {
                        (E, H, RoundFigures::diggers_won)
                    } else {
                        (H, E, RoundFigures::saboteurs_won)
                    };
                let x = play(&sim(
                    Ruleset::Base,
                    games,
                    Seating::ByRole { diggers, saboteurs },
                ));
                let (a, b) = rates(&hh, &x, f);
                by_players(&hh, &x, f);
                println!(
                    "base, {figure}: heuristic vs heuristic {}; with the expert {}; {}",
                    show("rate", Estimate::of(&a)),
                    show("rate", Estimate::of(&b)),
                    show("difference", Estimate::paired(&a, &b))
                );
            }
            "s2_saboteurs" => {
                let hh = play(&sim(
                    Ruleset::Saboteur2,
                    games,
                    Seating::ByRole {
                        diggers: H,
                        saboteurs: H,
                    },
                ));
                let he = play(&sim(
                    Ruleset::Saboteur2,
                    games,
                    Seating::ByRole {
                        diggers: H,
                        saboteurs: E,
                    },
                ));
                let (a, b) = rates(&hh, &he, RoundFigures::saboteurs_won);
                by_players(&hh, &he, RoundFigures::saboteurs_won);
                println!(
                    "saboteur2, saboteurs' round win rate against heuristic diggers: heuristic {}; expert {}; {}",
                    show("rate", Estimate::of(&a)),
                    show("rate", Estimate::of(&b)),
                    show("difference", Estimate::paired(&a, &b))
                );
            }
            "s2_seat" => {
                let base = play(&sim(Ruleset::Saboteur2, games, Seating::PerSeat(vec![H])));
                let one = play(&sim(
                    Ruleset::Saboteur2,
                    games,
                    Seating::OneSeat {
                        seat: 0,
                        level: E,
                        others: H,
                    },
                ));
                // Seat 0's coins per round, by its dwarf card, heuristic then expert.
                let mut by_role: std::collections::BTreeMap<Role, (Vec<f64>, Vec<f64>)> =
                    Default::default();
                let (mut a, mut b) = (Vec::new(), Vec::new());
                for (x, y) in base.iter().zip(&one) {
                    let total =
                        |rs: &Vec<RoundFigures>| rs.iter().map(|r| r.gold[0] as f64).sum::<f64>();
                    a.push(total(x));
                    b.push(total(y));
                    for (rx, ry) in x.iter().zip(y) {
                        let e = by_role.entry(rx.roles[0]).or_default();
                        e.0.push(rx.gold[0] as f64);
                        e.1.push(ry.gold[0] as f64);
                    }
                }
                let (ea, eb) = (Estimate::of(&a), Estimate::of(&b));
                println!(
                    "saboteur2, seat 0's coins per game: heuristic {}; expert {}; {}; ratio {:.2}",
                    show("coins", ea),
                    show("coins", eb),
                    show("difference", Estimate::paired(&a, &b)),
                    eb.mean / ea.mean.max(1e-9)
                );
                let mut ratios = Vec::new();
                for (role, (x, y)) in &by_role {
                    let (ex, ey) = (Estimate::of(x), Estimate::of(y));
                    let ratio = ey.mean / ex.mean.max(1e-9);
                    ratios.push(ratio);
                    println!(
                        "  {role:?} (seat 0's card that round, the same in both games of a pair): heuristic {:.2}, expert {:.2} coins per round ({} rounds), ratio {ratio:.2}",
                        ex.mean, ey.mean, ex.samples
                    );
                }
                println!(
                    "  ratio averaged over the dwarf cards: {:.2}",
                    ratios.iter().sum::<f64>() / ratios.len().max(1) as f64
                );
            }
            other => println!("unknown figure {other}"),
        }
        println!("  ({figure}: {:.0} s)", started.elapsed().as_secs_f64());
    }
}
