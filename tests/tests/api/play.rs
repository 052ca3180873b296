//! Whole games played through the API: state, legal moves, commands, replays, and what each
//! seat may see.

use reqwest::StatusCode;

use crate::helpers::{Table, TestApp, assert_conforms, pick};

/// Nothing a seat may not know shows in its view or its events.
async fn check_no_leak(app: &TestApp, t: &Table) {
    for (seat, token) in t.tokens.iter().enumerate() {
        let (st, v) = app.state(&t.id, Some(token)).await;
        assert_eq!(st, StatusCode::OK);
        assert_conforms("StateView", &v);
        let view = &v["view"];
        if view["phase"]["name"] == "game_over" {
            continue;
        }
        assert_eq!(view["seat"], seat);
        assert!(view["hands"].is_null() && view["roles"].is_null() && view["seed"].is_null());
        let (_, page) = app.events(&t.id, "limit=1000", Some(token)).await;
        assert_conforms("EventPage", &page);
        for e in page["events"].as_array().unwrap() {
            let e = &e["event"];
            match e["type"].as_str().unwrap() {
                "round_started" => {
                    for (i, h) in e["hands"].as_array().unwrap().iter().enumerate() {
                        assert_eq!(h.is_array(), i == seat, "seat {seat} sees hand {i}: {h}");
                    }
                    assert!(e["goals"].is_null() && e["draw_pile"]["count"].is_number());
                }
                "card_drawn" | "map_used" | "gold_kept" if e["seat"] != seat => {
                    let secret = e.get("card").or(e.get("goal")).unwrap();
                    assert!(secret.is_null(), "seat {seat} sees another's secret: {e}");
                }
                "command_accepted" if e["seat"] != seat => assert!(e["command"].is_null()),
                "game_created" => assert!(e["seed"].is_null()),
                _ => {}
            }
        }
    }
}

