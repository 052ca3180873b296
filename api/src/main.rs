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
        None => serve(cli.serve),
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
