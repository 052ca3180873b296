//! Bot seats: the host seats bots, the server plays their turns, undo takes their replies back,
//! the audit chooses every bot move again, and a game left waiting on a bot resumes.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{TestApp, assert_conforms, pick, seed_hex, sqlite_url};

/// Over: the game as read and as listed names its winners, as its final view does (a page of
/// games reads every finished game's winners at once), and the time its log last grew.
async fn listed_as_over(app: &TestApp, id: &str, me: Option<&str>) {
    let (_, v) = app.state(id, me).await;
    let winners = v["view"]["winners"].clone();
    assert!(winners.as_array().is_some_and(|w| !w.is_empty()), "{v}");
    let (_, summary) = app.game(id).await;
    assert_conforms("GameSummary", &summary);
    assert_eq!(summary["winners"], winners, "{summary}");
    let (st, page) = app.list_games("status=finished&limit=100").await;
    assert_eq!(st, StatusCode::OK, "{page}");
    assert_conforms("GameList", &page);
    let listed = page["games"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["id"] == id)
        .expect("the game is listed as finished");
    assert_eq!(listed["winners"], winners, "{listed}");
    // The time its log last grew: the game's last event, the same read from the game's table
    // (which wrote it) as from the store's row, and not before its creation.
    assert_eq!(
        listed["updated_at"], summary["updated_at"],
        "{listed} {summary}"
    );
    // (Both in UTC to the second, `…T…Z`: their text sorts as their times do.)
    let time = |field: &str| summary[field].as_str().unwrap_or_default().to_owned();
    assert!(time("updated_at").ends_with('Z') && time("created_at").ends_with('Z'));
    assert!(time("updated_at") >= time("created_at"), "{summary}");
}

