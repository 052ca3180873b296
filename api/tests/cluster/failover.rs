//! The primary killed with SIGKILL under load (`cluster.sh kill-primary`), twice, the old primary
//! rejoining as a synchronous standby in between: writes come back within the bound, and every
//! command acknowledged around the failover is kept.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use reqwest::{Client, StatusCode};
use serde_json::json;

use crate::harness::{mixed_games, send};
use crate::{Cluster, FAILOVER_BOUND, Games, all_kept, clocked_game, under_load};

/// The primary killed under load, twice (the old primary rejoining as a standby in between).
pub async fn failovers(
    cluster: &Cluster,
    c: &Client,
    round: &mut impl FnMut(Games) -> Games,
    clocked: &mut Vec<String>,
) {
    let front = cluster.front();
    let games = round(mixed_games(c, &front, 4, 500).await);
    failover(cluster, c, &games, 1).await;
    // The old primary comes back as a standby by itself (Patroni's rewind), and a second
    // failover passes the same checks.
    let rejoining = Instant::now();
    cluster.command("wait-sync");
    eprintln!(
        "the old primary rejoined as a synchronous standby after {:?}",
        rejoining.elapsed()
    );
    let games = round(mixed_games(c, &front, 4, 600).await);
    clocked.push(clocked_game(c, &front, 801).await);
    failover(cluster, c, &games, 2).await;
    cluster.command("wait-sync");
}

/// Kills the primary's PostgreSQL under load and checks what the clients saw; how long writes
/// were refused.
async fn failover(
    cluster: &Cluster,
    c: &Client,
    games: &[(String, String)],
    round: u64,
) -> Duration {
    let front = cluster.front();
    let refused = Arc::new(Mutex::new(Duration::ZERO));
    let took = refused.clone();
    let acked = under_load(c, &front, games, round, async {
        let killed = Instant::now();
        eprintln!("{}", cluster.command("kill-primary").trim());
        // Writes come back: a game is created through HAProxy.
        loop {
            let reply = send(
                c.post(front.url("/games"))
                    .json(&json!({"ruleset": "base", "players": 3})),
            )
            .await;
            if let Some((StatusCode::CREATED, _, _)) = reply {
                break;
            }
            assert!(
                killed.elapsed() < FAILOVER_BOUND,
                "writes still refused after {FAILOVER_BOUND:?}: {reply:?}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        *took.lock().unwrap() = killed.elapsed();
    })
    .await;
    let refused = *refused.lock().unwrap();
    eprintln!(
        "failover {round}: writes refused for {refused:?}; {} commands acknowledged around it",
        acked.len()
    );
    assert!(acked.len() >= games.len(), "the load made too few moves");
    all_kept(c, &front, &acked).await;
    eprintln!("{}", cluster.command("status"));
    refused
}
