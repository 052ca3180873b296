//! Shares committed before any is seen. A player may take a seat with the commitment to their
//! share instead of the share; the host closes the lobby, each committed seat reveals its
//! share, and the last one starts the game. So no seat, the operator's own
//! included, chooses its share knowing the others' (before, shares were public as they came,
//! and a seat the operator took last could try shares until the deal suited it).
//!
//! Tried as a dishonest operator would: a revealed share dropped from the store before the
//! start (the deal drawn without it, the record consistent) is named by `verify --commitment`
//! with the reveal's signed reply; a share withheld is said by `verify` on the bundle alone.
//!
//! On SQLite and PostgreSQL.

#[macro_use]
mod operator;

use operator::*;
use saboteur_domain::Seed;
use serde_json::{Value, json};

/// A share and the commitment to it, as 64 hex digits each.
fn share(n: u64) -> (String, String) {
    let share = Seed::from_u64(n);
    (share.to_hex(), share.share_commitment().to_hex())
}

/// A lobby for three: Ada (seat 0) and Bo (seat 1) took their seats with commitments to the
/// shares 1 and 2, seat 2 is a random bot. Its id, the host's token, and each player's reply.
/// A share and its commitment sent at once are refused first, and take no seat.
async fn committed_lobby(server: &Server) -> (String, String, Value, Value) {
    let (_, id, host) = server.create_base_game().await;
    let both = json!({"name": "Cy", "entropy": share(9).0, "share_commitment": share(9).1});
    let (status, problem) = server
        .send(("POST", &format!("/games/{id}/seats")), None, Some(both))
        .await;
    assert_eq!(
        (status, problem["code"].as_str()),
        (400, Some("bad_request")),
        "{problem}"
    );
    let mut joined = Vec::new();
    for (name, n) in [("Ada", 1), ("Bo", 2)] {
        let body = json!({"name": name, "share_commitment": share(n).1});
        let path = format!("/games/{id}/seats");
        joined.push(server.call("POST", &path, None, Some(body)).await);
    }
    server.random_bots(&id, &host, 1).await;
    let bo = joined.pop().unwrap();
    let ada = joined.pop().unwrap();
    assert_eq!(
        (&ada["seat"], &bo["seat"]),
        (&json!(0), &json!(1)),
        "{ada} {bo}"
    );
    (id, host, ada, bo)
}

/// The token in a reply to taking a seat.
fn token(joined: &Value) -> &str {
    joined["player_token"].as_str().unwrap()
}

