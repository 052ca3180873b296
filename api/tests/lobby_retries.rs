//! A lobby's acts retried with an `Idempotency-Key` (a seat taken, a bot seated, a seat's key
//! changed, a seat named anew, a seat given back), each sent again through another server process as a client
//! does after a lost reply: the first reply again, marked `Idempotency-Replayed: true`, and one
//! effect. Without the kept reply, each retry would act again (a second seat, a second bot) or
//! be refused (the old key no longer signs, the token no longer works). The key sent with
//! another request is 422; another caller's same key is its own act. A keyed seat's lobby act
//! signed at a lobby version gone by is 412, whichever process it reaches. On SQLite and
//! PostgreSQL.

#[macro_use]
mod operator;

use operator::*;
use serde_json::{Value, json};

/// A lobby act: `method path` with `body` as these bytes, `token`, the `Idempotency-Key` and,
/// for a keyed seat, its signature; the status, whether it was marked replayed, and the body.
async fn send(
    server: &Server,
    (method, path): (reqwest::Method, &str),
    (token, key): (Option<&str>, &str),
    body: &str,
    signer: Option<(&ed25519_dalek::SigningKey, &str, u8, u64, &str)>,
) -> (u16, bool, Value) {
    use ed25519_dalek::Signer as _;
    let mut rb = server
        .client
        .request(method, format!("{}{path}", server.base))
        .header("Idempotency-Key", key);
    if let Some(t) = token {
        rb = rb.bearer_auth(t);
    }
    if !body.is_empty() {
        rb = rb
            .header("Content-Type", "application/json")
            .body(body.to_string());
    }
    if let Some((signing, game, seat, version, act)) = signer {
        let signature = signing.sign(&statement(game, seat, version, act, body));
        rb = rb
            .header("Seat-Signature", hex::encode(signature.to_bytes()))
            .header("Seat-Signature-Version", version.to_string());
    }
    let res = rb.send().await.unwrap();
    let status = res.status().as_u16();
    let replayed = res.headers().get("idempotency-replayed").is_some();
    let text = res.text().await.unwrap();
    (
        status,
        replayed,
        serde_json::from_str(&text).unwrap_or(Value::Null),
    )
}

/// The game's version.
async fn version_of(server: &Server, id: &str) -> u64 {
    let game = server
        .call("GET", &format!("/games/{id}"), None, None)
        .await;
    game["version"].as_u64().unwrap()
}

/// The lobby's version, which a keyed seat's lobby act is signed at.
async fn lobby_version_of(server: &Server, id: &str) -> u64 {
    let game = server
        .call("GET", &format!("/games/{id}"), None, None)
        .await;
    game["lobby_version"].as_u64().unwrap()
}

/// The seats a lobby lists.
async fn seats(server: &Server, id: &str) -> Vec<Value> {
    let game = server
        .call("GET", &format!("/games/{id}"), None, None)
        .await;
    game["seats"].as_array().unwrap().clone()
}

/// Sends the act through `one`, then again through `two`: a first reply, then the same reply
/// marked replayed (a lobby's kept exactly; one read back from the log signed when served).
/// The first reply.
async fn twice(
    (one, two): (&Server, &Server),
    act: (reqwest::Method, &str),
    who: (Option<&str>, &str),
    body: &str,
    signer: Option<(&ed25519_dalek::SigningKey, &str, u8, u64, &str)>,
) -> (u16, Value) {
    let (status, replayed, first) = send(one, act.clone(), who, body, signer).await;
    assert!(
        (200..300).contains(&status) && !replayed,
        "{}: {status} {first}",
        act.1
    );
    let (again, replayed, second) = send(two, act.clone(), who, body, signer).await;
    assert!(
        replayed,
        "{}: a retry is marked replayed: {again} {second}",
        act.1
    );
    // The same reply; one read back from the log is signed again when it is served.
    let signed_now = |v: &Value| {
        let mut v = v.clone();
        if let Some(r) = v.get_mut("receipt").and_then(Value::as_object_mut) {
            r.remove("served_at");
            r.remove("signature");
        }
        v
    };
    assert_eq!(
        (again, signed_now(&second)),
        (status, signed_now(&first)),
        "{}: the first reply",
        act.1
    );
    (status, first)
}

