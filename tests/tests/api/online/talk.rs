//! Table talk, end to end: a message posted is a public event; bad text, a name, the host and
//! a spectator are refused; five messages in thirty seconds, then 429; the host hides one.

use reqwest::StatusCode;
use serde_json::{Value, json};

use super::{log, of_type};
use crate::helpers::{Table, TestApp, assert_conforms};

/// Posts `body` to a game's talk as `token`.
async fn talk(app: &TestApp, id: &str, token: Option<&str>, body: Value) -> (StatusCode, Value) {
    app.post_json(&format!("/games/{id}/talk"), token, Some(&body))
        .await
}

/// Seat 1's first message, read in its outcome and in everyone's log; its `seq`.
pub(super) async fn a_message_posted(app: &TestApp, t: &Table) -> u64 {
    let id = &t.id;
    // A player talks: the message is an event, public, in the outcome and the log.
    let (st, out) = talk(
        app,
        id,
        Some(&t.tokens[1]),
        json!({ "text": "seat 0 digs badly" }),
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{out}");
    assert_conforms("Outcome", &out);
    let posted = &out["events"][0];
    assert_eq!(posted["event"]["type"], "talk_posted");
    assert_eq!(posted["event"]["seat"], 1);
    assert_eq!(posted["event"]["text"], "seat 0 digs badly");
    let seq = posted["seq"].as_u64().unwrap();
    let seen = log(app, id, None).await;
    assert_eq!(of_type(&seen, "talk_posted").len(), 1);
    seq
}

/// Bad text, a player sending a name, the host, a spectator where spectators may not talk: each
/// refused.
pub(super) async fn messages_refused(app: &TestApp, t: &Table) {
    let id = &t.id;
    // Bad text, a player sending a name, the host, a spectator where spectators may not talk.
    for (token, body, status) in [
        (
            Some(&t.tokens[1]),
            json!({ "text": "" }),
            StatusCode::BAD_REQUEST,
        ),
        (
            Some(&t.tokens[1]),
            json!({ "text": "a\u{202e}b" }),
            StatusCode::BAD_REQUEST,
        ),
        (
            Some(&t.tokens[1]),
            json!({ "text": "x".repeat(281) }),
            StatusCode::BAD_REQUEST,
        ),
        (
            Some(&t.tokens[1]),
            json!({ "text": "hi", "name": "me" }),
            StatusCode::BAD_REQUEST,
        ),
        (
            Some(&t.tokens[1]),
            json!({ "text": "hi", "colour": "red" }),
            StatusCode::BAD_REQUEST,
        ),
        (
            Some(&t.host),
            json!({ "text": "hi" }),
            StatusCode::FORBIDDEN,
        ),
        (
            None,
            json!({ "text": "hi", "name": "kibitzer" }),
            StatusCode::FORBIDDEN,
        ),
    ] {
        let (st, v) = talk(app, id, token.map(String::as_str), body.clone()).await;
        assert_eq!(st, status, "{body} → {v}");
        assert!(v["code"].is_string(), "{v}");
    }
}

/// The talk's rate limit, reached by seat 1's messages.
pub(super) async fn the_rate_limit(app: &TestApp, t: &Table) {
    let id = &t.id;
    // Five messages in thirty seconds, then 429 with Retry-After; nothing recorded.
    for i in 0..4 {
        let (st, v) = talk(
            app,
            id,
            Some(&t.tokens[1]),
            json!({ "text": format!("and {i}") }),
        )
        .await;
        assert_eq!(st, StatusCode::OK, "{v}");
    }
    let (_, before) = app.game(id).await;
    let r = app
        .post_raw(
            &format!("/games/{id}/talk"),
            Some(&t.tokens[1]),
            &json!({ "text": "more" }),
        )
        .await;
    assert_eq!(r.status(), StatusCode::TOO_MANY_REQUESTS);
    let wait: u64 = r.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=30).contains(&wait), "{wait}");
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["code"], "too_many_requests");
    let (_, after) = app.game(id).await;
    assert_eq!(before["version"], after["version"]);
}

/// Hiding the message at `seq`: the host's act alone, once, and only of a message.
pub(super) async fn the_host_hides_a_message(app: &TestApp, t: &Table, seq: u64) {
    let id = &t.id;
    // The host hides the first message: others see it without its text.
    let hide = format!("/games/{id}/talk/{seq}/hide");
    let (st, v) = app.post_json(&hide, Some(&t.tokens[0]), None).await;
    assert_eq!(st, StatusCode::FORBIDDEN, "{v}");
    let (st, v) = app.post_json(&hide, Some(&t.host), None).await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["events"][0]["event"]["type"], "talk_hidden");
    let (st, _) = app.post_json(&hide, Some(&t.host), None).await;
    assert_eq!(st, StatusCode::CONFLICT, "hidden once");
    let (st, _) = app
        .post_json(&format!("/games/{id}/talk/1/hide"), Some(&t.host), None)
        .await;
    assert_eq!(st, StatusCode::NOT_FOUND, "event 1 is not a message");
    let seen = log(app, id, Some(&t.tokens[2])).await;
    let first = seen.iter().find(|e| e["seq"] == seq).unwrap();
    assert_eq!(first["event"]["text"], Value::Null);
    let (_, state) = app.state(id, Some(&t.tokens[2])).await;
    assert_conforms("StateView", &state);
    assert_eq!(state["table"]["hidden_talk"], json!([seq]));
}
