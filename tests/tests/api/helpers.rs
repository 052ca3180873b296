//! The server under test and a client for it with one method per endpoint. Each method
//! returns the status and the JSON body (`null` when there is none); the tests check the
//! bodies against the committed spec with `assert_conforms`.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::OnceLock;

use reqwest::{Client, Method, RequestBuilder, Response, StatusCode};
use serde_json::{Value, json};
use tempfile::TempDir;

/// A status and a JSON body.
pub type Reply = (StatusCode, Value);

/// The committed spec's schemas, compiled once: responses must match what clients generate
/// their types from.
pub fn validators() -> &'static HashMap<&'static str, jsonschema::Validator> {
    static V: OnceLock<HashMap<&'static str, jsonschema::Validator>> = OnceLock::new();
    V.get_or_init(|| {
        let spec: Value = serde_json::from_str(saboteur_openapi::COMMITTED).unwrap();
        [
            "StateView",
            "LegalMoves",
            "Outcome",
            "EventPage",
            "GameSummary",
            "GameList",
            "Series",
            "StreamRecord",
            "TableRead",
        ]
        .into_iter()
        .map(|name| {
            // The whole spec as the root document, so `#/components/schemas/…` resolves.
            let mut root = spec.clone();
            root["$ref"] = json!(format!("#/components/schemas/{name}"));
            let v = jsonschema::draft202012::new(&root)
                .unwrap_or_else(|e| panic!("{name}: not a schema: {e}"));
            (name, v)
        })
        .collect()
    })
}

/// Fails when `value` does not match the spec's schema `name`.
pub fn assert_conforms(name: &str, value: &Value) {
    if let Err(e) = validators()[name].validate(value) {
        panic!("a {name} contradicts the spec at {}: {e}", e.instance_path);
    }
}

/// A database URL for a SQLite file in `dir`.
pub fn sqlite_url(dir: &TempDir, file: &str) -> String {
    format!("sqlite://{}", dir.path().join(file).display())
}

/// A fresh PostgreSQL database: on `DATABASE_URL`, or in the test process's throwaway cluster.
pub async fn postgres_url() -> String {
    saboteur_storage::testing::fresh_database().await
}

/// A test seed as the API takes it: 64 hex digits.
pub fn seed_hex(seed: u64) -> String {
    format!("{:0<64}", format!("{seed:016x}"))
}

/// A status, the `Content-Type` and the JSON body (`null` when there is none).
#[derive(Debug, Clone)]
pub struct Exchange {
    pub status: StatusCode,
    pub content_type: String,
    pub body: Value,
}

/// A game whose every seat is taken by a player.
pub struct Table {
    pub id: String,
    pub host: String,
    pub tokens: Vec<String>,
}

/// A server on port 0 (fixed seeds allowed), and a client for it.
pub struct TestApp {
    pub base: String,
    client: Client,
    _keep: Option<TempDir>,
}

impl TestApp {
    /// Starts a server on `database_url`; `keep` (a SQLite file's directory) lives as long as
    /// the app.
    pub async fn spawn(database_url: String, keep: Option<TempDir>) -> TestApp {
        TestApp::spawn_at(database_url, keep, saboteur_api::TimeSource::system()).await
    }

    /// Starts a server on `database_url` reading the time from `time` (a manual clock drives
    /// turn clocks without sleeping).
    pub async fn spawn_at(
        database_url: String,
        keep: Option<TempDir>,
        time: saboteur_api::TimeSource,
    ) -> TestApp {
        let config = saboteur_api::Config {
            allow_fixed_seed: true,
            time,
            // Many clients from one address: the per-client limits are switched off.
            limits: saboteur_api::Limits {
                off: true,
                ..saboteur_api::Limits::default()
            },
            ..saboteur_api::Config::new("127.0.0.1:0", database_url)
        };
        TestApp::spawn_config(config, keep).await
    }

    /// Starts a server with `config` (its address `127.0.0.1:0`).
    pub async fn spawn_config(config: saboteur_api::Config, keep: Option<TempDir>) -> TestApp {
        let (server, addr): (_, SocketAddr) = saboteur_api::start(config)
            .await
            .expect("the server starts");
        tokio::spawn(server);
        // The server closes a connection idle for 5 s: a client that reused one as it closed
        // would see the request fail, so none is kept idle that long.
        let client = Client::builder()
            .pool_idle_timeout(std::time::Duration::from_secs(2))
            .build()
            .unwrap();
        TestApp {
            base: format!("http://{addr}"),
            client,
            _keep: keep,
        }
    }

