//! A client that declares the API version it was generated from (`Api-Version`) is served each
//! event of a type a later version introduced wrapped as a `NewerEvent`, on every road events
//! take: an act's reply (signed: the receipt still checks, the wrapper unwrapped), the events
//! list, the table and the stream. Without the header, or declaring a version that knows the
//! type, nothing is wrapped; a value that is not a version is refused and changes nothing.

use reqwest::{Method, StatusCode};
use saboteur_verifier::audit::{check_receipts, read_receipts};
use serde_json::{Value, json};

use crate::helpers::{Exchange, TestApp, assert_conforms, postgres_url, seed_hex, sqlite_url};

/// The API version before talk, hand-overs and reclaims (0.3.0) and before cancelling (0.11.0).
const BEFORE_TALK: &str = "0.2.0";

/// `method path` as seat `token`, declaring `version` when given.
async fn as_of(
    app: &TestApp,
    (method, path): (Method, &str),
    token: Option<&str>,
    body: Option<&Value>,
    version: Option<&str>,
) -> Exchange {
    let headers: Vec<(&str, String)> = version
        .map(|v| ("Api-Version", v.to_string()))
        .into_iter()
        .collect();
    app.exchange(method, path, token, body, &headers).await
}

/// The `(type, event_type)` of each event of `records`: `event_type` only for a wrapper.
fn types(records: &[Value]) -> Vec<(String, Option<String>)> {
    records
        .iter()
        .map(|r| {
            let event = &r["event"];
            (
                event["type"].as_str().unwrap().to_string(),
                event["event_type"].as_str().map(String::from),
            )
        })
        .collect()
}

/// Wrapped exactly the events of the types 0.3.0 or later introduced, whole.
fn wrapped_as_before_talk(records: &[Value], plain: &[Value]) {
    assert_eq!(records.len(), plain.len());
    for (served, plain) in records.iter().zip(plain) {
        assert_eq!(served["seq"], plain["seq"]);
        let kind = plain["event"]["type"].as_str().unwrap();
        let newer = matches!(
            kind,
            "talk_posted"
                | "talk_hidden"
                | "turn_timed_out"
                | "seat_handed_to_bot"
                | "seat_reclaimed"
                | "token_reissued"
                | "seed_mixed"
                | "seat_key_registered"
                | "game_cancelled"
        );
        if newer {
            assert_eq!(served["event"]["type"], "newer", "{served}");
            assert_eq!(served["event"]["event_type"], kind);
            assert_eq!(
                served["event"]["event"], plain["event"],
                "the wrapper holds it whole"
            );
            let since = served["event"]["since"].as_str().unwrap();
            assert!(since > BEFORE_TALK, "{since}");
        } else {
            assert_eq!(served, plain);
        }
    }
}

/// Every road of the events, for a client of 0.2.0: a game of Ada and two bots in which Ada
/// talks and the host hands her seat to a bot, then a cancelled lobby.
async fn newer_events(app: &TestApp) {
    // Ada and two bots; Ada talks, then the host hands her seat to a bot, which plays on to
    // the end: each reply carries an event type 0.2.0 did not have.
    let settings = json!({"ruleset": "base", "players": 3, "seed": seed_hex(31)});
    let (id, host, ada) = app.lobby(&settings).await;
    for _ in 0..2 {
        let bot = json!({"level": "random"});
        assert_eq!(
            app.add_bot(&id, Some(&host), &bot).await.0,
            StatusCode::CREATED
        );
    }
    assert_eq!(app.start(&id, Some(&host)).await.0, StatusCode::OK);

    a_value_that_is_not_a_version(app, &id, &ada).await;
    let (said, handed) = replies_to_acts(app, &id, &host, &ada).await;
    let plain = the_events_list(app, &id).await;
    the_table(app, &id, &plain).await;
    the_stream(app, &id, &plain).await;
    receipts_of_wrapped_bodies(app, &id, &said, &handed).await;
    a_cancelled_lobby(app, &settings).await;
}

