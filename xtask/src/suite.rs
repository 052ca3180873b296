//! A test program run beside others: its output (standard output and error, in order) kept
//! and shown once it ends, so two programs' lines never mix.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use crate::Tally;

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

/// Runs `command` to its end, its standard error into its standard output (through `bash`,
/// so the order of the two is kept).
pub fn captured(command: Command, count: Count) -> Captured {
    let mut merged = Command::new("bash");
    merged
        .args(["-c", "exec \"$@\" 2>&1", "bash"])
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
