//! The production shape on one machine (`deploy/cluster.sh`): PostgreSQL with a synchronous
//! standby under Patroni and etcd, HAProxy in front of the database and of two server
//! processes. Under load through HAProxy, the primary is killed with SIGKILL, twice (the old
//! primary rejoining as a standby in between, `cluster/failover.rs`); the primary's machine
//! stalls (SIGSTOP) for 5 s and, twice, for longer than Patroni's TTL with 300 MB of WAL since its
//! last checkpoint (its WAL since then found in the archive), the standby's for 15 s
//! (`cluster/pause.rs`); every etcd member is stopped for 30 s, then again with the standby's
//! machine stalled, while a spectator reads (`cluster/etcd.rs`: every read answered, writes
//! recorded or refused 503); then a server process is killed: nothing acknowledged is lost or
//! recorded twice, every game verifies and plays on to its end, and every stream opened before
//! has every event. First, one address holding more connections than its share is refused past
//! it while another is served (`cluster/fair.rs`). One cluster start serves every fault
//! (`CLUSTER_FAULTS=etcd` runs only the faults named).
//!
//! A test binary of its own, so that no other test competes with the cluster for the machine.
//! `deploy/cluster.sh` needs Patroni, etcd and HAProxy (`cargo xtask test` installs them).

// The fault suite's harness: this binary uses part of it.
#[path = "cluster/etcd.rs"]
mod etcd;
#[path = "cluster/failover.rs"]
mod failover;
#[path = "cluster/fair.rs"]
mod fair;
#[allow(dead_code)]
#[path = "faults/harness.rs"]
mod harness;
#[path = "cluster/pause.rs"]
mod pause;

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use reqwest::{Client, StatusCode};
use serde_json::{Value, json};

use crate::harness::{Remote, client, game_with_bots, mixed_games, play_to_end, send, verify};

/// The longest the service may refuse writes after the primary dies: Patroni noticing (its
/// loop, 1 s, and a start it does not attempt: `primary_start_timeout: 0`), the synchronous
/// standby's promotion, HAProxy's health checks (three failures 1 s apart) and the servers'
/// connections replaced. Measured 2.2–4.6 s on loopback.
const FAILOVER_BOUND: Duration = Duration::from_secs(30);

/// A cluster made by `deploy/cluster.sh up`, taken down when dropped.
struct Cluster {
    dir: PathBuf,
    env: HashMap<String, String>,
}

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy/cluster.sh")
}

