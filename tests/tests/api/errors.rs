//! Errors and retries across the endpoints: seats, start, commands, preconditions, idempotency,
//! a lost race between two server processes, paging and bad queries.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{Table, TestApp, sqlite_url};

/// A problem's body: the code given, and a detail that says something.
fn problem(v: &Value, code: &str) {
    assert_eq!(v["code"], code, "{v}");
    assert!(v["detail"].as_str().is_some_and(|d| !d.is_empty()));
}

/// Error cases: 400, 401, 403, 404, 409, 412, 422, idempotent retry; a rejected command
/// changes nothing.
async fn errors_and_retries(app: &TestApp, second: &TestApp) {
    let mut t = app.table("base", 3, 5).await;
    seats_and_the_start(app, &mut t).await;
    unknown_games_and_malformed_commands(app, &t).await;
    let (seat, version) = commands_refused_by_the_rules(app, &t).await;
    let first = a_stale_precondition_and_a_retry(app, &t, seat, version).await;
    a_lost_race(app, second, &t, &first).await;
    paging_and_bad_queries(app, &t).await;
}

/// A seat left before the start and taken by the next to join (its new token kept in `t`), a
/// full table, and the start refused to a player and to no token, allowed to the host.
async fn seats_and_the_start(app: &TestApp, t: &mut Table) {
    // Leaving before the start frees the seat; the next to join takes it.
    let (st, _) = app.leave(&t.id, 1, Some(&t.tokens[0])).await;
    assert_eq!(st, StatusCode::FORBIDDEN, "not one's own seat");
    let (st, _) = app.leave(&t.id, 1, Some(&t.tokens[1])).await;
    assert_eq!(st, StatusCode::NO_CONTENT);
    let (st, _) = app.legal_moves(&t.id, &t.tokens[1]).await;
    assert_eq!(
        st,
        StatusCode::UNAUTHORIZED,
        "the old token no longer works"
    );
    let (st, j) = app.join(&t.id, "again").await;
    assert_eq!((st, j["seat"].as_u64()), (StatusCode::CREATED, Some(1)));
    t.tokens[1] = j["player_token"].as_str().unwrap().to_string();
    // Joining a full table: 409, with the conflict's own code.
    let (st, v) = app.join(&t.id, "late").await;
    assert_eq!(st, StatusCode::CONFLICT);
    problem(&v, "seats_full");
    // A player cannot start the game: 403; without a token: 401.
    let (st, v) = app.start(&t.id, Some(&t.tokens[0])).await;
    assert_eq!(st, StatusCode::FORBIDDEN);
    problem(&v, "forbidden");
    let (st, _) = app.start(&t.id, None).await;
    assert_eq!(st, StatusCode::UNAUTHORIZED);
    let (st, _) = app.start(&t.id, Some(&t.host)).await;
    assert_eq!(st, StatusCode::OK);
}

/// An unknown game and malformed commands: 404 and 400, each a problem.
async fn unknown_games_and_malformed_commands(app: &TestApp, t: &Table) {
    // Unknown game: 404; malformed id path still answers problem+json.
    let r = app.get_raw("/games/nope/state", None).await;
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    assert_eq!(r.headers()["content-type"], "application/problem+json");
    // Malformed commands: 400 (unknown field, unknown card, not JSON).
    for bad in [
        json!({"type": "pass", "discard": [], "x": 1}),
        json!({"type": "play_path", "card": "nope", "at": {"x": 1, "y": 0}}),
    ] {
        let (st, v) = app.command(&t.id, &t.tokens[0], &bad).await;
        assert_eq!(st, StatusCode::BAD_REQUEST, "{bad}");
        problem(&v, "bad_request");
    }
}

/// Commands the rules refuse (another seat's turn, a bad discard) and the host's: nothing
/// changes. The awaited seat and the game's version.
async fn commands_refused_by_the_rules(app: &TestApp, t: &Table) -> (usize, i64) {
    let (_, before) = app.state(&t.id, Some(&t.tokens[0])).await;
    let version = before["version"].as_i64().unwrap();
    // Not your turn: 422 with the rule's code; nothing changes.
    let seat = before["view"]["phase"]["awaited"].as_u64().unwrap() as usize;
    let other = (seat + 1) % 3;
    let pass = json!({"type": "pass", "discard": []});
    let (st, v) = app.command(&t.id, &t.tokens[other], &pass).await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY);
    problem(&v, "not_your_turn");
    // A rule broken by the right player: invalid discard.
    let (st, v) = app.command(&t.id, &t.tokens[seat], &pass).await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY);
    problem(&v, "invalid_discard");
    // The host is not a player: 403.
    let (st, _) = app.command(&t.id, &t.host, &pass).await;
    assert_eq!(st, StatusCode::FORBIDDEN);
    let (_, after) = app.state(&t.id, Some(&t.tokens[0])).await;
    // The same view (its receipt is signed anew, at another time).
    assert_eq!(
        after["view"], before["view"],
        "rejected commands change nothing"
    );
    assert_eq!(
        after["receipt"]["view_hash"],
        before["receipt"]["view_hash"]
    );
    (seat, version)
}

