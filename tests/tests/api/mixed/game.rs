//! The state of one game driven at random and its bookkeeping: each seat's token, stream and
//! last read, the receipts kept, the keyed commands and revoked tokens, the tally and the last
//! acts that a failure names, and the view every act starts from.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use reqwest::{Method, StatusCode};
use saboteur_api::TimeSource;
use serde_json::Value;

use super::dice::Rng;
use crate::helpers::{Exchange, TestApp};
use crate::players::{Kept, Stream, kind};

/// Whether an exchange is a problem with a code.
fn is_problem(ex: &Exchange) -> bool {
    ex.content_type.starts_with("application/problem+json") && ex.body["code"].is_string()
}

/// A player's seat as the driver knows it.
pub struct Player {
    pub token: String,
    /// The event stream opened with the current token.
    pub stream: Stream,
    /// The last legal moves read: their version and commands.
    pub read: Option<(i64, Vec<Value>)>,
    /// The key the seat's acts are signed with, if its player registered one.
    pub key: Option<ed25519_dalek::SigningKey>,
}

/// A player's signing key drawn from the dice, and its public key as the wire writes it.
pub fn signing_key(rng: &mut Rng) -> (ed25519_dalek::SigningKey, String) {
    let mut bytes = [0u8; 32];
    for chunk in bytes.chunks_mut(8) {
        chunk.copy_from_slice(&rng.next().to_le_bytes());
    }
    let key = ed25519_dalek::SigningKey::from_bytes(&bytes);
    let public = hex::encode(key.verifying_key().to_bytes());
    (key, public)
}

/// The proof that the holder of `key` takes a seat of game `id` with it (docs/clients.md).
pub fn key_proof(key: &ed25519_dalek::SigningKey, id: &str) -> String {
    use ed25519_dalek::Signer as _;
    let public = hex::encode(key.verifying_key().to_bytes());
    let statement = saboteur_domain::key_proof_statement(id, &public);
    hex::encode(key.sign(&statement).to_bytes())
}

/// `POST /games/{id}/seats` as `name` with `key` and its proof: the seat's acts are then signed.
pub async fn join_keyed(
    app: &TestApp,
    id: &str,
    name: &str,
    key: &ed25519_dalek::SigningKey,
) -> Exchange {
    let public = hex::encode(key.verifying_key().to_bytes());
    let body =
        serde_json::json!({ "name": name, "public_key": public, "key_proof": key_proof(key, id) });
    let path = format!("/games/{id}/seats");
    app.exchange(Method::POST, &path, None, Some(&body), &[])
        .await
}

/// The headers of `seat`'s lobby `act` on game `id` with `body`, signed by `key` at the lobby's
/// `version` (docs/clients.md).
pub fn lobby_signed(
    key: &ed25519_dalek::SigningKey,
    (id, seat): (&str, u8),
    (act, body): (&str, &Value),
    version: i64,
) -> Vec<(&'static str, String)> {
    use ed25519_dalek::Signer as _;
    let statement = serde_json_canonicalizer::to_vec(&serde_json::json!({
        "scheme": "saboteur-act-v3", "act": act, "game": id, "seat": seat,
        "version": version, "body": body, "about": null,
    }))
    .unwrap();
    vec![
        (
            "Seat-Signature",
            hex::encode(key.sign(&statement).to_bytes()),
        ),
        ("Seat-Signature-Version", version.to_string()),
    ]
}

/// The proof that the holder of `key` registers it for `seat` of game `id` during play, made
/// at `version` (record version 7 on; docs/clients.md).
pub fn key_proof_at(
    key: &ed25519_dalek::SigningKey,
    id: &str,
    seat: usize,
    version: u64,
) -> String {
    use ed25519_dalek::Signer as _;
    let public = hex::encode(key.verifying_key().to_bytes());
    let seat = saboteur_domain::Seat(u8::try_from(seat).expect("a seat"));
    let statement = saboteur_domain::key_proof_statement_at(id, &public, seat, version);
    hex::encode(key.sign(&statement).to_bytes())
}

