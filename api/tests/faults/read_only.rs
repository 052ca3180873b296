//! A database that takes no writes (a primary Patroni demoted when the consensus store was lost,
//! a standby reached through the write port during a failover): the server still answers what
//! it can read — live tables, finished games' audits, listings — and answers every write 503
//! problem+json with `Retry-After`, never 500. `/healthz` says it can serve, `/healthz/write`
//! that it cannot write; when the database takes writes again, so does the server.

use std::time::{Duration, Instant};

use reqwest::{Client, StatusCode};
use serde_json::{Value, json};

use crate::harness::{Remote, Server, client, game_with_bots, one_move, play_to_end, send};

/// The database's name, the last part of its URL.
fn name_of(url: &str) -> &str {
    url.rsplit('/').next().unwrap().split('?').next().unwrap()
}

/// Sets or resets `default_transaction_read_only` on the database at `url` and cuts its
/// sessions, so that the server's pool reconnects under the new default (as a demotion does:
/// PostgreSQL restarts read-only and every connection breaks).
async fn set_read_only(url: &str, on: bool) {
    let db = name_of(url);
    let set = if on {
        format!("ALTER DATABASE \"{db}\" SET default_transaction_read_only = on")
    } else {
        format!("ALTER DATABASE \"{db}\" RESET default_transaction_read_only")
    };
    // Through the server's maintenance database: a session of `db` would be read-only itself.
    let server = saboteur_storage::testing::server_url();
    saboteur_storage::testing::execute(&server, &set).await;
    saboteur_storage::testing::execute(
        &server,
        &format!(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
             WHERE datname = '{db}' AND pid <> pg_backend_pid()"
        ),
    )
    .await;
}