    /// A server on a SQLite database of its own.
    pub async fn sqlite() -> TestApp {
        let dir = tempfile::tempdir().unwrap();
        let url = sqlite_url(&dir, "e2e.db");
        TestApp::spawn(url, Some(dir)).await
    }

    /// A server on a fresh PostgreSQL database.
    pub async fn postgres() -> TestApp {
        TestApp::spawn(postgres_url().await, None).await
    }

    fn request(&self, method: Method, path: &str, token: Option<&str>) -> RequestBuilder {
        let rb = self.client.request(method, format!("{}{path}", self.base));
        match token {
            Some(t) => rb.bearer_auth(t),
            None => rb,
        }
    }

    async fn get(&self, path: &str, token: Option<&str>) -> Reply {
        send(self.request(Method::GET, path, token)).await
    }

    async fn post(&self, path: &str, token: Option<&str>, body: Option<&Value>) -> Reply {
        let rb = self.request(Method::POST, path, token);
        send(match body {
            Some(b) => rb.json(b),
            None => rb,
        })
        .await
    }

    /// Any GET with a JSON answer.
    pub async fn get_json(&self, path: &str, token: Option<&str>) -> Reply {
        self.get(path, token).await
    }

    /// Any POST with an optional JSON body.
    pub async fn post_json(&self, path: &str, token: Option<&str>, body: Option<&Value>) -> Reply {
        self.post(path, token, body).await
    }

    /// Any POST, for the tests that look at headers.
    pub async fn post_raw(&self, path: &str, token: Option<&str>, body: &Value) -> Response {
        self.request(Method::POST, path, token)
            .json(body)
            .send()
            .await
            .unwrap()
    }

    /// Any GET, for the tests that look at headers.
    pub async fn get_raw(&self, path: &str, token: Option<&str>) -> Response {
        self.request(Method::GET, path, token).send().await.unwrap()
    }

    /// Any GET with extra headers, for the tests that read the response as it comes.
    pub async fn get_raw_with(&self, path: &str, headers: &[(&str, String)]) -> Response {
        let mut rb = self.request(Method::GET, path, None);
        for (name, value) in headers {
            rb = rb.header(*name, value);
        }
        rb.send().await.unwrap()
    }

    /// Any PUT with extra headers, for the tests that look at the response's headers.
    pub async fn put_raw(
        &self,
        path: &str,
        token: Option<&str>,
        body: &Value,
        headers: &[(&str, String)],
    ) -> Response {
        self.send_raw(Method::PUT, path, token, body, headers).await
    }

    /// Any request with a body and extra headers, for the tests that look at the response's
    /// headers.
    pub async fn send_raw(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: &Value,
        headers: &[(&str, String)],
    ) -> Response {
        let mut rb = self.request(method, path, token).json(body);
        for (name, value) in headers {
            rb = rb.header(*name, value);
        }
        rb.send().await.unwrap()
    }

    // Games and seats.

    /// `POST /games`.
    pub async fn create_game(&self, body: &Value) -> Reply {
        self.post("/games", None, Some(body)).await
    }

    /// `GET /games?{query}`.
    pub async fn list_games(&self, query: &str) -> Reply {
        self.get(&format!("/games?{query}"), None).await
    }

    /// `GET /games/{id}`.
    pub async fn game(&self, id: &str) -> Reply {
        self.get(&format!("/games/{id}"), None).await
    }

    /// `POST /games/{id}/seats`.
    pub async fn join(&self, id: &str, name: &str) -> Reply {
        let body = json!({ "name": name });
        self.post(&format!("/games/{id}/seats"), None, Some(&body))
            .await
    }

    /// `DELETE /games/{id}/seats/{seat}`.
    pub async fn leave(&self, id: &str, seat: usize, token: Option<&str>) -> Reply {
        let path = format!("/games/{id}/seats/{seat}");
        send(self.request(Method::DELETE, &path, token)).await
    }

    /// `POST /games/{id}/bots`.
    pub async fn add_bot(&self, id: &str, token: Option<&str>, body: &Value) -> Reply {
        self.post(&format!("/games/{id}/bots"), token, Some(body))
            .await
    }

    /// `POST /games/{id}/start`.
    pub async fn start(&self, id: &str, token: Option<&str>) -> Reply {
        self.post(&format!("/games/{id}/start"), token, None).await
    }

    /// `POST /games/{id}/cancel`.
    pub async fn cancel(&self, id: &str, token: Option<&str>) -> Reply {
        self.post(&format!("/games/{id}/cancel"), token, None).await
    }

    // Play.

    /// `GET /games/{id}/state`.
    pub async fn state(&self, id: &str, token: Option<&str>) -> Reply {
        self.get(&format!("/games/{id}/state"), token).await
    }

