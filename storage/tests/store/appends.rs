//! Appending and reading: round trips, stale versions and missing games, retried command
//! ids, pages, immutability and tamper evidence.

use saboteur_storage::{
    Append, AppendOutcome, ChainReport, EventStore, GameStatus, StoreError, Version,
};

use super::helpers::{batch, created, event, game, gid, host, new_game, v};
use saboteur_domain::Seat;

pub(crate) async fn round_trip(store: EventStore) {
    new_game(&store, "g1", GameStatus::Lobby).await;
    let out = store
        .append(batch("g1", 0, (1..=3).map(event).collect(), None))
        .await
        .unwrap();
    let AppendOutcome::Appended {
        first_seq: Version(1),
        last_seq: Version(3),
        last_hash,
        hashes,
        at,
    } = out
    else {
        panic!("{out:?}")
    };
    let events = store.events_after(&gid("g1"), v(0), 100).await.unwrap();
    assert_eq!(
        events.iter().map(|e| e.seq.0).collect::<Vec<_>>(),
        vec![1, 2, 3]
    );
    for (e, n) in events.iter().zip(1..) {
        assert_eq!(e.payload, event(n).payload);
        assert_eq!(e.event_type, "thing_happened");
        assert_eq!(e.seat, Some(Seat((n % 4) as u8)));
    }
    assert_eq!(events[2].hash, last_hash);
    assert_eq!(
        events.iter().map(|e| &e.hash).collect::<Vec<_>>(),
        hashes.iter().collect::<Vec<_>>(),
        "the append answers each event's hash as the log holds it"
    );
    assert_eq!(events[1].prev_hash, events[0].hash);
    let game = store.get_game(&gid("g1")).await.unwrap();
    assert_eq!(
        (game.version, game.last_hash.as_str()),
        (Version(3), last_hash.as_str())
    );
    // The time the append answers is the one the store keeps (to the microsecond it stores).
    let micros = |t: chrono::DateTime<chrono::Utc>| t.timestamp_micros();
    assert_eq!(micros(game.updated_at), micros(at), "the row's updated_at");
    assert!(
        events.iter().all(|e| micros(e.recorded_at) == micros(at)),
        "each event's recorded_at"
    );
    assert_eq!(
        game.seed, None,
        "the seed stays secret until the game is finished"
    );
    let sum = store
        .fold_events(&gid("g1"), 0, |acc, e| Ok::<_, ()>(acc + e.seq.0))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(sum, 6);
    // The writer that knows the last hash saves a read.
    let out = store
        .append(Append {
            prev_hash: Some(last_hash),
            status: Some(GameStatus::Finished),
            ..batch("g1", 3, vec![event(4)], None)
        })
        .await
        .unwrap();
    assert!(matches!(
        out,
        AppendOutcome::Appended {
            last_seq: Version(4),
            ..
        }
    ));
    let game = store.get_game(&gid("g1")).await.unwrap();
    assert_eq!(game.status, GameStatus::Finished);
    assert_eq!(game.seed, Some(vec![7; 32]), "revealed once finished");
    assert!(matches!(
        store.verify_chain(&gid("g1")).await.unwrap(),
        ChainReport::Intact { events: Version(4) }
    ));
}

pub(crate) async fn conflicts_and_missing_games(store: EventStore) {
    new_game(&store, "g1", GameStatus::Active).await;
    store
        .append(batch("g1", 0, vec![event(1), event(2)], None))
        .await
        .unwrap();
    let err = store
        .append(batch("g1", 1, vec![event(3)], None))
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            StoreError::Conflict {
                expected: Version(1),
                actual: Version(2)
            }
        ),
        "{err:?}"
    );
    // A stale hash is refused too, even at the right version.
    let stale = Append {
        prev_hash: Some("00".repeat(32)),
        ..batch("g1", 2, vec![event(3)], None)
    };
    assert!(matches!(
        store.append(stale).await,
        Err(StoreError::Conflict { .. })
    ));
    assert_eq!(
        store
            .events_after(&gid("g1"), v(0), 100)
            .await
            .unwrap()
            .len(),
        2,
        "nothing appended"
    );
    assert!(matches!(
        store.append(batch("nope", 0, vec![event(1)], None)).await,
        Err(StoreError::NotFound)
    ));
    assert!(matches!(
        store.append(batch("g1", 2, vec![], None)).await,
        Err(StoreError::Invalid(_))
    ));
    assert!(matches!(
        store.get_game(&gid("nope")).await,
        Err(StoreError::NotFound)
    ));
    assert!(matches!(
        store
            .create_game(game("g1"), host("g1"), vec![event(0)])
            .await,
        Err(StoreError::Exists)
    ));
}