/// Asks `path` until it answers `want`, within 20 s: the reply.
async fn until(c: &Client, s: &Remote, path: &str, want: StatusCode) -> (Value, String) {
    let started = Instant::now();
    loop {
        let r = c.get(s.url(path)).send().await.unwrap();
        let st = r.status();
        let retry = r
            .headers()
            .get("retry-after")
            .map(|v| v.to_str().unwrap().to_string())
            .unwrap_or_default();
        let body: Value = r.json().await.unwrap_or(Value::Null);
        if st == want {
            return (body, retry);
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{path} still answers {st}: {body}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// A refused write: 503, `Retry-After`, problem+json with the stable code `unavailable`.
fn refused(st: StatusCode, body: &Value, headers: &reqwest::header::HeaderMap, what: &str) {
    assert_eq!(st, StatusCode::SERVICE_UNAVAILABLE, "{what}: {body}");
    assert!(
        headers.contains_key("retry-after"),
        "{what}: no Retry-After"
    );
    assert_eq!(
        headers["content-type"], "application/problem+json",
        "{what}"
    );
    assert_eq!(body["code"], "unavailable", "{what}: {body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_only_database_answers_reads_and_refuses_writes_on_postgres() {
    let _machine = crate::harness::beside().await;
    let db = saboteur_storage::testing::fresh_database().await;
    let s = Server::start(&db, &[]);
    let c = client();
    let (finished, token) = game_with_bots(&c, &s, "base", 3, 11).await;
    play_to_end(&c, &s, &finished, &token, Duration::from_secs(120)).await;
    let (live, seat) = game_with_bots(&c, &s, "base", 3, 12).await;
    one_move(&c, &s, &live, &seat, 1).await;
    let (health, _) = until(&c, &s, "/healthz", StatusCode::OK).await;
    assert_eq!(health["writable"], true, "{health}");
    until(&c, &s, "/healthz/write", StatusCode::OK).await;

    set_read_only(&db, true).await;
    // The write check fails; the read check still passes, saying it cannot write.
    let (problem, retry) = until(&c, &s, "/healthz/write", StatusCode::SERVICE_UNAVAILABLE).await;
    assert!(!retry.is_empty(), "{problem}");
    assert_eq!(problem["code"], "unavailable", "{problem}");
    let (health, _) = until(&c, &s, "/healthz", StatusCode::OK).await;
    assert_eq!(health["writable"], false, "{health}");

    // Writes: 503 with Retry-After, never 500 (a creation, a command, a seat).
    let (st, body, headers) = send(
        c.post(s.url("/games"))
            .json(&json!({"ruleset": "base", "players": 3})),
    )
    .await
    .unwrap();
    refused(st, &body, &headers, "a creation");
    let (command, version) = crate::harness::choose_move(&c, &s, &live, &seat, 2)
        .await
        .expect("a move to make");
    let key = "read-only-1";
    let (st, body, headers) = send(
        c.post(s.url(&format!("/games/{live}/commands")))
            .bearer_auth(&seat)
            .header("If-Match", format!("\"{version}\""))
            .header("Idempotency-Key", key)
            .json(&command),
    )
    .await
    .unwrap();
    refused(st, &body, &headers, "a command");

    // Reads: the live table, its events, the finished game's audit and state, the listing.
    for path in [
        format!("/games/{live}"),
        format!("/games/{live}/state"),
        format!("/games/{live}/events?limit=100"),
        format!("/games/{finished}/state"),
        format!("/games/{finished}/state?at=3"),
        format!("/games/{finished}/audit"),
        "/games?status=finished".to_string(),
    ] {
        for _ in 0..3 {
            let (st, body, _) = send(c.get(s.url(&path))).await.unwrap();
            assert_eq!(st, StatusCode::OK, "{path}: {body}");
        }
    }

    // Writable again: the command sent again with its key is recorded once.
    set_read_only(&db, false).await;
    until(&c, &s, "/healthz/write", StatusCode::OK).await;
    let started = Instant::now();
    let reply = loop {
        let reply = send(
            c.post(s.url(&format!("/games/{live}/commands")))
                .bearer_auth(&seat)
                .header("If-Match", format!("\"{version}\""))
                .header("Idempotency-Key", key)
                .json(&command),
        )
        .await
        .unwrap();
        if reply.0 != StatusCode::SERVICE_UNAVAILABLE {
            break reply;
        }
        assert!(started.elapsed() < Duration::from_secs(20), "{}", reply.1);
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(reply.0, StatusCode::OK, "{}", reply.1);
    let (st, again, _) = send(
        c.post(s.url(&format!("/games/{live}/commands")))
            .bearer_auth(&seat)
            .header("If-Match", format!("\"{version}\""))
            .header("Idempotency-Key", key)
            .json(&command),
    )
    .await
    .unwrap();
    assert_eq!(st, StatusCode::OK, "{again}");
    assert_eq!(again["events"][0], reply.1["events"][0]);
    play_to_end(&c, &s, &live, &seat, Duration::from_secs(120)).await;
}

/// The database gone altogether (no read-only store): a live table this process holds is still
/// answered from memory (nothing can be recorded meanwhile through this database), its view at
/// every earlier version too (a replay: each receipt signs the chain's head the log holds
/// there, every event of a batch the table appended included), a write is
/// 503 with `Retry-After`, and `/healthz` says the database is unreachable.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_table_is_read_from_memory_while_the_database_is_gone() {
    let _machine = crate::harness::beside().await;
    let mut cluster = saboteur_storage::testing::OwnCluster::start();
    let db = cluster.fresh_database().await;
    let s = Server::start(&db, &[]);
    let c = client();
    let (live, seat) = game_with_bots(&c, &s, "base", 3, 21).await;
    one_move(&c, &s, &live, &seat, 1).await;
    let (st, before, _) = send(c.get(s.url(&format!("/games/{live}/state"))))
        .await
        .unwrap();
    assert_eq!(st, StatusCode::OK, "{before}");
    let log = {
        let store = saboteur_storage::EventStore::connect(&db).await.unwrap();
        let live = saboteur_storage::GameId::parse(&live).unwrap();
        store
            .events_after(&live, saboteur_storage::Version::of(0), 1000)
            .await
            .unwrap()
    };
    cluster.stop();
    let (problem, retry) = until(&c, &s, "/healthz", StatusCode::SERVICE_UNAVAILABLE).await;
    assert!(!retry.is_empty(), "{problem}");
    // The replay: the view at every earlier version, its receipt signing the chain's head there
    // (each event the table appended, batches whole, is held with its hash).
    assert_eq!(json!(log.len()), before["version"]);
    for event in &log {
        let path = format!("/games/{live}/state?at={}", event.seq);
        let (st, view, _) = send(c.get(s.url(&path))).await.unwrap();
        assert_eq!(st, StatusCode::OK, "{path}: {view}");
        assert_eq!(view["receipt"]["head"], event.hash, "{path}: {view}");
    }
    for _ in 0..5 {
        let started = Instant::now();
        let (st, state, _) = send(c.get(s.url(&format!("/games/{live}/state"))))
            .await
            .unwrap();
        assert_eq!(st, StatusCode::OK, "{state}");
        assert_eq!(state["version"], before["version"], "{state}");
        assert!(started.elapsed() < Duration::from_millis(2500));
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    let (command, version) = crate::harness::choose_move(&c, &s, &live, &seat, 2)
        .await
        .expect("a move to make");
    let (st, body, headers) = send(
        c.post(s.url(&format!("/games/{live}/commands")))
            .bearer_auth(&seat)
            .header("If-Match", format!("\"{version}\""))
            .json(&command),
    )
    .await
    .unwrap();
    refused(st, &body, &headers, "a command");
    cluster.restart();
    until(&c, &s, "/healthz/write", StatusCode::OK).await;
}
