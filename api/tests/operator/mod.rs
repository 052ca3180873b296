//! What the dishonest-operator tests share: a server on a store, its calls (signed or not),
//! `saboteur verify`, and the operator's own edits of the store (triggers dropped, an event
//! rewritten with every hash after it). Each test binary uses part of it.
#![allow(dead_code)]

use std::process::Command;

use reqwest::Client;
use serde_json::{Value, json};

mod play;
// Each test file uses some of these helpers, as of the rest of this module (`dead_code`).
#[allow(unused_imports)]
pub use play::*;

/// A scenario run on SQLite (a file in a temporary directory) and on PostgreSQL, as two tests.
macro_rules! on_both_stores {
    ($sqlite:ident, $postgres:ident, $scenario:ident) => {
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn $sqlite() {
            let dir = tempfile::tempdir().unwrap();
            let url = format!(
                "sqlite://{}?mode=rwc",
                dir.path().join("store.db").display()
            );
            $scenario(&url, dir.path()).await;
        }

        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn $postgres() {
            let dir = tempfile::tempdir().unwrap();
            let url = saboteur_storage::testing::fresh_database().await;
            $scenario(&url, dir.path()).await;
        }
    };
}

pub struct Server {
    pub base: String,
    pub client: Client,
}

impl Server {
    /// A base game for three created with no seed: its reply, id and host token.
    pub async fn create_base_game(&self) -> (Value, String, String) {
        let created = self
            .call(
                "POST",
                "/games",
                None,
                Some(json!({"ruleset": "base", "players": 3})),
            )
            .await;
        let id = created["game_id"].as_str().unwrap().to_string();
        let host = created["host_token"].as_str().unwrap().to_string();
        (created, id, host)
    }

    pub async fn start(database_url: &str) -> Server {
        Server::start_at(database_url, saboteur_api::TimeSource::system()).await
    }

    /// A server reading the time from `time` (a manual clock a test moves).
    pub async fn start_at(database_url: &str, time: saboteur_api::TimeSource) -> Server {
        let config = saboteur_api::Config {
            time,
            allow_fixed_seed: true,
            // Many clients from one address: the per-client limits are switched off.
            limits: saboteur_api::Limits {
                off: true,
                ..saboteur_api::Limits::default()
            },
            ..saboteur_api::Config::new("127.0.0.1:0", database_url)
        };
        let (server, addr) = saboteur_api::start(config).await.unwrap();
        tokio::spawn(server);
        Server {
            base: format!("http://{addr}"),
            client: Client::new(),
        }
    }

    /// A base game for three, started: seat 0 taken with `join` (its name, perhaps its key),
    /// seats 1 and 2 random bots. Its id, the host's token and the player's.
    pub async fn started_with_bots(&self, join: Value) -> (String, String, String) {
        let (_, id, host) = self.create_base_game().await;
        let joined = self
            .call("POST", &format!("/games/{id}/seats"), None, Some(join))
            .await;
        let me = joined["player_token"].as_str().unwrap().to_string();
        self.random_bots(&id, &host, 2).await;
        self.call("POST", &format!("/games/{id}/start"), Some(&host), None)
            .await;
        (id, host, me)
    }

    /// The host seats `n` random bots.
    pub async fn random_bots(&self, id: &str, host: &str, n: usize) {
        for _ in 0..n {
            self.call(
                "POST",
                &format!("/games/{id}/bots"),
                Some(host),
                Some(json!({"level": "random"})),
            )
            .await;
        }
    }

    /// A request of any method with `token` and `body`: the status and the reply (a
    /// problem's too), whatever the status.
    pub async fn send(
        &self,
        (method, path): (&str, &str),
        token: Option<&str>,
        body: Option<Value>,
    ) -> (u16, Value) {
        let url = format!("{}{path}", self.base);
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let mut rb = self.client.request(method, url);
        if let Some(t) = token {
            rb = rb.bearer_auth(t);
        }
        if let Some(b) = body {
            rb = rb.json(&b);
        }
        let res = rb.send().await.unwrap();
        let status = res.status().as_u16();
        (status, res.json().await.unwrap_or(Value::Null))
    }

