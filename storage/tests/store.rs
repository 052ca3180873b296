//! The event store's conformance suite, run against both backends: SQLite (a temporary file)
//! and PostgreSQL (`DATABASE_URL`, or a throwaway cluster).

use std::collections::BTreeSet;
use std::time::Duration;

use saboteur_domain::{Options, Ruleset};
use saboteur_storage::{
    Append, AppendOutcome, ChainReport, Credential, EventStore, GameStatus, NewEvent, NewGame,
    Notice, Role, StoreError, TokenSwap, seed_commitment,
};
use serde_json::json;

async fn sqlite() -> (EventStore, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("store.db").display());
    (EventStore::connect(&url).await.unwrap(), dir)
}

async fn postgres() -> (EventStore, String) {
    let url = saboteur_storage::testing::fresh_database().await;
    (EventStore::connect(&url).await.unwrap(), url)
}

fn event(n: i64) -> NewEvent {
    NewEvent {
        event_type: "thing_happened".into(),
        schema_version: 1,
        payload: json!({ "type": "thing_happened", "n": n, "nested": { "b": [1, 2], "a": null } }),
        seat: Some((n % 4) as i32),
    }
}

fn game(id: &str) -> NewGame {
    NewGame {
        id: id.into(),
        ruleset: Ruleset::Base,
        options: Options::default(),
        players: 4,
        seed_commitment: seed_commitment(&[7; 32]),
        seed: vec![7; 32],
        previous: None,
    }
}

fn host(id: &str) -> Credential {
    Credential {
        game_id: id.into(),
        token_hash: format!("host-of-{id}"),
        role: Role::Host,
        seat: None,
        display_name: None,
        created_at: chrono::Utc::now(),
    }
}

/// A game created whole (row, first event, host credential), in `status`.
async fn created(store: &EventStore, id: &str, status: GameStatus) {
    store
        .create_game(game(id), host(id), vec![event(0)])
        .await
        .unwrap();
    store
        .execute_raw(&format!(
            "UPDATE games SET status = '{status}' WHERE id = '{id}'"
        ))
        .await
        .unwrap();
}

/// A game row with an empty log, in `status` (set by a first append when not the lobby's).
async fn new_game(store: &EventStore, id: &str, status: GameStatus) {
    store.create_game_row(game(id)).await.unwrap();
    if status != GameStatus::Lobby {
        store
            .execute_raw(&format!(
                "UPDATE games SET status = '{status}' WHERE id = '{id}'"
            ))
            .await
            .unwrap();
    }
}

fn batch(game: &str, expected: i64, events: Vec<NewEvent>, command_id: Option<&str>) -> Append {
    Append {
        game_id: game.into(),
        expected_version: expected,
        prev_hash: None,
        events,
        command_id: command_id.map(str::to_string),
        status: None,
        bot_awaited: false,
        deadline: None,
        token: None,
    }
}

async fn round_trip(store: EventStore) {
    new_game(&store, "g1", GameStatus::Lobby).await;
    let out = store
        .append(batch("g1", 0, (1..=3).map(event).collect(), None))
        .await
        .unwrap();
    let AppendOutcome::Appended {
        first_seq: 1,
        last_seq: 3,
        last_hash,
    } = out
    else {
        panic!("{out:?}")
    };
    let events = store.events_after("g1", 0, 100).await.unwrap();
    assert_eq!(
        events.iter().map(|e| e.seq).collect::<Vec<_>>(),
        vec![1, 2, 3]
    );
    for (e, n) in events.iter().zip(1..) {
        assert_eq!(e.payload, event(n).payload);
        assert_eq!(e.event_type, "thing_happened");
        assert_eq!(e.seat, Some((n % 4) as i32));
    }
    assert_eq!(events[2].hash, last_hash);
    assert_eq!(events[1].prev_hash, events[0].hash);
    let game = store.get_game("g1").await.unwrap();
    assert_eq!(
        (game.version, game.last_hash.as_str()),
        (3, last_hash.as_str())
    );
    assert_eq!(
        game.seed, None,
        "the seed stays secret until the game is finished"
    );
    let sum = store
        .fold_events("g1", 0, |acc, e| Ok::<_, ()>(acc + e.seq))
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
    assert!(matches!(out, AppendOutcome::Appended { last_seq: 4, .. }));
    let game = store.get_game("g1").await.unwrap();
    assert_eq!(game.status, GameStatus::Finished);
    assert_eq!(game.seed, Some(vec![7; 32]), "revealed once finished");
    assert!(matches!(
        store.verify_chain("g1").await.unwrap(),
        ChainReport::Intact { events: 4 }
    ));
}

