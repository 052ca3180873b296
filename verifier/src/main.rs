//! `saboteur-verify`: the offline checks of `saboteur verify`, without the server.

#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use clap::Parser;
use clap::error::ErrorKind;
use saboteur_verifier::report::{code, exit_with};

/// Check an audit bundle, and receipts, commitments, keys and the transparency log against it
/// (or receipts and the log alone). Exit codes: 0 everything verified; 1 a discrepancy or a
/// contradiction, named; 2 a receipt refused (a bad signature, an unknown key: it proves
/// nothing); 3 everything else verified, but some moves of bot seats were recorded by a bot
/// version this verifier does not have; 4 cannot tell yet (a game whose end was signed is not
/// in the log given, and nothing given is late enough to say it should be); 64 a usage error;
/// 66 a file that cannot be read or is not what it should be.
#[derive(Parser)]
#[command(name = "saboteur-verify", version)]
struct Cli {
    #[command(flatten)]
    args: saboteur_verifier::cli::VerifyArgs,
}

fn main() {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            e.exit()
        }
        Err(e) => {
            // A usage error is never mistaken for a finding (2 is a refused receipt).
            let _ = e.print();
            std::process::exit(code::USAGE)
        }
    };
    exit_with(saboteur_verifier::cli::verify(cli.args))
}
