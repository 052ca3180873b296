//! A stranger who runs the most expensive games its limits allow: one address plays 10-seat
//! games of nine expert bots each, as fast as the server answers, while another address plays
//! its own games. The experts' searches run on the thinker threads in their maker's turn, never
//! on the workers that answer requests: the other address's command p99 stays within twice
//! that of the same games played quietly.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use reqwest::Client;

use crate::flood::{p99, play_games, sqlite};
use crate::harness::{Remote, Server, from, game_with_bots_of, one_move, status, version};

/// How many games of experts the greedy address keeps going at once.
const GAMES: u64 = 8;

/// The greedy address's person plays one game's seat 0 (`n` its moves so far) until `stop` or
/// the game's end; how many of its moves were answered.
async fn keep_playing(
    c: Client,
    s: Remote,
    (id, token, n): (String, String, Arc<AtomicU64>),
    stop: Arc<AtomicBool>,
) -> u64 {
    let mut answered = 0;
    while !stop.load(Ordering::Relaxed) {
        let k = n.fetch_add(1, Ordering::Relaxed);
        match one_move(&c, &s, &id, &token, k).await {
            Some((_, _, st, _)) if st.is_success() => answered += 1,
            _ if status(&c, &s, &id).await.as_deref() == Some("finished") => break,
            _ => tokio::time::sleep(Duration::from_millis(20)).await,
        }
    }
    answered
}

/// The server's gauge of searches waiting for a thinker thread.
async fn searches_waiting(c: &Client, s: &Remote) -> u64 {
    let Ok(reply) = c.get(s.url("/metrics")).send().await else {
        return 0;
    };
    let text = reply.text().await.unwrap_or_default();
    text.lines()
        .find_map(|l| l.strip_prefix("saboteur_thinking_waiting "))
        .and_then(|n| n.trim().parse::<f64>().ok())
        .map_or(0, |n| n as u64)
}

async fn expensive_games_do_not_slow_others(url: &str) {
    let server = Server::start_limited(url, &[]);
    let s = server.remote();
    let player = from(1);
    // The same games (the same seeds, so the same deals, bots' moves and player's choices), each
    // played quietly and then beside the experts, in turn: whatever else the machine does
    // weighs on both alike.
    let (mut quiet, mut loaded) = (Vec::new(), Vec::new());
    let (mut greedy_moves, mut most_waiting) = (0, 0);
    // The greedy games, made once: seating nine bots in each spends the join limit. Its person
    // waits as long as a move and nine searches take in their queue.
    let greedy_client = Client::builder()
        .local_address(std::net::IpAddr::from([127, 0, 0, 4]))
        .timeout(Duration::from_secs(120))
        .build()
        .expect("a client");
    let mut greedy_games = Vec::new();
    for g in 0..GAMES {
        let expert = |_| "expert";
        let (id, token) =
            game_with_bots_of(&greedy_client, &s, ("base", 10, 10_000 + g), expert).await;
        greedy_games.push((id, token, Arc::new(AtomicU64::new(0))));
    }
    let mut made = 0;
    for (id, _, _) in &greedy_games {
        made += version(&player, &s, id).await;
    }
    for seed in [700, 710] {
        quiet.extend(play_games(&player, &s, 2, seed).await);
        let stop = Arc::new(AtomicBool::new(false));
        let mut greedy = tokio::task::JoinSet::new();
        for game in &greedy_games {
            let (s, stop) = (s.clone(), stop.clone());
            greedy.spawn(keep_playing(greedy_client.clone(), s, game.clone(), stop));
        }
        // The experts are at work before the measured games start, and watched while they run.
        let waiting = Arc::new(AtomicU64::new(0));
        let watch = tokio::spawn({
            let (s, stop, waiting) = (s.clone(), stop.clone(), waiting.clone());
            async move {
                let c = from(5);
                while !stop.load(Ordering::Relaxed) {
                    waiting.fetch_max(searches_waiting(&c, &s).await, Ordering::Relaxed);
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
            }
        });
        tokio::time::sleep(Duration::from_secs(2)).await;
        loaded.extend(play_games(&player, &s, 2, seed).await);
        stop.store(true, Ordering::Relaxed);
        while let Some(moves) = greedy.join_next().await {
            greedy_moves += moves.expect("a greedy game");
        }
        watch.await.unwrap();
        most_waiting = most_waiting.max(waiting.load(Ordering::Relaxed));
    }
    let mut moved = -made;
    for (id, _, _) in &greedy_games {
        moved += version(&player, &s, id).await;
    }
    let (q, l) = (p99(&mut quiet), p99(&mut loaded));
    eprintln!(
        "commands p99: quiet {q:?} ({} moves), beside {GAMES} games of experts {l:?} ({} \
         moves; the experts' games answered {greedy_moves} of their person's moves and \
         recorded {moved} events, at most {most_waiting} searches waiting)",
        quiet.len(),
        loaded.len()
    );
    assert!(
        l <= (q * 2).max(Duration::from_millis(5)),
        "p99 {l:?} beside the experts, {q:?} quiet"
    );
    // The experts were at work: their games moved, and their searches queued for the thinkers.
    assert!(
        greedy_moves >= GAMES && moved >= 9 * greedy_moves as i64,
        "the experts' games hardly moved: {greedy_moves} moves, {moved} events"
    );
    assert!(most_waiting >= 2, "no search ever waited: {most_waiting}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expensive_games_do_not_slow_others_on_sqlite() {
    let _machine = crate::harness::alone().await;
    let (_dir, url) = sqlite();
    expensive_games_do_not_slow_others(&url).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expensive_games_do_not_slow_others_on_postgres() {
    let _machine = crate::harness::alone().await;
    expensive_games_do_not_slow_others(&saboteur_storage::testing::fresh_database().await).await;
}