    pub async fn call(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> Value {
        let url = format!("{}{path}", self.base);
        let mut rb = match method {
            "GET" => self.client.get(url),
            _ => self.client.post(url),
        };
        if let Some(t) = token {
            rb = rb.bearer_auth(t);
        }
        if let Some(b) = body {
            rb = rb.json(&b);
        }
        let res = rb.send().await.unwrap();
        let status = res.status();
        let value: Value = res.json().await.unwrap();
        assert!(status.is_success(), "{method} {path}: {status} {value}");
        value
    }
}

/// `saboteur verify` with these arguments (paths given as strings).
pub fn verify_with(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_saboteur"))
        .arg("verify")
        .args(args)
        .output()
        .unwrap()
}

/// Writes `value` as `name` in `dir` and returns the path as a string.
pub fn file(dir: &std::path::Path, name: &str, value: &Value) -> String {
    let path = dir.join(name);
    std::fs::write(&path, value.to_string()).unwrap();
    path.to_string_lossy().into_owned()
}

pub fn text(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The store at `url` with the trigger `name` on `table` dropped, as an operator with the
/// database does before changing what the triggers keep.
pub async fn without_trigger(url: &str, name: &str, table: &str) -> saboteur_storage::EventStore {
    let store = saboteur_storage::EventStore::connect(url).await.unwrap();
    let on = if url.starts_with("postgres") {
        format!(" ON {table}")
    } else {
        String::new()
    };
    store
        .execute_raw(&format!("DROP TRIGGER IF EXISTS {name}{on}"))
        .await
        .unwrap();
    store
}

/// A token's hash as the store keeps it.
pub fn token_hash(token: &str) -> String {
    use sha2::Digest as _;
    hex::encode(sha2::Sha256::digest(token.as_bytes()))
}

/// A player's signing key (fixed, so a failure replays) and its public key as the wire writes it.
pub fn player_key(byte: u8) -> (ed25519_dalek::SigningKey, String) {
    let key = ed25519_dalek::SigningKey::from_bytes(&[byte; 32]);
    let public = hex::encode(key.verifying_key().to_bytes());
    (key, public)
}

/// The events of type `kind` in a reply's `events` (an `Outcome`).
pub fn events_of<'a>(reply: &'a Value, kind: &str) -> Vec<&'a Value> {
    reply["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["event"]["type"] == kind)
        .collect()
}

/// The proof that the holder of `key` takes a seat of game `id` with it (docs/clients.md).
pub fn key_proof(key: &ed25519_dalek::SigningKey, id: &str) -> String {
    use ed25519_dalek::Signer as _;
    let public = hex::encode(key.verifying_key().to_bytes());
    let statement = saboteur_domain::key_proof_statement(id, &public);
    hex::encode(key.sign(&statement).to_bytes())
}

/// The proof that the holder of `key` registers it for `seat` of game `id` during play, made at
/// `version` (record version 7; docs/clients.md).
pub fn key_proof_at(key: &ed25519_dalek::SigningKey, id: &str, seat: u8, version: u64) -> String {
    use ed25519_dalek::Signer as _;
    let public = hex::encode(key.verifying_key().to_bytes());
    let statement =
        saboteur_domain::key_proof_statement_at(id, &public, saboteur_domain::Seat(seat), version);
    hex::encode(key.sign(&statement).to_bytes())
}

/// The body of taking a seat of game `id` as `name` with `key`, proved.
pub fn keyed_join(id: &str, name: &str, key: &ed25519_dalek::SigningKey) -> Value {
    json!({
        "name": name,
        "public_key": hex::encode(key.verifying_key().to_bytes()),
        "key_proof": key_proof(key, id),
    })
}

impl Server {
    /// `POST path` with `body` sent as exactly these bytes, signed by `key` for `seat` at
    /// `version` as the act `act` (docs/clients.md): the response's status and body.
    pub async fn signed(
        &self,
        path: &str,
        token: &str,
        body: &str,
        signer: Option<(&ed25519_dalek::SigningKey, &str, u8, u64, &str)>,
    ) -> (u16, Value) {
        self.signed_with(reqwest::Method::POST, path, token, body, signer)
            .await
    }

    /// [`Server::signed`] with another method (`PUT` for a key).
    pub async fn signed_with(
        &self,
        method: reqwest::Method,
        path: &str,
        token: &str,
        body: &str,
        signer: Option<(&ed25519_dalek::SigningKey, &str, u8, u64, &str)>,
    ) -> (u16, Value) {
        use ed25519_dalek::Signer as _;
        let mut rb = self
            .client
            .request(method, format!("{}{path}", self.base))
            .bearer_auth(token);
        if !body.is_empty() {
            rb = rb
                .header("Content-Type", "application/json")
                .body(body.to_string());
        }
        if let Some((key, game, seat, version, act)) = signer {
            let signature = hex::encode(
                key.sign(&statement(game, seat, version, act, body))
                    .to_bytes(),
            );
            rb = rb
                .header("Seat-Signature", signature)
                .header("Seat-Signature-Version", version.to_string());
        }
        Self::answer(rb).await
    }