fn run(args: &[&str]) -> String {
    let out = Command::new("bash")
        .arg(script())
        .args(args)
        .output()
        .expect("bash runs");
    assert!(
        out.status.success(),
        "cluster.sh {args:?} failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

impl Cluster {
    fn up(dir: &Path, servers: usize, serve: &[&str]) -> Cluster {
        let dir = dir.to_path_buf();
        let d = dir.to_str().unwrap();
        let servers = servers.to_string();
        let mut args = vec![
            "up",
            "--dir",
            d,
            "--base-port",
            "26100",
            "--servers",
            &servers,
            "--bin",
            env!("CARGO_BIN_EXE_saboteur"),
            "--",
        ];
        args.extend_from_slice(serve);
        let started = Instant::now();
        let out = run(&args);
        eprintln!("the cluster is up after {:?}", started.elapsed());
        let env = out
            .lines()
            .filter_map(|l| {
                let (k, v) = l.split_once('=')?;
                Some((k.to_string(), v.trim_matches('\'').to_string()))
            })
            .collect();
        Cluster { dir, env }
    }

    fn get(&self, key: &str) -> &str {
        self.env
            .get(key)
            .unwrap_or_else(|| panic!("cluster.env has no {key}: {:?}", self.env))
    }

    fn front(&self) -> Remote {
        Remote {
            base: self.get("HTTP_URL").to_string(),
        }
    }

    fn command(&self, what: &str) -> String {
        run(&[what, "--dir", self.dir.to_str().unwrap()])
    }

    /// About `megabytes` of WAL on the primary after a checkpoint (`cluster.sh fill-wal`).
    fn fill_wal(&self, megabytes: u32) -> String {
        let mb = megabytes.to_string();
        let dir = self.dir.to_str().unwrap();
        run(&["fill-wal", "--dir", dir, "--megabytes", &mb])
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if std::thread::panicking() {
            // What the processes said, for the failure's report.
            let logs = self.dir.join("logs");
            for entry in std::fs::read_dir(&logs).into_iter().flatten().flatten() {
                let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
                let lines: Vec<&str> = text.lines().collect();
                let tail = lines[lines.len().saturating_sub(40)..].join("\n");
                eprintln!("--- {} (last 40 lines)\n{tail}", entry.path().display());
            }
        }
        let _ = Command::new("bash")
            .arg(script())
            .args(["down", "--dir", self.dir.to_str().unwrap()])
            .status();
    }
}

/// A command acknowledged with its first event.
#[derive(Clone)]
struct Acked {
    game: String,
    token: String,
    key: String,
    command: Value,
    first: Value,
}

/// Whether a reply says "try again": no answer (a connection cut), or a 502, 503 or 504.
fn again(reply: &Option<(StatusCode, Value, reqwest::header::HeaderMap)>) -> bool {
    match reply {
        None => true,
        Some((st, _, _)) => matches!(st.as_u16(), 502..=504),
    }
}

/// One move of seat 0 when it is its turn, sent again with the same key while the outcome is
/// unknown (a 503 during a failover, a connection cut): acknowledged once, or refused.
async fn move_surely(c: &Client, s: &Remote, id: &str, token: &str, n: u64) -> Option<Acked> {
    let (command, version) = crate::harness::choose_move(c, s, id, token, n).await?;
    let key = format!("cluster-{id}-{n}");
    let started = Instant::now();
    loop {
        let reply = send(
            c.post(s.url(&format!("/games/{id}/commands")))
                .bearer_auth(token)
                .header("If-Match", format!("\"{version}\""))
                .header("Idempotency-Key", &key)
                .json(&command),
        )
        .await;
        if again(&reply) {
            assert!(
                started.elapsed() < FAILOVER_BOUND * 2,
                "a command's outcome stayed unknown for {:?}",
                started.elapsed()
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
            continue;
        }
        let (st, body, _) = reply?;
        return (st == StatusCode::OK).then(|| Acked {
            game: id.to_string(),
            token: token.to_string(),
            key,
            command,
            first: body["events"][0].clone(),
        });
    }
}

/// A stream through HAProxy that reconnects with `Last-Event-ID` when it is cut: every event
/// id received, in order.
struct Resuming {
    seen: Arc<Mutex<Vec<i64>>>,
    reconnects: Arc<Mutex<u32>>,
    task: tokio::task::JoinHandle<()>,
}

impl Resuming {
    fn open(s: &Remote, id: &str) -> Resuming {
        let url = s.url(&format!("/games/{id}/events/stream"));
        let seen = Arc::new(Mutex::new(Vec::<i64>::new()));
        let reconnects = Arc::new(Mutex::new(0));
        let (into, count) = (seen.clone(), reconnects.clone());
        let task = tokio::spawn(async move {
            let c = Client::new();
            loop {
                let last = into.lock().unwrap().last().copied();
                let mut rb = c.get(&url);
                if let Some(last) = last {
                    rb = rb.header("Last-Event-ID", last.to_string());
                }
                let mut ended = false;
                if let Ok(mut r) = rb.send().await
                    && r.status() == StatusCode::OK
                {
                    let mut pending = String::new();
                    while let Ok(Some(chunk)) = r.chunk().await {
                        pending.push_str(&String::from_utf8_lossy(&chunk));
                        while let Some(end) = pending.find('\n') {
                            let line: String = pending.drain(..=end).collect();
                            if let Some(seq) = line.strip_prefix("id: ") {
                                into.lock().unwrap().push(seq.trim().parse().unwrap());
                            }
                            ended |= line.trim_end() == "event: game_ended";
                        }
                    }
                }
                if ended {
                    return;
                }
                *count.lock().unwrap() += 1;
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        });
        Resuming {
            seen,
            reconnects,
            task,
        }
    }

    /// Waits until every event up to `version` came, each once and in order.
    async fn expect_all(&self, version: i64, within: Duration) {
        crate::harness::expect_every_event(&self.seen, version, within).await;
    }
}

impl Drop for Resuming {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn current_version(c: &Client, s: &Remote, id: &str) -> i64 {
    loop {
        let reply = send(c.get(s.url(&format!("/games/{id}")))).await;
        if let Some((StatusCode::OK, g, _)) = reply {
            return g["version"].as_i64().unwrap();
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Plays every game from seat 0 through `s` while `fault` runs, and a little after it; the
/// commands acknowledged.
async fn under_load<F: std::future::Future<Output = ()>>(
    c: &Client,
    s: &Remote,
    games: &[(String, String)],
    round: u64,
    fault: F,
) -> Vec<Acked> {
    let stop = Arc::new(AtomicBool::new(false));
    let mut load = Vec::new();
    for (id, token) in games {
        let (id, token) = (id.clone(), token.clone());
        let (c, s, stop) = (c.clone(), s.clone(), stop.clone());
        load.push(tokio::spawn(async move {
            let mut acked = Vec::new();
            let mut n = round * 1_000_000;
            while !stop.load(Ordering::Relaxed) {
                match move_surely(&c, &s, &id, &token, n).await {
                    Some(a) => acked.push(a),
                    None => tokio::time::sleep(Duration::from_millis(50)).await,
                }
                n += 1;
            }
            acked
        }));
    }
    tokio::time::sleep(Duration::from_millis(1500)).await;
    fault.await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    stop.store(true, Ordering::Relaxed);
    let mut acked = Vec::new();
    for task in load {
        acked.extend(task.await.unwrap());
    }
    acked
}

/// Every acknowledged command is in the log once, where it was acknowledged: the event at its
/// place is the one acknowledged, and sent again with its key the stored outcome comes back.
async fn all_kept(c: &Client, s: &Remote, acked: &[Acked]) {
    for a in acked {
        let seq = a.first["seq"].as_i64().unwrap();
        let (st, page, _) = send(
            c.get(s.url(&format!(
                "/games/{}/events?after={}&limit=1",
                a.game,
                seq - 1
            )))
            .bearer_auth(&a.token),
        )
        .await
        .unwrap();
        assert_eq!(st, StatusCode::OK, "{page}");
        assert_eq!(
            page["events"][0], a.first,
            "the acknowledged event at {seq}"
        );
        let (st, body) =
            crate::harness::send_again(c, s, &a.game, &a.token, &a.key, &a.command).await;
        assert_eq!(st, StatusCode::OK, "{body}");
        assert_eq!(body["events"][0], a.first, "{body}");
    }
}

/// A started 3-seat game on a 5 s turn clock whose person (seat 0) never moves: each of its
/// turns times out, and after the third the seat is handed to a bot, so the game is played to
/// its end by the server alone (the clock's sweep and the bots).
async fn clocked_game(c: &Client, s: &Remote, seed: u64) -> String {
    let (st, g, _) = send(c.post(s.url("/games")).json(&json!({
        "ruleset": "base", "players": 3, "seed": crate::harness::seed_hex(seed),
        "options": {"clock": {"kind": "per_decision", "seconds": 5}, "abandon_after": 3}
    })))
    .await
    .unwrap();
    assert_eq!(st, StatusCode::CREATED, "{g}");
    let id = g["game_id"].as_str().unwrap().to_string();
    let host = g["host_token"].as_str().unwrap();
    let (st, j, _) = send(
        c.post(s.url(&format!("/games/{id}/seats")))
            .json(&json!({"name": "Ada"})),
    )
    .await
    .unwrap();
    assert_eq!(st, StatusCode::CREATED, "{j}");
    for _ in 0..2 {
        let (st, b, _) = send(
            c.post(s.url(&format!("/games/{id}/bots")))
                .bearer_auth(host)
                .json(&json!({"level": "heuristic"})),
        )
        .await
        .unwrap();
        assert_eq!(st, StatusCode::CREATED, "{b}");
    }
    let (st, o, _) = send(
        c.post(s.url(&format!("/games/{id}/start")))
            .bearer_auth(host),
    )
    .await
    .unwrap();
    assert_eq!(st, StatusCode::OK, "{o}");
    id
}

/// Waits until the server alone has played `id` to its end.
async fn ends_by_itself(c: &Client, s: &Remote, id: &str, within: Duration) {
    let started = Instant::now();
    while crate::harness::status(c, s, id).await.as_deref() != Some("finished") {
        assert!(
            started.elapsed() < within,
            "the clocked game {id} did not end by itself"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// The games of a round: followed by spectators from the start, checked at the end.
type Games = Vec<(String, String)>;

/// The primary's machine stalls shorter and longer than the TTL (twice, far from its last
/// checkpoint), then the standby's, then the primary's PostgreSQL alone.
async fn stalls(cluster: &Cluster, c: &Client, round: &mut impl FnMut(Games) -> Games) {
    let front = cluster.front();
    // The primary's machine stalls for less than the TTL: it keeps its lock, the writes wait
    // for it, and no failover happens.
    let games = round(mixed_games(c, &front, 4, 650).await);
    let short = pause::stall(cluster, c, &games, 4, ("primary", false), 5).await;
    assert!(!short.failed_over, "a 5 s stall made a failover");
    assert!(short.outage < Duration::from_secs(5) + FAILOVER_BOUND / 3);
    // Longer than the TTL, the primary's last checkpoint 300 MB of WAL behind (more than a node
    // keeps, `wal_keep_size`): the standby is promoted; the old primary, when it goes on, finds
    // another node's leader key, demotes itself and comes back as a standby by itself
    // (pg_rewind, then the WAL since that checkpoint, which the new primary has recycled, from
    // the archive). Twice: over, and back.
    for (at, seed) in [(5, 660), (10, 662)] {
        let games = round(mixed_games(c, &front, 4, seed).await);
        eprintln!("{}", cluster.fill_wal(300).trim());
        let long = pause::stall(cluster, c, &games, at, ("primary", false), 35).await;
        assert!(
            long.failed_over,
            "no failover in a 35 s stall of the primary"
        );
        assert!(long.outage < pause::TTL + Duration::from_secs(10));
    }
    // The WAL of both fills went to the archive (16 MB segments), where a node that needs it
    // finds it.
    let archived = std::fs::read_dir(cluster.dir.join("archive"))
        .map(|d| d.count())
        .unwrap_or(0);
    assert!(archived >= 600 / 16, "{archived} files in the WAL archive");
    // The synchronous standby stalls: the primary gives it up and writes go on.
    let games = round(mixed_games(c, &front, 4, 670).await);
    let standby = pause::stall(cluster, c, &games, 6, ("standby", false), 15).await;
    assert!(!standby.failed_over, "a stalled standby made a failover");
    assert!(
        standby.outage < pause::STANDBY_STALL_BOUND,
        "writes waited {:?} for a stalled standby",
        standby.outage
    );
    // The primary's PostgreSQL alone stalls, its Patroni going on: whether Patroni fails over
    // or waits, nothing acknowledged is lost and writes come back within the bound.
    let games = round(mixed_games(c, &front, 4, 675).await);
    let postgres = pause::stall(cluster, c, &games, 7, ("primary", true), 30).await;
    assert!(
        postgres.outage < Duration::from_secs(30) + FAILOVER_BOUND,
        "writes waited {:?} for a stalled PostgreSQL",
        postgres.outage
    );
}

/// Whether the faults named `name` run: all of them unless `CLUSTER_FAULTS` lists some
/// (`fair`, `failover`, `stall`, `etcd`, comma-separated); the server's death and the final checks
/// always run.
fn wants(name: &str) -> bool {
    std::env::var("CLUSTER_FAULTS").map_or(true, |list| list.split(',').any(|n| n.trim() == name))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failover_under_load_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let cluster = Cluster::up(
        &dir.path().join("cluster"),
        2,
        &["--no-limits", "--allow-fixed-seed"],
    );
    let c = client();
    let front = cluster.front();
    // One address holding more connections than its share does not take the front from others.
    if wants("fair") {
        fair::a_source_holds_its_share(&front).await;
    }
    // Each fault strikes games of its own, started before it (the games of an earlier round
    // may have ended), with spectators following each through HAProxy from the start.
    let mut all = Vec::new();
    let mut streams = Vec::new();
    let mut round = |games: Vec<(String, String)>| {
        streams.extend(games.iter().map(|(id, _)| Resuming::open(&front, id)));
        all.extend(games.iter().cloned());
        games
    };
    // Games on a turn clock nobody answers: the clocks and the bots carry on through the faults.
    let mut clocked = vec![clocked_game(&c, &front, 800).await];
    if wants("failover") {
        failover::failovers(&cluster, &c, &mut round, &mut clocked).await;
    }
    if wants("stall") {
        stalls(&cluster, &c, &mut round).await;
    }
    if wants("etcd") {
        // A finished game whose replay and audit a spectator reads through the loss of etcd.
        let (finished, token) = game_with_bots(&c, &front, "base", 3, 680).await;
        play_to_end(&c, &front, &finished, &token, Duration::from_secs(180)).await;
        // etcd lost: failsafe_mode keeps the primary, which reaches the standby's Patroni.
        let games = round(mixed_games(&c, &front, 4, 690).await);
        let kept =
            etcd::lose_etcd(&cluster, &c, &games, (&games[0].0, &finished), 8, 30, false).await;
        assert!(
            !kept.demoted,
            "the primary was demoted though failsafe_mode is on"
        );
        // etcd lost and the standby's machine stalled: the primary is demoted (read-only) until
        // etcd is back; reads go on all the same.
        let games = round(mixed_games(&c, &front, 4, 695).await);
        let demoted =
            etcd::lose_etcd(&cluster, &c, &games, (&games[0].0, &finished), 9, 30, true).await;
        assert!(
            demoted.demoted,
            "no demotion with etcd lost and the standby stalled"
        );
        assert!(demoted.refused < Duration::from_secs(30) + FAILOVER_BOUND);
    }

    // A server process dies behind HAProxy: its clients only reconnect.
    // A server process dies behind HAProxy: its clients only reconnect.
    let pids: Vec<String> = cluster
        .get("SERVER_PIDS")
        .split_whitespace()
        .map(str::to_string)
        .collect();
    assert_eq!(pids.len(), 2, "two servers: {pids:?}");
    let games = round(mixed_games(&c, &front, 4, 700).await);
    clocked.push(clocked_game(&c, &front, 802).await);
    let acked = under_load(&c, &front, &games, 7, async {
        assert!(
            Command::new("kill")
                .args(["-KILL", &pids[0]])
                .status()
                .unwrap()
                .success()
        );
        eprintln!("killed server process {}", pids[0]);
    })
    .await;
    assert!(acked.len() >= games.len(), "the load made too few moves");
    all_kept(&c, &front, &acked).await;

    // Every game plays on to its end through the surviving process, verifies, and each stream
    // has every event once.
    for (id, token) in &all {
        play_to_end(&c, &front, id, token, Duration::from_secs(180)).await;
        let (ok, said) = verify(cluster.get("WRITE_URL"), id);
        assert!(ok, "game {id} does not verify: {said}");
    }
    for id in &clocked {
        ends_by_itself(&c, &front, id, Duration::from_secs(120)).await;
        let (ok, said) = verify(cluster.get("WRITE_URL"), id);
        assert!(ok, "the clocked game {id} does not verify: {said}");
        let (_, page, _) = send(c.get(front.url(&format!("/games/{id}/events?limit=1000"))))
            .await
            .unwrap();
        let timeouts = page["events"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["event"]["type"] == "turn_timed_out")
            .count();
        assert!(timeouts >= 1, "the clocked game {id} never timed out");
    }
    for ((id, _), stream) in all.iter().zip(&streams) {
        let version = current_version(&c, &front, id).await;
        stream.expect_all(version, Duration::from_secs(20)).await;
        let (_, page, _) = send(c.get(front.url(&format!("/games/{id}/events?limit=1000"))))
            .await
            .unwrap();
        let seqs: Vec<i64> = page["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["seq"].as_i64().unwrap())
            .collect();
        assert_eq!(
            seqs.iter().copied().collect::<BTreeSet<_>>().len(),
            seqs.len()
        );
    }
    let reconnects: u32 = streams.iter().map(|s| *s.reconnects.lock().unwrap()).sum();
    eprintln!("streams reconnected {reconnects} times in all");
}
