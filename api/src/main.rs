//! `saboteur`: the Saboteur Server binary.

#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use clap::{Parser, Subcommand};
use saboteur_api::Config;

#[derive(Parser)]
#[command(name = "saboteur", version, about = "Runs games of Saboteur over HTTP")]
struct Cli {
    #[command(subcommand)]
    command: Option<Cmd>,
    /// Without a subcommand, `saboteur` serves with these options.
    #[command(flatten)]
    serve: ServeArgs,
}

#[derive(Subcommand)]
enum Cmd {
    /// Start the server (the default).
    Serve(ServeArgs),
    /// Print the OpenAPI specification.
    Openapi,
    /// Check an audit bundle: exits non-zero naming the first discrepancy.
    Verify(VerifyArgs),
    /// Play bot-only games at full speed, without a server, and print their statistics as
    /// JSON: win rates per role and per bot level, events, speed.
    Simulate(SimulateArgs),
}

#[derive(clap::Args)]
struct SimulateArgs {
    /// How many games.
    #[arg(long, default_value_t = 1000)]
    games: u64,
    /// Seats per game; 0 cycles over every count the ruleset allows.
    #[arg(long, default_value_t = 5)]
    players: u8,
    /// `base` or `saboteur2`.
    #[arg(long, default_value = "base", value_parser = ["base", "saboteur2"])]
    ruleset: String,
    /// The first game's seed; game i uses seed S + i.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Bot levels per seat, cycling from seat 0: e.g. `heuristic,random`.
    #[arg(long, value_delimiter = ',', default_value = "random")]
    bots: Vec<saboteur_domain::BotLevel>,
    /// Instead of --bots: the level of every seat not holding a saboteur card, decided at each
    /// move from the dealt card (needs --saboteur-bots).
    #[arg(long, requires = "saboteur_bots")]
    digger_bots: Option<saboteur_domain::BotLevel>,
    /// Instead of --bots: the level of every seat holding a saboteur card.
    #[arg(long, requires = "digger_bots")]
    saboteur_bots: Option<saboteur_domain::BotLevel>,
}

#[derive(clap::Args)]
struct VerifyArgs {
    /// A bundle downloaded from `GET /games/{id}/audit`.
    #[arg(long, group = "source", required_unless_present = "game")]
    file: Option<std::path::PathBuf>,
    /// A finished game in the store named by `--database-url`.
    #[arg(long, group = "source")]
    game: Option<String>,
    /// The store, for `--game`.
    #[arg(long, env = "DATABASE_URL", default_value = "sqlite://saboteur.db")]
    database_url: String,
}

#[derive(clap::Args, Clone)]
struct ServeArgs {
    /// Where to listen.
    #[arg(long, default_value = "127.0.0.1:8080")]
    bind: String,
    /// The event store: `sqlite://path` (the default, created on first use) or `postgres://…`.
    #[arg(long, env = "DATABASE_URL", default_value = "sqlite://saboteur.db")]
    database_url: String,
    /// Accept a fixed seed when a game is created (testing only: a known seed makes every
    /// shuffle predictable).
    #[arg(long)]
    allow_fixed_seed: bool,
    /// The memory budget of the games held in memory, in bytes (finished and idle games are
    /// dropped first beyond it, and read again from the store when needed).
    #[arg(long, default_value_t = saboteur_api::DEFAULT_CACHE_BYTES)]
    cache_bytes: usize,
    /// The most event streams this process serves at once; beyond, 503 with `Retry-After`.
    #[arg(long, default_value_t = saboteur_api::DEFAULT_MAX_STREAMS)]
    max_streams: usize,
    /// Seconds a request's head, and then its body, may take to arrive.
    #[arg(long, default_value_t = 10)]
    body_timeout: u64,
}

