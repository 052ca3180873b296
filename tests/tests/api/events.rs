//! The event stream (Server-Sent Events): replay, live updates across server processes,
//! resuming with Last-Event-ID; and the metrics that count them.

use reqwest::StatusCode;
use serde_json::Value;

use crate::helpers::{TestApp, assert_conforms, postgres_url, sqlite_url};

/// Reads server-sent events until one with `id: want` arrives; returns every id seen.
async fn read_until(resp: &mut reqwest::Response, want: i64) -> Vec<i64> {
    let mut ids = Vec::new();
    let mut text = String::new();
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(20);
    while !ids.contains(&want) {
        let chunk = tokio::time::timeout_at(deadline, resp.chunk())
            .await
            .expect("events arrive in time")
            .unwrap();
        text.push_str(&String::from_utf8_lossy(
            &chunk.expect("the stream stays open"),
        ));
        ids = text
            .lines()
            .filter_map(|l| l.strip_prefix("id: "))
            .map(|n| n.parse().unwrap())
            .collect();
    }
    ids
}

/// Reads server-sent events until one with `id: want` arrives; returns each message's `data`.
async fn records_until(resp: &mut reqwest::Response, want: i64) -> Vec<Value> {
    let mut text = String::new();
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let records: Vec<Value> = text
            .lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .map(|d| serde_json::from_str(d).unwrap())
            .collect();
        if records.iter().any(|r| r["seq"] == want) {
            return records;
        }
        let chunk = tokio::time::timeout_at(deadline, resp.chunk())
            .await
            .expect("events arrive in time")
            .unwrap();
        text.push_str(&String::from_utf8_lossy(
            &chunk.expect("the stream stays open"),
        ));
    }
}

