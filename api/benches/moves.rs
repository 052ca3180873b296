//! Moves per second and what each move costs: real 4-seat base games played over HTTP by 1,
//! 16 and 64 movers against the server binary on PostgreSQL with durable writes. Each mover
//! plays one game at a time for whichever seat is to move, as a careful client does: per move
//! `GET /games/{id}/legal-moves`, then `POST /games/{id}/commands` with `If-Match` at the
//! version read and a fresh `Idempotency-Key`. For each number of movers it prints moves/s,
//! the p50 and p99 of the `POST`, the CPU time per move of the server process and of
//! PostgreSQL (the postmaster and every backend, from `/proc`), and the WAL written per move
//! (`pg_current_wal_insert_lsn` before and after). Games are created, seated and started
//! within the measured time, as a real workload does; their cost is in the figures.
//!
//! `cargo bench -p saboteur-api --bench moves` — `DATABASE_URL` (a PostgreSQL on this machine:
//! its CPU is read from `/proc`), or a throwaway cluster with durable writes. `MOVERS`
//! (default `1,16,64`) and `MOVERS_SECONDS` (default 20 each) tune it.

use std::time::{Duration, Instant};

use reqwest::Client;
use serde_json::Value;
use sqlx::Connection;
use sqlx::postgres::PgConnection;

mod binary;
mod games;
use games::{legal_moves, new_game, percentile};

/// Plays games one after another until `deadline`: the latency of each move recorded.
async fn mover(base: String, deadline: Instant, n: u64) -> Vec<Duration> {
    let c = Client::new();
    let mut latencies = Vec::new();
    let (mut id, mut tokens, mut awaited) = new_game(&c, &base, 4).await;
    let mut dice = n.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut key = 0u64;
    while Instant::now() < deadline {
        let Some(seat) = awaited else {
            (id, tokens, awaited) = new_game(&c, &base, 4).await;
            continue;
        };
        let token = &tokens[seat as usize];
        let moves = legal_moves(&c, &base, &id, token).await;
        let list = moves["commands"].as_array().unwrap();
        let version = moves["version"].as_u64().unwrap();
        dice = dice
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let command = &list[(dice >> 33) as usize % list.len()];
        key += 1;
        let started = Instant::now();
        let r = c
            .post(format!("{base}/games/{id}/commands"))
            .bearer_auth(token)
            .header("If-Match", format!("\"{version}\""))
            .header("Idempotency-Key", format!("m{n}-{key}"))
            .json(command)
            .send()
            .await
            .unwrap();
        let status = r.status();
        let out: Value = r.json().await.unwrap_or(Value::Null);
        assert!(status.is_success(), "a legal move refused: {status} {out}");
        latencies.push(started.elapsed());
        awaited = out["awaited"].as_u64();
    }
    latencies
}

/// A process's parent and the CPU time it has used, with its children that have ended, in
/// clock ticks, from `/proc/{pid}/stat`.
fn stat(pid: u32) -> Option<(u32, u64)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The fields after the command's name, which is in parentheses and may hold spaces: the
    // parent is field 4 of proc(5) (1 after the name), utime, stime, cutime and cstime fields
    // 14–17 (11–14 after it).
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let parent = fields.get(1)?.parse().ok()?;
    let ticks = fields
        .get(11..15)?
        .iter()
        .filter_map(|v| v.parse::<u64>().ok())
        .sum();
    Some((parent, ticks))
}

/// The CPU time a process has used, with its children that have ended.
fn cpu(pid: u32) -> Duration {
    ticks(stat(pid).map_or(0, |(_, t)| t))
}

/// `n` of the kernel's clock ticks (`getconf CLK_TCK` a second, asked once) as a time.
fn ticks(n: u64) -> Duration {
    static PER_SECOND: std::sync::OnceLock<f64> = std::sync::OnceLock::new();
    let per_second = PER_SECOND.get_or_init(|| {
        std::process::Command::new("getconf")
            .arg("CLK_TCK")
            .output()
            .ok()
            .and_then(|o| String::from_utf8(o.stdout).ok()?.trim().parse().ok())
            .unwrap_or(100.0)
    });
    Duration::from_secs_f64(n as f64 / per_second)
}

/// The CPU time of PostgreSQL: its postmaster (with the backends that have ended) and every
/// process it runs now.
fn postgres_cpu(postmaster: u32) -> Duration {
    let mut total = cpu(postmaster);
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|p| p.parse().ok()) else {
            continue;
        };
        if let Some((parent, t)) = stat(pid)
            && parent == postmaster
        {
            total += ticks(t);
        }
    }
    total
}

