//! Everything a client can do, mixed at random, end to end on SQLite and PostgreSQL.
//!
//! Each game is created with a random ruleset, player count, turn clock (none, per decision or
//! a bank, sometimes abandoning seats after timeouts) and spectator talk, some seats bots and
//! some players, on a server whose clock is manual. At each step the driver picks one act among
//! everything a client can do: a player's legal command (with or without `If-Match`, with or
//! without an `Idempotency-Key`, sometimes sent twice, sometimes retried much later), talk,
//! hiding a message, undo requests and votes, rollbacks, seats handed to bots and taken back,
//! new tokens, a deadline passed, views, replays and event pages for every audience, and probes
//! with revoked tokens. A finished game is sometimes followed by a rematch whose players claim
//! their seats and play on.
//!
//! What must hold throughout:
//! - a refusal is problem+json with a `code`, and changes nothing (the game's version);
//! - a 412 or a 409 only where the rules explain it (one client: no race);
//! - `If-Match: "v"` holds while only talk and new tokens were recorded after v, and fails once
//!   a command or an undo was;
//! - a retry with an `Idempotency-Key` is the first reply (its receipt too, but for its time
//!   and signature);
//! - a revoked token gets nothing (401 for views, replies and pages) and its event stream ends
//!   having delivered nothing from its revocation on; each seat's current stream follows the
//!   game to its end;
//! - once the game is over, every receipt served to anyone checks against its record.
//!
//! `SABOTEUR_MIXED_GAMES` sets the number of games per database (default 8 on SQLite, 3 on
//! PostgreSQL), `SABOTEUR_MIXED_SEED` the seed of the first chain of games (a game and its
//! rematches); a failure names its chain's seed.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use reqwest::{Method, StatusCode};
use saboteur_api::TimeSource;
use serde_json::{Value, json};

use crate::helpers::{Exchange, TestApp, pick, postgres_url, seed_hex, sqlite_url};
use crate::players::{Kept, Stream, T0, events_after, kind, kinds, signed_part};

/// Acts after which the players' seats are handed to bots so that the game ends.
const MOST_ACTS: usize = 400;

/// The events after which `If-Match` must still hold: nothing a seat decides on changed.
const QUIET: [&str; 3] = ["talk_posted", "talk_hidden", "token_reissued"];

/// splitmix64: small, seeded, the same everywhere.
#[derive(Clone)]
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number below `n` (0 when `n` is 0).
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next() % n }
    }

    fn index(&mut self, len: usize) -> usize {
        self.below(len as u64) as usize
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// A number from the environment, decimal or `0x` hex.
fn env_number(name: &str) -> Option<u64> {
    let text = std::env::var(name).ok()?;
    let text = text.trim();
    let parsed = match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => text.parse(),
    };
    Some(parsed.unwrap_or_else(|_| panic!("{name}={text:?} is not a number")))
}

/// Whether an exchange is a problem with a code.
fn is_problem(ex: &Exchange) -> bool {
    ex.content_type.starts_with("application/problem+json") && ex.body["code"].is_string()
}

/// A random text a client may send.
fn words(rng: &mut Rng) -> String {
    const WORDS: [&str; 8] = [
        "dig", "east", "saboteur", "lamp", "gold", "trust", "me", "¡olé!",
    ];
    (0..1 + rng.below(5))
        .map(|_| WORDS[rng.index(WORDS.len())])
        .collect::<Vec<_>>()
        .join(" ")
}

/// A player's seat as the driver knows it.
struct Player {
    token: String,
    /// The event stream opened with the current token.
    stream: Stream,
    /// The last legal moves read: their version and commands.
    read: Option<(i64, Vec<Value>)>,
}

/// A command sent with an `Idempotency-Key` and the reply it got first.
struct Keyed {
    seat: usize,
    key: String,
    command: Value,
    if_match: Option<i64>,
    first: Exchange,
}

/// What a view said about the game, read at the start of each act.
struct Look {
    version: i64,
    over: bool,
    awaited: Option<usize>,
    deadline: Option<u64>,
    handed: Vec<bool>,
}

/// One game driven at random.
struct Mixed {
    app: Arc<TestApp>,
    time: TimeSource,
    rng: Rng,
    id: String,
    host: String,
    /// How the game was created, for messages and rematches.
    settings: Value,
    spectator_talk: bool,
    /// Per seat: `None` for a bot.
    seats: Vec<Option<Player>>,
    /// Revoked tokens: (seat, token, the sequence number of the `token_reissued` event).
    revoked: Vec<(usize, String, i64)>,
    kept: Kept,
    messages: Vec<i64>,
    hidden: BTreeSet<i64>,
    /// Versions the game may be rolled back to: just before a batch.
    boundaries: Vec<i64>,
    keyed: Vec<Keyed>,
    pending_undo: bool,
    acts: usize,
    /// What was done and how it was answered ("command 200": count).
    tally: BTreeMap<String, usize>,
    /// The last acts, for failure messages.
    recent: Vec<String>,
    /// How long checking the receipts took.
    checking: std::time::Duration,
}

impl Mixed {
    fn humans(&self) -> Vec<usize> {
        (0..self.seats.len())
            .filter(|s| self.seats[*s].is_some())
            .collect()
    }

    /// A player's seat, at random.
    fn any_human(&mut self) -> usize {
        let humans = self.humans();
        humans[self.rng.index(humans.len())]
    }

    fn token(&self, seat: usize) -> String {
        self.seats[seat].as_ref().expect("a player").token.clone()
    }

    /// No token, the host's, or a player's, at random.
    fn anyone(&mut self) -> Option<String> {
        match self.rng.below(4) {
            0 => None,
            1 => Some(self.host.clone()),
            _ => {
                let seat = self.any_human();
                Some(self.token(seat))
            }
        }
    }

