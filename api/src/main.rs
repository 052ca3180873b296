//! `saboteur`: the Saboteur Server binary.

#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use clap::{Parser, Subcommand};
use saboteur_api::Config;

mod verify_store;

use verify_store::{VerifyArgs, verify};

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
    /// Check an audit bundle, and receipts and log checkpoints against it: exits 1 naming the
    /// first discrepancy or the first receipt the bundle contradicts, 2 when a receipt is
    /// refused (a bad signature, an unknown key: it proves nothing), 3 when everything else
    /// verified but some bot moves were recorded by a bot version this verifier does not have
    /// (legal, but not chosen again: it cannot vouch for them).
    Verify(VerifyArgs),
    /// Manage the server's signing keys.
    Keys(KeysArgs),
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
    /// With --bots naming one level for the others: seat 0 plays at this level instead (run
    /// again without it on the same seeds to compare one seat's gold, the deals being the
    /// same).
    #[arg(long, conflicts_with_all = ["digger_bots", "saboteur_bots"])]
    seat0_bot: Option<saboteur_domain::BotLevel>,
}

#[derive(clap::Args)]
struct KeysArgs {
    #[command(subcommand)]
    command: KeysCmd,
    /// The store.
    #[arg(
        long,
        env = "DATABASE_URL",
        default_value = "sqlite://saboteur.db",
        global = true
    )]
    database_url: String,
}

#[derive(Subcommand)]
enum KeysCmd {
    /// Retire the active key (it stays published, its secret half erased from the store) and
    /// make a new one, endorsed by the active key; running servers sign with their key until
    /// they restart.
    Rotate {
        /// The active key's file, when it is kept outside the store (a server started with
        /// `--signing-key-file`): it endorses the new key.
        #[arg(long)]
        signing_key_file: Option<std::path::PathBuf>,
    },
    /// Print every key, as `GET /keys` does.
    List,
}

#[derive(clap::Args, Clone)]
struct ServeArgs {
    /// Where to listen.
    #[arg(long, default_value = "127.0.0.1:8080")]
    bind: String,
    /// The event store: `sqlite://path` (the default, created on first use) or `postgres://…`.
    #[arg(long, env = "DATABASE_URL", default_value = "sqlite://saboteur.db")]
    database_url: String,
    /// A read-only store for listings and audits (e.g. HAProxy's port of the PostgreSQL
    /// standbys): what it serves is as stale as the standby's replay; a finished game's audit
    /// is served there only once the standby holds all of it, and from the store otherwise.
    /// Nothing is ever written there.
    #[arg(long, env = "SABOTEUR_READ_DATABASE_URL")]
    read_database_url: Option<String>,
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
    /// Threads for the bots' searches, shared fairly between the clients that made the games,
    /// and as many for the audits' replays (default: one fewer than the cores, at least one;
    /// the requests keep the rest).
    #[arg(long, env = "SABOTEUR_THINKER_THREADS", default_value_t = saboteur_api::default_thinker_threads())]
    thinker_threads: usize,
    /// Sign receipts with the key in this file (64 hex digits; created when missing) instead
    /// of the key the store keeps; it is published as the active key.
    #[arg(long, env = "SABOTEUR_SIGNING_KEY_FILE")]
    signing_key_file: Option<std::path::PathBuf>,
    /// Switch the per-client limits off (benchmarks, tests driving many clients from one
    /// address). The total of lobbies and their expiry still hold.
    #[arg(long, env = "SABOTEUR_NO_LIMITS")]
    no_limits: bool,
    /// Games one client may create (`N/s`, `N/min` or `N/h`: N at once, N more per period).
    #[arg(long, env = "SABOTEUR_LIMIT_CREATES", default_value = "60/h")]
    limit_creates: saboteur_api::Rate,
    /// Seats one client may take or give to bots.
    #[arg(long, env = "SABOTEUR_LIMIT_JOINS", default_value = "120/min")]
    limit_joins: saboteur_api::Rate,
    /// Other writes one client may make: commands, talk, undo, hand-overs, keys, tokens.
    #[arg(long, env = "SABOTEUR_LIMIT_WRITES", default_value = "600/min")]
    limit_writes: saboteur_api::Rate,
    /// Reads one client may make (views, moves, events, listings, audits, streams opened).
    #[arg(long, env = "SABOTEUR_LIMIT_READS", default_value = "3000/min")]
    limit_reads: saboteur_api::Rate,
    /// Event streams one client may hold open at once (below `--max-streams`).
    #[arg(long, env = "SABOTEUR_LIMIT_STREAMS", default_value_t = 256)]
    limit_streams: usize,
    /// Requests of one client this process answers at once (streams apart); more are 429.
    #[arg(long, env = "SABOTEUR_LIMIT_IN_FLIGHT", default_value_t = 64)]
    limit_in_flight: usize,
    /// Games one client created that nobody started yet.
    #[arg(long, env = "SABOTEUR_LOBBIES_PER_CLIENT", default_value_t = 30)]
    lobbies_per_client: usize,
    /// Games nobody started yet, in all (counted in the store: every process shares it).
    #[arg(long, env = "SABOTEUR_MAX_LOBBIES", default_value_t = 10_000)]
    max_lobbies: usize,
    /// Seconds a game nobody started is listed and counted in the caps; after it, it is kept
    /// but no longer listed.
    #[arg(long, env = "SABOTEUR_LOBBY_EXPIRY", default_value_t = 86_400)]
    lobby_expiry: u64,
    /// A proxy (address or network, e.g. `10.0.0.0/8`) whose `X-Forwarded-For` names the
    /// client. Repeatable; the environment variable takes a comma-separated list.
    #[arg(long = "trusted-proxy", env = "SABOTEUR_TRUSTED_PROXIES", value_delimiter = ',', value_parser = proxy)]
    trusted_proxies: Vec<ipnet::IpNet>,
}

