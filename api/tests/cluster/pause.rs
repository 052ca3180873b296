//! A PostgreSQL node that stalls: its Patroni, postmaster and the postmaster's children stopped
//! with SIGSTOP for a while under load, then let go on (`cluster.sh pause-primary`,
//! `pause-standby`). Nothing acknowledged is lost, the writes wait no longer than stated, and
//! the cluster is back to a streaming synchronous standby by itself.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use reqwest::{Client, StatusCode};
use serde_json::json;

use crate::harness::{Remote, send};
use crate::{Cluster, FAILOVER_BOUND, all_kept, run, under_load};

/// Patroni's leader TTL (`deploy/patroni.yml.in`; Patroni 4 takes none under 20 s): a primary
/// stalled for less keeps its lock and no failover happens; stalled for longer, its standby is
/// promoted.
pub const TTL: Duration = Duration::from_secs(20);

/// The longest a write waits while the synchronous standby is stalled: the primary's walsender
/// gives the standby up after `wal_sender_timeout` (5 s), then Patroni's next loop (1 s) takes
/// it out of `synchronous_standby_names`. Measured 5.2–5.9 s.
pub const STANDBY_STALL_BOUND: Duration = Duration::from_secs(10);

fn epoch() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

/// The seconds since the epoch after `word` in the script's line that starts with `starts`
/// (`paused node1, the primary (14 processes) at 1795743684.76 for 30s`).
fn stamp(said: &str, starts: &str) -> f64 {
    let line = said
        .lines()
        .find(|l| l.starts_with(starts))
        .unwrap_or_else(|| panic!("no line starting {starts:?} in {said:?}"));
    let after = line.split(" at ").nth(1).unwrap();
    after.split_whitespace().next().unwrap().parse().unwrap()
}

/// Which node's Patroni answers 200 on `/primary`: 1, 2, or 0 for none.
async fn leader(c: &Client, cluster: &Cluster) -> u8 {
    for (n, key) in [(1, "NODE1_REST"), (2, "NODE2_REST")] {
        let url = format!("{}/primary", cluster.get(key));
        if let Ok(r) = c.get(url).timeout(Duration::from_secs(2)).send().await
            && r.status() == StatusCode::OK
        {
            return n;
        }
    }
    0
}

/// Creates games through HAProxy, one after another, until `stop`: the start and end of each
/// one created, in seconds since the epoch.
async fn probe_writes(c: Client, front: Remote, stop: Arc<AtomicBool>) -> Vec<(f64, f64)> {
    let mut done = Vec::new();
    while !stop.load(Ordering::Relaxed) {
        let started = epoch();
        let reply = send(
            c.post(front.url("/games"))
                .json(&json!({"ruleset": "base", "players": 3})),
        )
        .await;
        if let Some((StatusCode::CREATED, _, _)) = reply {
            done.push((started, epoch()));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    done
}

/// What one stall did.
pub struct Stalled {
    /// From the stall's start until a write begun after it was recorded.
    pub outage: Duration,
    /// Whether another node became the primary.
    pub failed_over: bool,
}

/// Stalls the primary's or the standby's node (`which`) for `seconds` — its Patroni, postmaster
/// and children, or with `postgres_only` the postmaster and children alone, Patroni going on —
/// while every game is played from seat 0 through HAProxy; checks that every acknowledged
/// command is kept.
pub async fn stall(
    cluster: &Cluster,
    c: &Client,
    games: &[(String, String)],
    round: u64,
    (which, postgres_only): (&str, bool),
    seconds: u64,
) -> Stalled {
    let front = cluster.front();
    let before = leader(c, cluster).await;
    assert_ne!(before, 0, "no primary before the stall");
    let stop = Arc::new(AtomicBool::new(false));
    let probe = tokio::spawn(probe_writes(c.clone(), front.clone(), stop.clone()));
    let said = Arc::new(Mutex::new(String::new()));
    let out = said.clone();
    let (dir, cmd) = (
        cluster.dir.to_str().unwrap().to_string(),
        format!("pause-{which}"),
    );
    let acked = under_load(c, &front, games, round, async move {
        let secs = seconds.to_string();
        let text = tokio::task::spawn_blocking(move || {
            let mut args = vec![cmd.as_str(), "--dir", &dir, "--seconds", &secs];
            if postgres_only {
                args.push("--postgres-only");
            }
            run(&args)
        })
        .await
        .unwrap();
        eprintln!("{}", text.trim());
        *out.lock().unwrap() = text;
    })
    .await;
    let said = said.lock().unwrap().clone();
    let (paused, resumed) = (stamp(&said, "paused"), stamp(&said, "resumed"));
    // Writes go on: a game created, begun after the node resumed.
    let waiting = Instant::now();
    let writes = loop {
        let created = send(
            c.post(front.url("/games"))
                .json(&json!({"ruleset": "base", "players": 3})),
        )
        .await;
        if let Some((StatusCode::CREATED, _, _)) = created {
            break epoch();
        }
        assert!(
            waiting.elapsed() < FAILOVER_BOUND,
            "writes still refused {FAILOVER_BOUND:?} after the node resumed: {created:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    stop.store(true, Ordering::Relaxed);
    let created = probe.await.unwrap();
    // Back to a streaming synchronous standby by itself.
    cluster.command("wait-sync");
    let resynced = Duration::from_secs_f64(epoch() - resumed);
    // The first write begun during the stall that was recorded, else the one just made.
    let first = created
        .iter()
        .filter(|(started, _)| *started >= paused)
        .map(|(_, finished)| *finished)
        .fold(writes, f64::min);
    let outage = Duration::from_secs_f64((first - paused).max(0.0));
    assert!(acked.len() >= games.len(), "the load made too few moves");
    all_kept(c, &front, &acked).await;
    let after = leader(c, cluster).await;
    eprintln!(
        "{which}{} stalled {seconds} s: writes waited {outage:?}; node{before} was the primary, \
         node{after} is; {} commands acknowledged around it, all kept; a synchronous standby \
         again {resynced:?} after it resumed",
        if postgres_only {
            "'s PostgreSQL alone"
        } else {
            ""
        },
        acked.len()
    );
    eprintln!("{}", cluster.command("status"));
    Stalled {
        outage,
        failed_over: after != before,
    }
}
