//! A player moves to a free seat before the start (`POST /games/{id}/seats/{seat}/move`): the
//! seat order is the order of play. Only the seat's own token, signed once the seat has a key;
//! the token, key and share move with the player, whose reply is the new seat's commitment; a
//! seat taken, missing or the same is refused and changes nothing; a retry with its key answers
//! the first reply; once the game has started the seats are kept (409).

use ed25519_dalek::SigningKey;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{Exchange, TestApp, postgres_url, sqlite_url};
use crate::mixed::game::{join_keyed, lobby_signed};

/// `POST …/seats/{seat}/move` to `to`, as `token`, with `headers`.
async fn sit(
    app: &TestApp,
    (id, seat): (&str, u8),
    token: Option<&str>,
    to: u8,
    headers: &[(&str, String)],
) -> Exchange {
    let path = format!("/games/{id}/seats/{seat}/move");
    app.exchange(
        Method::POST,
        &path,
        token,
        Some(&json!({ "to": to })),
        headers,
    )
    .await
}

/// The game's seats as it lists them: each taken seat's number and name.
async fn seated(app: &TestApp, id: &str) -> Vec<(u64, String)> {
    let mut seats: Vec<(u64, String)> = app.game(id).await.1["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let name = s["name"].as_str().unwrap_or_default().to_string();
            (s["seat"].as_u64().unwrap(), name)
        })
        .collect();
    seats.sort();
    seats
}

fn owned(seats: &[(u64, &str)]) -> Vec<(u64, String)> {
    seats.iter().map(|(s, n)| (*s, (*n).to_string())).collect()
}

async fn seats_moved(app: &TestApp) {
    let settings = json!({ "ruleset": "base", "players": 5 });
    let (id, host, ada) = app.lobby(&settings).await;
    let (st, bea) = app.join(&id, "Bea").await;
    assert_eq!(
        (st, &bea["seat"]),
        (StatusCode::CREATED, &json!(1)),
        "{bea}"
    );
    let bea = bea["player_token"].as_str().unwrap().to_string();

    // Bea moves to seat 3: the reply is seat 3's commitment, signed; seat 1 is free.
    let moved = sit(app, (&id, 1), Some(&bea), 3, &[]).await;
    assert_eq!(moved.status, StatusCode::CREATED, "{:?}", moved.body);
    assert_eq!(
        (&moved.body["seat"], &moved.body["from"]),
        (&json!(3), &json!(1))
    );
    assert_eq!(moved.body["commitment"]["seat"], 3);
    assert_eq!(moved.body["receipt"]["kind"], "commitment");
    let now = owned(&[(0, "Ada"), (3, "Bea")]);
    assert_eq!(seated(app, &id).await, now);

    // Her token now holds seat 3, and no longer seat 1.
    let from_free = sit(app, (&id, 1), Some(&bea), 2, &[]).await;
    assert_eq!(
        from_free.status,
        StatusCode::FORBIDDEN,
        "{:?}",
        from_free.body
    );

    // Nobody else moves her: another seat's player, the host, nobody at all.
    for (token, status) in [
        (Some(ada.as_str()), StatusCode::FORBIDDEN),
        (Some(host.as_str()), StatusCode::FORBIDDEN),
        (None, StatusCode::UNAUTHORIZED),
    ] {
        let refused = sit(app, (&id, 3), token, 4, &[]).await;
        assert_eq!(refused.status, status, "{:?}", refused.body);
    }
    // A seat taken (409), one the game does not have or the seat itself (400): nothing moves.
    let taken = sit(app, (&id, 3), Some(&bea), 0, &[]).await;
    assert_eq!(
        (taken.status, &taken.body["code"]),
        (StatusCode::CONFLICT, &json!("seat_taken"))
    );
    for to in [5, 3, 255] {
        let refused = sit(app, (&id, 3), Some(&bea), to, &[]).await;
        assert_eq!(
            refused.status,
            StatusCode::BAD_REQUEST,
            "{to}: {:?}",
            refused.body
        );
    }
    assert_eq!(seated(app, &id).await, now);

    // A retry with its key answers the first reply, marked; the key with another seat is 422.
    let key = [("Idempotency-Key", "sit-1".to_string())];
    let first = sit(app, (&id, 3), Some(&bea), 2, &key).await;
    assert_eq!(first.status, StatusCode::CREATED, "{:?}", first.body);
    let path = format!("/games/{id}/seats/3/move");
    let again = app
        .send_raw(Method::POST, &path, Some(&bea), &json!({ "to": 2 }), &key)
        .await;
    assert_eq!(again.status(), StatusCode::CREATED);
    assert_eq!(again.headers()["idempotency-replayed"], "true");
    assert_eq!(again.json::<Value>().await.unwrap(), first.body);
    let reused = sit(app, (&id, 3), Some(&bea), 4, &key).await;
    assert_eq!(
        (reused.status, &reused.body["code"]),
        (
            StatusCode::UNPROCESSABLE_ENTITY,
            &json!("idempotency_key_reused")
        )
    );
    assert_eq!(seated(app, &id).await, owned(&[(0, "Ada"), (2, "Bea")]));

    let cleo = keyed_seat_moved(app, &id).await;
    let now = owned(&[(0, "Ada"), (2, "Bea"), (4, "Cleo")]);
    assert_eq!(seated(app, &id).await, now);

    // Started: each token sees its new seat's hand, and the seats are kept to the end.
    for _ in 0..2 {
        let (st, bot) = app
            .add_bot(&id, Some(&host), &json!({ "level": "random" }))
            .await;
        assert_eq!(st, StatusCode::CREATED, "{bot}");
    }
    assert_eq!(app.start(&id, Some(&host)).await.0, StatusCode::OK);
    for (token, seat) in [(&bea, 2), (&cleo, 4)] {
        let (st, mine) = app.state(&id, Some(token)).await;
        assert_eq!((st, &mine["view"]["seat"]), (StatusCode::OK, &json!(seat)));
    }
    let late = sit(app, (&id, 2), Some(&bea), 3, &[]).await;
    assert_eq!(
        (late.status, &late.body["code"]),
        (StatusCode::CONFLICT, &json!("already_started"))
    );
}

