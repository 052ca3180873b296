//! A read-only store for listings and audits (`--read-database-url`, a standby in production):
//! what it holds is served from it, what it has not replayed yet is served from the store, and
//! nothing is written there.

use std::time::Duration;

use reqwest::StatusCode;

use crate::harness::{Server, client, game_with_bots, play_to_end, send};

async fn fallbacks(c: &reqwest::Client, s: &crate::harness::Remote) -> String {
    let text = c
        .get(s.url("/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    text.lines()
        .filter(|l| l.starts_with("saboteur_read_fallbacks_total"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reads_go_to_the_read_store_and_fall_back_when_it_is_behind() {
    let _machine = crate::harness::beside().await;
    let db = saboteur_storage::testing::fresh_database().await;
    // A standby that has replayed nothing yet: the schema, no games.
    let behind = saboteur_storage::testing::fresh_database().await;
    drop(
        saboteur_storage::EventStore::connect(&behind)
            .await
            .unwrap(),
    );
    let s = Server::start(&db, &["--read-database-url", &behind]);
    let c = client();
    let (id, token) = game_with_bots(&c, &s, "base", 3, 7).await;
    play_to_end(&c, &s, &id, &token, Duration::from_secs(120)).await;
    // The audit is served whole from the store, the standby not having the game.
    let (st, bundle, _) = send(c.get(s.url(&format!("/games/{id}/audit"))))
        .await
        .unwrap();
    assert_eq!(st, StatusCode::OK, "{bundle}");
    let (_, game, _) = send(c.get(s.url(&format!("/games/{id}")))).await.unwrap();
    assert_eq!(
        bundle["events"].as_array().unwrap().len() as i64,
        game["version"].as_i64().unwrap()
    );
    assert!(
        fallbacks(&c, &s).await.contains("why=\"error\"} 1"),
        "the audit fell back: {}",
        fallbacks(&c, &s).await
    );
    // The listing is the standby's: as stale as it is (here: it has no games yet).
    let (st, list, _) = send(c.get(s.url("/games?status=finished"))).await.unwrap();
    assert_eq!(st, StatusCode::OK, "{list}");
    assert!(list["games"].as_array().unwrap().is_empty(), "{list}");
    // Nothing was written there: not the game, not presence.
    let standby = saboteur_storage::EventStore::connect(&behind)
        .await
        .unwrap();
    let game = saboteur_storage::GameId::parse(&id).unwrap();
    assert!(standby.get_game(&game).await.is_err());
    assert_eq!(
        standby
            .execute_raw("UPDATE presence_processes SET beat_at = beat_at")
            .await
            .unwrap(),
        0
    );
    drop(s);
    // A read store that holds everything serves the audit and the listing itself.
    let s = Server::start(&db, &["--read-database-url", &db]);
    let (st, again, _) = send(c.get(s.url(&format!("/games/{id}/audit"))))
        .await
        .unwrap();
    assert_eq!(st, StatusCode::OK);
    assert_eq!(again["events"], bundle["events"]);
    let (_, list, _) = send(c.get(s.url("/games?status=finished"))).await.unwrap();
    assert_eq!(list["games"][0]["id"], id.as_str(), "{list}");
    assert_eq!(fallbacks(&c, &s).await, "", "no fallback");
}

/// While no database answers — the store and its read-only store both down, as when a demoted
/// primary restarts while the standby is away — a finished game's audit this process served
/// is served again (its record no longer changes), and so is a listing page (as it was); an
/// audit or a page it never served is 503 with `Retry-After`, and everything is read from the
/// databases again once they are back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_audit_and_a_listing_page_served_are_answered_while_no_database_is() {
    let _machine = crate::harness::beside().await;
    let mut cluster = saboteur_storage::testing::OwnCluster::start();
    let db = cluster.fresh_database().await;
    // The read-only store: the same database (a standby that keeps up), stopped with it.
    let s = Server::start(&db, &["--read-database-url", &db]);
    let c = client();
    let mut finished = Vec::new();
    for seed in [11, 12] {
        let (id, token) = game_with_bots(&c, &s, "base", 3, seed).await;
        play_to_end(&c, &s, &id, &token, Duration::from_secs(120)).await;
        finished.push(id);
    }
    let audit = |id: &str| c.get(s.url(&format!("/games/{id}/audit")));
    let listing = |limit: u32| c.get(s.url(&format!("/games?status=finished&limit={limit}")));
    let (st, served, _) = send(audit(&finished[0])).await.unwrap();
    assert_eq!(st, StatusCode::OK, "{served}");
    let (st, page, headers) = send(listing(1)).await.unwrap();
    assert_eq!(st, StatusCode::OK, "{page}");
    assert!(
        headers.get("link").is_some(),
        "a next page: {page} {headers:?}"
    );
    cluster.stop();
    let (st, again, _) = send(audit(&finished[0])).await.unwrap();
    assert_eq!(st, StatusCode::OK, "{again}");
    assert_eq!(again, served, "the same bundle");
    let (st, never, _) = send(audit(&finished[1])).await.unwrap();
    assert_eq!(st, StatusCode::SERVICE_UNAVAILABLE, "{never}");
    let (st, page_again, headers) = send(listing(1)).await.unwrap();
    assert_eq!(st, StatusCode::OK, "{page_again}");
    assert_eq!(page_again, page, "the same page");
    assert!(
        headers.get("link").is_some(),
        "the next page is still named"
    );
    let (st, other, headers) = send(listing(2)).await.unwrap();
    assert_eq!(
        st,
        StatusCode::SERVICE_UNAVAILABLE,
        "a page never served: {other}"
    );
    assert!(headers.get("retry-after").is_some());
    cluster.restart();
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let (st, body, _) = send(audit(&finished[1])).await.unwrap();
        if st == StatusCode::OK {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "{st} {body}");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}
