//! What the tests that compare a player's latencies, quiet and beside strangers, share: a
//! database off the disk, the player on a thread of their own at the test's priority, the
//! strangers' threads below it, and the p99.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use reqwest::Client;

use crate::harness::{Remote, from, game_with_bots, one_move, status};

/// A throwaway SQLite database for these tests, which compare a player's latencies: in
/// memory-backed files (`/dev/shm`) where the machine has them, so that a measurement is of the
/// server's work and not of the disk's flushes for whatever else the machine writes (an earlier
/// test's PostgreSQL, a build). With another process writing to the disk, a flush here took up
/// to 190 ms and the strangers' test failed 4 runs in 5; on `/dev/shm` it passed 5 in 5. What
/// the disk does to a durable write is for the kill and outage tests to show.
pub(crate) fn sqlite() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir_in("/dev/shm")
        .or_else(|_| tempfile::tempdir())
        .unwrap();
    let url = format!("sqlite://{}", dir.path().join("flood.db").display());
    (dir, url)
}

/// The person at seat 0 plays `games` whole games against bots; the time of each command. Their
/// `k`th move in a game is the `k`th (modulo their number) of the commands legal then, however
/// often they looked before it was their turn: a seed gives the same game, quiet or not.
pub(crate) async fn play_games(c: &Client, s: &Remote, games: u64, seed: u64) -> Vec<Duration> {
    let mut times = Vec::new();
    for g in 0..games {
        let ruleset = if g % 2 == 0 { "base" } else { "saboteur2" };
        let (id, token) = game_with_bots(c, s, ruleset, 4, seed + g).await;
        let started = Instant::now();
        let mut made = 0;
        while status(c, s, &id).await.as_deref() != Some("finished") {
            assert!(
                started.elapsed() < Duration::from_secs(120),
                "game {id} stuck"
            );
            let t = Instant::now();
            match one_move(c, s, &id, &token, made + 1).await {
                Some((_, _, st, body)) => {
                    assert!(st.is_success(), "a move: {st} {body}");
                    times.push(t.elapsed());
                    made += 1;
                }
                None => tokio::time::sleep(Duration::from_millis(20)).await,
            }
        }
    }
    times
}

/// The measured person, from address `127.0.0.{address}`: a thread and runtime of their own,
/// made at the priority the test started with, so the times measured are the server's answers,
/// not the wait for the strangers' runtime (which their tasks, thousands of them, keep busy) or
/// for the cores the strangers' clients take (see [`as_if_elsewhere`]).
pub(crate) struct Player {
    games: std::sync::mpsc::Sender<Games>,
    /// Clock ticks of CPU time while the player played: the host took them; all of them.
    stolen: AtomicU64,
    ticks: AtomicU64,
}

/// Games for the player to play: where, how many, the first seed, and who waits for the times.
type Games = (
    Remote,
    u64,
    u64,
    tokio::sync::oneshot::Sender<Vec<Duration>>,
);

impl Player {
    pub(crate) fn new(address: u8) -> Player {
        let (games, asked) = std::sync::mpsc::channel::<Games>();
        std::thread::Builder::new()
            .name(format!("player-{address}"))
            .spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("a runtime");
                let c = from(address);
                for (s, count, seed, answer) in asked {
                    let times = runtime.block_on(play_games(&c, &s, count, seed));
                    let _ = answer.send(times);
                }
            })
            .expect("the player's thread");
        Player {
            games,
            stolen: AtomicU64::new(0),
            ticks: AtomicU64::new(0),
        }
    }

    /// [`play_games`] on the player's thread; the time of each command. The CPU time the
    /// machine's host took meanwhile is counted ([`Player::stolen`]).
    pub(crate) async fn play(&self, s: &Remote, count: u64, seed: u64) -> Vec<Duration> {
        let before = cpu_times();
        let (answer, times) = tokio::sync::oneshot::channel();
        self.games
            .send((s.clone(), count, seed, answer))
            .expect("the player's thread");
        let times = times.await.expect("the player's games");
        let (stolen, all) = cpu_times().since(before);
        self.stolen.fetch_add(stolen, Ordering::Relaxed);
        self.ticks.fetch_add(all, Ordering::Relaxed);
        times
    }

    /// The share of the machine's CPU time its host took (`steal` in `/proc/stat`) while the
    /// player played, in percent: a virtual machine's host that runs something else takes it
    /// in bursts of milliseconds, which land on the player's commands at random, quiet or not
    /// (on this project's 2-core VMs, with nothing else running: 0–3 % in most runs, 20 % at
    /// times, 15–30 % through a whole CI run).
    pub(crate) fn stolen(&self) -> f64 {
        let all = self.ticks.load(Ordering::Relaxed).max(1);
        100.0 * self.stolen.load(Ordering::Relaxed) as f64 / all as f64
    }
}

/// The machine's CPU time so far, in clock ticks over every core: (the host took it: `steal`
/// in `/proc/stat`; all of it). Zeros where it is not told.
fn cpu_times() -> CpuTimes {
    let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    let ticks: Vec<u64> = stat
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("cpu "))
        .map(|l| {
            l.split_whitespace()
                .filter_map(|t| t.parse().ok())
                .collect()
        })
        .unwrap_or_default();
    // user nice system idle iowait irq softirq steal (guest times are within user and nice).
    CpuTimes {
        stolen: ticks.get(7).copied().unwrap_or(0),
        all: ticks.iter().take(8).sum(),
    }
}

#[derive(Clone, Copy)]
struct CpuTimes {
    stolen: u64,
    all: u64,
}

impl CpuTimes {
    /// The ticks stolen and all ticks since `before`.
    fn since(self, before: CpuTimes) -> (u64, u64) {
        (
            self.stolen.saturating_sub(before.stolen),
            self.all.saturating_sub(before.all),
        )
    }
}

/// How far the strangers' client threads yield (a `nice` value) to the player's and the
/// server's. Strangers run on machines of their own; here they share the server's two cores,
/// and what their clients spend (a third of a core for the thinking test's: two thousand
/// connections' timers, a listing parsed every 10 ms) would be measured as the server's
/// unfairness.
const ELSEWHERE: i32 = 10;

/// Lowers the calling thread's priority to [`ELSEWHERE`]; threads and processes it starts
/// afterwards inherit it, so the server is started before.
pub(crate) fn as_if_elsewhere() {
    saboteur_api::lower_this_thread(ELSEWHERE).expect("a thread's priority lowered");
}

pub(crate) fn p99(times: &mut [Duration]) -> Duration {
    times.sort_unstable();
    times[(times.len() * 99 / 100).min(times.len() - 1)]
}