    /// `POST path` with `body`, its signature `key`'s over `statement` (whatever it says),
    /// dated `version`: what a client that signed another statement sends.
    pub async fn signed_over(
        &self,
        path: &str,
        token: &str,
        body: &str,
        signer: (&ed25519_dalek::SigningKey, &[u8], u64),
    ) -> (u16, Value) {
        self.signed_over_with(reqwest::Method::POST, path, token, body, signer)
            .await
    }

    /// [`Server::signed_over`] with another method (`DELETE` for leaving a seat).
    pub async fn signed_over_with(
        &self,
        method: reqwest::Method,
        path: &str,
        token: &str,
        body: &str,
        (key, statement, version): (&ed25519_dalek::SigningKey, &[u8], u64),
    ) -> (u16, Value) {
        use ed25519_dalek::Signer as _;
        let mut rb = self
            .client
            .request(method, format!("{}{path}", self.base))
            .bearer_auth(token)
            .header(
                "Seat-Signature",
                hex::encode(key.sign(statement).to_bytes()),
            )
            .header("Seat-Signature-Version", version.to_string());
        if !body.is_empty() {
            rb = rb
                .header("Content-Type", "application/json")
                .body(body.to_string());
        }
        Self::answer(rb).await
    }

    async fn answer(rb: reqwest::RequestBuilder) -> (u16, Value) {
        let res = rb.send().await.unwrap();
        let status = res.status().as_u16();
        let text = res.text().await.unwrap();
        (status, serde_json::from_str(&text).unwrap_or(Value::Null))
    }
}

/// The signed body event `seq` of game `id` records with its player's signature, as the store
/// holds it (what an operator reads before forging another signature over it).
pub async fn signed_body(database_url: &str, id: &str, seq: i64) -> String {
    let store = saboteur_storage::EventStore::connect(database_url)
        .await
        .unwrap();
    let recorded = store
        .events_after(
            &saboteur_storage::GameId::parse(id).unwrap(),
            saboteur_storage::Version::from_stored(seq - 1).unwrap(),
            1,
        )
        .await
        .unwrap()
        .remove(0);
    recorded.payload["signature"]["body"]
        .as_str()
        .unwrap()
        .to_string()
}

/// What a dishonest operator does to change one recorded event: drops the triggers, rewrites
/// event `seq`'s payload with `change`, recomputes every hash from it to the end, the game's
/// last hash and its transparency log entry.
pub async fn rewrite_event(database_url: &str, id: &str, seq: i64, change: impl Fn(&mut Value)) {
    let store = without_trigger(database_url, "events_no_update", "events").await;
    without_trigger(
        database_url,
        "transparency_log_no_update",
        "transparency_log",
    )
    .await;
    let game = saboteur_storage::GameId::parse(id).unwrap();
    let events = store
        .events_after(&game, saboteur_storage::Version::of(0), 10_000)
        .await
        .unwrap();
    let mut prev = events[seq as usize - 1].prev_hash.clone();
    let created = saboteur_storage::decode(&events[0]).unwrap();
    let mut chain = saboteur_verifier::seal::Chain::after(id, &created);
    for e in &events[seq as usize - 1..] {
        let mut payload = e.payload.clone();
        if e.seq.stored() == seq {
            change(&mut payload);
        }
        let hash = chain
            .hash(
                &prev,
                e.seq.stored(),
                &e.event_type,
                e.schema_version,
                &payload,
            )
            .unwrap();
        let quoted = payload.to_string().replace('\'', "''");
        let sql = format!(
            "UPDATE events SET payload = '{quoted}', prev_hash = {}, hash = {} \
             WHERE game_id = '{id}' AND seq = {}",
            store.hash_sql(&prev),
            store.hash_sql(&hash),
            e.seq
        );
        assert_eq!(store.execute_raw(&sql).await.unwrap(), 1, "{sql}");
        prev = hash;
    }
    let last = events.len() as i64;
    let sql = format!("UPDATE games SET last_hash = '{prev}' WHERE id = '{id}'");
    assert_eq!(store.execute_raw(&sql).await.unwrap(), 1);
    if let Some(entry) = store.log_entry_of(&game).await.unwrap() {
        let entry_hash = saboteur_storage::log_entry_hash_at(
            &entry.prev_hash,
            entry.seq,
            id,
            last,
            &prev,
            entry.logged_at.timestamp_millis(),
        );
        let sql = format!(
            "UPDATE transparency_log SET head = '{prev}', hash = '{entry_hash}' \
             WHERE game_id = '{id}'"
        );
        assert_eq!(store.execute_raw(&sql).await.unwrap(), 1);
    }
}

/// The canonical statement (`saboteur-act-v3`) a player signs for `act` with `body` as sent,
/// about no earlier event (the tests sign undos only when there is nothing to take back).
pub fn statement(game: &str, seat: u8, version: u64, act: &str, body: &str) -> Vec<u8> {
    let act = match act {
        "command" => saboteur_domain::SignedAct::Command,
        "undo" => saboteur_domain::SignedAct::Undo,
        "approve" => saboteur_domain::SignedAct::Approve,
        "decline" => saboteur_domain::SignedAct::Decline,
        "talk" => saboteur_domain::SignedAct::Talk,
        "reclaim" => saboteur_domain::SignedAct::Reclaim,
        "leave" => saboteur_domain::SignedAct::Leave,
        "key" => saboteur_domain::SignedAct::Key,
        "name" => saboteur_domain::SignedAct::Name,
        other => panic!("no signed act {other}"),
    };
    saboteur_domain::act_statement(game, saboteur_domain::Seat(seat), version, act, body, None)
        .expect("a JSON body")
}

/// A base game for three created with `game` (more of its creation's body: options, a seed),
/// in its lobby: seat 0 taken with the body `join` makes of the game's id, seats 1 and 2
/// random bots. Its id, the host's token and the reply to taking the seat.
pub async fn lobby(
    server: &Server,
    game: Value,
    join: impl FnOnce(&str) -> Value,
) -> (String, String, Value) {
    let mut body = json!({"ruleset": "base", "players": 3});
    if let (Some(body), Some(more)) = (body.as_object_mut(), game.as_object()) {
        body.extend(more.clone());
    }
    let created = server.call("POST", "/games", None, Some(body)).await;
    let id = created["game_id"].as_str().unwrap().to_string();
    let host = created["host_token"].as_str().unwrap().to_string();
    let joined = server
        .call("POST", &format!("/games/{id}/seats"), None, Some(join(&id)))
        .await;
    server.random_bots(&id, &host, 2).await;
    (id, host, joined)
}

/// [`lobby`] with seat 0 taken by a player with `key`.
pub async fn keyed_lobby(
    server: &Server,
    key: &ed25519_dalek::SigningKey,
) -> (String, String, Value) {
    lobby(server, json!({}), |id| keyed_join(id, "Ada", key)).await
}

/// [`keyed_lobby`]'s game, started: its id, the player's token and the start's reply.
pub async fn keyed_game_with_bots(
    server: &Server,
    key: &ed25519_dalek::SigningKey,
) -> (String, String, Value) {
    let (id, host, joined) = keyed_lobby(server, key).await;
    let me = joined["player_token"].as_str().unwrap().to_string();
    let started = server
        .call("POST", &format!("/games/{id}/start"), Some(&host), None)
        .await;
    (id, me, started)
}

/// The bundle of a finished game, written to `dir`, and `saboteur verify` run on it: the exit
/// code and what it said.
pub async fn verify_bundle(url: &str, dir: &std::path::Path, id: &str) -> (Option<i32>, String) {
    let server = Server::start(url).await;
    let bundle = server
        .call("GET", &format!("/games/{id}/audit"), None, None)
        .await;
    let out = verify_with(&["--file", &file(dir, "bundle.json", &bundle)]);
    (out.status.code(), text(&out))
}

/// A clocked base game for three (60 s a decision), started: seat 0 a player's with a key,
/// seats 1 and 2 random bots. Its id, the host's token and the player's token.
pub async fn clocked_game(
    server: &Server,
    key: &ed25519_dalek::SigningKey,
) -> (String, String, String) {
    let clock = json!({"options": {"clock": {"kind": "per_decision", "seconds": 60}}});
    let (id, host, joined) = lobby(server, clock, |id| keyed_join(id, "Ada", key)).await;
    let me = joined["player_token"].as_str().unwrap().to_string();
    server
        .call("POST", &format!("/games/{id}/start"), Some(&host), None)
        .await;
    let state = server
        .call("GET", &format!("/games/{id}/state"), Some(&me), None)
        .await;
    assert_eq!(
        state["view"]["phase"]["awaited"], 0,
        "the bots play until seat 0: {state}"
    );
    (id, host, me)
}

/// When this test's clocks start: 2026-11-20, in milliseconds since the Unix epoch.
pub const T0: u64 = 1_795_132_800_000;

/// Plays a game of three random bots to its end on `server`: its id and the final view served
/// to a spectator (with its receipt, which shows the game over).
pub async fn a_finished_bot_game(server: &Server) -> (String, Value) {
    let (_, id, host) = server.create_base_game().await;
    server.random_bots(&id, &host, 3).await;
    server
        .call("POST", &format!("/games/{id}/start"), Some(&host), None)
        .await;
    for _ in 0..400 {
        let summary = server
            .call("GET", &format!("/games/{id}"), None, None)
            .await;
        if summary["status"] == "finished" {
            let state = server
                .call("GET", &format!("/games/{id}/state"), None, None)
                .await;
            return (id, state);
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    panic!("game {id} did not end");
}