/// The act a player signs for `POST /games/{id}{tail}`, if it is one.
fn signed_act(tail: &str) -> Option<&'static str> {
    match tail {
        "/commands" => Some("command"),
        "/undo" => Some("undo"),
        "/undo/approve" => Some("approve"),
        "/undo/decline" => Some("decline"),
        "/talk" => Some("talk"),
        t if t.starts_with("/seats/") && t.ends_with("/reclaim") => Some("reclaim"),
        _ => None,
    }
}

/// A command sent with an `Idempotency-Key` and the reply it got first.
pub struct Keyed {
    pub seat: usize,
    pub key: String,
    pub command: Value,
    pub if_match: Option<i64>,
    pub first: Exchange,
}

/// What a view said about the game, read at the start of each act.
pub struct Look {
    pub version: i64,
    pub over: bool,
    pub awaited: Option<usize>,
    pub deadline: Option<u64>,
    pub handed: Vec<bool>,
}

/// One game driven at random.
pub struct Mixed {
    pub app: Arc<TestApp>,
    pub time: TimeSource,
    pub rng: Rng,
    pub id: String,
    pub host: String,
    /// How the game was created, for messages and rematches.
    pub settings: Value,
    pub spectator_talk: bool,
    /// Per seat: `None` for a bot.
    pub seats: Vec<Option<Player>>,
    /// Revoked tokens: (seat, token, the sequence number of the `token_reissued` event).
    pub revoked: Vec<(usize, String, i64)>,
    pub kept: Kept,
    pub messages: Vec<i64>,
    pub hidden: BTreeSet<i64>,
    /// Versions the game may be rolled back to: just before a batch.
    pub boundaries: Vec<i64>,
    pub keyed: Vec<Keyed>,
    pub pending_undo: bool,
    pub acts: usize,
    /// What was done and how it was answered ("command 200": count).
    pub tally: BTreeMap<String, usize>,
    /// The last acts, for failure messages.
    pub recent: Vec<String>,
    /// How long checking the receipts took.
    pub checking: std::time::Duration,
    /// The last signed request sent (its path, token, body and headers, the signature's among
    /// them), for sending its signature again later.
    pub last_signed: std::sync::Mutex<Option<SignedSent>>,
}

/// A signed request as it was sent.
#[derive(Clone, Debug)]
pub struct SignedSent {
    pub path: String,
    pub token: String,
    pub body: Option<Value>,
    pub headers: Vec<(&'static str, String)>,
}

impl Mixed {
    pub fn humans(&self) -> Vec<usize> {
        (0..self.seats.len())
            .filter(|s| self.seats[*s].is_some())
            .collect()
    }

    /// A player's seat, at random.
    pub fn any_human(&mut self) -> usize {
        let humans = self.humans();
        humans[self.rng.index(humans.len())]
    }

    pub fn token(&self, seat: usize) -> String {
        self.seats[seat].as_ref().expect("a player").token.clone()
    }

    /// No token, the host's, or a player's, at random.
    pub fn anyone(&mut self) -> Option<String> {
        match self.rng.below(4) {
            0 => None,
            1 => Some(self.host.clone()),
            _ => {
                let seat = self.any_human();
                Some(self.token(seat))
            }
        }
    }

    pub fn note(&mut self, what: String) {
        if self.recent.len() == 12 {
            self.recent.remove(0);
        }
        self.recent.push(what);
    }

    pub fn count(&mut self, what: &str, status: StatusCode) {
        let key = format!("{what} {}", status.as_u16());
        *self.tally.entry(key).or_default() += 1;
    }

    /// Fails with the game's settings and its last acts.
    #[track_caller]
    pub fn fail(&self, what: String) -> ! {
        panic!(
            "game {} ({}), act {}: {what}\nlast acts:\n  {}",
            self.id,
            self.settings,
            self.acts,
            self.recent.join("\n  ")
        )
    }

    #[track_caller]
    pub fn check(&self, ok: bool, what: impl FnOnce() -> String) {
        if !ok {
            self.fail(what());
        }
    }

