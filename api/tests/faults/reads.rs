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
    assert!(standby.get_game(&id).await.is_err());
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
