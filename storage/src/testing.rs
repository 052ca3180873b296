//! A throwaway PostgreSQL for tests. With `DATABASE_URL` set, each test database is created
//! on that server; otherwise one cluster per test process is started with the system's
//! `initdb` and `pg_ctl` on a free loopback port, and stopped when the process exits.
//! Without PostgreSQL installed, tests fail with a message saying how to install it.
//!
//! Test support: a failure here is a failed test, so it may panic.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use sqlx::Connection;

struct Cluster {
    _dir: tempfile::TempDir,
    data: PathBuf,
    bin: PathBuf,
    port: u16,
    as_postgres: bool,
    /// The server's options (`pg_ctl -o`).
    options: String,
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = self.run(
            "pg_ctl",
            &[
                "-D",
                &self.data.to_string_lossy(),
                "-m",
                "immediate",
                "stop",
            ],
        );
    }
}

impl Cluster {
    fn run(&self, tool: &str, args: &[&str]) -> std::io::Result<std::process::Output> {
        let exe = self.bin.join(tool);
        if self.as_postgres {
            Command::new("runuser")
                .arg("-u")
                .arg("postgres")
                .arg("--")
                .arg(exe)
                .args(args)
                .output()
        } else {
            Command::new(exe).args(args).output()
        }
    }
}

fn find_bin() -> Option<PathBuf> {
    let mut candidates: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    candidates.push("/usr/local/bin".into());
    if let Ok(entries) = std::fs::read_dir("/usr/lib/postgresql") {
        let mut versions: Vec<PathBuf> = entries.flatten().map(|e| e.path().join("bin")).collect();
        versions.sort();
        candidates.extend(versions.into_iter().rev());
    }
    candidates
        .into_iter()
        .find(|d| d.join("initdb").is_file() && d.join("pg_ctl").is_file())
}

/// A loopback port free now, below the range the system hands out to outgoing connections and
/// to listeners on port 0 (`/proc/sys/net/ipv4/ip_local_port_range`): a cluster stopped and
/// started again keeps its port, and a client's connection or another test's listener could
/// otherwise take it meanwhile. Each call of a process starts its search elsewhere.
fn free_port() -> u16 {
    static CALLS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let low: u32 = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|r| r.split_whitespace().next()?.parse().ok())
        .unwrap_or(32_768);
    // The 6,000 ports below it: clear of the throwaway servers' (18000–19999) and the
    // development cluster's (26000 on, deploy/README.md) with the usual range (32768 up).
    if low < 26_000 {
        return any_free_port();
    }
    let (from, span) = (low - 6_000, 6_000);
    let seed = std::process::id()
        ^ std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    (0..span)
        .map(|i| from + (seed.wrapping_add(call.wrapping_mul(97)).wrapping_add(i)) % span)
        .filter_map(|p| u16::try_from(p).ok())
        .find(|&p| std::net::TcpListener::bind(("127.0.0.1", p)).is_ok())
        .unwrap_or_else(any_free_port)
}

/// A port the system hands out as free now.
fn any_free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0"))
}

fn start_cluster(fsync: bool) -> Cluster {
    let bin = find_bin().unwrap_or_else(|| {
        panic!(
            "PostgreSQL is not installed and DATABASE_URL is not set: the PostgreSQL tests need \
             `initdb` and `pg_ctl`. Install them with `apt-get install -y postgresql` (Debian), \
             or point DATABASE_URL at a server."
        )
    });
    let dir = tempfile::Builder::new()
        .prefix("saboteur-pg-")
        .tempdir()
        .expect("a temporary directory");
    let data = dir.path().join("data");
    let as_postgres = is_root();
    if as_postgres {
        // PostgreSQL refuses to run as root: the cluster belongs to the `postgres` user.
        let _ = Command::new("chown")
            .arg("-R")
            .arg("postgres")
            .arg(dir.path())
            .status();
        let _ = Command::new("chmod").arg("755").arg(dir.path()).status();
    }
    let port = free_port();
    let cluster = Cluster {
        data: data.clone(),
        bin,
        port,
        as_postgres,
        options: String::new(),
        _dir: dir,
    };
    let init = cluster
        .run(
            "initdb",
            &[
                "-D",
                &data.to_string_lossy(),
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
            ],
        )
        .expect("initdb runs");
    assert!(
        init.status.success(),
        "initdb failed: {}",
        String::from_utf8_lossy(&init.stderr)
    );
    let socket = cluster._dir.path().to_string_lossy().to_string();
    let mut cluster = cluster;
    // A port found free may be taken before the server binds it: then another one.
    for attempt in 1.. {
        cluster.options = format!(
            "-p {} -k {socket} -c listen_addresses=127.0.0.1 -c fsync={} -c max_connections=200",
            cluster.port,
            if fsync { "on" } else { "off" }
        );
        match cluster.try_pg_start() {
            Ok(()) => break,
            Err(e) if attempt < 5 && e.contains("Address already in use") => {
                cluster.port = free_port();
            }
            Err(e) => panic!("pg_ctl start failed: {e}"),
        }
    }
    cluster
}

impl Cluster {
    /// Starts the server on its data directory and port, and waits until it accepts
    /// connections.
    fn pg_start(&self) {
        if let Err(e) = self.try_pg_start() {
            panic!("pg_ctl start failed: {e}");
        }
    }