fn main() -> std::io::Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Some(Cmd::Openapi) => {
            println!(
                "{}",
                saboteur_api::spec()
                    .to_pretty_json()
                    .map_err(std::io::Error::other)?
            );
            Ok(())
        }
        Some(Cmd::Serve(args)) => serve(args),
        Some(Cmd::Verify(args)) => verify(args),
        Some(Cmd::Simulate(args)) => simulate(args),
        None => serve(cli.serve),
    }
}

fn simulate(args: SimulateArgs) -> std::io::Result<()> {
    use saboteur_domain::simulate::{Seating, Simulation};
    let ruleset =
        serde_json::from_value(serde_json::json!(args.ruleset)).map_err(std::io::Error::other)?;
    let seating = match (args.digger_bots, args.saboteur_bots) {
        (Some(diggers), Some(saboteurs)) => Seating::ByRole { diggers, saboteurs },
        _ => Seating::PerSeat(args.bots),
    };
    let sim = Simulation {
        ruleset,
        options: saboteur_domain::Options::default(),
        players: args.players,
        games: args.games,
        seed: args.seed,
        seating,
    };
    let started = std::time::Instant::now();
    let logs: Vec<_> = (0..sim.games).map(|i| sim.play(i)).collect();
    let play_seconds = started.elapsed().as_secs_f64();
    if logs.iter().any(Vec::is_empty) {
        eprintln!(
            "{} players cannot play {}: base seats 3-10, saboteur2 2-12",
            args.players, args.ruleset
        );
        std::process::exit(2);
    }
    let started = std::time::Instant::now();
    for log in &logs {
        if saboteur_domain::Game::replay(log).is_none() {
            return Err(std::io::Error::other("a bot game's log does not replay"));
        }
    }
    let replay_seconds = started.elapsed().as_secs_f64();
    let stats = sim.statistics(&logs);
    let figures = serde_json::json!({
        "simulation": sim,
        "statistics": stats,
        "play_seconds": play_seconds,
        "replay_events_per_second": (stats.events as f64 / replay_seconds.max(1e-9)).round(),
    });
    println!(
        "{}",
        serde_json::to_string_pretty(&figures).map_err(std::io::Error::other)?
    );
    Ok(())
}

fn verify(args: VerifyArgs) -> std::io::Result<()> {
    let bundle = match (&args.file, &args.game) {
        (Some(path), _) => {
            let text = std::fs::read_to_string(path)?;
            serde_json::from_str(&text).map_err(|e| {
                std::io::Error::other(format!("{}: not a bundle: {e}", path.display()))
            })?
        }
        (None, Some(id)) => {
            let rt = tokio::runtime::Runtime::new()?;
            rt.block_on(async {
                let store = saboteur_storage::EventStore::connect(&args.database_url)
                    .await
                    .map_err(|e| std::io::Error::other(e.to_string()))?;
                saboteur_api::audit::bundle_from_store(&store, id)
                    .await
                    .map_err(|e| std::io::Error::other(e.to_string()))
            })?
        }
        (None, None) => {
            return Err(std::io::Error::other("give --file or --game"));
        }
    };
    match saboteur_api::audit::verify(&bundle) {
        Ok(report) => {
            println!(
                "verified: {}",
                serde_json::to_string(&report).unwrap_or_default()
            );
            Ok(())
        }
        Err(discrepancy) => {
            eprintln!("first discrepancy: {discrepancy}");
            std::process::exit(1);
        }
    }
}

#[actix_web::main]
async fn serve(args: ServeArgs) -> std::io::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        .init();
    let config = Config {
        allow_fixed_seed: args.allow_fixed_seed,
        cache_bytes: args.cache_bytes,
        max_streams: args.max_streams,
        body_timeout: std::time::Duration::from_secs(args.body_timeout.max(1)),
        ..Config::new(args.bind, args.database_url)
    };
    let (server, addr) = saboteur_api::start(config.clone()).await?;
    tracing::info!(
        "Saboteur Server listening on http://{addr} (store: {}); API docs at http://{addr}/docs/",
        config.database_url
    );
    server.await
}