async fn conflicts_and_missing_games(store: EventStore) {
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
                expected: 1,
                actual: 2
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
        store.events_after("g1", 0, 100).await.unwrap().len(),
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
        store.get_game("nope").await,
        Err(StoreError::NotFound)
    ));
    assert!(matches!(
        store
            .create_game(game("g1"), host("g1"), vec![event(0)])
            .await,
        Err(StoreError::Exists)
    ));
}

async fn idempotent_retry(store: EventStore) {
    new_game(&store, "g1", GameStatus::Active).await;
    let first = store
        .append(batch("g1", 0, vec![event(1), event(2)], Some("cmd-1")))
        .await
        .unwrap();
    assert!(matches!(
        first,
        AppendOutcome::Appended {
            first_seq: 1,
            last_seq: 2,
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
                first_seq: 1,
                last_seq: 2
            }
        );
    }
    assert_eq!(store.get_game("g1").await.unwrap().version, 2);
    let next = store
        .append(batch("g1", 2, vec![event(3)], Some("cmd-2")))
        .await
        .unwrap();
    assert!(matches!(next, AppendOutcome::Appended { first_seq: 3, .. }));
    let events = store.events_after("g1", 0, 10).await.unwrap();
    assert_eq!(
        events
            .iter()
            .map(|e| e.command_id.clone())
            .collect::<Vec<_>>(),
        vec![Some("cmd-1".into()), None, Some("cmd-2".into())]
    );
}

async fn pagination(store: EventStore) {
    new_game(&store, "g1", GameStatus::Active).await;
    store
        .append(batch("g1", 0, (1..=7).map(event).collect(), None))
        .await
        .unwrap();
    let page = store.events_after("g1", 2, 3).await.unwrap();
    assert_eq!(
        page.iter().map(|e| e.seq).collect::<Vec<_>>(),
        vec![3, 4, 5]
    );
    assert!(store.events_after("g1", 7, 3).await.unwrap().is_empty());
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

async fn immutable_and_tamper_evident(store: EventStore) {
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
    assert_eq!(store.events_after("g1", 0, 10).await.unwrap().len(), 4);
    assert!(matches!(
        store.verify_chain("g1").await.unwrap(),
        ChainReport::Intact { events: 4 }
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
    let report = store.verify_chain("g1").await.unwrap();
    assert!(
        matches!(report, ChainReport::Broken { seq: 3, .. }),
        "{report:?}"
    );
}

/// The next append announced, past any resync notices.
async fn next_append(rx: &mut tokio::sync::broadcast::Receiver<Notice>) -> (String, i64) {
    loop {
        let got = tokio::time::timeout(Duration::from_secs(10), rx.recv())
            .await
            .expect("an announcement within 10 s")
            .expect("the channel is open");
        if let Notice::Appended(a) = got {
            return (a.game_id, a.last_seq);
        }
    }
}

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

/// Appends to many games at the same moment (on PostgreSQL they share statements): each one
/// gets its own outcome. Per game: one winner among two racers, a retried command id answered
/// with its original batch, a missing game refused, and every chain intact.
async fn many_games(store: EventStore) {
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
                    let version = store.get_game(&id).await.unwrap().version;
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
                    first_seq: 1,
                    last_seq: 2
                }
            ),
            ("missing", Err(StoreError::NotFound | StoreError::Conflict { .. })) => {}
            (what, other) => panic!("{what}: unexpected outcome {other:?}"),
        }
    }
    assert!(matches!(first, AppendOutcome::Appended { last_seq: 2, .. }));
    assert_eq!(won + lost, 3 * 2 * games);
    let mut total = 0;
    for g in 0..games {
        let id = format!("m{g}");
        let version = store.get_game(&id).await.unwrap().version;
        // Each game starts with its first event.
        assert!((2..=1 + 3 * 2).contains(&version), "{id}: {version}");
        total += version - 1;
        let seqs: Vec<i64> = store
            .events_after(&id, 0, 100)
            .await
            .unwrap()
            .iter()
            .map(|e| e.seq)
            .collect();
        assert_eq!(seqs, (1..=version).collect::<Vec<_>>(), "{id}: no gap");
        assert!(matches!(
            store.verify_chain(&id).await.unwrap(),
            ChainReport::Intact { .. }
        ));
    }
    assert_eq!(total, won as i64, "every win is one event, every loss none");
    assert_eq!(store.get_game("dup").await.unwrap().version, 2);
}

