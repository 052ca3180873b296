//! A seat with a key is played by its player only: what the operator tries with the database
//! and a token of its own is refused or named.

use crate::operator::*;
use serde_json::{Value, json};

/// A seat with a key acts only with its player's signature: the operator, holding the database
/// and a token of its own swapped in for the seat's, cannot play for the player (401
/// `signature_required`); a command it writes into the record directly, or a signed body it
/// changes, is named by `saboteur verify`. Every signature of an honest game verifies.
async fn signed_seats_cannot_be_played_for(url: &str, dir: &std::path::Path) {
    let (key, public) = player_key(7);
    for attack in [
        "none",
        "an unsigned command written in",
        "a signed body changed",
    ] {
        let (server, id, me) = a_keyed_game(url, &key, &public).await;
        let first_signed = every_command_signed(url, &server, &id, &me, &key).await;
        operator_changes(url, &id, first_signed, attack).await;
        verify_names(url, dir, &id, (first_signed, attack), &public).await;
    }
}

/// A base game for three started with seat 0 taken with `key` (a key that is not Ed25519 is
/// refused first, and takes no seat): the server, the game's id and the player's token.
async fn a_keyed_game(
    url: &str,
    key: &ed25519_dalek::SigningKey,
    public: &str,
) -> (Server, String, String) {
    let server = Server::start(url).await;
    let (_, id, host) = server.create_base_game().await;
    // A key that is not an Ed25519 key is refused, and takes no seat.
    let (status, problem) = server
        .signed(
            &format!("/games/{id}/seats"),
            "x",
            &json!({"name": "Ada", "public_key": "00".repeat(31)}).to_string(),
            None,
        )
        .await;
    assert_eq!((status, problem["code"].as_str()), (400, Some("bad_key")));
    let joined = server
        .call(
            "POST",
            &format!("/games/{id}/seats"),
            None,
            Some(keyed_join(&id, "Ada", key)),
        )
        .await;
    assert_eq!(joined["seat"], 0, "the refused key took no seat");
    let me = joined["player_token"].as_str().unwrap().to_string();
    server.random_bots(&id, &host, 2).await;
    let started = server
        .call("POST", &format!("/games/{id}/start"), Some(&host), None)
        .await;
    let registered = events_of(&started, "seat_key_registered");
    assert_eq!(registered.len(), 1, "{started}");
    assert_eq!(registered[0]["event"]["key"], json!(public));
    let state = server
        .call("GET", &format!("/games/{id}/state"), None, None)
        .await;
    assert_eq!(state["table"]["seats"][0]["key"], json!(public), "{state}");
    (server, id, me)
}

/// A signed message, then the game to its end with every command of seat 0 signed; before the
/// first, the command unsigned, signed by another key or for another version, and sent with a
/// token the operator swapped in, is refused. The first signed command's sequence number.
async fn every_command_signed(
    url: &str,
    server: &Server,
    id: &str,
    me: &str,
    key: &ed25519_dalek::SigningKey,
) -> i64 {
    // A signed message at the table; then the game, every command signed.
    let state = server
        .call("GET", &format!("/games/{id}/state"), None, None)
        .await;
    let version = state["version"].as_u64().unwrap();
    let (status, said) = server
        .signed(
            &format!("/games/{id}/talk"),
            me,
            &json!({"text": "signed, Ada"}).to_string(),
            Some((key, id, 0, version, "talk")),
        )
        .await;
    assert_eq!(status, 200, "{said}");
    let mut first_signed = None;
    for _ in 0..2000 {
        let summary = server
            .call("GET", &format!("/games/{id}"), None, None)
            .await;
        if summary["status"] == "finished" {
            break;
        }
        let legal = server
            .call("GET", &format!("/games/{id}/legal-moves"), Some(me), None)
            .await;
        let Some(command) = legal["commands"].as_array().and_then(|c| c.first()) else {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            continue;
        };
        let version = legal["version"].as_u64().unwrap();
        let path = format!("/games/{id}/commands");
        let body = command.to_string();
        if first_signed.is_none() {
            // Unsigned, it is refused; signed by another key, or for another version, too.
            let (status, problem) = server.signed(&path, me, &body, None).await;
            assert_eq!(status, 401, "{problem}");
            assert_eq!(problem["code"], "signature_required", "{problem}");
            let (other, _) = player_key(8);
            let (status, problem) = server
                .signed(&path, me, &body, Some((&other, id, 0, version, "command")))
                .await;
            assert_eq!(
                (status, problem["code"].as_str()),
                (401, Some("bad_signature"))
            );
            let (status, problem) = server
                .signed(&path, me, &body, Some((key, id, 0, version + 1, "command")))
                .await;
            assert_eq!(
                (status, problem["code"].as_str()),
                (401, Some("bad_signature"))
            );
            // The operator swaps in a token of its own for the seat: still no signature.
            let store = saboteur_storage::EventStore::connect(url).await.unwrap();
            let own = "operator-token";
            let sql = format!(
                "UPDATE credentials SET token_hash = '{}' WHERE game_id = '{id}' AND seat = 0",
                token_hash(own)
            );
            assert_eq!(store.execute_raw(&sql).await.unwrap(), 1);
            let operator = Server::start(url).await;
            let (status, problem) = operator.signed(&path, own, &body, None).await;
            assert_eq!(status, 401, "{problem}");
            assert_eq!(problem["code"], "signature_required", "{problem}");
            let sql = format!(
                "UPDATE credentials SET token_hash = '{}' WHERE game_id = '{id}' AND seat = 0",
                token_hash(me)
            );
            assert_eq!(store.execute_raw(&sql).await.unwrap(), 1);
        }
        let (status, out) = server
            .signed(&path, me, &body, Some((key, id, 0, version, "command")))
            .await;
        assert_eq!(status, 200, "{out}");
        if first_signed.is_none() {
            first_signed = out["events"][0]["seq"].as_i64();
            let recorded = &out["events"][0]["event"];
            assert_eq!(recorded["signature"]["body"], json!(body), "{recorded}");
            assert_eq!(recorded["signature"]["version"], version);
        }
    }
    first_signed.expect("seat 0 played")
}