/// Hands seats 0 and 1 to random bots and waits for the game's end.
async fn bots_finish(server: &Server, id: &str, host: &str) {
    for seat in 0..2 {
        server
            .call(
                "POST",
                &format!("/games/{id}/seats/{seat}/handover"),
                Some(host),
                Some(json!({"level": "random"})),
            )
            .await;
    }
    for _ in 0..800 {
        let summary = server
            .call("GET", &format!("/games/{id}"), None, None)
            .await;
        if summary["status"] == "finished" {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    panic!("game {id} did not end");
}

/// A start waits for the committed shares; the host closes the lobby; a seat is neither taken
/// nor given back once closed; a share is revealed only once closed and only if it opens the
/// seat's commitment; the last share starts the game, whose
/// record keeps the commitments; and the honest game verifies, the players' replies with it.
async fn shares_are_committed_then_revealed(url: &str, dir: &std::path::Path) {
    let server = Server::start(url).await;
    let (id, host, ada, bo) = committed_lobby(&server).await;
    let (ada_share, ada_commitment) = share(1);
    assert_eq!(
        ada["commitment"]["share_commitment"],
        json!(ada_commitment),
        "{ada}"
    );
    assert!(ada["commitment"].get("entropy").is_none(), "{ada}");
    let reveal = |seat: u8| format!("/games/{id}/seats/{seat}/share");
    // Before the host closes the lobby: no reveal.
    let (status, problem) = server
        .send(
            ("PUT", &reveal(0)),
            Some(token(&ada)),
            Some(json!({"entropy": ada_share})),
        )
        .await;
    assert_eq!(
        (status, problem["code"].as_str()),
        (409, Some("lobby_open")),
        "{problem}"
    );
    let summary = server
        .call("GET", &format!("/games/{id}"), None, None)
        .await;
    assert_eq!(
        summary["seats"][0]["share"],
        json!("committed"),
        "{summary}"
    );
    assert!(summary.get("reveal_by").is_none(), "{summary}");
    // A start waits for them: the lobby is to be closed first, which changes nothing else.
    let start = format!("/games/{id}/start");
    let (status, problem) = server.send(("POST", &start), Some(&host), None).await;
    assert_eq!(
        (status, problem["code"].as_str()),
        (409, Some("shares_unrevealed")),
        "{problem}"
    );
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("close the lobby"),
        "{problem}"
    );
    // Only the host closes it; closing again answers the same.
    let close = format!("/games/{id}/close");
    let (status, _) = server.send(("POST", &close), Some(token(&ada)), None).await;
    assert_eq!(status, 403);
    let (status, closed) = server.send(("POST", &close), Some(&host), None).await;
    assert_eq!(
        (status, &closed["waiting"]),
        (200, &json!([0, 1])),
        "{closed}"
    );
    let (status, again) = server.send(("POST", &close), Some(&host), None).await;
    assert_eq!((status, &again), (200, &closed));
    let summary = server
        .call("GET", &format!("/games/{id}"), None, None)
        .await;
    assert_eq!(summary["status"], json!("lobby"));
    assert_eq!(summary["reveal_by"], closed["reveal_by"], "{summary}");
    // Closed: no seat given back, and no start before the shares (or their time).
    let (status, problem) = server
        .send(
            ("DELETE", &format!("/games/{id}/seats/1")),
            Some(token(&bo)),
            None,
        )
        .await;
    assert_eq!(
        (status, problem["code"].as_str()),
        (409, Some("lobby_closed")),
        "{problem}"
    );
    let (status, problem) = server.send(("POST", &start), Some(&host), None).await;
    assert_eq!(
        (status, problem["code"].as_str()),
        (409, Some("shares_unrevealed")),
        "{problem}"
    );
    // A share that does not open the commitment, or another seat's token: refused.
    let (status, problem) = server
        .send(
            ("PUT", &reveal(0)),
            Some(token(&ada)),
            Some(json!({"entropy": share(2).0})),
        )
        .await;
    assert_eq!(status, 400, "{problem}");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("does not open"),
        "{problem}"
    );
    let (status, _) = server
        .send(
            ("PUT", &reveal(0)),
            Some(token(&bo)),
            Some(json!({"entropy": ada_share})),
        )
        .await;
    assert_eq!(status, 403);
    // Ada reveals (twice: the same answer), then Bo, whose share starts the game.
    let mut revealed = Value::Null;
    for _ in 0..2 {
        let (status, reply) = server
            .send(
                ("PUT", &reveal(0)),
                Some(token(&ada)),
                Some(json!({"entropy": ada_share})),
            )
            .await;
        assert_eq!(
            (status, &reply["waiting"], &reply["started"]),
            (200, &json!([1]), &json!(false)),
            "{reply}"
        );
        assert_eq!(reply["commitment"]["entropy"], json!(ada_share), "{reply}");
        assert_eq!(
            reply["commitment"]["share_commitment"],
            json!(ada_commitment),
            "{reply}"
        );
        revealed = reply;
    }
    let (status, last) = server
        .send(
            ("PUT", &reveal(1)),
            Some(token(&bo)),
            Some(json!({"entropy": share(2).0})),
        )
        .await;
    assert_eq!(
        (status, &last["waiting"], &last["started"]),
        (200, &json!([]), &json!(true)),
        "{last}"
    );
    recorded_and_verified(&server, dir, (&id, &host), (&ada, revealed)).await;
}