async fn race(store: EventStore) {
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
        let game = store.get_game("race").await.unwrap();
        assert_eq!(game.version, version + 2);
    }
    let seqs: Vec<i64> = store
        .events_after("race", 0, 1000)
        .await
        .unwrap()
        .iter()
        .map(|e| e.seq)
        .collect();
    assert_eq!(seqs, (1..=10).collect::<Vec<_>>(), "no gap, no duplicate");
    assert!(matches!(
        store.verify_chain("race").await.unwrap(),
        ChainReport::Intact { events: 10 }
    ));
}

async fn credentials(store: EventStore) {
    new_game(&store, "g1", GameStatus::Lobby).await;
    let c = |hash: &str, seat| Credential {
        game_id: "g1".into(),
        token_hash: hash.into(),
        role: Role::Player,
        seat,
        display_name: Some("Ada".into()),
        created_at: chrono::Utc::now(),
    };
    store.add_credential(&c("h1", Some(0))).await.unwrap();
    store.add_credential(&c("h2", Some(1))).await.unwrap();
    assert!(matches!(
        store.add_credential(&c("h1", Some(2))).await,
        Err(StoreError::Exists)
    ));
    let all = store.credentials("g1").await.unwrap();
    assert_eq!(
        all.iter()
            .map(|c| c.token_hash.as_str())
            .collect::<BTreeSet<_>>(),
        BTreeSet::from(["h1", "h2"])
    );
    store.remove_credential("g1", "h1").await.unwrap();
    assert!(matches!(
        store.remove_credential("g1", "h1").await,
        Err(StoreError::NotFound)
    ));
    assert_eq!(store.credentials("g1").await.unwrap().len(), 1);
}

fn key(n: u8) -> saboteur_storage::NewKey {
    saboteur_storage::NewKey {
        id: format!("key{n}"),
        public_key: format!("{n:064x}"),
        secret_key: Some(vec![n; 32]),
    }
}

/// Processes starting together end up with one active key; a rotation retires it and keeps it.
async fn signing_keys(store: EventStore) {
    assert_eq!(store.active_server_key().await.unwrap(), None);
    let tasks: Vec<_> = (0..16)
        .map(|n| {
            let store = store.clone();
            tokio::spawn(async move { store.ensure_server_key(key(n)).await })
        })
        .collect();
    let mut ids = BTreeSet::new();
    for t in tasks {
        ids.insert(t.await.unwrap().unwrap().id);
    }
    assert_eq!(ids.len(), 1, "one active key: {ids:?}");
    let first = store.active_server_key().await.unwrap().unwrap();
    assert_eq!(Some(&first.id), ids.first());
    assert_eq!(store.server_keys().await.unwrap().len(), 1);
    // Started again: the same key.
    assert_eq!(store.ensure_server_key(key(99)).await.unwrap().id, first.id);
    let next = store.rotate_server_key(key(42)).await.unwrap();
    assert_eq!(next.id, "key42");
    assert_eq!(next.secret_key, Some(vec![42; 32]));
    let all = store.server_keys().await.unwrap();
    assert_eq!(all.len(), 2);
    assert!(
        all.iter()
            .any(|k| k.id == first.id && k.retired_at.is_some())
    );
    assert_eq!(
        store.active_server_key().await.unwrap().unwrap().id,
        "key42"
    );
}

