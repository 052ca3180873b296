//! Signing keys and the transparency log.

use std::collections::BTreeSet;

use saboteur_storage::{EventStore, GameStatus};

use super::helpers::{created, gid};

pub(crate) fn key(n: u8) -> saboteur_storage::NewKey {
    saboteur_storage::NewKey {
        id: format!("key{n}"),
        public_key: format!("{n:064x}"),
        secret_key: Some(vec![n; 32]),
        endorsement: None,
    }
}

/// Processes starting together end up with one active key; a rotation retires it and keeps it.
pub(crate) async fn signing_keys(store: EventStore) {
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
    // Kept for ever: no key is deleted, changed, or retired twice; retiring is the one change.
    for sql in [
        "DELETE FROM server_keys".to_string(),
        format!("DELETE FROM server_keys WHERE id = '{}'", first.id),
        "UPDATE server_keys SET public_key = 'ff' WHERE id = 'key42'".to_string(),
        format!(
            "UPDATE server_keys SET retired_at = created_at WHERE id = '{}'",
            first.id
        ),
        "UPDATE server_keys SET created_at = retired_at WHERE id = 'key42'".to_string(),
    ] {
        assert!(
            store.execute_raw(&sql).await.is_err(),
            "the store took {sql}"
        );
    }
    assert_eq!(store.server_keys().await.unwrap(), all);
    assert!(store.rotate_server_key(key(43)).await.is_ok());
}

/// Finished games are logged once each, whoever logs them, in one unbroken chain.
pub(crate) async fn transparency_log(store: EventStore) {
    for id in ["f1", "f2", "f3", "f4"] {
        created(&store, id, GameStatus::Finished).await;
    }
    created(&store, "running", GameStatus::Active).await;
    assert_eq!(store.unlogged_finished_games(10).await.unwrap().len(), 4);
    let tasks: Vec<_> = (0..16)
        .map(|n| {
            let store = store.clone();
            let id = ["f1", "f2", "f3", "f4"][n % 4];
            tokio::spawn(async move { store.log_finished_game(&gid(id), 1_795_435_200_000).await })
        })
        .collect();
    for t in tasks {
        t.await.unwrap().unwrap();
    }
    assert!(
        store
            .log_finished_game(&gid("running"), 1_795_435_200_000)
            .await
            .is_err()
    );
    assert!(store.unlogged_finished_games(10).await.unwrap().is_empty());
    let entries = store.log_entries(0, 100).await.unwrap();
    assert_eq!(entries.len(), 4, "one entry per game");
    let mut prev = saboteur_storage::GENESIS.to_string();
    for (e, seq) in entries.iter().zip(1..) {
        assert_eq!(e.seq, seq);
        assert_eq!(e.prev_hash, prev);
        let game = store.get_game(&e.game_id).await.unwrap();
        assert_eq!((e.version, &e.head), (game.version, &game.last_hash));
        let hash = saboteur_storage::log_entry_hash_at(
            &prev,
            seq,
            e.game_id.as_str(),
            e.version.stored(),
            &e.head,
            e.logged_at.timestamp_millis(),
        );
        assert!(
            e.logged_at.timestamp_millis() >= 1_795_435_200_000,
            "never earlier"
        );
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
