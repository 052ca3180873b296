//! The steps of `every_kind_has_its_limit`: each kind of request reaches its bucket from one
//! address (`a`) while another (`b`) is served, against a server `s` with lowered limits.

use std::time::Duration;

use reqwest::{Client, StatusCode};
use serde_json::json;

use super::replies::{allowance, limited, lobbies};
use crate::harness::{Remote, send, version};

/// Creating: three games in an hour, the fourth refused with nothing made; `b` still creates.
/// The games made, each with its host's token.
pub(super) async fn creates(a: &Client, b: &Client, s: &Remote) -> Vec<(String, String)> {
    // Creating: three, then refused; another address creates.
    let mut made = Vec::new();
    for left in [2, 1, 0] {
        let (st, g, headers) = send(
            a.post(s.url("/games"))
                .json(&json!({"ruleset": "base", "players": 5})),
        )
        .await
        .unwrap();
        assert_eq!(st, StatusCode::CREATED, "{g}");
        // Each reply says what is left of the documented limit.
        assert_eq!(allowance(&headers, "create", 3, 3600), left);
        made.push((
            g["game_id"].as_str().unwrap().to_string(),
            g["host_token"].as_str().unwrap().to_string(),
        ));
    }
    let before = lobbies(b, s).await.len();
    let reply = send(
        a.post(s.url("/games"))
            .json(&json!({"ruleset": "base", "players": 10})),
    )
    .await
    .unwrap();
    limited("a fourth game in an hour", &reply);
    assert_eq!(allowance(&reply.2, "create", 3, 3600), 0);
    assert_eq!(lobbies(b, s).await.len(), before, "nothing made");
    let (st, _, _) = send(
        b.post(s.url("/games"))
            .json(&json!({"ruleset": "base", "players": 3})),
    )
    .await
    .unwrap();
    assert_eq!(st, StatusCode::CREATED, "another address creates");
    made
}

/// Joining game `id`: four seats in a minute, the fifth refused with the game unchanged. The
/// seats' tokens.
pub(super) async fn joins(a: &Client, b: &Client, s: &Remote, id: &str) -> Vec<String> {
    // Joining: four seats, then refused with the game unchanged.
    let mut tokens = Vec::new();
    for n in 0..4 {
        let (st, j, headers) = send(
            a.post(s.url(&format!("/games/{id}/seats")))
                .json(&json!({"name": format!("p{n}")})),
        )
        .await
        .unwrap();
        assert_eq!(st, StatusCode::CREATED, "{j}");
        assert_eq!(allowance(&headers, "join", 4, 60), 3 - n);
        tokens.push(j["player_token"].as_str().unwrap().to_string());
    }
    let v = version(b, s, id).await;
    let reply = send(
        a.post(s.url(&format!("/games/{id}/seats")))
            .json(&json!({"name": "p5"})),
    )
    .await
    .unwrap();
    limited("a fifth seat in a minute", &reply);
    assert_eq!(allowance(&reply.2, "join", 4, 60), 0);
    assert_eq!(version(b, s, id).await, v, "no seat taken");
    let (_, g, _) = send(b.get(s.url(&format!("/games/{id}")))).await.unwrap();
    assert_eq!(g["seats"].as_array().unwrap().len(), 4);
    tokens
}

/// The host of game `id` (holding `host`), from `b`, seats a bot and starts.
pub(super) async fn the_host_starts(b: &Client, s: &Remote, id: &str, host: &str) {
    // The host, from another address, seats a bot and starts.
    let (st, body, _) = send(
        b.post(s.url(&format!("/games/{id}/bots")))
            .bearer_auth(host)
            .json(&json!({"level": "random"})),
    )
    .await
    .unwrap();
    assert_eq!(st, StatusCode::CREATED, "{body}");
    let (st, body, _) = send(
        b.post(s.url(&format!("/games/{id}/start")))
            .bearer_auth(host),
    )
    .await
    .unwrap();
    assert_eq!(st, StatusCode::OK, "{body}");
}

/// Other writes to game `id` from its players (holding `tokens`): five, then only 429s, the
/// game unchanged by them.
pub(super) async fn writes(a: &Client, b: &Client, s: &Remote, id: &str, tokens: &[String]) {
    // Other writes: five commands (refused by the rules or not), then only 429s, and the game
    // unchanged by them.
    let command = |n: usize| {
        a.post(s.url(&format!("/games/{id}/commands")))
            .bearer_auth(&tokens[n % 4])
            .json(&json!({"type": "pass", "discard": []}))
    };
    for n in 0..5 {
        let (st, body, headers) = send(command(n)).await.unwrap();
        assert_ne!(st, StatusCode::TOO_MANY_REQUESTS, "command {n}: {body}");
        assert_eq!(allowance(&headers, "write", 5, 60), 4 - n as u64);
    }
    let v = version(b, s, id).await;
    for n in 5..8 {
        let reply = send(command(n)).await.unwrap();
        limited("a command past the writes", &reply);
        assert_eq!(allowance(&reply.2, "write", 5, 60), 0);
    }
    assert_eq!(version(b, s, id).await, v, "nothing played");
}

/// Streams of game `id`: two at once per address, and one closed gives its place back.
pub(super) async fn streams(a: &Client, b: &Client, s: &Remote, id: &str) {
    // Streams: two at once, the third refused; another address opens its own; one closed
    // gives its place back.
    let open = |c: Client| {
        let url = s.url(&format!("/games/{id}/events/stream"));
        async move { c.get(url).send().await.unwrap() }
    };
    let one = open(a.clone()).await;
    let two = open(a.clone()).await;
    assert_eq!(
        (one.status(), two.status()),
        (StatusCode::OK, StatusCode::OK)
    );
    let third = open(a.clone()).await;
    assert_eq!(third.status(), StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(open(b.clone()).await.status(), StatusCode::OK);
    drop(one);
    // A client that left is noticed when a write to it fails: within about twice the stream's
    // keep-alive of 5 s, as for the process's cap.
    let mut reopened = false;
    for _ in 0..100 {
        let r = open(a.clone()).await;
        if r.status() == StatusCode::OK {
            reopened = true;
            break;
        }
        drop(r);
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(reopened, "a closed stream gives its place back");
}

/// Reads of game `id`: 300 a minute, then refused; `b` still reads.
pub(super) async fn reads(a: &Client, b: &Client, s: &Remote, id: &str) {
    // Reads: 300 a minute (the streams opened among them), then refused; another address
    // reads.
    let mut read_refused = false;
    for _ in 0..400 {
        let reply = send(a.get(s.url(&format!("/games/{id}")))).await.unwrap();
        if reply.0 == StatusCode::TOO_MANY_REQUESTS {
            limited("reads", &reply);
            assert_eq!(allowance(&reply.2, "read", 300, 60), 0);
            read_refused = true;
            break;
        }
        allowance(&reply.2, "read", 300, 60);
    }
    assert!(read_refused, "the reads' bucket holds 300");
    let (st, _, _) = send(b.get(s.url(&format!("/games/{id}")))).await.unwrap();
    assert_eq!(st, StatusCode::OK);
}