/// The awaited `seat`'s move with a stale `If-Match` (412), then sent twice with one key at
/// `version`: the same outcome, appended once. The outcome.
async fn a_stale_precondition_and_a_retry(
    app: &TestApp,
    t: &Table,
    seat: usize,
    version: i64,
) -> Value {
    // Stale If-Match: 412.
    let (_, moves) = app.legal_moves(&t.id, &t.tokens[seat]).await;
    let cmd = moves["commands"][0].clone();
    let (st, v) = app
        .command_with(&t.id, &t.tokens[seat], &cmd, Some(1), None)
        .await;
    assert_eq!(st, StatusCode::PRECONDITION_FAILED);
    problem(&v, "precondition_failed");
    // Idempotent retry: the same outcome, nothing appended twice.
    let retry = || {
        app.command_with(
            &t.id,
            &t.tokens[seat],
            &cmd,
            Some(version),
            Some("retry-me"),
        )
    };
    let (st, first) = retry().await;
    assert_eq!(st, StatusCode::OK, "{first}");
    let (st, again) = retry().await;
    assert_eq!(st, StatusCode::OK, "{again}");
    // The same outcome, signed again: the same body hash, version and head.
    let unsigned = |mut v: Value| {
        let receipt = v.as_object_mut().unwrap().remove("receipt").unwrap();
        (v, receipt["view_hash"].clone(), receipt["head"].clone())
    };
    assert_eq!(unsigned(first.clone()), unsigned(again));
    let (_, now) = app.game(&t.id).await;
    assert_eq!(now["version"], first["version"]);
    first
}

/// A second server process on the same database, behind when the next move is made through
/// `app` (after the outcome `first`): its stale move is refused or not offered, and its next
/// read sees the winner's version.
async fn a_lost_race(app: &TestApp, second: &TestApp, t: &Table, first: &Value) {
    // A lost race: a second server process on the same database still holds the old version.
    let (_, stale) = second.state(&t.id, None).await;
    assert_eq!(stale["version"], first["version"]);
    let (_, v2) = app.state(&t.id, None).await;
    let next = v2["view"]["phase"]["awaited"].as_u64().unwrap() as usize;
    let (_, m) = app.legal_moves(&t.id, &t.tokens[next]).await;
    let (st, _) = app.command(&t.id, &t.tokens[next], &m["commands"][0]).await;
    assert_eq!(st, StatusCode::OK);
    let (_, m2) = second.legal_moves(&t.id, &t.tokens[next]).await;
    let (_, current) = app.game(&t.id).await;
    if m2["version"] == current["version"] {
        // The second process heard the append (PostgreSQL announces it to every process):
        // it serves the new version, and the move is no longer offered.
        assert!(m2["commands"].as_array().unwrap().is_empty(), "{m2}");
    } else {
        // It had not heard when it listed the moves (an SQLite file shared by two processes
        // is checked once a second). The stale move is refused either way: at the store
        // (409) if the process is still behind when the command arrives, or by the rules
        // (422, not this seat's turn) if the announcement reached it in between.
        let cmd = m2["commands"]
            .get(0)
            .expect("the stale server still offers the move");
        let (st, v) = second.command(&t.id, &t.tokens[next], cmd).await;
        match st {
            StatusCode::CONFLICT => problem(&v, "conflict"),
            StatusCode::UNPROCESSABLE_ENTITY => problem(&v, "not_your_turn"),
            other => panic!("the stale move was not refused: {other} {v}"),
        }
        let (_, after) = app.game(&t.id).await;
        assert_eq!(
            after["version"], current["version"],
            "the refused move changed nothing"
        );
    }
    // Either way the next request through the second process sees the winner's version.
    let (_, fresh) = second.state(&t.id, None).await;
    assert!(fresh["version"].as_i64() > stale["version"].as_i64());
}

/// Paging the events, and bad queries and creations refused.
async fn paging_and_bad_queries(app: &TestApp, t: &Table) {
    // Paging the events: Link rel=next.
    let r = app
        .get_raw(&format!("/games/{}/events?limit=1", t.id), None)
        .await;
    assert!(
        r.headers()["link"]
            .to_str()
            .unwrap()
            .contains("rel=\"next\"")
    );
    // Bad queries: 400.
    let (st, _) = app.list_games("limit=0").await;
    assert_eq!(st, StatusCode::BAD_REQUEST);
    let (st, _) = app.events(&t.id, "after=x", None).await;
    assert_eq!(st, StatusCode::BAD_REQUEST);
    // A fixed seed needs the testing flag (this server has it); a bad one is refused.
    let (st, _) = app
        .create_game(&json!({"ruleset": "base", "players": 3, "seed": "xyz"}))
        .await;
    assert_eq!(st, StatusCode::BAD_REQUEST);
    let (st, _) = app
        .create_game(&json!({"ruleset": "base", "players": 11}))
        .await;
    assert_eq!(st, StatusCode::BAD_REQUEST);
}

