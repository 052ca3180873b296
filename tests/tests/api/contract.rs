//! The client contract beyond the bodies: a finished game's event stream ends, a body over the
//! limit is 413, `If-Match` takes a list, every `Location` and `Link` the server sends is
//! declared in the spec, HEAD answers like GET, and an undo's reply says whether votes are
//! still awaited.

use std::io::{Read, Write};
use std::time::Duration;

use reqwest::{Client, Method, Response, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{TestApp, seed_hex};

/// A client that keeps no connection idle as long as the server does (see `TestApp::spawn_at`).
fn client() -> Client {
    Client::builder()
        .pool_idle_timeout(Duration::from_secs(2))
        .build()
        .unwrap()
}

/// Whether the committed spec declares the response header `name` on `method path`'s `status`.
fn declares(method: &Method, path: &str, status: StatusCode, name: &str) -> bool {
    let spec: Value = serde_json::from_str(saboteur_openapi::COMMITTED).unwrap();
    let op = &spec["paths"][path][method.as_str().to_lowercase()];
    assert!(op.is_object(), "the spec has no {method} {path}");
    op["responses"][status.as_str()]["headers"]
        .as_object()
        .is_some_and(|h| h.keys().any(|k| k.eq_ignore_ascii_case(name)))
}

/// Fails when `res` (an answer to `method` on the spec's `path`) carries a `Location` or a
/// `Link` its operation does not declare.
fn assert_declared(method: &Method, path: &str, res: &Response) {
    for name in ["location", "link"] {
        if res.headers().contains_key(name) {
            assert!(
                declares(method, path, res.status(), name),
                "{method} {path} answers {} with an undeclared {name}",
                res.status()
            );
        }
    }
}

/// The header `name` of `res`, or "".
fn header(res: &Response, name: &str) -> String {
    res.headers()
        .get(name)
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default()
}

/// A game of Ada (seat 0) and two heuristic bots, started: (id, host token, Ada's token).
async fn ada_and_bots(app: &TestApp, seed: u64) -> (String, String, String) {
    let game = json!({ "ruleset": "base", "players": 3, "seed": seed_hex(seed) });
    let (id, host, ada) = app.lobby(&game).await;
    for _ in 1..3 {
        let (st, b) = app
            .add_bot(&id, Some(&host), &json!({ "level": "heuristic" }))
            .await;
        assert_eq!(st, StatusCode::CREATED, "{b}");
    }
    let (st, out) = app.start(&id, Some(&host)).await;
    assert_eq!(st, StatusCode::OK, "{out}");
    (id, host, ada)
}

/// The host hands Ada's seat to a bot: the bots play the game to its end in that request.
/// Returns the finished game's version.
async fn bots_finish(app: &TestApp, id: &str, host: &str) -> i64 {
    let path = format!("/games/{id}/seats/0/handover");
    let (st, out) = app.post_json(&path, Some(host), Some(&json!({}))).await;
    assert_eq!(st, StatusCode::OK, "{out}");
    let (_, g) = app.game(id).await;
    assert_eq!(g["status"], "finished", "{g}");
    g["version"].as_i64().unwrap()
}

/// Reads a server-sent event stream until it ends, or until nothing but keep-alives arrived
/// for `quiet` after the last event: the ids seen, and whether the stream ended.
async fn read_stream(res: &mut Response, quiet: Duration) -> (Vec<i64>, bool) {
    let mut text = String::new();
    let mut ids = Vec::new();
    let mut deadline = tokio::time::Instant::now() + quiet;
    loop {
        match tokio::time::timeout_at(deadline, res.chunk()).await {
            Err(_) => return (ids, false),
            Ok(chunk) => match chunk.expect("the stream reads") {
                None => return (ids, true),
                Some(bytes) => text.push_str(&String::from_utf8_lossy(&bytes)),
            },
        }
        let seen: Vec<i64> = text
            .lines()
            .filter_map(|l| l.strip_prefix("id: "))
            .map(|n| n.parse().unwrap())
            .collect();
        if seen.len() > ids.len() {
            deadline = tokio::time::Instant::now() + quiet;
        }
        ids = seen;
    }
}

// 1. A finished game's stream ends.

async fn a_finished_games_stream_ends(app: &TestApp) {
    let (id, host, ada) = ada_and_bots(app, 31).await;
    // A spectator and Ada follow the game live.
    let mut watching = app.events_stream(&id, None, None).await;
    let mut playing = app.events_stream(&id, Some(&ada), None).await;
    assert_eq!(watching.status(), StatusCode::OK);
    assert_eq!(playing.status(), StatusCode::OK);
    let version = bots_finish(app, &id, &host).await;
    let every: Vec<i64> = (1..=version).collect();
    for stream in [&mut watching, &mut playing] {
        let (ids, ended) = read_stream(stream, Duration::from_secs(12)).await;
        assert_eq!(ids, every, "every event once, in order");
        assert!(ended, "the stream goes on after the game's last event");
    }
    // Opened on the finished game: its backlog, then the end.
    let mut late = app.events_stream(&id, Some(&ada), None).await;
    assert_eq!(late.status(), StatusCode::OK);
    let (ids, ended) = read_stream(&mut late, Duration::from_secs(12)).await;
    assert_eq!(ids, every);
    assert!(ended, "a stream opened on a finished game goes on");
    // Resumed after the last event: nothing, then the end.
    let mut resumed = app
        .events_stream(&id, None, Some(&version.to_string()))
        .await;
    let (ids, ended) = read_stream(&mut resumed, Duration::from_secs(12)).await;
    assert!(ids.is_empty() && ended, "{ids:?} ended: {ended}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_a_finished_games_stream_ends() {
    a_finished_games_stream_ends(&TestApp::sqlite().await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_a_finished_games_stream_ends() {
    a_finished_games_stream_ends(&TestApp::postgres().await).await;
}

// 2. A body over the limit is 413.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_over_64_kib_is_413_too_large() {
    let app = TestApp::sqlite().await;
    let c = client();
    const LIMIT: usize = 64 * 1024;
    // A game's creation padded with spaces (still JSON) to `len` bytes.
    let padded = |len: usize| {
        let mut body = json!({ "ruleset": "base", "players": 3 }).to_string();
        body.push_str(&" ".repeat(len - body.len()));
        body
    };
    let post = |path: &str, body: String| {
        c.post(format!("{}{path}", app.base))
            .header("content-type", "application/json")
            .body(body)
            .send()
    };
    let res = post("/games", padded(LIMIT)).await.unwrap();
    assert_eq!(
        res.status(),
        StatusCode::CREATED,
        "a body of exactly the limit"
    );
    let id = res.json::<Value>().await.unwrap()["game_id"]
        .as_str()
        .unwrap()
        .to_string();
    let receipts = format!("/games/{id}/audit/receipts");
    for (path, len) in [
        ("/games", LIMIT + 1),
        ("/games", 300 * 1024),
        ("/games", 2 * 1024 * 1024),
        (receipts.as_str(), 100 * 1024),
    ] {
        let res = post(path, padded(len)).await.unwrap();
        assert_eq!(res.status(), StatusCode::PAYLOAD_TOO_LARGE, "{path} {len}");
        assert_eq!(res.headers()["content-type"], "application/problem+json");
        let problem: Value = res.json().await.unwrap();
        assert_eq!(problem["code"], "too_large", "{problem}");
        assert_eq!(problem["status"], 413);
    }
    // A body of unknown length (chunked) is cut off at the limit too.
    let addr = app.base.trim_start_matches("http://").to_string();
    let chunk = " ".repeat(16 * 1024);
    let answer = tokio::task::spawn_blocking(move || {
        let mut socket = std::net::TcpStream::connect(addr).unwrap();
        socket
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let mut request = String::from(
            "POST /games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
             Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
        );
        for _ in 0..5 {
            request.push_str(&format!("{:x}\r\n{chunk}\r\n", chunk.len()));
        }
        request.push_str("0\r\n\r\n");
        // The server may answer before it read everything: a failed write is not the test's.
        let _ = socket.write_all(request.as_bytes());
        let mut reply = Vec::new();
        let _ = socket.read_to_end(&mut reply);
        String::from_utf8_lossy(&reply).to_string()
    })
    .await
    .unwrap();
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert!(answer.contains("too_large"), "{answer}");
}

// 3. If-Match takes a list.

async fn if_match_takes_a_list(app: &TestApp) {
    let t = app.table("base", 3, 14).await;
    app.start(&t.id, Some(&t.host)).await;
    let send = |seat: usize, command: Value, values: Vec<String>| {
        let headers: Vec<(&str, String)> = values.into_iter().map(|v| ("If-Match", v)).collect();
        let path = format!("/games/{}/commands", t.id);
        let token = t.tokens[seat].clone();
        async move {
            app.exchange(Method::POST, &path, Some(&token), Some(&command), &headers)
                .await
        }
    };
    let (_, s) = app.state(&t.id, None).await;
    let seat = s["view"]["phase"]["awaited"].as_u64().unwrap() as usize;
    let (_, moves) = app.legal_moves(&t.id, &t.tokens[seat]).await;
    let v = moves["version"].as_i64().unwrap();
    let command = moves["commands"][0].clone();
    // Malformed lists: 400, as a malformed tag is.
    for bad in [
        "\"1\", nope",
        "*, \"1\"",
        "\"1\" \"2\"",
        " , ",
        "\"1\", \"x\"",
    ] {
        let ex = send(seat, command.clone(), vec![bad.to_string()]).await;
        assert_eq!(ex.status, StatusCode::BAD_REQUEST, "{bad}: {:?}", ex.body);
        assert_eq!(ex.body["code"], "bad_request");
    }
    // No version listed holds (before the last decision, or not yet recorded): 412.
    let stale = vec![format!("\"1\", W/\"1\", \"{}\"", v + 5)];
    let ex = send(seat, command.clone(), stale).await;
    assert_eq!(ex.status, StatusCode::PRECONDITION_FAILED, "{:?}", ex.body);
    // One listed version holds: played.
    let ex = send(seat, command.clone(), vec![format!("\"1\", \"{v}\"")]).await;
    assert_eq!(ex.status, StatusCode::OK, "{:?}", ex.body);
    // A list over several header lines, weak tags among them, holds as one list.
    let (_, s) = app.state(&t.id, None).await;
    let next = s["view"]["phase"]["awaited"].as_u64().unwrap() as usize;
    let (_, moves) = app.legal_moves(&t.id, &t.tokens[next]).await;
    let v = moves["version"].as_i64().unwrap();
    let lines = vec!["\"2\"".to_string(), format!("W/\"3\", W/\"{v}\",")];
    let ex = send(next, moves["commands"][0].clone(), lines).await;
    assert_eq!(ex.status, StatusCode::OK, "{:?}", ex.body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_if_match_takes_a_list() {
    if_match_takes_a_list(&TestApp::sqlite().await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_if_match_takes_a_list() {
    if_match_takes_a_list(&TestApp::postgres().await).await;
}

// 4. Every 201 names what it made; every Location and Link is declared.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_201_names_what_it_made_and_its_headers_are_declared() {
    let app = TestApp::sqlite().await;
    let c = client();
    let send = |method: Method, path: String, token: Option<&str>, body: Option<Value>| {
        let mut rb = c.request(method, format!("{}{path}", app.base));
        if let Some(t) = token {
            rb = rb.bearer_auth(t);
        }
        if let Some(b) = body {
            rb = rb.json(&b);
        }
        rb.send()
    };
    let created = |res: &Response, spec_path: &str, location: &str| {
        assert_eq!(res.status(), StatusCode::CREATED, "POST {spec_path}");
        assert_eq!(header(res, "location"), location, "POST {spec_path}");
        assert!(
            declares(&Method::POST, spec_path, StatusCode::CREATED, "location"),
            "POST {spec_path} does not declare its Location"
        );
    };
    let game = json!({ "ruleset": "base", "players": 3, "seed": seed_hex(33) });
    let res = send(Method::POST, "/games".into(), None, Some(game))
        .await
        .unwrap();
    let id = header(&res, "location")
        .trim_start_matches("/games/")
        .to_string();
    created(&res, "/games", &format!("/games/{id}"));
    let g: Value = res.json().await.unwrap();
    let host = g["host_token"].as_str().unwrap().to_string();
    let join = json!({ "name": "Ada" });
    let res = send(Method::POST, format!("/games/{id}/seats"), None, Some(join))
        .await
        .unwrap();
    created(&res, "/games/{id}/seats", &format!("/games/{id}/seats/0"));
    let ada = res.json::<Value>().await.unwrap()["player_token"]
        .as_str()
        .unwrap()
        .to_string();
    for seat in 1..3 {
        let bot = json!({ "level": "random" });
        let path = format!("/games/{id}/bots");
        let res = send(Method::POST, path, Some(&host), Some(bot))
            .await
            .unwrap();
        created(
            &res,
            "/games/{id}/bots",
            &format!("/games/{id}/seats/{seat}"),
        );
    }
    app.start(&id, Some(&host)).await;
    bots_finish(&app, &id, &host).await;
    let path = format!("/games/{id}/rematch");
    let res = send(Method::POST, path, Some(&host), None).await.unwrap();
    let next = header(&res, "location")
        .trim_start_matches("/games/")
        .to_string();
    created(&res, "/games/{id}/rematch", &format!("/games/{next}"));
    let path = format!("/games/{next}/seats/0/claim");
    let res = send(Method::POST, path, Some(&ada), None).await.unwrap();
    created(
        &res,
        "/games/{id}/seats/{seat}/claim",
        &format!("/games/{next}/seats/0"),
    );
    // Pages name the next one in `Link`, declared.
    for (path, spec_path) in [
        ("/games?limit=1".to_string(), "/games"),
        (format!("/games/{id}/events?limit=1"), "/games/{id}/events"),
        ("/log?limit=1".to_string(), "/log"),
    ] {
        let res = send(Method::GET, path.clone(), None, None).await.unwrap();
        assert_eq!(res.status(), StatusCode::OK, "{path}");
        assert_declared(&Method::GET, spec_path, &res);
        if spec_path != "/log" {
            assert!(header(&res, "link").contains("rel=\"next\""), "{path}");
        }
    }
}

// 5. HEAD answers like GET.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn head_answers_like_get_without_a_body() {
    let app = TestApp::sqlite().await;
    let c = client();
    let t = app.table("base", 3, 15).await;
    app.start(&t.id, Some(&t.host)).await;
    let url = |path: &str| format!("{}{path}", app.base);
    for path in [
        "/games?limit=1".to_string(),
        format!("/games/{}", t.id),
        format!("/games/{}/state", t.id),
        format!("/games/{}/events?limit=1", t.id),
        "/catalogue".to_string(),
        "/healthz".to_string(),
        "/openapi.json".to_string(),
    ] {
        let get = c.get(url(&path)).send().await.unwrap();
        let head = c.head(url(&path)).send().await.unwrap();
        assert_eq!(head.status(), get.status(), "HEAD {path}");
        for name in [
            "content-type",
            "etag",
            "link",
            "cache-control",
            "api-version",
        ] {
            assert_eq!(
                header(&head, name),
                header(&get, name),
                "HEAD {path}: {name}"
            );
        }
        assert!(
            head.bytes().await.unwrap().is_empty(),
            "HEAD {path} has a body"
        );
    }
    // The event stream: its head at once, and no stream.
    let path = format!("/games/{}/events/stream", t.id);
    let head = tokio::time::timeout(Duration::from_secs(5), c.head(url(&path)).send())
        .await
        .expect("HEAD of a stream answers at once")
        .unwrap();
    assert_eq!(head.status(), StatusCode::OK);
    assert!(header(&head, "content-type").starts_with("text/event-stream"));
    // Errors are answered alike, without their problem body.
    let nobody = "/games/00000000-0000-4000-8000-000000000000";
    let head = c.head(url(nobody)).send().await.unwrap();
    assert_eq!(head.status(), StatusCode::NOT_FOUND);
    assert_eq!(header(&head, "content-type"), "application/problem+json");
    assert!(head.bytes().await.unwrap().is_empty());
    // HEAD is allowed wherever GET is, and only there.
    for (method, path, allow) in [
        (Method::PUT, format!("/games/{}/state", t.id), "GET, HEAD"),
        (Method::DELETE, "/games".to_string(), "GET, HEAD, POST"),
        (Method::POST, "/openapi.json".to_string(), "GET, HEAD"),
        (Method::HEAD, format!("/games/{}/commands", t.id), "POST"),
    ] {
        let res = c.request(method.clone(), url(&path)).send().await.unwrap();
        assert_eq!(
            res.status(),
            StatusCode::METHOD_NOT_ALLOWED,
            "{method} {path}"
        );
        assert_eq!(header(&res, "allow"), allow, "{method} {path}");
    }
}

// 6. An undo's reply says whether votes are awaited.

async fn an_undo_settled_at_once_answers_200(app: &TestApp) {
    // Ada's command drew her a card: the bots decline to take it back at once (§12).
    let (id, _, ada) = ada_and_bots(app, 36).await;
    let (_, moves) = app.legal_moves(&id, &ada).await;
    let play = moves["commands"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["type"] != "pass")
        .unwrap()
        .clone();
    let (st, out) = app.command(&id, &ada, &play).await;
    assert_eq!(st, StatusCode::OK, "{out}");
    let (st, u) = app.undo(&id, &ada).await;
    let kinds: Vec<&Value> = u["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| &e["event"]["type"])
        .collect();
    assert_eq!(kinds, ["undo_requested", "undo_declined"], "{u}");
    assert_eq!(u["events"][0]["event"]["revealed"], true);
    assert_eq!(st, StatusCode::OK, "declined at once: nothing is awaited");
    // Among people: 202 while votes are awaited, 200 once declined.
    let t = app.table("base", 3, 37).await;
    app.start(&t.id, Some(&t.host)).await;
    let seat = app.play_one(&t).await;
    let (st, u) = app.undo(&t.id, &t.tokens[seat]).await;
    assert_eq!(st, StatusCode::ACCEPTED, "{u}");
    let (st, u) = app.undo_decline(&t.id, &t.tokens[(seat + 1) % 3]).await;
    assert_eq!(st, StatusCode::OK, "declined: nothing is awaited: {u}");
    assert_eq!(u["events"][0]["event"]["type"], "undo_declined");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_an_undo_settled_at_once_answers_200() {
    an_undo_settled_at_once_answers_200(&TestApp::sqlite().await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_an_undo_settled_at_once_answers_200() {
    an_undo_settled_at_once_answers_200(&TestApp::postgres().await).await;
}
