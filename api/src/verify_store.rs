//! `saboteur verify`: the verifier's command line (`saboteur_verifier::cli`, the same as
//! `saboteur-verify`), with one source more: a finished game's bundle read from the store
//! (`--game`).

/// `saboteur-verify`'s arguments, and `--game` with its store.
#[derive(clap::Args)]
#[group(skip)]
pub(crate) struct VerifyArgs {
    #[command(flatten)]
    pub(crate) checks: saboteur_verifier::cli::VerifyArgs,
    /// A finished game in the store named by `--database-url`.
    #[arg(long, group = "source")]
    pub(crate) game: Option<String>,
    /// The store, for `--game`.
    #[arg(long, env = "DATABASE_URL", default_value = "sqlite://saboteur.db")]
    pub(crate) database_url: String,
}

/// Checks what `args` names, with the bundle of `--file` or of `--game`.
pub(crate) fn verify(args: VerifyArgs) -> std::io::Result<()> {
    if args.checks.json {
        saboteur_verifier::report::json();
    }
    let bundle = match (&args.checks.file, &args.game) {
        (None, Some(id)) => {
            let rt = tokio::runtime::Runtime::new()?;
            Some(rt.block_on(async {
                let store = saboteur_storage::EventStore::connect(&args.database_url)
                    .await
                    .map_err(|e| std::io::Error::other(e.to_string()))?;
                let id = saboteur_storage::GameId::parse(id)
                    .map_err(|e| std::io::Error::other(e.to_string()))?;
                saboteur_api::audit::bundle_from_store(&store.reader(), &id)
                    .await
                    .map_err(|e| std::io::Error::other(e.to_string()))
            })?)
        }
        _ => saboteur_verifier::cli::load_bundle(&args.checks)?,
    };
    saboteur_verifier::cli::verify_with(&args.checks, bundle)
}
