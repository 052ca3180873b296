//! Hostile and careless clients: slow bodies, a thousand open streams, control characters in
//! text and in a request's head, a reused idempotency key, wrong methods, unknown documentation
//! files.

use std::io::{Read, Write};
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::json;

use crate::harness::{Server, client, game_with_bots, send};

fn sqlite() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("hostile.db").display());
    (dir, url)
}

#[tokio::test]
async fn a_body_that_never_arrives_is_cut_off() {
    let _machine = crate::harness::beside().await;
    let (_dir, url) = sqlite();
    let server = Server::start(&url, &["--body-timeout", "2"]);
    let started = Instant::now();
    // The server answers and closes, or just closes: either ends the read.
    let answered = raw(
        &server,
        b"POST /games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
          Content-Length: 100\r\n\r\n{\"ruleset\""
            .to_vec(),
    )
    .await;
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(6),
        "the connection was held {took:?}"
    );
    if !answered.is_empty() {
        assert!(answered.starts_with("HTTP/1.1 4"), "{answered}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_open_streams_keep_health_and_commands_fast_and_are_capped() {
    let _machine = crate::harness::beside().await;
    let (_dir, url) = sqlite();
    let server = Server::start(&url, &["--max-streams", "1000"]);
    let c = client();
    let (id, token) = game_with_bots(&c, &server, "base", 3, 9).await;
    let mut streams = Vec::new();
    for _ in 0..1000 {
        let r = c
            .get(server.url(&format!("/games/{id}/events/stream")))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::OK);
        streams.push(r);
    }
    // One more is refused, with a time to come back.
    let (st, problem, headers) = send(c.get(server.url(&format!("/games/{id}/events/stream"))))
        .await
        .unwrap();
    assert_eq!(st, StatusCode::SERVICE_UNAVAILABLE, "{problem}");
    assert_eq!(problem["code"], "busy");
    assert!(headers.contains_key("retry-after"));
    // Health and play stay quick with a thousand streams open.
    let started = Instant::now();
    let (st, health, _) = send(c.get(server.url("/healthz"))).await.unwrap();
    assert_eq!(st, StatusCode::OK);
    assert_eq!(health["streams"], 1000);
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    let started = Instant::now();
    let moved = crate::harness::one_move(&c, &server, &id, &token, 0).await;
    assert!(
        matches!(moved, Some((_, _, StatusCode::OK, _))),
        "{moved:?}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    // A stream that closes gives its place back.
    drop(streams.pop());
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let r = c
            .get(server.url(&format!("/games/{id}/events/stream")))
            .send()
            .await
            .unwrap();
        if r.status() == StatusCode::OK {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "a closed stream's place never came back"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

async fn text_is_checked(url: &str) {
    let server = Server::start(url, &[]);
    let c = client();
    let (st, g, _) = send(
        c.post(server.url("/games"))
            .json(&json!({"ruleset": "base", "players": 3})),
    )
    .await
    .unwrap();
    assert_eq!(st, StatusCode::CREATED);
    let id = g["game_id"].as_str().unwrap();
    for bad in [
        "a\u{0}b",
        "bell\u{7}",
        "abc\u{202E}cba",
        "\u{2066}x",
        "",
        "   ",
        &"x".repeat(41),
    ] {
        let (st, p, _) = send(
            c.post(server.url(&format!("/games/{id}/seats")))
                .json(&json!({"name": bad})),
        )
        .await
        .unwrap();
        assert_eq!(st, StatusCode::BAD_REQUEST, "{bad:?}: {p}");
        assert_eq!(p["code"], "bad_request");
    }
    let (st, g, _) = send(c.get(server.url(&format!("/games/{id}"))))
        .await
        .unwrap();
    assert_eq!(st, StatusCode::OK);
    assert_eq!(g["seats"], json!([]), "a refused name was stored");
    let (st, _, _) = send(
        c.post(server.url(&format!("/games/{id}/seats")))
            .json(&json!({"name": "Zoë 🙂"})),
    )
    .await
    .unwrap();
    assert_eq!(st, StatusCode::CREATED);
}

#[tokio::test]
async fn text_is_checked_alike_on_sqlite() {
    let _machine = crate::harness::beside().await;
    let (_dir, url) = sqlite();
    text_is_checked(&url).await;
}

#[tokio::test]
async fn text_is_checked_alike_on_postgres() {
    let _machine = crate::harness::beside().await;
    text_is_checked(&saboteur_storage::testing::fresh_database().await).await;
}

#[tokio::test]
async fn an_idempotency_key_names_one_command() {
    let _machine = crate::harness::beside().await;
    let (_dir, url) = sqlite();
    let server = Server::start(&url, &[]);
    let c = client();
    let (id, token) = game_with_bots(&c, &server, "base", 3, 4).await;
    let (_, moves, _) = send(
        c.get(server.url(&format!("/games/{id}/legal-moves")))
            .bearer_auth(&token),
    )
    .await
    .unwrap();
    let list = moves["commands"].as_array().unwrap();
    assert!(list.len() >= 2);
    let post = |command: &serde_json::Value| {
        c.post(server.url(&format!("/games/{id}/commands")))
            .bearer_auth(&token)
            .header("Idempotency-Key", "k1")
            .header("If-Match", "*")
            .json(command)
    };
    let (st, first, _) = send(post(&list[0])).await.unwrap();
    assert_eq!(
        st,
        StatusCode::OK,
        "If-Match: * matches the current game: {first}"
    );
    let (st, again, _) = send(post(&list[0])).await.unwrap();
    assert_eq!(st, StatusCode::OK);
    assert_eq!(again["events"][0], first["events"][0]);
    let (st, p, _) = send(post(&list[1])).await.unwrap();
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{p}");
    assert_eq!(p["code"], "idempotency_key_reused");
}

#[tokio::test]
async fn wrong_methods_and_unknown_paths_are_problems() {
    let _machine = crate::harness::beside().await;
    let (_dir, url) = sqlite();
    let server = Server::start(&url, &[]);
    let c = client();
    let id = "00000000-0000-4000-8000-000000000000";
    for (method, path, allow) in [
        (
            reqwest::Method::DELETE,
            "/games".to_string(),
            "GET, HEAD, POST",
        ),
        (
            reqwest::Method::PUT,
            format!("/games/{id}/state"),
            "GET, HEAD",
        ),
        (
            reqwest::Method::GET,
            format!("/games/{id}/commands"),
            "POST",
        ),
        (
            reqwest::Method::POST,
            "/openapi.json".to_string(),
            "GET, HEAD",
        ),
    ] {
        let r = c
            .request(method.clone(), server.url(&path))
            .send()
            .await
            .unwrap();
        assert_eq!(
            r.status(),
            StatusCode::METHOD_NOT_ALLOWED,
            "{method} {path}"
        );
        assert_eq!(r.headers()["allow"], allow, "{method} {path}");
        assert_eq!(r.headers()["content-type"], "application/problem+json");
    }
    for path in ["/docs/nothing-here.js", "/nothing", "/games/x/y/z"] {
        let r = c.get(server.url(path)).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::NOT_FOUND, "{path}");
        assert_eq!(
            r.headers()["content-type"],
            "application/problem+json",
            "{path}"
        );
        let p: serde_json::Value = r.json().await.unwrap();
        assert_eq!(p["code"], "not_found");
    }
}

/// What a raw `request` sent on a fresh connection to `server` gets back until the connection
/// closes (or 10 s pass).
async fn raw(server: &Server, request: Vec<u8>) -> String {
    let addr = server.base.trim_start_matches("http://").to_string();
    tokio::task::spawn_blocking(move || {
        let mut socket = std::net::TcpStream::connect(addr).unwrap();
        socket.write_all(&request).unwrap();
        socket
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let mut reply = Vec::new();
        let _ = socket.read_to_end(&mut reply);
        String::from_utf8_lossy(&reply).to_string()
    })
    .await
    .unwrap()
}

/// A request whose head is not HTTP the server can read (a header holding a control character)
/// or too large to read is answered by the HTTP layer (actix-http) before the server sees it:
/// its own 400 or 431, no body, the connection closed (docs/clients.md says so), and nothing is
/// done: the creation it carried is not made.
#[tokio::test]
async fn a_head_that_is_not_http_is_refused_before_anything_is_done() {
    let _machine = crate::harness::beside().await;
    let (_dir, url) = sqlite();
    let server = Server::start(&url, &[]);
    let body = br#"{"ruleset":"base","players":3}"#;
    let creation = |header: &[u8]| {
        let mut request =
            b"POST /games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n".to_vec();
        request.extend_from_slice(header);
        request.extend_from_slice(format!("\r\nContent-Length: {}\r\n\r\n", body.len()).as_bytes());
        request.extend_from_slice(body);
        request
    };
    // The same request with a readable head is made: the test's request is one the server takes.
    let made = raw(&server, creation(b"Idempotency-Key: a")).await;
    assert!(made.starts_with("HTTP/1.1 201"), "{made}");
    for (header, status) in [
        (b"Idempotency-Key: a\x01b".to_vec(), "400 Bad Request"),
        (b"X-Name: a\x00b".to_vec(), "400 Bad Request"),
        (
            [b"X-Padding: ".as_slice(), &[b'a'; 200_000]].concat(),
            "431 Request Header Fields Too Large",
        ),
    ] {
        let reply = raw(&server, creation(&header)).await;
        let (head, rest) = reply.split_once("\r\n\r\n").expect("a whole reply");
        assert!(head.starts_with(&format!("HTTP/1.1 {status}")), "{head}");
        assert!(head.contains("content-length: 0"), "{head}");
        assert!(head.contains("connection: close"), "{head}");
        assert_eq!(rest, "", "no body");
    }
    let (st, listed, _) = send(client().get(server.url("/games"))).await.unwrap();
    assert_eq!(st, StatusCode::OK, "{listed}");
    assert_eq!(
        listed["games"].as_array().map(Vec::len),
        Some(1),
        "only the readable request made a game: {listed}"
    );
}
