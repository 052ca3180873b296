//! What a receipt costs a reply: the served body serialised alone, its `view_hash` (RFC 8785
//! form and SHA-256), and the whole receipt (hash, receipt's canonical form, Ed25519
//! signature), for a seat's view of a 5-player game at version 60, and the check of a signature.
//!
//! `cargo bench -p saboteur-api --bench receipts`

use std::hint::black_box;
use std::time::Instant;

use saboteur_api::receipt::Signer;
use saboteur_domain::bot::random_game;
use saboteur_domain::{Audience, History, Options, Ruleset, Seat, Seed};
use saboteur_verifier::receipt::{Receipt, ReceiptAudience, ReceiptKind, canonicalised, view_hash};
use sha2::{Digest, Sha256};

fn per_op(what: &str, n: u32, mut f: impl FnMut()) {
    let started = Instant::now();
    for _ in 0..n {
        f();
    }
    let each = started.elapsed() / n;
    println!("{what}: {:.1} µs", each.as_secs_f64() * 1e6);
}

fn main() {
    let log = random_game(Ruleset::Base, Options::default(), 5, Seed::from_u64(3));
    let history = History::replay(log).expect("a game");
    let game = history.state_at(60).expect("version 60");
    let view = saboteur_domain::view(&game, Audience::Seat(Seat(1)));
    let body = serde_json::json!({ "version": 60, "view": view });
    println!("body: {} bytes", body.to_string().len());
    let signer = Signer::from_secret(&[1; 32]);
    let receipt = |hash: String| Receipt {
        kind: ReceiptKind::View,
        game_id: "0e4f0c6a-6f2b-4b0e-9d0e-5b8d3c1f2a11".into(),
        version: 60,
        first: None,
        head: "a".repeat(64),
        served_at: "2026-11-23T19:00:00.000Z".into(),
        audience: ReceiptAudience::Seat,
        seat: Some(1),
        view_hash: hash,
        request_hash: None,
        key_id: String::new(),
        signature: String::new(),
    };
    let n = 20_000;
    per_op("serialising the body alone", n, || {
        black_box(serde_json::to_vec(black_box(&body)).ok());
    });
    per_op("view_hash", n, || {
        black_box(view_hash(black_box(&body)));
    });
    per_op(
        "view_hash by the general canonicaliser (the path before 0.5.0)",
        n,
        || {
            black_box(hex::encode(Sha256::digest(canonicalised(black_box(&body)))));
        },
    );
    per_op(
        "a signed receipt (view_hash, canonical form, Ed25519)",
        n,
        || {
            black_box(signer.sign(receipt(view_hash(black_box(&body)))));
        },
    );
    let signed = signer.sign(receipt(view_hash(&body)));
    let keys = [signer.published()];
    per_op("checking a receipt's signature", n, || {
        black_box(signed.check_signature(black_box(&keys)).is_ok());
    });
}
