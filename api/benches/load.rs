//! Load generator: K concurrent games played through HTTP against a server on PostgreSQL,
//! one client per game acting for whichever seat is to move. Reports commands per second and
//! the latency of `POST /commands` (p50, p99), beside the raw INSERT ceiling of the same
//! database measured in the same run.
//!
//! `cargo bench -p saboteur-api --bench load` — `DATABASE_URL`, or a throwaway cluster with
//! durable writes. `LOAD_CLIENTS` (default 64) and `LOAD_SECONDS` (default 20) tune it.
//! `LOAD_URL` drives servers already running instead (e.g. HAProxy's HTTP front of
//! `cargo xtask cluster up`, whose servers need `--no-limits`); the INSERT ceiling is then
//! measured on `DATABASE_URL` when it is given.

use std::time::{Duration, Instant};

use reqwest::Client;
use serde_json::{Value, json};
use sqlx::postgres::PgPoolOptions;

/// Plays games one after another until the deadline; returns each command's latency. Like a
/// lean client: per command one `GET /legal-moves` and the `POST`, whose reply names the seat
/// awaited next.
async fn client(base: String, deadline: Instant, n: usize) -> Vec<Duration> {
    let c = Client::new();
    let mut latencies = Vec::new();
    let (mut id, mut tokens, mut awaited) = new_game(&c, &base, 4).await;
    let mut k = n;
    while Instant::now() < deadline {
        let Some(seat) = awaited else {
            (id, tokens, awaited) = new_game(&c, &base, 4).await;
            continue;
        };
        let token = &tokens[seat as usize];
        let moves = legal_moves(&c, &base, &id, token).await;
        let list = moves["commands"].as_array().unwrap();
        if list.is_empty() {
            // Read through another process that has not heard of the last move yet (behind a
            // load balancer): read again.
            tokio::time::sleep(Duration::from_millis(2)).await;
            continue;
        }
        k = k
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let command = &list[(k >> 33) % list.len()];
        let started = Instant::now();
        let r = c
            .post(format!("{base}/games/{id}/commands"))
            .bearer_auth(token)
            .json(command)
            .send()
            .await
            .unwrap();
        let ok = r.status().is_success();
        let out: Value = r.json().await.unwrap_or(Value::Null);
        if ok {
            latencies.push(started.elapsed());
            awaited = out["awaited"].as_u64();
        }
    }
    latencies
}

async fn raw_inserts(url: &str, writers: usize, seconds: u64) -> f64 {
    let pool = PgPoolOptions::new()
        .max_connections(32)
        .test_before_acquire(false)
        .connect(url)
        .await
        .unwrap();
    sqlx::raw_sql("DROP TABLE IF EXISTS raw_events; CREATE TABLE raw_events (id BIGSERIAL PRIMARY KEY, game_id TEXT NOT NULL, payload JSONB NOT NULL)")
        .execute(&pool)
        .await
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let started = Instant::now();
    let tasks: Vec<_> = (0..writers)
        .map(|w| {
            let pool = pool.clone();
            tokio::spawn(async move {
                let mut n = 0u64;
                while Instant::now() < deadline {
                    sqlx::query("INSERT INTO raw_events (game_id, payload) VALUES ($1, $2)")
                        .bind(format!("w{w}"))
                        .bind(sqlx::types::Json(
                            json!({"type": "path_played", "seat": w % 4, "note": "x".repeat(200)}),
                        ))
                        .execute(&pool)
                        .await
                        .unwrap();
                    n += 1;
                }
                n
            })
        })
        .collect();
    let mut total = 0;
    for t in tasks {
        total += t.await.unwrap();
    }
    total as f64 / started.elapsed().as_secs_f64()
}

mod common;
mod games;
use common::rss_mib;
use games::{legal_moves, new_game, percentile};

/// Prints, every `every` seconds until `deadline`: elapsed time, resident memory, and what
/// `/healthz` says the server holds.
async fn samples(base: String, deadline: Instant, every: u64) {
    let http = reqwest::Client::new();
    let started = Instant::now();
    while Instant::now() + Duration::from_secs(every) < deadline {
        tokio::time::sleep(Duration::from_secs(every)).await;
        let health: Value = match http.get(format!("{base}/healthz")).send().await {
            Ok(r) => r.json().await.unwrap_or(Value::Null),
            Err(_) => Value::Null,
        };
        println!(
            "t={:>4.0}s rss={:.0} MiB cached_games={} cache_bytes={}",
            started.elapsed().as_secs_f64(),
            rss_mib(),
            health["cached_games"],
            health["cache_bytes"]
        );
    }
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let clients: usize = std::env::var("LOAD_CLIENTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64);
    let seconds: u64 = std::env::var("LOAD_SECONDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let cluster;
    let given = std::env::var("LOAD_URL").ok();
    let url = match std::env::var("DATABASE_URL") {
        Ok(url) => Some(url),
        Err(_) if given.is_some() => None,
        Err(_) => {
            cluster = saboteur_storage::testing::DurableCluster::start();
            Some(cluster.url())
        }
    };
    let base = match (given, &url) {
        (Some(base), _) => base,
        (None, Some(url)) => {
            let config = saboteur_api::Config {
                // 64 clients from one address: the per-client limits are switched off.
                limits: saboteur_api::Limits {
                    off: true,
                    ..saboteur_api::Limits::default()
                },
                ..saboteur_api::Config::new("127.0.0.1:0", url.clone())
            };
            let (server, addr) = saboteur_api::start(config)
                .await
                .expect("the server starts");
            tokio::spawn(server);
            format!("http://{addr}")
        }
        (None, None) => unreachable!("a database is started when none is given"),
    };
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let started = Instant::now();
    let tasks: Vec<_> = (0..clients)
        .map(|n| tokio::spawn(client(base.clone(), deadline, n)))
        .collect();
    // A soak (e.g. LOAD_SECONDS=600) shows memory over time: the process's resident size and
    // the server's estimate of the games it holds, every LOAD_SAMPLE seconds.
    let sample: u64 = std::env::var("LOAD_SAMPLE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(60);
    let sampler = tokio::spawn(samples(base.clone(), deadline, sample));
    let mut latencies = Vec::new();
    for t in tasks {
        latencies.extend(t.await.unwrap());
    }
    let elapsed = started.elapsed().as_secs_f64();
    sampler.abort();
    latencies.sort();
    println!("clients: {clients}, seconds: {seconds}");
    println!(
        "commands: {} ({:.0} commands/s)",
        latencies.len(),
        latencies.len() as f64 / elapsed
    );
    println!(
        "POST /commands latency: p50 {:.1} ms, p99 {:.1} ms",
        percentile(&latencies, 0.50),
        percentile(&latencies, 0.99)
    );
    if let Some(url) = url {
        let raw = raw_inserts(&url, clients, 5).await;
        println!("raw INSERT ceiling, {clients} writers, same database: {raw:.0}/s");
    }
}
