//! `saboteur verify --file BUNDLE`: exits 0 for a sound record, non-zero naming the first
//! discrepancy otherwise.

use std::process::Command;

use saboteur_domain::random::below;
use saboteur_domain::{
    History, Options, Ruleset, Seat, Seed, bot::bot_rng, create, legal_commands,
};
use saboteur_verifier::audit::AuditBundle;

/// A whole game recorded as the server records it: each command, then its events.
fn recorded_game(seed: Seed) -> Vec<saboteur_domain::Event> {
    let created = create(Ruleset::Base, Options::default(), 4, Seat(0), seed).unwrap();
    let mut h = History::new(created).unwrap();
    for e in h.start().unwrap() {
        h.push(e);
    }
    let mut rng = bot_rng(seed);
    while let Some(seat) = h.game().awaited() {
        let moves = legal_commands(h.game(), seat);
        let command = &moves[below(&mut rng, moves.len())];
        for e in h.execute(seat, command).unwrap() {
            h.push(e);
        }
    }
    h.log().to_vec()
}

fn bundle() -> AuditBundle {
    let seed = Seed::from_u64(44);
    bundle_of(seed, &recorded_game(seed))
}

/// A bundle of `log`, chained as the store chains it.
fn bundle_of(seed: Seed, log: &[saboteur_domain::Event]) -> AuditBundle {
    AuditBundle::of_log("g", seed, log)
}

fn run(bundle: &AuditBundle) -> std::process::Output {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bundle.json");
    std::fs::write(&path, serde_json::to_string(bundle).unwrap()).unwrap();
    Command::new(env!("CARGO_BIN_EXE_saboteur"))
        .arg("verify")
        .arg("--file")
        .arg(&path)
        .output()
        .unwrap()
}

#[test]
fn a_sound_bundle_verifies() {
    let out = run(&bundle());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("verified:"));
}

#[test]
fn a_tampered_bundle_names_the_first_discrepancy() {
    // A changed event breaks its hash.
    let mut b = bundle();
    b.events[9].payload["seat"] = serde_json::json!(3);
    let out = run(&b);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("event 10"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A wrong seed breaks the commitment.
    let mut b = bundle();
    b.seed = Seed::from_u64(45).to_hex();
    let out = run(&b);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("commitment"));
}

/// Each kind of discrepancy names its check (`AuditError::check`) and, where it is at an event,
/// that event.
#[test]
fn each_discrepancy_names_its_check() {
    use saboteur_verifier::audit::{AuditCheck, verify};
    assert!(verify(&bundle()).is_ok());
    let failed = |b: &AuditBundle| verify(b).expect_err("a discrepancy");
    // A changed event breaks its hash.
    let mut b = bundle();
    b.events[9].payload["seat"] = serde_json::json!(3);
    let e = failed(&b);
    assert_eq!((e.check(), e.seq()), (AuditCheck::Chain, Some(10)), "{e}");
    // A wrong seed breaks the commitment.
    let mut b = bundle();
    b.seed = Seed::from_u64(45).to_hex();
    assert_eq!(failed(&b).check(), AuditCheck::Bundle);
    // A record cut before the end.
    let seed = Seed::from_u64(44);
    let log = recorded_game(seed);
    let e = failed(&bundle_of(seed, &log[..log.len() - 1]));
    assert_eq!((e.check(), e.seq()), (AuditCheck::Unfinished, None), "{e}");
    // An event left out and the chain made again: the rules decide otherwise after it.
    let mut cut = log.clone();
    cut.remove(log.len() / 2);
    let e = failed(&bundle_of(seed, &cut));
    assert_eq!(e.check(), AuditCheck::Rules, "{e}");
    assert!(e.seq().is_some_and(|s| s >= (log.len() / 2) as u64), "{e}");
}
