//! Concurrent writers on the embedded SQLite store: each writer appends one ~300-byte event at
//! a time to its own game, on a file in a throwaway directory on disk (WAL, the store's
//! settings); appends per second and the p50 / p99 / max time of one append, for 1, 4 and 16
//! writers. SQLite has one writer at a time: this measures how the store's writers take turns.
//!
//! `cargo bench -p saboteur-storage --bench sqlite_writers`

mod common;

use std::time::{Duration, Instant};

use saboteur_storage::{AppendOutcome, EventStore};

/// The appends of `writers` writers, `per_writer` each: (appends/s, every append's time).
async fn run(store: &EventStore, writers: usize, per_writer: usize) -> (f64, Vec<Duration>) {
    let mut games = Vec::new();
    for _ in 0..writers {
        games.push(common::empty_game(store).await);
    }
    let started = Instant::now();
    let tasks: Vec<_> = games
        .into_iter()
        .enumerate()
        .map(|(w, id)| {
            let store = store.clone();
            tokio::spawn(async move {
                let (mut hash, mut times) = (saboteur_storage::GENESIS.to_string(), Vec::new());
                for n in 0..per_writer {
                    let t = Instant::now();
                    let out = store
                        .append(common::one_event(&id, (w, n), &hash, "w"))
                        .await
                        .expect("append");
                    times.push(t.elapsed());
                    let AppendOutcome::Appended { last_hash, .. } = out else {
                        panic!("refused")
                    };
                    hash = last_hash;
                }
                times
            })
        })
        .collect();
    let mut times = Vec::new();
    for t in tasks {
        times.extend(t.await.expect("writer"));
    }
    let rate = times.len() as f64 / started.elapsed().as_secs_f64();
    (rate, times)
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let dir = tempfile::tempdir().expect("a directory");
    let url = format!("sqlite://{}", dir.path().join("bench.db").display());
    let store = EventStore::connect(&url).await.expect("connect");
    println!("writers | appends/s | p50 ms | p99 ms | max ms");
    for (writers, total) in [(1usize, 1000usize), (4, 2000), (16, 4000)] {
        let (rate, mut times) = run(&store, writers, total / writers).await;
        times.sort_unstable();
        let at = |q: f64| times[((times.len() as f64 * q) as usize).min(times.len() - 1)];
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        println!(
            "{writers:>7} | {rate:>9.0} | {:>6.2} | {:>6.2} | {:>6.2}",
            ms(at(0.5)),
            ms(at(0.99)),
            ms(*times.last().expect("an append"))
        );
    }
}
