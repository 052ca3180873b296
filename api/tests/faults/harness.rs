//! The fault suite's tools: the real `saboteur` binary in a process of its own (so it can be
//! killed with SIGKILL and started again on the same database), and a small HTTP client.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use reqwest::{Client, StatusCode};
use serde_json::{Value, json};
use tokio::net::{TcpSocket, TcpStream};

/// Where a server answers.
#[derive(Debug, Clone)]
pub struct Remote {
    /// `http://127.0.0.1:PORT`.
    pub base: String,
}

impl Remote {
    /// `base` + `path`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }
}

/// A server process.
pub struct Server {
    child: Child,
    remote: Remote,
}

impl std::ops::Deref for Server {
    type Target = Remote;
    fn deref(&self) -> &Remote {
        &self.remote
    }
}

impl Server {
    /// Starts `saboteur serve` on a free port with the store at `database_url`, and waits until
    /// it listens. Its per-client limits are off: the tests drive many clients from one address
    /// ([`Server::start_limited`] keeps them).
    pub fn start(database_url: &str, extra: &[&str]) -> Server {
        Server::start_limited(database_url, &[extra, &["--no-limits"]].concat())
    }

    /// [`Server::start`] with the per-client limits `extra` sets (the defaults otherwise).
    pub fn start_limited(database_url: &str, extra: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_saboteur"))
            .args(["serve", "--bind", "127.0.0.1:0", "--allow-fixed-seed"])
            .args(["--database-url", database_url])
            .args(extra)
            .env("RUST_LOG", "info")
            .env("NO_COLOR", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the binary starts");
        let stdout = child.stdout.take().expect("its output");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut sent = false;
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if !sent && let Some(rest) = line.split("listening on http://").nth(1) {
                    let addr = rest
                        .split_whitespace()
                        .next()
                        .unwrap_or_default()
                        .to_string();
                    let _ = tx.send(addr);
                    sent = true;
                }
            }
        });
        let addr = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("the server says where it listens");
        Server {
            child,
            remote: Remote {
                base: format!("http://{addr}"),
            },
        }
    }

    /// SIGKILL: no shutdown, no flush, whatever was in flight is cut.
    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// SIGTERM, as a deployment stops a process: the server shuts down gracefully.
    pub fn terminate(&self) {
        let pid = self.child.id().to_string();
        let sent = Command::new("kill").args(["-TERM", &pid]).status();
        assert!(sent.is_ok_and(|s| s.success()), "SIGTERM to {pid}");
    }

    /// Its exit status, once it has exited.
    pub fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().expect("the server's status")
    }

    /// Where it answers, to hand to tasks.
    pub fn remote(&self) -> Remote {
        self.remote.clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A client that gives up on a request after 10 s.
pub fn client() -> Client {
    Client::builder()
        .timeout(Duration::from_secs(10))
        .build()
        .expect("a client")
}

/// A client whose requests come from `127.0.0.N`: the server counts each address apart.
pub fn from(n: u8) -> Client {
    Client::builder()
        .local_address(std::net::IpAddr::from([127, 0, 0, n]))
        .timeout(Duration::from_secs(10))
        .build()
        .expect("a client")
}

/// A raw connection from `127.0.0.N` to `to`, for strangers that open thousands. Its port is
/// chosen when it connects (`IP_BIND_ADDRESS_NO_PORT`), not when it is bound, and it is reset
/// when dropped (a zero linger): otherwise every bind searches the ports still waiting out
/// the last round's closes, and the client alone spends whole cores of the machine in the
/// kernel, weighing on the server it measures.
pub async fn connect_from(n: u8, to: std::net::SocketAddr) -> std::io::Result<TcpStream> {
    use std::os::fd::AsRawFd;
    let socket = TcpSocket::new_v4()?;
    let yes: libc::c_int = 1;
    // SAFETY: the descriptor is the socket's own, open for the call; the option's value is a
    // live `c_int` of the length given.
    let set = unsafe {
        libc::setsockopt(
            socket.as_raw_fd(),
            libc::IPPROTO_IP,
            libc::IP_BIND_ADDRESS_NO_PORT,
            (&raw const yes).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    if set != 0 {
        return Err(std::io::Error::last_os_error());
    }
    socket.bind(std::net::SocketAddr::from(([127, 0, 0, n], 0)))?;
    let stream = socket.connect(to).await?;
    stream.set_zero_linger()?;
    Ok(stream)
}

/// Sends a request: its status, JSON body (`null` when none) and headers; `None` when the
/// connection failed.
pub async fn send(
    rb: reqwest::RequestBuilder,
) -> Option<(StatusCode, Value, reqwest::header::HeaderMap)> {
    let r = rb.send().await.ok()?;
    let status = r.status();
    let headers = r.headers().clone();
    let v = r.json::<Value>().await.unwrap_or(Value::Null);
    Some((status, v, headers))
}

/// A test seed as the API takes it.
pub fn seed_hex(seed: u64) -> String {
    format!("{:0<64}", format!("{seed:016x}"))
}

/// A started game whose seat 0 is a person (the token returned) and every other seat a bot,
/// random and heuristic in turn.
pub async fn game_with_bots(
    c: &Client,
    s: &Remote,
    ruleset: &str,
    players: u8,
    seed: u64,
) -> (String, String) {
    let level = |i: u8| {
        if i.is_multiple_of(2) {
            "random"
        } else {
            "heuristic"
        }
    };
    game_with_bots_of(c, s, (ruleset, players, seed), level).await
}

/// As [`game_with_bots`], seat `i`'s bot of `level(i)`.
pub async fn game_with_bots_of(
    c: &Client,
    s: &Remote,
    (ruleset, players, seed): (&str, u8, u64),
    level: impl Fn(u8) -> &'static str,
) -> (String, String) {
    let (st, g, _) = send(c.post(s.url("/games")).json(&json!({
        "ruleset": ruleset, "players": players, "seed": seed_hex(seed)
    })))
    .await
    .expect("create");
    assert_eq!(st, StatusCode::CREATED, "{g}");
    let id = g["game_id"].as_str().unwrap().to_string();
    let host = g["host_token"].as_str().unwrap().to_string();
    let (st, j, _) = send(
        c.post(s.url(&format!("/games/{id}/seats")))
            .json(&json!({"name": "Ada"})),
    )
    .await
    .expect("join");
    assert_eq!(st, StatusCode::CREATED, "{j}");
    let token = j["player_token"].as_str().unwrap().to_string();
    let mine = j["seat"].as_u64().unwrap();
    for i in 1..players {
        let mut tries = 0;
        loop {
            let (st, b, _) = send(
                c.post(s.url(&format!("/games/{id}/bots")))
                    .bearer_auth(&host)
                    .json(&json!({ "level": level(i) })),
            )
            .await
            .expect("seat a bot");
            if st == StatusCode::CREATED {
                break;
            }
            // A stranger took a seat meanwhile: the host gives it back, and seats the bot.
            tries += 1;
            assert!(st == StatusCode::CONFLICT && tries < 50, "{st} {b}");
            evict_strangers(c, s, (&id, &host), mine).await;
        }
    }
    let (st, o, _) = send(
        c.post(s.url(&format!("/games/{id}/start")))
            .bearer_auth(&host),
    )
    .await
    .expect("start");
    assert_eq!(st, StatusCode::OK, "{o}");
    (id, token)
}

/// The host of lobby `id` frees every seat a person other than seat `mine` holds.
async fn evict_strangers(c: &Client, s: &Remote, (id, host): (&str, &str), mine: u64) {
    let (_, g, _) = send(c.get(s.url(&format!("/games/{id}"))))
        .await
        .expect("the game");
    for seat in g["seats"].as_array().expect("seats") {
        let n = seat["seat"].as_u64().unwrap();
        if n != mine && seat.get("bot").is_none() {
            let (st, b, _) = send(
                c.delete(s.url(&format!("/games/{id}/seats/{n}")))
                    .bearer_auth(host),
            )
            .await
            .expect("free a seat");
            assert_eq!(st, StatusCode::NO_CONTENT, "{b}");
        }
    }
}

/// `count` started 4-seat games as [`game_with_bots`] makes them, base and Saboteur 2 in
/// turn, from seeds `first_seed`, `first_seed + 1`, …
pub async fn mixed_games(
    c: &Client,
    s: &Remote,
    count: u64,
    first_seed: u64,
) -> Vec<(String, String)> {
    let mut games = Vec::new();
    for i in 0..count {
        let ruleset = if i % 2 == 0 { "base" } else { "saboteur2" };
        games.push(game_with_bots(c, s, ruleset, 4, first_seed + i).await);
    }
    games
}

/// One move of the person at seat 0 when it is their turn: the first legal command, sent with
/// `If-Match` and an `Idempotency-Key`. Returns the command, the key, and the reply (status and
/// body); `None` when it is not their turn or the server did not answer.
pub async fn one_move(
    c: &Client,
    s: &Remote,
    id: &str,
    token: &str,
    n: u64,
) -> Option<(Value, String, StatusCode, Value)> {
    let (command, version) = choose_move(c, s, id, token, n).await?;
    let key = format!("move-{id}-{n}");
    let (st, body, _) = send(
        c.post(s.url(&format!("/games/{id}/commands")))
            .bearer_auth(token)
            .header("If-Match", format!("\"{version}\""))
            .header("Idempotency-Key", &key)
            .json(&command),
    )
    .await?;
    Some((command, key, st, body))
}

/// Waits (at most `within`) until the bots that answer a person's command have moved: the
/// person holding `token` may act again, or the game is over. The game's version then.
pub async fn settled(c: &Client, s: &Remote, id: &str, token: &str, within: Duration) -> i64 {
    let deadline = Instant::now() + within;
    loop {
        if choose_move(c, s, id, token, 0).await.is_some()
            || status(c, s, id).await.as_deref() == Some("finished")
        {
            return version(c, s, id).await;
        }
        assert!(
            Instant::now() < deadline,
            "the bots did not answer within {within:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The `n`th (modulo their number) of the legal commands of the person holding `token`, and the
/// version they were read at; `None` when it is not their turn or the server did not answer.
pub async fn choose_move(
    c: &Client,
    s: &Remote,
    id: &str,
    token: &str,
    n: u64,
) -> Option<(Value, Value)> {
    let (st, moves, _) = send(
        c.get(s.url(&format!("/games/{id}/legal-moves")))
            .bearer_auth(token),
    )
    .await?;
    if st != StatusCode::OK {
        return None;
    }
    let list = moves["commands"].as_array()?;
    let command = list.get(n as usize % list.len().max(1))?.clone();
    Some((command, moves["version"].clone()))
}

/// Sends `command` to `game` again with its `Idempotency-Key` (no `If-Match`): the status and
/// body of the reply.
pub async fn send_again(
    c: &Client,
    s: &Remote,
    game: &str,
    token: &str,
    key: &str,
    command: &Value,
) -> (StatusCode, Value) {
    let (st, body, _) = send(
        c.post(s.url(&format!("/games/{game}/commands")))
            .bearer_auth(token)
            .header("Idempotency-Key", key)
            .json(command),
    )
    .await
    .expect("the server answers");
    (st, body)
}

/// The game's summary status.
pub async fn status(c: &Client, s: &Remote, id: &str) -> Option<String> {
    let (_, g, _) = send(c.get(s.url(&format!("/games/{id}")))).await?;
    g["status"].as_str().map(str::to_string)
}

/// Plays the person's seat until the game is over (bots play theirs on the server), within
/// `limit`. Panics when the game does not end: a game stuck waiting for a bot shows here.
pub async fn play_to_end(c: &Client, s: &Remote, id: &str, token: &str, limit: Duration) {
    let started = Instant::now();
    let mut n = 1_000_000;
    while status(c, s, id).await.as_deref() != Some("finished") {
        if started.elapsed() >= limit {
            let read = |path: String| {
                let rb = c.get(s.url(&path)).bearer_auth(token);
                async move { send(rb).await.map(|(st, v, _)| (st, v)) }
            };
            let state = read(format!("/games/{id}/state")).await;
            let moves = read(format!("/games/{id}/legal-moves")).await;
            let events = read(format!("/games/{id}/events?after=0&limit=1000")).await;
            let tail: Vec<Value> = events
                .as_ref()
                .and_then(|(_, e)| e["events"].as_array().cloned())
                .map(|e| e.into_iter().rev().take(5).collect())
                .unwrap_or_default();
            panic!(
                "game {id} did not end within {limit:?}: stuck?\nphase: {:?}\nlegal moves: \
                 {moves:?}\nlast events: {tail:?}",
                state.map(|(st, v)| (st, v["view"]["phase"].clone(), v["table"].clone()))
            );
        }
        if one_move(c, s, id, token, n).await.is_none() {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        n += 1;
    }
}

/// `saboteur verify --game ID --database-url URL`: whether the game's record verifies, and
/// what the command said.
pub fn verify(database_url: &str, id: &str) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_saboteur"))
        .args(["verify", "--game", id, "--database-url", database_url])
        .output()
        .expect("verify runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr),
    )
}

/// Follows a game's event stream in the background: the sequence numbers received, in order.
pub struct Follower {
    seen: std::sync::Arc<std::sync::Mutex<Vec<i64>>>,
    /// Whether the response ended complete (`true`) or was cut.
    task: tokio::task::JoinHandle<bool>,
}

impl Follower {
    /// Opens `GET /games/{id}/events/stream` (with `token`, if any) and records every `id:`.
    pub async fn open(c: &Client, s: &Remote, id: &str, token: Option<&str>) -> Follower {
        let mut rb = c.get(s.url(&format!("/games/{id}/events/stream")));
        if let Some(t) = token {
            rb = rb.bearer_auth(t);
        }
        // No overall timeout for a stream: the follower is stopped by dropping it.
        let r = Client::new()
            .execute(rb.build().unwrap())
            .await
            .expect("the stream opens");
        assert_eq!(r.status(), StatusCode::OK);
        Follower::of(r)
    }

    /// Follows the stream `r` answers, recording every `id:`.
    pub fn of(mut r: reqwest::Response) -> Follower {
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let into = seen.clone();
        let task = tokio::spawn(async move {
            let mut pending = String::new();
            loop {
                match r.chunk().await {
                    Ok(Some(chunk)) => {
                        pending.push_str(&String::from_utf8_lossy(&chunk));
                        while let Some(end) = pending.find('\n') {
                            let line: String = pending.drain(..=end).collect();
                            if let Some(seq) = line.strip_prefix("id: ") {
                                into.lock().unwrap().push(seq.trim().parse().unwrap());
                            }
                        }
                    }
                    Ok(None) => return true,
                    Err(_) => return false,
                }
            }
        });
        Follower { seen, task }
    }

    /// Waits for the stream's end: whether its response ended complete (`true`) or was cut.
    pub async fn ended(&mut self) -> bool {
        (&mut self.task).await.expect("the follower's task")
    }

    /// The event ids received so far.
    pub fn seen(&self) -> Vec<i64> {
        self.seen.lock().unwrap().clone()
    }

    /// Waits until the stream has delivered every event up to `version`, and checks that it
    /// delivered each exactly once, in order.
    pub async fn expect_all(&self, version: i64, within: Duration) {
        expect_every_event(&self.seen, version, within).await;
    }
}

/// Waits until the event ids a stream recorded in `seen` reach `version`, and checks that they
/// are every event from the first, each once, in order.
pub async fn expect_every_event(seen: &std::sync::Mutex<Vec<i64>>, version: i64, within: Duration) {
    let deadline = Instant::now() + within;
    loop {
        let seen = seen.lock().unwrap().clone();
        if seen.last().copied().unwrap_or(0) >= version {
            let want: Vec<i64> = (1..=seen.len() as i64).collect();
            assert_eq!(seen, want, "the stream skipped or repeated events");
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the stream stopped at {:?} of {version}",
            seen.last()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

impl Drop for Follower {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The game's version as `s` serves it now.
pub async fn version(c: &Client, s: &Remote, id: &str) -> i64 {
    let (_, g, _) = send(c.get(s.url(&format!("/games/{id}"))))
        .await
        .expect("the game");
    g["version"].as_i64().expect("a version")
}

/// The machine, shared by this binary's tests: a test that measures latency (a p99 compared
/// with a quiet run's) holds it alone, every other test holds it beside the others, so no
/// server of another test takes the CPU from under a measurement.
static MACHINE: tokio::sync::RwLock<()> = tokio::sync::RwLock::const_new(());

/// Held by a test that measures: it runs with no other test of this binary.
pub async fn alone() -> tokio::sync::RwLockWriteGuard<'static, ()> {
    MACHINE.write().await
}

/// Held by every other test: they run side by side, never beside a measurement.
pub async fn beside() -> tokio::sync::RwLockReadGuard<'static, ()> {
    MACHINE.read().await
}
