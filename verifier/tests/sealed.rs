//! Property over thousands of random games: the chain hides what an audience may not see.
//!
//! For every event of every game (seeds 0..N, both rulesets, 3 to 10 players; N is 1,000, or a
//! tenth of `SABOTEUR_GAMES`) and every audience that does not see everything (each seat, a
//! spectator), each value hidden from the audience is changed to another of its kind, all else
//! kept. Then nothing public may change but the commitments: the event as the audience is served
//! it, and the sealed form the chain hashes with its commitments masked, are the same. Each
//! commitment is a keyed hash under a salt the audience cannot compute before the seed is
//! revealed, and binds its value: the changed value's commitment differs, and so does the
//! chain's hash. The audience is given the salts of what it sees, and of nothing else.

use saboteur_domain::bot::random_game;
use saboteur_domain::{Audience, Card, Event, Options, Role, Ruleset, Seat, Seed, redact};
use saboteur_verifier::hash::{GENESIS, chain_hash};
use saboteur_verifier::seal::{Sealer, hidden_paths};
use serde_json::Value;

/// A tenth of `SABOTEUR_GAMES` (each game is checked for every audience, event by event), at
/// least 100; 1,000 when it is not set, as in `cargo xtask test`.
fn games() -> u64 {
    std::env::var("SABOTEUR_GAMES")
        .ok()
        .and_then(|n| n.parse::<u64>().ok())
        .map_or(1000, |n| (n / 10).max(100))
}

/// Another value of the same kind: the first card, role, seed, flag or number in `v` changed
/// (another card, another role, another seed); `false` when `v` holds none of them.
fn change(v: &mut Value) -> bool {
    match v {
        Value::String(s) => {
            if let Ok(card) = serde_json::from_value::<Card>(Value::String(s.clone())) {
                let other = if card == Card::TunnelEw {
                    Card::TunnelNs
                } else {
                    Card::TunnelEw
                };
                *v = serde_json::to_value(other).unwrap();
            } else if let Ok(role) = serde_json::from_value::<Role>(Value::String(s.clone())) {
                let other = if role == Role::Saboteur {
                    Role::GoldDigger
                } else {
                    Role::Saboteur
                };
                *v = serde_json::to_value(other).unwrap();
            } else if let Some(seed) = Seed::from_hex(s) {
                let mut bytes = seed.0;
                bytes[0] ^= 1;
                *v = Value::String(Seed(bytes).to_hex());
            } else {
                return false;
            }
            true
        }
        Value::Bool(b) => {
            *b = !*b;
            true
        }
        Value::Array(a) => a.iter_mut().any(change),
        Value::Object(o) => o.values_mut().any(change),
        Value::Number(n) => {
            *v = Value::from(n.as_u64().unwrap_or(0) + 1);
            true
        }
        Value::Null => false,
    }
}

/// `v` with every commitment masked.
fn masked(v: &Value) -> Value {
    match v {
        Value::Object(o) if o.len() == 1 && o.contains_key("commitment") => {
            serde_json::json!({"commitment": "…"})
        }
        Value::Object(o) => Value::Object(o.iter().map(|(k, x)| (k.clone(), masked(x))).collect()),
        Value::Array(a) => Value::Array(a.iter().map(masked).collect()),
        other => other.clone(),
    }
}

/// Checks one event for one audience; the number of hidden values changed.
/// What one event is sealed as: its payload, its sealed form, and the chain's hash of it.
struct Sealed {
    payload: Value,
    sealed: Value,
    head: String,
}

fn check(sealer: &Sealer, seq: i64, event: &Event, audience: Audience, s: &Sealed) -> usize {
    let Sealed {
        payload,
        sealed,
        head,
    } = s;
    let served = serde_json::to_value(redact(event, audience, false)).unwrap();
    // The audience is given the salt of exactly what it sees.
    for opening in sealer.openings(seq, event, payload, audience) {
        let seen = served.pointer(&opening.path) == payload.pointer(&opening.path);
        assert_eq!(
            opening.salt.is_some(),
            seen,
            "event {seq} {}: {opening:?}",
            event.kind()
        );
    }
    let paths = hidden_paths(payload, &served);
    // Every hidden value changed at once, everything public kept.
    let mut other = payload.clone();
    let paths: Vec<String> = paths
        .into_iter()
        .filter(|p| change(other.pointer_mut(p).unwrap()))
        .collect();
    if paths.is_empty() {
        return 0;
    }
    let what = format!("event {seq} {} for {audience:?}", event.kind());
    let other_event: Event = serde_json::from_value(other.clone())
        .unwrap_or_else(|e| panic!("{what}: the changed event does not read back: {e}"));
    assert_eq!(
        serde_json::to_value(redact(&other_event, audience, false)).unwrap(),
        served,
        "{what}: the event served changed"
    );
    let other_sealed = sealer.sealed(seq, &other_event, &other);
    assert_eq!(
        masked(&other_sealed),
        masked(sealed),
        "{what}: the sealed form changed"
    );
    for path in &paths {
        // The hidden value stands in the sealed form as a commitment only, which binds it.
        let commitment = |v: &Value| {
            let mut p = path.clone();
            loop {
                if let Some(c) = v.pointer(&format!("{p}/commitment")) {
                    return c.clone();
                }
                let cut = p
                    .rfind('/')
                    .unwrap_or_else(|| panic!("{what}: {path} is not sealed"));
                p.truncate(cut);
            }
        };
        assert_ne!(
            commitment(&other_sealed),
            commitment(sealed),
            "{what} {path}: the commitment binds nothing"
        );
    }
    assert_ne!(
        &chain_hash(GENESIS, "g", seq, event.kind(), 1, &other_sealed),
        head,
        "{what}"
    );
    paths.len()
}

