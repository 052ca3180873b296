//! The consensus store lost: every etcd member stopped for a while under load
//! (`cluster.sh stop-etcd`, `start-etcd`), while a spectator reads a live table and a finished
//! game's replay and audit through HAProxy. With `failsafe_mode` the primary keeps running (it
//! reaches the standby's Patroni); with the standby's machine stalled too it cannot, and Patroni
//! demotes it: the database is read-only until etcd is back. Either way every read is answered
//! 200, every write is recorded or refused 503 with `Retry-After` (never 500, never HAProxy's
//! own 503), and once etcd is back writes resume and every acknowledged command is in its place.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use reqwest::{Client, StatusCode};
use serde_json::json;

use crate::harness::{Remote, send};
use crate::{Cluster, FAILOVER_BOUND, all_kept, run, under_load};

fn epoch() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

/// What the spectator saw: each read's path and status, and how long the slowest took.
#[derive(Default)]
struct Reads {
    answered: u64,
    wrong: Vec<String>,
    slowest: Duration,
}

/// Reads the live table's state and events and the finished game's replay (a view at an earlier
/// version), state and audit through HAProxy, one after another, until `stop`.
async fn spectate(
    c: Client,
    front: Remote,
    live: String,
    finished: String,
    stop: Arc<AtomicBool>,
) -> Reads {
    let paths = [
        format!("/games/{live}/state"),
        format!("/games/{live}/events?limit=50"),
        format!("/games/{finished}/state?at=5"),
        format!("/games/{finished}/state"),
        format!("/games/{finished}/audit"),
        "/games?status=finished&limit=5".to_string(),
    ];
    let mut reads = Reads::default();
    while !stop.load(Ordering::Relaxed) {
        for path in &paths {
            let started = Instant::now();
            let reply = c.get(front.url(path)).send().await;
            reads.slowest = reads.slowest.max(started.elapsed());
            reads.answered += 1;
            match reply {
                Ok(r) if r.status() == StatusCode::OK => {
                    let _ = r.bytes().await;
                }
                Ok(r) => {
                    let st = r.status();
                    let body = r.text().await.unwrap_or_default();
                    reads.wrong.push(format!("{path}: {st} {body}"));
                }
                Err(e) => reads.wrong.push(format!("{path}: {e}")),
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    reads
}

/// What the writer saw: the times of the games created, and any answer that was neither a
/// 201 nor a 503 problem with `Retry-After`.
#[derive(Default)]
struct Writes {
    created: Vec<f64>,
    refused: u64,
    wrong: Vec<String>,
}

/// Creates games through HAProxy, one after another, until `stop`.
async fn write(c: Client, front: Remote, stop: Arc<AtomicBool>) -> Writes {
    let mut writes = Writes::default();
    while !stop.load(Ordering::Relaxed) {
        let reply = send(
            c.post(front.url("/games"))
                .json(&json!({"ruleset": "base", "players": 3})),
        )
        .await;
        match reply {
            Some((StatusCode::CREATED, _, _)) => writes.created.push(epoch()),
            Some((StatusCode::SERVICE_UNAVAILABLE, body, headers))
                if headers.contains_key("retry-after")
                    && headers
                        .get("content-type")
                        .is_some_and(|t| t == "application/problem+json")
                    && body["code"] == "unavailable" =>
            {
                writes.refused += 1
            }
            // A connection cut while a server's database connections were cut: sent again.
            None => writes.refused += 1,
            Some((st, body, _)) => writes.wrong.push(format!("{st} {body}")),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    writes
}

/// Whether the node whose REST API is `rest` answers 200 on `/primary` within half a second
/// (Patroni's own word that it is the primary).
async fn is_primary(probe: &Client, rest: &str) -> bool {
    probe
        .get(format!("{rest}/primary"))
        .timeout(Duration::from_millis(500))
        .send()
        .await
        .is_ok_and(|r| r.status() == StatusCode::OK)
}

/// The node Patroni has as the standby now (`node1` or `node2`, their REST APIs `rests`): the
/// other one answers 200 on `/primary`. Asked again until one does (a failover of the step
/// before may still be settling).
async fn standby(probe: &Client, rests: [&str; 2]) -> &'static str {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        for (rest, other) in rests.into_iter().zip(["node2", "node1"]) {
            if is_primary(probe, rest).await {
                return other;
            }
        }
        assert!(Instant::now() < deadline, "no node answers 200 on /primary");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// Whether a node of `rests` (their REST APIs) answered 200 on `/primary` at every look, twice a
/// second for `seconds`.
async fn always_a_primary(probe: &Client, rests: [&str; 2], seconds: u64) -> bool {
    let until = Instant::now() + Duration::from_secs(seconds);
    let mut always = true;
    while Instant::now() < until {
        let mut primary = false;
        for rest in rests {
            primary |= is_primary(probe, rest).await;
        }
        always &= primary;
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    always
}

/// What one loss of etcd did.
pub struct Lost {
    /// The longest time between two games created from the loss until writes resumed.
    pub refused: Duration,
    /// Whether the database was read-only at some point (the primary demoted).
    pub demoted: bool,
}

/// Stops every etcd member for `seconds` while the games are played from seat 0 through HAProxy
/// and a spectator reads `live` and the finished game `finished`; with `stall_standby`, the
/// standby's machine stalls for the same time, so the primary cannot stay primary.
pub async fn lose_etcd(
    cluster: &Cluster,
    c: &Client,
    games: &[(String, String)],
    (live, finished): (&str, &str),
    round: u64,
    seconds: u64,
    stall_standby: bool,
) -> Lost {
    let front = cluster.front();
    let stop = Arc::new(AtomicBool::new(false));
    let spectator = tokio::spawn(spectate(
        c.clone(),
        front.clone(),
        live.to_string(),
        finished.to_string(),
        stop.clone(),
    ));
    let writer = tokio::spawn(write(c.clone(), front.clone(), stop.clone()));
    let demoted = Arc::new(AtomicBool::new(false));
    let window = Arc::new(Mutex::new((0.0, 0.0)));
    let (seen, span) = (demoted.clone(), window.clone());
    let dir = cluster.dir.to_str().unwrap().to_string();
    let (rest1, rest2) = (
        cluster.get("NODE1_REST").to_string(),
        cluster.get("NODE2_REST").to_string(),
    );
    let acked = under_load(c, &front, games, round, async move {
        let probe = Client::new();
        // The standby, named while etcd still answers: once it is lost, the primary may be
        // demoted at any moment, and then no node says which one it was.
        let standby = if stall_standby {
            Some(standby(&probe, [&rest1, &rest2]).await)
        } else {
            None
        };
        let d = dir.clone();
        let said = tokio::task::spawn_blocking(move || run(&["stop-etcd", "--dir", &d]))
            .await
            .unwrap();
        eprintln!("{}", said.trim());
        let lost = epoch();
        let stall = standby.map(|node| {
            let (d, secs) = (dir.clone(), seconds.to_string());
            tokio::task::spawn_blocking(move || {
                run(&[
                    "pause-standby",
                    "--dir",
                    &d,
                    "--seconds",
                    &secs,
                    "--member",
                    node,
                ])
            })
        });
        // Meanwhile: is any node the primary? (Patroni's own answer.)
        if !always_a_primary(&probe, [&rest1, &rest2], seconds).await {
            seen.store(true, Ordering::Relaxed);
        }
        if let Some(stall) = stall {
            eprintln!("{}", stall.await.unwrap().trim());
        }
        let d = dir.clone();
        let said = tokio::task::spawn_blocking(move || run(&["start-etcd", "--dir", &d]))
            .await
            .unwrap();
        eprintln!("{}", said.trim());
        *span.lock().unwrap() = (lost, epoch());
    })
    .await;
    // Writes resume: a game created after etcd is back.
    let back = Instant::now();
    loop {
        let created = send(
            c.post(front.url("/games"))
                .json(&json!({"ruleset": "base", "players": 3})),
        )
        .await;
        if let Some((StatusCode::CREATED, _, _)) = created {
            break;
        }
        assert!(
            back.elapsed() < FAILOVER_BOUND,
            "writes still refused {FAILOVER_BOUND:?} after etcd came back: {created:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let resumed = epoch();
    stop.store(true, Ordering::Relaxed);
    let reads = spectator.await.unwrap();
    let writes = writer.await.unwrap();
    let (lost, _) = *window.lock().unwrap();
    // The longest stretch without a game created, from the loss until writes resumed.
    let mut times: Vec<f64> = writes
        .created
        .iter()
        .copied()
        .filter(|t| *t >= lost && *t <= resumed)
        .collect();
    times.insert(0, lost);
    times.push(resumed);
    let refused = times.windows(2).map(|w| w[1] - w[0]).fold(0.0, f64::max);
    let refused = Duration::from_secs_f64(refused);
    cluster.command("wait-sync");
    assert!(acked.len() >= games.len(), "the load made too few moves");
    all_kept(c, &front, &acked).await;
    let demoted = demoted.load(Ordering::Relaxed);
    eprintln!(
        "etcd lost {seconds} s{}: {} reads answered, {} not 200 (slowest {:?}); {} games \
         created, {} writes refused with 503, longest without a write {refused:?}; the primary \
         {}; {} commands acknowledged around it, all kept",
        if stall_standby {
            " with the standby stalled"
        } else {
            ""
        },
        reads.answered,
        reads.wrong.len(),
        reads.slowest,
        writes.created.len(),
        writes.refused,
        if demoted {
            "was demoted"
        } else {
            "stayed the primary throughout"
        },
        acked.len()
    );
    assert!(
        reads.wrong.is_empty(),
        "reads not answered 200 while etcd was lost: {:?}",
        &reads.wrong[..reads.wrong.len().min(10)]
    );
    assert!(
        reads.answered > seconds * 2,
        "the spectator read too little"
    );
    assert!(
        writes.wrong.is_empty(),
        "writes answered neither 201 nor 503 with Retry-After: {:?}",
        &writes.wrong[..writes.wrong.len().min(10)]
    );
    eprintln!("{}", cluster.command("status"));
    Lost { refused, demoted }
}
