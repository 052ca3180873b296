//! What every part of the suite shares: the two backends, and games, events, credentials and
//! batches to store.

use std::time::Duration;

use saboteur_domain::{Options, Ruleset, Seat};
use saboteur_storage::{
    Append, Credential, EventStore, GameId, GameStatus, NewEvent, NewGame, Notice, Role, Version,
    seed_commitment,
};
use serde_json::json;

pub(crate) async fn sqlite() -> (EventStore, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("store.db").display());
    (EventStore::connect(&url).await.unwrap(), dir)
}

pub(crate) async fn postgres() -> (EventStore, String) {
    let url = saboteur_storage::testing::fresh_database().await;
    (EventStore::connect(&url).await.unwrap(), url)
}

pub(crate) fn event(n: i64) -> NewEvent {
    NewEvent {
        event_type: "thing_happened".into(),
        schema_version: 1,
        payload: json!({ "type": "thing_happened", "n": n, "nested": { "b": [1, 2], "a": null } }),
        seat: Some(Seat((n % 4) as u8)),
        sealed: None,
    }
}

pub(crate) fn game(id: &str) -> NewGame {
    NewGame {
        id: gid(id),
        ruleset: Ruleset::Base,
        options: Options::default(),
        players: 4,
        seed_commitment: seed_commitment(&[7; 32]),
        seed: vec![7; 32],
        previous: None,
        creator: None,
    }
}

pub(crate) fn host(id: &str) -> Credential {
    Credential {
        game_id: gid(id),
        token_hash: Some(format!("host-of-{id}")),
        role: Role::Host,
        seat: None,
        display_name: None,
        created_at: chrono::Utc::now(),
        claimed_by: None,
        entropy: None,
        public_key: None,
        key_proof: None,
        share_commitment: None,
    }
}

/// A game created whole (row, first event, host credential), in `status`.
pub(crate) async fn created(store: &EventStore, id: &str, status: GameStatus) {
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
pub(crate) async fn new_game(store: &EventStore, id: &str, status: GameStatus) {
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

pub(crate) fn batch(
    game: &str,
    expected: i64,
    events: Vec<NewEvent>,
    command_id: Option<&str>,
) -> Append {
    Append {
        game_id: gid(game),
        expected_version: v(expected),
        prev_hash: None,
        events,
        command_id: command_id.map(str::to_string),
        status: None,
        bot_awaited: false,
        deadline: None,
        token: None,
    }
}

/// The next append announced, past any resync notices.
pub(crate) async fn next_append(
    rx: &mut tokio::sync::broadcast::Receiver<Notice>,
) -> (String, i64) {
    loop {
        let got = tokio::time::timeout(Duration::from_secs(10), rx.recv())
            .await
            .expect("an announcement within 10 s")
            .expect("the channel is open");
        if let Notice::Appended(a) = got {
            return (a.game_id.to_string(), a.last_seq.stored());
        }
    }
}

/// A test's game, by name.
pub(crate) fn gid(name: &str) -> GameId {
    GameId::named(name)
}

/// A version, as the tests count them.
pub(crate) fn v(n: i64) -> Version {
    Version::from_stored(n).expect("a version is 0 or more")
}
