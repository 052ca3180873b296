//! A store for reads only (a standby's address): it reads what the primary wrote and never
//! writes, whatever it is asked.

use saboteur_storage::{EventStore, GameStatus, StoreError, Version};

use super::helpers::{batch, created, event, game, gid, host, postgres, sqlite, v};

async fn reads_only(primary: EventStore, url: &str) {
    created(&primary, "g", GameStatus::Active).await;
    primary
        .append(batch("g", 1, vec![event(1), event(2)], Some("c1")))
        .await
        .unwrap();
    let reads = EventStore::connect_read_only(url).await.unwrap();
    assert_eq!(reads.get_game(&gid("g")).await.unwrap().version, Version(3));
    // The primary takes writes; a read-only session (PostgreSQL's, or a SQLite file opened
    // read-only) says it takes none.
    primary.writable().await.unwrap();
    let writable = reads.writable().await;
    assert!(
        matches!(writable, Err(StoreError::Unavailable(_))),
        "a read-only session is writable: {writable:?}"
    );
    assert_eq!(
        reads.events_after(&gid("g"), v(0), 10).await.unwrap().len(),
        3
    );
    // Every kind of write is refused by the database, and nothing changes.
    let append = reads
        .append(batch("g", 3, vec![event(3)], Some("c2")))
        .await;
    // SQLite refuses it as a database unavailable for writes (503 at the API), not as a
    // fault; a PostgreSQL read store has no write path at all.
    assert!(
        matches!(append, Err(StoreError::Unavailable(_)))
            || (url.starts_with("postgres") && append.is_err()),
        "an append through the read store: {append:?}"
    );
    let create = reads
        .create_game(game("h"), host("h"), vec![event(0)])
        .await;
    assert!(create.is_err(), "a game created through the read store");
    let raw = reads.execute_raw("DELETE FROM presence").await;
    assert!(raw.is_err(), "raw SQL writing through the read store");
    assert_eq!(
        primary.get_game(&gid("g")).await.unwrap().version,
        Version(3)
    );
    assert!(matches!(
        primary.get_game(&gid("h")).await,
        Err(StoreError::NotFound)
    ));
}

#[tokio::test]
async fn postgres_a_read_store_never_writes() {
    let (store, url) = postgres().await;
    reads_only(store, &url).await;
}

#[tokio::test]
async fn sqlite_a_read_store_never_writes() {
    let (store, dir) = sqlite().await;
    let url = format!("sqlite://{}", dir.path().join("store.db").display());
    reads_only(store, &url).await;
}

#[tokio::test]
async fn a_read_store_that_cannot_be_reached_yet_still_starts() {
    // Nothing listens on port 1: the store is made, and reads answer "unavailable".
    let reads = EventStore::connect_read_only("postgres://nobody@127.0.0.1:1/none")
        .await
        .unwrap();
    assert!(matches!(
        reads.get_game(&gid("g")).await,
        Err(StoreError::Unavailable(_))
    ));
}