    /// `GET /games/{id}/state?at={version}`: a replay.
    pub async fn state_at(&self, id: &str, version: i64) -> Reply {
        self.get(&format!("/games/{id}/state?at={version}"), None)
            .await
    }

    /// The `Cache-Control` and `Vary` headers of `GET /games/{id}/state?at={version}` with a
    /// token or without.
    pub async fn state_at_caching(
        &self,
        id: &str,
        version: i64,
        token: Option<&str>,
    ) -> (String, String) {
        let path = format!("/games/{id}/state?at={version}");
        let res = self
            .request(Method::GET, &path, token)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::OK);
        let header = |name: &str| {
            res.headers()
                .get(name)
                .map(|v| v.to_str().unwrap().to_string())
                .unwrap_or_default()
        };
        (header("cache-control"), header("vary"))
    }

    /// `GET /games/{id}/legal-moves`.
    pub async fn legal_moves(&self, id: &str, token: &str) -> Reply {
        self.get(&format!("/games/{id}/legal-moves"), Some(token))
            .await
    }

    /// `POST /games/{id}/commands`.
    pub async fn command(&self, id: &str, token: &str, command: &Value) -> Reply {
        self.command_with(id, token, command, None, None).await
    }

    /// `POST /games/{id}/commands` with `If-Match: "{version}"` and an `Idempotency-Key`.
    pub async fn command_with(
        &self,
        id: &str,
        token: &str,
        command: &Value,
        if_match: Option<i64>,
        idempotency_key: Option<&str>,
    ) -> Reply {
        let path = format!("/games/{id}/commands");
        let mut rb = self.request(Method::POST, &path, Some(token)).json(command);
        if let Some(v) = if_match {
            rb = rb.header("If-Match", format!("\"{v}\""));
        }
        if let Some(k) = idempotency_key {
            rb = rb.header("Idempotency-Key", k);
        }
        send(rb).await
    }

    /// `GET /games/{id}/events?{query}`.
    pub async fn events(&self, id: &str, query: &str, token: Option<&str>) -> Reply {
        self.get(&format!("/games/{id}/events?{query}"), token)
            .await
    }

    /// `GET /games/{id}/events/stream`, optionally resumed after `Last-Event-ID`.
    pub async fn events_stream(
        &self,
        id: &str,
        token: Option<&str>,
        last_event_id: Option<&str>,
    ) -> Response {
        let path = format!("/games/{id}/events/stream");
        let mut rb = self.request(Method::GET, &path, token);
        if let Some(last) = last_event_id {
            rb = rb.header("Last-Event-ID", last);
        }
        rb.send().await.unwrap()
    }

    /// `GET /games/{id}/events/stream?table=true`: each batch's last event with the caller's
    /// table.
    pub async fn events_stream_with_table(&self, id: &str, token: Option<&str>) -> Response {
        let path = format!("/games/{id}/events/stream?table=true");
        self.request(Method::GET, &path, token)
            .send()
            .await
            .unwrap()
    }

    // Undo and rollback.

    /// `POST /games/{id}/undo`.
    pub async fn undo(&self, id: &str, token: &str) -> Reply {
        self.post(&format!("/games/{id}/undo"), Some(token), None)
            .await
    }

    /// `POST /games/{id}/undo/approve`.
    pub async fn undo_approve(&self, id: &str, token: &str) -> Reply {
        self.post(&format!("/games/{id}/undo/approve"), Some(token), None)
            .await
    }

    /// `POST /games/{id}/undo/decline`.
    pub async fn undo_decline(&self, id: &str, token: &str) -> Reply {
        self.post(&format!("/games/{id}/undo/decline"), Some(token), None)
            .await
    }

    /// `POST /games/{id}/rollback`.
    pub async fn rollback(&self, id: &str, token: &str, body: &Value) -> Reply {
        self.post(&format!("/games/{id}/rollback"), Some(token), Some(body))
            .await
    }

    // Online play.

    /// `POST /games/{id}/talk`.
    pub async fn talk(&self, id: &str, token: Option<&str>, body: &Value) -> Reply {
        self.post(&format!("/games/{id}/talk"), token, Some(body))
            .await
    }

    /// `POST /games/{id}/seats/{seat}/token`: the seat's new token.
    pub async fn reissue_token(&self, id: &str, token: Option<&str>, seat: usize) -> Reply {
        self.post(&format!("/games/{id}/seats/{seat}/token"), token, None)
            .await
    }

    /// `POST /games/{id}/audit/receipts`.
    pub async fn audit_receipts(&self, id: &str, receipts: &Value) -> Reply {
        self.post(&format!("/games/{id}/audit/receipts"), None, Some(receipts))
            .await
    }

    /// Any request with extra headers, answered with its status, `Content-Type` and JSON body.
    pub async fn exchange(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<&Value>,
        headers: &[(&str, String)],
    ) -> Exchange {
        let mut rb = self.request(method, path, token);
        if let Some(b) = body {
            rb = rb.json(b);
        }
        for (name, value) in headers {
            rb = rb.header(*name, value);
        }
        let r = rb.send().await.unwrap();
        let status = r.status();
        let content_type = r
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string();
        let body = r.json::<Value>().await.unwrap_or(Value::Null);
        Exchange {
            status,
            content_type,
            body,
        }
    }

    // Audit and operations.

    /// `GET /games/{id}/audit`.
    pub async fn audit(&self, id: &str) -> Reply {
        self.get(&format!("/games/{id}/audit"), None).await
    }

    /// `GET /healthz`.
    pub async fn health(&self) -> Reply {
        self.get("/healthz", None).await
    }

    /// `GET /openapi.json`.
    pub async fn openapi(&self) -> Reply {
        self.get("/openapi.json", None).await
    }

    /// `GET /docs/`: the status and the page.
    pub async fn docs(&self) -> (StatusCode, String) {
        let r = self.get_raw("/docs/", None).await;
        (r.status(), r.text().await.unwrap())
    }

    /// `GET /metrics`: the Prometheus text.
    pub async fn metrics(&self) -> String {
        self.get_raw("/metrics", None).await.text().await.unwrap()
    }

    // Set-ups shared by several tests.

    /// Creates a game with a fixed seed and seats players "p0", "p1", … in every seat.
    pub async fn table(&self, ruleset: &str, players: u8, seed: u64) -> Table {
        let seed = seed_hex(seed);
        let (st, g) = self
            .create_game(&json!({ "ruleset": ruleset, "players": players, "seed": seed }))
            .await;
        assert_eq!(st, StatusCode::CREATED, "{g}");
        let id = g["game_id"].as_str().unwrap().to_string();
        assert_eq!(g["seed_commitment"].as_str().unwrap().len(), 64);
        let mut tokens = Vec::new();
        for i in 0..players {
            let (st, j) = self.join(&id, &format!("p{i}")).await;
            assert_eq!(st, StatusCode::CREATED, "{j}");
            assert_eq!(j["seat"], i);
            tokens.push(j["player_token"].as_str().unwrap().to_string());
        }
        Table {
            id,
            host: g["host_token"].as_str().unwrap().to_string(),
            tokens,
        }
    }

    /// Creates a game and takes seat 0 as "Ada": (game id, host token, Ada's token).
    pub async fn lobby(&self, game: &Value) -> (String, String, String) {
        let (st, g) = self.create_game(game).await;
        assert_eq!(st, StatusCode::CREATED, "{g}");
        let id = g["game_id"].as_str().unwrap().to_string();
        let (st, me) = self.join(&id, "Ada").await;
        assert_eq!((st, &me["seat"]), (StatusCode::CREATED, &json!(0)));
        let host = g["host_token"].as_str().unwrap().to_string();
        (id, host, me["player_token"].as_str().unwrap().to_string())
    }

    /// Plays the awaited seat's first legal pass; returns the seat.
    pub async fn play_one(&self, t: &Table) -> usize {
        let (_, v) = self.state(&t.id, Some(&t.tokens[0])).await;
        let seat = v["view"]["phase"]["awaited"].as_u64().unwrap() as usize;
        let (_, m) = self.legal_moves(&t.id, &t.tokens[seat]).await;
        let pass = m["commands"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["type"] == "pass")
            .unwrap()
            .clone();
        let (st, out) = self.command(&t.id, &t.tokens[seat], &pass).await;
        assert_eq!(st, StatusCode::OK, "{out}");
        seat
    }
}

/// Sends a request and returns its status and JSON body (`null` when it has none).
async fn send(rb: RequestBuilder) -> Reply {
    let r = rb.send().await.unwrap();
    let status = r.status();
    let v = r.json::<Value>().await.unwrap_or(Value::Null);
    (status, v)
}

/// A command from a legal-moves list, spread over the list by `n`; every third one digs as far
/// east as it can, so rounds also reach the gold.
pub fn pick(moves: &[Value], n: usize) -> Value {
    let east = moves
        .iter()
        .filter(|m| m["type"] == "play_path")
        .max_by_key(|m| m["at"]["x"].as_i64().unwrap_or(0));
    match east {
        Some(m) if n.is_multiple_of(3) => m.clone(),
        _ => moves[n * 7919 % moves.len()].clone(),
    }
}
