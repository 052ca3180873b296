//! "A signature says exactly what it authorises, once", tried as a dishonest operator would: a
//! signature refused once and sent again later, a signature from an earlier decision written
//! into the record, an undo signed about another command, a recorded request rewritten to take
//! back more than its player asked, a seat's name signed and spent as another act. Each is
//! refused by the server or named by `saboteur verify`; the honest case passes. On SQLite and
//! PostgreSQL.

#[macro_use]
mod operator;

use operator::*;
use saboteur_domain::{Seat, SignedAct, act_statement};
use serde_json::json;

/// Attack 2: a signature spent twice. A request refused once (an undo with nothing to undo, a
/// command signed before the game changed) is refused when sent again later with the same
/// signature (412), and a signature from an earlier decision written into the record in place
/// of the player's real one is named by `verify`.
async fn a_signature_is_spent_once(url: &str, dir: &std::path::Path) {
    use ed25519_dalek::Signer as _;
    let (key, _) = player_key(9);
    let server = Server::start(url).await;
    let (id, me, _) = keyed_game_with_bots(&server, &key).await;
    let undo = format!("/games/{id}/undo");
    let commands = format!("/games/{id}/commands");
    // Seat 0's turn: an undo request signed now is refused (nothing to undo), with a receipt.
    let legal = server
        .call("GET", &format!("/games/{id}/legal-moves"), Some(&me), None)
        .await;
    let early = legal["version"].as_u64().unwrap();
    let (status, refused) = server
        .signed(&undo, &me, "", Some((&key, &id, 0, early, "undo")))
        .await;
    assert_eq!(
        (status, refused["code"].as_str()),
        (409, Some("nothing_to_undo")),
        "{refused}"
    );
    // A move, and the bots' answers.
    let command = legal["commands"][0].to_string();
    let (status, out) = server
        .signed(
            &commands,
            &me,
            &command,
            Some((&key, &id, 0, early, "command")),
        )
        .await;
    assert_eq!(status, 200, "{out}");
    // The undo request's signature sent again, at the later version: refused, never recorded.
    let (status, again) = server
        .signed(&undo, &me, "", Some((&key, &id, 0, early, "undo")))
        .await;
    assert_eq!(status, 412, "{again}");
    assert!(
        again["detail"]
            .as_str()
            .unwrap()
            .contains("the undo was signed at version"),
        "{again}"
    );
    // Attack 6: each refusal is signed, with the hash of the message the player signed.
    let hash_of = |message: Vec<u8>| {
        use sha2::Digest as _;
        hex::encode(sha2::Sha256::digest(&message))
    };
    let signed_undo = statement(&id, 0, early, "undo", "");
    assert_eq!(again["receipt"]["kind"], "refusal", "{again}");
    assert_eq!(
        again["receipt"]["request_hash"],
        json!(hash_of(signed_undo))
    );
    let (other, _) = player_key(10);
    let (status, forged) = server
        .signed(&undo, &me, "", Some((&other, &id, 0, early, "undo")))
        .await;
    assert_eq!(
        (status, forged["code"].as_str()),
        (401, Some("bad_signature"))
    );
    assert_eq!(forged["receipt"]["kind"], "refusal", "{forged}");
    assert!(forged["receipt"]["signature"].is_string(), "{forged}");
    // The command's signature sent again without its key: refused, never recorded twice.
    let (status, twice) = server
        .signed(
            &commands,
            &me,
            &command,
            Some((&key, &id, 0, early, "command")),
        )
        .await;
    assert!(status == 412 || status == 401, "{status} {twice}");

    let played = play_signed(&server, &id, &me, &key).await;
    let (honest, _) = verify_bundle(url, dir, &id).await;
    assert_eq!(honest, Some(0));
    // The operator writes, in place of seat 0's last move, the same command signed at the
    // first version (what a player's refused request would have carried).
    let (last, _) = *played.last().unwrap();
    let body = signed_body(url, &id, last).await;
    let spent = hex::encode(
        key.sign(&statement(&id, 0, early, "command", &body))
            .to_bytes(),
    );
    rewrite_event(url, &id, last, |p| {
        p["signature"] = json!({"version": early, "body": body, "signature": spent});
    })
    .await;
    let (code, said) = verify_bundle(url, dir, &id).await;
    assert_eq!(code, Some(1), "{said}");
    assert!(
        said.contains(&format!(
            "event {last}: seat 0's command was signed at version {early}, before the decision \
             it was recorded at"
        )),
        "{said}"
    );
}

