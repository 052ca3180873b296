//! The expert bot's decision time: many real mid-game views (every few decisions of games
//! played by heuristic bots, all three rounds) at 3 and 10 players (base) and 12 (Saboteur 2),
//! each decided once by this build's expert (`BOT_VERSION`) at its budget, on one thread.
//! Prints the median, the 90th and 99th percentiles and the slowest decision per setting, and
//! what the time says of the deciding seat's hidden team (a timing side channel: the time is
//! public, the dwarf card is not); then the time the audit takes to choose every move of a whole
//! expert game again.
//!
//! `cargo bench -p saboteur-domain --bench expert` (`SABOTEUR_EXPERT_VIEWS` views per setting,
//! default 300; `SABOTEUR_EXPERT_BUDGET=worlds,candidates,horizon` to try another budget).

use std::time::Instant;

use saboteur_domain::bot::BOT_VERSION;
use saboteur_domain::bot::expert::{Budget, Tuning, command_with};
use saboteur_domain::bot::{BotLevel, bot_game, decision_rng};
use saboteur_domain::{
    Audience, Event, Game, Options, Phase, Role, Ruleset, Seed, View, audit, view,
};

/// Views of the seat to move while playing, every `step`-th decision of heuristic games.
fn views(ruleset: Ruleset, players: u8, count: usize) -> Vec<View> {
    let mut out = Vec::new();
    let mut seed = 0;
    while out.len() < count {
        let log = bot_game(
            ruleset,
            Options::default(),
            players,
            Seed::from_u64(seed),
            |_, _| BotLevel::Heuristic,
        );
        let mut game = Game::replay(&log[..1]).expect("created");
        let mut k = 0;
        for e in &log[1..] {
            game.apply(e);
            if *game.phase() != Phase::Playing {
                continue;
            }
            let Some(seat) = game.awaited() else { continue };
            k += 1;
            if k % 3 == seed as usize % 3 && out.len() < count {
                out.push(view(&game, Audience::Seat(seat)));
            }
        }
        seed += 1;
    }
    out
}

/// What the time a decision takes says of the deciding seat's hidden dwarf card: the median
/// time of saboteurs' and of the others' decisions, and how often the best threshold on the
/// time alone names a seat's team right, against always guessing the commoner team.
fn timing_leak(name: &str, decisions: &mut [(f64, bool)]) {
    decisions.sort_by(|a, b| a.0.total_cmp(&b.0));
    let median = |saboteur: bool| {
        let t: Vec<f64> = decisions
            .iter()
            .filter(|d| d.1 == saboteur)
            .map(|d| d.0)
            .collect();
        if t.is_empty() {
            f64::NAN
        } else {
            t[t.len() / 2]
        }
    };
    let n = decisions.len();
    let saboteurs = decisions.iter().filter(|d| d.1).count();
    let base_rate = saboteurs.max(n - saboteurs) as f64 / n as f64;
    // Every threshold, either way round: saboteurs slower, or saboteurs faster.
    let mut best = base_rate;
    let mut below_saboteurs = 0;
    for (i, d) in decisions.iter().enumerate() {
        below_saboteurs += usize::from(d.1);
        let below = i + 1;
        let slower = (below - below_saboteurs) + (saboteurs - below_saboteurs);
        best = best
            .max(slower as f64 / n as f64)
            .max((n - slower) as f64 / n as f64);
    }
    println!(
        "{name}: median {:.1} ms for saboteurs' decisions, {:.1} ms for the others'; the time alone names the team right {:.0}% of the time at best, {:.0}% by always guessing the commoner",
        median(true),
        median(false),
        best * 100.0,
        base_rate * 100.0
    );
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

fn main() {
    let count: usize = std::env::var("SABOTEUR_EXPERT_VIEWS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300);
    let budget = std::env::var("SABOTEUR_EXPERT_BUDGET").ok().and_then(|v| {
        let p: Vec<usize> = v.split(',').filter_map(|x| x.parse().ok()).collect();
        (p.len() == 3).then(|| Budget {
            worlds: p[0],
            candidates: p[1],
            horizon: p[2],
        })
    });
    let mut tuning = Tuning::of(BOT_VERSION).expect("this build's expert");
    if let Some(budget) = budget {
        tuning.base = budget;
        tuning.saboteur2 = budget;
    }
    println!("expert decision time, version {BOT_VERSION}, {tuning:?}, {count} views per setting");
    for (name, ruleset, players) in [
        ("base/3_players", Ruleset::Base, 3),
        ("base/10_players", Ruleset::Base, 10),
        ("saboteur2/12_players", Ruleset::Saboteur2, 12),
    ] {
        let views = views(ruleset, players, count);
        let mut ms: Vec<f64> = Vec::with_capacity(views.len());
        let mut by_role: Vec<(f64, bool)> = Vec::with_capacity(views.len());
        for (i, v) in views.iter().enumerate() {
            let started = Instant::now();
            let cmd = command_with(v, tuning, &mut decision_rng(i as u64));
            let took = started.elapsed().as_secs_f64() * 1e3;
            ms.push(took);
            by_role.push((took, v.role == Some(Role::Saboteur)));
            assert!(cmd.is_some(), "{name}: no command");
        }
        timing_leak(name, &mut by_role);
        ms.sort_by(f64::total_cmp);
        println!(
            "{name}: median {:.1} ms, p90 {:.1} ms, p99 {:.1} ms, max {:.1} ms ({} views)",
            percentile(&ms, 0.5),
            percentile(&ms, 0.9),
            percentile(&ms, 0.99),
            ms[ms.len() - 1],
            ms.len()
        );
    }
    // The audit of whole games played by experts alone: every expert move chosen again.
    for (name, ruleset, players) in [
        ("base/5_players", Ruleset::Base, 5),
        ("saboteur2/8_players", Ruleset::Saboteur2, 8),
    ] {
        let log = bot_game(
            ruleset,
            Options::default(),
            players,
            Seed::from_u64(11),
            |_, _| BotLevel::Expert,
        );
        let moves = log
            .iter()
            .filter(|e| matches!(e, Event::CommandAccepted { bot: Some(_), .. }))
            .count();
        let started = Instant::now();
        let report = audit(&log).expect("the game passes its audit");
        let seconds = started.elapsed().as_secs_f64();
        assert_eq!(report.bot_moves_checked as usize, moves);
        println!(
            "audit of an expert game, {name}: {moves} expert moves chosen again in {:.2} s, {:.2} s per 100 moves",
            seconds,
            seconds * 100.0 / moves.max(1) as f64
        );
    }
}
