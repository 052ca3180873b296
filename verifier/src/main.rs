//! `saboteur-verify`: the offline checks of `saboteur verify`, without the server.

#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use clap::Parser;

/// Check an audit bundle, and receipts and log checkpoints against it: exits 1 naming the
/// first discrepancy or the first receipt the bundle contradicts, 2 when a receipt is
/// refused (a bad signature, an unknown key: it proves nothing), 3 when everything else
/// verified but some bot moves were recorded by a bot version this verifier does not have
/// (legal, but not chosen again: it cannot vouch for them).
#[derive(Parser)]
#[command(name = "saboteur-verify", version)]
struct Cli {
    #[command(flatten)]
    args: saboteur_verifier::cli::VerifyArgs,
}

fn main() -> std::io::Result<()> {
    saboteur_verifier::cli::verify(Cli::parse().args)
}
