//! Keys the player proves (record version 4): a seat is taken with a key only with its holder's
//! signature of the game's key statement, the record keeps that proof with the key, and
//! `saboteur verify` names a key the record registers without one that verifies — as a
//! dishonest operator would seat it, with the store edited before the start. On SQLite and
//! PostgreSQL.

#[macro_use]
mod operator;

use operator::*;
use serde_json::{Value, json};

/// `POST /games/{id}/seats` with `body`: the status and the reply.
async fn join(server: &Server, id: &str, body: &Value) -> (u16, Value) {
    let res = server
        .client
        .post(format!("{}/games/{id}/seats", server.base))
        .json(body)
        .send()
        .await
        .unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap())
}

/// A key is refused without its proof, with a proof for another game, with a proof made by
/// another key or that is not 128 hex digits; the refusals take no seat. The proved key is
/// taken, recorded with its proof at the start, and the honest game verifies.
async fn a_seat_is_taken_only_with_a_proved_key(url: &str, dir: &std::path::Path) {
    let server = Server::start(url).await;
    let (key, public) = player_key(21);
    let (other, _) = player_key(22);
    let (_, id, host) = server.create_base_game().await;
    let (_, elsewhere, _) = server.create_base_game().await;
    let refused = [
        json!({"name": "Ada", "public_key": public}),
        json!({"name": "Ada", "public_key": public, "key_proof": key_proof(&key, &elsewhere)}),
        json!({"name": "Ada", "public_key": public, "key_proof": key_proof(&other, &id)}),
        json!({"name": "Ada", "public_key": public, "key_proof": "ab"}),
    ];
    for body in &refused {
        let (status, problem) = join(&server, &id, body).await;
        assert_eq!(
            (status, problem["code"].as_str()),
            (400, Some("bad_key_proof")),
            "{body}: {problem}"
        );
    }
    // The proof is case-blind, as the key is.
    let mut body = keyed_join(&id, "Ada", &key);
    body["key_proof"] = json!(body["key_proof"].as_str().unwrap().to_ascii_uppercase());
    let (status, joined) = join(&server, &id, &body).await;
    assert_eq!(
        (status, joined["seat"].as_u64()),
        (201, Some(0)),
        "{joined}"
    );
    let me = joined["player_token"].as_str().unwrap().to_string();
    server.random_bots(&id, &host, 2).await;
    let started = server
        .call("POST", &format!("/games/{id}/start"), Some(&host), None)
        .await;
    let registered = events_of(&started, "seat_key_registered");
    assert_eq!(registered.len(), 1, "{started}");
    assert_eq!(registered[0]["event"]["key"], json!(public));
    assert_eq!(
        registered[0]["event"]["proof"],
        json!(key_proof(&key, &id)),
        "the proof is recorded with the key, in lowercase"
    );
    // During play a new key needs its proof too (signed with the old key, as always).
    let version = server
        .call("GET", &format!("/games/{id}"), None, None)
        .await["version"]
        .as_u64()
        .unwrap();
    let (_, next_public) = player_key(23);
    let body = json!({ "public_key": next_public }).to_string();
    let (status, problem) = server
        .signed_with(
            reqwest::Method::PUT,
            &format!("/games/{id}/seats/0/key"),
            &me,
            &body,
            Some((&key, &id, 0, version, "key")),
        )
        .await;
    assert_eq!(
        (status, problem["code"].as_str()),
        (400, Some("bad_key_proof")),
        "{problem}"
    );
    play_signed(&server, &id, &me, &key).await;
    let bundle = server
        .call("GET", &format!("/games/{id}/audit"), None, None)
        .await;
    let out = verify_with(&["--file", &file(dir, "bundle.json", &bundle)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
}

on_both_stores!(
    a_seat_is_taken_only_with_a_proved_key_on_sqlite,
    a_seat_is_taken_only_with_a_proved_key_on_postgres,
    a_seat_is_taken_only_with_a_proved_key
);

/// The operator seats a key without its holder: the proof kept with the seat is removed, or
/// replaced by the holder's proof for another game, before the start. The start records the key
/// as the store has it, and `verify` names the key by the sentence it prints.
async fn a_key_seated_without_its_holder_is_named(url: &str, dir: &std::path::Path) {
    let (key, public) = player_key(24);
    for attack in ["no proof", "another game's proof"] {
        let server = Server::start(url).await;
        let (_, id, host) = server.create_base_game().await;
        let (status, joined) = join(&server, &id, &keyed_join(&id, "Ada", &key)).await;
        assert_eq!(status, 201, "{joined}");
        let me = joined["player_token"].as_str().unwrap().to_string();
        server.random_bots(&id, &host, 2).await;
        let proof = match attack {
            "no proof" => "NULL".to_string(),
            _ => format!("'{}'", key_proof(&key, "another-game")),
        };
        let store = saboteur_storage::EventStore::connect(url).await.unwrap();
        let sql = format!(
            "UPDATE credentials SET key_proof = {proof} WHERE game_id = '{id}' AND seat = 0"
        );
        assert_eq!(store.execute_raw(&sql).await.unwrap(), 1);
        // A fresh process, as the operator's: it reads the seats from the store.
        let server = Server::start(url).await;
        server
            .call("POST", &format!("/games/{id}/start"), Some(&host), None)
            .await;
        play_signed(&server, &id, &me, &key).await;
        let bundle = server
            .call("GET", &format!("/games/{id}/audit"), None, None)
            .await;
        let out = verify_with(&["--file", &file(dir, "bundle.json", &bundle)]);
        let said = text(&out);
        assert_eq!(out.status.code(), Some(1), "{said}");
        let seq = bundle["events"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["event_type"] == "seat_key_registered")
            .map(|e| e["seq"].as_u64().unwrap())
            .unwrap();
        let fingerprint = saboteur_domain::fingerprint(&public);
        let sentence = match attack {
            "no proof" => format!(
                "event {seq}: seat 0's key {fingerprint} is registered without its holder's \
                 proof of possession: nothing shows the player took the seat with it"
            ),
            _ => format!(
                "event {seq}: seat 0's key {fingerprint} carries a proof of possession that does \
                 not verify: nothing shows its holder took the seat with it in this game"
            ),
        };
        assert!(said.contains(&sentence), "{attack}: {said}");
    }
}

on_both_stores!(
    a_key_seated_without_its_holder_is_named_on_sqlite,
    a_key_seated_without_its_holder_is_named_on_postgres,
    a_key_seated_without_its_holder_is_named
);