/// The started game's record holds both commitments and both shares; played to its end, its
/// bundle verifies with Ada's replies to taking the seat and to revealing her share.
async fn recorded_and_verified(
    server: &Server,
    dir: &std::path::Path,
    (id, host): (&str, &str),
    (ada, revealed): (&Value, Value),
) {
    let (ada_share, ada_commitment) = share(1);
    let log = server
        .call("GET", &format!("/games/{id}/events?after=0"), None, None)
        .await;
    let mixed = events_of(&log, "seed_mixed");
    assert_eq!(mixed.len(), 1, "{log}");
    assert_eq!(
        mixed[0]["event"]["committed"],
        json!([{"seat": 0, "commitment": ada_commitment}, {"seat": 1, "commitment": share(2).1}])
    );
    assert_eq!(
        mixed[0]["event"]["contributions"].as_array().map(Vec::len),
        Some(2)
    );
    bots_finish(server, id, host).await;
    let bundle = server
        .call("GET", &format!("/games/{id}/audit"), None, None)
        .await;
    let mut joined = ada.clone();
    joined["sent"] = json!({"name": "Ada", "share_commitment": ada_commitment});
    let mut shown = revealed;
    shown["sent"] = json!({"entropy": ada_share});
    let out = verify_with(&[
        "--file",
        &file(dir, "bundle.json", &bundle),
        "--commitment",
        &file(dir, "joined.json", &joined),
        "--commitment",
        &file(dir, "revealed.json", &shown),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(!text(&out).contains("did not reveal"), "{}", text(&out));
}

on_both_stores!(
    shares_are_committed_then_revealed_on_sqlite,
    shares_are_committed_then_revealed_on_postgres,
    shares_are_committed_then_revealed
);

/// Bo never reveals: once the time is up the host's start deals without Bo's share, and
/// `verify` says so from the bundle. The operator drops Ada's revealed share from the store
/// before that start: the record is consistent (the deal drawn without it), the bundle alone
/// passes, and Ada's signed reply to her reveal names it.
async fn a_share_withheld_or_dropped_is_named(url: &str, dir: &std::path::Path) {
    let clock = saboteur_api::TimeSource::manual(T0);
    let server = Server::start_at(url, clock.clone()).await;
    let (id, host, ada, _bo) = committed_lobby(&server).await;
    let start = format!("/games/{id}/start");
    let close = format!("/games/{id}/close");
    let (status, closed) = server.send(("POST", &close), Some(&host), None).await;
    assert_eq!(status, 200, "{closed}");
    let (ada_share, ada_commitment) = share(1);
    let (status, revealed) = server
        .send(
            ("PUT", &format!("/games/{id}/seats/0/share")),
            Some(token(&ada)),
            Some(json!({"entropy": ada_share})),
        )
        .await;
    assert_eq!(status, 200, "{revealed}");
    // The operator drops the share Ada revealed.
    let store = saboteur_storage::EventStore::connect(url).await.unwrap();
    let sql = format!("UPDATE credentials SET entropy = NULL WHERE game_id = '{id}' AND seat = 0");
    assert_eq!(store.execute_raw(&sql).await.unwrap(), 1);
    clock.advance(30_001);
    let started = server.call("POST", &start, Some(&host), None).await;
    let mixed = events_of(&started, "seed_mixed");
    assert_eq!(mixed[0]["event"]["contributions"], json!([]), "{started}");
    assert_eq!(
        mixed[0]["event"]["committed"].as_array().map(Vec::len),
        Some(2)
    );
    bots_finish(&server, &id, &host).await;
    let bundle = server
        .call("GET", &format!("/games/{id}/audit"), None, None)
        .await;
    let bundle = file(dir, "bundle.json", &bundle);
    // The bundle alone: consistent, and it says who withheld (as it reads).
    let out = verify_with(&["--file", &bundle]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    for seat in 0..2 {
        assert!(
            text(&out).contains(&format!(
                "seat {seat} committed to a share and did not reveal it: the deal was drawn \
                 without it"
            )),
            "{}",
            text(&out)
        );
    }
    // Ada's reply to taking the seat agrees (she committed; the record lists it)...
    let mut joined = ada.clone();
    joined["sent"] = json!({"name": "Ada", "share_commitment": ada_commitment});
    let out = verify_with(&[
        "--file",
        &bundle,
        "--commitment",
        &file(dir, "joined.json", &joined),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    // ...her reply to the reveal does not: the server acknowledged a share it left out.
    let mut shown = revealed;
    shown["sent"] = json!({"entropy": ada_share});
    let out = verify_with(&[
        "--file",
        &bundle,
        "--commitment",
        &file(dir, "revealed.json", &shown),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains(&format!(
            "the server acknowledged the share {ada_share} seat 0 revealed; the record mixed \
             none into the seed for it"
        )),
        "{}",
        text(&out)
    );
}

on_both_stores!(
    a_share_withheld_or_dropped_is_named_on_sqlite,
    a_share_withheld_or_dropped_is_named_on_postgres,
    a_share_withheld_or_dropped_is_named
);
