//! Plays bot games and prints one JSON object of figures.
//!
//! `cargo run --release -p saboteur-domain --example simulate -- --games N --players P --seed S`

use std::collections::BTreeMap;
use std::time::Instant;

use clap::Parser;
use saboteur_domain::bot::random_game;
use saboteur_domain::{Event, Game, Options, Role, Ruleset, Seed};

#[derive(Parser)]
#[command(about = "Plays games between random bots and prints statistics as JSON")]
struct Args {
    /// How many games.
    #[arg(long, default_value_t = 1000)]
    games: u64,
    /// Players per game.
    #[arg(long, default_value_t = 5)]
    players: u8,
    /// The first game's seed; game i uses seed S + i.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// `base` or `saboteur2`.
    #[arg(long, default_value = "base")]
    ruleset: String,
}

fn main() {
    let args = Args::parse();
    let ruleset = match args.ruleset.as_str() {
        "base" => Ruleset::Base,
        "saboteur2" => Ruleset::Saboteur2,
        other => {
            eprintln!("unknown ruleset {other:?}: use base or saboteur2");
            std::process::exit(2);
        }
    };
    let logs: Vec<Vec<Event>> = (0..args.games)
        .map(|i| {
            random_game(
                ruleset,
                Options::default(),
                args.players,
                Seed::from_u64(args.seed + i),
            )
        })
        .collect();
    if logs.iter().any(|l| l.is_empty()) {
        eprintln!("{} players cannot play {}", args.players, args.ruleset);
        std::process::exit(2);
    }
    let events: usize = logs.iter().map(Vec::len).sum();
    let (mut rounds, mut digger_wins) = (0u64, 0u64);
    // Per role: (rounds held, rounds won).
    let mut roles: BTreeMap<Role, (u64, u64)> = BTreeMap::new();
    for log in &logs {
        for e in log {
            if let Event::RoundEnded {
                gold_reached_by,
                roles: dealt,
                winners,
                ..
            } = e
            {
                rounds += 1;
                let diggers = dealt
                    .iter()
                    .any(|r| matches!(r, Role::GoldDigger | Role::GreenDigger | Role::BlueDigger));
                let digger_won = winners.iter().any(|s| {
                    matches!(
                        dealt[s.index()],
                        Role::GoldDigger | Role::GreenDigger | Role::BlueDigger
                    )
                });
                if gold_reached_by.is_some() && diggers && digger_won {
                    digger_wins += 1;
                }
                for (i, role) in dealt.iter().enumerate() {
                    let entry = roles.entry(*role).or_default();
                    entry.0 += 1;
                    entry.1 += u64::from(winners.iter().any(|s| s.index() == i));
                }
            }
        }
    }
    let role_win_rate: BTreeMap<String, f64> = roles
        .iter()
        .map(|(role, (held, won))| {
            let name = serde_json::to_value(role)
                .expect("a role")
                .as_str()
                .unwrap_or("")
                .to_string();
            (name, *won as f64 / (*held).max(1) as f64)
        })
        .collect();
    let started = Instant::now();
    let mut finished = 0;
    for log in &logs {
        let game = Game::replay(log).expect("a log starts with game_created");
        finished += usize::from(game.round == 3);
    }
    let seconds = started.elapsed().as_secs_f64();
    let figures = serde_json::json!({
        "ruleset": args.ruleset,
        "players": args.players,
        "games": args.games,
        "finished_games": finished,
        "rounds": rounds,
        "events": events,
        "events_per_game": events as f64 / args.games.max(1) as f64,
        "gold_digger_round_win_rate": digger_wins as f64 / rounds.max(1) as f64,
        "role_round_win_rate": role_win_rate,
        "replay_events_per_second": (events as f64 / seconds.max(1e-9)).round(),
    });
    println!("{}", serde_json::to_string_pretty(&figures).expect("JSON"));
}
