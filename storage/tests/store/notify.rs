//! Live notification of appends: in process on SQLite, across processes on PostgreSQL, and
//! through a broken connection.

use std::time::Duration;

use saboteur_storage::{EventStore, GameStatus, Notice};

use super::helpers::{batch, event, new_game, next_append, postgres, sqlite};

async fn notifications(store: EventStore, second: Option<EventStore>) {
    new_game(&store, "g1", GameStatus::Active).await;
    let mut mine = store.subscribe();
    let mut theirs = second.as_ref().map(EventStore::subscribe);
    store
        .append(batch("g1", 0, vec![event(1), event(2)], None))
        .await
        .unwrap();
    assert_eq!(next_append(&mut mine).await, ("g1".to_string(), 2));
    if let Some(rx) = &mut theirs {
        // Another process on the same database hears it too.
        assert_eq!(next_append(rx).await, ("g1".to_string(), 2));
    }
}

#[tokio::test]
async fn sqlite_notifies_in_process() {
    let (store, _keep) = sqlite().await;
    notifications(store, None).await;
}

#[tokio::test]
async fn postgres_notifies_every_process_on_the_database() {
    let (store, url) = postgres().await;
    let second = EventStore::connect(&url).await.unwrap();
    notifications(store, Some(second)).await;
}

/// The listener survives its connection being cut: subscribers are told to catch up, and then
/// hear appends again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_notifications_survive_a_broken_connection() {
    let (store, url) = postgres().await;
    new_game(&store, "g1", GameStatus::Active).await;
    let mut rx = store.subscribe();
    let admin = EventStore::connect(&url).await.unwrap();
    admin
        .execute_raw(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
             WHERE pid <> pg_backend_pid() AND datname = current_database() \
             AND query ILIKE '%LISTEN%'",
        )
        .await
        .unwrap();
    let resync = tokio::time::timeout(Duration::from_secs(15), async {
        loop {
            if let Ok(Notice::Resync) = rx.recv().await {
                return;
            }
        }
    })
    .await;
    assert!(
        resync.is_ok(),
        "no resync after the listener's connection was cut"
    );
    store
        .append(batch("g1", 0, vec![event(1)], None))
        .await
        .unwrap();
    assert_eq!(next_append(&mut rx).await, ("g1".to_string(), 1));
}
