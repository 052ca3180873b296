//! A process told to stop (SIGTERM, as a rolling restart or a service manager does): its event
//! streams end at once and cleanly, a game's and a player's alike, so that their clients
//! reconnect (a game's with `Last-Event-ID`) to a process that goes on and miss nothing,
//! instead of hearing nothing until the shutdown's grace (10 s) cuts them.

use std::time::{Duration, Instant};

use ed25519_dalek::{Signer as _, SigningKey};
use reqwest::StatusCode;
use serde_json::json;

use crate::harness::{Follower, Remote, Server, client, game_with_bots, one_move, send, settled};

/// Waits until `stream` has sent `from..=to`, each once and in order (at most 30 s).
async fn reaches(stream: &Follower, from: i64, to: i64) {
    let want: Vec<i64> = (from..=to).collect();
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        let now = stream.seen();
        if now.len() >= want.len() {
            assert_eq!(now, want, "every event once, in order");
            return;
        }
        assert!(
            Instant::now() < until,
            "the stream sent {now:?}, not {want:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Opens the game's stream on `s` after `after` (`Last-Event-ID`), with no overall timeout.
async fn game_stream(s: &Remote, id: &str, token: &str, after: Option<i64>) -> reqwest::Response {
    let mut rb = reqwest::Client::new()
        .get(s.url(&format!("/games/{id}/events/stream")))
        .bearer_auth(token);
    if let Some(seq) = after {
        rb = rb.header("Last-Event-ID", seq.to_string());
    }
    let r = rb.send().await.expect("the stream opens");
    assert_eq!(r.status(), StatusCode::OK);
    r
}

/// Opens the stream of a player's key on `s`, answering its challenge.
async fn player_stream(s: &Remote, key: &SigningKey) -> reqwest::Response {
    let public = hex::encode(key.verifying_key().to_bytes());
    let (st, c, _) = send(
        client()
            .post(s.url("/players/challenge"))
            .json(&json!({ "public_key": public })),
    )
    .await
    .expect("a challenge");
    assert_eq!(st, StatusCode::OK, "{c}");
    let signed = key.sign(c["statement"].as_str().expect("a statement").as_bytes());
    let r = reqwest::Client::new()
        .get(s.url(&format!("/players/{public}/stream")))
        .header(
            "Player-Challenge",
            c["challenge"].as_str().expect("a challenge"),
        )
        .header("Player-Signature", hex::encode(signed.to_bytes()))
        .send()
        .await
        .expect("the stream opens");
    assert_eq!(r.status(), StatusCode::OK);
    r
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streams_end_cleanly_when_the_server_is_told_to_stop() {
    let _machine = crate::harness::beside().await;
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite://{}", dir.path().join("stop.db").display());
    let mut a = Server::start(&db, &[]);
    let b = Server::start(&db, &[]);
    let c = client();
    let (id, token) = game_with_bots(&c, &a, "base", 4, 41).await;
    let moved = one_move(&c, &a, &id, &token, 0).await.expect("a move");
    assert_eq!(moved.2, StatusCode::OK, "{}", moved.3);
    let before = settled(&c, &a, &id, &token, Duration::from_secs(30)).await;
    let mut game = Follower::of(game_stream(&a, &id, &token, None).await);
    let mut player = Follower::of(player_stream(&a, &SigningKey::from_bytes(&[7; 32])).await);
    reaches(&game, 1, before).await;
    let told = Instant::now();
    a.terminate();
    assert!(game.ended().await, "the game's stream was cut, not ended");
    let game_ended = told.elapsed();
    assert!(
        player.ended().await,
        "the player's stream was cut, not ended"
    );
    // The process goes on to exit by itself, and well.
    let status = loop {
        if let Some(status) = a.exited() {
            break status;
        }
        assert!(told.elapsed() < Duration::from_secs(30), "no exit");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(status.success(), "{status}");
    eprintln!(
        "told to stop: the game's stream ended after {game_ended:?}, the process exited after {:?}",
        told.elapsed()
    );
    // The client reconnects to the process that goes on, after the last event it had, and
    // misses nothing of what is recorded next.
    let mut resumed = Follower::of(game_stream(&b, &id, &token, Some(before)).await);
    let moved = one_move(&c, &b, &id, &token, 1).await.expect("a move");
    assert_eq!(moved.2, StatusCode::OK, "{}", moved.3);
    let after = settled(&c, &b, &id, &token, Duration::from_secs(30)).await;
    assert!(after > before);
    reaches(&resumed, before + 1, after).await;
    // Told to stop too, it ends the resumed stream the same way.
    b.terminate();
    assert!(
        resumed.ended().await,
        "the resumed stream was cut, not ended"
    );
    assert_eq!(resumed.seen().len() as i64, after - before);
}
