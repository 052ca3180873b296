//! Playing seat 0 through the API, as the operator tests' player does.

use serde_json::Value;

use super::Server;

/// Plays seat 0 (the first legal move each turn) until the game is over.
pub async fn play_to_end(server: &Server, id: &str, me: &str) {
    for _ in 0..2000 {
        let summary = server
            .call("GET", &format!("/games/{id}"), None, None)
            .await;
        if summary["status"] == "finished" {
            return;
        }
        let legal = server
            .call("GET", &format!("/games/{id}/legal-moves"), Some(me), None)
            .await;
        match legal["commands"].as_array().and_then(|c| c.first()) {
            Some(command) => {
                server
                    .call(
                        "POST",
                        &format!("/games/{id}/commands"),
                        Some(me),
                        Some(command.clone()),
                    )
                    .await;
            }
            None => tokio::time::sleep(std::time::Duration::from_millis(20)).await,
        }
    }
    panic!("game {id} did not end");
}

/// Plays seat 0 (the first legal move each turn), every command signed with `key` at the
/// version it was chosen at, until the game is over: the sequence number and signed version of
/// each of its commands.
pub async fn play_signed(
    server: &Server,
    id: &str,
    me: &str,
    key: &ed25519_dalek::SigningKey,
) -> Vec<(i64, u64)> {
    signed_moves(server, (id, me), key, usize::MAX).await
}

/// Seat 0's next command, as [`play_signed`] plays it: its sequence number and signed version;
/// `None` once the game is over.
pub async fn next_signed_move(
    server: &Server,
    id: &str,
    me: &str,
    key: &ed25519_dalek::SigningKey,
) -> Option<(i64, u64)> {
    signed_moves(server, (id, me), key, 1).await.pop()
}

/// Seat 0's next `most` commands (fewer once the game is over), each its first legal move once
/// it is awaited, signed with `key` at the version it was chosen at. Panics when 2000 reads
/// saw neither the end nor enough moves.
async fn signed_moves(
    server: &Server,
    (id, me): (&str, &str),
    key: &ed25519_dalek::SigningKey,
    most: usize,
) -> Vec<(i64, u64)> {
    let mut played = Vec::new();
    for _ in 0..2000 {
        let summary = server
            .call("GET", &format!("/games/{id}"), None, None)
            .await;
        if summary["status"] == "finished" {
            return played;
        }
        let legal = server
            .call("GET", &format!("/games/{id}/legal-moves"), Some(me), None)
            .await;
        let Some(command) = legal["commands"].as_array().and_then(|c| c.first()) else {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            continue;
        };
        let version = legal["version"].as_u64().unwrap();
        let (status, out) = server
            .signed(
                &format!("/games/{id}/commands"),
                me,
                &command.to_string(),
                Some((key, id, 0, version, "command")),
            )
            .await;
        assert_eq!(status, 200, "{out}");
        played.push((out["events"][0]["seq"].as_i64().unwrap(), version));
        if played.len() == most {
            return played;
        }
    }
    panic!("game {id} did not end");
}

/// Seat 0's legal moves as it reads them now: the version and the first command.
pub async fn first_legal(server: &Server, id: &str, me: &str) -> (u64, Value) {
    let legal = server
        .call("GET", &format!("/games/{id}/legal-moves"), Some(me), None)
        .await;
    (
        legal["version"].as_u64().unwrap(),
        legal["commands"][0].clone(),
    )
}