/// Cleo joins `id` (seat 1 free, seat 4 too) with a key: her move is taken only signed by it,
/// over that move from that seat, and her key moves with her. Her token.
async fn keyed_seat_moved(app: &TestApp, id: &str) -> String {
    // A seat with a key moves only signed by it, and its key moves with it.
    let key = SigningKey::from_bytes(&[23; 32]);
    let public = hex::encode(key.verifying_key().to_bytes());
    let joined = join_keyed(app, id, "Cleo", &key).await;
    assert_eq!(joined.status, StatusCode::CREATED, "{:?}", joined.body);
    assert_eq!(joined.body["seat"], 1);
    let cleo = joined.body["player_token"].as_str().unwrap().to_string();
    let unsigned = sit(app, (id, 1), Some(&cleo), 4, &[]).await;
    assert_eq!(
        (unsigned.status, &unsigned.body["code"]),
        (StatusCode::UNAUTHORIZED, &json!("signature_required"))
    );
    let version = app.game(id).await.1["lobby_version"].as_i64().unwrap();
    let signed = lobby_signed(&key, (id, 1), ("sit", &json!({ "to": 4 })), version);
    // The same signature over another seat proves nothing.
    let forged = sit(app, (id, 1), Some(&cleo), 3, &signed).await;
    assert_eq!(
        (forged.status, &forged.body["code"]),
        (StatusCode::UNAUTHORIZED, &json!("bad_signature"))
    );
    let moved = sit(app, (id, 1), Some(&cleo), 4, &signed).await;
    assert_eq!(moved.status, StatusCode::CREATED, "{:?}", moved.body);
    assert_eq!(moved.body["commitment"]["public_key"], json!(public));
    // Spent: sent again, from a seat her token no longer holds (403); nor does it stand for a
    // move back from the new seat (its statement names seat 1 and seat 4).
    let again = sit(app, (id, 1), Some(&cleo), 4, &signed).await;
    assert_eq!(again.status, StatusCode::FORBIDDEN, "{:?}", again.body);
    let back = sit(app, (id, 4), Some(&cleo), 1, &signed).await;
    assert_eq!(
        (back.status, &back.body["code"]),
        (StatusCode::UNAUTHORIZED, &json!("bad_signature"))
    );
    cleo
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_a_player_moves_to_a_free_seat_before_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let app = TestApp::spawn(sqlite_url(&dir, "sits.db"), None).await;
    seats_moved(&app).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_a_player_moves_to_a_free_seat_before_the_start() {
    let app = TestApp::spawn(postgres_url().await, None).await;
    seats_moved(&app).await;
}