/// A trusted proxy: a network, or one address.
fn proxy(text: &str) -> Result<ipnet::IpNet, String> {
    text.trim()
        .parse::<ipnet::IpNet>()
        .or_else(|_| {
            text.trim()
                .parse::<std::net::IpAddr>()
                .map(ipnet::IpNet::from)
        })
        .map_err(|_| format!("{text:?} is not an address or a network (e.g. 10.0.0.0/8)"))
}

/// jemalloc: under continuous play (games loaded, dropped from the cache, loaded again) the
/// system allocator's arenas kept pages the process no longer used, and its resident memory
/// grew with time; jemalloc gives them back (BENCHMARKS.md, "Soak").
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> std::io::Result<()> {
    // Pages freed are given back to the system by jemalloc's background threads, not only
    // when an allocation happens to pass by.
    if let Err(e) = tikv_jemalloc_ctl::background_thread::write(true) {
        eprintln!("jemalloc's background threads are off: {e}");
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // `saboteur verify` keeps the verifier's exit codes: a usage error is 64, never 2 (a
        // refused receipt).
        Err(e)
            if std::env::args().nth(1).as_deref() == Some("verify")
                && !matches!(
                    e.kind(),
                    clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion
                ) =>
        {
            let _ = e.print();
            std::process::exit(saboteur_verifier::report::code::USAGE)
        }
        Err(e) => e.exit(),
    };
    match cli.command {
        Some(Cmd::Openapi) => {
            println!("{}", saboteur_api::spec_text(&saboteur_api::spec()));
            Ok(())
        }
        Some(Cmd::Serve(args)) => serve(args),
        Some(Cmd::Verify(args)) => saboteur_verifier::report::exit_with(verify(args)),
        Some(Cmd::Simulate(args)) => simulate(args),
        Some(Cmd::Keys(args)) => keys(args),
        None => serve(cli.serve),
    }
}

