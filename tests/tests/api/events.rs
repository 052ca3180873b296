//! The event stream (Server-Sent Events): replay, live updates across server processes,
//! resuming with Last-Event-ID; and the metrics that count them.

use reqwest::StatusCode;

use crate::helpers::{TestApp, postgres_url, sqlite_url};

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
