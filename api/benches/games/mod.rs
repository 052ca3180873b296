//! What the load and moves benchmarks share: a started game of people, and a percentile.

use std::time::Duration;

use reqwest::Client;
use serde_json::{Value, json};

/// A started game: its id, the seats' tokens, and the seat awaited first.
pub async fn new_game(c: &Client, base: &str, players: u8) -> (String, Vec<String>, Option<u64>) {
    let g: Value = c
        .post(format!("{base}/games"))
        .json(&json!({"ruleset": "base", "players": players}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let id = g["game_id"].as_str().unwrap().to_string();
    let mut tokens = Vec::new();
    for i in 0..players {
        let j: Value = c
            .post(format!("{base}/games/{id}/seats"))
            .json(&json!({"name": format!("p{i}")}))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        tokens.push(j["player_token"].as_str().unwrap().to_string());
    }
    let started: Value = c
        .post(format!("{base}/games/{id}/start"))
        .bearer_auth(g["host_token"].as_str().unwrap())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    (id, tokens, started["awaited"].as_u64())
}

/// The `p` percentile of `sorted` latencies, in milliseconds (0 for none).
pub fn percentile(sorted: &[Duration], p: f64) -> f64 {
    sorted
        .get(((sorted.len() as f64 * p) as usize).min(sorted.len().saturating_sub(1)))
        .map_or(0.0, |d| d.as_secs_f64() * 1e3)
}
