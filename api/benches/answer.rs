//! A person's command against bots: the time of `POST /commands` for the one person at a
//! 4-seat base table of three random bots and at one of three expert bots, games of each
//! played in turn, the server on a throwaway SQLite store (a person waits for the server's
//! work, which the store does not change). Prints p50 and p99 of each and their ratio: the
//! server answers a person before an expert thinks, so the two are alike.
//!
//! `cargo bench -p saboteur-api --bench answer` — `ANSWER_COMMANDS` (default 200 per level)
//! tunes it.

use std::time::{Duration, Instant};

use reqwest::Client;
use serde_json::{Value, json};

/// A started game of the person at seat 0 and three bots of `level`: its id and the person's
/// token.
async fn new_game(c: &Client, base: &str, level: &str, seed: u64) -> (String, String) {
    let post = |path: String, token: Option<&str>, body: Value| {
        let mut r = c.post(format!("{base}{path}"));
        if !body.is_null() {
            r = r.json(&body);
        }
        if let Some(token) = token {
            r = r.bearer_auth(token);
        }
        async move { r.send().await.unwrap().json::<Value>().await.unwrap() }
    };
    let body = json!({"ruleset": "base", "players": 4, "seed": format!("{seed:064x}")});
    let g = post("/games".into(), None, body).await;
    let id = g["game_id"].as_str().unwrap().to_string();
    let host = g["host_token"].as_str().unwrap().to_string();
    let me = post(format!("/games/{id}/seats"), None, json!({"name": "Ada"})).await;
    for _ in 0..3 {
        post(
            format!("/games/{id}/bots"),
            Some(&host),
            json!({"level": level}),
        )
        .await;
    }
    post(format!("/games/{id}/start"), Some(&host), Value::Null).await;
    (id, me["player_token"].as_str().unwrap().to_string())
}

/// `GET url` (with `token`), its JSON body.
async fn read(c: &Client, url: &str, token: Option<&str>) -> Value {
    let mut r = c.get(url);
    if let Some(token) = token {
        r = r.bearer_auth(token);
    }
    r.send().await.unwrap().json().await.unwrap()
}

/// The person's legal commands once it is their turn; `None` when the game is over.
async fn my_turn(c: &Client, base: &str, id: &str, token: &str) -> Option<(Vec<Value>, i64)> {
    loop {
        let moves = read(c, &format!("{base}/games/{id}/legal-moves"), Some(token)).await;
        let list = moves["commands"].as_array().cloned().unwrap_or_default();
        if !list.is_empty() {
            return Some((list, moves["version"].as_i64().unwrap_or(0)));
        }
        let game = read(c, &format!("{base}/games/{id}"), None).await;
        if game["status"] != "active" {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Plays `commands` of the person's commands against bots of `level`, game after game: the
/// time of each `POST /commands`.
async fn play(c: &Client, base: &str, level: &str, commands: usize, seed: u64) -> Vec<Duration> {
    let mut times = Vec::new();
    let mut game = seed;
    while times.len() < commands {
        let (id, token) = new_game(c, base, level, game).await;
        game += 1;
        let mut n = 0;
        while let Some((list, version)) = my_turn(c, base, &id, &token).await {
            let command = &list[n * 7919 % list.len()];
            n += 1;
            let asked = Instant::now();
            let r = c
                .post(format!("{base}/games/{id}/commands"))
                .bearer_auth(&token)
                .header("If-Match", format!("\"{version}\""))
                .json(command)
                .send()
                .await
                .unwrap();
            let ok = r.status().is_success();
            let _ = r.bytes().await;
            if ok {
                times.push(asked.elapsed());
            }
            if times.len() >= commands {
                break;
            }
        }
    }
    times
}

fn ms(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 * p) as usize).min(sorted.len().saturating_sub(1));
    sorted.get(i).map_or(0.0, |d| d.as_secs_f64() * 1e3)
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let commands: usize = std::env::var("ANSWER_COMMANDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let dir = tempfile::tempdir().unwrap();
    let url = format!(
        "sqlite://{}?mode=rwc",
        dir.path().join("answer.db").display()
    );
    let config = saboteur_api::Config {
        limits: saboteur_api::Limits {
            off: true,
            ..saboteur_api::Limits::default()
        },
        allow_fixed_seed: true,
        ..saboteur_api::Config::new("127.0.0.1:0", url)
    };
    let (server, addr) = saboteur_api::start(config)
        .await
        .expect("the server starts");
    tokio::spawn(server);
    let base = format!("http://{addr}");
    let c = Client::new();
    // In turn, a tenth at a time, so whatever else the machine does weighs on both alike.
    let (mut random, mut expert) = (Vec::new(), Vec::new());
    let step = (commands / 10).max(1);
    for round in 0..10u64 {
        random.extend(play(&c, &base, "random", step, 1_000 + round * 100).await);
        expert.extend(play(&c, &base, "expert", step, 1_000 + round * 100).await);
    }
    random.sort();
    expert.sort();
    let (r50, r99, e50, e99) = (
        ms(&random, 0.5),
        ms(&random, 0.99),
        ms(&expert, 0.5),
        ms(&expert, 0.99),
    );
    println!("a person's command at a table of three bots, on SQLite:");
    println!(
        "  random: {} commands, p50 {r50:.1} ms, p99 {r99:.1} ms",
        random.len()
    );
    println!(
        "  expert: {} commands, p50 {e50:.1} ms, p99 {e99:.1} ms",
        expert.len()
    );
    println!(
        "  p99 against experts / against random bots: {:.2}",
        e99 / r99.max(1e-9)
    );
}