    /// `GET /games/{id}{tail}`.
    pub async fn get(&self, tail: &str, token: Option<&str>) -> Exchange {
        let path = format!("/games/{}{tail}", self.id);
        self.app
            .exchange(Method::GET, &path, token, None, &[])
            .await
    }

    /// `POST /games/{id}{tail}`; a seat's act signed with its key when it has one (at the
    /// version `If-Match` names, or the game's current one), as its player's client does.
    pub async fn post(
        &self,
        tail: &str,
        token: Option<&str>,
        body: Option<&Value>,
        headers: &[(&str, String)],
    ) -> Exchange {
        use ed25519_dalek::Signer as _;
        let path = format!("/games/{}{tail}", self.id);
        let mut headers = headers.to_vec();
        let signer = token.and_then(|t| {
            self.seats.iter().enumerate().find_map(|(seat, p)| {
                let p = p.as_ref()?;
                (p.token == t).then_some((seat, p.key.as_ref()?))
            })
        });
        if let (Some((seat, key)), Some(act)) = (signer, signed_act(tail)) {
            let named = headers
                .iter()
                .find(|(n, _)| *n == "If-Match")
                .and_then(|(_, v)| v.trim_matches('"').parse::<i64>().ok());
            // The version and what the act is about, from the table's status as a client
            // reads it (docs/clients.md, "Signing your acts").
            let state = self.get("/state", token).await;
            let version = named.unwrap_or_else(|| state.body["version"].as_i64().unwrap_or(0));
            let table = &state.body["table"];
            let about = match act {
                "undo" => table["seats"][seat]["undoable"].clone(),
                "approve" | "decline" => table["undo_request"].clone(),
                "reclaim" => table["seats"][seat]["handed_at"].clone(),
                _ => Value::Null,
            };
            // The canonical statement of the act (RFC 8785), written here from its definition
            // in docs/clients.md, not by the server's code: the body is signed as a value, so
            // the request may send it with any spacing and key order.
            let statement = serde_json_canonicalizer::to_vec(&serde_json::json!({
                "scheme": "saboteur-act-v3",
                "act": act,
                "game": self.id,
                "seat": seat,
                "version": version,
                "body": body.cloned().unwrap_or(Value::Null),
                "about": about,
            }))
            .unwrap();
            let signature = hex::encode(key.sign(&statement).to_bytes());
            headers.push(("Seat-Signature", signature.clone()));
            headers.push(("Seat-Signature-Version", version.to_string()));
            if let Ok(mut last) = self.last_signed.lock() {
                *last = Some(SignedSent {
                    path: path.clone(),
                    token: token.unwrap_or_default().to_string(),
                    body: body.cloned(),
                    headers: vec![
                        ("Seat-Signature", signature),
                        ("Seat-Signature-Version", version.to_string()),
                    ],
                });
            }
        }
        let app = &self.app;
        app.exchange(Method::POST, &path, token, body, &headers)
            .await
    }

    pub async fn version(&self) -> i64 {
        let ex = self.get("", None).await;
        self.check(ex.status == StatusCode::OK, || format!("the game: {ex:?}"));
        ex.body["version"].as_i64().unwrap()
    }

    /// Keeps a served body's receipt: a successful write or view must carry one.
    pub fn keep(&mut self, what: &str, ex: &Exchange) {
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
    /// A refusal of a player's or the host's act carries a signed receipt of kind `refusal`,
    /// kept and checked against the record at the end like every other.
    pub async fn refused(
        &mut self,
        what: &str,
        ex: &Exchange,
        allowed: &[StatusCode],
        before: i64,
    ) {
        self.check(allowed.contains(&ex.status) && is_problem(ex), || {
            format!("{what}: {ex:?}: expected one of {allowed:?} as problem+json with a code")
        });
        if ex.body.get("receipt").is_some() {
            // Any 4xx of a known caller is signed (401 and 404 too), naming what it refused
            // when the request had a body or a signature.
            let signed = ex.body["receipt"]["kind"] == "refusal";
            self.check(signed, || format!("{what}: a refusal's receipt: {ex:?}"));
            self.kept.keep(&ex.body);
        }
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
    pub async fn look(&mut self) -> Look {
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
}