on_both_stores!(
    a_signature_is_spent_once_on_sqlite,
    a_signature_is_spent_once_on_postgres,
    a_signature_is_spent_once
);

/// Attack 2, the statement: an undo, a vote or a reclaim names the event it is about (record
/// version 5), as the table's status lists it. Signed about another event it is refused (401
/// `bad_signature`, saying what to sign) and changes nothing; signed about the command it takes
/// back it is recorded; a recorded request rewritten to take back more is named by `verify`,
/// and so is the player's signature of another statement written in place of the real one.
async fn an_act_names_what_it_is_about(url: &str, dir: &std::path::Path) {
    let (key, _) = player_key(12);
    let server = Server::start(url).await;
    let (id, me, _) = keyed_game_with_bots(&server, &key).await;
    let undo = format!("/games/{id}/undo");
    // Seat 0 plays twice; the bots answer in between.
    let mut mine = Vec::new();
    for _ in 0..2 {
        let legal = server
            .call("GET", &format!("/games/{id}/legal-moves"), Some(&me), None)
            .await;
        let version = legal["version"].as_u64().unwrap();
        let (status, out) = server
            .signed(
                &format!("/games/{id}/commands"),
                &me,
                &legal["commands"][0].to_string(),
                Some((&key, &id, 0, version, "command")),
            )
            .await;
        assert_eq!(status, 200, "{out}");
        mine.push(out["events"][0]["seq"].as_u64().unwrap());
    }
    // The table's status names the command an undo would take back: seat 0's last.
    let state = server
        .call("GET", &format!("/games/{id}/state"), Some(&me), None)
        .await;
    let version = state["version"].as_u64().unwrap();
    assert_eq!(
        state["table"]["record_version"],
        saboteur_domain::options::RECORD_VERSION,
        "{state}"
    );
    assert_eq!(state["table"]["seats"][0]["undoable"], json!(mine[1]));
    assert_eq!(state["table"]["undo_request"], json!(null));
    assert_eq!(state["table"]["seats"][0]["handed_at"], json!(null));
    let about = |event: Option<u64>| {
        act_statement(&id, Seat(0), version, SignedAct::Undo, "", event).unwrap()
    };
    // Signed about the first command, or about none: refused, and nothing is recorded.
    for wrong in [Some(mine[0]), None] {
        let (status, refused) = server
            .signed_over(&undo, &me, "", (&key, &about(wrong), version))
            .await;
        assert_eq!(
            (status, refused["code"].as_str()),
            (401, Some("bad_signature")),
            "{refused}"
        );
        let detail = refused["detail"].as_str().unwrap();
        assert!(
            detail.contains(&format!("\"about\": {}", mine[1])),
            "{detail}"
        );
        assert_eq!(refused["receipt"]["kind"], "refusal", "{refused}");
    }
    let now = server
        .call("GET", &format!("/games/{id}"), None, None)
        .await;
    assert_eq!(now["version"].as_u64(), Some(version), "nothing recorded");
    // About the command it takes back: asked, recorded with the command it names.
    let (status, asked) = server
        .signed_over(&undo, &me, "", (&key, &about(Some(mine[1])), version))
        .await;
    assert!(status == 200 || status == 202, "{status} {asked}");
    let request = events_of(&asked, "undo_requested")
        .first()
        .map(|r| r["seq"].as_i64().unwrap())
        .expect("an undo request");
    let recorded = events_of(&asked, "undo_requested")[0]["event"].clone();
    assert_eq!(recorded["to_version"], json!(mine[1] - 1));
    play_signed(&server, &id, &me, &key).await;
    let (honest, said) = verify_bundle(url, dir, &id).await;
    assert_eq!(honest, Some(0), "{said}");

    // The operator writes in the request's place the player's signature of an undo about the
    // first command (one the player made, or was made to make): it does not verify.
    let other = hex::encode({
        use ed25519_dalek::Signer as _;
        key.sign(&about(Some(mine[0]))).to_bytes()
    });
    rewrite_event(url, &id, request, |p| {
        p["signature"]["signature"] = json!(other);
    })
    .await;
    let (code, said) = verify_bundle(url, dir, &id).await;
    assert_eq!(code, Some(1), "{said}");
    assert!(
        said.contains(&format!(
            "event {request}: seat 0's undo carries a signature that does not verify under the \
             seat's key"
        )),
        "{said}"
    );
    // The request rewritten to take back both commands, its signature the player's: named.
    rewrite_event(url, &id, request, |p| {
        p["to_version"] = json!(mine[0] - 1);
        p["signature"] = recorded["signature"].clone();
    })
    .await;
    let (code, said) = verify_bundle(url, dir, &id).await;
    assert_eq!(code, Some(1), "{said}");
    assert!(said.contains(&format!("event {request}")), "{said}");
}