pub(crate) async fn idempotent_retry(store: EventStore) {
    new_game(&store, "g1", GameStatus::Active).await;
    let first = store
        .append(batch("g1", 0, vec![event(1), event(2)], Some("cmd-1")))
        .await
        .unwrap();
    assert!(matches!(
        first,
        AppendOutcome::Appended {
            first_seq: Version(1),
            last_seq: Version(2),
            ..
        }
    ));
    // The same command again, at the same (now stale) version or any other: the original.
    for expected in [0, 2] {
        let retry = store
            .append(batch("g1", expected, vec![event(9)], Some("cmd-1")))
            .await
            .unwrap();
        assert_eq!(
            retry,
            AppendOutcome::Duplicate {
                first_seq: Version(1),
                last_seq: Version(2)
            }
        );
    }
    assert_eq!(
        store.get_game(&gid("g1")).await.unwrap().version,
        Version(2)
    );
    let next = store
        .append(batch("g1", 2, vec![event(3)], Some("cmd-2")))
        .await
        .unwrap();
    assert!(matches!(
        next,
        AppendOutcome::Appended {
            first_seq: Version(3),
            ..
        }
    ));
    let events = store.events_after(&gid("g1"), v(0), 10).await.unwrap();
    assert_eq!(
        events
            .iter()
            .map(|e| e.command_id.clone())
            .collect::<Vec<_>>(),
        vec![Some("cmd-1".into()), None, Some("cmd-2".into())]
    );
}

pub(crate) async fn pagination(store: EventStore) {
    new_game(&store, "g1", GameStatus::Active).await;
    store
        .append(batch("g1", 0, (1..=7).map(event).collect(), None))
        .await
        .unwrap();
    let page = store.events_after(&gid("g1"), v(2), 3).await.unwrap();
    assert_eq!(
        page.iter().map(|e| e.seq.0).collect::<Vec<_>>(),
        vec![3, 4, 5]
    );
    assert!(
        store
            .events_after(&gid("g1"), v(7), 3)
            .await
            .unwrap()
            .is_empty()
    );
    for i in 0..7 {
        let status = if i % 2 == 0 {
            GameStatus::Lobby
        } else {
            GameStatus::Active
        };
        created(&store, &format!("p{i}"), status).await;
    }
    let mut seen = Vec::new();
    let mut cursor = None;
    loop {
        let page = store
            .list_games(Some(GameStatus::Lobby), cursor.as_deref(), 2)
            .await
            .unwrap();
        seen.extend(page.games.iter().map(|g| g.record.id.clone()));
        assert!(
            page.games
                .iter()
                .all(|g| g.record.status == GameStatus::Lobby)
        );
        match page.next_cursor {
            Some(c) => cursor = Some(c),
            None => break,
        }
    }
    assert_eq!(seen, vec!["p0", "p2", "p4", "p6"]);
    let all = store.list_games(None, None, 100).await.unwrap();
    assert_eq!(all.games.len(), 8);
    assert!(all.next_cursor.is_none());
    assert!(matches!(
        store.list_games(None, Some("zz"), 2).await,
        Err(StoreError::Invalid(_))
    ));
}

pub(crate) async fn immutable_and_tamper_evident(store: EventStore) {
    new_game(&store, "g1", GameStatus::Active).await;
    store
        .append(batch("g1", 0, (1..=4).map(event).collect(), None))
        .await
        .unwrap();
    assert!(
        store
            .execute_raw("UPDATE events SET event_type = 'x' WHERE seq = 2")
            .await
            .is_err()
    );
    assert!(
        store
            .execute_raw("DELETE FROM events WHERE seq = 4")
            .await
            .is_err()
    );
    // Nor does its game go: no event is ever left without one.
    assert!(
        store
            .execute_raw("DELETE FROM games WHERE id = 'g1'")
            .await
            .is_err()
    );
    assert_eq!(
        store
            .events_after(&gid("g1"), v(0), 10)
            .await
            .unwrap()
            .len(),
        4
    );
    assert!(matches!(
        store.verify_chain(&gid("g1")).await.unwrap(),
        ChainReport::Intact { events: Version(4) }
    ));
    // In this throwaway database, go around the trigger and change an event.
    let drop = match store.backend_name() {
        "postgres" => "DROP TRIGGER events_no_update ON events",
        _ => "DROP TRIGGER events_no_update",
    };
    store.execute_raw(drop).await.unwrap();
    let tamper = match store.backend_name() {
        "postgres" => "UPDATE events SET payload = '{\"n\": 99}'::jsonb WHERE seq = 3",
        _ => "UPDATE events SET payload = '{\"n\": 99}' WHERE seq = 3",
    };
    assert_eq!(store.execute_raw(tamper).await.unwrap(), 1);
    let report = store.verify_chain(&gid("g1")).await.unwrap();
    assert!(
        matches!(
            report,
            ChainReport::Broken {
                seq: Version(3),
                ..
            }
        ),
        "{report:?}"
    );
}