/// Finished games are logged once each, whoever logs them, in one unbroken chain.
async fn transparency_log(store: EventStore) {
    for id in ["f1", "f2", "f3", "f4"] {
        created(&store, id, GameStatus::Finished).await;
    }
    created(&store, "running", GameStatus::Active).await;
    assert_eq!(store.unlogged_finished_games(10).await.unwrap().len(), 4);
    let tasks: Vec<_> = (0..16)
        .map(|n| {
            let store = store.clone();
            let id = ["f1", "f2", "f3", "f4"][n % 4];
            tokio::spawn(async move { store.log_finished_game(id).await })
        })
        .collect();
    for t in tasks {
        t.await.unwrap().unwrap();
    }
    assert!(store.log_finished_game("running").await.is_err());
    assert!(store.unlogged_finished_games(10).await.unwrap().is_empty());
    let entries = store.log_entries(0, 100).await.unwrap();
    assert_eq!(entries.len(), 4, "one entry per game");
    let mut prev = saboteur_storage::GENESIS.to_string();
    for (e, seq) in entries.iter().zip(1..) {
        assert_eq!(e.seq, seq);
        assert_eq!(e.prev_hash, prev);
        let game = store.get_game(&e.game_id).await.unwrap();
        assert_eq!((e.version, &e.head), (game.version, &game.last_hash));
        let hash = saboteur_storage::log_entry_hash(&prev, seq, &e.game_id, e.version, &e.head);
        assert_eq!(e.hash, hash);
        prev = hash;
    }
    assert_eq!(store.last_log_entry().await.unwrap().unwrap().hash, prev);
    assert!(
        store
            .execute_raw("UPDATE transparency_log SET head = 'x'")
            .await
            .is_err(),
        "the log is append-only"
    );
}

/// Appends that swap a seat's token and keep a deadline, many at once (so PostgreSQL writes
/// them in groups too): the token changes exactly when the batch is in, a refused batch
/// changes no token, and the sweep finds the games past their deadline.
async fn tokens_and_deadlines(store: EventStore) {
    let games: Vec<String> = (0..24).map(|i| format!("t{i}")).collect();
    for id in &games {
        created(&store, id, GameStatus::Active).await;
        let mut player = host(id);
        player.token_hash = format!("old-{id}");
        player.role = Role::Player;
        player.seat = Some(1);
        store.add_credential(&player).await.unwrap();
    }
    let appends: Vec<_> = games
        .iter()
        .enumerate()
        .map(|(i, id)| {
            let store = store.clone();
            let id = id.clone();
            tokio::spawn(async move {
                let mut a = batch(&id, 1, vec![event(1)], None);
                a.token = Some(TokenSwap {
                    seat: 1,
                    token_hash: format!("new-{id}"),
                });
                a.deadline = Some(1_000 + i as i64);
                store.append(a).await
            })
        })
        .collect();
    for handle in appends {
        let outcome = handle.await.unwrap();
        assert!(
            matches!(outcome, Ok(AppendOutcome::Appended { .. })),
            "{outcome:?}"
        );
    }
    for id in &games {
        let held: Vec<String> = store
            .credentials(id)
            .await
            .unwrap()
            .into_iter()
            .filter(|c| c.seat == Some(1))
            .map(|c| c.token_hash)
            .collect();
        assert_eq!(held, vec![format!("new-{id}")]);
    }
    // A stale append with a swap: refused, and the token stays.
    let mut stale = batch(&games[0], 1, vec![event(2)], None);
    stale.token = Some(TokenSwap {
        seat: 1,
        token_hash: "never".into(),
    });
    assert!(matches!(
        store.append(stale).await,
        Err(StoreError::Conflict { .. })
    ));
    assert!(
        store
            .credentials(&games[0])
            .await
            .unwrap()
            .iter()
            .all(|c| c.token_hash != "never")
    );
    // Games past their deadline at 1010: the first eleven.
    let mut due: Vec<String> = store
        .games_due(1_010, 100)
        .await
        .unwrap()
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    due.sort();
    let mut expected: Vec<String> = games[..11].to_vec();
    expected.sort();
    assert_eq!(due, expected);
}

