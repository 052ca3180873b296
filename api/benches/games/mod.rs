//! What the load and moves benchmarks share: a started game of people, and a percentile.

use std::time::Duration;

use reqwest::{Client, RequestBuilder};
use serde_json::{Value, json};

/// The JSON body of the reply to `request`.
pub async fn json_of(request: RequestBuilder) -> Value {
    request.send().await.unwrap().json().await.unwrap()
}

/// `GET /games/{id}/legal-moves` for `token`: the commands and the version they are legal at.
pub async fn legal_moves(c: &Client, base: &str, id: &str, token: &str) -> Value {
    json_of(
        c.get(format!("{base}/games/{id}/legal-moves"))
            .bearer_auth(token),
    )
    .await
}

/// A started game: its id, the seats' tokens, and the seat awaited first.
pub async fn new_game(c: &Client, base: &str, players: u8) -> (String, Vec<String>, Option<u64>) {
    let body = json!({"ruleset": "base", "players": players});
    let g = json_of(c.post(format!("{base}/games")).json(&body)).await;
    let id = g["game_id"].as_str().unwrap().to_string();
    let mut tokens = Vec::new();
    for i in 0..players {
        let seat = json!({"name": format!("p{i}")});
        let j = json_of(c.post(format!("{base}/games/{id}/seats")).json(&seat)).await;
        tokens.push(j["player_token"].as_str().unwrap().to_string());
    }
    let host = g["host_token"].as_str().unwrap();
    let started = json_of(c.post(format!("{base}/games/{id}/start")).bearer_auth(host)).await;
    (id, tokens, started["awaited"].as_u64())
}

/// The `p` percentile of `sorted` latencies, in milliseconds (0 for none).
pub fn percentile(sorted: &[Duration], p: f64) -> f64 {
    sorted
        .get(((sorted.len() as f64 * p) as usize).min(sorted.len().saturating_sub(1)))
        .map_or(0.0, |d| d.as_secs_f64() * 1e3)
}
