//! Games as wholes: loaded back through the engine, created whole, half-made by older
//! versions.

use saboteur_storage::{Append, Credential, EventStore, GameStatus, Role, StoreError};

use super::helpers::{batch, created, event, game, gid, host, new_game, postgres, sqlite, v};
use saboteur_domain::Seat;
use saboteur_storage::Version;

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
    let loaded = store.load_history(&gid("game")).await.unwrap();
    let live = History::replay(log.iter().cloned()).unwrap();
    assert_eq!(loaded.game(), live.game());
    assert_eq!(loaded.log(), live.log());
    assert!(matches!(
        store.load_history(&gid("missing")).await,
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
    assert_eq!((record.version, record.players), (Version(2), 4));
    assert_eq!(record.status, GameStatus::Lobby);
    assert_eq!(
        store
            .events_after(&gid("w1"), v(0), 10)
            .await
            .unwrap()
            .len(),
        2
    );
    let credentials = store.credentials(&gid("w1")).await.unwrap();
    assert_eq!(credentials.len(), 1);
    assert_eq!(
        (
            credentials[0].role,
            credentials[0].seat,
            credentials[0].token_hash.as_deref()
        ),
        (Role::Host, None, Some("host-of-w1"))
    );
    assert!(matches!(
        store
            .create_game(game("w1"), host("w1"), vec![event(0)])
            .await,
        Err(StoreError::Exists)
    ));
    assert_eq!(
        store
            .events_after(&gid("w1"), v(0), 10)
            .await
            .unwrap()
            .len(),
        2
    );
    assert_eq!(store.credentials(&gid("w1")).await.unwrap().len(), 1);
    // One holder per seat.
    let seat = |token: &str| Credential {
        game_id: gid("w1"),
        token_hash: Some(token.into()),
        role: Role::Player,
        seat: Some(Seat(1)),
        display_name: Some("Ada".into()),
        created_at: chrono::Utc::now(),
        claimed_by: None,
        entropy: None,
        public_key: None,
        key_proof: None,
        share_commitment: None,
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
        store.get_game(&gid("half")).await,
        Err(StoreError::NotFound)
    ));
    let listed = store.list_games(None, None, 10).await.unwrap();
    assert_eq!(
        listed.games[0].credentials,
        store.credentials(&gid("a")).await.unwrap()
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
        vec![(gid("a"), Version(2))]
    );
    assert!(!store.clear_bot_awaited(&gid("a"), v(1)).await.unwrap());
    assert!(store.clear_bot_awaited(&gid("a"), v(2)).await.unwrap());
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

/// A game's maker is read back as its creation recorded it, and a game made with none has
/// none.
async fn makers_are_read_back(store: EventStore) {
    let mut made = game("made");
    made.creator = Some("192.0.2.7".into());
    store
        .create_game(made, host("made"), vec![event(0)])
        .await
        .unwrap();
    created(&store, "anonymous", GameStatus::Lobby).await;
    assert_eq!(
        store.game_creator(&gid("made")).await.unwrap().as_deref(),
        Some("192.0.2.7")
    );
    assert_eq!(store.game_creator(&gid("anonymous")).await.unwrap(), None);
    assert_eq!(store.game_creator(&gid("nowhere")).await.unwrap(), None);
}

#[tokio::test]
async fn sqlite_makers_are_read_back() {
    let (store, _dir) = sqlite().await;
    makers_are_read_back(store).await;
}

#[tokio::test]
async fn postgres_makers_are_read_back() {
    let (store, _) = postgres().await;
    makers_are_read_back(store).await;
}

/// Lobbies created before `since` are neither listed nor counted (they are kept, and found by
/// id); newer lobbies are, and started games whatever their age; a page of lobbies starts at
/// the oldest one not expired.
async fn expired_lobbies_are_left_out(store: EventStore) {
    for id in ["old1", "new1", "old2", "new2"] {
        created(&store, id, GameStatus::Lobby).await;
    }
    created(&store, "old_active", GameStatus::Active).await;
    for id in ["old1", "old2", "old_active"] {
        store
            .execute_raw(&format!(
                "UPDATE games SET created_at = '2020-01-01T00:00:00+00:00' WHERE id = '{id}'"
            ))
            .await
            .unwrap();
    }
    let since = chrono::Utc::now() - chrono::Duration::hours(1);
    assert_eq!(store.count_lobbies(since).await.unwrap(), 2);
    let ids = |page: saboteur_storage::GamePage| {
        page.games
            .into_iter()
            .map(|g| g.record.id)
            .collect::<Vec<_>>()
    };
    let lobbies = |cursor: Option<String>, limit| {
        let store = store.clone();
        async move {
            store
                .list_games_since(
                    Some(GameStatus::Lobby),
                    cursor.as_deref(),
                    limit,
                    Some(since),
                )
                .await
                .unwrap()
        }
    };
    assert_eq!(ids(lobbies(None, 10).await), ["new1", "new2"]);
    let first = lobbies(None, 1).await;
    let next = first.next_cursor.clone();
    assert_eq!(ids(first), ["new1"]);
    assert_eq!(ids(lobbies(next, 1).await), ["new2"]);
    let all = store
        .list_games_since(None, None, 10, Some(since))
        .await
        .unwrap();
    assert_eq!(ids(all), ["new1", "new2", "old_active"]);
    // Without an expiry, every lobby; an expired one is still found by id.
    let every = store
        .list_games(Some(GameStatus::Lobby), None, 10)
        .await
        .unwrap();
    assert_eq!(ids(every), ["old1", "new1", "old2", "new2"]);
    assert_eq!(
        store.get_game(&gid("old1")).await.unwrap().status,
        GameStatus::Lobby
    );
}

#[tokio::test]
async fn sqlite_expired_lobbies_are_left_out() {
    let (store, _dir) = sqlite().await;
    expired_lobbies_are_left_out(store).await;
}

#[tokio::test]
async fn postgres_expired_lobbies_are_left_out() {
    let (store, _) = postgres().await;
    expired_lobbies_are_left_out(store).await;
}

/// A reply kept with the game it made: read back by its scope and key while it is kept, a
/// second game under the same scope and key is not made, and it is forgotten once expired.
async fn replies_kept_with_their_game(store: EventStore) {
    let kept = saboteur_storage::KeptReply {
        scope: "create 192.0.2.1".into(),
        key: "k".into(),
        request: "digest".into(),
        reply: r#"{"game_id":"r1"}"#.into(),
    };
    let now = chrono::Utc::now();
    let hour = chrono::Duration::hours(1);
    store
        .create_game_kept(
            game("r1"),
            host("r1"),
            Vec::new(),
            vec![event(0)],
            Some(&kept),
        )
        .await
        .unwrap();
    let found = store
        .kept_reply(&kept.scope, "k", now - hour)
        .await
        .unwrap();
    assert_eq!(found.as_ref(), Some(&kept));
    assert_eq!(
        store
            .kept_reply("create 192.0.2.2", "k", now - hour)
            .await
            .unwrap(),
        None
    );
    assert!(matches!(
        store
            .create_game_kept(
                game("r2"),
                host("r2"),
                Vec::new(),
                vec![event(0)],
                Some(&kept)
            )
            .await,
        Err(StoreError::Exists)
    ));
    assert!(matches!(
        store.get_game(&gid("r2")).await,
        Err(StoreError::NotFound)
    ));
    // Expired: not answered, then forgotten.
    assert_eq!(
        store
            .kept_reply(&kept.scope, "k", now + hour)
            .await
            .unwrap(),
        None
    );
    assert_eq!(store.forget_kept_replies(now - hour).await.unwrap(), 0);
    assert_eq!(store.forget_kept_replies(now + hour).await.unwrap(), 1);
    assert_eq!(
        store
            .kept_reply(&kept.scope, "k", now - hour)
            .await
            .unwrap(),
        None
    );
    assert!(store.get_game(&gid("r1")).await.is_ok(), "the game stays");
}

#[tokio::test]
async fn sqlite_replies_kept_with_their_game() {
    let (store, _keep) = sqlite().await;
    replies_kept_with_their_game(store).await;
}

#[tokio::test]
async fn postgres_replies_kept_with_their_game() {
    let (store, _keep) = postgres().await;
    replies_kept_with_their_game(store).await;
}
