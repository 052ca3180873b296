//! What a careful client keeps and follows, shared by the tests of where features meet: games
//! seated with players and bots, every receipt it was served, and event streams read frame by
//! frame in the background.

use std::time::Duration;

use reqwest::{Response, StatusCode};
use saboteur_verifier::audit::{AuditBundle, ReceiptProblem, ReceiptsChecked, check_receipts};
use serde_json::{Value, json};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::helpers::{TestApp, seed_hex};

/// Noon, 23 November 2026, in milliseconds since the Unix epoch: where manual clocks start.
pub const T0: u64 = 1_795_435_200_000;

/// How long a test waits for a stream to do what it must (end, or catch up): a bound on a
/// hang, not a measure of speed.
pub const STREAM_BOUND: Duration = Duration::from_secs(10);

/// A game in its lobby with every seat taken: players' tokens, `None` for bots.
pub struct Seated {
    pub id: String,
    pub host: String,
    pub tokens: Vec<Option<String>>,
}

impl Seated {
    /// The token of a player's seat.
    pub fn token(&self, seat: usize) -> &str {
        self.tokens[seat].as_deref().expect("a player's seat")
    }
}

/// Creates a game (`ruleset`, `options`, a fixed `seed`) and seats, in order, a player where
/// `humans` says so and a bot of `bot_level` elsewhere.
pub async fn seat(
    app: &TestApp,
    ruleset: &str,
    seed: u64,
    options: Value,
    humans: &[bool],
    bot_level: &str,
) -> Seated {
    let (st, g) = app
        .create_game(&json!({
            "ruleset": ruleset,
            "players": humans.len(),
            "seed": seed_hex(seed),
            "options": options,
        }))
        .await;
    assert_eq!(st, StatusCode::CREATED, "{g}");
    let id = g["game_id"].as_str().unwrap().to_string();
    let host = g["host_token"].as_str().unwrap().to_string();
    let mut tokens = Vec::new();
    for (seat, human) in humans.iter().enumerate() {
        if *human {
            let (st, j) = app.join(&id, &format!("p{seat}")).await;
            assert_eq!((st, &j["seat"]), (StatusCode::CREATED, &json!(seat)), "{j}");
            tokens.push(Some(j["player_token"].as_str().unwrap().to_string()));
        } else {
            let (st, b) = app
                .add_bot(&id, Some(&host), &json!({ "level": bot_level }))
                .await;
            assert_eq!((st, &b["seat"]), (StatusCode::CREATED, &json!(seat)), "{b}");
            tokens.push(None);
        }
    }
    Seated { id, host, tokens }
}

/// The game's version as `GET /games/{id}` gives it.
pub async fn version(app: &TestApp, id: &str) -> i64 {
    let (st, g) = app.game(id).await;
    assert_eq!(st, StatusCode::OK, "{g}");
    g["version"].as_i64().unwrap()
}

/// Every event after `after` as `token` sees it, page by page.
pub async fn events_after(app: &TestApp, id: &str, after: i64, token: Option<&str>) -> Vec<Value> {
    let mut out = Vec::new();
    let mut after = after;
    loop {
        let (st, page) = app
            .events(id, &format!("after={after}&limit=1000"), token)
            .await;
        assert_eq!(st, StatusCode::OK, "{page}");
        let events = page["events"].as_array().unwrap();
        out.extend(events.iter().cloned());
        match page["next_after"].as_i64() {
            Some(next) if !events.is_empty() => after = next,
            _ => return out,
        }
    }
}

/// The type of a logged event.
pub fn kind(e: &Value) -> &str {
    e["event"]["type"].as_str().unwrap_or_default()
}

/// The types of an outcome's events.
pub fn kinds(body: &Value) -> Vec<String> {
    let events = body["events"].as_array().into_iter().flatten();
    events.map(|e| kind(e).to_string()).collect()
}

/// A receipt without what differs between two servings of one body: its time and signature.
pub fn signed_part(receipt: &Value) -> Value {
    let mut r = receipt.clone();
    if let Some(o) = r.as_object_mut() {
        o.remove("served_at");
        o.remove("signature");
    }
    r
}

/// Every body a client was served with a receipt in it, in the order served.
#[derive(Default, Clone)]
pub struct Kept {
    pub bodies: Vec<Value>,
}

impl Kept {
    /// Keeps `body` if it carries a receipt; whether it did.
    pub fn keep(&mut self, body: &Value) -> bool {
        if body.get("receipt").is_some_and(Value::is_object) {
            self.bodies.push(body.clone());
            true
        } else {
            false
        }
    }

    pub fn len(&self) -> usize {
        self.bodies.len()
    }
}

/// What the two checks of a finished game's receipts said: the library's
/// (`saboteur_verifier::audit::check_receipts`, every body with its receipt) and the server's
/// (`POST /games/{id}/audit/receipts`, the receipts alone, in chunks under its 64 KiB limit).
pub struct ReceiptVerdicts {
    pub library: Result<ReceiptsChecked, ReceiptProblem>,
    /// The server's verdicts, chunk by chunk.
    pub server: Vec<Value>,
}