macro_rules! conformance {
    ($backend:ident) => {
        mod $backend {
            use super::*;

            #[tokio::test]
            async fn append_and_read_round_trip() {
                let (store, _keep) = $backend().await;
                round_trip(store).await;
            }
            #[tokio::test]
            async fn stale_versions_and_missing_games_are_refused() {
                let (store, _keep) = $backend().await;
                conflicts_and_missing_games(store).await;
            }
            #[tokio::test]
            async fn a_retried_command_id_appends_nothing() {
                let (store, _keep) = $backend().await;
                idempotent_retry(store).await;
            }
            #[tokio::test]
            async fn events_and_games_page() {
                let (store, _keep) = $backend().await;
                pagination(store).await;
            }
            #[tokio::test]
            async fn events_are_immutable_and_tampering_is_found() {
                let (store, _keep) = $backend().await;
                immutable_and_tamper_evident(store).await;
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn thirty_two_racers_one_winner_per_version() {
                let (store, _keep) = $backend().await;
                race(store).await;
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn simultaneous_appends_to_many_games_keep_their_own_outcomes() {
                let (store, _keep) = $backend().await;
                many_games(store).await;
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn tokens_swap_with_their_batch_and_deadlines_are_swept() {
                let (store, _keep) = $backend().await;
                tokens_and_deadlines(store).await;
            }
            #[tokio::test]
            async fn credentials_are_stored_hashed_and_removable() {
                let (store, _keep) = $backend().await;
                credentials(store).await;
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn one_signing_key_is_active_and_every_key_is_kept() {
                let (store, _keep) = $backend().await;
                signing_keys(store).await;
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn finished_games_are_logged_once_in_one_chain() {
                let (store, _keep) = $backend().await;
                transparency_log(store).await;
            }
        }
    };
}

conformance!(sqlite);
conformance!(postgres);

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

#[tokio::test]
async fn unknown_urls_are_refused() {
    assert!(matches!(
        EventStore::connect("mysql://x").await,
        Err(StoreError::Invalid(_))
    ));
}

/// A whole game stored event by event loads back, folded through the engine, to the state
/// the engine reached live.
async fn engine_round_trip(store: EventStore) {
    use saboteur_domain::{History, Options, Ruleset, Seed, bot::random_game};
    let log = random_game(Ruleset::Base, Options::default(), 5, Seed::from_u64(3));
    new_game(&store, "game", GameStatus::Active).await;
    let mut version = 0;
    for chunk in log.chunks(7) {
        let events = chunk.iter().map(saboteur_storage::to_new_event).collect();
        store
            .append(batch("game", version, events, None))
            .await
            .unwrap();
        version += chunk.len() as i64;
    }
    let loaded = store.load_history("game").await.unwrap();
    let live = History::replay(log.iter().cloned()).unwrap();
    assert_eq!(loaded.game(), live.game());
    assert_eq!(loaded.log(), live.log());
    assert!(matches!(
        store.load_history("missing").await,
        Err(StoreError::NotFound)
    ));
}

#[tokio::test]
async fn sqlite_loads_a_game_through_the_engine() {
    let (store, _keep) = sqlite().await;
    engine_round_trip(store).await;
}

#[tokio::test]
async fn postgres_loads_a_game_through_the_engine() {
    let (store, _keep) = postgres().await;
    engine_round_trip(store).await;
}

/// A game is created whole: its row, first event and host credential together; creating it
/// again changes nothing.
async fn creation_is_whole(store: EventStore) {
    let record = store
        .create_game(game("w1"), host("w1"), vec![event(0), event(1)])
        .await
        .unwrap();
    assert_eq!((record.version, record.players), (2, 4));
    assert_eq!(record.status, GameStatus::Lobby);
    assert_eq!(store.events_after("w1", 0, 10).await.unwrap().len(), 2);
    let credentials = store.credentials("w1").await.unwrap();
    assert_eq!(credentials.len(), 1);
    assert_eq!(
        (
            credentials[0].role,
            credentials[0].seat,
            credentials[0].token_hash.as_str()
        ),
        (Role::Host, None, "host-of-w1")
    );
    assert!(matches!(
        store
            .create_game(game("w1"), host("w1"), vec![event(0)])
            .await,
        Err(StoreError::Exists)
    ));
    assert_eq!(store.events_after("w1", 0, 10).await.unwrap().len(), 2);
    assert_eq!(store.credentials("w1").await.unwrap().len(), 1);
    // One holder per seat.
    let seat = |token: &str| Credential {
        game_id: "w1".into(),
        token_hash: token.into(),
        role: Role::Player,
        seat: Some(1),
        display_name: Some("Ada".into()),
        created_at: chrono::Utc::now(),
    };
    store.add_credential(&seat("t1")).await.unwrap();
    assert!(matches!(
        store.add_credential(&seat("t2")).await,
        Err(StoreError::Exists)
    ));
}

/// Games half-made by older versions (a row, no events) are never listed nor found, and never
/// break a listing; appends keep `bot_awaited` for the sweep.
async fn half_made_games_and_bot_flags(store: EventStore) {
    created(&store, "a", GameStatus::Active).await;
    store.create_game_row(game("half")).await.unwrap();
    created(&store, "b", GameStatus::Active).await;
    let mut seen = Vec::new();
    let mut cursor = None;
    loop {
        let page = store.list_games(None, cursor.as_deref(), 1).await.unwrap();
        seen.extend(page.games.iter().map(|g| g.record.id.clone()));
        match page.next_cursor {
            Some(c) => cursor = Some(c),
            None => break,
        }
    }
    assert_eq!(seen, vec!["a", "b"]);
    assert!(matches!(
        store.get_game("half").await,
        Err(StoreError::NotFound)
    ));
    let listed = store.list_games(None, None, 10).await.unwrap();
    assert_eq!(
        listed.games[0].credentials,
        store.credentials("a").await.unwrap()
    );

    assert!(store.games_awaiting_bots(10).await.unwrap().is_empty());
    store
        .append(Append {
            bot_awaited: true,
            deadline: None,
            token: None,
            ..batch("a", 1, vec![event(1)], None)
        })
        .await
        .unwrap();
    assert_eq!(
        store.games_awaiting_bots(10).await.unwrap(),
        vec![("a".to_string(), 2)]
    );
    assert!(!store.clear_bot_awaited("a", 1).await.unwrap());
    assert!(store.clear_bot_awaited("a", 2).await.unwrap());
    assert!(store.games_awaiting_bots(10).await.unwrap().is_empty());
    store
        .append(Append {
            bot_awaited: true,
            deadline: None,
            token: None,
            ..batch("a", 2, vec![event(2)], None)
        })
        .await
        .unwrap();
    store
        .append(batch("a", 3, vec![event(3)], None))
        .await
        .unwrap();
    assert!(
        store.games_awaiting_bots(10).await.unwrap().is_empty(),
        "an append that leaves no bot due clears the flag"
    );
}

#[tokio::test]
async fn sqlite_creation_is_whole() {
    let (store, _dir) = sqlite().await;
    creation_is_whole(store).await;
}

#[tokio::test]
async fn postgres_creation_is_whole() {
    let (store, _) = postgres().await;
    creation_is_whole(store).await;
}

#[tokio::test]
async fn sqlite_half_made_games_and_bot_flags() {
    let (store, _dir) = sqlite().await;
    half_made_games_and_bot_flags(store).await;
}

#[tokio::test]
async fn postgres_half_made_games_and_bot_flags() {
    let (store, _) = postgres().await;
    half_made_games_and_bot_flags(store).await;
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