    /// [`Cluster::pg_start`], what went wrong as the error: `pg_ctl`'s output and the
    /// server's log.
    fn try_pg_start(&self) -> Result<(), String> {
        let log = self._dir.path().join("log");
        let start = self
            .run(
                "pg_ctl",
                &[
                    "-D",
                    &self.data.to_string_lossy(),
                    "-o",
                    &self.options,
                    "-l",
                    &log.to_string_lossy(),
                    "-w",
                    "start",
                ],
            )
            .expect("pg_ctl runs");
        if start.status.success() {
            return Ok(());
        }
        Err(format!(
            "{}{}",
            String::from_utf8_lossy(&start.stderr),
            std::fs::read_to_string(&log).unwrap_or_default()
        ))
    }

    /// Stops the server, closing every connection (clients see their connections broken).
    fn pg_stop(&self) {
        let stop = self
            .run(
                "pg_ctl",
                &[
                    "-D",
                    &self.data.to_string_lossy(),
                    "-m",
                    "fast",
                    "-w",
                    "stop",
                ],
            )
            .expect("pg_ctl runs");
        assert!(
            stop.status.success(),
            "pg_ctl stop failed: {}",
            String::from_utf8_lossy(&stop.stderr)
        );
    }

    fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }
}

/// Statics are never dropped: a watcher stops the shared cluster and removes its files once
/// the test process has exited.
fn stop_when_process_exits(cluster: &Cluster) {
    let pg_ctl = cluster.bin.join("pg_ctl");
    let stop = format!(
        "{} -D {} -m immediate stop",
        pg_ctl.display(),
        cluster.data.display()
    );
    let stop = if cluster.as_postgres {
        format!("runuser -u postgres -- {stop}")
    } else {
        stop
    };
    let script = format!(
        "while kill -0 {pid} 2>/dev/null; do sleep 1; done; {stop} >/dev/null 2>&1; rm -rf {dir}",
        pid = std::process::id(),
        dir = cluster._dir.path().display()
    );
    let _ = Command::new("sh")
        .arg("-c")
        .arg(script)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
}

static CLUSTER: OnceLock<Option<Cluster>> = OnceLock::new();

/// The URL of the server the tests use: `DATABASE_URL`, or the process's throwaway cluster.
pub fn server_url() -> String {
    if let Ok(url) = std::env::var("DATABASE_URL") {
        return url;
    }
    let cluster = CLUSTER
        .get_or_init(|| {
            let c = start_cluster(false);
            stop_when_process_exits(&c);
            Some(c)
        })
        .as_ref()
        .expect("a cluster");
    cluster.url()
}

/// A fresh, empty database on the test server: its URL.
pub async fn fresh_database() -> String {
    database_on(&server_url()).await
}

/// A fresh, empty database on the server at `server`: its URL.
async fn database_on(server: &str) -> String {
    let server = server.to_string();
    let name = format!("test_{}", std::process::id()) + &format!("_{}", next_id());
    let mut conn = sqlx::PgConnection::connect(&server)
        .await
        .expect("connect to the test server");
    sqlx::raw_sql(&format!("CREATE DATABASE {name}"))
        .execute(&mut conn)
        .await
        .expect("create a test database");
    let (base, _) = server
        .rsplit_once('/')
        .expect("a database URL ends with /name");
    format!("{base}/{name}")
}

fn next_id() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
        + std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_micros() as u64 % 1_000_000_000)
            .unwrap_or(0)
            * 1000
}

/// A cluster with durable writes (fsync on), for benchmarks; stopped when dropped.
pub struct DurableCluster(Cluster);

impl DurableCluster {
    /// Starts one.
    pub fn start() -> DurableCluster {
        DurableCluster(start_cluster(true))
    }

    /// Its server URL.
    pub fn url(&self) -> String {
        self.0.url()
    }
}

/// A cluster of a test's own, which the test may stop and start again (to take the database
/// away under a running server); stopped and removed when dropped. Needs a local PostgreSQL
/// installation even when `DATABASE_URL` is set.
pub struct OwnCluster(Cluster);

impl OwnCluster {
    /// Starts one on a free port.
    pub fn start() -> OwnCluster {
        OwnCluster(start_cluster(false))
    }

    /// Its server URL.
    pub fn url(&self) -> String {
        self.0.url()
    }

    /// A fresh, empty database on it: its URL.
    pub async fn fresh_database(&self) -> String {
        database_on(&self.0.url()).await
    }

    /// Stops the server (`pg_ctl stop -m fast`): connections break, new ones are refused.
    pub fn stop(&mut self) {
        self.0.pg_stop();
    }

    /// Starts the server again, on the same data directory and port.
    pub fn restart(&mut self) {
        self.0.pg_start();
    }
}

/// Runs `sql` (one or more statements) on the database at `url`, SQLite or PostgreSQL: for
/// tests that make the database fail on purpose.
pub async fn execute(url: &str, sql: &str) {
    if url.starts_with("sqlite:") {
        let pool = sqlx::SqlitePool::connect(url)
            .await
            .expect("the test database");
        sqlx::raw_sql(sql)
            .execute(&pool)
            .await
            .expect("the test's SQL");
        pool.close().await;
    } else {
        let pool = sqlx::PgPool::connect(url).await.expect("the test database");
        sqlx::raw_sql(sql)
            .execute(&pool)
            .await
            .expect("the test's SQL");
        pool.close().await;
    }
}
