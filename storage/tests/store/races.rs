//! Appends at the same moment: racers on one game, and many games at once.

use saboteur_storage::{AppendOutcome, ChainReport, EventStore, GameStatus, StoreError, Version};

use super::helpers::{batch, created, event, gid, new_game, v};

/// Appends to many games at the same moment (on PostgreSQL they share statements): each one
/// gets its own outcome. Per game: one winner among two racers, a retried command id answered
/// with its original batch, a missing game refused, and every chain intact.
pub(crate) async fn many_games(store: EventStore) {
    let games = 24;
    for g in 0..games {
        created(&store, &format!("m{g}"), GameStatus::Active).await;
    }
    new_game(&store, "dup", GameStatus::Active).await;
    let first = store
        .append(batch("dup", 0, vec![event(1), event(2)], Some("c1")))
        .await
        .unwrap();
    let mut tasks = Vec::new();
    for round in 0..3 {
        for g in 0..games {
            // Two racers per game at the same version, each with its own command id.
            for racer in 0..2 {
                let store = store.clone();
                let id = format!("m{g}");
                let cmd = format!("r{round}-{racer}");
                tasks.push(tokio::spawn(async move {
                    let version = store.get_game(&gid(&id)).await.unwrap().version.stored();
                    let out = store
                        .append(batch(&id, version, vec![event(racer)], Some(&cmd)))
                        .await;
                    ("race", out)
                }));
            }
        }
        let store_dup = store.clone();
        tasks.push(tokio::spawn(async move {
            let out = store_dup
                .append(batch("dup", 2, vec![event(3)], Some("c1")))
                .await;
            ("dup", out)
        }));
        let store_missing = store.clone();
        tasks.push(tokio::spawn(async move {
            let out = store_missing
                .append(batch("no-such-game", 0, vec![event(4)], None))
                .await;
            ("missing", out)
        }));
    }
    let (mut won, mut lost) = (0, 0);
    for t in tasks {
        match t.await.unwrap() {
            ("race", Ok(AppendOutcome::Appended { .. })) => won += 1,
            ("race", Err(StoreError::Conflict { .. })) => lost += 1,
            ("dup", Ok(out)) => assert_eq!(
                out,
                AppendOutcome::Duplicate {
                    first_seq: Version(1),
                    last_seq: Version(2)
                }
            ),
            ("missing", Err(StoreError::NotFound | StoreError::Conflict { .. })) => {}
            (what, other) => panic!("{what}: unexpected outcome {other:?}"),
        }
    }
    assert!(matches!(
        first,
        AppendOutcome::Appended {
            last_seq: Version(2),
            ..
        }
    ));
    assert_eq!(won + lost, 3 * 2 * games);
    let mut total = 0;
    for g in 0..games {
        let id = format!("m{g}");
        let version = store.get_game(&gid(&id)).await.unwrap().version.stored();
        // Each game starts with its first event.
        assert!((2..=1 + 3 * 2).contains(&version), "{id}: {version}");
        total += version - 1;
        let seqs: Vec<i64> = store
            .events_after(&gid(&id), v(0), 100)
            .await
            .unwrap()
            .iter()
            .map(|e| e.seq.stored())
            .collect();
        assert_eq!(seqs, (1..=version).collect::<Vec<_>>(), "{id}: no gap");
        assert!(matches!(
            store.verify_chain(&gid(&id)).await.unwrap(),
            ChainReport::Intact { .. }
        ));
    }
    assert_eq!(total, won as i64, "every win is one event, every loss none");
    assert_eq!(
        store.get_game(&gid("dup")).await.unwrap().version,
        Version(2)
    );
}

pub(crate) async fn race(store: EventStore) {
    new_game(&store, "race", GameStatus::Active).await;
    for round in 0..5i64 {
        let version = round * 2;
        let tasks: Vec<_> = (0..32)
            .map(|t| {
                let store = store.clone();
                tokio::spawn(async move {
                    store
                        .append(batch("race", version, vec![event(t), event(t + 100)], None))
                        .await
                })
            })
            .collect();
        let mut wins = 0;
        for t in tasks {
            match t.await.unwrap() {
                Ok(AppendOutcome::Appended { .. }) => wins += 1,
                Err(StoreError::Conflict { .. }) => {}
                other => panic!("unexpected outcome {other:?}"),
            }
        }
        assert_eq!(wins, 1, "exactly one writer wins version {version}");
        // The next round starts from the version the winner left.
        let game = store.get_game(&gid("race")).await.unwrap();
        assert_eq!(game.version.stored(), version + 2);
    }
    let seqs: Vec<i64> = store
        .events_after(&gid("race"), v(0), 1000)
        .await
        .unwrap()
        .iter()
        .map(|e| e.seq.stored())
        .collect();
    assert_eq!(seqs, (1..=10).collect::<Vec<_>>(), "no gap, no duplicate");
    assert!(matches!(
        store.verify_chain(&gid("race")).await.unwrap(),
        ChainReport::Intact {
            events: Version(10)
        }
    ));
}
