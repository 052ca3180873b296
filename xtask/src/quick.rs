//! `cargo xtask quick [domain|bots|api]`: the fast loops while changing code, whole or one
//! layer's.

use std::path::Path;
use std::process::{Command, ExitCode};

use crate::host::root;
use crate::suite::{
    self, CLUSTER_TEST, Count, DOMAIN, NOT_DOMAIN, Priority, Tally, cargo_test, counted,
    server_binary, with_games,
};

/// One layer's loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Layer {
    /// The rules: the engine's unit tests, scenarios, golden logs, properties, histories,
    /// signatures and the rest of `domain/tests/`, but the bots' searches.
    Domain,
    /// The bots' and the analysis' searches (`domain/tests/{bots,expert,analysis}`).
    Bots,
    /// Every crate's tests but the domain's, on SQLite: the verifier, the store, the server
    /// and the end-to-end tests, their programs a few at a time, then the tests that measure
    /// alone (`lanes.rs`).
    Api,
}

/// The domain's test files that run the bots' searches: the `bots` loop's, left out of the
/// `domain` loop.
const SEARCHES: [&str; 3] = ["analysis", "bots", "expert"];

/// The fast loop: every crate's tests without those that need PostgreSQL (every one is named
/// for its backend: `postgres`) or the HA cluster (`failover_under_load`), and with a tenth of
/// the random games of the domain's property and bot tests (set the variables to choose
/// otherwise; `cargo xtask test` plays them all). The domain's run beside the others, their
/// output shown when they end. With a `layer`, that layer's tests alone.
pub(crate) fn quick(layer: Option<Layer>, rest: &[String]) -> ExitCode {
    let mut args: Vec<String> = ["--skip", "postgres", "--skip", CLUSTER_TEST]
        .map(String::from)
        .to_vec();
    args.extend_from_slice(rest);
    let mut tally = Tally::default();
    let ok = match layer {
        Some(Layer::Domain) => counted(with_games(domain_tests(false, &args)), &mut tally),
        Some(Layer::Bots) => counted(with_games(domain_tests(true, &args)), &mut tally),
        Some(Layer::Api) => {
            server_binary().is_some()
                && crate::lanes::api(&args, crate::lanes::Games::Fewer, &mut tally)
        }
        None => {
            if server_binary().is_none() {
                return ExitCode::FAILURE;
            }
            let domain = std::thread::spawn({
                let command = with_games(cargo_test(&DOMAIN, &args));
                move || suite::captured(command, Count::Lines, Priority::Idle)
            });
            let ok = counted(with_games(cargo_test(&NOT_DOMAIN, &args)), &mut tally);
            match domain.join() {
                Ok(run) => ok & run.show(&mut tally),
                Err(_) => false,
            }
        }
    };
    println!("total: {} passed, {} failed", tally.passed, tally.failed);
    if ok && tally.failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// `cargo test` of the domain's searching test files (`searches`), or of all the others with
/// its unit tests; `args` after `--`.
fn domain_tests(searches: bool, args: &[String]) -> Command {
    let mut half: Vec<String> = DOMAIN.map(String::from).to_vec();
    if !searches {
        half.push("--lib".to_string());
    }
    for name in test_files(&root().join("domain/tests")) {
        if SEARCHES.contains(&name.as_str()) == searches {
            half.extend(["--test".to_string(), name]);
        }
    }
    let half: Vec<&str> = half.iter().map(String::as_str).collect();
    cargo_test(&half, args)
}

/// The integration test targets of a `tests/` folder: each `x.rs`, and each `x/main.rs`.
fn test_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let path = entry.path();
            let name = path.file_stem()?.to_str()?.to_string();
            let is_test = if path.is_dir() {
                path.join("main.rs").is_file()
            } else {
                path.extension().is_some_and(|e| e == "rs")
            };
            is_test.then_some(name)
        })
        .collect();
    names.sort();
    names
}
