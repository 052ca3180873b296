//! PostgreSQL stopped under load and started again: 503s with `Retry-After` while it is down,
//! no request over about 2 s, and afterwards live updates resume, no game is stuck, nothing
//! acknowledged is lost. The outage lasts `SABOTEUR_OUTAGE_SECONDS` (default 15).

use std::time::{Duration, Instant};

use reqwest::StatusCode;

use crate::harness::{Follower, Server, client, mixed_games, one_move, play_to_end, send, version};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_outage_answers_503_then_recovers() {
    let _machine = crate::harness::beside().await;
    let outage = Duration::from_secs(
        std::env::var("SABOTEUR_OUTAGE_SECONDS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(15),
    );
    let mut cluster = saboteur_storage::testing::OwnCluster::start();
    let db = cluster.fresh_database().await;
    let server = Server::start(&db, &[]);
    let c = client();
    let games = mixed_games(&c, &server, 4, 300).await;
    let (watched, _) = games[0].clone();
    let follower = Follower::open(&c, &server, &watched, None).await;

    // Load until the outage is over: every answer is a success, a refused move (someone
    // else's turn, a stale version), or a 503 with Retry-After, and none takes over ~2 s.
    let stop_at = Instant::now() + outage + Duration::from_secs(3);
    let mut load = Vec::new();
    for (id, token) in games.clone() {
        let c = c.clone();
        let s = server.remote();
        load.push(tokio::spawn(async move {
            let mut acked = Vec::new();
            let mut unavailable = 0;
            let mut n = 0;
            while Instant::now() < stop_at {
                let started = Instant::now();
                let moved = one_move(&c, &s, &id, &token, n).await;
                let took = started.elapsed();
                // Two requests (legal moves, then the command): each bounded.
                assert!(took < Duration::from_millis(5000), "{took:?}");
                match moved {
                    Some((command, key, StatusCode::OK, body)) => acked.push((
                        id.clone(),
                        token.clone(),
                        key,
                        command,
                        body["events"][0]["seq"].clone(),
                    )),
                    Some((_, _, StatusCode::SERVICE_UNAVAILABLE, p)) => {
                        assert_eq!(p["code"], "unavailable", "{p}");
                        unavailable += 1;
                    }
                    _ => {}
                }
                n += 1;
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            (acked, unavailable)
        }));
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    cluster.stop();
    let down_until = Instant::now() + outage;
    let mut probes = 0;
    while Instant::now() < down_until {
        for path in [
            "/healthz".to_string(),
            format!("/games/{watched}/legal-moves"),
        ] {
            let started = Instant::now();
            let (st, p, headers) = send(c.get(server.url(&path)).bearer_auth(&games[0].1))
                .await
                .expect("the server answers while its database is down");
            let took = started.elapsed();
            assert!(took < Duration::from_millis(2500), "{path} took {took:?}");
            if st == StatusCode::SERVICE_UNAVAILABLE {
                assert!(headers.contains_key("retry-after"), "{path}");
                assert_eq!(headers["content-type"], "application/problem+json");
                if path == "/healthz" {
                    assert!(p["detail"].as_str().unwrap().contains("unreachable"), "{p}");
                    probes += 1;
                }
            } else {
                // A table checked within the last second may still answer a read.
                assert_eq!(st, StatusCode::OK, "{path}: {p}");
                assert_ne!(path, "/healthz", "healthy while the database is down");
            }
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    assert!(probes > 0);
    cluster.restart();

    // Health comes back without a restart of the server.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (st, _, _) = send(c.get(server.url("/healthz"))).await.unwrap();
        if st == StatusCode::OK {
            break;
        }
        assert!(Instant::now() < deadline, "the server did not recover");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let mut acked = Vec::new();
    let mut unavailable = 0;
    for task in load {
        let (a, u) = task.await.unwrap();
        acked.extend(a);
        unavailable += u;
    }
    assert!(unavailable > 0, "the load never met the outage");
    // Nothing acknowledged was lost: each command's stored outcome is where it was.
    for (id, token, key, command, seq) in &acked {
        let (st, body, _) = send(
            c.post(server.url(&format!("/games/{id}/commands")))
                .bearer_auth(token)
                .header("Idempotency-Key", key)
                .json(command),
        )
        .await
        .unwrap();
        assert_eq!(st, StatusCode::OK, "{body}");
        assert_eq!(&body["events"][0]["seq"], seq);
    }
    // No game is stuck; the stream opened before the outage has every event.
    for (id, token) in &games {
        play_to_end(&c, &server, id, token, Duration::from_secs(120)).await;
    }
    let last = version(&c, &server, &watched).await;
    follower.expect_all(last, Duration::from_secs(10)).await;
    // A stream opened after the outage works too.
    let late = Follower::open(&c, &server, &games[1].0, None).await;
    late.expect_all(
        version(&c, &server, &games[1].0).await,
        Duration::from_secs(10),
    )
    .await;
}
