//! The lobby's version: raised by every lobby write in its own transaction, and the store's
//! decision whether a signed lobby act still holds.

use saboteur_storage::{EventStore, GameStatus, LobbyAt, StoreError};

use super::credentials::player;
use super::helpers::{created, gid};
use saboteur_domain::Seat;

/// The lobby version `g1` is at, and its players' names.
async fn lobby(store: &EventStore) -> (i64, Vec<Option<String>>) {
    let version = store.get_game(&gid("g1")).await.unwrap().lobby_version;
    let mut seats = store.credentials(&gid("g1")).await.unwrap();
    seats.retain(|c| c.seat.is_some());
    seats.sort_by_key(|c| c.seat);
    (version, seats.into_iter().map(|c| c.display_name).collect())
}

fn signed(version: i64) -> LobbyAt {
    LobbyAt {
        version: Some(version),
        open: false,
    }
}

/// Every lobby write raises the version; a write signed at a version the lobby left, a seat
/// taken or given back once the lobby is closed, and any write once the game started change
/// nothing ([`StoreError::LobbyChanged`]).
pub(crate) async fn lobby_versions(store: EventStore) {
    created(&store, "g1", GameStatus::Lobby).await;
    assert_eq!(lobby(&store).await, (0, vec![]));
    store
        .add_credential_by(&player("h1", Some(0)), None)
        .await
        .unwrap();
    store
        .add_credential_by(&player("h2", Some(1)), None)
        .await
        .unwrap();
    assert_eq!(lobby(&store).await.0, 2);
    // A name signed at the lobby's version is written, and raises it.
    let g1 = gid("g1");
    store
        .rename_seat(&g1, Seat(0), "Bea", signed(2))
        .await
        .unwrap();
    assert_eq!(
        lobby(&store).await,
        (3, vec![Some("Bea".into()), Some("Ada".into())])
    );
    // The same statement again (signed at 2) no longer holds: nothing is written.
    store
        .rename_seat(&g1, Seat(1), "Cy", signed(3))
        .await
        .unwrap();
    assert!(matches!(
        store.rename_seat(&g1, Seat(0), "Ann", signed(2)).await,
        Err(StoreError::LobbyChanged)
    ));
    assert!(matches!(
        store.remove_seat(&g1, Seat(1), signed(2)).await,
        Err(StoreError::LobbyChanged)
    ));
    assert_eq!(
        lobby(&store).await,
        (4, vec![Some("Bea".into()), Some("Cy".into())])
    );
    // A write to a seat nobody holds raises nothing.
    assert!(matches!(
        store.rename_seat(&g1, Seat(3), "Dee", signed(4)).await,
        Err(StoreError::NotFound)
    ));
    assert_eq!(lobby(&store).await.0, 4);
    // Closed: a name still changes, no seat is taken or given back.
    assert!(store.close_lobby(&g1, 1).await.unwrap());
    assert_eq!(lobby(&store).await.0, 5);
    store
        .rename_seat(&g1, Seat(1), "Cyd", signed(5))
        .await
        .unwrap();
    assert!(matches!(
        store.add_credential_by(&player("h3", Some(2)), None).await,
        Err(StoreError::LobbyChanged)
    ));
    assert!(matches!(
        store.remove_seat(&g1, Seat(1), LobbyAt::OPEN).await,
        Err(StoreError::LobbyChanged)
    ));
    assert_eq!(
        lobby(&store).await,
        (6, vec![Some("Bea".into()), Some("Cyd".into())])
    );
    // Started: no lobby write at all.
    store
        .execute_raw("UPDATE games SET status = 'active' WHERE id = 'g1'")
        .await
        .unwrap();
    assert!(matches!(
        store
            .rename_seat(&g1, Seat(1), "Dan", LobbyAt::default())
            .await,
        Err(StoreError::LobbyChanged)
    ));
    assert_eq!(lobby(&store).await.1[1].as_deref(), Some("Cyd"));
}

/// A player moves to a free seat with everything its seat was taken with; not to a seat held,
/// not a seat its token does not hold, not once the lobby is closed: each changes nothing.
pub(crate) async fn seat_moves(store: EventStore) {
    created(&store, "g1", GameStatus::Lobby).await;
    for (hash, seat) in [("h1", 0), ("h2", 1)] {
        store
            .add_credential_by(&player(hash, Some(seat)), None)
            .await
            .unwrap();
    }
    store
        .rename_seat(&gid("g1"), Seat(1), "Bo", LobbyAt::default())
        .await
        .unwrap();
    let g1 = gid("g1");
    let seats = || async {
        let mut seats: Vec<(Option<Seat>, Option<String>)> = store
            .credentials(&gid("g1"))
            .await
            .unwrap()
            .into_iter()
            .filter(|c| c.seat.is_some())
            .map(|c| (c.seat, c.token_hash))
            .collect();
        seats.sort();
        seats
    };
    let before = (lobby(&store).await.0, seats().await);
    for (from, to, hash) in [(0, 1, "h1"), (0, 2, "h2"), (2, 3, "h1")] {
        assert!(matches!(
            store
                .move_seat(&g1, (Seat(from), Seat(to)), hash, LobbyAt::OPEN)
                .await,
            Err(StoreError::NotFound)
        ));
    }
    assert_eq!((lobby(&store).await.0, seats().await), before);
    store
        .move_seat(&g1, (Seat(0), Seat(3)), "h1", LobbyAt::OPEN)
        .await
        .unwrap();
    let (version, names) = lobby(&store).await;
    assert_eq!(
        (version, names),
        (before.0 + 1, vec![Some("Bo".into()), Some("Ada".into())])
    );
    assert_eq!(
        seats().await,
        vec![
            (Some(Seat(1)), Some("h2".into())),
            (Some(Seat(3)), Some("h1".into()))
        ]
    );
    assert!(store.close_lobby(&g1, 1).await.unwrap());
    assert!(matches!(
        store
            .move_seat(&g1, (Seat(3), Seat(0)), "h1", LobbyAt::OPEN)
            .await,
        Err(StoreError::LobbyChanged)
    ));
    assert_eq!(seats().await[1], (Some(Seat(3)), Some("h1".into())));
}