    fn note(&mut self, what: String) {
        if self.recent.len() == 12 {
            self.recent.remove(0);
        }
        self.recent.push(what);
    }

    fn count(&mut self, what: &str, status: StatusCode) {
        let key = format!("{what} {}", status.as_u16());
        *self.tally.entry(key).or_default() += 1;
    }

    /// Fails with the game's settings and its last acts.
    #[track_caller]
    fn fail(&self, what: String) -> ! {
        panic!(
            "game {} ({}), act {}: {what}\nlast acts:\n  {}",
            self.id,
            self.settings,
            self.acts,
            self.recent.join("\n  ")
        )
    }

    #[track_caller]
    fn check(&self, ok: bool, what: impl FnOnce() -> String) {
        if !ok {
            self.fail(what());
        }
    }

    /// `GET /games/{id}{tail}`.
    async fn get(&self, tail: &str, token: Option<&str>) -> Exchange {
        let path = format!("/games/{}{tail}", self.id);
        self.app
            .exchange(Method::GET, &path, token, None, &[])
            .await
    }

    /// `POST /games/{id}{tail}`.
    async fn post(
        &self,
        tail: &str,
        token: Option<&str>,
        body: Option<&Value>,
        headers: &[(&str, String)],
    ) -> Exchange {
        let path = format!("/games/{}{tail}", self.id);
        let app = &self.app;
        app.exchange(Method::POST, &path, token, body, headers)
            .await
    }

    async fn version(&self) -> i64 {
        let ex = self.get("", None).await;
        self.check(ex.status == StatusCode::OK, || format!("the game: {ex:?}"));
        ex.body["version"].as_i64().unwrap()
    }

    /// Keeps a served body's receipt: a successful write or view must carry one.
    fn keep(&mut self, what: &str, ex: &Exchange) {
        if !self.kept.keep(&ex.body) {
            self.fail(format!("{what}: served without a receipt: {ex:?}"));
        }
        if let Some(first) = ex.body["receipt"]["first"].as_i64() {
            self.boundaries.push(first - 1);
        }
        for e in ex.body["events"].as_array().into_iter().flatten() {
            match kind(e) {
                "undo_requested" => self.pending_undo = true,
                "undo_declined" | "undone" | "command_accepted" => self.pending_undo = false,
                _ => {}
            }
        }
    }

    /// A refusal: problem+json with a code, with a status the act allows, and the game where
    /// it was.
    async fn refused(&self, what: &str, ex: &Exchange, allowed: &[StatusCode], before: i64) {
        self.check(allowed.contains(&ex.status) && is_problem(ex), || {
            format!("{what}: {ex:?}: expected one of {allowed:?} as problem+json with a code")
        });
        let after = self.version().await;
        self.check(after == before, || {
            format!("{what} was refused ({ex:?}) yet the game moved from {before} to {after}")
        });
    }