async fn lobby_acts_answer_their_first_reply(url: &str, _dir: &std::path::Path) {
    let one = Server::start(url).await;
    let two = Server::start(url).await;
    let apps = (&one, &two);
    let (_, id, host) = one.create_base_game().await;
    let (old, _) = player_key(31);
    let (new, new_public) = player_key(32);
    let seats_path = format!("/games/{id}/seats");
    // A seat taken: one seat, its token given back to the same client.
    let join = keyed_join(&id, "Ada", &old).to_string();
    let (_, joined) = twice(
        apps,
        (reqwest::Method::POST, &seats_path),
        (None, "join-1"),
        &join,
        None,
    )
    .await;
    let me = joined["player_token"].as_str().unwrap().to_string();
    assert_eq!(seats(&one, &id).await.len(), 1, "one seat taken");
    // The key with another request is refused, and takes nothing.
    let other = json!({"name": "Bob"}).to_string();
    let (status, _, problem) = send(
        &one,
        (reqwest::Method::POST, &seats_path),
        (None, "join-1"),
        &other,
        None,
    )
    .await;
    assert_eq!(
        (status, problem["code"].as_str()),
        (422, Some("idempotency_key_reused"))
    );
    assert_eq!(
        seats(&one, &id).await.len(),
        1,
        "nothing taken by a reused key"
    );
    // A bot seated by the host: one bot.
    let bots = format!("/games/{id}/bots");
    let bot = json!({"level": "random"}).to_string();
    twice(
        apps,
        (reqwest::Method::POST, &bots),
        (Some(&host), "bot-1"),
        &bot,
        None,
    )
    .await;
    assert_eq!(seats(&one, &id).await.len(), 2, "one bot seated");
    // The seat's key changed, signed by the key before: the retry is signed by that key too,
    // which no longer holds the seat.
    let version = lobby_version_of(&one, &id).await;
    let key_path = format!("/games/{id}/seats/0/key");
    let change = json!({"public_key": new_public, "key_proof": key_proof(&new, &id)}).to_string();
    let signer = Some((&old, id.as_str(), 0, version, "key"));
    let (status, kept) = twice(
        apps,
        (reqwest::Method::PUT, &key_path),
        (Some(&me), "key-1"),
        &change,
        signer,
    )
    .await;
    assert_eq!(
        (status, kept["commitment"]["public_key"].as_str()),
        (201, Some(new_public.as_str()))
    );
    // The seat named anew, signed by its new key, retried through the other process.
    let name_path = format!("/games/{id}/seats/0/name");
    let version = lobby_version_of(&one, &id).await;
    let signer = Some((&new, id.as_str(), 0, version, "name"));
    let rename = json!({"name": "Ada B"}).to_string();
    let (status, named) = twice(
        apps,
        (reqwest::Method::PUT, &name_path),
        (Some(&me), "name-1"),
        &rename,
        signer,
    )
    .await;
    assert_eq!((status, named["name"].as_str()), (200, Some("Ada B")));
    // The seat given back, signed by its new key: the retry's token no longer works, and the
    // seat is not taken twice.
    let seat_path = format!("/games/{id}/seats/0");
    let version = lobby_version_of(&one, &id).await;
    let signer = Some((&new, id.as_str(), 0, version, "leave"));
    let (status, _) = twice(
        apps,
        (reqwest::Method::DELETE, &seat_path),
        (Some(&me), "leave-1"),
        "",
        signer,
    )
    .await;
    assert_eq!(status, 204);
    assert_eq!(seats(&one, &id).await.len(), 1, "the seat given back once");
    // Another caller's same key is its own act: the host frees the bot's seat with "leave-1".
    let bot_seat = format!("/games/{id}/seats/1");
    let (status, replayed, body) = send(
        &two,
        (reqwest::Method::DELETE, &bot_seat),
        (Some(&host), "leave-1"),
        "",
        None,
    )
    .await;
    assert_eq!((status, replayed), (204, false), "{body}");
    assert!(seats(&two, &id).await.is_empty(), "the host's own act");
}

