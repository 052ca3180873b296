//! Where features meet, end to end on SQLite and PostgreSQL: receipts of clocked games, a
//! token issued again while its old holder follows the game live, table talk between a read and
//! a conditional command, and a command's retry once bots have answered it.

use reqwest::StatusCode;
use saboteur_api::TimeSource;
use serde_json::{Value, json};
use tempfile::TempDir;

use crate::helpers::{TestApp, pick, postgres_url, sqlite_url};
use crate::players::{
    Kept, Stream, T0, check_kept, events_after, kind, kinds, seat, signed_part, version,
};

// 1. Honest clocked games verify.

/// One player and bots play a clocked game to the end; every receipt the server served (the
/// start's, every command's, views for the player, a spectator and the host, replays) is
/// checked against the finished game's record by the library and by the server. What went
/// wrong, if anything did.
async fn clocked_game_receipts(
    app: &TestApp,
    time: &TimeSource,
    seed: u64,
    clock: Value,
) -> Option<String> {
    let options = json!({ "clock": clock });
    let g = seat(
        app,
        "base",
        seed,
        options,
        &[true, false, false, false],
        "heuristic",
    )
    .await;
    let (id, me) = (&g.id, g.token(0));
    let mut kept = Kept::default();
    let mut now = T0 + seed * 10_000_000;
    time.set(now);
    let (st, out) = app.start(id, Some(&g.host)).await;
    assert_eq!(st, StatusCode::OK, "{out}");
    assert!(
        kept.keep(&out),
        "the start's reply carries a receipt: {out}"
    );
    let mut over = false;
    for n in 0..1_000 {
        if n % 5 == 0 {
            for token in [Some(me), None, Some(g.host.as_str())] {
                let (st, view) = app.state(id, token).await;
                assert_eq!(st, StatusCode::OK, "{view}");
                assert!(kept.keep(&view), "a view carries a receipt: {view}");
            }
        }
        // The player takes a second and a half over each decision: well within the clock.
        now += 1_500;
        time.set(now);
        let (st, moves) = app.legal_moves(id, me).await;
        assert_eq!(st, StatusCode::OK, "{moves}");
        let commands = moves["commands"].as_array().unwrap();
        if commands.is_empty() {
            let (_, game) = app.game(id).await;
            assert_eq!(
                game["status"], "finished",
                "the bots answer within the command: only the player can be awaited"
            );
            over = true;
            break;
        }
        let (st, out) = app.command(id, me, &pick(commands, n)).await;
        assert_eq!(st, StatusCode::OK, "{out}");
        assert!(
            kept.keep(&out),
            "a command's reply carries a receipt: {out}"
        );
    }
    assert!(over, "the game did not end in 1000 decisions");
    let (_, end) = app.state(id, Some(me)).await;
    assert_eq!(end["view"]["phase"]["name"], "game_over");
    kept.keep(&end);
    let last = end["version"].as_i64().unwrap();
    for at in [2, last / 3, last / 2, last - 1] {
        let (st, view) = app.state_at(id, at).await;
        assert_eq!(st, StatusCode::OK, "{view}");
        kept.keep(&view);
    }
    let outcomes = kept
        .bodies
        .iter()
        .filter(|b| b["receipt"]["kind"] == "outcome")
        .count();
    assert!(
        outcomes > 10 && kept.len() > outcomes + 10,
        "{outcomes} outcomes"
    );
    // The record itself is honest: the bundle passes the audit.
    let bundle = crate::players::bundle(app, id).await;
    let verified = saboteur_verifier::audit::verify(&bundle);
    assert!(verified.is_ok(), "{verified:?}");
    let verdicts = check_kept(app, id, &kept).await;
    verdicts.failure(kept.len()).map(|wrong| {
        format!(
            "clock {clock}: {} receipts served in an honest game ({outcomes} of them replies) \
             do not verify against its record: {wrong}",
            kept.len()
        )
    })
}

