//! Receipts make a rewritten record provable: a game is played over HTTP keeping every body
//! served; an operator then rewrites the finished game in the database (triggers dropped, the
//! chain and the transparency log recomputed); `saboteur verify --receipts` names the first
//! receipt the rewritten bundle contradicts. Untouched, the receipts agree; a forged one is
//! refused.

#[macro_use]
#[path = "../operator/mod.rs"]
mod operator;

mod deal;
mod keys;
mod rewrite;
mod seats;

use std::process::Command;

use operator::*;
use serde_json::{Value, json};

/// Plays a game of one human (seat 0, the first legal move each turn) and two bots, keeping
/// every body served with a receipt: the player's views and outcomes, a spectator's views, a
/// replay (`?at=`) and the final view. Returns the game's id and the bodies.
pub async fn play(server: &Server) -> (String, Vec<Value>) {
    let created = server
        .call(
            "POST",
            "/games",
            None,
            Some(json!({"ruleset": "base", "players": 3, "seed": "ab".repeat(32)})),
        )
        .await;
    let id = created["game_id"].as_str().unwrap().to_string();
    let host = created["host_token"].as_str().unwrap().to_string();
    let joined = server
        .call(
            "POST",
            &format!("/games/{id}/seats"),
            None,
            Some(json!({"name": "Ada", "entropy": "0f".repeat(32)})),
        )
        .await;
    let me = joined["player_token"].as_str().unwrap().to_string();
    server.random_bots(&id, &host, 2).await;
    // The creation's and the seat's signed commitments to the seed come first.
    let mut kept = vec![
        created.clone(),
        joined.clone(),
        server
            .call("POST", &format!("/games/{id}/start"), Some(&host), None)
            .await,
    ];
    // Table talk, hidden by the host afterwards: the receipt of the reply that showed the
    // message still agrees with the record (it covers what was shown then).
    let said = server
        .call(
            "POST",
            &format!("/games/{id}/talk"),
            Some(&me),
            Some(json!({"text": "hello"})),
        )
        .await;
    let seq = said["events"][0]["seq"].as_i64().unwrap();
    kept.push(said);
    // A command at a version long gone is refused (412), with a signed receipt of the refusal.
    let refused = server
        .client
        .post(format!("{}/games/{id}/commands", server.base))
        .bearer_auth(&me)
        .header("If-Match", "\"1\"")
        .json(&json!({"type": "pass", "discard": []}))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 412);
    let refused: Value = refused.json().await.unwrap();
    assert_eq!(refused["receipt"]["kind"], "refusal", "{refused}");
    assert_eq!(refused["receipt"]["seat"], 0, "{refused}");
    kept.push(refused);
    kept.push(
        server
            .call("GET", &format!("/games/{id}/state"), None, None)
            .await,
    );
    kept.push(
        server
            .call(
                "POST",
                &format!("/games/{id}/talk/{seq}/hide"),
                Some(&host),
                None,
            )
            .await,
    );
    for turn in 0..2000 {
        let summary = server
            .call("GET", &format!("/games/{id}"), None, None)
            .await;
        if summary["status"] == "finished" {
            break;
        }
        kept.push(
            server
                .call("GET", &format!("/games/{id}/state"), Some(&me), None)
                .await,
        );
        if turn % 5 == 0 {
            kept.push(
                server
                    .call("GET", &format!("/games/{id}/state"), None, None)
                    .await,
            );
        }
        let legal = server
            .call("GET", &format!("/games/{id}/legal-moves"), Some(&me), None)
            .await;
        if let Some(command) = legal["commands"].as_array().and_then(|c| c.first()) {
            kept.push(
                server
                    .call(
                        "POST",
                        &format!("/games/{id}/commands"),
                        Some(&me),
                        Some(command.clone()),
                    )
                    .await,
            );
        } else {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }
    kept.push(
        server
            .call("GET", &format!("/games/{id}/state?at=5"), Some(&me), None)
            .await,
    );
    kept.push(
        server
            .call("GET", &format!("/games/{id}/state"), None, None)
            .await,
    );
    for body in &kept {
        assert!(
            body["receipt"]["signature"].is_string(),
            "no receipt: {body}"
        );
    }
    (id, kept)
}

/// `saboteur verify` of `bundle` with `receipts`, each written to `dir` first.
pub fn verify(dir: &std::path::Path, bundle: &Value, receipts: &Value) -> std::process::Output {
    let b = dir.join("bundle.json");
    let r = dir.join("receipts.json");
    std::fs::write(&b, bundle.to_string()).unwrap();
    std::fs::write(&r, receipts.to_string()).unwrap();
    Command::new(env!("CARGO_BIN_EXE_saboteur"))
        .args(["verify", "--file"])
        .arg(&b)
        .arg("--receipts")
        .arg(&r)
        .output()
        .unwrap()
}

/// A bundle cut before the game's end, as an operator would serve a game it claims never
/// ended: the last batch (from the last `command_accepted`) removed, no log entry.
pub fn cut_before_the_end(bundle: &Value) -> (Value, usize) {
    let events = bundle["events"].as_array().unwrap();
    let last_command = events
        .iter()
        .rposition(|e| e["event_type"] == "command_accepted")
        .unwrap();
    let mut cut = bundle.clone();
    cut["events"] = json!(events[..last_command]);
    cut.as_object_mut().unwrap().remove("log_entry");
    (cut, last_command)
}

/// A bundle whose first table talk records a time `by` ms earlier, the chain after it
/// recomputed: consistent on its own.
pub fn redate_talk(bundle: &Value, by: u64) -> Value {
    let mut b = bundle.clone();
    let id = b["game_id"].as_str().unwrap().to_string();
    let events = b["events"].as_array_mut().unwrap();
    let i = events
        .iter()
        .position(|e| e["event_type"] == "talk_posted")
        .unwrap();
    let at = events[i]["payload"]["at"].as_u64().unwrap();
    events[i]["payload"]["at"] = json!(at - by);
    let mut prev = events[i]["prev_hash"].as_str().unwrap().to_string();
    let created: saboteur_domain::Event =
        serde_json::from_value(events[0]["payload"].clone()).unwrap();
    let mut chain = saboteur_verifier::seal::Chain::after(&id, &created);
    for e in events.iter_mut().skip(i) {
        e["prev_hash"] = json!(prev);
        let hash = chain
            .hash(
                &prev,
                e["seq"].as_i64().unwrap(),
                e["event_type"].as_str().unwrap(),
                i32::try_from(e["schema_version"].as_i64().unwrap()).unwrap(),
                &e["payload"],
            )
            .unwrap();
        e["hash"] = json!(hash);
        prev = hash;
    }
    b["log_entry"] = Value::Null;
    b
}
