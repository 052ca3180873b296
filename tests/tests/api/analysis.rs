//! Post-game analysis (`GET /games/{id}/analysis`): refused while the game runs, and once it is
//! over exactly what the domain computes from the game's record, whose every suggestion is the
//! expert's own choice from the seat's view (`domain/tests/analysis.rs` checks that).

use reqwest::StatusCode;
use saboteur_domain::{Event, History, Seat, analyse};
use serde_json::{Value, json};

use crate::helpers::{TestApp, postgres_url, seed_hex, sqlite_url};

async fn analysis(app: &TestApp, id: &str, seat: &str) -> (StatusCode, Value) {
    app.get_json(&format!("/games/{id}/analysis?seat={seat}"), None)
        .await
}

/// A 3-seat game: seat 0 a player's, the others bots of `levels`; started.
async fn game(app: &TestApp, seed: u64, bots: [&str; 3]) -> (String, String) {
    let settings = json!({ "ruleset": "base", "players": 3, "seed": seed_hex(seed) });
    let (st, g) = app.create_game(&settings).await;
    assert_eq!(st, StatusCode::CREATED, "{g}");
    let id = g["game_id"].as_str().unwrap().to_string();
    let host = g["host_token"].as_str().unwrap().to_string();
    for level in bots {
        let (st, b) = app
            .add_bot(&id, Some(&host), &json!({ "level": level }))
            .await;
        assert_eq!(st, StatusCode::CREATED, "{b}");
    }
    (id, host)
}

async fn analysed(app: &TestApp) {
    // While the game runs: refused with its stable code, whoever asks.
    let (id, host) = game(app, 5, ["heuristic", "random", "random"]).await;
    let (st, problem) = analysis(app, &id, "0").await;
    assert_eq!(
        (st, problem["code"].as_str()),
        (StatusCode::CONFLICT, Some("not_over")),
        "{problem}"
    );
    assert_eq!(app.cancel(&id, Some(&host)).await.0, StatusCode::OK);
    let (st, problem) = analysis(app, &id, "0").await;
    assert_eq!(
        (st, problem["code"].as_str()),
        (StatusCode::CONFLICT, Some("not_over")),
        "a cancelled game: {problem}"
    );

    // A game of bots, played to its end at the start.
    let (id, host) = game(app, 7, ["heuristic", "random", "expert"]).await;
    let (st, started) = app.start(&id, Some(&host)).await;
    assert_eq!(st, StatusCode::OK, "{started}");
    let (st, bundle) = app.audit(&id).await;
    assert_eq!(st, StatusCode::OK, "the game is over: {bundle}");
    let events: Vec<Event> = bundle["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| serde_json::from_value(e["payload"].clone()).unwrap())
        .collect();
    let history = History::replay(events).expect("the record replays");
    for seat in 0..3u8 {
        let (st, served) = analysis(app, &id, &seat.to_string()).await;
        assert_eq!(st, StatusCode::OK, "{served}");
        let expected = serde_json::to_value(analyse(&history, Seat(seat)).unwrap()).unwrap();
        assert_eq!(
            served, expected,
            "seat {seat}: the domain's analysis of the record"
        );
        let decisions = served["decisions"].as_array().unwrap();
        assert!(!decisions.is_empty(), "seat {seat} made moves");
        // The expert seat's own moves are its suggestions: they cost nothing.
        if seat == 2 {
            assert!(
                decisions
                    .iter()
                    .all(|d| d["cost"] == 0.0 && d["played"] == d["suggested"])
            );
        }
    }
    kept_once(app, &id, &history).await;
    let (st, problem) = analysis(app, &id, "3").await;
    assert_eq!(st, StatusCode::BAD_REQUEST, "no seat 3: {problem}");
    let (st, problem) = analysis(app, &id, "x").await;
    assert_eq!(st, StatusCode::BAD_REQUEST, "{problem}");
}

/// How many analyses the server answered, by how (`searched` or `kept`).
async fn answered(app: &TestApp, how: &str) -> u64 {
    let metrics = app.metrics().await;
    let line = format!("saboteur_analyses_total{{how=\"{how}\"}} ");
    metrics
        .lines()
        .find_map(|l| l.strip_prefix(&line))
        .map_or(0, |n| n.trim().parse().unwrap())
}

/// A finished game's analysis is searched once per seat and kept: asked again, and asked by two
/// at once, it is answered from memory, the same; HEAD is answered without the search.
async fn kept_once(app: &TestApp, id: &str, history: &History) {
    // The three seats were each searched once above.
    assert_eq!(answered(app, "searched").await, 3);
    let again = analysis(app, id, "1").await;
    assert_eq!(again.0, StatusCode::OK);
    assert_eq!(
        again.1,
        serde_json::to_value(analyse(history, Seat(1)).unwrap()).unwrap()
    );
    assert_eq!(answered(app, "searched").await, 3, "asked again: kept");
    assert!(answered(app, "kept").await >= 1);
    // Another game, asked with HEAD first: answered without searching, then by two at once.
    let (other, host) = game(app, 9, ["heuristic", "random", "random"]).await;
    assert_eq!(app.start(&other, Some(&host)).await.0, StatusCode::OK);
    let head = app
        .exchange(
            reqwest::Method::HEAD,
            &format!("/games/{other}/analysis?seat=0"),
            None,
            None,
            &[],
        )
        .await;
    assert_eq!(head.status, StatusCode::OK);
    assert_eq!(head.content_type, "application/json");
    assert_eq!(answered(app, "searched").await, 3, "HEAD searches nothing");
    let (a, b) = tokio::join!(analysis(app, &other, "0"), analysis(app, &other, "0"));
    assert_eq!((a.0, b.0), (StatusCode::OK, StatusCode::OK));
    assert_eq!(a.1, b.1, "one analysis for both");
    assert_eq!(
        answered(app, "searched").await,
        4,
        "two asking at once: searched once"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_analysis() {
    let dir = tempfile::tempdir().unwrap();
    let app = TestApp::spawn(sqlite_url(&dir, "analysis.db"), None).await;
    analysed(&app).await;
    drop(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_analysis() {
    let app = TestApp::spawn(postgres_url().await, None).await;
    analysed(&app).await;
}
