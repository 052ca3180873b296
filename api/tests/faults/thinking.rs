//! Strangers who take more than their share, all at once, while another address plays its own
//! games: one runs the most expensive games its limits allow (10-seat games of nine expert bots,
//! played as fast as the server answers), one holds two thousand connections open with half a
//! request each, one takes a seat in every lobby it sees. The experts' searches run on the
//! thinker threads in their maker's turn, never on the workers that answer requests; a
//! half-sent request holds no worker and is closed after the body timeout; a squatter is given
//! back its seat by the host, who seats a bot instead. The player's command p99 stays within
//! twice that of the same games played quietly. The strangers' clients share the server's
//! cores here, so they run below the player's priority, as if from machines of their own.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use reqwest::Client;

use crate::harness::{
    Remote, Server, connect_from, from, game_with_bots_of, one_move, send, status, version,
};
use crate::measure::{Player, as_if_elsewhere, p99, sqlite};

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
            // Not its turn yet: its bots answer after its reply, thinking for seconds.
            _ => tokio::time::sleep(Duration::from_millis(250)).await,
        }
    }
    answered
}

/// How many half-sent requests the idle stranger holds open.
const IDLE: usize = 2000;

/// Holds [`IDLE`] connections from `127.0.0.6`, each with half a request, opening another as
/// the server closes one, until `stop`; how many the server closed.
async fn hold_idle_connections(s: Remote, stop: Arc<AtomicBool>) -> u64 {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let to: std::net::SocketAddr = s.base.trim_start_matches("http://").parse().unwrap();
    let mut held = tokio::task::JoinSet::new();
    for _ in 0..IDLE {
        let stop = stop.clone();
        held.spawn(async move {
            let mut closed = 0;
            while !stop.load(Ordering::Relaxed) {
                let Ok(mut stream) = connect_from(6, to).await else {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                };
                let _ = stream
                    .write_all(b"GET /games HTTP/1.1\r\nHost: saboteur\r\n")
                    .await;
                let mut buf = [0u8; 512];
                // Until the server closes it, or the stranger is told to stop.
                loop {
                    let read =
                        tokio::time::timeout(Duration::from_millis(500), stream.read(&mut buf));
                    match read.await {
                        Ok(Ok(0) | Err(_)) => {
                            closed += 1;
                            break;
                        }
                        _ if stop.load(Ordering::Relaxed) => break,
                        _ => {}
                    }
                }
            }
            closed
        });
    }
    let mut closed = 0;
    while let Some(n) = held.join_next().await {
        closed += n.expect("an idle connection");
    }
    closed
}

/// Takes a seat in every lobby it sees, from `127.0.0.7`, as fast as its limits let it, until
/// `stop`; how many seats it took.
async fn snipe_seats(s: Remote, stop: Arc<AtomicBool>) -> u64 {
    let c = from(7);
    let mut taken = 0;
    while !stop.load(Ordering::Relaxed) {
        let Some((_, list, _)) = send(c.get(s.url("/games?status=lobby&limit=100"))).await else {
            continue;
        };
        for game in list["games"].as_array().into_iter().flatten() {
            let id = game["id"].as_str().unwrap_or_default();
            let join = c.post(s.url(&format!("/games/{id}/seats")));
            let reply = send(join.json(&serde_json::json!({"name": "Squatter"}))).await;
            if matches!(reply, Some((st, _, _)) if st == reqwest::StatusCode::CREATED) {
                taken += 1;
            }
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    taken
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

async fn strangers_beside_a_player(s: Remote, person: Player) {
    let player = from(1);
    // The same games (the same seeds, so the same deals, bots' moves and player's choices), each
    // played quietly and then beside the experts, in turn: whatever else the machine does
    // weighs on both alike.
    let (mut quiet, mut loaded) = (Vec::new(), Vec::new());
    let (mut greedy_moves, mut most_waiting, mut closed, mut sniped) = (0, 0, 0, 0);
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
        quiet.extend(person.play(&s, 2, seed).await);
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
        let idle = tokio::spawn(hold_idle_connections(s.clone(), stop.clone()));
        let sniper = tokio::spawn(snipe_seats(s.clone(), stop.clone()));
        tokio::time::sleep(Duration::from_secs(2)).await;
        loaded.extend(person.play(&s, 2, seed).await);
        stop.store(true, Ordering::Relaxed);
        closed += idle.await.unwrap();
        sniped += sniper.await.unwrap();
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
         recorded {moved} events, at most {most_waiting} searches waiting; {closed} half-sent requests closed by the server; {sniped} seats \
         sniped; the host took {:.1} % of the CPU time while the player played)",
        quiet.len(),
        loaded.len(),
        person.stolen()
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

// One backend: the thinkers, the workers and the front are the same on both, and the flood of
// games is measured on both (`flood.rs`). The person's thread and the server are made at the
// test's priority; then every thread of the strangers' clients yields to them, as if the
// strangers played from machines of their own.
#[test]
fn strangers_take_no_more_than_their_share() {
    let (_dir, url) = sqlite();
    let person = Player::new(1);
    let strangers = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .on_thread_start(as_if_elsewhere)
        .build()
        .expect("the strangers' runtime");
    strangers.block_on(async {
        let _machine = crate::harness::alone().await;
        let server = Server::start_limited(&url, &[]);
        // The thread that drives the strangers' connections too.
        as_if_elsewhere();
        strangers_beside_a_player(server.remote(), person).await;
    });
}
