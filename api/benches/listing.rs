//! Listing many games: pages through `GET /games` over `LISTING_GAMES` games (default 14,000)
//! on the embedded SQLite store, one in `LISTING_FINISHED_EVERY` (default 14) played to its end
//! by random bots, and prints the time it took, the process's resident memory before and
//! after, and how many games the server holds in memory afterwards (a listing reads only the
//! games table, the credentials and the finished games' winners: it should load none). Then
//! the same for the finished games alone (`?status=finished`), each listed with its winners.
//!
//! `cargo bench -p saboteur-api --bench listing`

use std::time::Instant;

use serde_json::{Value, json};

mod common;
use common::rss_mib;

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let games: usize = std::env::var("LISTING_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(14_000);
    let every: usize = std::env::var("LISTING_FINISHED_EVERY")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(14);
    let dir = tempfile::tempdir().expect("a temporary folder");
    let url = format!("sqlite://{}", dir.path().join("listing.db").display());
    let (server, addr) = saboteur_api::start(saboteur_api::Config {
        // Every game a lobby a while: the total of lobbies is raised to hold them all.
        limits: saboteur_api::Limits {
            off: true,
            lobbies: games,
            ..saboteur_api::Limits::default()
        },
        ..saboteur_api::Config::new("127.0.0.1:0", url)
    })
    .await
    .expect("the server starts");
    tokio::spawn(server);
    let base = format!("http://{addr}");
    let http = reqwest::Client::new();
    let started = Instant::now();
    let makers: Vec<_> = (0..8)
        .map(|w| {
            let http = http.clone();
            let base = base.clone();
            tokio::spawn(async move {
                for i in (w..games).step_by(8) {
                    let every = every.max(1);
                    let players = 3 + (i % 8) as u8;
                    let r = http
                        .post(format!("{base}/games"))
                        .json(&json!({ "ruleset": "base", "players": players }))
                        .send()
                        .await
                        .expect("create");
                    assert!(r.status().is_success(), "create: {}", r.status());
                    if i % every == 0 {
                        let created: Value = r.json().await.expect("JSON");
                        played_by_bots(&http, &base, &created, players).await;
                    }
                }
            })
        })
        .collect();
    for m in makers {
        m.await.expect("maker");
    }
    let finished = games.div_ceil(every.max(1));
    while count(&http, &base, "finished").await < finished {
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    println!(
        "created {games} games, {finished} of them played to their end by bots, in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let before = rss_mib();
    let (listed, took) = list(&http, &base, "").await;
    let health: Value = http
        .get(format!("{base}/healthz"))
        .send()
        .await
        .expect("health")
        .json()
        .await
        .expect("JSON");
    println!(
        "listed {listed} games in {took:.2} s ({:.1} ms a page of 100); resident memory {before:.0} MiB before, {:.0} MiB after; games held in memory after: {}",
        took * 1000.0 / (listed as f64 / 100.0).max(1.0),
        rss_mib(),
        health["cached_games"]
    );
    let (listed, took) = list(&http, &base, "&status=finished").await;
    println!(
        "listed the {listed} finished games, each with its winners, in {took:.2} s ({:.1} ms a page of 100)",
        took * 1000.0 / (listed as f64 / 100.0).max(1.0),
    );
}

/// Seats random bots in every seat of a game just created, and starts it: the bots play it
/// to its end.
async fn played_by_bots(http: &reqwest::Client, base: &str, created: &Value, players: u8) {
    let id = created["game_id"].as_str().expect("an id");
    let host = created["host_token"].as_str().expect("a host token");
    for _ in 0..players {
        let r = http
            .post(format!("{base}/games/{id}/bots"))
            .bearer_auth(host)
            .json(&json!({ "level": "random" }))
            .send()
            .await
            .expect("a bot");
        assert!(r.status().is_success(), "a bot seated");
    }
    let r = http
        .post(format!("{base}/games/{id}/start"))
        .bearer_auth(host)
        .send()
        .await
        .expect("start");
    assert!(r.status().is_success(), "started");
}

/// How many games of `status` are listed.
async fn count(http: &reqwest::Client, base: &str, status: &str) -> usize {
    list(http, base, &format!("&status={status}")).await.0
}

/// Pages through `GET /games?limit=100{filter}`: how many games, and how long it took. A
/// finished game is listed with its winners.
async fn list(http: &reqwest::Client, base: &str, filter: &str) -> (usize, f64) {
    let started = Instant::now();
    let mut listed = 0;
    let mut cursor: Option<String> = None;
    loop {
        let url = match &cursor {
            Some(c) => format!("{base}/games?limit=100&cursor={c}{filter}"),
            None => format!("{base}/games?limit=100{filter}"),
        };
        let page: Value = http
            .get(url)
            .send()
            .await
            .expect("a page")
            .json()
            .await
            .expect("JSON");
        let games = page["games"].as_array().cloned().unwrap_or_default();
        for g in &games {
            assert_eq!(
                g["status"] == "finished",
                g["winners"].is_array(),
                "winners with a finished game only: {g}"
            );
        }
        listed += games.len();
        match page["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
    }
    (listed, started.elapsed().as_secs_f64())
}
