//! Two server processes on one PostgreSQL serving the same games: clients of both see every
//! event live, a retried command gives one outcome through either, and no read is staler than
//! the documented bound.

use std::time::{Duration, Instant};

use reqwest::StatusCode;

use crate::harness::{Follower, Server, client, game_with_bots, one_move, send, version};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_processes_serve_one_game() {
    let _machine = crate::harness::beside().await;
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

/// Whether `s` shows seat 0 of `id` connected, and how many spectators it counts.
async fn seen_by(c: &reqwest::Client, s: &crate::harness::Remote, id: &str) -> (bool, u64) {
    let (st, p, _) = send(c.get(s.url(&format!("/games/{id}/presence"))))
        .await
        .expect("presence");
    assert_eq!(st, StatusCode::OK, "{p}");
    (
        p["seats"][0]["connected"].as_bool().unwrap(),
        p["spectators"].as_u64().unwrap(),
    )
}

/// Waits until `s` shows `want`, for at most `bound`; how long it took.
async fn shows(
    c: &reqwest::Client,
    s: &crate::harness::Remote,
    id: &str,
    want: (bool, u64),
    bound: Duration,
) -> Duration {
    let asked = Instant::now();
    loop {
        let seen = seen_by(c, s, id).await;
        if seen == want {
            return asked.elapsed();
        }
        assert!(
            asked.elapsed() < bound,
            "presence {seen:?} instead of {want:?} after {bound:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A seat connected to one process shows as connected through every process within two beats,
/// and as away once its stream closes; the streams of a process that is killed stop counting
/// within the expiry of its last beat.
async fn presence_is_shared(database_url: &str) {
    use saboteur_api::{PRESENCE_BEAT as BEAT, PRESENCE_EXPIRY as EXPIRY};
    let a = Server::start(database_url, &[]);
    let b = Server::start(database_url, &[]);
    let c = client();
    let (id, token) = game_with_bots(&c, &a, "base", 3, 5).await;
    // Within two beats, and the time a beat takes on a busy machine.
    let bound = 2 * BEAT + Duration::from_secs(2);
    assert_eq!(seen_by(&c, &b, &id).await, (false, 0));
    let seat = Follower::open(&c, &a, &id, Some(&token)).await;
    let spectator = Follower::open(&c, &a, &id, None).await;
    let took = shows(&c, &b, &id, (true, 1), bound).await;
    eprintln!("a connection through A showed through B after {took:?}");
    // Both processes count: another spectator through B makes two everywhere.
    let another = Follower::open(&c, &b, &id, None).await;
    shows(&c, &a, &id, (true, 2), bound).await;
    shows(&c, &b, &id, (true, 2), bound).await;
    drop(seat);
    drop(another);
    // A closed stream is noticed at its next keep-alive (every 5 s; the second when the first
    // is written before the close arrives), then shared within two beats.
    let noticed = Duration::from_secs(10) + bound;
    let took = shows(&c, &b, &id, (false, 1), noticed).await;
    eprintln!("closed streams stopped counting after {took:?}");
    // A process killed with a stream open: its streams stop counting.
    let spectator_b = Follower::open(&c, &b, &id, None).await;
    let seat = Follower::open(&c, &a, &id, Some(&token)).await;
    shows(&c, &b, &id, (true, 2), bound).await;
    a.kill();
    let took = shows(&c, &b, &id, (false, 1), EXPIRY + BEAT + bound).await;
    eprintln!("a killed process's streams stopped counting after {took:?}");
    drop((seat, spectator, spectator_b));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn presence_is_shared_between_processes_on_postgres() {
    let _machine = crate::harness::beside().await;
    let db = saboteur_storage::testing::fresh_database().await;
    presence_is_shared(&db).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn presence_is_shared_between_processes_on_sqlite() {
    let _machine = crate::harness::beside().await;
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("shared.db").display());
    presence_is_shared(&url).await;
}

/// A client whose requests a load balancer spreads over two processes, one after the other, is
/// never refused for what the other process just recorded: seats taken in turn through each
/// (the seats are read again when one was taken meanwhile), and a move whose `If-Match` names
/// the version the other process just answered with.
async fn spread_over_two_processes(db: &str) {
    let a = Server::start(db, &[]);
    let b = Server::start(db, &[]);
    let c = client();
    for round in 0..5u64 {
        // Both processes know the lobby before seats are taken in turn through each.
        let (st, g, _) = send(c.post(a.url("/games")).json(&serde_json::json!({
            "ruleset": "base", "players": 5, "seed": crate::harness::seed_hex(round)
        })))
        .await
        .unwrap();
        assert_eq!(st, StatusCode::CREATED, "{g}");
        let id = g["game_id"].as_str().unwrap().to_string();
        let host = g["host_token"].as_str().unwrap().to_string();
        for s in [&a, &b] {
            let (st, _, _) = send(c.get(s.url(&format!("/games/{id}")))).await.unwrap();
            assert_eq!(st, StatusCode::OK);
        }
        let (st, j, _) = send(
            c.post(b.url(&format!("/games/{id}/seats")))
                .json(&serde_json::json!({"name": "Ada"})),
        )
        .await
        .unwrap();
        assert_eq!(st, StatusCode::CREATED, "{j}");
        let token = j["player_token"].as_str().unwrap().to_string();
        for i in 1..5 {
            let s = if i % 2 == 0 { &b } else { &a };
            let (st, body, _) = send(
                c.post(s.url(&format!("/games/{id}/bots")))
                    .bearer_auth(&host)
                    .json(&serde_json::json!({"level": "random"})),
            )
            .await
            .unwrap();
            assert_eq!(
                st,
                StatusCode::CREATED,
                "bot {i} through {}: {body}",
                s.url("")
            );
        }
        // Started through the process that did not seat the last bot.
        let (st, o, _) = send(
            c.post(a.url(&format!("/games/{id}/start")))
                .bearer_auth(&host),
        )
        .await
        .unwrap();
        assert_eq!(st, StatusCode::OK, "{o}");
        // Moves in turn through each process, each naming the version the other answered.
        let mut known: Option<i64> = None;
        for n in 0..6u64 {
            let (from, other) = if n % 2 == 0 { (&a, &b) } else { (&b, &a) };
            let (st, moves, _) = send(
                c.get(from.url(&format!("/games/{id}/legal-moves")))
                    .bearer_auth(&token),
            )
            .await
            .unwrap();
            assert_eq!(st, StatusCode::OK);
            let version = moves["version"].as_i64().unwrap();
            if let Some(k) = known {
                // Read within the staleness bound, the other's answer may not be here yet; the
                // move below names the version the client knows, whichever is newer.
                assert!(version >= k - 50, "{version} {k}");
            }
            let Some(command) = moves["commands"].as_array().unwrap().first().cloned() else {
                continue;
            };
            let at = known.map_or(version, |k| k.max(version));
            let (st, body, _) = send(
                c.post(other.url(&format!("/games/{id}/commands")))
                    .bearer_auth(&token)
                    .header("If-Match", format!("\"{at}\""))
                    .json(&command),
            )
            .await
            .unwrap();
            if st == StatusCode::OK {
                known = Some(body["version"].as_i64().unwrap());
            } else {
                // Only the rules may refuse it (the turn passed to a bot the client had not
                // seen yet, when the legal moves were read behind): never 412.
                assert_ne!(st, StatusCode::PRECONDITION_FAILED, "{body}");
            }
        }
        same_time_through_both(&c, [&a, &b], &id).await;
    }
}

/// Once both processes show the game at one version, they say the same time its log last grew:
/// the table that wrote the last event takes the time the store recorded, and the other reads
/// it with the log.
async fn same_time_through_both(c: &reqwest::Client, both: [&Server; 2], id: &str) {
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        let mut seen = Vec::new();
        for s in both {
            let (st, g, _) = send(c.get(s.url(&format!("/games/{id}")))).await.unwrap();
            assert_eq!(st, StatusCode::OK, "{g}");
            seen.push((g["version"].clone(), g["updated_at"].clone()));
        }
        if seen[0].0 == seen[1].0 {
            assert_eq!(seen[0].1, seen[1].1, "one version, two times: {seen:?}");
            assert!(seen[0].1.is_string(), "{seen:?}");
            return;
        }
        assert!(
            Instant::now() < until,
            "the processes still show two versions: {seen:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_spread_over_two_processes_on_postgres() {
    let _machine = crate::harness::beside().await;
    spread_over_two_processes(&saboteur_storage::testing::fresh_database().await).await;
}

/// On SQLite, processes hear nothing of each other's appends: each reads the other's writes
/// when a request names them, or within its recheck bound.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_spread_over_two_processes_on_sqlite() {
    let _machine = crate::harness::beside().await;
    let dir = tempfile::tempdir().unwrap();
    spread_over_two_processes(&format!(
        "sqlite://{}",
        dir.path().join("spread.db").display()
    ))
    .await;
}

/// What a failover that lost writes leaves of game `id` on PostgreSQL at `db`: its events after
/// version `before` gone from the log, and its row back at `before`.
async fn lose_writes_after(db: &str, id: &str, before: i64) {
    let store = saboteur_storage::EventStore::connect(db).await.unwrap();
    store
        .execute_raw(&format!(
            "ALTER TABLE events DISABLE TRIGGER USER; \
             DELETE FROM events WHERE game_id = '{id}' AND seq > {before}; \
             ALTER TABLE events ENABLE TRIGGER USER; \
             UPDATE games SET version = {before}, bot_awaited = FALSE, \
             last_hash = (SELECT encode(hash, 'hex') FROM events \
             WHERE game_id = '{id}' AND seq = {before}) \
             WHERE id = '{id}';"
        ))
        .await
        .unwrap();
}

/// A write another process read before it was lost: PostgreSQL shows a commit to other sessions
/// before the synchronous standby confirms it, so a process may read a move that a failover then
/// loses (never acknowledged to its writer). The store's log is the game: a table ahead of the
/// store reads the game again, within the recheck bound, instead of answering from the lost
/// move forever. The loss is made here by hand, as the failover would leave the log.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_ahead_of_the_store_reads_the_game_again() {
    let _machine = crate::harness::beside().await;
    let db = saboteur_storage::testing::fresh_database().await;
    let s = Server::start(&db, &[]);
    let c = client();
    let (id, token) = game_with_bots(&c, &s, "base", 3, 41).await;
    let before = version(&c, &s, &id).await;
    let mut n = 0;
    let lost = loop {
        if let Some((command, _, StatusCode::OK, _)) = one_move(&c, &s, &id, &token, n).await {
            break command;
        }
        n += 1;
        assert!(n < 50, "no move was made");
    };
    // The bots answer the move after its reply: the version once they have.
    let after = crate::harness::settled(&c, &s, &id, &token, Duration::from_secs(30)).await;
    assert!(after > before);
    // A player follows: the stream shows the move that will be lost.
    let stream = Follower::open(&c, &s, &id, Some(&token)).await;
    stream.expect_all(after, Duration::from_secs(5)).await;
    // The failover's loss: the move and the bots' answers gone from the log and the row.
    lose_writes_after(&db, &id, before).await;
    // Within the recheck bound the process answers from the store: the person's turn again.
    let bound = saboteur_api::RECHECK_AFTER + Duration::from_millis(500);
    let asked = Instant::now();
    loop {
        let (st, moves, _) = send(
            c.get(s.url(&format!("/games/{id}/legal-moves")))
                .bearer_auth(&token),
        )
        .await
        .unwrap();
        assert_eq!(st, StatusCode::OK, "{moves}");
        if moves["version"].as_i64() == Some(before) {
            assert!(!moves["commands"].as_array().unwrap().is_empty(), "{moves}");
            break;
        }
        assert!(
            asked.elapsed() < bound,
            "still answering from version {} after {bound:?}; the store is at {before}",
            moves["version"]
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Resumed past the log's end, the stream says the client's copy is not the game.
    let (st, problem, _) = send(
        c.get(s.url(&format!("/games/{id}/events/stream")))
            .bearer_auth(&token)
            .header("Last-Event-ID", after.to_string()),
    )
    .await
    .unwrap();
    assert_eq!(st, StatusCode::CONFLICT, "{problem}");
    assert_eq!(problem["code"], "log_shorter");
    // Another move in the lost one's place (bots answer the same position the same way, so the
    // same move would make the same events: the game the stream showed).
    let (_, moves, _) = send(
        c.get(s.url(&format!("/games/{id}/legal-moves")))
            .bearer_auth(&token),
    )
    .await
    .unwrap();
    let other = moves["commands"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| **m != lost)
        .expect("another legal move")
        .clone();
    let (st, body, _) = send(
        c.post(s.url(&format!("/games/{id}/commands")))
            .bearer_auth(&token)
            .json(&other),
    )
    .await
    .unwrap();
    assert_eq!(st, StatusCode::OK, "{body}");
    // And the game plays on from there to its end; the stream that showed the lost move ended
    // instead of going on as if the new moves followed it.
    crate::harness::play_to_end(&c, &s, &id, &token, Duration::from_secs(120)).await;
    let seen = stream.seen();
    assert_eq!(seen.last(), Some(&after), "the stream went on: {seen:?}");
}

/// A move lost in a failover and another made in its place through a second process: the first
/// process's table holds a log the store no longer has, of as many events or fewer. It never
/// builds on it (folding the new events onto the lost move, or answering from it because the
/// count matches): it reads the game again and shows the store's log within the recheck bound.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_on_a_log_the_store_replaced_reads_the_game_again() {
    let _machine = crate::harness::beside().await;
    let db = saboteur_storage::testing::fresh_database().await;
    let a = Server::start(&db, &[]);
    let b = Server::start(&db, &[]);
    let c = client();
    let (id, token) = game_with_bots(&c, &a, "base", 3, 43).await;
    let before = version(&c, &a, &id).await;
    let mut n = 0;
    let lost = loop {
        if let Some((command, _, StatusCode::OK, _)) = one_move(&c, &a, &id, &token, n).await {
            break command;
        }
        n += 1;
        assert!(n < 50, "no move was made");
    };
    // The failover's loss, as in the test above.
    lose_writes_after(&db, &id, before).await;
    // Another move in its place, through the other process. It may have held the lost move too
    // (its sweep can open the table while the bots play, and then it hears every append): it
    // shows the store's log within the recheck bound.
    let shown = Instant::now();
    let moves = loop {
        let (_, moves, _) = send(
            c.get(b.url(&format!("/games/{id}/legal-moves")))
                .bearer_auth(&token),
        )
        .await
        .unwrap();
        if moves["version"].as_i64() == Some(before) {
            break moves;
        }
        assert!(
            shown.elapsed() < saboteur_api::RECHECK_AFTER + Duration::from_millis(500),
            "the other process still shows {moves}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let other = moves["commands"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| **m != lost)
        .expect("another legal move")
        .clone();
    let (st, body, _) = send(
        c.post(b.url(&format!("/games/{id}/commands")))
            .bearer_auth(&token)
            .header("If-Match", format!("\"{before}\""))
            .json(&other),
    )
    .await
    .unwrap();
    assert_eq!(st, StatusCode::OK, "{body}");
    // Both processes show the store's log: the new move, never the lost one.
    let log = |s: &crate::harness::Remote| {
        // Through the player's eyes: the player's own command is shown to them.
        let request = c
            .get(s.url(&format!("/games/{id}/events?limit=1000")))
            .bearer_auth(&token);
        async move {
            let (st, page, _) = send(request).await.unwrap();
            assert_eq!(st, StatusCode::OK, "{page}");
            page["events"].clone()
        }
    };
    let bound = saboteur_api::RECHECK_AFTER + Duration::from_millis(500);
    let asked = Instant::now();
    loop {
        let (from_a, from_b) = (log(&a).await, log(&b).await);
        let moved =
            from_a.as_array().unwrap().iter().find(|e| {
                e["seq"].as_i64() > Some(before) && e["event"]["type"] == "command_accepted"
            });
        if from_a == from_b {
            assert_eq!(moved.map(|e| &e["event"]["command"]), Some(&other));
            break;
        }
        assert!(
            asked.elapsed() < bound,
            "the first process still shows another log after {bound:?}: {moved:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
