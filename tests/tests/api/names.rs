//! A player names their seat anew before the start (`PUT /games/{id}/seats/{seat}/name`): a
//! guest invited as "Guest" says who they are. Only the seat's own token, signed once the seat
//! has a key; the name checked as a join's; a retry with its key answers the first reply; and
//! once the game has started the names are kept (409).

use ed25519_dalek::SigningKey;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{Exchange, TestApp, postgres_url, sqlite_url};
use crate::mixed::game::{join_keyed, lobby_signed};

/// `PUT …/seats/{seat}/name` with `name`, as `token`, with `headers`.
async fn rename(
    app: &TestApp,
    (id, seat): (&str, u8),
    token: Option<&str>,
    name: &str,
    headers: &[(&str, String)],
) -> Exchange {
    let path = format!("/games/{id}/seats/{seat}/name");
    let body = json!({ "name": name });
    app.exchange(Method::PUT, &path, token, Some(&body), headers)
        .await
}

/// The seat's name as the game lists it.
async fn listed(app: &TestApp, id: &str, seat: usize) -> Value {
    app.game(id).await.1["seats"][seat]["name"].clone()
}

async fn seats_named(app: &TestApp) {
    let settings = json!({ "ruleset": "base", "players": 3 });
    let (id, host, ada) = app.lobby(&settings).await;
    let (st, guest) = app.join(&id, "Guest").await;
    assert_eq!(st, StatusCode::CREATED, "{guest}");
    let guest = guest["player_token"].as_str().unwrap().to_string();

    // The guest names their seat: trimmed, as the game lists it.
    let named = rename(app, (&id, 1), Some(&guest), "  Bea ", &[]).await;
    assert_eq!(
        (named.status, &named.body),
        (StatusCode::OK, &json!({ "seat": 1, "name": "Bea" }))
    );
    assert_eq!(listed(app, &id, 1).await, "Bea");

    // Nobody else names it: another seat's player, the host, nobody at all.
    for (token, status) in [
        (Some(ada.as_str()), StatusCode::FORBIDDEN),
        (Some(host.as_str()), StatusCode::FORBIDDEN),
        (None, StatusCode::UNAUTHORIZED),
    ] {
        let refused = rename(app, (&id, 1), token, "Mallory", &[]).await;
        assert_eq!(refused.status, status, "{:?}", refused.body);
    }
    // A name that is not one: 400, and the name stays.
    for bad in ["", "   ", &"x".repeat(41), "Bea\u{7}", "Bea\u{202e}"] {
        let refused = rename(app, (&id, 1), Some(&guest), bad, &[]).await;
        assert_eq!(
            refused.status,
            StatusCode::BAD_REQUEST,
            "{bad:?}: {:?}",
            refused.body
        );
    }
    assert_eq!(listed(app, &id, 1).await, "Bea");

    // A retry with its key answers the first reply, marked; the key with another name is 422.
    let key = [("Idempotency-Key", "name-1".to_string())];
    let first = rename(app, (&id, 1), Some(&guest), "Beatrix", &key).await;
    assert_eq!(first.status, StatusCode::OK, "{:?}", first.body);
    let path = format!("/games/{id}/seats/1/name");
    let again = app
        .put_raw(&path, Some(&guest), &json!({ "name": "Beatrix" }), &key)
        .await;
    assert_eq!(again.status(), StatusCode::OK);
    assert_eq!(again.headers()["idempotency-replayed"], "true");
    assert_eq!(again.json::<Value>().await.unwrap(), first.body);
    let reused = rename(app, (&id, 1), Some(&guest), "Bice", &key).await;
    assert_eq!(
        (reused.status, &reused.body["code"]),
        (
            StatusCode::UNPROCESSABLE_ENTITY,
            &json!("idempotency_key_reused")
        )
    );
    assert_eq!(listed(app, &id, 1).await, "Beatrix");

    // A seat with a key names itself only signed by it.
    let key = SigningKey::from_bytes(&[21; 32]);
    let joined = join_keyed(app, &id, "Cleo", &key).await;
    assert_eq!(joined.status, StatusCode::CREATED, "{:?}", joined.body);
    let cleo = joined.body["player_token"].as_str().unwrap().to_string();
    let unsigned = rename(app, (&id, 2), Some(&cleo), "Cleo B", &[]).await;
    assert_eq!(
        (unsigned.status, &unsigned.body["code"]),
        (StatusCode::UNAUTHORIZED, &json!("signature_required"))
    );
    let version = app.game(&id).await.1["lobby_version"].as_i64().unwrap();
    let body = json!({ "name": "Cleo B" });
    let signed = lobby_signed(&key, (&id, 2), ("name", &body), version);
    let named = rename(app, (&id, 2), Some(&cleo), "Cleo B", &signed).await;
    assert_eq!(named.status, StatusCode::OK, "{:?}", named.body);
    assert_eq!(listed(app, &id, 2).await, "Cleo B");
    // The same signature over another name proves nothing.
    let forged = rename(app, (&id, 2), Some(&cleo), "Mallory", &signed).await;
    assert_eq!(
        (forged.status, &forged.body["code"]),
        (StatusCode::UNAUTHORIZED, &json!("bad_signature"))
    );

    // Started: the names are kept to the end.
    assert_eq!(app.start(&id, Some(&host)).await.0, StatusCode::OK);
    let late = rename(app, (&id, 1), Some(&guest), "Bea", &[]).await;
    assert_eq!(
        (late.status, &late.body["code"]),
        (StatusCode::CONFLICT, &json!("already_started"))
    );
    assert_eq!(listed(app, &id, 1).await, "Beatrix");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_a_player_names_their_seat_before_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let app = TestApp::spawn(sqlite_url(&dir, "names.db"), None).await;
    seats_named(&app).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_a_player_names_their_seat_before_the_start() {
    let app = TestApp::spawn(postgres_url().await, None).await;
    seats_named(&app).await;
}
