//! End-to-end: the real server on port 0, real HTTP, a real database (SQLite and PostgreSQL).

use std::net::SocketAddr;

use reqwest::{Client, StatusCode};
use serde_json::{Value, json};

/// The committed spec's schemas, compiled once: responses must match what clients generate
/// their types from.
fn validators() -> &'static std::collections::HashMap<&'static str, jsonschema::Validator> {
    static V: std::sync::OnceLock<std::collections::HashMap<&'static str, jsonschema::Validator>> =
        std::sync::OnceLock::new();
    V.get_or_init(|| {
        let spec: Value = serde_json::from_str(saboteur_openapi::COMMITTED).unwrap();
        [
            "StateView",
            "LegalMoves",
            "Outcome",
            "EventPage",
            "GameSummary",
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
fn assert_conforms(name: &str, value: &Value) {
    if let Err(e) = validators()[name].validate(value) {
        panic!("a {name} contradicts the spec at {}: {e}", e.instance_path);
    }
}

struct Server {
    base: String,
    _keep: Option<tempfile::TempDir>,
}

async fn start_server(database_url: String, keep: Option<tempfile::TempDir>) -> Server {
    let config = saboteur_api::Config {
        allow_fixed_seed: true,
        ..saboteur_api::Config::new("127.0.0.1:0", database_url)
    };
    let (server, addr): (_, SocketAddr) = saboteur_api::start(config)
        .await
        .expect("the server starts");
    tokio::spawn(server);
    Server {
        base: format!("http://{addr}"),
        _keep: keep,
    }
}

async fn sqlite_server() -> Server {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("e2e.db").display());
    start_server(url, Some(dir)).await
}

async fn postgres_url() -> String {
    saboteur_storage::testing::fresh_database().await
}

struct Table {
    id: String,
    host: String,
    tokens: Vec<String>,
}

/// Sends a request and returns its status and JSON body (`null` when it has none).
async fn send(rb: reqwest::RequestBuilder) -> (StatusCode, Value) {
    let r = rb.send().await.unwrap();
    let status = r.status();
    let v = r.json::<Value>().await.unwrap_or(Value::Null);
    (status, v)
}

/// A test seed as the API takes it: 64 hex digits.
fn seed_hex(seed: u64) -> String {
    format!("{:0<64}", format!("{seed:016x}"))
}

async fn new_table(c: &Client, s: &Server, ruleset: &str, players: u8, seed: u64) -> Table {
    let seed = seed_hex(seed);
    let (st, g) = send(
        c.post(format!("{}/games", s.base))
            .json(&json!({ "ruleset": ruleset, "players": players, "seed": seed })),
    )
    .await;
    assert_eq!(st, StatusCode::CREATED, "{g}");
    let id = g["game_id"].as_str().unwrap().to_string();
    assert_eq!(g["seed_commitment"].as_str().unwrap().len(), 64);
    let mut tokens = Vec::new();
    for i in 0..players {
        let (st, j) = send(
            c.post(format!("{}/games/{id}/seats", s.base))
                .json(&json!({ "name": format!("p{i}") })),
        )
        .await;
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

fn pick(moves: &[Value], n: usize) -> Value {
    // Prefer digging east now and then, so rounds also reach the gold.
    let east = moves
        .iter()
        .filter(|m| m["type"] == "play_path")
        .max_by_key(|m| m["at"]["x"].as_i64().unwrap_or(0));
    match east {
        Some(m) if n.is_multiple_of(3) => m.clone(),
        _ => moves[n * 7919 % moves.len()].clone(),
    }
}

/// Nothing a seat may not know shows in its view or its events.
async fn check_no_leak(c: &Client, s: &Server, t: &Table) {
    for (seat, token) in t.tokens.iter().enumerate() {
        let (st, v) = send(
            c.get(format!("{}/games/{}/state", s.base, t.id))
                .bearer_auth(token),
        )
        .await;
        assert_eq!(st, StatusCode::OK);
        assert_conforms("StateView", &v);
        let view = &v["view"];
        if view["phase"]["name"] == "game_over" {
            continue;
        }
        assert_eq!(view["seat"], seat);
        assert!(view["hands"].is_null() && view["roles"].is_null() && view["seed"].is_null());
        let (_, page) = send(
            c.get(format!("{}/games/{}/events?limit=1000", s.base, t.id))
                .bearer_auth(token),
        )
        .await;
        assert_conforms("EventPage", &page);
        for e in page["events"].as_array().unwrap() {
            let e = &e["event"];
            match e["type"].as_str().unwrap() {
                "round_started" => {
                    for (i, h) in e["hands"].as_array().unwrap().iter().enumerate() {
                        assert_eq!(h.is_array(), i == seat, "seat {seat} sees hand {i}: {h}");
                    }
                    assert!(e["goals"].is_null() && e["draw_pile"]["count"].is_number());
                }
                "card_drawn" | "map_used" | "gold_kept" if e["seat"] != seat => {
                    let secret = e.get("card").or(e.get("goal")).unwrap();
                    assert!(secret.is_null(), "seat {seat} sees another's secret: {e}");
                }
                "command_accepted" if e["seat"] != seat => assert!(e["command"].is_null()),
                "game_created" => assert!(e["seed"].is_null()),
                _ => {}
            }
        }
    }
}

/// Plays a whole game through the API only: every command chosen from the legal-moves
/// endpoint.
async fn play_whole_game(s: &Server, ruleset: &str, players: u8, seed: u64) {
    let c = Client::new();
    let t = new_table(&c, s, ruleset, players, seed).await;
    let (st, out) = send(
        c.post(format!("{}/games/{}/start", s.base, t.id))
            .bearer_auth(&t.host),
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{out}");
    let mut n = 0;
    loop {
        let (_, g) = send(c.get(format!("{}/games/{}/state", s.base, t.id))).await;
        assert_conforms("StateView", &g);
        let view = &g["view"];
        if view["phase"]["name"] == "game_over" {
            break;
        }
        let seat = view["phase"]["awaited"]
            .as_u64()
            .expect("someone is awaited") as usize;
        let (st, moves) = send(
            c.get(format!("{}/games/{}/legal-moves", s.base, t.id))
                .bearer_auth(&t.tokens[seat]),
        )
        .await;
        assert_eq!(st, StatusCode::OK);
        assert_conforms("LegalMoves", &moves);
        let version = moves["version"].as_i64().unwrap();
        let list = moves["commands"].as_array().unwrap();
        assert!(!list.is_empty());
        let command = pick(list, n);
        let (st, out) = send(
            c.post(format!("{}/games/{}/commands", s.base, t.id))
                .bearer_auth(&t.tokens[seat])
                .header("If-Match", format!("\"{version}\""))
                .header("Idempotency-Key", format!("cmd-{n}"))
                .json(&command),
        )
        .await;
        assert_eq!(st, StatusCode::OK, "{command} → {out}");
        assert_conforms("Outcome", &out);
        assert!(out["version"].as_i64().unwrap() > version);
        if n.is_multiple_of(25) {
            check_no_leak(&c, s, &t).await;
        }
        n += 1;
        assert!(n < 3000, "the game does not end");
    }
    // Over: everything public, the seed revealed and matching its commitment.
    let (_, g) = send(c.get(format!("{}/games/{}", s.base, t.id))).await;
    assert_eq!(g["status"], "finished");
    assert_conforms("GameSummary", &g);
    let seed = g["seed"].as_str().expect("the seed is revealed");
    assert_eq!(seed.len(), 64);
    let (_, v) = send(c.get(format!("{}/games/{}/state", s.base, t.id))).await;
    assert_conforms("StateView", &v);
    assert!(v["view"]["roles"].is_array() && v["view"]["gold"].is_array());
    assert_eq!(v["view"]["rounds"].as_array().unwrap().len(), 3);
    // Replay: any earlier version.
    let (st, early) = send(c.get(format!("{}/games/{}/state?at=2", s.base, t.id))).await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(early["view"]["round"], 1);
}

/// Error cases: 400, 401, 403, 404, 409, 412, 422, idempotent retry; a rejected command
/// changes nothing.
async fn errors_and_retries(s: &Server, second: &Server) {
    let c = Client::new();
    let t = new_table(&c, s, "base", 3, 5).await;
    let problem = |v: &Value, code: &str| {
        assert_eq!(v["code"], code, "{v}");
        assert!(v["detail"].as_str().is_some_and(|d| !d.is_empty()));
    };
    // Leaving before the start frees the seat; the next to join takes it.
    let (st, _) = send(
        c.delete(format!("{}/games/{}/seats/1", s.base, t.id))
            .bearer_auth(&t.tokens[0]),
    )
    .await;
    assert_eq!(st, StatusCode::FORBIDDEN, "not one's own seat");
    let r = c
        .delete(format!("{}/games/{}/seats/1", s.base, t.id))
        .bearer_auth(&t.tokens[1])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    let (st, _) = send(
        c.get(format!("{}/games/{}/legal-moves", s.base, t.id))
            .bearer_auth(&t.tokens[1]),
    )
    .await;
    assert_eq!(
        st,
        StatusCode::UNAUTHORIZED,
        "the old token no longer works"
    );
    let (st, j) = send(
        c.post(format!("{}/games/{}/seats", s.base, t.id))
            .json(&json!({"name": "again"})),
    )
    .await;
    assert_eq!((st, j["seat"].as_u64()), (StatusCode::CREATED, Some(1)));
    let mut t = t;
    t.tokens[1] = j["player_token"].as_str().unwrap().to_string();
    // Joining a full table: 409.
    let (st, v) = send(
        c.post(format!("{}/games/{}/seats", s.base, t.id))
            .json(&json!({"name": "late"})),
    )
    .await;
    assert_eq!(st, StatusCode::CONFLICT);
    problem(&v, "conflict");
    // A player cannot start the game: 403; without a token: 401.
    let (st, v) = send(
        c.post(format!("{}/games/{}/start", s.base, t.id))
            .bearer_auth(&t.tokens[0]),
    )
    .await;
    assert_eq!(st, StatusCode::FORBIDDEN);
    problem(&v, "forbidden");
    let (st, _) = send(c.post(format!("{}/games/{}/start", s.base, t.id))).await;
    assert_eq!(st, StatusCode::UNAUTHORIZED);
    let (st, _) = send(
        c.post(format!("{}/games/{}/start", s.base, t.id))
            .bearer_auth(&t.host),
    )
    .await;
    assert_eq!(st, StatusCode::OK);
    // Unknown game: 404; malformed id path still answers problem+json.
    let r = c
        .get(format!("{}/games/nope/state", s.base))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    assert_eq!(r.headers()["content-type"], "application/problem+json");
    // Malformed commands: 400 (unknown field, unknown card, not JSON).
    for bad in [
        json!({"type": "pass", "discard": [], "x": 1}),
        json!({"type": "play_path", "card": "nope", "at": {"x": 1, "y": 0}}),
    ] {
        let (st, v) = send(
            c.post(format!("{}/games/{}/commands", s.base, t.id))
                .bearer_auth(&t.tokens[0])
                .json(&bad),
        )
        .await;
        assert_eq!(st, StatusCode::BAD_REQUEST, "{bad}");
        problem(&v, "bad_request");
    }
    let (_, before) = send(
        c.get(format!("{}/games/{}/state", s.base, t.id))
            .bearer_auth(&t.tokens[0]),
    )
    .await;
    let version = before["version"].as_i64().unwrap();
    // Not your turn: 422 with the rule's code; nothing changes.
    let seat = before["view"]["phase"]["awaited"].as_u64().unwrap() as usize;
    let other = (seat + 1) % 3;
    let (st, v) = send(
        c.post(format!("{}/games/{}/commands", s.base, t.id))
            .bearer_auth(&t.tokens[other])
            .json(&json!({"type": "pass", "discard": []})),
    )
    .await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY);
    problem(&v, "not_your_turn");
    // A rule broken by the right player: invalid discard.
    let (st, v) = send(
        c.post(format!("{}/games/{}/commands", s.base, t.id))
            .bearer_auth(&t.tokens[seat])
            .json(&json!({"type": "pass", "discard": []})),
    )
    .await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY);
    problem(&v, "invalid_discard");
    // The host is not a player: 403.
    let (st, _) = send(
        c.post(format!("{}/games/{}/commands", s.base, t.id))
            .bearer_auth(&t.host)
            .json(&json!({"type": "pass", "discard": []})),
    )
    .await;
    assert_eq!(st, StatusCode::FORBIDDEN);
    let (_, after) = send(
        c.get(format!("{}/games/{}/state", s.base, t.id))
            .bearer_auth(&t.tokens[0]),
    )
    .await;
    assert_eq!(after, before, "rejected commands change nothing");
    // Stale If-Match: 412.
    let (_, moves) = send(
        c.get(format!("{}/games/{}/legal-moves", s.base, t.id))
            .bearer_auth(&t.tokens[seat]),
    )
    .await;
    let cmd = moves["commands"][0].clone();
    let (st, v) = send(
        c.post(format!("{}/games/{}/commands", s.base, t.id))
            .bearer_auth(&t.tokens[seat])
            .header("If-Match", "\"1\"")
            .json(&cmd),
    )
    .await;
    assert_eq!(st, StatusCode::PRECONDITION_FAILED);
    problem(&v, "precondition_failed");
    // Idempotent retry: the same outcome, nothing appended twice.
    let retry = || {
        c.post(format!("{}/games/{}/commands", s.base, t.id))
            .bearer_auth(&t.tokens[seat])
            .header("Idempotency-Key", "retry-me")
            .header("If-Match", format!("\"{version}\""))
            .json(&cmd)
    };
    let (st, first) = send(retry()).await;
    assert_eq!(st, StatusCode::OK, "{first}");
    let (st, again) = send(retry()).await;
    assert_eq!(st, StatusCode::OK, "{again}");
    assert_eq!(first, again);
    let (_, now) = send(c.get(format!("{}/games/{}", s.base, t.id))).await;
    assert_eq!(now["version"], first["version"]);
    // A lost race: a second server process on the same database still holds the old version.
    let (_, stale) = send(c.get(format!("{}/games/{}/state", second.base, t.id))).await;
    assert_eq!(stale["version"], first["version"]);
    let (_, v2) = send(c.get(format!("{}/games/{}/state", s.base, t.id))).await;
    let next = v2["view"]["phase"]["awaited"].as_u64().unwrap() as usize;
    let (_, m) = send(
        c.get(format!("{}/games/{}/legal-moves", s.base, t.id))
            .bearer_auth(&t.tokens[next]),
    )
    .await;
    let (st, _) = send(
        c.post(format!("{}/games/{}/commands", s.base, t.id))
            .bearer_auth(&t.tokens[next])
            .json(&m["commands"][0]),
    )
    .await;
    assert_eq!(st, StatusCode::OK);
    let (_, m2) = send(
        c.get(format!("{}/games/{}/legal-moves", second.base, t.id))
            .bearer_auth(&t.tokens[next]),
    )
    .await;
    let (_, current) = send(c.get(format!("{}/games/{}", s.base, t.id))).await;
    if m2["version"] == current["version"] {
        // The second process heard the append (PostgreSQL announces it to every process):
        // it serves the new version, and the move is no longer offered.
        assert!(m2["commands"].as_array().unwrap().is_empty(), "{m2}");
    } else {
        // It had not heard yet (an SQLite file shared by two processes is checked once a
        // second): the stale move loses the race at the store.
        let cmd = m2["commands"]
            .get(0)
            .expect("the stale server still offers the move");
        let (st, v) = send(
            c.post(format!("{}/games/{}/commands", second.base, t.id))
                .bearer_auth(&t.tokens[next])
                .json(cmd),
        )
        .await;
        assert_eq!(st, StatusCode::CONFLICT, "{v}");
        problem(&v, "conflict");
    }
    // Either way the next request through the second process sees the winner's version.
    let (_, fresh) = send(c.get(format!("{}/games/{}/state", second.base, t.id))).await;
    assert!(fresh["version"].as_i64() > stale["version"].as_i64());
    // Paging the events: Link rel=next.
    let r = c
        .get(format!("{}/games/{}/events?limit=1", s.base, t.id))
        .send()
        .await
        .unwrap();
    assert!(
        r.headers()["link"]
            .to_str()
            .unwrap()
            .contains("rel=\"next\"")
    );
    // Bad queries: 400.
    let (st, _) = send(c.get(format!("{}/games?limit=0", s.base))).await;
    assert_eq!(st, StatusCode::BAD_REQUEST);
    let (st, _) = send(c.get(format!("{}/games/{}/events?after=x", s.base, t.id))).await;
    assert_eq!(st, StatusCode::BAD_REQUEST);
    // A fixed seed needs the testing flag (this server has it); a bad one is refused.
    let (st, _) = send(
        c.post(format!("{}/games", s.base))
            .json(&json!({"ruleset": "base", "players": 3, "seed": "xyz"})),
    )
    .await;
    assert_eq!(st, StatusCode::BAD_REQUEST);
    let (st, _) = send(
        c.post(format!("{}/games", s.base))
            .json(&json!({"ruleset": "base", "players": 11})),
    )
    .await;
    assert_eq!(st, StatusCode::BAD_REQUEST);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_whole_base_game() {
    let s = sqlite_server().await;
    play_whole_game(&s, "base", 4, 11).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_whole_saboteur2_game() {
    let s = sqlite_server().await;
    play_whole_game(&s, "saboteur2", 5, 12).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_whole_base_game() {
    let s = start_server(postgres_url().await, None).await;
    play_whole_game(&s, "base", 5, 21).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_whole_saboteur2_game() {
    let s = start_server(postgres_url().await, None).await;
    play_whole_game(&s, "saboteur2", 7, 22).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_errors_and_retries() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("e2e.db").display());
    let a = start_server(url.clone(), None).await;
    let b = start_server(url, Some(dir)).await;
    errors_and_retries(&a, &b).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_errors_and_retries() {
    let url = postgres_url().await;
    let a = start_server(url.clone(), None).await;
    let b = start_server(url, None).await;
    errors_and_retries(&a, &b).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn operations_endpoints() {
    let s = sqlite_server().await;
    let c = Client::new();
    let (st, h) = send(c.get(format!("{}/healthz", s.base))).await;
    assert_eq!((st, h["status"].as_str()), (StatusCode::OK, Some("ok")));
    let (st, spec) = send(c.get(format!("{}/openapi.json", s.base))).await;
    assert_eq!(st, StatusCode::OK);
    assert!(spec["paths"]["/games/{id}/commands"]["post"].is_object());
    let r = c.get(format!("{}/docs/", s.base)).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert!(r.text().await.unwrap().contains("swagger"));
}

async fn state_of(c: &Client, s: &Server, t: &Table, token: &str) -> Value {
    send(
        c.get(format!("{}/games/{}/state", s.base, t.id))
            .bearer_auth(token),
    )
    .await
    .1
}

/// Plays the awaited seat's first legal command; returns the seat.
async fn play_one(c: &Client, s: &Server, t: &Table) -> usize {
    let v = state_of(c, s, t, &t.tokens[0]).await;
    let seat = v["view"]["phase"]["awaited"].as_u64().unwrap() as usize;
    let (_, m) = send(
        c.get(format!("{}/games/{}/legal-moves", s.base, t.id))
            .bearer_auth(&t.tokens[seat]),
    )
    .await;
    let pass = m["commands"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["type"] == "pass")
        .unwrap()
        .clone();
    let (st, out) = send(
        c.post(format!("{}/games/{}/commands", s.base, t.id))
            .bearer_auth(&t.tokens[seat])
            .json(&pass),
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{out}");
    seat
}

/// Undo by consent (approved, declined) and the host's rollback, through the API.
async fn undo_and_rollback(s: &Server) {
    let c = Client::new();
    let t = new_table(&c, s, "base", 3, 8).await;
    let post = |path: &str, token: &str| {
        c.post(format!("{}/games/{}/{path}", s.base, t.id))
            .bearer_auth(token.to_string())
    };
    let (st, _) = send(post("start", &t.host)).await;
    assert_eq!(st, StatusCode::OK);
    let before: Vec<Value> = {
        let mut v = Vec::new();
        for tok in &t.tokens {
            v.push(state_of(&c, s, &t, tok).await["view"].clone());
        }
        v
    };
    let seat = play_one(&c, s, &t).await;
    // Someone else cannot take it back.
    let other = (seat + 1) % 3;
    let (st, v) = send(post("undo", &t.tokens[other])).await;
    assert_eq!(st, StatusCode::CONFLICT, "{v}");
    // The command drew a card: everyone must approve.
    let (st, v) = send(post("undo", &t.tokens[seat])).await;
    assert_eq!(st, StatusCode::ACCEPTED, "{v}");
    assert_eq!(v["events"][0]["event"]["type"], "undo_requested");
    let (st, _) = send(post("undo/approve", &t.tokens[seat])).await;
    assert_eq!(st, StatusCode::CONFLICT, "the requester does not vote");
    let (st, _) = send(post("undo/approve", &t.tokens[other])).await;
    assert_eq!(st, StatusCode::ACCEPTED);
    let (st, v) = send(post("undo/approve", &t.tokens[(seat + 2) % 3])).await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(
        v["events"].as_array().unwrap().last().unwrap()["event"]["type"],
        "undone"
    );
    for (i, tok) in t.tokens.iter().enumerate() {
        assert_eq!(
            state_of(&c, s, &t, tok).await["view"],
            before[i],
            "seat {i} is back where it was"
        );
    }
    // Declined: the command stands.
    play_one(&c, s, &t).await;
    let after = state_of(&c, s, &t, &t.tokens[0]).await;
    let (st, _) = send(post("undo", &t.tokens[seat])).await;
    assert_eq!(st, StatusCode::ACCEPTED);
    let (st, _) = send(post("undo/decline", &t.tokens[other])).await;
    assert_eq!(st, StatusCode::ACCEPTED);
    assert_eq!(
        state_of(&c, s, &t, &t.tokens[0]).await["view"],
        after["view"]
    );
    // The host rolls back to the deal, with a reason; the log keeps everything.
    let rollback = |token: &str, body: Value| {
        c.post(format!("{}/games/{}/rollback", s.base, t.id))
            .bearer_auth(token.to_string())
            .json(&body)
    };
    let (st, _) = send(rollback(
        &t.tokens[0],
        json!({"to_version": 2, "reason": "dispute"}),
    ))
    .await;
    assert_eq!(st, StatusCode::FORBIDDEN);
    let (st, _) = send(rollback(&t.host, json!({"to_version": 2, "reason": " "}))).await;
    assert_eq!(st, StatusCode::BAD_REQUEST);
    let (st, v) = send(rollback(
        &t.host,
        json!({"to_version": 2, "reason": "a card was misread"}),
    ))
    .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    let now = state_of(&c, s, &t, &t.tokens[0]).await;
    assert_eq!(now["view"], before[0]);
    let (_, log) = send(c.get(format!("{}/games/{}/events?limit=1000", s.base, t.id))).await;
    let kinds: Vec<&str> = log["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["event"]["type"].as_str().unwrap())
        .collect();
    for k in ["undo_requested", "undo_approved", "undo_declined", "undone"] {
        assert!(kinds.contains(&k), "{k} is in the log");
    }
    // Not over: no audit bundle yet.
    let (st, _) = send(c.get(format!("{}/games/{}/audit", s.base, t.id))).await;
    assert_eq!(st, StatusCode::CONFLICT);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_undo_and_rollback() {
    undo_and_rollback(&sqlite_server().await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_undo_and_rollback() {
    undo_and_rollback(&start_server(postgres_url().await, None).await).await;
}

/// Reads server-sent events until one with `id: want` arrives; returns every id seen.
async fn read_until(resp: &mut reqwest::Response, want: i64) -> Vec<i64> {
    let mut ids = Vec::new();
    let mut text = String::new();
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(20);
    while !ids.contains(&want) {
        let chunk = tokio::time::timeout_at(deadline, resp.chunk())
            .await
            .expect("events arrive in time")
            .unwrap();
        text.push_str(&String::from_utf8_lossy(
            &chunk.expect("the stream stays open"),
        ));
        ids = text
            .lines()
            .filter_map(|l| l.strip_prefix("id: "))
            .map(|n| n.parse().unwrap())
            .collect();
    }
    ids
}

/// Live updates: the stream replays, follows new commands (also made through another server
/// process on the same database), and resumes with Last-Event-ID.
async fn live_updates(a: &Server, b: &Server) {
    let c = Client::new();
    let t = new_table(&c, a, "base", 3, 9).await;
    send(
        c.post(format!("{}/games/{}/start", a.base, t.id))
            .bearer_auth(&t.host),
    )
    .await;
    let mut stream = c
        .get(format!("{}/games/{}/events/stream", b.base, t.id))
        .bearer_auth(&t.tokens[0])
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), StatusCode::OK);
    assert!(
        stream.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    assert_eq!(read_until(&mut stream, 2).await, vec![1, 2]);
    // A command through the other server arrives on this stream.
    play_one(&c, a, &t).await;
    let v = state_of(&c, a, &t, &t.tokens[0]).await["version"]
        .as_i64()
        .unwrap();
    let ids = read_until(&mut stream, v).await;
    assert_eq!(
        ids,
        (3..=v).collect::<Vec<_>>(),
        "every new event once, in order"
    );
    // Resume after the first two.
    let mut resumed = c
        .get(format!("{}/games/{}/events/stream", a.base, t.id))
        .header("Last-Event-ID", "2")
        .send()
        .await
        .unwrap();
    assert_eq!(
        read_until(&mut resumed, v).await,
        (3..=v).collect::<Vec<_>>()
    );
    let (st, _) = send(
        c.get(format!("{}/games/{}/events/stream", a.base, t.id))
            .header("Last-Event-ID", "x"),
    )
    .await;
    assert_eq!(st, StatusCode::BAD_REQUEST);
    // Metrics count what happened.
    let metrics = c
        .get(format!("{}/metrics", a.base))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        metrics.contains("saboteur_commands_total{outcome=\"accepted\"}"),
        "{metrics}"
    );
    assert!(metrics.contains("saboteur_http_request_duration_seconds_bucket"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_live_updates() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("e2e.db").display());
    let a = start_server(url.clone(), None).await;
    // SQLite notifies within one process: both streams go through the same server here.
    live_updates(&a, &a).await;
    drop(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_live_updates_across_processes() {
    let url = postgres_url().await;
    let a = start_server(url.clone(), None).await;
    let b = start_server(url, None).await;
    live_updates(&a, &b).await;
}

/// A client of one server: each call sends JSON (if any) with an optional bearer token and
/// returns the status and the JSON body.
struct Api<'a> {
    c: Client,
    s: &'a Server,
}

impl Api<'_> {
    async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        token: Option<&str>,
        json: Option<Value>,
    ) -> (StatusCode, Value) {
        let mut rb = self.c.request(method, format!("{}{path}", self.s.base));
        if let Some(t) = token {
            rb = rb.bearer_auth(t);
        }
        if let Some(j) = json {
            rb = rb.json(&j);
        }
        send(rb).await
    }

    async fn get(&self, path: &str, token: Option<&str>) -> (StatusCode, Value) {
        self.call(reqwest::Method::GET, path, token, None).await
    }

    async fn post(&self, path: &str, token: Option<&str>, json: Value) -> (StatusCode, Value) {
        self.call(reqwest::Method::POST, path, token, Some(json))
            .await
    }

    async fn delete(&self, path: &str, token: Option<&str>) -> StatusCode {
        self.call(reqwest::Method::DELETE, path, token, None)
            .await
            .0
    }

    /// Creates a game and takes seat 0 as "Ada": (game id, host token, Ada's token).
    async fn lobby(&self, game: Value) -> (String, String, String) {
        let (st, g) = self.post("/games", None, game).await;
        assert_eq!(st, StatusCode::CREATED, "{g}");
        let id = g["game_id"].as_str().unwrap().to_string();
        let seats = format!("/games/{id}/seats");
        let (st, me) = self.post(&seats, None, json!({ "name": "Ada" })).await;
        assert_eq!((st, &me["seat"]), (StatusCode::CREATED, &json!(0)));
        let host = g["host_token"].as_str().unwrap().to_string();
        (id, host, me["player_token"].as_str().unwrap().to_string())
    }
}

/// One human and the rest bots: the host seats the bots, the server plays their turns as soon
/// as they come, and the human plays a whole game to the end; the bots' moves carry their
/// level, version and seed, and the audit chooses every one again.
async fn human_and_bots(s: &Server, ruleset: &str, players: u8, seed: u64) {
    let api = Api {
        c: Client::new(),
        s,
    };
    let seed_hex = seed_hex(seed);
    let (id, host, token) = api
        .lobby(json!({ "ruleset": ruleset, "players": players, "seed": seed_hex }))
        .await;
    let host = Some(host.as_str());
    let me = Some(token.as_str());
    let bots = format!("/games/{id}/bots");
    // Only the host seats bots, at a known level.
    let heuristic = json!({ "level": "heuristic" });
    let (st, p) = api.post(&bots, me, heuristic.clone()).await;
    assert_eq!((st, &p["status"]), (StatusCode::FORBIDDEN, &json!(403)));
    let (st, _) = api.post(&bots, None, heuristic.clone()).await;
    assert_eq!(st, StatusCode::UNAUTHORIZED);
    let (st, p) = api.post(&bots, host, json!({ "level": "genius" })).await;
    assert_eq!(st, StatusCode::BAD_REQUEST, "{p}");
    for seat in 1..players {
        let level = if seat % 2 == 1 { "heuristic" } else { "random" };
        let (st, b) = api.post(&bots, host, json!({ "level": level })).await;
        assert_eq!(st, StatusCode::CREATED, "{b}");
        assert_eq!(
            (b["seat"].as_u64(), &b["level"]),
            (Some(u64::from(seat)), &json!(level))
        );
    }
    let (st, _) = api.post(&bots, host, heuristic.clone()).await;
    assert_eq!(st, StatusCode::CONFLICT, "every seat is taken");
    // A player cannot unseat a bot; the host can, and seat another.
    let last = format!("/games/{id}/seats/{}", players - 1);
    assert_eq!(api.delete(&last, me).await, StatusCode::FORBIDDEN);
    assert_eq!(api.delete(&last, host).await, StatusCode::NO_CONTENT);
    let named = json!({ "level": "heuristic", "name": "Digbot" });
    assert_eq!(api.post(&bots, host, named).await.0, StatusCode::CREATED);
    let (_, summary) = api.get(&format!("/games/{id}"), None).await;
    assert_conforms("GameSummary", &summary);
    let seats = summary["seats"].as_array().unwrap();
    assert_eq!(seats.len(), usize::from(players));
    assert!(seats[0].get("bot").is_none());
    assert_eq!(seats[usize::from(players) - 1]["name"], "Digbot");
    assert_eq!(seats[usize::from(players) - 1]["bot"], "heuristic");

    let (st, out) = api
        .post(&format!("/games/{id}/start"), host, json!({}))
        .await;
    assert_eq!(st, StatusCode::OK, "{out}");
    let mut n = 0;
    let mut undone = false;
    loop {
        let (_, v) = api.get(&format!("/games/{id}/state"), me).await;
        assert_conforms("StateView", &v);
        let view = &v["view"];
        if view["phase"]["name"] == "game_over" {
            break;
        }
        // The bots have played: only the human can be awaited.
        assert_eq!(view["phase"]["awaited"], 0, "{}", view["phase"]);
        let (_, moves) = api.get(&format!("/games/{id}/legal-moves"), me).await;
        let command = pick(moves["commands"].as_array().unwrap(), n);
        let (st, out) = api
            .call(
                reqwest::Method::POST,
                &format!("/games/{id}/commands"),
                me,
                Some(command.clone()),
            )
            .await;
        assert_eq!(st, StatusCode::OK, "{command} → {out}");
        assert_conforms("Outcome", &out);
        let events = out["events"].as_array().unwrap();
        // The reply holds the bots' moves after the human's, numbered on to the new version.
        let last_seq = events.last().unwrap()["seq"].as_i64().unwrap();
        assert_eq!(last_seq, out["version"].as_i64().unwrap());
        assert_eq!(
            last_seq,
            v["version"].as_i64().unwrap() + events.len() as i64
        );
        let bot_moves: Vec<&Value> = events
            .iter()
            .map(|e| &e["event"])
            .filter(|e| e["type"] == "command_accepted" && e["seat"] != 0)
            .collect();
        let over = events.iter().any(|e| e["event"]["type"] == "game_ended");
        // The reply says who plays next: the human, or nobody once it is over.
        assert_eq!(out["awaited"], if over { json!(null) } else { json!(0) });
        for e in &bot_moves {
            assert_eq!(e["bot"]["version"], 1);
            assert!(e["bot"]["level"] == "heuristic" || e["bot"]["level"] == "random");
            // Another seat's bot seed stays hidden while the game goes on.
            assert_eq!(e["bot"]["seed"].is_null(), !over, "{e}");
        }
        if !undone && n >= 3 && !bot_moves.is_empty() && !over {
            // Taking a command back takes the bots' replies with it: they vote at once.
            let (st, u) = api.post(&format!("/games/{id}/undo"), me, json!({})).await;
            assert_conforms("Outcome", &u);
            let undo: Vec<&Value> = u["events"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| &e["event"])
                .collect();
            assert_eq!(undo[0]["type"], "undo_requested");
            if undo[0]["revealed"] == true {
                // docs/rules.md §12: the command showed its player something hidden (a draw, a
                // peek): knowledge cannot be taken back, so the bots decline.
                assert_eq!(st, StatusCode::ACCEPTED, "{u}");
                assert_eq!(undo[1]["type"], "undo_declined", "{u}");
            } else {
                assert_eq!(st, StatusCode::OK, "{u}");
                let back = events[0]["seq"].as_i64().unwrap() - 1;
                let done = undo.iter().find(|e| e["type"] == "undone").expect("undone");
                assert_eq!(done["to_version"], back);
            }
            undone = true;
        }
        n += 1;
        assert!(n < 2000, "the game does not end");
    }
    assert!(undone, "an undo was tried");
    // Over: the bots' seeds are public, and the audit chooses every bot move again.
    let (st, bundle) = api.get(&format!("/games/{id}/audit"), None).await;
    assert_eq!(st, StatusCode::OK);
    let bundle: saboteur_api::audit::AuditBundle = serde_json::from_value(bundle).unwrap();
    let bot_commands = bundle
        .events
        .iter()
        .filter(|e| e.event_type == "command_accepted" && e.payload["bot"].is_object())
        .count() as u64;
    assert!(bot_commands > 20);
    let report = saboteur_api::audit::verify(&bundle).expect("the bundle verifies");
    assert_eq!(report.bot_moves_checked, bot_commands);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_human_and_bots_play_a_whole_game() {
    let s = sqlite_server().await;
    human_and_bots(&s, "base", 4, 41).await;
    human_and_bots(&s, "saboteur2", 5, 42).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_human_and_bots_play_a_whole_game() {
    let s = start_server(postgres_url().await, None).await;
    human_and_bots(&s, "base", 4, 43).await;
    human_and_bots(&s, "saboteur2", 5, 44).await;
}

/// The schema checks used above can fail: what the spec does not describe is refused.
#[test]
fn the_spec_check_refuses_what_the_spec_does_not_describe() {
    let outcome = |event: Value| json!({ "version": 3, "events": [{ "seq": 3, "event": event }], "awaited": 1 });
    let good = outcome(json!({ "type": "turn_skipped", "seat": 0 }));
    let unknown = outcome(json!({ "type": "no_such_event", "seat": 0 }));
    let bad_card = outcome(json!({ "type": "card_drawn", "seat": 0, "card": "joker" }));
    let v = &validators()["Outcome"];
    assert!(v.is_valid(&good), "{:?}", v.validate(&good).err());
    assert!(!v.is_valid(&unknown));
    assert!(!v.is_valid(&bad_card));
    let moves = &validators()["LegalMoves"];
    assert!(
        moves.is_valid(
            &json!({ "version": 1, "commands": [{ "type": "pass", "discard": ["map"] }] })
        )
    );
    assert!(
        !moves
            .is_valid(&json!({ "version": 1, "commands": [{ "type": "pass", "discard": "map" }] }))
    );
}

/// A game left waiting on a bot — its start recorded, but not the bot's move, as when a server
/// stops between two appends — goes on as soon as a server reads it again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_left_waiting_on_a_bot_resumes_when_read_again() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("resume.db").display());
    let first = start_server(url.clone(), None).await;
    let api = Api {
        c: Client::new(),
        s: &first,
    };
    let (id, host, token) = api
        .lobby(
            json!({ "ruleset": "base", "players": 3, "first_player": 1, "seed": "ab".repeat(32) }),
        )
        .await;
    for _ in 0..2 {
        let level = json!({ "level": "heuristic" });
        let (st, _) = api
            .post(&format!("/games/{id}/bots"), Some(&host), level)
            .await;
        assert_eq!(st, StatusCode::CREATED);
    }
    // The deal is recorded behind the servers' backs: seat 1, a bot, is to play.
    let store = saboteur_storage::EventStore::connect(&url).await.unwrap();
    let history = store.load_history(&id).await.unwrap();
    let record = store.get_game(&id).await.unwrap();
    let dealt = history.start().unwrap();
    store
        .append(saboteur_storage::Append {
            game_id: id.clone(),
            expected_version: history.version() as i64,
            prev_hash: Some(record.last_hash),
            events: dealt.iter().map(saboteur_storage::to_new_event).collect(),
            command_id: None,
            status: Some(saboteur_storage::GameStatus::Active),
            bot_awaited: true,
        })
        .await
        .unwrap();
    let started = (history.version() + dealt.len() as u64) as i64;
    // Another server process finds the game waiting on a bot (its sweep) and plays both bots
    // up to the human's turn.
    let second = start_server(url, Some(dir)).await;
    let api = Api {
        c: Client::new(),
        s: &second,
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let (st, v) = api.get(&format!("/games/{id}/state"), Some(&token)).await;
        assert_eq!(st, StatusCode::OK, "{v}");
        if v["view"]["phase"]["awaited"] == 0 {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the bots never played: {}",
            v["view"]["phase"]
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let (_, page) = api
        .get(&format!("/games/{id}/events?after={started}"), None)
        .await;
    let bots: Vec<&Value> = page["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| &e["event"])
        .filter(|e| e["type"] == "command_accepted")
        .collect();
    assert_eq!(bots.len(), 2, "seats 1 and 2 played: {page}");
    assert!(bots.iter().all(|e| e["bot"]["level"] == "heuristic"));
}