/// After the start a key change is recorded (`seat_key_registered`): its retry, signed by the
/// key it replaced, answers the batch it recorded, and records nothing more.
async fn a_key_changed_in_play_answers_its_first_reply(url: &str, _dir: &std::path::Path) {
    let one = Server::start(url).await;
    let two = Server::start(url).await;
    let (old, _) = player_key(33);
    let (new, new_public) = player_key(34);
    let (id, me, _) = keyed_game_with_bots(&one, &old).await;
    let at = version_of(&one, &id).await;
    let key_path = format!("/games/{id}/seats/0/key");
    let proof = key_proof_at(&new, &id, 0, at);
    let change =
        json!({"public_key": new_public, "key_proof": proof, "key_proof_version": at}).to_string();
    let signer = Some((&old, id.as_str(), 0, at, "key"));
    let act = (reqwest::Method::PUT, key_path.as_str());
    let (_, first) = twice(
        (&one, &two),
        act.clone(),
        (Some(&me), "key-in-play"),
        &change,
        signer,
    )
    .await;
    assert_eq!(events_of(&first, "seat_key_registered").len(), 1, "{first}");
    let (_, replayed, _) = send(&two, act, (Some(&me), "key-in-play"), &change, signer).await;
    assert!(replayed);
    assert_eq!(version_of(&two, &id).await, version_of(&one, &id).await);
    assert_eq!(
        version_of(&one, &id).await,
        first["version"].as_u64().unwrap(),
        "one effect: nothing recorded after the first reply"
    );
}

on_both_stores!(
    a_key_changed_in_play_answers_its_first_reply_on_sqlite,
    a_key_changed_in_play_answers_its_first_reply_on_postgres,
    a_key_changed_in_play_answers_its_first_reply
);

on_both_stores!(
    lobby_acts_answer_their_first_reply_on_sqlite,
    lobby_acts_answer_their_first_reply_on_postgres,
    lobby_acts_answer_their_first_reply
);

