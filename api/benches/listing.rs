//! Listing many games: pages through `GET /games` over `LISTING_GAMES` games (default 14,000)
//! on the embedded SQLite store, and prints the time it took, the process's resident memory
//! before and after, and how many games the server holds in memory afterwards (a listing reads
//! only the games table and the credentials: it should load none).
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
    let dir = tempfile::tempdir().expect("a temporary folder");
    let url = format!("sqlite://{}", dir.path().join("listing.db").display());
    let (server, addr) = saboteur_api::start(saboteur_api::Config {
        limits: saboteur_api::Limits {
            off: true,
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
                    let players = 3 + (i % 8) as u8;
                    let r = http
                        .post(format!("{base}/games"))
                        .json(&json!({ "ruleset": "base", "players": players }))
                        .send()
                        .await
                        .expect("create");
                    assert!(r.status().is_success());
                }
            })
        })
        .collect();
    for m in makers {
        m.await.expect("maker");
    }
    println!(
        "created {games} games in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let before = rss_mib();
    let started = Instant::now();
    let mut listed = 0;
    let mut cursor: Option<String> = None;
    loop {
        let url = match &cursor {
            Some(c) => format!("{base}/games?limit=100&cursor={c}"),
            None => format!("{base}/games?limit=100"),
        };
        let page: Value = http
            .get(url)
            .send()
            .await
            .expect("a page")
            .json()
            .await
            .expect("JSON");
        listed += page["games"].as_array().map_or(0, Vec::len);
        match page["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
    }
    let took = started.elapsed().as_secs_f64();
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
}
