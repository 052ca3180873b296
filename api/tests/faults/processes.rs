//! Two server processes on one PostgreSQL serving the same games: clients of both see every
//! event live, a retried command gives one outcome through either, and no read is staler than
//! the documented bound.

use std::time::{Duration, Instant};

use reqwest::StatusCode;

use crate::harness::{Follower, Server, client, game_with_bots, one_move, send, version};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_processes_serve_one_game() {
    let db = saboteur_storage::testing::fresh_database().await;
    let a = Server::start(&db, &[]);
    let b = Server::start(&db, &[]);
    let c = client();
    let (id, token) = game_with_bots(&c, &a, "base", 4, 21).await;
    // A person follows through B (whose tables have never seen this game or this token),
    // a spectator through A.
    let through_b = Follower::open(&c, &b, &id, Some(&token)).await;
    let through_a = Follower::open(&c, &a, &id, None).await;
    let bound = saboteur_api::RECHECK_AFTER + Duration::from_millis(500);
    let mut last = 0;
    for n in 0..24u64 {
        let (from, other) = if n % 2 == 0 { (&a, &b) } else { (&b, &a) };
        let Some((command, key, st, body)) = one_move(&c, from, &id, &token, n).await else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        if st == StatusCode::PRECONDITION_FAILED || st == StatusCode::CONFLICT {
            // Chosen at a version the other process had already moved past: allowed, and the
            // next try reads again.
            continue;
        }
        assert_eq!(st, StatusCode::OK, "{body}");
        last = body["version"].as_i64().unwrap();
        // The other process serves the new version within the bound.
        let asked = Instant::now();
        while version(&c, other, &id).await < last {
            assert!(asked.elapsed() < bound, "a read staler than {bound:?}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        // The same key through the other process: the same outcome; with another command: 422.
        let (st, again, _) = send(
            c.post(other.url(&format!("/games/{id}/commands")))
                .bearer_auth(&token)
                .header("Idempotency-Key", &key)
                .json(&command),
        )
        .await
        .unwrap();
        assert_eq!(st, StatusCode::OK, "{again}");
        assert_eq!(again["events"][0], body["events"][0]);
        if n == 0 {
            let (st, p, _) = send(
                c.post(other.url(&format!("/games/{id}/commands")))
                    .bearer_auth(&token)
                    .header("Idempotency-Key", &key)
                    .json(&serde_json::json!({"type": "pass", "discard": []})),
            )
            .await
            .unwrap();
            assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{p}");
            assert_eq!(p["code"], "idempotency_key_reused");
        }
    }
    assert!(last > 0, "no command went through");
    let last = version(&c, &a, &id).await.max(last);
    through_b.expect_all(last, Duration::from_secs(5)).await;
    through_a.expect_all(last, Duration::from_secs(5)).await;
}
