//! The server's tests in lanes (`cargo xtask quick api`, and `cargo xtask test` but the
//! cluster's): the test programs of every crate but the domain run a few at a time instead of
//! one after another (most of their time is spent waiting on servers, databases and clocks),
//! then the tests that measure run alone.

use std::collections::VecDeque;
use std::process::Command;
use std::sync::{Arc, Mutex};

use crate::host::root;
use crate::suite::{self, Count, NOT_DOMAIN, Priority, Tally, cargo_test, counted, with_games};

/// How many test programs run at once.
const LANES: usize = 3;

/// The fault suite's tests that measure latency (each holds `harness::alone()` in
/// `api/tests/faults/`): they run after the lanes, with nothing beside them. A test in the
/// xtask checks that every test holding `alone()` is named here.
pub(crate) const MEASURED: [&str; 2] = [
    "a_flood_of_games_is_capped",
    "strangers_take_no_more_than_their_share",
];

/// The test program that holds the tests of [`MEASURED`].
const FAULTS: &str = "faults";

/// The integration test targets of every workspace crate but the domain, by name, as `cargo
/// metadata` lists them; the longest first (those known to be: the fault suite and the API's).
fn test_targets() -> Result<Vec<String>, String> {
    let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .current_dir(root())
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .output()
        .map_err(|e| format!("cannot run cargo metadata: {e}"))?;
    let metadata: serde_json::Value =
        serde_json::from_slice(&out.stdout).map_err(|e| format!("cargo metadata's output: {e}"))?;
    let mut names: Vec<String> = metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| p["name"] != "saboteur-domain")
        .flat_map(|p| p["targets"].as_array().cloned().unwrap_or_default())
        .filter(|t| {
            t["kind"]
                .as_array()
                .is_some_and(|k| k.iter().any(|k| k == "test"))
        })
        .filter_map(|t| t["name"].as_str().map(str::to_string))
        .collect();
    names.sort();
    names.dedup();
    let first = |name: &String| ![FAULTS, "api"].contains(&name.as_str());
    names.sort_by_key(first);
    Ok(names)
}

/// How many random games the lanes' programs play.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Games {
    /// The fast loop's counts ([`with_games`]).
    Fewer,
    /// Every one (`cargo xtask test`).
    All,
}

/// One test program of the lanes: `cargo test` of the same crates as the whole loop (so the
/// features, hence the build, are the same), its targets narrowed by `targets`.
fn job(targets: &[&str], args: &[String], games: Games) -> Command {
    let mut half: Vec<&str> = NOT_DOMAIN.to_vec();
    half.extend_from_slice(targets);
    let test = cargo_test(&half, args);
    match games {
        Games::Fewer => with_games(test),
        Games::All => test,
    }
}

/// Runs every test program of the crates but the domain's in [`LANES`] lanes (each program's
/// output shown whole once it ends), then the [`MEASURED`] tests alone; whether all passed.
/// `args` go to every program; with a filter of the caller's among them, the programs run one
/// after another instead.
pub(crate) fn api(args: &[String], games: Games, tally: &mut Tally) -> bool {
    if names_tests(args) {
        // A filter of the caller's: the programs one after another, as cargo runs them.
        return counted(job(&[], args, games), tally);
    }
    let targets = match test_targets() {
        Ok(t) => t,
        Err(e) => {
            eprintln!("xtask: {e}");
            return false;
        }
    };
    let mut skipping: Vec<String> = args.to_vec();
    for name in MEASURED {
        skipping.extend(["--skip".to_string(), name.to_string()]);
    }
    let mut jobs: VecDeque<Command> = targets
        .iter()
        .map(|t| {
            let args = if t == FAULTS { &skipping } else { args };
            job(&["--test", t], args, games)
        })
        .collect();
    jobs.push_back(job(&["--lib", "--bins"], args, games));
    jobs.push_back(job(&["--doc"], args, games));
    let jobs = Arc::new(Mutex::new(jobs));
    let done = Arc::new(Mutex::new((Tally::default(), true)));
    let lanes: Vec<_> = (0..LANES)
        .map(|_| {
            let (jobs, done) = (jobs.clone(), done.clone());
            std::thread::spawn(move || {
                while let Some(job) = jobs.lock().ok().and_then(|mut j| j.pop_front()) {
                    let run = suite::captured(job, Count::Lines, Priority::Equal);
                    if let Ok(mut done) = done.lock() {
                        let (tally, ok) = &mut *done;
                        *ok &= run.show(tally);
                    }
                }
            })
        })
        .collect();
    let mut ok = lanes.into_iter().all(|lane| lane.join().is_ok());
    if let Ok(done) = done.lock() {
        tally.passed += done.0.passed;
        tally.failed += done.0.failed;
        ok &= done.1;
    }
    // The measuring tests, alone: a filter per name (cargo runs those matching any).
    let mut measured: Vec<String> = MEASURED.map(String::from).to_vec();
    measured.extend_from_slice(args);
    ok & counted(job(&["--test", FAULTS], &measured, games), tally)
}

/// Whether `args` (after cargo test's `--`) hold a filter naming tests, besides `--skip`s and
/// other flags.
fn names_tests(args: &[String]) -> bool {
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        if arg == "--skip" {
            args.next();
        } else if !arg.starts_with('-') {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::{MEASURED, names_tests};

    #[test]
    fn a_filter_is_told_from_skips_and_flags() {
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(!names_tests(&args(&["--skip", "postgres", "--nocapture"])));
        assert!(names_tests(&args(&["--skip", "postgres", "hostile"])));
    }

    /// Every test of the fault suite that holds `alone()` is one [`MEASURED`] names, so the
    /// lanes never run a measurement beside other programs.
    #[test]
    fn every_measuring_test_is_named() {
        let dir = crate::host::root().join("api/tests/faults");
        let mut files = vec![dir.clone()];
        let mut holders = Vec::new();
        while let Some(path) = files.pop() {
            if path.is_dir() {
                files.extend(
                    std::fs::read_dir(&path)
                        .unwrap()
                        .flatten()
                        .map(|e| e.path()),
                );
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let mut test = None;
            for line in text.lines() {
                let line_start = line.trim_start();
                let named = line_start.strip_prefix("async ").unwrap_or(line_start);
                if let Some(name) = named.strip_prefix("fn ") {
                    test = name.split('(').next().map(str::to_string);
                }
                if line.contains("harness::alone()") {
                    holders.push(test.clone().unwrap_or_default());
                }
            }
        }
        assert!(
            !holders.is_empty(),
            "no test holds alone() in {}",
            dir.display()
        );
        for holder in holders {
            assert!(
                MEASURED.iter().any(|m| holder.contains(m)),
                "{holder} holds alone() but MEASURED does not name it"
            );
        }
    }
}
