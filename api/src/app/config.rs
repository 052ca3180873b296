//! How the server runs: its configuration, the per-client limits it is given and their
//! defaults. Plain data, read by the application and the HTTP layer alike.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use ipnet::IpNet;

use crate::app::clock::TimeSource;
use crate::app::tables::DEFAULT_CACHE_BYTES;

/// How long a request's head, and then its body, may take to arrive (`--body-timeout`).
pub const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(10);
/// The most event streams one process serves at once (`--max-streams`).
pub const DEFAULT_MAX_STREAMS: usize = 2048;

/// How the server runs.
#[derive(Debug, Clone)]
pub struct Config {
    /// Where to listen, e.g. `127.0.0.1:8080` (port 0 picks a free one).
    pub bind: String,
    /// `sqlite://path` or `postgres://…`.
    pub database_url: String,
    /// A read-only store (a standby) for listings and finished games' audits, if any.
    pub read_database_url: Option<String>,
    /// Accept a fixed seed at game creation (testing only).
    pub allow_fixed_seed: bool,
    /// The budget of the games held in memory, in bytes.
    pub cache_bytes: usize,
    /// The most event streams open at once in this process; beyond, 503.
    pub max_streams: usize,
    /// The longest a request body may take to arrive.
    pub body_timeout: Duration,
    /// Where the server reads the time (turn clocks, table talk): the system clock, or a
    /// manual one in tests.
    pub time: TimeSource,
    /// A file holding the signing key (64 hex digits; created when missing) instead of the
    /// key the store keeps.
    pub signing_key_file: Option<std::path::PathBuf>,
    /// The per-client limits and the caps on lobbies.
    pub limits: Limits,
    /// How many threads the bots' searches run on, shared fairly between the clients that made
    /// the games, and as many again for the audits' replays (`--thinker-threads`; default
    /// [`crate::default_thinker_threads`]).
    pub thinker_threads: usize,
}

impl Config {
    /// The defaults for a server listening on `bind` with the store at `database_url`.
    pub fn new(bind: impl Into<String>, database_url: impl Into<String>) -> Config {
        Config {
            bind: bind.into(),
            database_url: database_url.into(),
            read_database_url: None,
            allow_fixed_seed: false,
            cache_bytes: DEFAULT_CACHE_BYTES,
            max_streams: DEFAULT_MAX_STREAMS,
            body_timeout: DEFAULT_BODY_TIMEOUT,
            time: TimeSource::system(),
            signing_key_file: None,
            limits: Limits::default(),
            thinker_threads: crate::app::thinkers::default_threads(),
        }
    }
}

/// A bucket: `count` requests at once, given back at `count` per `per`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rate {
    /// How many at once (the bucket's size), and how many per `per`.
    pub count: u32,
    /// The period over which `count` come back.
    pub per: Duration,
}

impl FromStr for Rate {
    type Err = String;

    /// `N/s`, `N/min` or `N/h`, N from 1.
    fn from_str(s: &str) -> Result<Rate, String> {
        let bad = || format!("{s:?} is not a rate: write N/s, N/min or N/h, N from 1");
        let (count, unit) = s.trim().split_once('/').ok_or_else(bad)?;
        let count: u32 = count.trim().parse().map_err(|_| bad())?;
        let per = match unit.trim() {
            "s" => Duration::from_secs(1),
            "min" => Duration::from_secs(60),
            "h" => Duration::from_secs(3600),
            _ => return Err(bad()),
        };
        if count == 0 {
            return Err(bad());
        }
        Ok(Rate { count, per })
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let unit = match self.per.as_secs() {
            1 => "s",
            60 => "min",
            _ => "h",
        };
        write!(f, "{}/{unit}", self.count)
    }
}

/// The limits a client meets, and the caps on lobbies (`serve --limit-…`, RELIABILITY.md).
#[derive(Debug, Clone)]
pub struct Limits {
    /// No per-client limit at all (benchmarks and tests that drive many clients from one
    /// address). The total of lobbies and their expiry still hold.
    pub off: bool,
    /// Games created (`POST /games`, rematches).
    pub creates: Rate,
    /// Seats taken (`POST /games/{id}/seats`, claims, bots seated).
    pub joins: Rate,
    /// Every other write: commands, talk, undo, hand-overs, keys, tokens.
    pub writes: Rate,
    /// Reads: views, legal moves, events, listings, audits.
    pub reads: Rate,
    /// Event streams one client holds open at once (below the process's `max_streams`).
    pub streams: usize,
    /// Requests of one client this process answers at once (streams apart): one slow or
    /// expensive client's requests cannot take every worker.
    pub in_flight: usize,
    /// Lobbies one client created that nobody started yet (and have not expired).
    pub lobbies_per_client: usize,
    /// Lobbies nobody started yet, in all (the store's count: every process shares it).
    pub lobbies: usize,
    /// How long a lobby nobody started is listed and counted; after it, it is left out of
    /// listings, caps and the cache (its log is kept, its links still work).
    pub lobby_expiry: Duration,
    /// Proxies whose `X-Forwarded-For` names the client.
    pub trusted_proxies: Vec<IpNet>,
}

impl Default for Limits {
    fn default() -> Limits {
        let rate = |count, secs| Rate {
            count,
            per: Duration::from_secs(secs),
        };
        Limits {
            off: false,
            creates: rate(60, 3600),
            joins: rate(120, 60),
            writes: rate(600, 60),
            reads: rate(3000, 60),
            streams: 256,
            in_flight: 64,
            lobbies_per_client: 30,
            lobbies: 10_000,
            lobby_expiry: Duration::from_secs(24 * 3600),
            trusted_proxies: Vec::new(),
        }
    }
}