/// Ada's message declaring values that are not versions.
async fn a_value_that_is_not_a_version(app: &TestApp, id: &str, ada: &str) {
    // A value that is not a version: 400, and nothing is recorded.
    let before = app.game(id).await.1["version"].clone();
    let talk_path = format!("/games/{id}/talk");
    let talk = (Method::POST, talk_path.as_str());
    for bad in ["0.2", "v0.2.0", "latest"] {
        let hello = json!({"text": "hello"});
        let refused = as_of(app, talk.clone(), Some(ada), Some(&hello), Some(bad)).await;
        assert_eq!(
            refused.status,
            StatusCode::BAD_REQUEST,
            "{bad}: {:?}",
            refused.body
        );
        assert!(
            refused.body["detail"]
                .as_str()
                .unwrap()
                .contains("MAJOR.MINOR.PATCH")
        );
    }
    assert_eq!(app.game(id).await.1["version"], before);
}

/// Ada's message and the host's hand-over of her seat, each declaring a version before their
/// events' types: wrapped in the replies. The two replies.
async fn replies_to_acts(app: &TestApp, id: &str, host: &str, ada: &str) -> (Exchange, Exchange) {
    let talk_path = format!("/games/{id}/talk");
    let talk = (Method::POST, talk_path.as_str());
    let hello = json!({"text": "hello"});
    let said = as_of(app, talk, Some(ada), Some(&hello), Some(BEFORE_TALK)).await;
    assert_eq!(said.status, StatusCode::OK, "{:?}", said.body);
    assert_conforms("Outcome", &said.body);
    let event = &said.body["events"][0]["event"];
    assert_eq!(
        (&event["type"], &event["event_type"], &event["since"]),
        (&json!("newer"), &json!("talk_posted"), &json!("0.3.0"))
    );
    assert_eq!(event["event"]["text"], "hello");

    let handover_path = format!("/games/{id}/seats/0/handover");
    let handover = (Method::POST, handover_path.as_str());
    let handed = as_of(app, handover, Some(host), Some(&json!({})), Some("0.2.9")).await;
    assert_eq!(handed.status, StatusCode::OK, "{:?}", handed.body);
    assert_conforms("Outcome", &handed.body);
    let handed_types = types(handed.body["events"].as_array().unwrap());
    assert_eq!(
        handed_types[0],
        ("newer".into(), Some("seat_handed_to_bot".into()))
    );
    assert_eq!(
        handed_types.last().unwrap().0,
        "game_ended",
        "the bots played on"
    );
    (said, handed)
}

/// The events list, wrapped or not by the version declared. The events as they are.
async fn the_events_list(app: &TestApp, id: &str) -> Vec<Value> {
    // The events list: wrapped for 0.2.0; as they are for 0.3.0, and without the header.
    let path = format!("/games/{id}/events?limit=1000");
    let list = |v: Option<&'static str>| as_of(app, (Method::GET, &path), None, None, v);
    let plain = list(None).await.body["events"].as_array().unwrap().clone();
    let old = list(Some(BEFORE_TALK)).await.body;
    assert_conforms("EventPage", &old);
    wrapped_as_before_talk(old["events"].as_array().unwrap(), &plain);
    assert_eq!(list(Some("0.3.0")).await.body["events"], json!(plain));
    assert!(types(&plain).iter().all(|(t, _)| t != "newer"));
    plain
}

/// The table's events, wrapped as the list's (`plain`, the events as they are) for 0.2.0.
async fn the_table(app: &TestApp, id: &str, plain: &[Value]) {
    // The table, likewise.
    let path = format!("/games/{id}/table?after=0&limit=1000");
    let table = as_of(app, (Method::GET, &path), None, None, Some(BEFORE_TALK)).await;
    assert_conforms("TableRead", &table.body);
    wrapped_as_before_talk(table.body["events"]["events"].as_array().unwrap(), plain);
    let raw = app.get_raw_with(&path, &[]).await;
    assert_eq!(
        raw.headers()["vary"],
        "Authorization, Api-Version",
        "caches keep both apart"
    );
}

