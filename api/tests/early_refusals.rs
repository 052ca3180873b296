//! Refusals decided before the seam carry a receipt too (door 6 of docs/threat-model.md): a
//! seat's request refused by its per-client limit (429), for a body over the limit (413) or
//! not JSON (400) is answered with the server's signed receipt of kind `refusal` at the game's
//! version, with the hash of the body when it was read whole; an anonymous one, or one for a
//! game nobody asked for, gets the refusal unsigned. On SQLite and PostgreSQL.

#[macro_use]
mod operator;

use operator::*;
use serde_json::{Value, json};

/// A server whose per-client write limit is four requests a minute.
async fn strict(url: &str) -> String {
    let config = saboteur_api::Config {
        allow_fixed_seed: true,
        limits: saboteur_api::Limits {
            writes: saboteur_api::Rate {
                count: 4,
                per: std::time::Duration::from_secs(60),
            },
            ..saboteur_api::Limits::default()
        },
        ..saboteur_api::Config::new("127.0.0.1:0", url)
    };
    let (server, addr) = saboteur_api::start(config).await.unwrap();
    tokio::spawn(server);
    format!("http://{addr}")
}

/// Sends `body` as `POST {path}` with `token`: the status and the problem.
async fn send(base: &str, path: &str, token: Option<&str>, body: Vec<u8>) -> (u16, Value) {
    let mut rb = reqwest::Client::new()
        .post(format!("{base}{path}"))
        .header("Content-Type", "application/json")
        .body(body);
    if let Some(t) = token {
        rb = rb.bearer_auth(t);
    }
    let res = rb.send().await.unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    hex::encode(sha2::Sha256::digest(bytes))
}

async fn refusals_before_the_seam_are_signed(url: &str, _dir: &std::path::Path) {
    let base = strict(url).await;
    let server = Server {
        base: base.clone(),
        client: reqwest::Client::new(),
    };
    let (id, _, me) = server.started_with_bots(json!({"name": "Ada"})).await;
    let talk = format!("/games/{id}/talk");
    let version = server
        .call("GET", &format!("/games/{id}"), None, None)
        .await["version"]
        .clone();

    // 400: a body that is not JSON, hashed as sent.
    let garbled = b"{\"text\": \"hello".to_vec();
    let (status, problem) = send(&base, &talk, Some(&me), garbled.clone()).await;
    assert_eq!(status, 400, "{problem}");
    let receipt = &problem["receipt"];
    assert_eq!(receipt["kind"], "refusal", "{problem}");
    assert_eq!(receipt["game_id"], json!(id));
    assert_eq!(receipt["version"], version);
    assert_eq!(receipt["request_hash"], json!(sha256(&garbled)));
    assert!(receipt["signature"].is_string(), "{problem}");

    // 413: a body over the limit, refused before it is read whole: signed, no hash.
    let huge = format!("{{\"text\": \"{}\"}}", "x".repeat(100_000)).into_bytes();
    let (status, problem) = send(&base, &talk, Some(&me), huge).await;
    assert_eq!(status, 413, "{problem}");
    assert_eq!(problem["receipt"]["kind"], "refusal", "{problem}");
    assert!(problem["receipt"]["signature"].is_string(), "{problem}");

    // 429: the write limit spent (the start and the requests above count), the next refused
    // with its receipt; the same without a token carries none.
    let said = serde_json::to_vec(&json!({"text": "hello"})).unwrap();
    let mut limited = None;
    for _ in 0..4 {
        let (status, problem) = send(&base, &talk, Some(&me), said.clone()).await;
        if status == 429 {
            limited = Some(problem);
            break;
        }
    }
    let problem = limited.expect("the write limit refuses");
    assert_eq!(problem["receipt"]["kind"], "refusal", "{problem}");
    assert_eq!(problem["code"], "too_many_requests", "{problem}");
    let (status, anonymous) = send(&base, &talk, None, said.clone()).await;
    assert_eq!(status, 429, "{anonymous}");
    assert!(anonymous.get("receipt").is_none(), "{anonymous}");
    // A token of no seat of that game: unsigned.
    let (status, stranger) = send(&base, &talk, Some("not-a-token"), said).await;
    assert_eq!(status, 429, "{stranger}");
    assert!(stranger.get("receipt").is_none(), "{stranger}");
}

on_both_stores!(
    refusals_before_the_seam_are_signed_on_sqlite,
    refusals_before_the_seam_are_signed_on_postgres,
    refusals_before_the_seam_are_signed
);