/// One human and the rest bots: the host seats the bots, the server plays their turns as soon
/// as they come, and the human plays a whole game to the end; the bots' moves carry their
/// level, version and seed, and the audit chooses every one again.
async fn human_and_bots(app: &TestApp, ruleset: &str, players: u8, seed: u64) {
    let seed_hex = seed_hex(seed);
    let (id, host, token) = app
        .lobby(&json!({ "ruleset": ruleset, "players": players, "seed": seed_hex }))
        .await;
    let host = Some(host.as_str());
    let me = Some(token.as_str());
    // Only the host seats bots, at a known level.
    let heuristic = json!({ "level": "heuristic" });
    let (st, p) = app.add_bot(&id, me, &heuristic).await;
    assert_eq!((st, &p["status"]), (StatusCode::FORBIDDEN, &json!(403)));
    let (st, _) = app.add_bot(&id, None, &heuristic).await;
    assert_eq!(st, StatusCode::UNAUTHORIZED);
    let (st, p) = app.add_bot(&id, host, &json!({ "level": "genius" })).await;
    assert_eq!(st, StatusCode::BAD_REQUEST, "{p}");
    for seat in 1..players {
        let level = if seat % 2 == 1 { "heuristic" } else { "random" };
        let (st, b) = app.add_bot(&id, host, &json!({ "level": level })).await;
        assert_eq!(st, StatusCode::CREATED, "{b}");
        assert_eq!(
            (b["seat"].as_u64(), &b["level"]),
            (Some(u64::from(seat)), &json!(level))
        );
    }
    let (st, _) = app.add_bot(&id, host, &heuristic).await;
    assert_eq!(st, StatusCode::CONFLICT, "every seat is taken");
    // A player cannot unseat a bot; the host can, and seat another.
    let last = usize::from(players - 1);
    assert_eq!(app.leave(&id, last, me).await.0, StatusCode::FORBIDDEN);
    assert_eq!(app.leave(&id, last, host).await.0, StatusCode::NO_CONTENT);
    let named = json!({ "level": "heuristic", "name": "Digbot" });
    assert_eq!(app.add_bot(&id, host, &named).await.0, StatusCode::CREATED);
    let (_, summary) = app.game(&id).await;
    assert_conforms("GameSummary", &summary);
    let seats = summary["seats"].as_array().unwrap();
    assert_eq!(seats.len(), usize::from(players));
    assert!(seats[0].get("bot").is_none());
    assert_eq!(seats[usize::from(players) - 1]["name"], "Digbot");
    assert_eq!(seats[usize::from(players) - 1]["bot"], "heuristic");

    let (st, out) = app.start(&id, host).await;
    assert_eq!(st, StatusCode::OK, "{out}");
    let mut n = 0;
    let mut undone = false;
    loop {
        let (_, v) = app.state(&id, me).await;
        assert_conforms("StateView", &v);
        let view = &v["view"];
        if view["phase"]["name"] == "game_over" {
            break;
        }
        // The bots have played: only the human can be awaited.
        assert_eq!(view["phase"]["awaited"], 0, "{}", view["phase"]);
        let (_, moves) = app.legal_moves(&id, &token).await;
        let command = pick(moves["commands"].as_array().unwrap(), n);
        let (st, out) = app.command(&id, &token, &command).await;
        assert_eq!(st, StatusCode::OK, "{command} → {out}");
        assert_conforms("Outcome", &out);
        let events = out["events"].as_array().unwrap();
        // The reply holds the bots' moves after the human's, numbered on to the new version.
        let last_seq = events.last().unwrap()["seq"].as_i64().unwrap();
        assert_eq!(last_seq, out["version"].as_i64().unwrap());
        assert_eq!(
            last_seq,
            v["version"].as_i64().unwrap() + events.len() as i64
        );
        let bot_moves: Vec<&Value> = events
            .iter()
            .map(|e| &e["event"])
            .filter(|e| e["type"] == "command_accepted" && e["seat"] != 0)
            .collect();
        let over = events.iter().any(|e| e["event"]["type"] == "game_ended");
        // The reply says who plays next: the human, or nobody once it is over.
        assert_eq!(out["awaited"], if over { json!(null) } else { json!(0) });
        for e in &bot_moves {
            assert_eq!(e["bot"]["version"], saboteur_domain::BOT_VERSION);
            assert!(e["bot"]["level"] == "heuristic" || e["bot"]["level"] == "random");
            // Another seat's bot seed stays hidden while the game goes on.
            assert_eq!(e["bot"]["seed"].is_null(), !over, "{e}");
        }
        if !undone && n >= 3 && !bot_moves.is_empty() && !over {
            // Taking a command back takes the bots' replies with it: they vote at once.
            let (st, u) = app.undo(&id, &token).await;
            assert_conforms("Outcome", &u);
            let undo: Vec<&Value> = u["events"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| &e["event"])
                .collect();
            assert_eq!(undo[0]["type"], "undo_requested");
            if undo[0]["revealed"] == true {
                // docs/rules.md §12: the command showed its player something hidden (a draw,
                // a peek): knowledge cannot be taken back, so the bots decline at once: the
                // outcome is settled, nothing is pending.
                assert_eq!(st, StatusCode::OK, "{u}");
                assert_eq!(undo[1]["type"], "undo_declined", "{u}");
            } else {
                assert_eq!(st, StatusCode::OK, "{u}");
                let back = events[0]["seq"].as_i64().unwrap() - 1;
                let done = undo.iter().find(|e| e["type"] == "undone").expect("undone");
                assert_eq!(done["to_version"], back);
            }
            undone = true;
        }
        n += 1;
        assert!(n < 2000, "the game does not end");
    }
    assert!(undone, "an undo was tried");
    listed_as_over(app, &id, me).await;
    // A game under way names no winners.
    let (_, active) = app.list_games("status=active&limit=100").await;
    for g in active["games"].as_array().unwrap() {
        assert_eq!(g["winners"], json!(null), "{g}");
    }
    // Over: the bots' seeds are public, and the audit chooses every bot move again.
    let (st, bundle) = app.audit(&id).await;
    assert_eq!(st, StatusCode::OK);
    let bundle: saboteur_verifier::audit::AuditBundle = serde_json::from_value(bundle).unwrap();
    let bot_commands = bundle
        .events
        .iter()
        .filter(|e| e.event_type == "command_accepted" && e.payload["bot"].is_object())
        .count() as u64;
    assert!(bot_commands > 20);
    let report = saboteur_verifier::audit::verify(&bundle).expect("the bundle verifies");
    assert_eq!(report.bot_moves_checked, bot_commands);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_human_and_bots_play_a_whole_game() {
    let app = TestApp::sqlite().await;
    human_and_bots(&app, "base", 4, 41).await;
    human_and_bots(&app, "saboteur2", 5, 42).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_human_and_bots_play_a_whole_game() {
    let app = TestApp::postgres().await;
    human_and_bots(&app, "base", 4, 43).await;
    human_and_bots(&app, "saboteur2", 5, 44).await;
}

/// A seat taken by someone the host does not want (a stranger sniping seats) is freed by the
/// host before the start — its token stops working — and the host seats a bot there; a player
/// cannot free another's seat, and once the game started nobody can.
async fn the_host_frees_a_squatted_seat(app: &TestApp) {
    let (id, host, me) = app.lobby(&json!({ "ruleset": "base", "players": 3 })).await;
    let (st, squatter) = app.join(&id, "Squatter").await;
    assert_eq!(st, StatusCode::CREATED, "{squatter}");
    let seat = usize::try_from(squatter["seat"].as_u64().unwrap()).unwrap();
    let theirs = squatter["player_token"].as_str().unwrap().to_string();
    let (st, p) = app.leave(&id, seat, Some(&me)).await;
    assert_eq!(st, StatusCode::FORBIDDEN, "{p}");
    assert_eq!(
        app.leave(&id, seat, Some(&host)).await.0,
        StatusCode::NO_CONTENT
    );
    let (st, _) = app.leave(&id, seat, Some(&theirs)).await;
    assert_eq!(
        st,
        StatusCode::UNAUTHORIZED,
        "the squatter's token no longer works"
    );
    for _ in 0..2 {
        let (st, b) = app
            .add_bot(&id, Some(&host), &json!({ "level": "random" }))
            .await;
        assert_eq!(st, StatusCode::CREATED, "{b}");
    }
    let (_, summary) = app.game(&id).await;
    assert_eq!(summary["seats"][seat]["bot"], "random", "{summary}");
    let (st, out) = app.start(&id, Some(&host)).await;
    assert_eq!(st, StatusCode::OK, "{out}");
    let (st, p) = app.leave(&id, 0, Some(&host)).await;
    assert_eq!(st, StatusCode::CONFLICT, "not once started: {p}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_the_host_frees_a_squatted_seat() {
    the_host_frees_a_squatted_seat(&TestApp::sqlite().await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_the_host_frees_a_squatted_seat() {
    the_host_frees_a_squatted_seat(&TestApp::postgres().await).await;
}

/// The host cancels a lobby (recorded as `game_cancelled`, signed like any outcome): it leaves
/// the lobby list and every later act on it is 409 `cancelled`; nobody else may cancel it, and
/// a started game cannot be cancelled (409 `already_started`), nothing recorded.
async fn the_host_cancels_a_lobby(app: &TestApp) {
    let (id, host, me) = app.lobby(&json!({ "ruleset": "base", "players": 3 })).await;
    let (_, lobbies) = app.list_games("status=lobby").await;
    let listed = lobbies["games"].as_array().unwrap();
    assert!(listed.iter().any(|g| g["id"] == id.as_str()), "{lobbies}");
    let (st, p) = app.cancel(&id, Some(&me)).await;
    assert_eq!(st, StatusCode::FORBIDDEN, "a player does not cancel: {p}");
    let (st, p) = app.cancel(&id, None).await;
    assert_eq!(st, StatusCode::UNAUTHORIZED, "{p}");
    let (st, out) = app.cancel(&id, Some(&host)).await;
    assert_eq!(st, StatusCode::OK, "{out}");
    assert_eq!(out["events"][0]["event"]["type"], "game_cancelled", "{out}");
    assert_eq!(out["receipt"]["kind"], "outcome", "{out}");
    let (_, summary) = app.game(&id).await;
    assert_eq!(summary["status"], "cancelled", "{summary}");
    let (_, lobbies) = app.list_games("status=lobby").await;
    assert!(
        !lobbies["games"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["id"] == id.as_str()),
        "a cancelled game is no lobby: {lobbies}"
    );
    let (_, cancelled) = app.list_games("status=cancelled").await;
    let listed = cancelled["games"].as_array().unwrap();
    assert!(listed.iter().any(|g| g["id"] == id.as_str()), "{cancelled}");
    let (_, view) = app.state(&id, None).await;
    assert_eq!(view["view"]["phase"]["name"], "cancelled", "{view}");
    let version = view["version"].clone();
    for (what, (st, p)) in [
        ("cancel again", app.cancel(&id, Some(&host)).await),
        ("join", app.join(&id, "Late").await),
        ("start", app.start(&id, Some(&host)).await),
        (
            "a bot",
            app.add_bot(&id, Some(&host), &json!({ "level": "random" }))
                .await,
        ),
    ] {
        assert_eq!(
            (st, &p["code"]),
            (StatusCode::CONFLICT, &json!("cancelled")),
            "{what}: {p}"
        );
    }
    let (_, after) = app.state(&id, None).await;
    assert_eq!(
        after["version"], version,
        "nothing recorded after the cancel"
    );
    // A started game is not the host's to cancel.
    let (id, host, _) = app.lobby(&json!({ "ruleset": "base", "players": 3 })).await;
    for _ in 0..2 {
        app.add_bot(&id, Some(&host), &json!({ "level": "random" }))
            .await;
    }
    assert_eq!(app.start(&id, Some(&host)).await.0, StatusCode::OK);
    let (_, before) = app.state(&id, None).await;
    let (st, p) = app.cancel(&id, Some(&host)).await;
    assert_eq!(
        (st, &p["code"]),
        (StatusCode::CONFLICT, &json!("already_started")),
        "{p}"
    );
    let (_, after) = app.state(&id, None).await;
    assert_eq!(after["version"], before["version"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_the_host_cancels_a_lobby() {
    the_host_cancels_a_lobby(&TestApp::sqlite().await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_the_host_cancels_a_lobby() {
    the_host_cancels_a_lobby(&TestApp::postgres().await).await;
}

/// A game left waiting on a bot — its start recorded, but not the bot's move, as when a server
/// stops between two appends — goes on as soon as a server reads it again; a stale flag (no bot
/// due) is cleared by the sweep and nothing recorded.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_left_waiting_on_a_bot_resumes_when_read_again() {
    let dir = tempfile::tempdir().unwrap();
    let url = sqlite_url(&dir, "resume.db");
    let first = TestApp::spawn(url.clone(), None).await;
    let (id, host, token) = first
        .lobby(
            &json!({ "ruleset": "base", "players": 3, "first_player": 1, "seed": "ab".repeat(32) }),
        )
        .await;
    for _ in 0..2 {
        let level = json!({ "level": "heuristic" });
        let (st, _) = first.add_bot(&id, Some(&host), &level).await;
        assert_eq!(st, StatusCode::CREATED);
    }
    // The deal is recorded behind the servers' backs: seat 1, a bot, is to play.
    let store = saboteur_storage::EventStore::connect(&url).await.unwrap();
    let game = saboteur_storage::GameId::parse(&id).unwrap();
    let history = store.load_history(&game).await.unwrap();
    let record = store.get_game(&game).await.unwrap();
    let dealt = history.start().unwrap();
    store
        .append(saboteur_storage::Append {
            game_id: game.clone(),
            expected_version: saboteur_storage::Version::of(history.version()),
            prev_hash: Some(record.last_hash),
            events: dealt.iter().map(saboteur_storage::to_new_event).collect(),
            command_id: None,
            status: Some(saboteur_storage::GameStatus::Active),
            bot_awaited: true,
            deadline: None,
            token: None,
        })
        .await
        .unwrap();
    let started = (history.version() + dealt.len() as u64) as i64;
    // Another server process finds the game waiting on a bot (its sweep) and plays both bots
    // up to the human's turn.
    let second = TestApp::spawn(url, Some(dir)).await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let (st, v) = second.state(&id, Some(&token)).await;
        assert_eq!(st, StatusCode::OK, "{v}");
        if v["view"]["phase"]["awaited"] == 0 {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the bots never played: {}",
            v["view"]["phase"]
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let (_, page) = second.events(&id, &format!("after={started}"), None).await;
    let bots: Vec<&Value> = page["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| &e["event"])
        .filter(|e| e["type"] == "command_accepted")
        .collect();
    assert_eq!(bots.len(), 2, "seats 1 and 2 played: {page}");
    assert!(bots.iter().all(|e| e["bot"]["level"] == "heuristic"));
    // A flag that outlived its reason (the human's turn, yet marked as a bot's): the sweep finds
    // nothing due in the game as the store has it, records nothing, and clears the flag.
    let (_, before) = second.state(&id, Some(&token)).await;
    store
        .execute_raw(&format!(
            "UPDATE games SET bot_awaited = TRUE WHERE id = '{id}'"
        ))
        .await
        .unwrap();
    let due = |store: saboteur_storage::EventStore, id: String| async move {
        let now = i64::MAX / 2;
        let listed = store.games_due(now, 100).await.unwrap();
        listed.iter().any(|(g, _)| g.as_str() == id)
    };
    assert!(due(store.clone(), id.clone()).await, "the flag is set");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while due(store.clone(), id.clone()).await {
        assert!(
            std::time::Instant::now() < deadline,
            "the sweep never cleared a stale bot flag"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let (_, after) = second.state(&id, Some(&token)).await;
    assert_eq!(after["version"], before["version"], "nothing was recorded");
}