/// The hidden values changed in game `n` (seed `n`, the ruleset and players it picks), each
/// checked for every audience event by event.
fn changes_in_game(n: u64) -> usize {
    let ruleset = if n.is_multiple_of(2) {
        Ruleset::Base
    } else {
        Ruleset::Saboteur2
    };
    let players = 3 + (n % 8) as u8;
    let log = random_game(ruleset, Options::default(), players, Seed::from_u64(n));
    let Some(sealer) = log.first().and_then(|c| Sealer::for_game("g", c)) else {
        assert!(log.is_empty(), "game {n}: a new game must seal its chain");
        return 0;
    };
    let mut audiences: Vec<Audience> = (0..players).map(|s| Audience::Seat(Seat(s))).collect();
    audiences.push(Audience::Spectator);
    let mut changed = 0;
    for (event, seq) in log.iter().zip(1..) {
        let payload = serde_json::to_value(event).unwrap();
        let sealed = sealer.sealed(seq, event, &payload);
        let head = chain_hash(GENESIS, "g", seq, event.kind(), 1, &sealed);
        let s = Sealed {
            payload,
            sealed,
            head,
        };
        for &audience in &audiences {
            changed += check(&sealer, seq, event, audience, &s);
        }
    }
    changed
}

/// The games are shared among the machine's cores: each game is checked alone.
#[test]
fn the_chain_changes_only_in_commitments_when_a_hidden_value_changes() {
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get() as u64);
    let changed: usize = std::thread::scope(|scope| {
        let each: Vec<_> = (0..workers)
            .map(|w| {
                scope.spawn(move || {
                    (0..games())
                        .filter(|n| n % workers == w)
                        .map(changes_in_game)
                        .sum::<usize>()
                })
            })
            .collect();
        each.into_iter()
            .map(|h| h.join().expect("a worker panicked"))
            .sum()
    });
    assert!(
        changed > games() as usize * 100,
        "only {changed} hidden values were changed"
    );
}

/// A game of record version 5 or older chains each event as stored, and still verifies so; a
/// game of record version 6 chains it sealed, and a chain of its events as stored is refused.
#[test]
fn an_older_record_chains_as_stored_and_a_new_one_sealed() {
    use saboteur_verifier::audit::{AuditBundle, verify};
    let seed = Seed::from_u64(3);
    let log = random_game(Ruleset::Base, Options::default(), 4, seed);
    // Chained as the store chains it (sealed from record version 6), or each event as stored.
    let sealed = |log: &[Event]| AuditBundle::of_log("g", seed, log);
    let as_stored = |log: &[Event]| {
        let mut b = AuditBundle::of_log("g", seed, log);
        let mut prev = GENESIS.to_string();
        for e in &mut b.events {
            e.prev_hash = prev.clone();
            e.hash = chain_hash(
                &prev,
                "g",
                e.seq,
                &e.event_type,
                e.schema_version,
                &e.payload,
            );
            prev = e.hash.clone();
        }
        b
    };
    let mut older = log.clone();
    if let Event::GameCreated { record_version, .. } = &mut older[0] {
        assert!(
            *record_version >= saboteur_domain::options::SEALED_RECORD_VERSION,
            "new games are created sealed"
        );
        *record_version = 5;
    }
    assert!(
        verify(&as_stored(&older)).is_ok(),
        "record version 5, chained as stored"
    );
    assert!(
        verify(&sealed(&log)).is_ok(),
        "record version 6, chained sealed"
    );
    let unsealed = verify(&as_stored(&log)).unwrap_err().to_string();
    assert!(unsealed.contains("do not match its hash"), "{unsealed}");
}
