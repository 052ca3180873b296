//! Playing online, end to end on SQLite and PostgreSQL: table talk (rate limit, hiding), lost
//! tokens, seats handed to bots and taken back, presence, and turn clocks driven by a manual
//! clock — a timeout recorded once when two processes see it, and after a restart.

mod talk;

use std::time::{Duration, Instant};

use reqwest::StatusCode;
use saboteur_api::TimeSource;
use serde_json::{Value, json};

use crate::helpers::{Table, TestApp, assert_conforms, postgres_url, seed_hex, sqlite_url};

/// Noon, 23 November 2026, in milliseconds since the Unix epoch.
const T0: u64 = 1_795_435_200_000;

/// Creates a game with `options`, seats `players` players and starts it.
async fn started(app: &TestApp, players: u8, seed: u64, options: Value) -> Table {
    let (st, g) = app
        .create_game(&json!({
            "ruleset": "base", "players": players, "seed": seed_hex(seed), "options": options
        }))
        .await;
    assert_eq!(st, StatusCode::CREATED, "{g}");
    let id = g["game_id"].as_str().unwrap().to_string();
    let mut tokens = Vec::new();
    for i in 0..players {
        let (st, j) = app.join(&id, &format!("p{i}")).await;
        assert_eq!(st, StatusCode::CREATED, "{j}");
        tokens.push(j["player_token"].as_str().unwrap().to_string());
    }
    let host = g["host_token"].as_str().unwrap().to_string();
    let (st, v) = app.start(&id, Some(&host)).await;
    assert_eq!(st, StatusCode::OK, "{v}");
    Table { id, host, tokens }
}

/// Every event of a game as `token` sees it.
async fn log(app: &TestApp, id: &str, token: Option<&str>) -> Vec<Value> {
    let (st, page) = app.events(id, "limit=1000", token).await;
    assert_eq!(st, StatusCode::OK, "{page}");
    page["events"].as_array().unwrap().clone()
}

fn of_type<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events
        .iter()
        .filter(|e| e["event"]["type"] == kind)
        .collect()
}

async fn talk_tokens_seats_and_presence(app: &TestApp) {
    let t = started(app, 3, 11, json!({})).await;
    let seq = talk::a_message_posted(app, &t).await;
    talk::messages_refused(app, &t).await;
    talk::the_rate_limit(app, &t).await;
    talk::the_host_hides_a_message(app, &t, seq).await;
    let new = a_lost_token(app, &t).await;
    a_seat_handed_to_a_bot_and_taken_back(app, &t, &new).await;
    presence(app, &t).await;
}

/// Seat 2's token reissued by the host, the old one refused from then on; the new one.
async fn a_lost_token(app: &TestApp, t: &Table) -> String {
    let id = &t.id;
    // A lost token: the host issues a new one; the old one stops working; the log says only
    // that it happened.
    let (st, fresh) = app
        .post_json(&format!("/games/{id}/seats/2/token"), Some(&t.host), None)
        .await;
    assert_eq!(st, StatusCode::OK, "{fresh}");
    let new = fresh["player_token"].as_str().unwrap();
    assert_ne!(new, t.tokens[2]);
    let (st, _) = app.legal_moves(id, &t.tokens[2]).await;
    assert_eq!(st, StatusCode::UNAUTHORIZED);
    let (st, _) = app.legal_moves(id, new).await;
    assert_eq!(st, StatusCode::OK);
    let seen = log(app, id, None).await;
    let issued = of_type(&seen, "token_reissued");
    assert_eq!(issued.len(), 1);
    assert!(!issued[0].to_string().contains(new));
    let (st, _) = app
        .post_json(
            &format!("/games/{id}/seats/2/token"),
            Some(&t.tokens[0]),
            None,
        )
        .await;
    assert_eq!(st, StatusCode::FORBIDDEN);
    let (st, _) = app
        .post_json(&format!("/games/{id}/seats/9/token"), Some(&t.host), None)
        .await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    new.to_string()
}