/// The stream for 0.2.0: the records wrapped as the list's (`plain`), under `event: newer`.
async fn the_stream(app: &TestApp, id: &str, plain: &[Value]) {
    // The stream: the same records, and `event: newer` for the wrapped.
    let stream = app
        .get_raw_with(
            &format!("/games/{id}/events/stream"),
            &[("Api-Version", BEFORE_TALK.to_string())],
        )
        .await;
    assert_eq!(stream.status(), StatusCode::OK);
    let text = stream.text().await.unwrap();
    let records: Vec<Value> = text
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(|d| serde_json::from_str(d).unwrap())
        .collect();
    records
        .iter()
        .for_each(|r| assert_conforms("StreamRecord", r));
    wrapped_as_before_talk(&records, plain);
    let names: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("event: "))
        .collect();
    let expected: Vec<&str> = records
        .iter()
        .map(|r| r["event"]["type"].as_str().unwrap())
        .collect();
    assert_eq!(names, expected);
}

/// The receipts of the replies `said` and `handed` check with their wrapped bodies; a wrapper
/// changed does not.
async fn receipts_of_wrapped_bodies(app: &TestApp, id: &str, said: &Exchange, handed: &Exchange) {
    // The replies' receipts check against the record with their wrapped bodies: by the
    // library (`saboteur verify`), and by the server for the message's (the other is too
    // large to send).
    let bundle = crate::players::bundle(app, id).await;
    let kept = [said.body.clone(), handed.body.clone()];
    let receipts = read_receipts(&kept).unwrap();
    let checked = check_receipts(&bundle, &receipts).expect("the wrapped bodies check");
    assert_eq!(checked.bodies, 2);
    let (st, verdict) = app.audit_receipts(id, &json!([said.body])).await;
    assert_eq!(
        (st, &verdict["ok"]),
        (StatusCode::OK, &json!(true)),
        "{verdict}"
    );
    // A wrapper that says other than what was signed is refused, by both.
    let mut forged = said.body.clone();
    forged["events"][0]["event"]["event"]["text"] = json!("goodbye");
    let receipts = read_receipts(std::slice::from_ref(&forged)).unwrap();
    let refused = check_receipts(&bundle, &receipts).unwrap_err().to_string();
    assert!(refused.contains("not the one it signed"), "{refused}");
    let (st, verdict) = app.audit_receipts(id, &json!([forged])).await;
    assert_eq!(
        (st, &verdict["ok"]),
        (StatusCode::OK, &json!(false)),
        "{verdict}"
    );
}

/// A lobby of `settings` cancelled, for a client of 0.10.0: `game_cancelled` is wrapped.
async fn a_cancelled_lobby(app: &TestApp, settings: &Value) {
    // A cancelled lobby, for a client of 0.10.0: `game_cancelled` came with 0.11.0.
    let (id, host, _) = app.lobby(settings).await;
    let cancel_path = format!("/games/{id}/cancel");
    let cancel = (Method::POST, cancel_path.as_str());
    let cancelled = as_of(app, cancel, Some(&host), None, Some("0.10.0")).await;
    assert_eq!(cancelled.status, StatusCode::OK, "{:?}", cancelled.body);
    let last = cancelled.body["events"].as_array().unwrap().last().unwrap();
    assert_eq!(
        (&last["event"]["event_type"], &last["event"]["since"]),
        (&json!("game_cancelled"), &json!("0.11.0"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_newer_events_are_wrapped_for_older_clients() {
    let dir = tempfile::tempdir().unwrap();
    let app = TestApp::spawn(sqlite_url(&dir, "newer.db"), None).await;
    newer_events(&app).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_newer_events_are_wrapped_for_older_clients() {
    let app = TestApp::spawn(postgres_url().await, None).await;
    newer_events(&app).await;
}