on_both_stores!(
    an_act_names_what_it_is_about_on_sqlite,
    an_act_names_what_it_is_about_on_postgres,
    an_act_names_what_it_is_about
);

/// Attack 2, the act: a player's signature of a seat's name (the act `name`, the lobby's rename)
/// authorises that and nothing else. Sent as the seat's leave, it is refused and the seat stays
/// taken; written into the record in place of a command's signature (the rename's own, or one
/// of the act `name` over the command's very body and version), it is named by `verify`.
async fn a_name_signed_is_no_other_act(url: &str, dir: &std::path::Path) {
    use ed25519_dalek::Signer as _;
    let (key, _) = player_key(14);
    let server = Server::start(url).await;
    let (id, host, joined) = keyed_lobby(&server, &key).await;
    let me = joined["player_token"].as_str().unwrap().to_string();
    let version = server
        .call("GET", &format!("/games/{id}"), None, None)
        .await["lobby_version"]
        .as_u64()
        .unwrap();
    let body = json!({ "name": "Ada Lovelace" }).to_string();
    let (status, named) = server
        .signed_with(
            reqwest::Method::PUT,
            &format!("/games/{id}/seats/0/name"),
            &me,
            &body,
            Some((&key, &id, 0, version, "name")),
        )
        .await;
    assert_eq!(status, 200, "{named}");
    let renamed = statement(&id, 0, version, "name", &body);
    let (status, refused) = server
        .signed_over_with(
            reqwest::Method::DELETE,
            &format!("/games/{id}/seats/0"),
            &me,
            "",
            (&key, &renamed, version),
        )
        .await;
    assert_eq!(
        (status, refused["code"].as_str()),
        (401, Some("bad_signature")),
        "{refused}"
    );
    let summary = server
        .call("GET", &format!("/games/{id}"), None, None)
        .await;
    assert_eq!(summary["seats"][0]["name"], "Ada Lovelace", "{summary}");

    server
        .call("POST", &format!("/games/{id}/start"), Some(&host), None)
        .await;
    let played = play_signed(&server, &id, &me, &key).await;
    let (honest, said) = verify_bundle(url, dir, &id).await;
    assert_eq!(honest, Some(0), "{said}");
    let (first, at) = played[0];
    let command = signed_body(url, &id, first).await;
    // The rename's own signature, with its body and version, in place of the first command's.
    let spent = hex::encode(key.sign(&renamed).to_bytes());
    rewrite_event(url, &id, first, |p| {
        p["signature"] = json!({ "version": version, "body": body, "signature": spent });
    })
    .await;
    let (code, said) = verify_bundle(url, dir, &id).await;
    assert_eq!(code, Some(1), "{said}");
    assert!(
        said.contains(&format!("event {first}: seat 0's command")),
        "{said}"
    );
    // The act `name` signed over the command's own body at its own version: it does not verify
    // as the command.
    let as_named = hex::encode(
        key.sign(&statement(&id, 0, at, "name", &command))
            .to_bytes(),
    );
    rewrite_event(url, &id, first, |p| {
        p["signature"] = json!({ "version": at, "body": command, "signature": as_named });
    })
    .await;
    let (code, said) = verify_bundle(url, dir, &id).await;
    assert_eq!(code, Some(1), "{said}");
    assert!(
        said.contains(&format!(
            "event {first}: seat 0's command carries a signature that does not verify under the \
             seat's key"
        )),
        "{said}"
    );
}

on_both_stores!(
    a_name_signed_is_no_other_act_on_sqlite,
    a_name_signed_is_no_other_act_on_postgres,
    a_name_signed_is_no_other_act
);