/// PostgreSQL's counters: the WAL insert position in bytes, then the WAL's records and full
/// page images (`pg_stat_wal`), then the transactions committed and the rows inserted and
/// updated in every database (`pg_stat_database`).
async fn counters(db: &mut PgConnection) -> [i64; 6] {
    // The statistics of the statements just ended reach the views at the next report.
    sqlx::query("SELECT pg_stat_force_next_flush()")
        .execute(&mut *db)
        .await
        .ok();
    let sql = "SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::bigint, \
               w.wal_records::bigint, w.wal_fpi::bigint, \
               sum(d.xact_commit)::bigint, sum(d.tup_inserted)::bigint, sum(d.tup_updated)::bigint \
               FROM pg_stat_wal w, pg_stat_database d GROUP BY 2, 3";
    let row: (i64, i64, i64, i64, i64, i64) = sqlx::query_as(sql)
        .fetch_one(db)
        .await
        .expect("PostgreSQL's counters");
    [row.0, row.1, row.2, row.3, row.4, row.5]
}

/// One level's figures.
struct Level {
    movers: u64,
    moves: usize,
    seconds: f64,
    p50: f64,
    p99: f64,
    server_ms: f64,
    postgres_ms: f64,
    /// Per move: WAL bytes, WAL records, full page images, commits, rows inserted, updated.
    database: [f64; 6],
}

async fn level(
    base: &str,
    server: u32,
    postmaster: u32,
    db: &mut PgConnection,
    movers: u64,
    seconds: u64,
) -> Level {
    let before = counters(db).await;
    let (server_before, postgres_before) = (cpu(server), postgres_cpu(postmaster));
    let started = Instant::now();
    let deadline = started + Duration::from_secs(seconds);
    let tasks: Vec<_> = (0..movers)
        .map(|n| tokio::spawn(mover(base.to_string(), deadline, n)))
        .collect();
    let mut latencies = Vec::new();
    for t in tasks {
        latencies.extend(t.await.unwrap());
    }
    let seconds = started.elapsed().as_secs_f64();
    let per_move = |d: Duration| d.as_secs_f64() * 1e3 / latencies.len().max(1) as f64;
    let server_ms = per_move(cpu(server) - server_before);
    let postgres_ms = per_move(postgres_cpu(postmaster) - postgres_before);
    let after = counters(db).await;
    let database =
        std::array::from_fn(|i| (after[i] - before[i]) as f64 / latencies.len().max(1) as f64);
    latencies.sort();
    Level {
        movers,
        moves: latencies.len(),
        seconds,
        p50: percentile(&latencies, 0.50),
        p99: percentile(&latencies, 0.99),
        server_ms,
        postgres_ms,
        database,
    }
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let levels: Vec<u64> = std::env::var("MOVERS")
        .unwrap_or_else(|_| "1,16,64".into())
        .split(',')
        .map(|m| m.trim().parse().expect("MOVERS lists numbers"))
        .collect();
    let seconds: u64 = std::env::var("MOVERS_SECONDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let (_cluster, url) = binary::database();
    let (server, base) = binary::start(&url, &[]);
    let mut db = PgConnection::connect(&url).await.expect("a connection");
    let backend: i32 = sqlx::query_scalar("SELECT pg_backend_pid()")
        .fetch_one(&mut db)
        .await
        .unwrap();
    let (postmaster, _) = stat(backend as u32).expect("PostgreSQL runs on this machine");
    println!(
        "movers | moves | moves/s | POST p50 / p99 ms | CPU ms per move: server + PostgreSQL \
         = total | per move: WAL bytes, WAL records, full pages, commits, rows in, rows updated"
    );
    for movers in levels {
        let l = level(&base, server.pid(), postmaster, &mut db, movers, seconds).await;
        println!(
            "{} | {} | {:.0} | {:.1} / {:.1} | {:.3} + {:.3} = {:.3} | {:.0}, {:.1}, {:.2}, {:.2}, {:.1}, {:.1}",
            l.movers,
            l.moves,
            l.moves as f64 / l.seconds,
            l.p50,
            l.p99,
            l.server_ms,
            l.postgres_ms,
            l.server_ms + l.postgres_ms,
            l.database[0],
            l.database[1],
            l.database[2],
            l.database[3],
            l.database[4],
            l.database[5]
        );
    }
}
