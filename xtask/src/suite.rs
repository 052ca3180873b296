//! Test programs run and counted: one at a time, its output shown as it comes; or beside
//! others, its output (standard output and error, in order) kept and shown once it ends, so two
//! programs' lines never mix.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

/// How a program's tests are counted.
#[derive(Clone, Copy, PartialEq)]
pub enum Count {
    /// By its summary lines (see [`Tally::read`]).
    Lines,
    /// As one test: its exit status.
    Whole,
}

/// What a test program printed, and whether it succeeded.
pub struct Captured {
    lines: Vec<String>,
    ok: bool,
    count: Count,
}

/// The priority of a program run beside others.
#[derive(Clone, Copy, PartialEq)]
pub enum Priority {
    /// The lowest (`nice -n 19`): it takes only what the machine leaves idle. For tests that
    /// compute and time nothing.
    Idle,
    /// The same as the others': for tests that time what they wait for.
    Equal,
}

/// Runs `command` to its end at `priority`, its standard error into its standard output
/// (through `bash`, so the order of the two is kept).
pub fn captured(command: Command, count: Count, priority: Priority) -> Captured {
    let script = match priority {
        Priority::Idle => "exec nice -n 19 \"$@\" 2>&1",
        Priority::Equal => "exec \"$@\" 2>&1",
    };
    let mut merged = Command::new("bash");
    merged
        .args(["-c", script, "bash"])
        .arg(command.get_program())
        .args(command.get_args())
        .stdout(Stdio::piped());
    if let Some(dir) = command.get_current_dir() {
        merged.current_dir(dir);
    }
    for (name, value) in command.get_envs() {
        match value {
            Some(v) => merged.env(name, v),
            None => merged.env_remove(name),
        };
    }
    let mut child = match merged.spawn() {
        Ok(c) => c,
        Err(e) => {
            return Captured {
                lines: vec![format!("xtask: cannot run {command:?}: {e}")],
                ok: false,
                count,
            };
        }
    };
    let lines = child
        .stdout
        .take()
        .map(|out| BufReader::new(out).lines().map_while(Result::ok).collect())
        .unwrap_or_default();
    let ok = child.wait().is_ok_and(|s| s.success());
    Captured { lines, ok, count }
}

impl Captured {
    /// Prints the output and adds its counts to `tally`; whether the program succeeded.
    pub fn show(&self, tally: &mut Tally) -> bool {
        for line in &self.lines {
            println!("{line}");
            if self.count == Count::Lines {
                tally.read(line);
            }
        }
        if self.count == Count::Whole {
            if self.ok {
                tally.passed += 1;
            } else {
                tally.failed += 1;
            }
        }
        self.ok
    }
}

/// Counts of a test run.
#[derive(Default)]
pub struct Tally {
    /// Tests passed.
    pub passed: u64,
    /// Tests failed.
    pub failed: u64,
}

impl Tally {
    /// Adds the counts of a runner's closing line: cargo test's `test result: ok. N passed;
    /// M failed; …`, the scenario runner's `N passed, M failed`, or node's TAP summary
    /// (`# pass N`, `# fail N`).
    pub fn read(&mut self, line: &str) {
        let tap = |prefix: &str| -> Option<u64> { line.strip_prefix(prefix)?.trim().parse().ok() };
        if let Some(n) = tap("# pass ") {
            self.passed += n;
            return;
        }
        if let Some(n) = tap("# fail ") {
            self.failed += n;
            return;
        }
        let number_before = |word: &str| -> Option<u64> {
            let at = line.find(word)?;
            line[..at].split_whitespace().last()?.parse().ok()
        };
        if line.contains(" passed") && line.contains(" failed") {
            self.passed += number_before(" passed").unwrap_or(0);
            self.failed += number_before(" failed").unwrap_or(0);
        }
    }
}

/// Runs a test program, its output shown and its counts added up.
pub fn counted(mut command: Command, tally: &mut Tally) -> bool {
    let mut child = match command.stdout(Stdio::piped()).spawn() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("xtask: cannot run {command:?}: {e}");
            return false;
        }
    };
    if let Some(out) = child.stdout.take() {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            println!("{line}");
            tally.read(&line);
        }
    }
    child.wait().is_ok_and(|s| s.success())
}

/// The two halves `test` runs apart: the domain's tests (CPU alone: no server, database or
/// clock), and every other crate's (servers, databases, the cluster: timed faults).
pub(crate) const DOMAIN: [&str; 2] = ["-p", "saboteur-domain"];
pub(crate) const NOT_DOMAIN: [&str; 3] = ["--workspace", "--exclude", "saboteur-domain"];

/// The name of the HA cluster's test (`api/tests/cluster.rs`), which `test` runs apart from
/// the other servers' tests and `quick` leaves out.
pub(crate) const CLUSTER_TEST: &str = "failover_under_load";

/// Builds the tests of both halves (each its own set of features), and returns the server
/// binary the web client's and the example clients' tests run against: the one the API's
/// tests use (`CARGO_BIN_EXE_saboteur`; the dev profile keeps the engine, JSON and signatures
/// optimised).
pub(crate) fn server_binary() -> Option<std::path::PathBuf> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let built = [&NOT_DOMAIN[..], &DOMAIN[..]].iter().all(|half| {
        Command::new(&cargo)
            .current_dir(crate::host::root())
            .args(["test", "--no-run", "--quiet"])
            .args(*half)
            .status()
            .is_ok_and(|s| s.success())
    });
    if !built {
        eprintln!("xtask: building the tests failed");
        return None;
    }
    Some(crate::host::target_dir().join("debug/saboteur"))
}

/// `cargo test --workspace`, its output shown and its counts added up.
pub(crate) fn cargo_test(half: &[&str], rest: &[String]) -> Command {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut test = Command::new(cargo);
    test.current_dir(crate::host::root())
        .args(["test", "--no-fail-fast"])
        .args(half);
    if !rest.is_empty() {
        test.arg("--").args(rest);
    }
    test
}

/// `command` with the fast loops' counts of random games (unless set): `cargo xtask test`
/// plays them all.
pub(crate) fn with_games(mut command: Command) -> Command {
    for (name, games) in [
        ("SABOTEUR_GAMES", "1000"),
        ("SABOTEUR_BOT_GAMES", "200"),
        ("SABOTEUR_EXPERT_GAMES", "2"),
    ] {
        if std::env::var_os(name).is_none() {
            command.env(name, games);
        }
    }
    command
}
