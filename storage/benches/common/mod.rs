//! What the store's benchmarks share: an empty game to append to, and the append of one event
//! the size of a game's.

use saboteur_storage::{Append, EventStore, GameId, NewEvent, NewGame, Version};
use serde_json::json;

/// An event's payload of about 300 bytes, like a typical game event: writer `w`'s `n`th.
pub fn payload(w: usize, n: usize) -> serde_json::Value {
    json!({
        "type": "path_played", "seat": w % 10, "card": "tunnel_nesw",
        "at": { "x": n % 9, "y": (n / 9) % 5 }, "rotated": n.is_multiple_of(2),
        "note": "x".repeat(180), "n": n,
    })
}

/// A new 4-seat base game with no events yet: its id.
pub async fn empty_game(store: &EventStore) -> GameId {
    let id = GameId::new();
    store
        .create_game_row(NewGame {
            id: id.clone(),
            ruleset: saboteur_domain::Ruleset::Base,
            options: saboteur_domain::Options::default(),
            players: 4,
            seed_commitment: String::new(),
            seed: vec![],
            previous: None,
            creator: None,
        })
        .await
        .expect("create");
    id
}

/// Writer `w`'s `n`th append to its game `id`, after the event hashed `hash`: one event of
/// [`payload`], with a command id of its own under `tag`.
pub fn one_event(id: &GameId, (w, n): (usize, usize), hash: &str, tag: &str) -> Append {
    Append {
        game_id: id.clone(),
        expected_version: Version::of(n as u64),
        prev_hash: Some(hash.to_owned()),
        events: vec![NewEvent {
            event_type: "path_played".into(),
            schema_version: 1,
            payload: payload(w, n),
            seat: Some(saboteur_domain::Seat((w % 10) as u8)),
            sealed: None,
        }],
        command_id: Some(format!("{tag}-{w}-{n}")),
        status: None,
        bot_awaited: false,
        deadline: None,
        token: None,
    }
}
