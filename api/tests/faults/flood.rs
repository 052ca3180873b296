//! A stranger who floods: the per-client limits and the caps on lobbies, against the binary
//! with its default limits (or lowered ones, to reach them quickly), on SQLite and
//! PostgreSQL. Clients come from different loopback addresses (`127.0.0.2`, `127.0.0.3`…): the
//! server counts each address apart. Every limited request is a 429 problem with
//! `too_many_requests` and `Retry-After`, and changes nothing.

mod limits;
mod replies;

use std::time::Duration;

use reqwest::{Client, StatusCode};
use serde_json::json;

use crate::harness::{Server, from, send};
use crate::measure::{Player, p99, sqlite};
use replies::{limited, lobbies, refused};

/// One address creates games in a loop: with the default limits it gets its 30 lobbies (the
/// cap on games it created that nobody started) and then only 429s, which record nothing,
/// while another address plays whole games as fast as when nobody flooded.
async fn a_flood_of_games_is_capped(url: &str) {
    let server = Server::start_limited(url, &[]);
    let s = server.remote();
    let (player, person) = (from(1), Player::new(1));
    // The same games (the same seeds, so the same deals, bots' moves and player's choices), each
    // played quietly and then under the flood, in turn: whatever else the machine does weighs on
    // both alike.
    let (mut quiet, mut flooded) = (Vec::new(), Vec::new());
    let (mut made, mut refusals) = (0, 0);
    for seed in [700, 710] {
        quiet.extend(person.play(&s, 2, seed).await);
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flooding = tokio::spawn({
            let (s, stop) = (s.clone(), stop.clone());
            async move {
                let c = from(2);
                let (mut made, mut refusals) = (0, 0);
                // As fast as one connection goes, until the player is done.
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let reply = send(c.post(s.url("/games")).json(&json!({
                        "ruleset": "base", "players": 10
                    })))
                    .await
                    .expect("the server answers");
                    if reply.0 == StatusCode::CREATED {
                        made += 1;
                        assert_eq!(refusals, 0, "a game made after a refusal: {}", reply.1);
                    } else {
                        limited("a game past the cap", &reply);
                        refusals += 1;
                    }
                }
                (made, refusals)
            }
        });
        flooded.extend(person.play(&s, 2, seed).await);
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let (m, r) = flooding.await.unwrap();
        assert!(m == 0 || refusals == 0, "a game made after a refusal");
        (made, refusals) = (made + m, refusals + r);
    }
    assert_eq!(made, 30, "the cap on lobbies per address");
    // Refusals take a quarter of a second each: a few a second while the player played.
    assert!(refusals >= 4, "the flood went on: {refusals} refusals");
    // Nothing was recorded for a refusal: the flooder's 30 lobbies are all there is.
    assert_eq!(lobbies(&player, &s).await.len(), 30);
    // Refused as past the cap (each such refusal given back to the creations' bucket), or past
    // the bucket.
    let counted = refused(&player, &s, "lobby").await + refused(&player, &s, "create").await;
    assert!(counted >= refusals, "{counted} counted, {refusals} refused");
    let (q, f) = (p99(&mut quiet), p99(&mut flooded));
    eprintln!(
        "commands p99: quiet {q:?} ({} moves), while flooded {f:?} ({} moves; the host took \
         {:.1} % of the CPU time while the player played)",
        quiet.len(),
        flooded.len(),
        person.stolen()
    );
    // Within twice the quiet run's (a floor of 5 ms: below it, the machine's scheduling).
    assert!(
        f <= (q * 2).max(Duration::from_millis(5)),
        "p99 {f:?} while flooded, {q:?} quiet"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_games_is_capped_on_sqlite() {
    let _machine = crate::harness::alone().await;
    let (_dir, url) = sqlite();
    a_flood_of_games_is_capped(&url).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_games_is_capped_on_postgres() {
    let _machine = crate::harness::alone().await;
    a_flood_of_games_is_capped(&saboteur_storage::testing::fresh_database().await).await;
}

/// Every kind of request has its bucket, per address: past it, 429 and nothing changed; the
/// next address is untouched. Lowered limits, to reach them quickly.
async fn every_kind_has_its_limit(url: &str) {
    let server = Server::start_limited(
        url,
        &[
            "--limit-creates=3/h",
            "--limit-joins=4/min",
            "--limit-writes=5/min",
            "--limit-reads=300/min",
            "--limit-streams=2",
        ],
    );
    let s = server.remote();
    let (a, b) = (from(3), from(4));
    let made = limits::creates(&a, &b, &s).await;
    let (id, host) = made[0].clone();
    let tokens = limits::joins(&a, &b, &s, &id).await;
    limits::the_host_starts(&b, &s, &id, &host).await;
    limits::writes(&a, &b, &s, &id, &tokens).await;
    limits::streams(&a, &b, &s, &id).await;
    limits::reads(&a, &b, &s, &id).await;
    for kind in ["create", "join", "write", "read", "stream"] {
        assert!(refused(&b, &s, kind).await >= 1, "counted: {kind}");
    }
}

#[tokio::test]
async fn every_kind_has_its_limit_on_sqlite() {
    let _machine = crate::harness::beside().await;
    let (_dir, url) = sqlite();
    every_kind_has_its_limit(&url).await;
}

#[tokio::test]
async fn every_kind_has_its_limit_on_postgres() {
    let _machine = crate::harness::beside().await;
    every_kind_has_its_limit(&saboteur_storage::testing::fresh_database().await).await;
}

/// Fifty joins at once on one lobby of five seats, from ten addresses: five seats taken, the
/// others refused (full, or over a limit), never a sixth seat.
#[tokio::test]
async fn a_flood_of_joins_on_one_lobby() {
    let _machine = crate::harness::beside().await;
    let (_dir, url) = sqlite();
    let server = Server::start_limited(&url, &["--limit-joins=3/min"]);
    let s = server.remote();
    let host = from(20);
    let (st, g, _) = send(
        host.post(s.url("/games"))
            .json(&json!({"ruleset": "base", "players": 5})),
    )
    .await
    .unwrap();
    assert_eq!(st, StatusCode::CREATED, "{g}");
    let id = g["game_id"].as_str().unwrap().to_string();
    let joins = (0..50u8).map(|n| {
        let c = from(30 + n % 10);
        let url = s.url(&format!("/games/{id}/seats"));
        tokio::spawn(async move {
            send(c.post(url).json(&json!({"name": format!("j{n}")})))
                .await
                .unwrap()
        })
    });
    let mut taken = 0;
    for j in joins {
        let reply = j.await.unwrap();
        match reply.0 {
            StatusCode::CREATED => taken += 1,
            StatusCode::TOO_MANY_REQUESTS => limited("a join", &reply),
            StatusCode::CONFLICT => assert!(reply.1["code"].is_string(), "{}", reply.1),
            other => panic!("a join answered {other}: {}", reply.1),
        }
    }
    assert_eq!(taken, 5);
    let (_, g, _) = send(host.get(s.url(&format!("/games/{id}"))))
        .await
        .unwrap();
    assert_eq!(g["seats"].as_array().unwrap().len(), 5);
}

/// A lobby nobody starts leaves the listing and the caps after `--lobby-expiry`, and is kept:
/// its page still answers.
#[tokio::test]
async fn lobbies_nobody_started_expire_from_the_listing() {
    let _machine = crate::harness::beside().await;
    let (_dir, url) = sqlite();
    let server = Server::start_limited(&url, &["--lobby-expiry=2", "--max-lobbies=3"]);
    let s = server.remote();
    let c = from(5);
    let mut ids = Vec::new();
    for _ in 0..3 {
        let (st, g, _) = send(
            c.post(s.url("/games"))
                .json(&json!({"ruleset": "base", "players": 3})),
        )
        .await
        .unwrap();
        assert_eq!(st, StatusCode::CREATED, "{g}");
        ids.push(g["game_id"].as_str().unwrap().to_string());
    }
    assert_eq!(lobbies(&c, &s).await, ids);
    // At the cap in all: another address is refused too.
    let reply = send(
        from(6)
            .post(s.url("/games"))
            .json(&json!({"ruleset": "base", "players": 3})),
    )
    .await
    .unwrap();
    limited("a lobby past the cap in all", &reply);
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert_eq!(lobbies(&c, &s).await, Vec::<String>::new());
    let (st, g, _) = send(c.get(s.url(&format!("/games/{}", ids[0]))))
        .await
        .unwrap();
    assert_eq!((st, g["status"].as_str()), (StatusCode::OK, Some("lobby")));
    let (st, _, _) = send(
        from(6)
            .post(s.url("/games"))
            .json(&json!({"ruleset": "base", "players": 3})),
    )
    .await
    .unwrap();
    assert_eq!(st, StatusCode::CREATED, "expired lobbies no longer count");
}

/// Behind a proxy the operator trusts, each forwarded address is a client of its own; a
/// client that is not a trusted proxy cannot choose its address by the header.
#[tokio::test]
async fn behind_a_trusted_proxy_the_forwarded_address_is_the_client() {
    let _machine = crate::harness::beside().await;
    let (_dir, url) = sqlite();
    let server = Server::start_limited(&url, &["--limit-creates=1/h", "--trusted-proxy=127.0.0.7"]);
    let s = server.remote();
    let create = |c: &Client, forwarded: &str| {
        let rb = c
            .post(s.url("/games"))
            .header("x-forwarded-for", forwarded)
            .json(&json!({"ruleset": "base", "players": 3}));
        async move { send(rb).await.unwrap() }
    };
    let proxy = from(7);
    assert_eq!(create(&proxy, "198.51.100.1").await.0, StatusCode::CREATED);
    assert_eq!(create(&proxy, "198.51.100.2").await.0, StatusCode::CREATED);
    limited(
        "the first client again",
        &create(&proxy, "198.51.100.1").await,
    );
    // Not a trusted proxy: the header is not believed.
    let stranger = from(8);
    assert_eq!(
        create(&stranger, "198.51.100.3").await.0,
        StatusCode::CREATED
    );
    limited(
        "a stranger naming another",
        &create(&stranger, "198.51.100.4").await,
    );
}

/// The cap on a client's games nobody started holds across processes: creations spread over two
/// processes on one database stop at the cap in all, and another client is untouched. The
/// refusal says truthfully when a place frees (the oldest lobby's expiry, an hour here) and how
/// to free one now: a lobby cancelled through the other process frees its place at once.
async fn lobbies_per_client_across_processes(url: &str) {
    let expiry = ["--lobbies-per-client", "6", "--lobby-expiry", "3600"];
    let a = Server::start_limited(url, &expiry);
    let b = Server::start_limited(url, &expiry);
    let c = from(3);
    let mut made = Vec::new();
    for n in 0..10 {
        let s = if n % 2 == 0 { &a } else { &b };
        let reply = send(c.post(s.url("/games")).json(&json!({
            "ruleset": "base", "players": 3
        })))
        .await
        .expect("the server answers");
        if reply.0 == StatusCode::CREATED {
            made.push(reply.1.clone());
        } else {
            limited(
                "a lobby past the cap, made through the other process",
                &reply,
            );
            assert!(
                reply.1["detail"]
                    .as_str()
                    .unwrap()
                    .contains("games nobody started"),
                "{}",
                reply.1
            );
        }
    }
    assert_eq!(made.len(), 6, "the cap is per client across processes");
    let refused = send(c.post(a.url("/games")).json(&json!({
        "ruleset": "base", "players": 3
    })))
    .await
    .unwrap();
    limited("a lobby past the cap", &refused);
    let wait: u64 = refused.2["retry-after"].to_str().unwrap().parse().unwrap();
    assert!(
        (3500..=3600).contains(&wait),
        "Retry-After is when the oldest lobby expires, not {wait}: {}",
        refused.1
    );
    assert!(
        refused.1["detail"].as_str().unwrap().contains("cancel"),
        "{}",
        refused.1
    );
    let (id, host) = (&made[0]["game_id"], &made[0]["host_token"]);
    let (st, body, _) = send(
        c.post(b.url(&format!("/games/{}/cancel", id.as_str().unwrap())))
            .bearer_auth(host.as_str().unwrap()),
    )
    .await
    .unwrap();
    assert_eq!(st, StatusCode::OK, "{body}");
    let (st, body, _) = send(c.post(a.url("/games")).json(&json!({
        "ruleset": "base", "players": 3
    })))
    .await
    .unwrap();
    assert_eq!(
        st,
        StatusCode::CREATED,
        "a cancelled lobby frees its place: {body}"
    );
    let other = from(4);
    let (st, body, _) = send(other.post(b.url("/games")).json(&json!({
        "ruleset": "base", "players": 3
    })))
    .await
    .unwrap();
    assert_eq!(st, StatusCode::CREATED, "{body}");
}

/// The limit on seats one client takes holds across processes: joins spread over two processes
/// on one database (and over several lobbies) stop at the limit in all, the refusal says how
/// long until one more; another client is untouched.
async fn joins_across_processes(url: &str) {
    let limit = ["--limit-joins", "4/min"];
    let a = Server::start_limited(url, &limit);
    let b = Server::start_limited(url, &limit);
    let host = from(5);
    let mut games = Vec::new();
    for _ in 0..3 {
        let (st, g, _) = send(host.post(a.url("/games")).json(&json!({
            "ruleset": "base", "players": 5
        })))
        .await
        .unwrap();
        assert_eq!(st, StatusCode::CREATED, "{g}");
        games.push(g["game_id"].as_str().unwrap().to_string());
    }
    let c = from(6);
    let mut taken = 0;
    for n in 0..8 {
        let s = if n % 2 == 0 { &a } else { &b };
        let path = format!("/games/{}/seats", games[n % games.len()]);
        let reply = send(c.post(s.url(&path)).json(&json!({"name": format!("p{n}")})))
            .await
            .unwrap();
        if reply.0 == StatusCode::CREATED {
            taken += 1;
        } else {
            limited(
                "a seat past the limit, taken through the other process",
                &reply,
            );
            let wait: u64 = reply.2["retry-after"].to_str().unwrap().parse().unwrap();
            assert!((1..=60).contains(&wait), "{wait}");
        }
    }
    assert_eq!(taken, 4, "the join limit is per client across processes");
    let other = from(7);
    let path = format!("/games/{}/seats", games[2]);
    let (st, body, _) = send(other.post(b.url(&path)).json(&json!({"name": "q"})))
        .await
        .unwrap();
    assert_eq!(st, StatusCode::CREATED, "another client joins: {body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn joins_hold_across_processes_on_postgres() {
    let _machine = crate::harness::beside().await;
    joins_across_processes(&saboteur_storage::testing::fresh_database().await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn joins_hold_across_processes_on_sqlite() {
    let _machine = crate::harness::beside().await;
    let (_dir, url) = sqlite();
    joins_across_processes(&url).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lobbies_per_client_hold_across_processes_on_postgres() {
    let _machine = crate::harness::beside().await;
    lobbies_per_client_across_processes(&saboteur_storage::testing::fresh_database().await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lobbies_per_client_hold_across_processes_on_sqlite() {
    let _machine = crate::harness::beside().await;
    let (_dir, url) = sqlite();
    lobbies_per_client_across_processes(&url).await;
}
