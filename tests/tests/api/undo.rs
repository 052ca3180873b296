//! Undo by consent and the host's rollback: the log keeps everything.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::TestApp;

/// Undo by consent (approved, declined) and the host's rollback, through the API.
async fn undo_and_rollback(app: &TestApp) {
    let t = app.table("base", 3, 8).await;
    let (st, _) = app.start(&t.id, Some(&t.host)).await;
    assert_eq!(st, StatusCode::OK);
    let before: Vec<Value> = {
        let mut v = Vec::new();
        for tok in &t.tokens {
            v.push(app.state(&t.id, Some(tok)).await.1["view"].clone());
        }
        v
    };
    let seat = app.play_one(&t).await;
    // Someone else cannot take it back.
    let other = (seat + 1) % 3;
    let (st, v) = app.undo(&t.id, &t.tokens[other]).await;
    assert_eq!(st, StatusCode::CONFLICT, "{v}");
    // The command drew a card: everyone must approve.
    let (st, v) = app.undo(&t.id, &t.tokens[seat]).await;
    assert_eq!(st, StatusCode::ACCEPTED, "{v}");
    assert_eq!(v["events"][0]["event"]["type"], "undo_requested");
    let (st, _) = app.undo_approve(&t.id, &t.tokens[seat]).await;
    assert_eq!(st, StatusCode::CONFLICT, "the requester does not vote");
    let (st, _) = app.undo_approve(&t.id, &t.tokens[other]).await;
    assert_eq!(st, StatusCode::ACCEPTED);
    let (st, v) = app.undo_approve(&t.id, &t.tokens[(seat + 2) % 3]).await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(
        v["events"].as_array().unwrap().last().unwrap()["event"]["type"],
        "undone"
    );
    for (i, tok) in t.tokens.iter().enumerate() {
        assert_eq!(
            app.state(&t.id, Some(tok)).await.1["view"],
            before[i],
            "seat {i} is back where it was"
        );
    }
    // Declined: the command stands.
    app.play_one(&t).await;
    let (_, after) = app.state(&t.id, Some(&t.tokens[0])).await;
    let (st, _) = app.undo(&t.id, &t.tokens[seat]).await;
    assert_eq!(st, StatusCode::ACCEPTED);
    let (st, _) = app.undo_decline(&t.id, &t.tokens[other]).await;
    assert_eq!(st, StatusCode::OK, "declined: nothing is pending");
    assert_eq!(
        app.state(&t.id, Some(&t.tokens[0])).await.1["view"],
        after["view"]
    );
    // The host rolls back to the deal, with a reason; the log keeps everything.
    let (st, _) = app
        .rollback(
            &t.id,
            &t.tokens[0],
            &json!({"to_version": 2, "reason": "dispute"}),
        )
        .await;
    assert_eq!(st, StatusCode::FORBIDDEN);
    let (st, _) = app
        .rollback(&t.id, &t.host, &json!({"to_version": 2, "reason": " "}))
        .await;
    assert_eq!(st, StatusCode::BAD_REQUEST);
    let (st, v) = app
        .rollback(
            &t.id,
            &t.host,
            &json!({"to_version": 2, "reason": "a card was misread"}),
        )
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    let (_, now) = app.state(&t.id, Some(&t.tokens[0])).await;
    assert_eq!(now["view"], before[0]);
    let (_, log) = app.events(&t.id, "limit=1000", None).await;
    let kinds: Vec<&str> = log["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["event"]["type"].as_str().unwrap())
        .collect();
    for k in ["undo_requested", "undo_approved", "undo_declined", "undone"] {
        assert!(kinds.contains(&k), "{k} is in the log");
    }
    // Not over: no audit bundle yet.
    let (st, _) = app.audit(&t.id).await;
    assert_eq!(st, StatusCode::CONFLICT);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_undo_and_rollback() {
    undo_and_rollback(&TestApp::sqlite().await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_undo_and_rollback() {
    undo_and_rollback(&TestApp::postgres().await).await;
}
