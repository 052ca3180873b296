//! A player's stream (`GET /players/{key}/stream`): one connection, opened with a signed
//! challenge, on which a bot learns of every game its key holds a seat in and plays twenty of
//! them to their ends; refused without the challenge, with another key's or a forged one.

use std::collections::{BTreeMap, BTreeSet};

use ed25519_dalek::{Signer as _, SigningKey};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{TestApp, postgres_url, seed_hex, sqlite_url};
use crate::mixed::game::join_keyed;

const GAMES: usize = 20;

/// A game of three seats: the key's player at seat 0, two random bots; not started.
async fn seated(app: &TestApp, key: &SigningKey, n: u64) -> (String, String, String) {
    let settings = json!({ "ruleset": "base", "players": 3, "seed": seed_hex(n) });
    let (st, g) = app.create_game(&settings).await;
    assert_eq!(st, StatusCode::CREATED, "{g}");
    let id = g["game_id"].as_str().unwrap().to_string();
    let host = g["host_token"].as_str().unwrap().to_string();
    let ex = join_keyed(app, &id, "many", key).await;
    assert_eq!(ex.status, StatusCode::CREATED, "{:?}", ex.body);
    let token = ex.body["player_token"].as_str().unwrap().to_string();
    for _ in 0..2 {
        let (st, b) = app
            .add_bot(&id, Some(&host), &json!({ "level": "random" }))
            .await;
        assert_eq!(st, StatusCode::CREATED, "{b}");
    }
    (id, host, token)
}

/// Opens the key's stream with `headers` (a challenge and its signature, or not).
async fn open(app: &TestApp, public: &str, headers: &[(&str, String)]) -> reqwest::Response {
    let mut rb = reqwest::Client::new().get(format!("{}/players/{public}/stream", app.base));
    for (name, value) in headers {
        rb = rb.header(*name, value);
    }
    rb.send().await.unwrap()
}

/// A challenge for `public` answered by `key`.
async fn answered(app: &TestApp, public: &str, key: &SigningKey) -> Vec<(&'static str, String)> {
    let (st, c) = app
        .post_json(
            "/players/challenge",
            None,
            Some(&json!({ "public_key": public })),
        )
        .await;
    assert_eq!(st, StatusCode::OK, "{c}");
    let statement = c["statement"].as_str().unwrap();
    assert_eq!(
        statement,
        format!(
            "saboteur-player-stream\n{public}\n{}",
            c["challenge"].as_str().unwrap()
        )
    );
    vec![
        (
            "Player-Challenge",
            c["challenge"].as_str().unwrap().to_string(),
        ),
        (
            "Player-Signature",
            hex::encode(key.sign(statement.as_bytes()).to_bytes()),
        ),
    ]
}

/// Sends the seat's first legal command at `version`, signed.
async fn play(app: &TestApp, key: &SigningKey, id: &str, token: &str) -> StatusCode {
    let (st, legal) = app.legal_moves(id, token).await;
    assert_eq!(st, StatusCode::OK, "{legal}");
    let Some(command) = legal["commands"]
        .as_array()
        .and_then(|c| c.first())
        .cloned()
    else {
        return StatusCode::CONFLICT;
    };
    let version = legal["version"].as_i64().unwrap();
    let statement = serde_json_canonicalizer::to_vec(&json!({
        "scheme": "saboteur-act-v3",
        "act": "command",
        "game": id,
        "seat": 0,
        "version": version,
        "body": command,
        "about": null,
    }))
    .unwrap();
    let headers = [
        ("If-Match", format!("\"{version}\"")),
        (
            "Seat-Signature",
            hex::encode(key.sign(&statement).to_bytes()),
        ),
        ("Seat-Signature-Version", version.to_string()),
    ];
    let path = format!("/games/{id}/commands");
    app.exchange(Method::POST, &path, Some(token), Some(&command), &headers)
        .await
        .status
}

async fn twenty_games(a: &TestApp, b: &TestApp) {
    let key = SigningKey::from_bytes(&[7; 32]);
    let public = hex::encode(key.verifying_key().to_bytes());
    let mut games = BTreeMap::new();
    for n in 0..GAMES {
        let (id, host, token) = seated(a, &key, 100 + n as u64).await;
        games.insert(id, (host, token));
    }
    // Refused: no challenge; another key's answer; a forged challenge.
    let none = open(b, &public, &[]).await;
    assert_eq!(none.status(), StatusCode::UNAUTHORIZED);
    let stranger = SigningKey::from_bytes(&[9; 32]);
    let theirs = answered(a, &public, &stranger).await;
    let refused = open(b, &public, &theirs).await;
    assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
    let problem: Value = refused.json().await.unwrap();
    assert_eq!(problem["code"], "bad_signature", "{problem}");
    let mut forged = answered(a, &public, &key).await;
    forged[0].1 = forged[0].1.replacen('.', "0.", 1);
    assert_eq!(
        open(b, &public, &forged).await.status(),
        StatusCode::UNAUTHORIZED
    );
    // One connection, through the other process, for all twenty games.
    let stream = open(b, &public, &answered(a, &public, &key).await).await;
    assert_eq!(stream.status(), StatusCode::OK);
    for (id, (host, _)) in &games {
        assert_eq!(a.start(id, Some(host)).await.0, StatusCode::OK);
    }
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(240);
    let mut reader = Notices::new(stream);
    let turns = play_to_the_end(a, &key, &games, &mut reader, deadline).await;
    assert!(turns >= GAMES, "{turns} turns");
}

