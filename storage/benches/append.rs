//! Append throughput of the event store on PostgreSQL, beside a raw baseline, and the time to
//! load and fold a 300-event game.
//!
//! `cargo bench -p saboteur-storage --bench append` — uses `DATABASE_URL` if set, otherwise a
//! throwaway cluster with durable writes (fsync on). One run measures both, so their ratio is
//! meaningful on a noisy machine.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use saboteur_storage::testing::DurableCluster;
use saboteur_storage::{Append, AppendOutcome, EventStore, NewEvent, Version, to_new_event};
use sqlx::postgres::PgPoolOptions;

async fn store_rate(store: &EventStore, writers: usize, per_writer: usize, tag: &str) -> f64 {
    let mut games = Vec::new();
    for _ in 0..writers {
        games.push(common::empty_game(store).await);
    }
    let started = Instant::now();
    let tasks: Vec<_> = (0..writers)
        .map(|w| {
            let store = store.clone();
            let id = games[w].clone();
            let tag = tag.to_string();
            tokio::spawn(async move {
                let mut hash = saboteur_storage::GENESIS.to_string();
                for n in 0..per_writer {
                    let out = store
                        .append(common::one_event(&id, (w, n), &hash, &tag))
                        .await
                        .expect("append");
                    let AppendOutcome::Appended { last_hash, .. } = out else {
                        panic!("duplicate")
                    };
                    hash = last_hash;
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.expect("writer");
    }
    (writers * per_writer) as f64 / started.elapsed().as_secs_f64()
}

async fn raw_rate(pool: &sqlx::PgPool, writers: usize, per_writer: usize, tag: &str) -> f64 {
    let started = Instant::now();
    let tasks: Vec<_> = (0..writers)
        .map(|w| {
            let pool = pool.clone();
            let id = format!("{tag}-{w}");
            tokio::spawn(async move {
                for n in 0..per_writer {
                    sqlx::query("INSERT INTO raw_events (game_id, payload) VALUES ($1, $2)")
                        .bind(&id)
                        .bind(sqlx::types::Json(common::payload(w, n)))
                        .execute(&pool)
                        .await
                        .expect("insert");
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.expect("writer");
    }
    (writers * per_writer) as f64 / started.elapsed().as_secs_f64()
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let cluster;
    let url = match std::env::var("DATABASE_URL") {
        Ok(url) => url,
        Err(_) => {
            cluster = DurableCluster::start();
            cluster.url()
        }
    };
    let store = EventStore::connect(&url).await.expect("connect");
    let raw = PgPoolOptions::new()
        .max_connections(32)
        .test_before_acquire(false)
        .connect(&url)
        .await
        .expect("connect");
    sqlx::raw_sql(
        "DROP TABLE IF EXISTS raw_events; \
         CREATE TABLE raw_events (id BIGSERIAL PRIMARY KEY, game_id TEXT NOT NULL, payload JSONB NOT NULL)",
    )
    .execute(&raw)
    .await
    .expect("baseline table");
    let run = std::process::id();
    println!("writers | store appends/s | raw INSERTs/s | store/raw");
    let mut results = Vec::new();
    for (writers, total) in [(1usize, 2000usize), (16, 16000), (64, 16000)] {
        let per = total / writers;
        // Interleave to share the machine's noise: raw, store, raw, store, …; keep the best of
        // each.
        let mut best = (0f64, 0f64);
        for round in 0..3 {
            let r = raw_rate(&raw, writers, per, &format!("raw{run}-{writers}-{round}")).await;
            let s = store_rate(&store, writers, per, &format!("st{run}-{writers}-{round}")).await;
            best = (best.0.max(s), best.1.max(r));
        }
        println!(
            "{writers:>7} | {:>15.0} | {:>13.0} | {:>8.0}%",
            best.0,
            best.1,
            100.0 * best.0 / best.1
        );
        results.push((writers, best));
    }
    // Load and fold a 300-event game.
    let log = saboteur_domain::bot::random_game(
        saboteur_domain::Ruleset::Base,
        saboteur_domain::Options::default(),
        4,
        saboteur_domain::Seed::from_u64(1),
    );
    let log: Vec<_> = log.into_iter().take(300).collect();
    let id = common::empty_game(&store).await;
    let events: Vec<NewEvent> = log.iter().map(to_new_event).collect();
    store
        .append(Append {
            game_id: id.clone(),
            expected_version: Version::of(0),
            prev_hash: None,
            events,
            command_id: None,
            status: None,
            bot_awaited: false,
            deadline: None,
            token: None,
        })
        .await
        .expect("append");
    let store = Arc::new(store);
    let runs = 200;
    let started = Instant::now();
    for _ in 0..runs {
        let h = store.load_history(&id).await.expect("load");
        assert_eq!(h.version(), log.len() as u64);
    }
    let each: Duration = started.elapsed() / runs;
    println!(
        "load and fold a {}-event game: {:.2} ms ({:.0} games/s)",
        log.len(),
        each.as_secs_f64() * 1e3,
        1.0 / each.as_secs_f64()
    );
}