impl ReceiptVerdicts {
    /// `None` when both checks passed for every receipt; otherwise what went wrong.
    pub fn failure(&self, total: usize) -> Option<String> {
        let mut wrong = Vec::new();
        match &self.library {
            Ok(c) if c.receipts == total as u64 && c.bodies == total as u64 => {}
            Ok(c) => wrong.push(format!("check_receipts checked {c:?} of {total}")),
            Err(p) => wrong.push(format!("check_receipts: {p}")),
        }
        let mut counted = 0;
        for v in &self.server {
            if v["ok"] == true {
                counted += v["checked"]["receipts"].as_u64().unwrap_or(0);
            } else {
                wrong.push(format!("POST audit/receipts: {v}"));
            }
        }
        if wrong.is_empty() && counted != total as u64 {
            wrong.push(format!("the server checked {counted} of {total} receipts"));
        }
        (!wrong.is_empty()).then(|| wrong.join("; "))
    }
}

/// A finished game's audit bundle.
pub async fn bundle(app: &TestApp, id: &str) -> AuditBundle {
    let (st, b) = app.audit(id).await;
    assert_eq!(st, StatusCode::OK, "{b}");
    serde_json::from_value(b).expect("an audit bundle")
}

/// Checks every kept receipt of a finished game with the library and with the server.
pub async fn check_kept(app: &TestApp, id: &str, kept: &Kept) -> ReceiptVerdicts {
    let bundle = bundle(app, id).await;
    let receipts = saboteur_verifier::audit::read_receipts(&kept.bodies).expect("receipts");
    let library = check_receipts(&bundle, &receipts);
    let mut server = Vec::new();
    let mut chunk: Vec<Value> = Vec::new();
    let mut bytes = 0;
    let bare = kept.bodies.iter().map(|b| b["receipt"].clone());
    for r in bare.map(Some).chain([None]) {
        let size = r.as_ref().map_or(0, |r| r.to_string().len() + 1);
        if !chunk.is_empty() && (r.is_none() || bytes + size > 48 * 1024) {
            let (st, v) = app.audit_receipts(id, &Value::Array(chunk)).await;
            assert_eq!(st, StatusCode::OK, "{v}");
            server.push(v);
            chunk = Vec::new();
            bytes = 0;
        }
        if let Some(r) = r {
            bytes += size;
            chunk.push(r);
        }
    }
    ReceiptVerdicts { library, server }
}

/// What an event stream has delivered so far.
#[derive(Debug, Clone, Default)]
pub struct Delivered {
    /// The sequence numbers of the events delivered, in order.
    pub seqs: Vec<i64>,
    /// Whether the body ended (or broke off).
    pub ended: bool,
}

impl Delivered {
    pub fn last(&self) -> i64 {
        self.seqs.last().copied().unwrap_or(0)
    }
}

/// An event stream read in the background, frame by frame.
pub struct Stream {
    state: watch::Receiver<Delivered>,
    task: JoinHandle<()>,
}

impl Stream {
    /// Opens `GET /games/{id}/events/stream` with `token` (from the start of the log) and
    /// reads it in the background.
    pub async fn open(app: &TestApp, id: &str, token: &str) -> Stream {
        let response = app.events_stream(id, Some(token), None).await;
        assert_eq!(response.status(), StatusCode::OK);
        Stream::follow(response)
    }

    /// Reads `response`'s body in the background.
    pub fn follow(response: Response) -> Stream {
        let (tx, rx) = watch::channel(Delivered::default());
        let task = tokio::spawn(read_frames(response, tx));
        Stream { state: rx, task }
    }

    /// What it delivered so far.
    pub fn delivered(&self) -> Delivered {
        self.state.borrow().clone()
    }

    /// Waits (at most [`STREAM_BOUND`]) until it delivered event `seq` or ended; what it had.
    pub async fn reach(&mut self, seq: i64) -> Delivered {
        let _ = tokio::time::timeout(
            STREAM_BOUND,
            self.state.wait_for(|d| d.last() >= seq || d.ended),
        )
        .await;
        self.delivered()
    }

    /// Waits (at most [`STREAM_BOUND`]) until the body ends; what it had delivered by then.
    pub async fn end(&mut self) -> Delivered {
        let _ = tokio::time::timeout(STREAM_BOUND, self.state.wait_for(|d| d.ended)).await;
        self.delivered()
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Reads SSE frames until the body ends, publishing each event's sequence number.
async fn read_frames(mut response: Response, tx: watch::Sender<Delivered>) {
    let mut buf = String::new();
    loop {
        match response.chunk().await {
            Ok(Some(bytes)) => {
                buf.push_str(&String::from_utf8_lossy(&bytes));
                while let Some(end) = buf.find("\n\n") {
                    let frame: String = buf.drain(..end + 2).collect();
                    let seq = frame
                        .lines()
                        .find_map(|l| l.strip_prefix("id:"))
                        .and_then(|id| id.trim().parse::<i64>().ok());
                    if let Some(seq) = seq {
                        tx.send_modify(|d| d.seqs.push(seq));
                    }
                }
            }
            Ok(None) | Err(_) => {
                tx.send_modify(|d| d.ended = true);
                return;
            }
        }
    }
}