    /// A view for a random audience, kept, once the game waits for a player (or is over).
    ///
    /// A timeout recorded on a read does not let the bots answer within that request: when
    /// the seat after it is a bot's, the game waits for the server's sweep (every second),
    /// which would race the next act. Unless an undo request waits for the players' votes,
    /// the driver waits for the sweep (10 s at most) before it acts.
    async fn look(&mut self) -> Look {
        let until = std::time::Instant::now() + crate::players::STREAM_BOUND;
        loop {
            let look = self.view_now().await;
            let bot = |s: usize| self.seats[s].is_none() || look.handed[s];
            if look.over || !look.awaited.is_some_and(bot) {
                return look;
            }
            if self.pending_in_log(look.version).await {
                self.pending_undo = true;
                return look;
            }
            self.count("waited for the sweep", StatusCode::OK);
            while self.version().await == look.version {
                self.check(std::time::Instant::now() < until, || {
                    format!(
                        "at {} the game waits for a bot that does not play",
                        look.version
                    )
                });
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
        }
    }

    /// Whether an undo request is pending, from the log: the last request, vote outcome or
    /// command.
    async fn pending_in_log(&self, version: i64) -> bool {
        let mut hi = version;
        while hi > 0 {
            let lo = (hi - 100).max(0);
            let ex = self
                .get(&format!("/events?after={lo}&limit={}", hi - lo), None)
                .await;
            let events = ex.body["events"].as_array().cloned().unwrap_or_default();
            for e in events.iter().rev() {
                match kind(e) {
                    "undo_requested" => return true,
                    "command_accepted" | "undone" | "undo_declined" => return false,
                    _ => {}
                }
            }
            hi = lo;
        }
        false
    }

    /// A view for a random audience, kept.
    async fn view_now(&mut self) -> Look {
        let token = self.anyone();
        let ex = self.get("/state", token.as_deref()).await;
        self.check(ex.status == StatusCode::OK, || format!("a view: {ex:?}"));
        self.keep("a view", &ex);
        let b = &ex.body;
        let deadline = b["table"]["deadline"]["at"].as_u64();
        let now = self.time.now_ms();
        self.check(deadline.is_none_or(|d| d > now), || {
            format!("a view at {now} shows a deadline passed: {}", b["table"])
        });
        Look {
            version: b["version"].as_i64().unwrap(),
            over: b["view"]["phase"]["name"] == "game_over",
            awaited: b["view"]["phase"]["awaited"].as_u64().map(|s| s as usize),
            deadline,
            handed: (0..self.seats.len())
                .map(|s| !b["table"]["seats"][s]["handed_to"].is_null())
                .collect(),
        }
    }

    /// Plays acts until the game is over.
    async fn play(&mut self) {
        loop {
            let look = self.look().await;
            if look.over {
                return;
            }
            if self.acts >= MOST_ACTS {
                self.abandon(&look).await;
                continue;
            }
            self.acts += 1;
            let some = |yes: bool, w: u64| if yes { w } else { 0 };
            let weights = [
                (60, "command"),
                (10, "read"),
                (8, "talk"),
                (1 + some(!self.messages.is_empty(), 2), "hide"),
                (3, "undo"),
                (1 + some(self.pending_undo, 7), "vote"),
                (2, "rollback"),
                (2, "hand over"),
                (1 + some(look.handed.contains(&true), 5), "reclaim"),
                (2, "reissue"),
                (some(look.deadline.is_some(), 3), "time out"),
                (some(look.deadline.is_some(), 6), "wait"),
                (4, "view"),
                (some(!self.keyed.is_empty(), 2), "retry"),
                (some(!self.keyed.is_empty(), 1), "reuse key"),
                (some(!self.revoked.is_empty(), 2), "revoked"),
            ];
            let mut roll = self.rng.below(weights.iter().map(|(w, _)| w).sum());
            let mut act = "view";
            for (w, a) in weights {
                if roll < w {
                    act = a;
                    break;
                }
                roll -= w;
            }
            match act {
                "command" => self.command(&look).await,
                "read" => self.think(&look).await,
                "talk" => self.talk(&look).await,
                "hide" => self.hide(&look).await,
                "undo" => self.undo(&look).await,
                "vote" => self.vote(&look).await,
                "rollback" => self.rollback(&look).await,
                "hand over" => self.hand_over(&look).await,
                "reclaim" => self.reclaim(&look).await,
                "reissue" => self.reissue(&look).await,
                "time out" => self.time_out(&look).await,
                "wait" => self.wait(&look),
                "retry" => self.retry_later().await,
                "reuse key" => self.reuse_key(&look).await,
                "revoked" => self.probe_revoked(&look).await,
                _ => self.view(&look).await,
            }
        }
    }

    /// A player's legal moves now, remembered as their last read.
    async fn read(&mut self, seat: usize, look: &Look) -> (i64, Vec<Value>) {
        let token = self.token(seat);
        let ex = self.get("/legal-moves", Some(&token)).await;
        self.check(ex.status == StatusCode::OK, || {
            format!("legal moves: {ex:?}")
        });
        let read = (
            ex.body["version"].as_i64().unwrap(),
            ex.body["commands"].as_array().unwrap().clone(),
        );
        self.check(read.0 == look.version, || {
            format!("legal moves at {} after a view at {}", read.0, look.version)
        });
        if let Some(p) = self.seats[seat].as_mut() {
            p.read = Some(read.clone());
        }
        read
    }

    /// A player (the awaited one, mostly) reads their legal moves and thinks it over: a later
    /// command may be chosen from this read.
    async fn think(&mut self, look: &Look) {
        let seat = match look.awaited {
            Some(a) if self.seats[a].is_some() && self.rng.chance(85) => a,
            _ => self.any_human(),
        };
        let (v, commands) = self.read(seat, look).await;
        self.note(format!(
            "seat {seat} reads {} legal moves at {v}",
            commands.len()
        ));
    }

    /// A player's command, chosen from legal moves read now or earlier, with or without
    /// `If-Match` and an `Idempotency-Key`. What it may be answered follows from what was
    /// recorded since the read.
    async fn command(&mut self, look: &Look) {
        let seat = match look.awaited {
            Some(a) if self.seats[a].is_some() && self.rng.chance(85) => a,
            _ => self.any_human(),
        };
        let stale = self.seats[seat].as_ref().and_then(|p| p.read.clone());
        let (v, commands) = match stale {
            Some(read) if !read.1.is_empty() && self.rng.chance(40) => read,
            _ => self.read(seat, look).await,
        };
        if commands.is_empty() {
            return self.note(format!("seat {seat} has no legal move at {v}"));
        }
        let command = pick(&commands, self.rng.index(1000));
        let if_match = self.rng.chance(50).then_some(v);
        let key = self
            .rng
            .chance(50)
            .then(|| format!("k{:x}", self.rng.next()));
        let since: Vec<String> = if v == look.version {
            Vec::new()
        } else {
            let events = events_after(&self.app, &self.id, v, None).await;
            events.iter().map(|e| kind(e).to_string()).collect()
        };
        let quiet = since.iter().all(|k| QUIET.contains(&k.as_str()));
        let moved = since
            .iter()
            .any(|k| k == "command_accepted" || k == "undone");
        self.note(format!(
            "seat {seat} sends {command} read at {v} (now {}; since: {since:?}), If-Match \
             {if_match:?}, key {key:?}",
            look.version
        ));
        let mut headers = Vec::new();
        if let Some(v) = if_match {
            headers.push(("If-Match", format!("\"{v}\"")));
        }
        if let Some(k) = &key {
            headers.push(("Idempotency-Key", k.clone()));
        }
        let token = self.token(seat);
        let ex = self
            .post("/commands", Some(&token), Some(&command), &headers)
            .await;
        self.count("command", ex.status);
        match ex.status {
            StatusCode::OK => {
                self.check(!(if_match.is_some() && moved), || {
                    format!("If-Match \"{v}\" held although {since:?} was recorded since")
                });
                self.keep("a command", &ex);
            }
            StatusCode::PRECONDITION_FAILED => {
                self.check(if_match.is_some() && !quiet, || {
                    format!("If-Match \"{v}\" failed with only {since:?} recorded since: {ex:?}")
                });
                let status = [ex.status];
                self.refused("a stale command", &ex, &status, look.version)
                    .await;
            }
            _ => {
                self.check(!quiet, || {
                    format!("a command legal at {v}, only {since:?} recorded since: {ex:?}")
                });
                let status = [StatusCode::UNPROCESSABLE_ENTITY];
                self.refused("a command", &ex, &status, look.version).await;
            }
        }
        if let Some(key) = key {
            let keyed = Keyed {
                seat,
                key,
                command,
                if_match,
                first: ex,
            };
            if self.rng.chance(35) {
                self.resend(&keyed, "at once").await;
            }
            if keyed.first.status == StatusCode::OK {
                self.keyed.push(keyed);
            }
        }
    }

    /// Sends a keyed command again, with the same headers: the reply must be the first one.
    async fn resend(&mut self, k: &Keyed, when: &str) {
        let mut headers = vec![("Idempotency-Key", k.key.clone())];
        if let Some(v) = k.if_match {
            headers.push(("If-Match", format!("\"{v}\"")));
        }
        let token = self.token(k.seat);
        self.note(format!("seat {} sends {} again {when}", k.seat, k.key));
        let again = self
            .post("/commands", Some(&token), Some(&k.command), &headers)
            .await;
        self.count("retry", again.status);
        let first = &k.first.body;
        let same = again.status == k.first.status
            && if again.status == StatusCode::OK {
                ["version", "events", "awaited"]
                    .iter()
                    .all(|f| again.body[f] == first[f])
                    && signed_part(&again.body["receipt"]) == signed_part(&first["receipt"])
            } else {
                again.body["code"] == first["code"]
            };
        self.check(same, || {
            let (a, b) = (&first["events"], &again.body["events"]);
            let apart = (0..a.as_array().map_or(0, Vec::len))
                .find(|i| a[i] != b[i])
                .map_or(String::new(), |i| {
                    format!("; event {i} was {} and is now {}", a[i], b[i])
                });
            format!(
                "a retry {when} is not the first reply: first {} version {} events {:?}; the \
                 retry {} version {} events {:?}{apart}\nfirst {first}\nretry {}",
                k.first.status,
                first["version"],
                kinds(first),
                again.status,
                again.body["version"],
                kinds(&again.body),
                again.body
            )
        });
        if again.status == StatusCode::OK {
            self.keep("a retry", &again);
        }
    }

    /// An earlier keyed command sent again, many acts later.
    async fn retry_later(&mut self) {
        let i = self.rng.index(self.keyed.len());
        let k = self.keyed.swap_remove(i);
        self.resend(&k, "later").await;
        self.keyed.push(k);
    }

    /// A key used again for another command: refused.
    async fn reuse_key(&mut self, look: &Look) {
        let k = &self.keyed[self.rng.index(self.keyed.len())];
        let (seat, key, first) = (k.seat, k.key.clone(), k.command.clone());
        let (_, commands) = self.read(seat, look).await;
        let Some(other) = commands.into_iter().find(|c| *c != first) else {
            return;
        };
        self.note(format!("seat {seat} sends {other} with {key}, used before"));
        let token = self.token(seat);
        let headers = [("Idempotency-Key", key)];
        let ex = self
            .post("/commands", Some(&token), Some(&other), &headers)
            .await;
        self.count("reused key", ex.status);
        self.check(ex.body["code"] == "idempotency_key_reused", || {
            format!("a key used again for another command: {ex:?}")
        });
        let status = [StatusCode::UNPROCESSABLE_ENTITY];
        self.refused("a reused key", &ex, &status, look.version)
            .await;
    }

    /// Talk by a player, a spectator, or (refused) the host.
    async fn talk(&mut self, look: &Look) {
        let text = words(&mut self.rng);
        let many = StatusCode::TOO_MANY_REQUESTS;
        let (who, token, body, allowed) = match self.rng.below(10) {
            0..=5 => {
                let s = self.any_human();
                let body = json!({ "text": text });
                (format!("seat {s}"), Some(self.token(s)), body, many)
            }
            6..=8 => {
                let body = json!({ "text": text, "name": "kibitzer" });
                let allowed = if self.spectator_talk {
                    many
                } else {
                    StatusCode::FORBIDDEN
                };
                ("a spectator".into(), None, body, allowed)
            }
            _ => {
                let body = json!({ "text": text });
                let host = Some(self.host.clone());
                ("the host".into(), host, body, StatusCode::FORBIDDEN)
            }
        };
        self.note(format!("{who} says {text:?}"));
        let ex = self.post("/talk", token.as_deref(), Some(&body), &[]).await;
        self.count("talk", ex.status);
        if ex.status == StatusCode::OK {
            self.keep("talk", &ex);
            self.messages
                .push(ex.body["events"][0]["seq"].as_i64().unwrap());
        } else {
            self.refused("talk", &ex, &[allowed], look.version).await;
        }
    }

    /// The host hides a message (once: a second time is the documented conflict); a player
    /// may not; event 1 is not a message.
    async fn hide(&mut self, look: &Look) {
        let Some(&seq) = self.messages.get(self.rng.index(self.messages.len())) else {
            let ex = self.post("/talk/1/hide", Some(&self.host), None, &[]).await;
            self.count("hide", ex.status);
            let status = [StatusCode::NOT_FOUND];
            return self
                .refused("hiding event 1", &ex, &status, look.version)
                .await;
        };
        let by_player = self.rng.chance(10);
        let token = if by_player {
            let seat = self.any_human();
            self.token(seat)
        } else {
            self.host.clone()
        };
        self.note(format!("message {seq} hidden (by a player: {by_player})"));
        let tail = format!("/talk/{seq}/hide");
        let ex = self.post(&tail, Some(&token), None, &[]).await;
        self.count("hide", ex.status);
        if by_player {
            let status = [StatusCode::FORBIDDEN];
            self.refused("a player hiding", &ex, &status, look.version)
                .await;
        } else if self.hidden.contains(&seq) {
            let status = [StatusCode::CONFLICT];
            self.refused("hiding twice", &ex, &status, look.version)
                .await;
        } else {
            self.check(ex.status == StatusCode::OK, || format!("hiding: {ex:?}"));
            self.keep("hiding", &ex);
            self.hidden.insert(seq);
        }
    }

    /// A player asks to take back their last command. 409 is the rules' answer when they have
    /// none, someone acted since, or a request is pending: not a race.
    async fn undo(&mut self, look: &Look) {
        let seat = self.any_human();
        let token = self.token(seat);
        self.note(format!("seat {seat} asks to undo"));
        let ex = self.post("/undo", Some(&token), None, &[]).await;
        self.count("undo", ex.status);
        match ex.status {
            StatusCode::OK | StatusCode::ACCEPTED => self.keep("an undo request", &ex),
            _ => {
                let status = [StatusCode::CONFLICT];
                self.refused("an undo request", &ex, &status, look.version)
                    .await;
            }
        }
    }

    /// A player votes on the pending request. 409 when none is pending, or they asked or
    /// voted already.
    async fn vote(&mut self, look: &Look) {
        let seat = self.any_human();
        let token = self.token(seat);
        let how = if self.rng.chance(60) {
            "approve"
        } else {
            "decline"
        };
        self.note(format!("seat {seat} votes: {how}"));
        let ex = self
            .post(&format!("/undo/{how}"), Some(&token), None, &[])
            .await;
        self.count(how, ex.status);
        match ex.status {
            StatusCode::OK | StatusCode::ACCEPTED => self.keep("a vote", &ex),
            _ => {
                let status = [StatusCode::CONFLICT];
                self.refused("a vote", &ex, &status, look.version).await;
            }
        }
    }

    /// The host rolls back: to a version just before a batch it saw (accepted), or to any
    /// (400 when it is not one).
    async fn rollback(&mut self, look: &Look) {
        let known: Vec<i64> = self
            .boundaries
            .iter()
            .copied()
            .filter(|v| (2..look.version).contains(v))
            .collect();
        let to = match known.get(self.rng.index(known.len())) {
            Some(v) if self.rng.chance(80) => *v,
            _ => 2 + self.rng.below(look.version as u64) as i64,
        };
        let body = json!({ "to_version": to, "reason": words(&mut self.rng) });
        self.note(format!("the host rolls back to {to} from {}", look.version));
        let ex = self
            .post("/rollback", Some(&self.host), Some(&body), &[])
            .await;
        self.count("rollback", ex.status);
        if ex.status == StatusCode::OK {
            self.keep("a rollback", &ex);
        } else {
            self.check(!known.contains(&to), || {
                format!("a rollback to {to}, just before a batch: {ex:?}")
            });
            let status = [StatusCode::BAD_REQUEST];
            self.refused("a rollback", &ex, &status, look.version).await;
        }
    }

    /// The host hands a seat to a bot (a conflict when a bot plays it already); a player may
    /// not.
    async fn hand_over(&mut self, look: &Look) {
        let seat = self.rng.index(self.seats.len());
        let level = if self.rng.chance(50) {
            "random"
        } else {
            "heuristic"
        };
        let by_player = self.seats[seat].is_some() && self.rng.chance(10);
        let token = if by_player {
            self.token(seat)
        } else {
            self.host.clone()
        };
        self.note(format!(
            "seat {seat} handed to a {level} bot (by its player: {by_player})"
        ));
        let body = json!({ "level": level });
        let tail = format!("/seats/{seat}/handover");
        let ex = self.post(&tail, Some(&token), Some(&body), &[]).await;
        self.count("hand over", ex.status);
        let (what, status) = if by_player {
            ("a player handing over", StatusCode::FORBIDDEN)
        } else if self.seats[seat].is_none() || look.handed[seat] {
            ("handing over a bot's seat", StatusCode::CONFLICT)
        } else {
            ("handing over", StatusCode::OK)
        };
        if status == StatusCode::OK {
            self.check(ex.status == status, || format!("{what} {seat}: {ex:?}"));
            self.keep(what, &ex);
        } else {
            self.refused(what, &ex, &[status], look.version).await;
        }
    }

    /// A player takes their seat back from the bot (a conflict when no bot plays it);
    /// another seat's token may not.
    async fn reclaim(&mut self, look: &Look) {
        let handed: Vec<usize> = (self.humans().into_iter())
            .filter(|s| look.handed[*s])
            .collect();
        let seat = match handed.get(self.rng.index(handed.len())) {
            Some(s) if self.rng.chance(90) => *s,
            _ => self.any_human(),
        };
        let other = self.any_human();
        let other = (other != seat && self.rng.chance(10)).then_some(other);
        let token = self.token(other.unwrap_or(seat));
        self.note(format!("seat {seat} reclaimed (by seat {other:?})"));
        let tail = format!("/seats/{seat}/reclaim");
        let ex = self.post(&tail, Some(&token), None, &[]).await;
        self.count("reclaim", ex.status);
        let (what, status) = if other.is_some() {
            ("another seat reclaiming", StatusCode::FORBIDDEN)
        } else if !look.handed[seat] {
            ("reclaiming a seat no bot plays", StatusCode::CONFLICT)
        } else {
            ("reclaiming", StatusCode::OK)
        };
        if status == StatusCode::OK {
            self.check(ex.status == status, || format!("{what} {seat}: {ex:?}"));
            self.keep(what, &ex);
        } else {
            self.refused(what, &ex, &[status], look.version).await;
        }
    }

    /// The host issues a seat a new token: the old one's stream ends, having delivered
    /// nothing from the reissue on; a new stream follows with the new token.
    async fn reissue(&mut self, look: &Look) {
        let seat = self.rng.index(self.seats.len());
        self.note(format!("the host issues seat {seat} a new token"));
        let tail = format!("/seats/{seat}/token");
        let Some(player) = self.seats[seat].as_mut() else {
            let ex = self.post(&tail, Some(&self.host), None, &[]).await;
            self.count("reissue", ex.status);
            let status = [StatusCode::CONFLICT];
            return self
                .refused("a bot's token", &ex, &status, look.version)
                .await;
        };
        let seen = player.stream.reach(look.version).await;
        self.check(seen.last() == look.version && !seen.ended, || {
            format!(
                "seat {seat}'s stream before the reissue: {seen:?}, the game at {}",
                look.version
            )
        });
        let ex = self.post(&tail, Some(&self.host), None, &[]).await;
        self.count("reissue", ex.status);
        self.check(ex.status == StatusCode::OK, || {
            format!("a new token: {ex:?}")
        });
        let new = ex.body["player_token"].as_str().unwrap().to_string();
        let reissued = events_after(&self.app, &self.id, look.version, None)
            .await
            .iter()
            .find(|e| kind(e) == "token_reissued" && e["event"]["seat"] == seat)
            .and_then(|e| e["seq"].as_i64());
        let Some(reissued) = reissued else {
            self.fail(format!(
                "no token_reissued for seat {seat} after {}",
                look.version
            ))
        };
        let stream = Stream::open(&self.app, &self.id, &new).await;
        let player = self.seats[seat].as_mut().expect("a player");
        let mut old = std::mem::replace(&mut player.stream, stream);
        let old_token = std::mem::replace(&mut player.token, new);
        let got = old.end().await;
        let leaked: Vec<i64> = got
            .seqs
            .iter()
            .copied()
            .filter(|s| *s >= reissued)
            .collect();
        self.check(got.ended && leaked.is_empty(), || {
            format!(
                "seat {seat}'s token was reissued at event {reissued}: the old token's stream {} \
                 and delivered {leaked:?} from then on",
                if got.ended { "ended" } else { "did not end" }
            )
        });
        self.revoked.push((seat, old_token, reissued));
    }

    /// The manual clock passes the awaited seat's deadline; a view records the timeout.
    async fn time_out(&mut self, look: &Look) {
        let Some(deadline) = look.deadline else {
            return;
        };
        let at = deadline + self.rng.below(3_000);
        self.time.set(at);
        self.note(format!(
            "the clock passes the deadline {deadline}: now {at}"
        ));
        let again = self.look().await;
        let events = events_after(&self.app, &self.id, look.version, None).await;
        let timed_out = events.iter().any(|e| kind(e) == "turn_timed_out");
        self.count("time out", StatusCode::OK);
        self.check(again.version > look.version && timed_out, || {
            format!("the deadline {deadline} passed at {at}, yet no timeout was recorded")
        });
    }

    /// Time passes on the manual clock, short of the deadline.
    fn wait(&mut self, look: &Look) {
        let now = self.time.now_ms();
        let room = look.deadline.map_or(30_000, |d| d.saturating_sub(now + 1));
        let step = self.rng.below(room.min(20_000));
        self.time.set(now + step);
        self.note(format!("{step} ms pass"));
    }

    /// A replay or a page of events for a random audience.
    async fn view(&mut self, look: &Look) {
        let token = self.anyone();
        if self.rng.chance(50) {
            let at = 1 + self.rng.below(look.version as u64);
            let ex = self.get(&format!("/state?at={at}"), token.as_deref()).await;
            self.count("replay", ex.status);
            self.check(ex.status == StatusCode::OK, || {
                format!("a replay at {at}: {ex:?}")
            });
            self.keep("a replay", &ex);
        } else {
            let after = self.rng.below(look.version as u64);
            let tail = format!("/events?after={after}&limit=50");
            let ex = self.get(&tail, token.as_deref()).await;
            self.count("events", ex.status);
            self.check(ex.status == StatusCode::OK, || format!("events: {ex:?}"));
        }
    }

    /// A revoked token tries anything: refused (401), nothing changes.
    async fn probe_revoked(&mut self, look: &Look) {
        let (seat, token, _) = self.revoked[self.rng.index(self.revoked.len())].clone();
        let command = json!({ "type": "pass" });
        let talk = json!({ "text": "still me" });
        let t = Some(token.as_str());
        let (what, ex) = match self.rng.below(7) {
            0 => ("state", self.get("/state", t).await),
            1 => ("legal moves", self.get("/legal-moves", t).await),
            2 => ("events", self.get("/events?after=0", t).await),
            3 => (
                "a command",
                self.post("/commands", t, Some(&command), &[]).await,
            ),
            4 => ("talk", self.post("/talk", t, Some(&talk), &[]).await),
            5 => ("undo", self.post("/undo", t, None, &[]).await),
            _ => {
                // Only the status: a stream that opened would never end.
                let r = self.app.events_stream(&self.id, t, None).await;
                let refused = Exchange {
                    status: r.status(),
                    content_type: (r.headers().get("content-type"))
                        .and_then(|v| v.to_str().ok())
                        .unwrap_or_default()
                        .to_string(),
                    body: Value::Null,
                };
                let body = if refused.status.is_success() {
                    Value::Null
                } else {
                    r.json().await.unwrap_or_default()
                };
                ("a stream", Exchange { body, ..refused })
            }
        };
        self.note(format!("seat {seat}'s revoked token asks for {what}"));
        self.count("revoked", ex.status);
        let what = format!("{what} with a revoked token");
        let status = [StatusCode::UNAUTHORIZED];
        self.refused(&what, &ex, &status, look.version).await;
    }

    /// Too many acts: the players' seats go to bots, which finish the game.
    async fn abandon(&mut self, look: &Look) {
        for seat in self.humans() {
            if look.handed[seat] {
                continue;
            }
            let body = json!({ "level": "heuristic" });
            let tail = format!("/seats/{seat}/handover");
            let ex = self.post(&tail, Some(&self.host), Some(&body), &[]).await;
            self.check(ex.status == StatusCode::OK, || {
                format!("hand over {seat}: {ex:?}")
            });
            self.keep("a handover", &ex);
        }
        self.note("every seat handed to bots".into());
        for _ in 0..100 {
            if self.look().await.over {
                return;
            }
            // A bot could not act within a request: the server's sweep plays it.
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        self.fail("every seat is played by a bot, yet the game does not end".into());
    }

    /// The end: views for everyone, every stream at the last event, every receipt checked.
    async fn finish(&mut self) {
        let end = self.version().await;
        let mut tokens = vec![None, Some(self.host.clone())];
        tokens.extend(self.humans().into_iter().map(|s| Some(self.token(s))));
        for token in tokens {
            let ex = self.get("/state", token.as_deref()).await;
            self.check(ex.body["view"]["phase"]["name"] == "game_over", || {
                format!("the end: {ex:?}")
            });
            self.keep("the last view", &ex);
        }
        for seat in self.humans() {
            let player = self.seats[seat].as_mut().expect("a player");
            let seen = player.stream.reach(end).await;
            self.check(seen.last() == end, || {
                format!("seat {seat}'s stream stopped at {seen:?}; the game ended at {end}")
            });
        }
        let bundle = crate::players::bundle(&self.app, &self.id).await;
        if let Err(wrong) = saboteur_api::audit::verify(&bundle) {
            // The events before the one named, to see what was recorded there.
            let seq: usize = (wrong.strip_prefix("event "))
                .and_then(|r| r.split(':').next())
                .and_then(|n| n.parse().ok())
                .unwrap_or(bundle.events.len());
            let around: Vec<String> = bundle.events
                [seq.saturating_sub(8)..seq.min(bundle.events.len())]
                .iter()
                .map(|e| format!("{} {}", e.seq, e.payload))
                .collect();
            self.fail(format!(
                "the audit: {wrong}; the log up to it:\n  {}",
                around.join("\n  ")
            ));
        }
        let receipts = saboteur_api::audit::read_receipts(&self.kept.bodies).expect("receipts");
        let started = std::time::Instant::now();
        let checked = saboteur_api::audit::check_receipts(&bundle, &receipts);
        self.checking = started.elapsed();
        let n = self.kept.len() as u64;
        self.check(
            n > 0
                && checked
                    .as_ref()
                    .is_ok_and(|c| c.receipts == n && c.bodies == n),
            || format!("{n} receipts against the record: {checked:?}"),
        );
    }

    /// A rematch: its players claim their seats with their tokens, and it starts.
    async fn rematch(self) -> Mixed {
        let ex = self.post("/rematch", Some(&self.host), None, &[]).await;
        self.check(ex.status == StatusCode::CREATED, || {
            format!("a rematch: {ex:?}")
        });
        let id = ex.body["game_id"].as_str().unwrap().to_string();
        let host = ex.body["host_token"].as_str().unwrap().to_string();
        let mut tokens = Vec::new();
        for (seat, player) in self.seats.iter().enumerate() {
            let Some(p) = player else {
                tokens.push(None);
                continue;
            };
            let path = format!("/games/{id}/seats/{seat}/claim");
            let app = &self.app;
            let ex = app
                .exchange(Method::POST, &path, Some(&p.token), None, &[])
                .await;
            self.check(ex.status == StatusCode::CREATED, || {
                format!("a claim: {ex:?}")
            });
            tokens.push(Some(ex.body["player_token"].as_str().unwrap().to_string()));
        }
        let mut settings = self.settings.clone();
        settings["rematch_of"] = json!(self.id);
        let (app, time, rng) = (self.app.clone(), self.time.clone(), self.rng.clone());
        Mixed::started(
            app,
            time,
            rng,
            (id, host, tokens),
            settings,
            self.spectator_talk,
        )
        .await
    }

    /// Starts a seated game and opens every player's stream.
    async fn started(
        app: Arc<TestApp>,
        time: TimeSource,
        rng: Rng,
        (id, host, tokens): (String, String, Vec<Option<String>>),
        settings: Value,
        spectator_talk: bool,
    ) -> Mixed {
        let mut seats = Vec::new();
        for token in tokens {
            seats.push(match token {
                None => None,
                Some(token) => Some(Player {
                    stream: Stream::open(&app, &id, &token).await,
                    token,
                    read: None,
                }),
            });
        }
        let mut game = Mixed {
            app,
            time,
            rng,
            id,
            host,
            settings,
            spectator_talk,
            seats,
            revoked: Vec::new(),
            kept: Kept::default(),
            messages: Vec::new(),
            hidden: BTreeSet::new(),
            boundaries: Vec::new(),
            keyed: Vec::new(),
            pending_undo: false,
            acts: 0,
            tally: BTreeMap::new(),
            recent: Vec::new(),
            checking: std::time::Duration::ZERO,
        };
        let ex = game.post("/start", Some(&game.host), None, &[]).await;
        game.check(ex.status == StatusCode::OK, || format!("the start: {ex:?}"));
        game.keep("the start", &ex);
        game
    }

    /// A new game with random settings, seated and started.
    async fn create(app: Arc<TestApp>, time: TimeSource, mut rng: Rng) -> Mixed {
        let ruleset = if rng.chance(50) { "base" } else { "saboteur2" };
        let players = 3 + rng.index(5);
        let mut options = json!({ "spectator_talk": rng.chance(50) });
        let clock = rng.below(3);
        if clock > 0 {
            options["clock"] = if clock == 1 {
                json!({ "kind": "per_decision", "seconds": 5 + rng.below(116) })
            } else {
                json!({
                    "kind": "bank",
                    "seconds": 30 + rng.below(571),
                    "increment_seconds": 5 + rng.below(16),
                })
            };
            if rng.chance(50) {
                options["abandon_after"] = json!(1 + rng.below(3));
            }
        }
        // Now and then every seat a player's: only then do undo requests wait for votes.
        let all = rng.chance(20);
        let mut humans: Vec<bool> = (0..players).map(|_| all || rng.chance(50)).collect();
        humans[rng.index(players)] = true;
        let settings = json!({
            "ruleset": ruleset,
            "players": players,
            "first_player": rng.index(players),
            "seed": seed_hex(rng.next()),
            "options": options,
        });
        let (st, g) = app.create_game(&settings).await;
        assert_eq!(st, StatusCode::CREATED, "{settings} → {g}");
        let id = g["game_id"].as_str().unwrap().to_string();
        let host = g["host_token"].as_str().unwrap().to_string();
        let mut tokens = Vec::new();
        for (seat, human) in humans.iter().enumerate() {
            if *human {
                let (st, j) = app.join(&id, &format!("p{seat}")).await;
                assert_eq!(st, StatusCode::CREATED, "{j}");
                tokens.push(Some(j["player_token"].as_str().unwrap().to_string()));
            } else {
                let level = if rng.chance(50) {
                    "random"
                } else {
                    "heuristic"
                };
                let bot = json!({ "level": level });
                let (st, b) = app.add_bot(&id, Some(&host), &bot).await;
                assert_eq!(st, StatusCode::CREATED, "{b}");
                tokens.push(None);
            }
        }
        let mut described = settings;
        described["humans"] = json!(humans);
        let talk = options["spectator_talk"] == true;
        Mixed::started(app, time, rng, (id, host, tokens), described, talk).await
    }
}

/// A chain of games from `seed`: a game, then, while `budget` allows and the dice say so, its
/// rematches. Counts the games finished in `played`; returns the tally of acts.
async fn chain(
    app: Arc<TestApp>,
    time: TimeSource,
    seed: u64,
    budget: usize,
    played: Arc<AtomicUsize>,
) -> BTreeMap<String, usize> {
    let mut game = Mixed::create(app, time, Rng(seed)).await;
    let mut tally = BTreeMap::new();
    loop {
        game.play().await;
        game.finish().await;
        let accepted = game.tally.get("command 200").copied().unwrap_or(0);
        game.check(accepted > 0, || {
            format!("no player's command: {:?}", game.tally)
        });
        println!(
            "mixed: seed {seed:#018x}, game {} ({}): {} acts, {} receipts checked in {:?}",
            played.load(Ordering::SeqCst) + 1,
            game.settings,
            game.acts,
            game.kept.len(),
            game.checking,
        );
        for (k, v) in &game.tally {
            *tally.entry(k.clone()).or_default() += v;
        }
        if played.fetch_add(1, Ordering::SeqCst) + 1 >= budget || !game.rng.chance(40) {
            return tally;
        }
        game = game.rematch().await;
    }
}

/// Plays `SABOTEUR_MIXED_GAMES` (or `default`) games on one server with a manual clock.
async fn mixed(database_url: String, keep: Option<tempfile::TempDir>, default: usize, salt: u64) {
    let games = env_number("SABOTEUR_MIXED_GAMES").map_or(default, |n| n as usize);
    let mut seed = env_number("SABOTEUR_MIXED_SEED").unwrap_or(0x5AB0_7E0B ^ salt);
    let time = TimeSource::manual(T0);
    let app = Arc::new(TestApp::spawn_at(database_url, keep, time.clone()).await);
    let played = Arc::new(AtomicUsize::new(0));
    let mut seeds = Rng(seed);
    let mut tally: BTreeMap<String, usize> = BTreeMap::new();
    while played.load(Ordering::SeqCst) < games {
        let before = played.load(Ordering::SeqCst);
        let run = chain(app.clone(), time.clone(), seed, games, played.clone());
        match tokio::spawn(run).await {
            Ok(t) => t
                .into_iter()
                .for_each(|(k, v)| *tally.entry(k).or_default() += v),
            Err(e) => {
                let n = played.load(Ordering::SeqCst) - before + 1;
                let payload = e.into_panic();
                let message = (payload.downcast_ref::<String>().cloned())
                    .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                panic!(
                    "mixed game {n} of the chain with seed {seed:#018x} failed (again: \
                     SABOTEUR_MIXED_SEED={seed:#x} SABOTEUR_MIXED_GAMES={n}; a rematch's deal is \
                     the server's own draw): {message}"
                );
            }
        }
        seed = seeds.next();
    }
    println!("mixed: {games} games: {tally:?}");
    for act in ["command 200", "talk 200", "reissue 200", "replay 200"] {
        assert!(
            games < 3 || tally.get(act).is_some_and(|n| *n > 0),
            "never {act} in {games} games: {tally:?}"
        );
    }
}

#[tokio::test]
async fn sqlite_mixed_acts() {
    let dir = tempfile::tempdir().unwrap();
    let url = sqlite_url(&dir, "mixed.db");
    mixed(url, Some(dir), 8, 0).await;
}

#[tokio::test]
async fn postgres_mixed_acts() {
    mixed(postgres_url().await, None, 3, 0x9E37_79B9).await;
}