/// Both kinds of clock, on one server whose time is manual.
async fn clocked_games_verify(database_url: String, keep: Option<TempDir>) {
    let time = TimeSource::manual(T0);
    let app = TestApp::spawn_at(database_url, keep, time.clone()).await;
    let per_decision = json!({ "kind": "per_decision", "seconds": 60 });
    let bank = json!({ "kind": "bank", "seconds": 300, "increment_seconds": 5 });
    let mut wrong = Vec::new();
    for (seed, clock) in [(1, per_decision), (2, bank)] {
        wrong.extend(clocked_game_receipts(&app, &time, seed, clock).await);
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[tokio::test]
async fn sqlite_clocked_game_receipts_verify() {
    let dir = tempfile::tempdir().unwrap();
    let url = sqlite_url(&dir, "clocked.db");
    clocked_games_verify(url, Some(dir)).await;
}

#[tokio::test]
async fn postgres_clocked_game_receipts_verify() {
    clocked_games_verify(postgres_url().await, None).await;
}

// 2. A reissued token stops streaming.

/// Seat 0 follows the game live; the host issues the seat a new token; the game goes on and
/// seat 0 draws cards. The old token's stream ends, having delivered nothing from the
/// reissue on, and the old token is refused everywhere while the new one works.
async fn reissued_token_stops_streaming(app: &TestApp) {
    let g = seat(app, "base", 23, json!({}), &[true, false, false], "random").await;
    let (id, old) = (&g.id, g.token(0));
    let (st, out) = app.start(id, Some(&g.host)).await;
    assert_eq!(st, StatusCode::OK, "{out}");
    let mut stream = Stream::open(app, id, old).await;
    let (_, moves) = app.legal_moves(id, old).await;
    let (st, out) = app.command(id, old, &moves["commands"][0]).await;
    assert_eq!(st, StatusCode::OK, "{out}");
    let before = version(app, id).await;
    let seen = stream.reach(before).await;
    assert!(
        seen.last() == before && !seen.ended,
        "the stream delivers the game live: {seen:?}, the game is at {before}"
    );

    let (st, fresh) = app.reissue_token(id, Some(&g.host), 0).await;
    assert_eq!(st, StatusCode::OK, "{fresh}");
    let new = fresh["player_token"].as_str().unwrap().to_string();
    let reissued = events_after(app, id, before, None)
        .await
        .iter()
        .find(|e| kind(e) == "token_reissued" && e["event"]["seat"] == 0)
        .and_then(|e| e["seq"].as_i64())
        .expect("the reissue is recorded");

    // The old token is refused wherever a token is read; the new one works.
    let command = moves["commands"][0].clone();
    let talk = json!({ "text": "is this still me?" });
    let refused = [
        ("state", app.state(id, Some(old)).await),
        ("legal moves", app.legal_moves(id, old).await),
        ("events", app.events(id, "after=0", Some(old)).await),
        ("a command", app.command(id, old, &command).await),
        ("talk", app.talk(id, Some(old), &talk).await),
    ];
    for (what, (st, p)) in refused {
        assert_eq!(
            (st, &p["code"]),
            (StatusCode::UNAUTHORIZED, &json!("unauthorized")),
            "{what} with the old token: {p}"
        );
    }
    let again = app.events_stream(id, Some(old), None).await;
    assert_eq!(again.status(), StatusCode::UNAUTHORIZED, "a new stream");
    assert_eq!(app.state(id, Some(&new)).await.0, StatusCode::OK);
    assert_eq!(
        app.events(id, "after=0", Some(&new)).await.0,
        StatusCode::OK
    );
    let (st, out) = app.talk(id, Some(&new), &talk).await;
    assert_eq!(st, StatusCode::OK, "{out}");
    // Seat 0 plays on with its new token (drawing a card each time), the bots answer.
    for n in 0..3 {
        let (st, moves) = app.legal_moves(id, &new).await;
        assert_eq!(st, StatusCode::OK, "{moves}");
        let (st, out) = app
            .command(id, &new, &pick(moves["commands"].as_array().unwrap(), n))
            .await;
        assert_eq!(st, StatusCode::OK, "{out}");
    }
    let later = events_after(app, id, reissued, Some(&new)).await;
    let drawn = later
        .iter()
        .filter(|e| kind(e) == "card_drawn" && e["event"]["seat"] == 0)
        .filter(|e| !e["event"]["card"].is_null())
        .count();
    assert!(drawn >= 3, "seat 0 drew its cards: {later:?}");
    let now = version(app, id).await;
    let mut current = Stream::open(app, id, &new).await;
    assert_eq!(
        current.reach(now).await.last(),
        now,
        "the new token streams"
    );

    let got = stream.end().await;
    let leaked: Vec<i64> = got
        .seqs
        .iter()
        .copied()
        .filter(|s| *s >= reissued)
        .collect();
    assert!(
        leaked.is_empty() && got.ended,
        "seat 0's token was reissued at event {reissued} (the game is now at {now}); the \
         stream opened with the old token {} and delivered events {leaked:?} after it",
        if got.ended {
            "ended".to_string()
        } else {
            format!("was still open after {:?}", crate::players::STREAM_BOUND)
        },
    );
}

#[tokio::test]
async fn sqlite_reissued_token_stops_streaming() {
    reissued_token_stops_streaming(&TestApp::sqlite().await).await;
}

#[tokio::test]
async fn postgres_reissued_token_stops_streaming() {
    reissued_token_stops_streaming(&TestApp::postgres().await).await;
}

// 3. Table talk does not break If-Match.

/// A player chooses at version v; then only talk (a player's, a spectator's, a message
/// hidden) and another seat's new token are recorded: `If-Match: "v"` still holds. Once
/// another seat's command is recorded after a read, it does not.
async fn talk_keeps_if_match(app: &TestApp) {
    let options = json!({ "spectator_talk": true });
    let g = seat(app, "base", 29, options, &[true, true, true], "random").await;
    let id = &g.id;
    let (st, out) = app.start(id, Some(&g.host)).await;
    assert_eq!(st, StatusCode::OK, "{out}");
    let (ada, bob) = (g.token(0), g.token(1));
    let (_, ada_moves) = app.legal_moves(id, ada).await;
    let v = ada_moves["version"].as_i64().unwrap();
    let ada_command = ada_moves["commands"][0].clone();
    assert!(ada_command.is_object(), "seat 0 starts: {ada_moves}");
    let (_, bob_read) = app.legal_moves(id, bob).await;
    assert_eq!(bob_read["version"], v);

    let (st, said) = app
        .talk(id, Some(bob), &json!({ "text": "dig east" }))
        .await;
    assert_eq!(st, StatusCode::OK, "{said}");
    let message = said["events"][0]["seq"].as_i64().unwrap();
    let body = json!({ "text": "go on", "name": "kibitzer" });
    let (st, out) = app.talk(id, None, &body).await;
    assert_eq!(st, StatusCode::OK, "{out}");
    let hide = format!("/games/{id}/talk/{message}/hide");
    let (st, out) = app.post_json(&hide, Some(&g.host), None).await;
    assert_eq!(st, StatusCode::OK, "{out}");
    let (st, out) = app.reissue_token(id, Some(&g.host), 2).await;
    assert_eq!(st, StatusCode::OK, "{out}");
    let between: Vec<String> = events_after(app, id, v, None)
        .await
        .iter()
        .map(|e| kind(e).to_string())
        .collect();
    assert_eq!(
        between,
        [
            "talk_posted",
            "talk_posted",
            "talk_hidden",
            "token_reissued"
        ]
    );
    let now = version(app, id).await;

    let (st, out) = app.command_with(id, ada, &ada_command, Some(v), None).await;
    assert_eq!(
        st,
        StatusCode::OK,
        "seat 0 chose at version {v}; since then only talk, a hidden message and a new token \
         for seat 2 were recorded (the game is at version {now}): If-Match \"{v}\" still holds, \
         yet the command got {out}"
    );

    // Seat 0's command was recorded after seat 1's read at v: that read is stale.
    let (_, bob_moves) = app.legal_moves(id, bob).await;
    let bob_command = bob_moves["commands"][0].clone();
    assert!(bob_command.is_object(), "seat 1's turn: {bob_moves}");
    let before = version(app, id).await;
    let (st, p) = app.command_with(id, bob, &bob_command, Some(v), None).await;
    assert_eq!(
        (st, &p["code"]),
        (
            StatusCode::PRECONDITION_FAILED,
            &json!("precondition_failed")
        ),
        "seat 0's command was recorded after version {v}: {p}"
    );
    assert_eq!(
        version(app, id).await,
        before,
        "a refused command changes nothing"
    );
    let fresh = bob_moves["version"].as_i64().unwrap();
    let (st, out) = app
        .command_with(id, bob, &bob_command, Some(fresh), None)
        .await;
    assert_eq!(st, StatusCode::OK, "chosen at the current version: {out}");
}

#[tokio::test]
async fn sqlite_talk_keeps_if_match() {
    talk_keeps_if_match(&TestApp::sqlite().await).await;
}

#[tokio::test]
async fn postgres_talk_keeps_if_match() {
    talk_keeps_if_match(&TestApp::postgres().await).await;
}

// 4. A retry is the first reply.

/// Fails unless `again` answers as `first` did.
fn same_reply(first: &(StatusCode, Value), again: &(StatusCode, Value), through: &str) {
    let same = again.0 == first.0
        && ["version", "events", "awaited"]
            .iter()
            .all(|f| again.1[f] == first.1[f])
        && signed_part(&again.1["receipt"]) == signed_part(&first.1["receipt"]);
    assert!(
        same,
        "a retry through {through} is not the first reply: first {} version {} with {} events \
         {:?} awaiting {}; the retry {} version {} with {} events {:?} awaiting {}\nfirst \
         receipt {}\nretry receipt {}",
        first.0,
        first.1["version"],
        kinds(&first.1).len(),
        kinds(&first.1),
        first.1["awaited"],
        again.0,
        again.1["version"],
        kinds(&again.1).len(),
        kinds(&again.1),
        again.1["awaited"],
        signed_part(&first.1["receipt"]),
        signed_part(&again.1["receipt"]),
    );
}

/// A player followed by bots sends commands with an `Idempotency-Key`; each is sent again
/// through the same server, a second server on the same database and a restarted one: every
/// retry is the first reply, bots' answers included. The game is then played to the end and
/// every reply, retries included, checked against its record.
async fn retry_is_first_reply(database_url: String) {
    let one = TestApp::spawn(database_url.clone(), None).await;
    let two = TestApp::spawn(database_url.clone(), None).await;
    let g = seat(
        &one,
        "base",
        31,
        json!({}),
        &[true, false, false, false],
        "heuristic",
    )
    .await;
    let (id, me) = (&g.id, g.token(0));
    let mut kept = Kept::default();
    let (st, out) = one.start(id, Some(&g.host)).await;
    assert_eq!(st, StatusCode::OK, "{out}");
    kept.keep(&out);
    let mut sent = Vec::new();
    for (n, (app, if_match)) in [(&one, false), (&two, true)].into_iter().enumerate() {
        let (_, moves) = app.legal_moves(id, me).await;
        let command = pick(moves["commands"].as_array().unwrap(), n);
        let key = format!("retry-{n}");
        let v = if_match.then(|| moves["version"].as_i64().unwrap());
        let first = app.command_with(id, me, &command, v, Some(&key)).await;
        assert_eq!(first.0, StatusCode::OK, "{}", first.1);
        kept.keep(&first.1);
        let bots = first.1["events"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| kind(e) == "command_accepted" && !e["event"]["bot"].is_null())
            .count();
        assert_eq!(bots, 3, "the bots answered within the command: {}", first.1);
        for (through, app) in [("the same server", &one), ("another server", &two)] {
            let again = app.command_with(id, me, &command, v, Some(&key)).await;
            kept.keep(&again.1);
            same_reply(&first, &again, through);
        }
        sent.push((command, key, v, first));
    }
    // A server started afresh on the same database knows nothing but the store.
    let three = TestApp::spawn(database_url, None).await;
    for (command, key, v, first) in &sent {
        let again = three.command_with(id, me, command, *v, Some(key)).await;
        kept.keep(&again.1);
        same_reply(first, &again, "a restarted server");
    }
    // To the end, then every receipt against the record.
    for n in 0..1_000 {
        let (_, moves) = three.legal_moves(id, me).await;
        let commands = moves["commands"].as_array().unwrap();
        if commands.is_empty() {
            break;
        }
        let (st, out) = three.command(id, me, &pick(commands, n)).await;
        assert_eq!(st, StatusCode::OK, "{out}");
        kept.keep(&out);
    }
    let (_, game) = three.game(id).await;
    assert_eq!(game["status"], "finished");
    let verdicts = check_kept(&three, id, &kept).await;
    if let Some(wrong) = verdicts.failure(kept.len()) {
        panic!("the replies of a game with retries do not verify: {wrong}");
    }
}

#[tokio::test]
async fn sqlite_retry_is_first_reply() {
    let dir = tempfile::tempdir().unwrap();
    retry_is_first_reply(sqlite_url(&dir, "retry.db")).await;
}

#[tokio::test]
async fn postgres_retry_is_first_reply() {
    retry_is_first_reply(postgres_url().await).await;
}
