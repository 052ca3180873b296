//! SIGKILL under load and during creation: nothing acknowledged is lost or recorded twice,
//! every game verifies and plays on to its end, the listing stays whole.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::harness::{Server, client, mixed_games, one_move, play_to_end, send, verify};

/// A command acknowledged by the server before it was killed.
struct Acked {
    game: String,
    token: String,
    key: String,
    command: Value,
    first_seq: i64,
}

async fn kill_under_load(database_url: String) {
    let c = client();
    let server = Server::start(&database_url, &[]);
    let games = mixed_games(&c, &server, 6, 100).await;
    // Every person plays as fast as the server answers, until the server dies.
    let deadline = Instant::now() + Duration::from_millis(1500);
    let mut load = Vec::new();
    for (id, token) in games.clone() {
        let c = c.clone();
        let s = server.remote();
        load.push(tokio::spawn(async move {
            let mut acked = Vec::new();
            let mut n = 0;
            // Until a little after the kill: a refused connection or someone else's turn
            // is waited out.
            while Instant::now() < deadline + Duration::from_secs(2) {
                match one_move(&c, &s, &id, &token, n).await {
                    Some((command, key, StatusCode::OK, body)) => acked.push(Acked {
                        game: id.clone(),
                        token: token.clone(),
                        key,
                        command,
                        first_seq: body["events"][0]["seq"].as_i64().unwrap(),
                    }),
                    Some(_) => {}
                    None => tokio::time::sleep(Duration::from_millis(20)).await,
                }
                n += 1;
            }
            acked
        }));
    }
    tokio::time::sleep_until(deadline.into()).await;
    server.kill();
    let mut acked = Vec::new();
    for task in load {
        acked.extend(task.await.unwrap());
    }
    assert!(
        acked.len() >= 6,
        "the load made too few moves: {}",
        acked.len()
    );

    let server = Server::start(&database_url, &[]);
    // Every acknowledged command is in the log once: sent again with its key, the stored
    // outcome comes back, at the same place in the log.
    for a in &acked {
        let (st, body) =
            crate::harness::send_again(&c, &server.remote(), &a.game, &a.token, &a.key, &a.command)
                .await;
        assert_eq!(st, StatusCode::OK, "{body}");
        assert_eq!(body["events"][0]["seq"], a.first_seq, "{body}");
    }
    // Every game plays on to its end (bots included), and its record verifies.
    for (id, token) in &games {
        play_to_end(&c, &server, id, token, Duration::from_secs(120)).await;
        let (ok, said) = verify(&database_url, id);
        assert!(ok, "game {id} does not verify: {said}");
    }
    // And no command was recorded twice.
    for (id, _) in &games {
        let (st, page, _) = send(c.get(server.url(&format!("/games/{id}/events?limit=1000"))))
            .await
            .unwrap();
        assert_eq!(st, StatusCode::OK);
        let seqs: Vec<i64> = page["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["seq"].as_i64().unwrap())
            .collect();
        let unique: BTreeSet<i64> = seqs.iter().copied().collect();
        assert_eq!(unique.len(), seqs.len());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_under_load_loses_nothing_on_sqlite() {
    let _machine = crate::harness::beside().await;
    let dir = tempfile::tempdir().unwrap();
    kill_under_load(format!("sqlite://{}", dir.path().join("kill.db").display())).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_under_load_loses_nothing_on_postgres() {
    let _machine = crate::harness::beside().await;
    kill_under_load(saboteur_storage::testing::fresh_database().await).await;
}

async fn kill_while_creating(database_url: String) {
    let c = client();
    let server = Server::start(&database_url, &[]);
    let base = server.base.clone();
    let mut makers = Vec::new();
    // Acknowledged creations so far: the kill comes once the server is creating, however
    // slowly this machine starts it.
    let acked = std::sync::Arc::new(tokio::sync::Semaphore::new(0));
    for _ in 0..8 {
        let c = c.clone();
        let base = base.clone();
        let acked = acked.clone();
        makers.push(tokio::spawn(async move {
            let mut made = Vec::new();
            for _ in 0..500 {
                match send(
                    c.post(format!("{base}/games"))
                        .json(&json!({"ruleset": "base", "players": 3})),
                )
                .await
                {
                    Some((StatusCode::CREATED, g, _)) => {
                        made.push(g["game_id"].as_str().unwrap().to_string());
                        acked.add_permits(1);
                    }
                    _ => break,
                }
            }
            made
        }));
    }
    // Mid-stream: after the first twenty creations were acknowledged.
    let creating = tokio::time::timeout(Duration::from_secs(120), acked.acquire_many(20)).await;
    assert!(
        creating.is_ok(),
        "the server acknowledged no twenty creations"
    );
    server.kill();
    let mut made = BTreeSet::new();
    for m in makers {
        made.extend(m.await.unwrap());
    }
    assert!(!made.is_empty());

    let server = Server::start(&database_url, &[]);
    let mut listed = BTreeSet::new();
    let mut cursor: Option<String> = None;
    loop {
        let url = match &cursor {
            Some(cur) => server.url(&format!("/games?limit=7&cursor={cur}")),
            None => server.url("/games?limit=7"),
        };
        let (st, page, _) = send(c.get(url)).await.unwrap();
        assert_eq!(st, StatusCode::OK, "{page}");
        for g in page["games"].as_array().unwrap() {
            listed.insert(g["id"].as_str().unwrap().to_string());
        }
        match page["next_cursor"].as_str() {
            Some(next) => cursor = Some(next.to_string()),
            None => break,
        }
    }
    // Every acknowledged game is listed and readable; none listed is half-made.
    assert!(
        made.is_subset(&listed),
        "acknowledged games missing from the listing"
    );
    for id in &listed {
        let (st, g, _) = send(c.get(server.url(&format!("/games/{id}"))))
            .await
            .unwrap();
        assert_eq!(st, StatusCode::OK, "{g}");
        assert_eq!(g["version"], 1, "{g}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_while_creating_keeps_the_listing_whole_on_sqlite() {
    let _machine = crate::harness::beside().await;
    let dir = tempfile::tempdir().unwrap();
    kill_while_creating(format!(
        "sqlite://{}",
        dir.path().join("create.db").display()
    ))
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_while_creating_keeps_the_listing_whole_on_postgres() {
    let _machine = crate::harness::beside().await;
    kill_while_creating(saboteur_storage::testing::fresh_database().await).await;
}