/// A keyed seat's lobby act holds only at the lobby version it was signed at, whichever
/// process it reaches: a name signed once and sent again after the lobby moved on (a replay,
/// with another `Idempotency-Key`) is 412 and changes nothing, and so is a leave signed before
/// it; signed at the lobby's version now, each is taken.
async fn a_signed_lobby_act_holds_only_at_its_lobby_version(url: &str, _dir: &std::path::Path) {
    let one = Server::start(url).await;
    let two = Server::start(url).await;
    let (_, id, _) = one.create_base_game().await;
    let (key, _) = player_key(35);
    let (status, _, joined) = send(
        &one,
        (reqwest::Method::POST, &format!("/games/{id}/seats")),
        (None, "join"),
        &keyed_join(&id, "Ada", &key).to_string(),
        None,
    )
    .await;
    assert_eq!(status, 201, "{joined}");
    let me = joined["player_token"].as_str().unwrap().to_string();
    let name_path = format!("/games/{id}/seats/0/name");
    let seat_path = format!("/games/{id}/seats/0");
    let at = lobby_version_of(&one, &id).await;
    let named = |name: &str| json!({ "name": name }).to_string();
    let rename = |server, name: &'static str, idem: &'static str, at| {
        let (name_path, me, id, key) = (&name_path, &me, &id, &key);
        async move {
            let act = (reqwest::Method::PUT, name_path.as_str());
            let signer = Some((key, id.as_str(), 0, at, "name"));
            send(server, act, (Some(me), idem), &named(name), signer).await
        }
    };
    let (status, _, out) = rename(&two, "Ada B", "name-1", at).await;
    assert_eq!(status, 200, "{out}");
    let now = lobby_version_of(&one, &id).await;
    assert!(
        now > at,
        "a rename raises the lobby's version: {at} then {now}"
    );
    let (status, _, out) = rename(&one, "Ada C", "name-2", now).await;
    assert_eq!(status, 200, "{out}");
    // The first rename's request sent again: its signature names a lobby version gone by.
    let (status, _, out) = rename(&two, "Ada B", "name-3", at).await;
    assert_eq!(
        (status, out["code"].as_str()),
        (412, Some("precondition_failed")),
        "{out}"
    );
    assert!(
        out["detail"].as_str().unwrap().contains("lobby version"),
        "{out}"
    );
    assert_eq!(
        seats(&one, &id).await[0]["name"],
        "Ada C",
        "nothing renamed"
    );
    // A new key signed by the old one before the renames: refused, the old key still the seat's
    // (the leave below, signed by it, is taken).
    let (next, next_public) = player_key(36);
    let change = json!({"public_key": next_public, "key_proof": key_proof(&next, &id)});
    let signer = Some((&key, id.as_str(), 0, at, "key"));
    let key_path = format!("/games/{id}/seats/0/key");
    let act = (reqwest::Method::PUT, key_path.as_str());
    let (status, _, out) = send(&two, act, (Some(&me), "key-1"), &change.to_string(), signer).await;
    assert_eq!(
        (status, out["code"].as_str()),
        (412, Some("precondition_failed")),
        "{out}"
    );
    // A message is signed at the game's version, never the lobby's (a version after the game's
    // is refused), and the lobby takes none: talk opens with the deal.
    let now = lobby_version_of(&one, &id).await;
    let game_version = version_of(&one, &id).await;
    assert!(now > game_version, "{now} {game_version}");
    let talk_path = format!("/games/{id}/talk");
    let act = (reqwest::Method::POST, talk_path.as_str());
    let text = json!({ "text": "hello" }).to_string();
    let signer = Some((&key, id.as_str(), 0, now, "talk"));
    let (status, _, out) = send(&two, act.clone(), (Some(&me), "talk-1"), &text, signer).await;
    assert_eq!(
        (status, out["code"].as_str()),
        (401, Some("bad_signature")),
        "{out}"
    );
    let signer = Some((&key, id.as_str(), 0, game_version, "talk"));
    let (status, _, out) = send(&two, act, (Some(&me), "talk-2"), &text, signer).await;
    assert_eq!(
        (status, out["code"].as_str()),
        (409, Some("not_started")),
        "{out}"
    );
    assert_eq!(
        version_of(&one, &id).await,
        game_version,
        "nothing recorded"
    );
    // A leave signed before the renames: refused, the seat still held; signed now: taken.
    let leave = |server, idem: &'static str, at| {
        let (seat_path, me, id, key) = (&seat_path, &me, &id, &key);
        async move {
            let act = (reqwest::Method::DELETE, seat_path.as_str());
            let signer = Some((key, id.as_str(), 0, at, "leave"));
            send(server, act, (Some(me), idem), "", signer).await
        }
    };
    let (status, _, out) = leave(&one, "leave-1", at).await;
    assert_eq!(
        (status, out["code"].as_str()),
        (412, Some("precondition_failed")),
        "{out}"
    );
    assert_eq!(seats(&two, &id).await.len(), 1, "the seat still held");
    let (status, _, out) = leave(&two, "leave-2", lobby_version_of(&one, &id).await).await;
    assert_eq!(status, 204, "{out}");
    assert!(seats(&one, &id).await.is_empty(), "the seat given back");
}

on_both_stores!(
    a_signed_lobby_act_holds_only_at_its_lobby_version_on_sqlite,
    a_signed_lobby_act_holds_only_at_its_lobby_version_on_postgres,
    a_signed_lobby_act_holds_only_at_its_lobby_version
);
