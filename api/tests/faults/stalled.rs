//! A write whose commit the database does not answer holds its game's table for as long (in
//! production: a synchronous standby stalled, until Patroni demotes the primary; here: a lock
//! held on the game's row). A spectator's reads of that game are answered all the same, read
//! from the store for them alone; and once the write fails (its connection cut), the table
//! holds only what the log is known to hold, so a read while the database is away is answered
//! from memory, never with the move that was not recorded.

use std::time::{Duration, Instant};

use reqwest::StatusCode;
use sqlx::{Connection, PgConnection};

use crate::harness::{Server, client, game_with_bots, one_move, send, send_again, settled};

/// How many of the database's sessions wait for a lock.
async fn waiting(conn: &mut PgConnection) -> i64 {
    sqlx::query_scalar(
        "SELECT count(*) FROM pg_stat_activity \
         WHERE wait_event_type = 'Lock' AND datname = current_database()",
    )
    .fetch_one(conn)
    .await
    .expect("pg_stat_activity")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_the_database_does_not_answer_holds_up_no_read() {
    let _machine = crate::harness::beside().await;
    let mut cluster = saboteur_storage::testing::OwnCluster::start();
    let db = cluster.fresh_database().await;
    let server = Server::start(&db, &[]);
    let (c, s) = (client(), server.remote());
    let (id, token) = game_with_bots(&c, &s, "base", 3, 11).await;
    let before = settled(&c, &s, &id, &token, Duration::from_secs(60)).await;

    // The game's row locked: the next append waits on it.
    let mut holder = PgConnection::connect(&db).await.expect("the database");
    sqlx::raw_sql("BEGIN").execute(&mut holder).await.unwrap();
    sqlx::query("SELECT 1 FROM games WHERE id = $1 FOR UPDATE")
        .bind(&id)
        .execute(&mut holder)
        .await
        .unwrap();
    let mover = {
        let (c, s, id, token) = (c.clone(), s.clone(), id.clone(), token.clone());
        tokio::spawn(async move { one_move(&c, &s, &id, &token, 0).await })
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    while waiting(&mut holder).await == 0 {
        assert!(Instant::now() < deadline, "the move never reached the lock");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    // The table is held by the stalled write: every read is answered (within the client's
    // 10 s) with the game as recorded.
    for path in [
        format!("/games/{id}/state"),
        format!("/games/{id}"),
        format!("/games/{id}/events"),
    ] {
        let started = Instant::now();
        let answer = send(c.get(s.url(&path))).await;
        let Some((st, body, _)) = answer else {
            panic!("{path}: no answer within the client's 10 s behind a stalled write");
        };
        assert_eq!(st, StatusCode::OK, "{path}: {body}");
        eprintln!(
            "{path} answered behind the stalled write in {:?}",
            started.elapsed()
        );
        if let Some(v) = body["version"].as_i64() {
            assert_eq!(v, before, "{path} shows a version not recorded: {body}");
        }
    }
    let (_, seat, _) = send(
        c.get(s.url(&format!("/games/{id}/state")))
            .bearer_auth(&token),
    )
    .await
    .expect("the seat's read is answered");
    assert_eq!(seat["version"].as_i64(), Some(before), "{seat}");

    // The write's connection cut: its outcome is unknown to the server (503).
    let cut: i64 = sqlx::query_scalar(
        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity \
         WHERE wait_event_type = 'Lock' AND datname = current_database()",
    )
    .fetch_one(&mut holder)
    .await
    .unwrap();
    assert_eq!(cut, 1, "one session waited for the game's row");
    let (command, key, st, body) = mover.await.unwrap().expect("the move was answered");
    assert_eq!(st, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    sqlx::raw_sql("ROLLBACK")
        .execute(&mut holder)
        .await
        .unwrap();
    drop(holder);

    // The database away: the table answers from memory what the log is known to hold, not
    // the move whose append failed.
    cluster.stop();
    let (st, state, _) = send(c.get(s.url(&format!("/games/{id}/state"))))
        .await
        .expect("an answer while the database is away");
    assert_eq!(st, StatusCode::OK, "answered from memory: {state}");
    assert_eq!(state["version"].as_i64(), Some(before), "{state}");
    cluster.restart();

    // Back: the move was not recorded; sent again with its key, it is.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (st, body) = send_again(&c, &s, &id, &token, &key, &command).await;
        if st == StatusCode::OK {
            assert_eq!(
                body["events"][0]["seq"].as_i64(),
                Some(before + 1),
                "{body}"
            );
            break;
        }
        assert_eq!(st, StatusCode::SERVICE_UNAVAILABLE, "{body}");
        assert!(Instant::now() < deadline, "the database did not come back");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