/// A player's stream read message by message.
struct Notices {
    stream: reqwest::Response,
    text: String,
}

impl Notices {
    fn new(stream: reqwest::Response) -> Notices {
        Notices {
            stream,
            text: String::new(),
        }
    }

    /// The next notice, before `deadline`.
    async fn next(&mut self, deadline: tokio::time::Instant) -> Value {
        loop {
            while let Some(end) = self.text.find("\n\n") {
                let message: String = self.text.drain(..end + 2).collect();
                if let Some(data) = message.lines().find_map(|l| l.strip_prefix("data: ")) {
                    return serde_json::from_str(data).unwrap();
                }
            }
            let chunk = tokio::time::timeout_at(deadline, self.stream.chunk())
                .await
                .expect("a notice in time")
                .unwrap()
                .expect("the stream stays open");
            self.text.push_str(&String::from_utf8_lossy(&chunk));
        }
    }
}

/// Plays every turn `notices` announces in `games` (each started once, none after its end)
/// until every game has ended and is finished; the turns played.
async fn play_to_the_end(
    a: &TestApp,
    key: &SigningKey,
    games: &BTreeMap<String, (String, String)>,
    notices: &mut Notices,
    deadline: tokio::time::Instant,
) -> usize {
    let (mut started, mut ended) = (BTreeSet::new(), BTreeSet::new());
    let mut turns = 0;
    while ended.len() < games.len() {
        let notice = notices.next(deadline).await;
        let id = notice["game_id"].as_str().unwrap().to_string();
        let (_, token) = games.get(&id).expect("one of the key's games");
        assert_eq!(notice["seat"], 0, "{notice}");
        match notice["kind"].as_str().unwrap() {
            "started" => assert!(started.insert(id), "started once"),
            "your_turn" => {
                assert!(!ended.contains(&id), "no turn after the end");
                turns += 1;
                let st = play(a, key, &id, token).await;
                assert!(
                    [StatusCode::OK, StatusCode::PRECONDITION_FAILED].contains(&st),
                    "{st}"
                );
            }
            "ended" => assert!(ended.insert(id), "ended once"),
            other => panic!("unexpected {other}: {notice}"),
        }
    }
    assert_eq!(started.len(), games.len());
    for id in games.keys() {
        let (_, g) = a.get_json(&format!("/games/{id}"), None).await;
        assert_eq!(g["status"], "finished", "{g}");
    }
    turns
}

/// The next notice's kind and game, before `deadline`.
async fn next_about(notices: &mut Notices, deadline: tokio::time::Instant) -> (String, String) {
    let n = notices.next(deadline).await;
    (
        n["kind"].as_str().unwrap().to_string(),
        n["game_id"].as_str().unwrap().to_string(),
    )
}

