//! Presence shared by processes: what one records, another reads; a process that stops beating
//! is left out, then forgotten.

use std::collections::BTreeMap;

use saboteur_storage::{EventStore, PresenceKey};

use super::helpers::{postgres, sqlite};

fn key(game: &str, seat: Option<u8>) -> PresenceKey {
    (
        saboteur_storage::GameId::named(game),
        seat.map(saboteur_domain::Seat),
    )
}

async fn shared_between_processes(store: EventStore) {
    let mut a = BTreeMap::new();
    a.insert(key("g1", Some(0)), 2);
    a.insert(key("g1", None), 3);
    store.beat_presence("a", &a, 1_000, 0).await.unwrap();
    let mut b = BTreeMap::new();
    b.insert(key("g1", Some(1)), 1);
    b.insert(key("g1", None), 1);
    store.beat_presence("b", &b, 1_000, 0).await.unwrap();
    // Each reads the others only, summed per game and seat.
    let seen_by_a = store.others_presence("a", 0).await.unwrap();
    assert_eq!(
        seen_by_a,
        BTreeMap::from([(key("g1", Some(1)), 1), (key("g1", None), 1)])
    );
    let seen_by_c = store.others_presence("c", 0).await.unwrap();
    assert_eq!(
        seen_by_c,
        BTreeMap::from([
            (key("g1", Some(0)), 2),
            (key("g1", Some(1)), 1),
            (key("g1", None), 4)
        ])
    );
    // A change: seat 0's streams closed on a, one more spectator.
    let change = BTreeMap::from([(key("g1", Some(0)), 0), (key("g1", None), 4)]);
    store.beat_presence("a", &change, 2_000, 0).await.unwrap();
    let seen_by_b = store.others_presence("b", 0).await.unwrap();
    assert_eq!(seen_by_b, BTreeMap::from([(key("g1", None), 4)]));
    // b stops beating: left out of readings newer than its last beat ...
    let seen_by_a = store.others_presence("a", 1_500).await.unwrap();
    assert!(
        seen_by_a.is_empty(),
        "a silent process is left out: {seen_by_a:?}"
    );
    // ... and forgotten by a's next beat once older than the expiry.
    store
        .beat_presence("a", &BTreeMap::new(), 3_000, 1_500)
        .await
        .unwrap();
    assert_eq!(
        store.others_presence("c", 0).await.unwrap(),
        BTreeMap::from([(key("g1", None), 4)])
    );
    // Leaving forgets a process at once.
    store.leave_presence("a").await.unwrap();
    assert!(store.others_presence("c", 0).await.unwrap().is_empty());
}

#[tokio::test]
async fn sqlite_presence_is_shared_between_processes() {
    let (store, _dir) = sqlite().await;
    shared_between_processes(store).await;
}

#[tokio::test]
async fn postgres_presence_is_shared_between_processes() {
    let (store, _) = postgres().await;
    shared_between_processes(store).await;
}
