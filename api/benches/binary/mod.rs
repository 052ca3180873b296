//! The server binary run on its own by a benchmark, so that its memory and its CPU time are
//! its own, and the database it runs on.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// The server's process: killed when dropped.
pub struct Server(Child);

impl Server {
    /// Its process id.
    #[allow(dead_code, reason = "not every benchmark reads the server's process")]
    pub fn pid(&self) -> u32 {
        self.0.id()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The database to run on: `DATABASE_URL`, or a throwaway cluster with durable writes, kept
/// until the first of the pair is dropped.
pub fn database() -> (Option<saboteur_storage::testing::DurableCluster>, String) {
    match std::env::var("DATABASE_URL") {
        Ok(url) => (None, url),
        Err(_) => {
            let cluster = saboteur_storage::testing::DurableCluster::start();
            let url = cluster.url();
            (Some(cluster), url)
        }
    }
}

/// Starts `saboteur serve` on `url` with the per-client limits off and `args` after them;
/// returns it with its base URL once it says where it listens.
pub fn start(url: &str, args: &[&str]) -> (Server, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_saboteur"))
        .args(["serve", "--bind", "127.0.0.1:0", "--no-limits"])
        .args(["--database-url", url])
        .args(args)
        .env("RUST_LOG", "warn,saboteur=info")
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the binary starts");
    let stdout = child.stdout.take().expect("its output");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Some(rest) = line.split("listening on http://").nth(1) {
                let _ = tx.send(
                    rest.split_whitespace()
                        .next()
                        .unwrap_or_default()
                        .to_string(),
                );
            }
        }
    });
    let addr = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("the server says where it listens");
    (Server(child), format!("http://{addr}"))
}
