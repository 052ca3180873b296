//! A database that stops and starts again.

use std::time::Duration;

use saboteur_storage::{EventStore, GameStatus, Notice, StoreError};

use super::helpers::{batch, event, new_game, next_append};

/// With its database stopped, the store answers `Unavailable` within about the acquire
/// timeout, and serves again once it is back, without reconnecting by hand.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_outage_is_unavailable_then_recovers() {
    let mut cluster = saboteur_storage::testing::OwnCluster::start();
    let url = cluster.fresh_database().await;
    let store = EventStore::connect(&url).await.unwrap();
    new_game(&store, "g1", GameStatus::Active).await;
    let mut rx = store.subscribe();
    cluster.stop();
    let started = std::time::Instant::now();
    let err = store.ping().await.unwrap_err();
    assert!(matches!(err, StoreError::Unavailable(_)), "{err:?}");
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    let err = store
        .append(batch("g1", 0, vec![event(1)], None))
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Unavailable(_)), "{err:?}");
    cluster.restart();
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while store.ping().await.is_err() {
        assert!(
            std::time::Instant::now() < deadline,
            "the store did not come back"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    store
        .append(batch("g1", 0, vec![event(1)], None))
        .await
        .unwrap();
    // The listener is back too (after a resync notice).
    let heard = tokio::time::timeout(Duration::from_secs(15), async {
        loop {
            match rx.recv().await {
                Ok(Notice::Appended(a)) if a.game_id == "g1" => return true,
                Ok(_) => {}
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(_) => return false,
            }
        }
    })
    .await;
    if heard != Ok(true) {
        // The append may have come before the listener was back: a later one is heard.
        store
            .append(batch("g1", 1, vec![event(2)], None))
            .await
            .unwrap();
        assert_eq!(next_append(&mut rx).await, ("g1".to_string(), 2));
    }
}

/// The store's writers keep their connections from one append to the next. A connection the
/// server ended while it sat idle (every session of the database cut, as a restart or an
/// operator does) is found at the next append, which is written again on a new connection and
/// recorded: never answered as an append whose outcome is unknown.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_sessions_cut_between_appends_cost_no_append() {
    use sqlx::Connection as _;
    let (store, url) = super::helpers::postgres().await;
    new_game(&store, "g1", GameStatus::Active).await;
    for n in 0..8 {
        store
            .append(batch("g1", n, vec![event(n + 1)], None))
            .await
            .unwrap();
    }
    let mut conn = sqlx::PgConnection::connect(&url).await.unwrap();
    let cut = "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
               WHERE datname = current_database() AND pid <> pg_backend_pid()";
    sqlx::raw_sql(cut).execute(&mut conn).await.unwrap();
    // The pool's idle connections were cut too: each fails once, then is closed.
    for _ in 0..50 {
        if store.ping().await.is_ok() {
            break;
        }
    }
    for n in 8..16 {
        let appended = store.append(batch("g1", n, vec![event(n + 1)], None)).await;
        assert!(appended.is_ok(), "append {n} after the cut: {appended:?}");
    }
}