/// The contracts to the letter: a refusal to a token the game knows carries its receipt (a
/// host's token on a player's act, 403; an If-Match that lists no version, 400), an
/// Idempotency-Key is visible characters only and an Api-Version the spec's pattern only, each
/// refused as problem+json with nothing recorded.
async fn contracts_to_the_letter(app: &TestApp) {
    let t = app.table("base", 3, 6).await;
    assert_eq!(app.start(&t.id, Some(&t.host)).await.0, StatusCode::OK);
    let (_, state) = app.state(&t.id, Some(&t.tokens[0])).await;
    let version = state["version"].as_i64().unwrap();
    let seat = state["view"]["phase"]["awaited"].as_u64().unwrap() as usize;
    let (_, legal) = app.legal_moves(&t.id, &t.tokens[seat]).await;
    let command = &legal["commands"][0];
    let path = format!("/games/{}/commands", t.id);
    let post = |token: Option<String>, headers: Vec<(&'static str, String)>| {
        let (path, command) = (path.clone(), command.clone());
        async move {
            app.exchange(
                reqwest::Method::POST,
                &path,
                token.as_deref(),
                Some(&command),
                &headers,
            )
            .await
        }
    };
    // The host cannot play for a seat: 403, signed for the host (a spectator's audience).
    let host = post(Some(t.host.clone()), vec![]).await;
    assert_eq!(host.status, StatusCode::FORBIDDEN, "{:?}", host.body);
    assert_eq!(host.content_type, "application/problem+json");
    assert_eq!(host.body["receipt"]["kind"], "refusal", "{:?}", host.body);
    assert_eq!(host.body["receipt"]["audience"], "spectator");
    assert_eq!(host.body["receipt"]["version"], version);
    // An If-Match that lists no version: 400, signed for the seat; unsigned to nobody.
    let bad = vec![("If-Match", "twelve".to_string())];
    let mine = post(Some(t.tokens[seat].clone()), bad.clone()).await;
    assert_eq!(mine.status, StatusCode::BAD_REQUEST, "{:?}", mine.body);
    assert_eq!(mine.body["receipt"]["kind"], "refusal", "{:?}", mine.body);
    assert_eq!(mine.body["receipt"]["seat"], seat);
    let nobody = post(None, bad).await;
    assert_eq!(nobody.status, StatusCode::BAD_REQUEST, "{:?}", nobody.body);
    assert!(nobody.body.get("receipt").is_none(), "{:?}", nobody.body);
    // Idempotency-Keys of visible characters only; Api-Version of the spec's pattern only.
    for (name, value) in [
        ("Idempotency-Key", "with space"),
        ("Idempotency-Key", "with\ttab"),
        ("Api-Version", "0.14.0-rc.1"),
        ("Api-Version", "0.14.0+build"),
        ("Api-Version", "00.14.0"),
    ] {
        let refused = post(
            Some(t.tokens[seat].clone()),
            vec![(name, value.to_string())],
        )
        .await;
        assert_eq!(
            refused.status,
            StatusCode::BAD_REQUEST,
            "{name}: {value:?}: {:?}",
            refused.body
        );
        assert_eq!(
            refused.content_type, "application/problem+json",
            "{name}: {value:?}"
        );
        problem(&refused.body, "bad_request");
        assert!(
            refused.body["detail"].as_str().unwrap().contains(name),
            "{:?}",
            refused.body
        );
    }
    let (_, after) = app.state(&t.id, Some(&t.tokens[0])).await;
    assert_eq!(after["version"], version, "nothing refused was recorded");
    // The same command with a visible key and a version of the pattern is played.
    let played = post(
        Some(t.tokens[seat].clone()),
        vec![
            ("Idempotency-Key", "visible-1".into()),
            ("Api-Version", "0.14.0".into()),
        ],
    )
    .await;
    assert_eq!(played.status, StatusCode::OK, "{:?}", played.body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_contracts_to_the_letter() {
    let dir = tempfile::tempdir().unwrap();
    let app = TestApp::spawn(sqlite_url(&dir, "letter.db"), Some(dir)).await;
    contracts_to_the_letter(&app).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_contracts_to_the_letter() {
    let app = TestApp::spawn(crate::helpers::postgres_url().await, None).await;
    contracts_to_the_letter(&app).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_errors_and_retries() {
    let dir = tempfile::tempdir().unwrap();
    let url = sqlite_url(&dir, "e2e.db");
    let a = TestApp::spawn(url.clone(), None).await;
    let b = TestApp::spawn(url, Some(dir)).await;
    errors_and_retries(&a, &b).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_errors_and_retries() {
    let url = crate::helpers::postgres_url().await;
    let a = TestApp::spawn(url.clone(), None).await;
    let b = TestApp::spawn(url, None).await;
    errors_and_retries(&a, &b).await;
}
