//! The referee's own words judged, tried as a dishonest operator would.
//!
//! A legal move refused: the operator answers a player's signed, legal command with a refusal
//! it signs itself (the store holds its signing key), at the game's version, naming the
//! player's statement. `verify` alone cannot tell (the refusal's head and time are right); with
//! the statement the player kept it decides the command again and names the refusal. An honest
//! refusal of an illegal move is judged right.
//!
//! A commitment that names another key than the one sent: the reply the player got names the
//! operator's key, and the record agrees with it. `--commitment` alone passes it; with the
//! request the player kept beside the reply (`sent`), it is named.
//!
//! On SQLite and PostgreSQL.

#[macro_use]
mod operator;

use operator::*;
use saboteur_api::receipt::{Receipt, ReceiptAudience, ReceiptKind, Signer, view_hash};
use serde_json::{Value, json};

/// The statement `key` signs for `body` at `version` in game `id` (seat 0), kept as the SDKs
/// keep it: the statement and its signature.
fn kept(key: &ed25519_dalek::SigningKey, id: &str, version: u64, body: &Value) -> Value {
    use ed25519_dalek::Signer as _;
    let bytes = statement(id, 0, version, "command", &body.to_string());
    json!({
        "statement": serde_json::from_slice::<Value>(&bytes).unwrap(),
        "signature": hex::encode(key.sign(&bytes).to_bytes()),
    })
}

/// The operator's refusal of `refused` (a kept statement) at the table's version, signed with
/// the server's key read from the store: the problem with its receipt, as the player got it.
async fn forged_refusal(url: &str, server: &Server, id: &str, me: &str, refused: &Value) -> Value {
    use sha2::Digest as _;
    let state = server
        .call("GET", &format!("/games/{id}/state"), Some(me), None)
        .await;
    let store = saboteur_storage::EventStore::connect(url).await.unwrap();
    let key = store.active_server_key().await.unwrap().unwrap();
    let signer = Signer::from_stored(&key).unwrap();
    let problem = json!({
        "type": "https://saboteur.example/problems/not_your_turn",
        "title": "The move breaks a rule",
        "status": 422,
        "detail": "another player must act",
        "code": "not_your_turn",
    });
    let receipt = signer.sign(Receipt {
        kind: ReceiptKind::Refusal,
        game_id: id.to_string(),
        version: state["version"].as_i64().unwrap(),
        first: None,
        head: state["receipt"]["head"].as_str().unwrap().to_string(),
        served_at: chrono::Utc::now().to_rfc3339(),
        audience: ReceiptAudience::Seat,
        seat: Some(0),
        view_hash: view_hash(&problem),
        request_hash: Some(hex::encode(sha2::Sha256::digest(
            saboteur_api::receipt::jcs(&refused["statement"]),
        ))),
        key_id: String::new(),
        signature: String::new(),
    });
    let mut served = problem;
    served["receipt"] = serde_json::to_value(receipt).unwrap();
    served
}

async fn a_legal_move_refused_is_named(url: &str, dir: &std::path::Path) {
    let (key, _) = player_key(9);
    let server = Server::start(url).await;
    let (id, me, _) = keyed_game_with_bots(&server, &key).await;
    // Seat 0 plays first: its legal move, and an illegal one (a pass that discards nothing).
    let legal = server
        .call("GET", &format!("/games/{id}/legal-moves"), Some(&me), None)
        .await;
    let version = legal["version"].as_u64().unwrap();
    let command = legal["commands"][0].clone();
    let illegal = json!({"type": "pass", "discard": []});
    let (status, honest) = server
        .signed(
            &format!("/games/{id}/commands"),
            &me,
            &illegal.to_string(),
            Some((&key, &id, 0, version, "command")),
        )
        .await;
    assert_eq!(status, 422, "{honest}");
    let legal_kept = kept(&key, &id, version, &command);
    let forged = forged_refusal(url, &server, &id, &me, &legal_kept).await;
    play_signed(&server, &id, &me, &key).await;
    let bundle = server
        .call("GET", &format!("/games/{id}/audit"), None, None)
        .await;
    let bundle = file(dir, "bundle.json", &bundle);
    let statements = file(
        dir,
        "statements.json",
        &json!([kept(&key, &id, version, &illegal), legal_kept]),
    );

    // The honest refusal, judged right.
    let honest_only = file(dir, "honest.json", &json!([honest]));
    let out = verify_with(&[
        "--file",
        &bundle,
        "--receipts",
        &honest_only,
        "--statements",
        &statements,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        text(&out).contains(&format!(
            "the refusal at version {version} of seat 0's signed command was right: the rules \
             refuse it too"
        )),
        "{}",
        text(&out)
    );

    // The forged refusal: genuine as a receipt, so `verify` without the statement passes it.
    let both = file(dir, "both.json", &json!([honest, forged]));
    let out = verify_with(&["--file", &bundle, "--receipts", &both]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    // With the statements the player kept, the legal move refused is named.
    let out = verify_with(&[
        "--file",
        &bundle,
        "--receipts",
        &both,
        "--statements",
        &statements,
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains(&format!(
            "the server refused a legal move at version {version}: seat 0's command {command}"
        )),
        "{}",
        text(&out)
    );
}

on_both_stores!(
    a_legal_move_refused_is_named_on_sqlite,
    a_legal_move_refused_is_named_on_postgres,
    a_legal_move_refused_is_named
);

async fn a_commitment_to_another_key_is_named(url: &str, dir: &std::path::Path) {
    let (key, mine) = player_key(11);
    let (operator, _) = player_key(12);
    let server = Server::start(url).await;
    // The seat is taken with the operator's key; the player is handed the reply.
    let (_, id, host) = server.create_base_game().await;
    let reply = server
        .call(
            "POST",
            &format!("/games/{id}/seats"),
            None,
            Some(keyed_join(&id, "Ada", &operator)),
        )
        .await;
    server.random_bots(&id, &host, 2).await;
    server
        .call("POST", &format!("/games/{id}/start"), Some(&host), None)
        .await;
    let token = reply["player_token"].as_str().unwrap().to_string();
    play_signed(&server, &id, &token, &operator).await;
    let bundle = server
        .call("GET", &format!("/games/{id}/audit"), None, None)
        .await;
    let bundle = file(dir, "bundle.json", &bundle);
    let check = |name: &str, kept: Value| {
        verify_with(&["--file", &bundle, "--commitment", &file(dir, name, &kept)])
    };
    // The reply alone agrees with the record: the operator's key throughout.
    let out = check("reply.json", reply.clone());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    // Beside the request the player sent, with their own key: named.
    let mut kept = reply.clone();
    kept["sent"] = keyed_join(&id, "Ada", &key);
    let out = check("kept.json", kept);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains(&format!(
            "the server's commitment names the key {} for seat 0; the player sent {}: the reply \
             was rewritten, or the seat taken with another key",
            saboteur_domain::fingerprint(&hex::encode(operator.verifying_key().to_bytes())),
            saboteur_domain::fingerprint(&mine)
        )),
        "{}",
        text(&out)
    );
    // The request that was in fact sent agrees.
    let mut honest = reply;
    honest["sent"] = keyed_join(&id, "Ada", &operator);
    let out = check("honest.json", honest);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
}

on_both_stores!(
    a_commitment_to_another_key_is_named_on_sqlite,
    a_commitment_to_another_key_is_named_on_postgres,
    a_commitment_to_another_key_is_named
);