/// The awaited seat handed to a bot by the host and reclaimed by its player (`new` is seat 2's
/// token).
async fn a_seat_handed_to_a_bot_and_taken_back(app: &TestApp, t: &Table, new: &str) {
    let id = &t.id;
    // The host hands the awaited seat to a bot: it plays at once; its player takes it back.
    let (_, state) = app.state(id, None).await;
    let awaited = state["view"]["phase"]["awaited"].as_u64().unwrap() as usize;
    let token = |s: usize| {
        if s == 2 {
            new.to_string()
        } else {
            t.tokens[s].clone()
        }
    };
    let handover = format!("/games/{id}/seats/{awaited}/handover");
    let (st, _) = app
        .post_json(&handover, Some(&token(awaited)), Some(&json!({})))
        .await;
    assert_eq!(st, StatusCode::FORBIDDEN, "only the host");
    let (st, out) = app
        .post_json(
            &handover,
            Some(&t.host),
            Some(&json!({ "level": "random" })),
        )
        .await;
    assert_eq!(st, StatusCode::OK, "{out}");
    let kinds: Vec<&Value> = out["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| &e["event"]["type"])
        .collect();
    assert_eq!(kinds[0], "seat_handed_to_bot");
    assert!(
        kinds.contains(&&json!("command_accepted")),
        "the bot played: {kinds:?}"
    );
    let (_, state) = app.state(id, None).await;
    assert_eq!(state["table"]["seats"][awaited]["handed_to"], "random");
    let (st, _) = app
        .post_json(&handover, Some(&t.host), Some(&json!({})))
        .await;
    assert_eq!(st, StatusCode::CONFLICT, "a bot plays it already");
    let reclaim = format!("/games/{id}/seats/{awaited}/reclaim");
    let other = (awaited + 1) % 3;
    let (st, _) = app.post_json(&reclaim, Some(&token(other)), None).await;
    assert_eq!(st, StatusCode::FORBIDDEN, "not their seat");
    let (st, out) = app.post_json(&reclaim, Some(&token(awaited)), None).await;
    assert_eq!(st, StatusCode::OK, "{out}");
    assert_eq!(out["events"][0]["event"]["type"], "seat_reclaimed");
    let (st, _) = app.post_json(&reclaim, Some(&token(awaited)), None).await;
    assert_eq!(st, StatusCode::CONFLICT, "taken back once");
}

/// Presence as a seat's stream and a spectator's open and close.
async fn presence(app: &TestApp, t: &Table) {
    let id = &t.id;
    // Presence: a seat with an open event stream is connected; it is not once closed.
    let presence = format!("/games/{id}/presence");
    let (st, p) = app.get_json(&presence, None).await;
    assert_eq!(st, StatusCode::OK, "{p}");
    assert_eq!(p["seats"][0]["connected"], false);
    let stream = app.events_stream(id, Some(&t.tokens[0]), None).await;
    assert_eq!(stream.status(), StatusCode::OK);
    let spectator = app.events_stream(id, None, None).await;
    let (_, p) = app.get_json(&presence, None).await;
    assert_eq!(p["seats"][0]["connected"], true, "{p}");
    assert_eq!(p["seats"][1]["connected"], false, "{p}");
    assert_eq!(p["spectators"], 1, "{p}");
    drop(stream);
    drop(spectator);
    // The server notices at its next writes (a keep-alive every 5 s): wait for it.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (_, p) = app.get_json(&presence, None).await;
        if p["seats"][0]["connected"] == false && p["spectators"] == 0 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "a closed stream still counts: {p}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn sqlite_talk_tokens_seats_and_presence() {
    talk_tokens_seats_and_presence(&TestApp::sqlite().await).await;
}

#[tokio::test]
async fn postgres_talk_tokens_seats_and_presence() {
    talk_tokens_seats_and_presence(&TestApp::postgres().await).await;
}

/// The deadline the state shows: (seat, at).
async fn deadline(app: &TestApp, id: &str) -> (u64, u64) {
    let (st, state) = app.state(id, None).await;
    assert_eq!(st, StatusCode::OK, "{state}");
    assert_conforms("StateView", &state);
    let d = &state["table"]["deadline"];
    (d["seat"].as_u64().unwrap(), d["at"].as_u64().unwrap())
}

/// Waits (polling, at most 15 s) until the game's log holds `n` timeouts.
async fn timeouts_reach(app: &TestApp, id: &str, n: usize) -> Vec<Value> {
    let until = Instant::now() + Duration::from_secs(15);
    loop {
        let seen = log(app, id, None).await;
        let found: Vec<Value> = of_type(&seen, "turn_timed_out")
            .into_iter()
            .cloned()
            .collect();
        if found.len() >= n {
            return found;
        }
        assert!(Instant::now() < until, "{} timeouts, not {n}", found.len());
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Turn clocks: a deadline passes, the bot decides; two processes record one timeout; a
/// deadline that passes while the server is down is recorded when it is back; a seat that
/// times out twice in a row is handed to the bot until its player takes it back.
async fn clocks(database_url: String, keep: Option<tempfile::TempDir>) {
    let time = TimeSource::manual(T0);
    let app = TestApp::spawn_at(database_url.clone(), None, time.clone()).await;
    let second = TestApp::spawn_at(database_url.clone(), None, time.clone()).await;
    let options = json!({ "clock": { "kind": "per_decision", "seconds": 30 }, "abandon_after": 2 });
    let t = started(&app, 3, 21, options).await;
    let id = &t.id;
    let (first, at) = deadline(&app, id).await;
    assert_eq!(at, T0 + 30_000);
    let (_, state) = app.state(id, None).await;
    assert_eq!(
        state["table"]["clock"],
        json!({ "kind": "per_decision", "seconds": 30 })
    );
    assert_eq!(state["table"]["seats"][0]["remaining_ms"], 30_000);
    // In time, a player's decision is theirs; the clock starts again for the next seat.
    time.set(T0 + 5_000);
    app.play_one(&t).await;
    let (next, at) = deadline(&app, id).await;
    assert_eq!((next, at), ((first + 1) % 3, T0 + 35_000));
    // The deadline passes: the next request through either process records the timeout and
    // the heuristic bot's decision; both processes asked at once record it once.
    time.set(T0 + 36_000);
    let (a, b) = tokio::join!(app.state(id, None), second.state(id, None));
    assert_eq!((a.0, b.0), (StatusCode::OK, StatusCode::OK));
    let seen = log(&app, id, None).await;
    let timeouts = of_type(&seen, "turn_timed_out");
    assert_eq!(timeouts.len(), 1, "{timeouts:?}");
    let out = timeouts[0];
    assert_eq!(out["event"]["seat"], next);
    assert_eq!(out["event"]["deadline"], T0 + 35_000);
    assert_eq!(out["event"]["at"], T0 + 36_000);
    let decided = seen
        .iter()
        .find(|e| e["seq"] == out["seq"].as_u64().unwrap() + 1)
        .unwrap();
    assert_eq!(decided["event"]["type"], "command_accepted");
    assert_eq!(decided["event"]["bot"]["level"], "heuristic");
    assert_eq!(decided["event"]["at"], T0 + 36_000);
    // A player's command after the deadline is not theirs: the clock decided.
    let (late, late_at) = deadline(&app, id).await;
    time.set(late_at + 1);
    let (_, moves) = second.legal_moves(id, &t.tokens[late as usize]).await;
    let (st, v) = app
        .command(id, &t.tokens[late as usize], &moves["commands"][0])
        .await;
    assert_ne!(st, StatusCode::OK, "a late command is refused: {v}");
    let seen = timeouts_reach(&app, id, 2).await;
    assert_eq!(seen[1]["event"]["seat"], late);

    // The server goes down; a deadline passes meanwhile; it comes back (a new process with
    // its own clock): its sweep records the timeout without being asked about the game.
    let (down_seat, down_at) = deadline(&app, id).await;
    let later = TimeSource::manual(down_at + 10_000);
    time.set(down_at - 1); // the old processes' clocks stop before the deadline
    let url = database_url.clone();
    let restarted = TestApp::spawn_at(database_url, keep, later.clone()).await;
    let seen = timeouts_reach(&restarted, id, 3).await;
    assert_eq!(seen[2]["event"]["seat"], down_seat);
    assert_eq!(seen[2]["event"]["at"], down_at + 10_000);
    let seen = log(&restarted, id, None).await;
    let handed = of_type(&seen, "seat_handed_to_bot");
    // Two timeouts in a row by the same seat hand it to the bot.
    let times: Vec<u64> = of_type(&seen, "turn_timed_out")
        .iter()
        .map(|e| e["event"]["seat"].as_u64().unwrap())
        .collect();
    if let Some(h) = handed.first() {
        assert_eq!(h["event"]["reason"], "abandoned");
        let seat = h["event"]["seat"].as_u64().unwrap() as usize;
        assert_eq!(
            times.iter().filter(|s| **s as usize == seat).count(),
            2,
            "{times:?}"
        );
        let (st, out) = restarted
            .post_json(
                &format!("/games/{id}/seats/{seat}/reclaim"),
                Some(&t.tokens[seat]),
                None,
            )
            .await;
        assert_eq!(st, StatusCode::OK, "{out}");
    }
    // The log as recorded passes the audit: every timeout against the recorded times, every
    // bot decision chosen again.
    let store = saboteur_storage::EventStore::connect(&url).await.unwrap();
    let game = saboteur_storage::GameId::parse(id).unwrap();
    let history = store.load_history(&game).await.unwrap();
    let report = saboteur_domain::audit(history.log()).unwrap();
    assert_eq!(report.timeouts_checked, 3);
}

#[tokio::test]
async fn sqlite_turn_clocks() {
    let dir = tempfile::tempdir().unwrap();
    let url = sqlite_url(&dir, "clocks.db");
    clocks(url, Some(dir)).await;
}

#[tokio::test]
async fn postgres_turn_clocks() {
    clocks(postgres_url().await, None).await;
}

/// Abandonment without waiting for a restart: the same seat times out twice in a row and is
/// handed to the bot, which then plays it at once.
async fn abandoned(app: &TestApp, time: &TimeSource) {
    let options = json!({ "clock": { "kind": "bank", "seconds": 60, "increment_seconds": 5 }, "abandon_after": 2 });
    let t = started(app, 3, 31, options).await;
    let id = &t.id;
    let (absent, at) = deadline(app, id).await;
    assert_eq!(at, T0 + 60_000);
    let mut now = T0;
    for _ in 0..40 {
        let (seat, at) = deadline(app, id).await;
        if seat == absent {
            now = at;
            time.set(now);
            let (_, state) = app.state(id, None).await;
            if state["table"]["seats"][absent as usize]["handed_to"] == "heuristic" {
                break;
            }
        } else {
            now += 1_000;
            time.set(now);
            let (_, moves) = app.legal_moves(id, &t.tokens[seat as usize]).await;
            let (st, v) = app
                .command(id, &t.tokens[seat as usize], &moves["commands"][0])
                .await;
            assert_eq!(st, StatusCode::OK, "{v}");
        }
    }
    let seen = log(app, id, None).await;
    let handed = of_type(&seen, "seat_handed_to_bot");
    assert_eq!(handed.len(), 1, "{handed:?}");
    assert_eq!(handed[0]["event"]["seat"], absent);
    assert_eq!(of_type(&seen, "turn_timed_out").len(), 2);
    // The bank: the absent seat's is empty but for its increment.
    let (_, state) = app.state(id, None).await;
    assert_eq!(state["table"]["seats"][absent as usize]["timeouts"], 2);
}

#[tokio::test]
async fn sqlite_abandoned_seat() {
    let time = TimeSource::manual(T0);
    let dir = tempfile::tempdir().unwrap();
    let url = sqlite_url(&dir, "abandoned.db");
    abandoned(
        &TestApp::spawn_at(url, Some(dir), time.clone()).await,
        &time,
    )
    .await;
}

#[tokio::test]
async fn postgres_abandoned_seat() {
    let time = TimeSource::manual(T0);
    abandoned(
        &TestApp::spawn_at(postgres_url().await, None, time.clone()).await,
        &time,
    )
    .await;
}

/// A rematch: the same seats and bots; each player claims their seat with their old token and
/// gets a new one; the games link both ways and the series adds up the gold.
async fn rematch(app: &TestApp) {
    let (st, g) = app
        .create_game(&json!({ "ruleset": "base", "players": 3, "seed": seed_hex(41) }))
        .await;
    assert_eq!(st, StatusCode::CREATED, "{g}");
    let id = g["game_id"].as_str().unwrap().to_string();
    let host = g["host_token"].as_str().unwrap().to_string();
    let (_, ada) = app.join(&id, "Ada").await;
    let ada = ada["player_token"].as_str().unwrap().to_string();
    for _ in 0..2 {
        let (st, v) = app
            .add_bot(&id, Some(&host), &json!({ "level": "random" }))
            .await;
        assert_eq!(st, StatusCode::CREATED, "{v}");
    }
    let (st, _) = app.start(&id, Some(&host)).await;
    assert_eq!(st, StatusCode::OK);
    // Not over yet: no rematch.
    let path = format!("/games/{id}/rematch");
    let (st, v) = app.post_json(&path, Some(&host), None).await;
    assert_eq!(st, StatusCode::CONFLICT, "{v}");
    // Ada plays until the end (the bots answer at once).
    for _ in 0..2_000 {
        let (_, moves) = app.legal_moves(&id, &ada).await;
        let Some(command) = moves["commands"].get(0).cloned() else {
            let (_, game) = app.game(&id).await;
            if game["status"] == "finished" {
                break;
            }
            continue;
        };
        let (st, v) = app.command(&id, &ada, &command).await;
        assert_eq!(st, StatusCode::OK, "{v}");
    }
    let (_, old) = app.game(&id).await;
    assert_eq!(old["status"], "finished");
    let (st, v) = app.post_json(&path, Some(&ada), None).await;
    assert_eq!(st, StatusCode::FORBIDDEN, "{v}");
    let (st, next) = app.post_json(&path, Some(&host), None).await;
    assert_eq!(st, StatusCode::CREATED, "{next}");
    let (st, _) = app.post_json(&path, Some(&host), None).await;
    assert_eq!(st, StatusCode::CONFLICT, "one rematch per game");
    let new_id = next["game_id"].as_str().unwrap().to_string();
    let new_host = next["host_token"].as_str().unwrap().to_string();
    // The same seats: the bots are seated, Ada's seat waits for her.
    let (_, game) = app.game(&new_id).await;
    assert_conforms("GameSummary", &game);
    assert_eq!(game["previous"], id.as_str());
    assert_eq!(game["seats"][0]["name"], "Ada");
    assert_eq!(game["seats"][0]["reserved"], true);
    assert_eq!(game["seats"][1]["bot"], "random");
    let (st, _) = app.start(&new_id, Some(&new_host)).await;
    assert_eq!(st, StatusCode::CONFLICT, "Ada has not claimed her seat");
    // Her old token is not a token of the new game, and claims only her own seat.
    let (st, _) = app.legal_moves(&new_id, &ada).await;
    assert_eq!(st, StatusCode::UNAUTHORIZED);
    let claim = |seat: u8| format!("/games/{new_id}/seats/{seat}/claim");
    let (st, _) = app.post_json(&claim(0), Some(&host), None).await;
    assert_eq!(st, StatusCode::FORBIDDEN);
    let (st, _) = app.post_json(&claim(0), None, None).await;
    assert_eq!(st, StatusCode::UNAUTHORIZED);
    let (st, _) = app.post_json(&claim(1), Some(&ada), None).await;
    assert_eq!(st, StatusCode::FORBIDDEN, "a bot's seat");
    let (st, seat) = app.post_json(&claim(0), Some(&ada), None).await;
    assert_eq!(st, StatusCode::CREATED, "{seat}");
    let fresh = seat["player_token"].as_str().unwrap();
    assert_ne!(fresh, ada);
    let (st, _) = app.post_json(&claim(0), Some(&ada), None).await;
    assert_eq!(st, StatusCode::NOT_FOUND, "claimed once");
    let (st, v) = app.start(&new_id, Some(&new_host)).await;
    assert_eq!(st, StatusCode::OK, "{v}");
    let (st, _) = app.legal_moves(&new_id, fresh).await;
    assert_eq!(st, StatusCode::OK);
    // The series, from either game: both games, the first one's gold as the running total.
    for from in [&id, &new_id] {
        let (st, s) = app.get_json(&format!("/games/{from}/series"), None).await;
        assert_eq!(st, StatusCode::OK, "{s}");
        let games: Vec<&str> = s["games"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["id"].as_str().unwrap())
            .collect();
        assert_eq!(games, vec![id.as_str(), new_id.as_str()]);
        assert_eq!(s["games"][1]["gold"], Value::Null);
        assert_eq!(s["totals"], s["games"][0]["gold"]);
    }
}

#[tokio::test]
async fn sqlite_rematch() {
    rematch(&TestApp::sqlite().await).await;
}

#[tokio::test]
async fn postgres_rematch() {
    rematch(&TestApp::postgres().await).await;
}