fn simulate(args: SimulateArgs) -> std::io::Result<()> {
    use saboteur_domain::simulate::{Seating, Simulation};
    let ruleset =
        serde_json::from_value(serde_json::json!(args.ruleset)).map_err(std::io::Error::other)?;
    let seating = match (args.digger_bots, args.saboteur_bots, args.seat0_bot) {
        (Some(diggers), Some(saboteurs), _) => Seating::ByRole { diggers, saboteurs },
        (_, _, Some(level)) => Seating::OneSeat {
            seat: 0,
            level,
            others: args
                .bots
                .first()
                .copied()
                .unwrap_or(saboteur_domain::BotLevel::Random),
        },
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

fn keys(args: KeysArgs) -> std::io::Result<()> {
    let rt = tokio::runtime::Runtime::new()?;
    rt.block_on(async {
        let store = saboteur_storage::EventStore::connect(&args.database_url)
            .await
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        let out = match args.command {
            KeysCmd::Rotate { signing_key_file } => {
                let active = match signing_key_file {
                    Some(path) => Some(saboteur_api::receipt::Signer::from_file(&path)?),
                    None => None,
                };
                serde_json::to_value(saboteur_api::rotate_signing_key(&store, active).await?)
            }
            KeysCmd::List => {
                let keys = store
                    .server_keys()
                    .await
                    .map_err(|e| std::io::Error::other(e.to_string()))?;
                serde_json::to_value(
                    keys.iter()
                        .map(saboteur_verifier::receipt::PublishedKey::from)
                        .collect::<Vec<_>>(),
                )
            }
        }
        .map_err(std::io::Error::other)?;
        println!(
            "{}",
            serde_json::to_string_pretty(&out).map_err(std::io::Error::other)?
        );
        Ok(())
    })
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
        thinker_threads: args.thinker_threads.max(1),
        signing_key_file: args.signing_key_file,
        read_database_url: args.read_database_url,
        limits: saboteur_api::Limits {
            off: args.no_limits,
            creates: args.limit_creates,
            joins: args.limit_joins,
            writes: args.limit_writes,
            reads: args.limit_reads,
            streams: args.limit_streams,
            in_flight: args.limit_in_flight.max(1),
            lobbies_per_client: args.lobbies_per_client,
            lobbies: args.max_lobbies,
            lobby_expiry: std::time::Duration::from_secs(args.lobby_expiry.max(1)),
            trusted_proxies: args.trusted_proxies,
        },
        ..Config::new(args.bind, args.database_url)
    };
    let (server, addr) = saboteur_api::start(config.clone()).await?;
    tracing::info!(
        "Saboteur Server listening on http://{addr} (store: {}{}); API docs at http://{addr}/docs/",
        without_password(&config.database_url),
        config
            .read_database_url
            .as_deref()
            .map(|u| format!(", reads: {}", without_password(u)))
            .unwrap_or_default()
    );
    server.await
}

/// A database URL as it may be logged: its password, if any, replaced by `***`.
fn without_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    match authority.rsplit_once('@') {
        Some((user, host)) if user.contains(':') => {
            let name = user.split(':').next().unwrap_or_default();
            let slash = if rest.contains('/') { "/" } else { "" };
            format!("{scheme}://{name}:***@{host}{slash}{path}")
        }
        _ => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::without_password;

    #[test]
    fn passwords_are_not_logged() {
        assert_eq!(
            without_password("postgres://app:s3cr:et@127.0.0.1:5000/db?x=1"),
            "postgres://app:***@127.0.0.1:5000/db?x=1"
        );
        assert_eq!(
            without_password("postgres://app@127.0.0.1/db"),
            "postgres://app@127.0.0.1/db"
        );
        assert_eq!(
            without_password("sqlite://saboteur.db"),
            "sqlite://saboteur.db"
        );
        assert_eq!(without_password("postgres://a:b@h"), "postgres://a:***@h");
    }
}