/// What the operator does to the record for `attack`.
async fn operator_changes(url: &str, id: &str, first_signed: i64, attack: &str) {
    match attack {
        "an unsigned command written in" => {
            rewrite_event(url, id, first_signed, |p| {
                p.as_object_mut().unwrap().remove("signature");
            })
            .await;
        }
        "a signed body changed" => {
            rewrite_event(url, id, first_signed, |p| {
                // Under the canonical statement, spacing is not content: the operator
                // changes what the body says.
                let body = p["signature"]["body"].as_str().unwrap().to_string();
                let mut value: Value = serde_json::from_str(&body).unwrap();
                value["note"] = json!("the operator's");
                p["signature"]["body"] = json!(value.to_string());
            })
            .await;
        }
        _ => {}
    }
}

/// `saboteur verify` and the server's verdict on the game after `attack`: the honest game's
/// signatures verify; each attack is named at the event it changed.
async fn verify_names(
    url: &str,
    dir: &std::path::Path,
    id: &str,
    (first_signed, attack): (i64, &str),
    public: &str,
) {
    let server = Server::start(url).await;
    let bundle = server
        .call("GET", &format!("/games/{id}/audit"), None, None)
        .await;
    let out = verify_with(&["--file", &file(dir, "bundle.json", &bundle)]);
    let said = text(&out);
    let fingerprint = saboteur_domain::fingerprint(public);
    // The server's verdict names the check that failed, as a stable code.
    let verdict = server
        .call("GET", &format!("/games/{id}/audit/verdict"), None, None)
        .await;
    let failed = if attack == "none" {
        Value::Null
    } else {
        json!("signature")
    };
    assert_eq!(verdict["failed_check"], failed, "{verdict}");
    match attack {
        "none" => {
            assert!(out.status.success(), "{said}");
            let verdict: Value = said
                .lines()
                .find_map(|l| l.strip_prefix("verified: "))
                .and_then(|l| serde_json::from_str(l).ok())
                .unwrap_or(Value::Null);
            let checked = verdict["signatures_checked"].as_u64().unwrap_or(0);
            assert!(checked >= 2, "{said}");
        }
        "an unsigned command written in" => {
            assert_eq!(out.status.code(), Some(1), "{said}");
            assert!(
                said.contains(&format!(
                    "event {first_signed}: seat 0's command is not signed, yet the seat's \
                     key is {fingerprint}: the player did not make it"
                )),
                "{said}"
            );
        }
        _ => {
            assert_eq!(out.status.code(), Some(1), "{said}");
            assert!(
                said.contains(&format!(
                    "event {first_signed}: seat 0's command carries a signature that does \
                     not verify under the seat's key ({fingerprint}): the player did not \
                     sign what is recorded"
                )),
                "{said}"
            );
        }
    }
}

on_both_stores!(
    signed_seats_cannot_be_played_for_on_sqlite,
    signed_seats_cannot_be_played_for_on_postgres,
    signed_seats_cannot_be_played_for
);
