//! `saboteur`: the Saboteur Server binary.

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
}

#[derive(clap::Args)]
#[group(required = true, multiple = false)]
struct VerifyArgs {
    /// A bundle downloaded from `GET /games/{id}/audit`.
    #[arg(long)]
    file: Option<std::path::PathBuf>,
    /// A finished game in the store named by `--database-url`.
    #[arg(long)]
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
        None => serve(cli.serve),
    }
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
        (None, None) => unreachable!("clap requires one of --file and --game"),
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
        bind: args.bind,
        database_url: args.database_url,
        allow_fixed_seed: args.allow_fixed_seed,
    };
    let (server, addr) = saboteur_api::start(config.clone()).await?;
    tracing::info!(
        "Saboteur Server listening on http://{addr} (store: {}); API docs at http://{addr}/docs/",
        config.database_url
    );
    server.await
}
