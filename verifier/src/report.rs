//! How the command line says what it found: a line per check, in plain text or (with `--json`)
//! as one JSON document at the end, and the exit-code contract, which keeps a usage error and
//! an unreadable file apart from anything found in a record.
//!
//! | code | meaning |
//! |---|---|
//! | 0 | everything given verified |
//! | 1 | a discrepancy or a contradiction: the record, the receipts, the keys or the log show the server did something it must not |
//! | 2 | a receipt refused: its signature or its key does not check, so it proves nothing |
//! | 3 | everything else verified, but some moves of bot seats were made by a bot version this verifier does not have |
//! | 4 | cannot tell yet: a game whose end was signed is not in the log given, and nothing given is late enough to say it should be |
//! | 64 | usage: the arguments do not say what to check |
//! | 66 | unreadable: a file given cannot be read, or is not what it should be |

use std::sync::Mutex;

use serde::Serialize;

/// The exit codes (see the module's documentation).
pub mod code {
    /// Everything given verified.
    pub const VERIFIED: i32 = 0;
    /// A discrepancy or a contradiction.
    pub const DISCREPANCY: i32 = 1;
    /// A receipt refused.
    pub const REFUSED: i32 = 2;
    /// Moves of bot seats of a bot version this verifier does not have.
    pub const UNVOUCHED: i32 = 3;
    /// A game it cannot place in the log yet.
    pub const CANNOT_TELL: i32 = 4;
    /// The arguments do not say what to check (sysexits' `EX_USAGE`).
    pub const USAGE: i32 = 64;
    /// A file cannot be read or is not what it should be (sysexits' `EX_NOINPUT`).
    pub const UNREADABLE: i32 = 66;
}

/// The word for an exit code in the JSON document's `result`.
pub fn result_name(exit: i32) -> &'static str {
    match exit {
        code::VERIFIED => "verified",
        code::DISCREPANCY => "discrepancy",
        code::REFUSED => "refused",
        code::UNVOUCHED => "unvouched",
        code::CANNOT_TELL => "cannot_tell",
        code::USAGE => "usage",
        _ => "unreadable",
    }
}

/// What `--json` prints: the exit code, its word, what was verified and what was found (what
/// plain text writes to standard output and to standard error), each in order.
#[derive(Debug, Default, Serialize)]
pub struct Document {
    /// The exit code.
    pub exit_code: i32,
    /// Its word: `verified`, `discrepancy`, `refused`, `unvouched`, `cannot_tell`, `usage` or
    /// `unreadable`.
    pub result: &'static str,
    /// What was verified, one sentence each.
    pub verified: Vec<String>,
    /// What was found (discrepancies, refusals, what cannot be told), one sentence each.
    pub found: Vec<String>,
}

/// `None`: plain text; `Some`: the JSON document being written.
static JSON: Mutex<Option<Document>> = Mutex::new(None);

fn with_json<T>(f: impl FnOnce(&mut Option<Document>) -> T) -> T {
    match JSON.lock() {
        Ok(mut doc) => f(&mut doc),
        Err(poisoned) => f(&mut poisoned.into_inner()),
    }
}

/// Says from now on everything as one JSON document, printed at the end.
pub fn json() {
    with_json(|doc| *doc = Some(Document::default()));
}

/// Says what was verified (standard output).
pub fn said(line: impl std::fmt::Display) {
    let line = line.to_string();
    with_json(|doc| match doc {
        Some(d) => d.verified.push(line),
        None => println!("{line}"),
    });
}

/// Says what was found (standard error).
pub fn found(line: impl std::fmt::Display) {
    let line = line.to_string();
    with_json(|doc| match doc {
        Some(d) => d.found.push(line),
        None => eprintln!("{line}"),
    });
}

/// Ends the process with `exit`, after the JSON document when `--json` was given.
pub fn finish(exit: i32) -> ! {
    with_json(|doc| {
        if let Some(d) = doc.as_mut() {
            d.exit_code = exit;
            d.result = result_name(exit);
            println!("{}", serde_json::to_string_pretty(d).unwrap_or_default());
        }
    });
    std::process::exit(exit)
}

/// Ends the process with `exit` after saying why.
pub fn fail(exit: i32, why: impl std::fmt::Display) -> ! {
    found(why);
    finish(exit)
}

/// Ends the process as a run of the verifier ends: verified (0) when `run` returned, else
/// unreadable (66), naming the file.
pub fn exit_with(run: std::io::Result<()>) -> ! {
    match run {
        Ok(()) => finish(code::VERIFIED),
        Err(e) => fail(code::UNREADABLE, e),
    }
}