/// Plays a whole game through the API only: every command chosen from the legal-moves
/// endpoint.
async fn play_whole_game(app: &TestApp, ruleset: &str, players: u8, seed: u64) {
    let t = app.table(ruleset, players, seed).await;
    let (st, out) = app.start(&t.id, Some(&t.host)).await;
    assert_eq!(st, StatusCode::OK, "{out}");
    // A past version never changes for its audience: immutable, per token while the game
    // runs; the current version is revalidated.
    let (cache, vary) = app.state_at_caching(&t.id, 1, Some(&t.tokens[0])).await;
    assert_eq!(cache, "private, max-age=31536000, immutable");
    assert_eq!(vary, "Authorization");
    let (_, now) = app.state(&t.id, None).await;
    let current = now["version"].as_i64().unwrap();
    let (cache, _) = app.state_at_caching(&t.id, current, None).await;
    assert_eq!(cache, "no-cache");
    // Whose eyes (`as`): while the game runs, a seat's are its player's alone, and nobody's
    // are everyone's.
    let path = |q: &str| format!("/games/{}/state?{q}", t.id);
    let (st, _) = app.get_json(&path("as=everyone"), Some(&t.tokens[0])).await;
    assert_eq!(st, StatusCode::FORBIDDEN);
    let (st, _) = app.get_json(&path("as=1"), None).await;
    assert_eq!(st, StatusCode::FORBIDDEN);
    let (st, _) = app.get_json(&path("as=1"), Some(&t.tokens[0])).await;
    assert_eq!(st, StatusCode::FORBIDDEN);
    let (st, mine) = app.get_json(&path("as=1"), Some(&t.tokens[1])).await;
    assert_eq!(st, StatusCode::OK, "{mine}");
    assert!(mine["view"]["hand"].is_array() && mine["view"]["seat"] == 1);
    let (st, public) = app
        .get_json(&path("as=spectator"), Some(&t.tokens[1]))
        .await;
    assert_eq!(st, StatusCode::OK, "{public}");
    assert!(public["view"]["hand"].is_null() && public["view"]["seat"].is_null());
    for bad in ["as=99", "as=me", "as=-1"] {
        let (st, p) = app.get_json(&path(bad), Some(&t.tokens[1])).await;
        assert_eq!(st, StatusCode::BAD_REQUEST, "{bad}: {p}");
    }
    let mut n = 0;
    loop {
        let (_, g) = app.state(&t.id, None).await;
        assert_conforms("StateView", &g);
        let view = &g["view"];
        if view["phase"]["name"] == "game_over" {
            break;
        }
        let seat = view["phase"]["awaited"]
            .as_u64()
            .expect("someone is awaited") as usize;
        let (st, moves) = app.legal_moves(&t.id, &t.tokens[seat]).await;
        assert_eq!(st, StatusCode::OK);
        assert_conforms("LegalMoves", &moves);
        let version = moves["version"].as_i64().unwrap();
        let list = moves["commands"].as_array().unwrap();
        assert!(!list.is_empty());
        let command = pick(list, n);
        let key = format!("cmd-{n}");
        let (st, out) = app
            .command_with(&t.id, &t.tokens[seat], &command, Some(version), Some(&key))
            .await;
        assert_eq!(st, StatusCode::OK, "{command} → {out}");
        assert_conforms("Outcome", &out);
        assert!(out["version"].as_i64().unwrap() > version);
        if n.is_multiple_of(25) {
            check_no_leak(app, &t).await;
        }
        n += 1;
        assert!(n < 3000, "the game does not end");
    }
    // Over: everything public, the seed revealed and matching its commitment.
    let (_, g) = app.game(&t.id).await;
    assert_eq!(g["status"], "finished");
    assert_conforms("GameSummary", &g);
    let seed = g["seed"].as_str().expect("the seed is revealed");
    assert_eq!(seed.len(), 64);
    let (_, v) = app.state(&t.id, None).await;
    assert_conforms("StateView", &v);
    assert!(v["view"]["roles"].is_array() && v["view"]["gold"].is_array());
    assert_eq!(v["view"]["rounds"].as_array().unwrap().len(), 3);
    // Replay: any earlier version.
    let (st, early) = app.state_at(&t.id, 2).await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(early["view"]["round"], 1);
    // Once over, anyone sees any moment through anyone's eyes: a seat's hand then, or all.
    let (st, seat1) = app.get_json(&path("at=2&as=1"), None).await;
    assert_eq!(st, StatusCode::OK, "{seat1}");
    assert_eq!(seat1["view"]["seat"], 1);
    assert!(seat1["view"]["hand"].is_array() && seat1["view"]["hands"].is_null());
    let (st, all) = app.get_json(&path("at=2&as=everyone"), None).await;
    assert_eq!(st, StatusCode::OK, "{all}");
    assert_eq!(
        all["view"]["hands"].as_array().map(Vec::len),
        Some(usize::from(players))
    );
    assert_eq!(all["view"]["hands"][1], seat1["view"]["hand"]);
    // The receipt of a view through a seat's eyes checks against the record.
    let (st, verdict) = app
        .audit_receipts(
            &t.id,
            &serde_json::json!([seat1["receipt"], all["receipt"]]),
        )
        .await;
    assert_eq!(
        (st, &verdict["ok"]),
        (StatusCode::OK, &serde_json::json!(true)),
        "{verdict}"
    );
    // Once over, every audience sees everything: a past version is the same for all.
    let (cache, _) = app.state_at_caching(&t.id, 2, None).await;
    assert_eq!(cache, "public, max-age=31536000, immutable");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_whole_base_game() {
    let app = TestApp::sqlite().await;
    play_whole_game(&app, "base", 4, 11).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_whole_saboteur2_game() {
    let app = TestApp::sqlite().await;
    play_whole_game(&app, "saboteur2", 5, 12).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_whole_base_game() {
    let app = TestApp::postgres().await;
    play_whole_game(&app, "base", 5, 21).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_whole_saboteur2_game() {
    let app = TestApp::postgres().await;
    play_whole_game(&app, "saboteur2", 7, 22).await;
}