/// The table on the stream (`?table=true`): the newest event of each batch carries the
/// caller's table at its version, as `GET /table` reads it; the other events carry none, and a
/// stream opened without the option carries none.
async fn table_on_the_stream(a: &TestApp, b: &TestApp) {
    let t = a.table("base", 3, 11).await;
    a.start(&t.id, Some(&t.host)).await;
    let v = a.state(&t.id, None).await.1["version"].as_i64().unwrap();
    let mut mine = b.events_stream_with_table(&t.id, Some(&t.tokens[0])).await;
    let mut watching = b.events_stream_with_table(&t.id, None).await;
    let mut plain = b.events_stream(&t.id, Some(&t.tokens[0]), None).await;
    let backlog = records_until(&mut mine, v).await;
    for record in &backlog {
        assert_conforms("StreamRecord", record);
    }
    assert_eq!(backlog.len() as i64, v, "the backlog in one batch");
    let with_table: Vec<&Value> = backlog
        .iter()
        .filter(|r| r.get("table").is_some())
        .collect();
    assert_eq!(with_table.len(), 1, "one table per batch");
    let table = &with_table[0]["table"];
    assert_eq!(with_table[0]["seq"], v, "on the batch's newest event");
    assert_eq!(table["version"], v, "the table at the event's version");
    let (_, state) = a.state(&t.id, Some(&t.tokens[0])).await;
    assert_eq!(table["state"]["view"], state["view"], "the seat's own view");
    assert_eq!(table["state"]["receipt"]["version"], v);
    let (_, legal) = a.legal_moves(&t.id, &t.tokens[0]).await;
    assert_eq!(table["legal"]["commands"], legal["commands"]);
    assert_eq!(table["events"]["events"], Value::Array(vec![]));
    assert_eq!(table["game"]["id"], t.id.as_str());
    // A spectator's table: no legal moves, and no seat's hand.
    let seen = records_until(&mut watching, v).await;
    let spectator = &seen.last().unwrap()["table"];
    assert_eq!(spectator["legal"], Value::Null);
    assert_eq!(spectator["state"]["view"]["hand"], Value::Null);
    assert_ne!(spectator["state"]["view"], table["state"]["view"]);
    // News through the other process: the new batch's newest event carries the new table.
    a.play_one(&t).await;
    let now = a.state(&t.id, Some(&t.tokens[0])).await.1["version"]
        .as_i64()
        .unwrap();
    let news: Vec<Value> = records_until(&mut mine, now)
        .await
        .into_iter()
        .filter(|r| r["seq"].as_i64().unwrap() > v)
        .collect();
    let last = news.last().unwrap();
    assert_conforms("StreamRecord", last);
    assert_eq!(last["seq"], now);
    assert_eq!(last["table"]["version"], now);
    let (_, legal) = a.legal_moves(&t.id, &t.tokens[0]).await;
    assert_eq!(last["table"]["legal"]["commands"], legal["commands"]);
    assert!(
        news[..news.len() - 1]
            .iter()
            .all(|r| r.get("table").is_none())
    );
    // Without the option, no table.
    let plain = records_until(&mut plain, now).await;
    assert!(plain.iter().all(|r| r.get("table").is_none()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_table_on_the_stream() {
    let dir = tempfile::tempdir().unwrap();
    let a = TestApp::spawn(sqlite_url(&dir, "e2e.db"), None).await;
    table_on_the_stream(&a, &a).await;
    drop(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_table_on_the_stream_across_processes() {
    let url = postgres_url().await;
    let a = TestApp::spawn(url.clone(), None).await;
    let b = TestApp::spawn(url, None).await;
    table_on_the_stream(&a, &b).await;
}

/// Live updates: the stream replays, follows new commands (also made through another server
/// process on the same database), and resumes with Last-Event-ID.
async fn live_updates(a: &TestApp, b: &TestApp) {
    let t = a.table("base", 3, 9).await;
    a.start(&t.id, Some(&t.host)).await;
    let mut stream = b.events_stream(&t.id, Some(&t.tokens[0]), None).await;
    assert_eq!(stream.status(), StatusCode::OK);
    assert!(
        stream.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    assert_eq!(read_until(&mut stream, 2).await, vec![1, 2]);
    // A command through the other server arrives on this stream.
    a.play_one(&t).await;
    let v = a.state(&t.id, Some(&t.tokens[0])).await.1["version"]
        .as_i64()
        .unwrap();
    let ids = read_until(&mut stream, v).await;
    assert_eq!(
        ids,
        (3..=v).collect::<Vec<_>>(),
        "every new event once, in order"
    );
    // Resume after the first two.
    let mut resumed = a.events_stream(&t.id, None, Some("2")).await;
    assert_eq!(
        read_until(&mut resumed, v).await,
        (3..=v).collect::<Vec<_>>()
    );
    let bad = a.events_stream(&t.id, None, Some("x")).await;
    assert_eq!(bad.status(), StatusCode::BAD_REQUEST);
    // Metrics count what happened.
    let metrics = a.metrics().await;
    assert!(
        metrics.contains("saboteur_commands_total{outcome=\"accepted\"}"),
        "{metrics}"
    );
    assert!(metrics.contains("saboteur_http_request_duration_seconds_bucket"));
}

/// A stream ends after the game's last event: a finished game's, and a lobby's cancelled while
/// the stream was open (it used to send keep-alives forever, holding a place of the server's).
async fn streams_end_with_the_game(a: &TestApp) {
    let (st, created) = a
        .create_game(&serde_json::json!({"ruleset": "base", "players": 3}))
        .await;
    assert_eq!(st, StatusCode::CREATED, "{created}");
    let id = created["game_id"].as_str().unwrap();
    let host = created["host_token"].as_str().unwrap();
    let mut open = a.events_stream(id, None, None).await;
    assert_eq!(read_until(&mut open, 1).await, vec![1]);
    assert_eq!(a.cancel(id, Some(host)).await.0, StatusCode::OK);
    assert_eq!(
        read_until(&mut open, 2).await,
        vec![2],
        "the cancellation, once"
    );
    let end = tokio::time::timeout(std::time::Duration::from_secs(10), async {
        while let Some(chunk) = open.chunk().await.unwrap() {
            assert!(
                !String::from_utf8_lossy(&chunk).contains("id: "),
                "no event after the cancellation"
            );
        }
    })
    .await;
    assert!(end.is_ok(), "the stream of a cancelled game ends");
    // Opened after the cancellation: the whole log, then the end.
    let late = a.events_stream(id, None, None).await;
    let text = tokio::time::timeout(std::time::Duration::from_secs(10), late.text())
        .await
        .expect("the stream of a cancelled game ends")
        .unwrap();
    assert!(
        text.contains("id: 2") && text.contains("event: game_cancelled"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_streams_end_with_the_game() {
    let dir = tempfile::tempdir().unwrap();
    let a = TestApp::spawn(sqlite_url(&dir, "end.db"), Some(dir)).await;
    streams_end_with_the_game(&a).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_streams_end_with_the_game() {
    let a = TestApp::spawn(postgres_url().await, None).await;
    streams_end_with_the_game(&a).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_live_updates() {
    let dir = tempfile::tempdir().unwrap();
    let a = TestApp::spawn(sqlite_url(&dir, "e2e.db"), None).await;
    // SQLite notifies within one process: both streams go through the same server here.
    live_updates(&a, &a).await;
    drop(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_live_updates_across_processes() {
    let url = postgres_url().await;
    let a = TestApp::spawn(url.clone(), None).await;
    let b = TestApp::spawn(url, None).await;
    live_updates(&a, &b).await;
}