/// A lobby cancelled before the stream found it is announced; a seat whose key the host's new
/// token dropped is announced no more (the spec promises notices only where the key holds a
/// seat), while the key's other games go on being announced.
async fn cancelled_and_dropped(a: &TestApp, b: &TestApp) {
    let key = SigningKey::from_bytes(&[13; 32]);
    let public = hex::encode(key.verifying_key().to_bytes());
    let stream = open(b, &public, &answered(a, &public, &key).await).await;
    assert_eq!(stream.status(), StatusCode::OK);
    let mut notices = Notices::new(stream);
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(60);
    // (News of a game it does not follow makes the stream look for new games at most once a
    // second: each step below waits that long first.)
    let pause = || tokio::time::sleep(std::time::Duration::from_millis(1100));
    let (lobby, host, _) = seated(a, &key, 401).await;
    pause().await;
    assert_eq!(a.cancel(&lobby, Some(&host)).await.0, StatusCode::OK);
    assert_eq!(
        next_about(&mut notices, deadline).await,
        ("cancelled".into(), lobby)
    );
    let (id, host, _) = seated(a, &key, 402).await;
    pause().await;
    assert_eq!(a.start(&id, Some(&host)).await.0, StatusCode::OK);
    assert_eq!(
        next_about(&mut notices, deadline).await,
        ("started".into(), id.clone())
    );
    assert_eq!(
        next_about(&mut notices, deadline).await,
        ("your_turn".into(), id.clone())
    );
    // A new token for the seat: the key is dropped. Its holder plays (no key: unsigned), the
    // bots answer, and the seat is awaited again.
    let (st, fresh) = a.reissue_token(&id, Some(&host), 0).await;
    assert_eq!(st, StatusCode::OK, "{fresh}");
    let token = fresh["player_token"].as_str().unwrap();
    let (_, legal) = a.legal_moves(&id, token).await;
    let (st, out) = a.command(&id, token, &legal["commands"][0]).await;
    assert_eq!(st, StatusCode::OK, "{out}");
    assert_eq!(
        a.state(&id, Some(token)).await.1["view"]["phase"]["awaited"],
        0
    );
    // Another game of the key's, started after: its notices come, none about the seat lost.
    let (other, host, _) = seated(a, &key, 403).await;
    pause().await;
    assert_eq!(a.start(&other, Some(&host)).await.0, StatusCode::OK);
    loop {
        let (kind, game) = next_about(&mut notices, deadline).await;
        assert_ne!(game, id, "{kind} for a seat whose key was dropped");
        if kind == "your_turn" {
            break;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_a_cancelled_lobby_and_a_dropped_key() {
    let dir = tempfile::tempdir().unwrap();
    let a = TestApp::spawn(sqlite_url(&dir, "dropped.db"), Some(dir)).await;
    cancelled_and_dropped(&a, &a).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_a_cancelled_lobby_and_a_dropped_key_across_processes() {
    let url = postgres_url().await;
    let a = TestApp::spawn(url.clone(), None).await;
    let b = TestApp::spawn(url, None).await;
    cancelled_and_dropped(&a, &b).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_one_stream_plays_twenty_games() {
    let dir = tempfile::tempdir().unwrap();
    let a = TestApp::spawn(sqlite_url(&dir, "players.db"), None).await;
    twenty_games(&a, &a).await;
    drop(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_one_stream_plays_twenty_games_across_processes() {
    let url = postgres_url().await;
    let a = TestApp::spawn(url.clone(), None).await;
    let b = TestApp::spawn(url, None).await;
    twenty_games(&a, &b).await;
}

/// PostgreSQL stopped and started again while a player's stream is open on one process and the
/// key's games are played through another: the stream stays open through the outage, and once
/// the database is back it announces every turn again (the process listens for the other's
/// news again), to each game's end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_a_players_stream_outlives_a_database_outage() {
    let mut cluster = saboteur_storage::testing::OwnCluster::start();
    let url = cluster.fresh_database().await;
    let a = TestApp::spawn(url.clone(), None).await;
    let b = TestApp::spawn(url, None).await;
    let key = SigningKey::from_bytes(&[11; 32]);
    let public = hex::encode(key.verifying_key().to_bytes());
    let mut games = BTreeMap::new();
    for n in 0..2 {
        let (id, host, token) = seated(&a, &key, 300 + n).await;
        games.insert(id, (host, token));
    }
    let stream = open(&b, &public, &answered(&a, &public, &key).await).await;
    assert_eq!(stream.status(), StatusCode::OK);
    let mut notices = Notices::new(stream);
    for (id, (host, _)) in &games {
        assert_eq!(a.start(id, Some(host)).await.0, StatusCode::OK);
    }
    let soon = || tokio::time::Instant::now() + std::time::Duration::from_secs(30);
    // Both games started and await the key's seat (or are over already, bots being quick).
    let mut waiting = BTreeSet::new();
    let mut early = Vec::new();
    while waiting.len() < games.len() {
        let notice = notices.next(soon()).await;
        if matches!(notice["kind"].as_str(), Some("your_turn" | "ended")) {
            waiting.insert(notice["game_id"].as_str().unwrap().to_string());
        }
        early.push(notice);
    }
    cluster.stop();
    // The stream stays open while the database is away: keep-alives, no end.
    let outage = tokio::time::Instant::now() + std::time::Duration::from_secs(6);
    while tokio::time::Instant::now() < outage {
        match tokio::time::timeout_at(outage, notices.stream.chunk()).await {
            Ok(chunk) => assert!(chunk.unwrap().is_some(), "the stream ended in the outage"),
            Err(_) => break,
        }
    }
    cluster.restart();
    let back = soon();
    while a.health().await.0 != StatusCode::OK || b.health().await.0 != StatusCode::OK {
        assert!(
            tokio::time::Instant::now() < back,
            "the database did not come back"
        );
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    // The notices read before the outage, then the stream's, played to the end.
    let mut replayed = early
        .iter()
        .map(|n| format!("data: {n}\n\n"))
        .collect::<String>();
    replayed.push_str(&notices.text);
    notices.text = replayed;
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(120);
    let turns = play_to_the_end(&a, &key, &games, &mut notices, deadline).await;
    assert!(turns >= games.len(), "{turns} turns");
}
