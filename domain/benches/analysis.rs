//! The post-game analysis's time (`saboteur_domain::analyse`): whole 12-player Saboteur 2
//! games played by heuristic bots, then the analysis of each seat in turn, on one thread. Every
//! move of a heuristic bot the expert would not have made is valued beside the candidates, so
//! this is about the most an analysis searches. Prints per game the median and the slowest
//! seat and the moves analysed, then the same over every seat of every game. The target: at
//! most 5 s a seat on one core.
//!
//! `cargo bench -p saboteur-domain --bench analysis` (`SABOTEUR_ANALYSIS_GAMES` games, default
//! 3, from `SABOTEUR_ANALYSIS_SEED`, default 1; `SABOTEUR_ANALYSIS_PLAYERS`, default 12;
//! `SABOTEUR_ANALYSIS_RULESET=base` for the base game).

use std::time::Instant;

use saboteur_domain::bot::{BotLevel, bot_game};
use saboteur_domain::{Event, History, Options, Ruleset, Seat, Seed, analyse};

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// One game's log, and each seat's analysis time in seconds with its moves and those that
/// were not the expert's.
fn game(ruleset: Ruleset, seed: u64, players: u8) -> (Vec<Event>, Vec<(f64, usize, usize)>) {
    let log = bot_game(
        ruleset,
        Options::default(),
        players,
        Seed::from_u64(seed),
        |_, _| BotLevel::Heuristic,
    );
    assert!(matches!(log.last(), Some(Event::GameEnded { .. })));
    let history = History::replay(log.iter().cloned()).expect("a whole game");
    let seats = (0..players)
        .map(|seat| {
            let started = Instant::now();
            let analysis = analyse(&history, Seat(seat)).expect("a finished game");
            let took = started.elapsed().as_secs_f64();
            let differed = analysis
                .decisions
                .iter()
                .filter(|d| d.played.canonical() != d.suggested.canonical())
                .count();
            (took, analysis.decisions.len(), differed)
        })
        .collect();
    (log, seats)
}

fn main() {
    let from = env("SABOTEUR_ANALYSIS_SEED", 1);
    let games = env("SABOTEUR_ANALYSIS_GAMES", 3);
    let players = env("SABOTEUR_ANALYSIS_PLAYERS", 12) as u8;
    let ruleset = match std::env::var("SABOTEUR_ANALYSIS_RULESET").as_deref() {
        Ok("base") => Ruleset::Base,
        _ => Ruleset::Saboteur2,
    };
    println!("analysis of {ruleset:?} games of {players} heuristic bots, each seat on one thread");
    let mut all: Vec<(f64, usize, usize)> = Vec::new();
    for seed in from..from + games {
        let (log, seats) = game(ruleset, seed, players);
        let mut seconds: Vec<f64> = seats.iter().map(|s| s.0).collect();
        seconds.sort_by(f64::total_cmp);
        let moves: usize = seats.iter().map(|s| s.1).sum();
        let differed: usize = seats.iter().map(|s| s.2).sum();
        println!(
            "seed {seed}, {} events: per seat median {:.2} s, slowest {:.2} s; {moves} moves \
             ({differed} not the expert's), {}-{} a seat",
            log.len(),
            seconds[seconds.len() / 2],
            seconds[seconds.len() - 1],
            seats.iter().map(|s| s.1).min().unwrap_or(0),
            seats.iter().map(|s| s.1).max().unwrap_or(0),
        );
        all.extend(seats);
    }
    let moves: usize = all.iter().map(|s| s.1).sum();
    let total: f64 = all.iter().map(|s| s.0).sum();
    let mut seconds: Vec<f64> = all.iter().map(|s| s.0).collect();
    seconds.sort_by(f64::total_cmp);
    println!(
        "all {} seats: median {:.2} s, slowest {:.2} s; {moves} moves, {:.1} ms a move",
        seconds.len(),
        seconds[seconds.len() / 2],
        seconds[seconds.len() - 1],
        total * 1e3 / moves.max(1) as f64
    );
}
