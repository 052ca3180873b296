//! Keys the player proves (record version 4): a seat is taken with a key only with its holder's
//! signature of the game's key statement, the record keeps that proof with the key, and
//! `saboteur verify` names a key the record registers without one that verifies — as a
//! dishonest operator would seat it, with the store edited before the start. From record
//! version 7 a key registered after a reissued token is proved for its seat from the reissue on,
//! so the player's old proof cannot put their key back. On SQLite and PostgreSQL.

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

/// `PUT /games/{id}/seats/0/key` with `body`, signed by `signer` at `version` when the seat
/// has a key: the status and the reply.
async fn put_key(
    server: &Server,
    (id, token): (&str, &str),
    body: &Value,
    signer: Option<(&ed25519_dalek::SigningKey, u64)>,
) -> (u16, Value) {
    server
        .signed_with(
            reqwest::Method::PUT,
            &format!("/games/{id}/seats/0/key"),
            token,
            &body.to_string(),
            signer.map(|(key, version)| (key, id, 0, version, "key")),
        )
        .await
}

/// Attack 5 of disputes v4: after the host reissues seat 0's token, the operator registers its
/// own key, moves with it, then puts the player's key back with the player's own proof read
/// from the public record, so the record looks as if the player came back. From record version
/// 7 a key registered after a reissue is proved for its seat at a version no earlier than the
/// reissue: the server refuses the old proof, one dated before the reissue, or one for another
/// seat (400 `bad_key_proof`), and `verify` names the key put back in the store.
async fn a_key_put_back_after_a_reissue_with_its_old_proof_is_named(
    url: &str,
    dir: &std::path::Path,
) {
    let (key, public) = player_key(25);
    let (operator_key, operator_public) = player_key(26);
    let (spare, spare_public) = player_key(27);
    let server = Server::start(url).await;
    let (id, host, _) = keyed_lobby(&server, &key).await;
    let started = server
        .call("POST", &format!("/games/{id}/start"), Some(&host), None)
        .await;
    let old_proof = events_of(&started, "seat_key_registered")[0]["event"]["proof"]
        .as_str()
        .unwrap()
        .to_string();
    let reissued = server
        .call(
            "POST",
            &format!("/games/{id}/seats/0/token"),
            Some(&host),
            None,
        )
        .await;
    let token = reissued["player_token"].as_str().unwrap().to_string();
    let since = reissued["version"].as_u64().unwrap();
    let at = (id.as_str(), token.as_str());
    let refused = [
        json!({"public_key": public, "key_proof": old_proof}),
        json!({"public_key": public, "key_proof": old_proof, "key_proof_version": since}),
        json!({"public_key": operator_public, "key_proof": key_proof(&operator_key, &id)}),
        json!({"public_key": operator_public, "key_proof_version": since - 1,
               "key_proof": key_proof_at(&operator_key, &id, 0, since - 1)}),
        json!({"public_key": operator_public, "key_proof_version": since,
               "key_proof": key_proof_at(&operator_key, &id, 1, since)}),
        json!({"public_key": operator_public, "key_proof_version": since + 1,
               "key_proof": key_proof_at(&operator_key, &id, 0, since + 1)}),
    ];
    for body in &refused {
        let (status, problem) = put_key(&server, at, body, None).await;
        assert_eq!(
            (status, problem["code"].as_str()),
            (400, Some("bad_key_proof")),
            "{body}: {problem}"
        );
    }
    let version = |v: &Value| v["version"].as_u64().unwrap();
    assert_eq!(
        version(
            &server
                .call("GET", &format!("/games/{id}"), None, None)
                .await
        ),
        since,
        "the refusals changed nothing"
    );
    // The operator, holding the new token, registers its key (proved from the reissue on),
    // moves with it, registers a spare key, and hands the seat to a bot to finish the game.
    let body = json!({"public_key": operator_public, "key_proof_version": since,
                      "key_proof": key_proof_at(&operator_key, &id, 0, since)});
    let (status, out) = put_key(&server, at, &body, None).await;
    assert_eq!(status, 200, "{out}");
    assert_eq!(out["events"][0]["event"]["at"], json!(since), "{out}");
    next_signed_move(&server, &id, &token, &operator_key)
        .await
        .expect("the game goes on");
    let now = version(
        &server
            .call("GET", &format!("/games/{id}"), None, None)
            .await,
    );
    let body = json!({"public_key": spare_public, "key_proof_version": now,
                      "key_proof": key_proof_at(&spare, &id, 0, now)});
    let (status, out) = put_key(&server, at, &body, Some((&operator_key, now))).await;
    assert_eq!(status, 200, "{out}");
    let spare_seq = out["events"][0]["seq"].as_i64().unwrap();
    let handover = json!({"level": "random"});
    server
        .call(
            "POST",
            &format!("/games/{id}/seats/0/handover"),
            Some(&host),
            Some(handover),
        )
        .await;
    for _ in 0..500 {
        let summary = server
            .call("GET", &format!("/games/{id}"), None, None)
            .await;
        if summary["status"] == "finished" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let (code, said) = verify_bundle(url, dir, &id).await;
    assert_eq!(code, Some(0), "the honest record verifies: {said}");

    // The operator rewrites the spare key's registration to put the player's key back, with
    // the player's own proof from the start and its own signature (by its key, the seat's then)
    // over a body naming the player's key.
    let forged_body = json!({"public_key": public, "key_proof": old_proof}).to_string();
    let signature = {
        use ed25519_dalek::Signer as _;
        let statement = statement(&id, 0, now, "key", &forged_body);
        hex::encode(operator_key.sign(&statement).to_bytes())
    };
    rewrite_event(url, &id, spare_seq, |payload| {
        payload["key"] = json!(public);
        payload["proof"] = json!(old_proof);
        payload.as_object_mut().unwrap().remove("at");
        payload["signature"]["body"] = json!(forged_body);
        payload["signature"]["signature"] = json!(signature);
    })
    .await;
    let (code, said) = verify_bundle(url, dir, &id).await;
    assert_eq!(code, Some(1), "{said}");
    let sentence = format!(
        "event {spare_seq}: seat 0's key {} is registered after the seat's token was reissued at \
         version {since} with a proof that names no moment: a proof made before the reissue, \
         spent again",
        saboteur_domain::fingerprint(&public)
    );
    assert!(said.contains(&sentence), "{said}");
}

on_both_stores!(
    a_key_put_back_after_a_reissue_with_its_old_proof_is_named_on_sqlite,
    a_key_put_back_after_a_reissue_with_its_old_proof_is_named_on_postgres,
    a_key_put_back_after_a_reissue_with_its_old_proof_is_named
);

/// One key signs for one seat (record version 7): a join or a lobby key change with a key
/// another seat holds is refused (409 `key_in_use`) and takes nothing; an operator who puts a
/// player's key and proof on a second seat in the store before the start is named by `verify`.
async fn a_key_takes_one_seat(url: &str, dir: &std::path::Path) {
    let (key, public) = player_key(28);
    let (other, other_public) = player_key(29);
    let server = Server::start(url).await;
    let (_, id, host) = server.create_base_game().await;
    let (status, ada) = join(&server, &id, &keyed_join(&id, "Ada", &key)).await;
    assert_eq!(status, 201, "{ada}");
    let (status, problem) = join(&server, &id, &keyed_join(&id, "Bob", &key)).await;
    assert_eq!(
        (status, problem["code"].as_str()),
        (409, Some("key_in_use")),
        "{problem}"
    );
    let (status, bob) = join(&server, &id, &keyed_join(&id, "Bob", &other)).await;
    assert_eq!((status, bob["seat"].as_u64()), (201, Some(1)), "{bob}");
    let bob_token = bob["player_token"].as_str().unwrap();
    // Bob's seat cannot take Ada's key either (signed by Bob's key, as every act of his seat).
    let version = server
        .call("GET", &format!("/games/{id}"), None, None)
        .await["version"]
        .as_u64()
        .unwrap();
    let body = json!({"public_key": public, "key_proof": key_proof(&key, &id)}).to_string();
    let (status, problem) = server
        .signed_with(
            reqwest::Method::PUT,
            &format!("/games/{id}/seats/1/key"),
            bob_token,
            &body,
            Some((&other, &id, 1, version, "key")),
        )
        .await;
    assert_eq!(
        (status, problem["code"].as_str()),
        (409, Some("key_in_use")),
        "{problem}"
    );
    let summary = server
        .call("GET", &format!("/games/{id}"), None, None)
        .await;
    assert_eq!(summary["seats"].as_array().unwrap().len(), 2, "{summary}");
    server.random_bots(&id, &host, 1).await;
    // The operator seats Ada's key, with her proof, on Bob's seat too.
    let store = saboteur_storage::EventStore::connect(url).await.unwrap();
    let sql = format!(
        "UPDATE credentials SET public_key = '{public}', key_proof = '{}' \
         WHERE game_id = '{id}' AND seat = 1",
        key_proof(&key, &id)
    );
    assert_eq!(store.execute_raw(&sql).await.unwrap(), 1);
    assert_ne!(public, other_public);
    let server = Server::start(url).await;
    server
        .call("POST", &format!("/games/{id}/start"), Some(&host), None)
        .await;
    let handover = json!({"level": "random"});
    server
        .call(
            "POST",
            &format!("/games/{id}/seats/1/handover"),
            Some(&host),
            Some(handover),
        )
        .await;
    let me = ada["player_token"].as_str().unwrap();
    play_signed(&server, &id, me, &key).await;
    let (code, said) = verify_bundle(url, dir, &id).await;
    assert_eq!(code, Some(1), "{said}");
    assert!(
        said.contains("the key is seat 0's: one key signs for one seat"),
        "{said}"
    );
}

on_both_stores!(
    a_key_takes_one_seat_on_sqlite,
    a_key_takes_one_seat_on_postgres,
    a_key_takes_one_seat
);
