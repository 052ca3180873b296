//! The exit-code contract of `saboteur-verify`, run as an auditor runs it: the binary built from
//! this crate alone, on files. A usage error (64) and a file that cannot be read or is not a
//! bundle (66) are never mistaken for a discrepancy (1) or a refused receipt (2); `--json` says
//! the same as one document.

use std::path::Path;
use std::process::{Command, Output};

use saboteur_domain::bot::random_game;
use saboteur_domain::{Options, Ruleset, Seed};
use saboteur_verifier::audit::AuditBundle;
use serde_json::Value;

/// A finished random game's bundle, chained as the store chains it (sealed, record version 6).
fn bundle() -> AuditBundle {
    let seed = Seed::from_u64(5);
    AuditBundle::of_log(
        "g",
        seed,
        &random_game(Ruleset::Base, Options::default(), 4, seed),
    )
}

fn verify(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_saboteur-verify"))
        .args(args)
        .output()
        .expect("saboteur-verify runs")
}

fn said(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
fn each_outcome_has_its_own_exit_code_in_text_and_in_json() {
    let dir = tempfile::tempdir().unwrap();
    let honest = serde_json::to_string(&bundle()).unwrap();
    let good = write(dir.path(), "good.json", &honest);
    let mut changed: Value = serde_json::from_str(&honest).unwrap();
    changed["events"][3]["payload"]["first_player"] = Value::from(9);
    let bad = write(dir.path(), "bad.json", &changed.to_string());
    let not_json = write(dir.path(), "not.json", "{ this is not JSON");
    let missing = dir.path().join("missing.json").display().to_string();

    let cases: [(&str, Vec<&str>, i32, &str); 6] = [
        ("an honest bundle", vec!["--file", &good], 0, "verified"),
        ("a changed bundle", vec!["--file", &bad], 1, "discrepancy"),
        (
            "no file at that path",
            vec!["--file", &missing],
            66,
            "unreadable",
        ),
        (
            "a file that is not JSON",
            vec!["--file", &not_json],
            66,
            "unreadable",
        ),
        ("nothing to check", vec!["--unfinished"], 64, "usage"),
        (
            "a bad player key",
            vec!["--file", &good, "--player-key", "zero"],
            64,
            "usage",
        ),
    ];
    for (what, args, code, result) in cases {
        let out = verify(&args);
        assert_eq!(out.status.code(), Some(code), "{what}: {}", said(&out));
        let mut json_args = args.clone();
        json_args.push("--json");
        let out = verify(&json_args);
        assert_eq!(
            out.status.code(),
            Some(code),
            "{what}, --json: {}",
            said(&out)
        );
        let doc: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{what}: --json printed no JSON ({e}): {}", said(&out)));
        assert_eq!(doc["exit_code"], code, "{what}: {doc}");
        assert_eq!(doc["result"], result, "{what}: {doc}");
        let lines = if code == 0 {
            &doc["verified"]
        } else {
            &doc["found"]
        };
        assert!(
            lines.as_array().is_some_and(|l| !l.is_empty()),
            "{what}: --json says why: {doc}"
        );
    }
    // An argument clap does not know is a usage error too, not a refused receipt.
    let out = verify(&["--file", &good, "--no-such-flag"]);
    assert_eq!(out.status.code(), Some(64), "{}", said(&out));
    assert_eq!(verify(&["--help"]).status.code(), Some(0));
}
