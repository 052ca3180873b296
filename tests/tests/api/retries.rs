//! Retries of the acts that make a game (a creation, a rematch), of commands and of every other
//! act a player can retry (a message, an undo request, a vote, a seat taken back), with an
//! `Idempotency-Key`: a retry by the same caller answers the first reply exactly, tokens
//! included, marked `Idempotency-Replayed: true`, through another server process; nobody else
//! gets it; the key sent with another body is 422.

use std::time::{Duration, Instant};

use reqwest::{Client, Response, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{TestApp, pick, postgres_url, seed_hex, sqlite_url};
use crate::players::{seat, version};

/// A `POST` with a JSON body (or none), a bearer token and an `Idempotency-Key`, from `client`.
async fn post(
    client: &Client,
    app: &TestApp,
    path: &str,
    (token, key): (Option<&str>, Option<&str>),
    body: Option<&Value>,
) -> Response {
    let mut rb = client.post(format!("{}{path}", app.base));
    if let Some(t) = token {
        rb = rb.bearer_auth(t);
    }
    if let Some(k) = key {
        rb = rb.header("Idempotency-Key", k);
    }
    if let Some(b) = body {
        rb = rb.json(b);
    }
    rb.send().await.unwrap()
}

/// A response's status, whether it is marked replayed, its `Location` and its JSON body.
async fn read(r: Response) -> (StatusCode, bool, String, Value) {
    let status = r.status();
    let replayed = match r.headers().get("idempotency-replayed") {
        Some(v) => {
            assert_eq!(v, "true");
            true
        }
        None => false,
    };
    let location = r
        .headers()
        .get("location")
        .map(|l| l.to_str().unwrap().to_string())
        .unwrap_or_default();
    (
        status,
        replayed,
        location,
        r.json().await.unwrap_or(Value::Null),
    )
}

/// How many games nobody started are listed.
async fn lobbies(app: &TestApp) -> usize {
    let (st, page) = app.list_games("status=lobby&limit=100").await;
    assert_eq!(st, StatusCode::OK, "{page}");
    page["games"].as_array().unwrap().len()
}

/// A creation sent again with its key, through another server process, answers the first reply
/// (the same game and host token) and makes one game; another client's same key makes its own
/// game; the key with another body is 422.
async fn creation_retried(url: String) {
    let one = TestApp::spawn(url.clone(), None).await;
    let two = TestApp::spawn(url, None).await;
    let client = Client::new();
    let body = json!({ "ruleset": "base", "players": 3, "seed": seed_hex(7) });
    let key = (None, Some("make-1"));
    let first = read(post(&client, &one, "/games", key, Some(&body)).await).await;
    assert_eq!(first.0, StatusCode::CREATED, "{}", first.3);
    assert!(!first.1, "a first reply is not marked replayed");
    for app in [&one, &two, &one] {
        let again = read(post(&client, app, "/games", key, Some(&body)).await).await;
        assert_eq!(again.0, StatusCode::CREATED, "{}", again.3);
        assert!(again.1, "a retry is marked replayed");
        assert_eq!(
            (&again.2, &again.3),
            (&first.2, &first.3),
            "the first reply"
        );
    }
    assert_eq!(lobbies(&one).await, 1, "one game made");
    // The host token works.
    let id = first.3["game_id"].as_str().unwrap();
    let host = first.3["host_token"].as_str().unwrap();
    let (st, bot) = one
        .add_bot(id, Some(host), &json!({ "level": "random" }))
        .await;
    assert_eq!(st, StatusCode::CREATED, "{bot}");
    // The key with another body.
    let other = json!({ "ruleset": "base", "players": 4, "seed": seed_hex(7) });
    let refused = read(post(&client, &two, "/games", key, Some(&other)).await).await;
    assert_eq!(refused.0, StatusCode::UNPROCESSABLE_ENTITY, "{}", refused.3);
    assert_eq!(refused.3["code"], "idempotency_key_reused");
    // Another client (another address) with the same key gets a game of its own.
    let elsewhere = Client::builder()
        .local_address(Some("127.0.0.2".parse().unwrap()))
        .build()
        .unwrap();
    let theirs = read(post(&elsewhere, &one, "/games", key, Some(&body)).await).await;
    assert_eq!(theirs.0, StatusCode::CREATED, "{}", theirs.3);
    assert!(!theirs.1, "not the other client's reply");
    assert_ne!(theirs.3["game_id"], first.3["game_id"]);
    assert_ne!(theirs.3["host_token"], first.3["host_token"]);
    assert_eq!(lobbies(&one).await, 2);
}

#[tokio::test]
async fn sqlite_creation_retried() {
    let dir = tempfile::tempdir().unwrap();
    creation_retried(sqlite_url(&dir, "create.db")).await;
}

#[tokio::test]
async fn postgres_creation_retried() {
    creation_retried(postgres_url().await).await;
}

/// A reply's `RateLimit` field, if it has one.
fn rate_limit(r: &Response) -> Option<String> {
    r.headers()
        .get("ratelimit")
        .map(|v| v.to_str().unwrap().to_string())
}

/// At its cap of lobbies, a client's creation sent again with its key still answers the first
/// reply (it makes no lobby), while a new creation is refused. Neither spends the `create`
/// allowance (each is given back): the replay says it whole, the refusal says the lobby cap's,
/// none left; the next game made counts as the second creation.
async fn creation_retried_at_the_cap(url: String) {
    let config = saboteur_api::Config {
        allow_fixed_seed: true,
        limits: saboteur_api::Limits {
            lobbies_per_client: 1,
            ..saboteur_api::Limits::default()
        },
        ..saboteur_api::Config::new("127.0.0.1:0", url)
    };
    let app = TestApp::spawn_config(config, None).await;
    let client = Client::new();
    let body = json!({ "ruleset": "base", "players": 3 });
    let key = (None, Some("capped-1"));
    let creates = saboteur_api::Limits::default().creates.count;
    let answer = post(&client, &app, "/games", key, Some(&body)).await;
    assert_eq!(
        rate_limit(&answer).as_deref(),
        Some(format!("\"create\";r={};t=60", creates - 1).as_str())
    );
    let first = read(answer).await;
    assert_eq!(first.0, StatusCode::CREATED, "{}", first.3);
    let answer = post(&client, &app, "/games", key, Some(&body)).await;
    let said = rate_limit(&answer).unwrap_or_default();
    assert!(
        said.starts_with(&format!("\"create\";r={};", creates - 1)),
        "a replay spends nothing: {said}"
    );
    let again = read(answer).await;
    assert_eq!(again.0, StatusCode::CREATED, "{}", again.3);
    assert!(again.1, "a retry is marked replayed");
    assert_eq!(again.3, first.3, "the first reply");
    let other = (None, Some("capped-2"));
    let answer = post(&client, &app, "/games", other, Some(&body)).await;
    let said = rate_limit(&answer).unwrap_or_default();
    assert!(said.starts_with("\"lobby\";r=0;t="), "{said}");
    let refused = read(answer).await;
    assert_eq!(refused.0, StatusCode::TOO_MANY_REQUESTS, "{}", refused.3);
    // The lobby cancelled frees its place: the next game made is the second creation spent.
    let host = first.3["host_token"].as_str().unwrap();
    let id = first.3["game_id"].as_str().unwrap();
    let cancelled = client
        .post(format!("{}/games/{id}/cancel", app.base))
        .bearer_auth(host)
        .send()
        .await
        .unwrap();
    assert!(cancelled.status().is_success(), "{}", cancelled.status());
    let other = (None, Some("capped-3"));
    let answer = post(&client, &app, "/games", other, Some(&body)).await;
    let said = rate_limit(&answer).unwrap_or_default();
    assert!(
        said.starts_with(&format!("\"create\";r={};", creates - 2)),
        "{said}"
    );
    assert_eq!(read(answer).await.0, StatusCode::CREATED);
}

#[tokio::test]
async fn sqlite_creation_retried_at_the_cap() {
    let dir = tempfile::tempdir().unwrap();
    creation_retried_at_the_cap(sqlite_url(&dir, "capped.db")).await;
}

#[tokio::test]
async fn postgres_creation_retried_at_the_cap() {
    creation_retried_at_the_cap(postgres_url().await).await;
}

/// A rematch sent again with its key answers the first reply, through another server process,
/// and the new game starts with the host token it gave; without the key, or with another, it
/// is 409 as before.
async fn rematch_retried(url: String) {
    let one = TestApp::spawn(url.clone(), None).await;
    let two = TestApp::spawn(url, None).await;
    let client = Client::new();
    // Bots alone play a game to its end within its start.
    let g = seat(&one, "base", 11, json!({}), &[false; 3], "random").await;
    let (st, out) = one.start(&g.id, Some(&g.host)).await;
    assert_eq!(st, StatusCode::OK, "{out}");
    let (_, game) = one.game(&g.id).await;
    assert_eq!(game["status"], "finished");
    let path = format!("/games/{}/rematch", g.id);
    let host = Some(g.host.as_str());
    let first = read(post(&client, &one, &path, (host, Some("next-1")), None).await).await;
    assert_eq!(first.0, StatusCode::CREATED, "{}", first.3);
    assert!(!first.1);
    for app in [&two, &one] {
        let again = read(post(&client, app, &path, (host, Some("next-1")), None).await).await;
        assert_eq!(again.0, StatusCode::CREATED, "{}", again.3);
        assert!(again.1, "a retry is marked replayed");
        assert_eq!(
            (&again.2, &again.3),
            (&first.2, &first.3),
            "the first reply"
        );
    }
    for key in [None, Some("next-2")] {
        let (st, _, _, v) = read(post(&client, &two, &path, (host, key), None).await).await;
        assert_eq!(st, StatusCode::CONFLICT, "one rematch per game: {v}");
    }
    let id = first.3["game_id"].as_str().unwrap();
    let (st, v) = two.start(id, first.3["host_token"].as_str()).await;
    assert_eq!(
        st,
        StatusCode::OK,
        "the rematch starts with its host token: {v}"
    );
}

#[tokio::test]
async fn sqlite_rematch_retried() {
    let dir = tempfile::tempdir().unwrap();
    rematch_retried(sqlite_url(&dir, "rematch.db")).await;
}

#[tokio::test]
async fn postgres_rematch_retried() {
    rematch_retried(postgres_url().await).await;
}

/// SQLite: a bot's move cannot be recorded while the trigger is there.
const SQLITE_BOTS_AWAY: &str = "CREATE TRIGGER bots_away BEFORE INSERT ON events \
     WHEN NEW.event_type = 'command_accepted' AND json_extract(NEW.payload, '$.bot') IS NOT NULL \
     BEGIN SELECT RAISE(ABORT, 'the database is away'); END;";

/// PostgreSQL: the same.
const POSTGRES_BOTS_AWAY: &str = "CREATE FUNCTION bots_away() RETURNS trigger AS $$ BEGIN \
     IF NEW.event_type = 'command_accepted' AND NEW.payload->>'bot' IS NOT NULL THEN \
     RAISE EXCEPTION 'the database is away'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql; \
     CREATE TRIGGER bots_away BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION bots_away();";

/// A command whose bots could not answer within its request (the database went away after
/// its batch, as in a failover), the bots then played by the sweep: a retry with its key answers
/// exactly the first reply — its batch, its version and awaited seat — not the bots' later
/// moves.
async fn command_retried_after_bots(url: String, away: &str, back: &str) {
    let one = TestApp::spawn(url.clone(), None).await;
    let two = TestApp::spawn(url.clone(), None).await;
    let client = Client::new();
    let g = seat(&one, "base", 31, json!({}), &[true, false, false], "random").await;
    let me = g.token(0);
    let (st, out) = one.start(&g.id, Some(&g.host)).await;
    assert_eq!(st, StatusCode::OK, "{out}");
    let (_, moves) = one.legal_moves(&g.id, me).await;
    let command = pick(moves["commands"].as_array().unwrap(), 1);
    saboteur_storage::testing::execute(&url, away).await;
    let first = one
        .command_with(&g.id, me, &command, None, Some("played-1"))
        .await;
    assert_eq!(first.0, StatusCode::OK, "{}", first.1);
    assert_eq!(
        first.1["awaited"], 1,
        "the bots did not answer: {}",
        first.1
    );
    let at = first.1["version"].as_i64().unwrap();
    saboteur_storage::testing::execute(&url, back).await;
    // The sweep plays the bots.
    let since = Instant::now();
    while version(&one, &g.id).await == at {
        assert!(
            since.elapsed() < Duration::from_secs(20),
            "the sweep plays the bots"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    for app in [&one, &two] {
        let path = format!("/games/{}/commands", g.id);
        let r = post(
            &client,
            app,
            &path,
            (Some(me), Some("played-1")),
            Some(&command),
        )
        .await;
        let (st, replayed, _, again) = read(r).await;
        assert_eq!(st, StatusCode::OK, "{again}");
        assert!(replayed, "a retry is marked replayed");
        for field in ["version", "events", "awaited"] {
            assert_eq!(
                again[field], first.1[field],
                "the first reply's {field}: {again}"
            );
        }
    }
}

#[tokio::test]
async fn sqlite_command_retried_after_bots() {
    let dir = tempfile::tempdir().unwrap();
    let url = sqlite_url(&dir, "bots.db");
    let back = "DROP TRIGGER bots_away;";
    command_retried_after_bots(url, SQLITE_BOTS_AWAY, back).await;
}

#[tokio::test]
async fn postgres_command_retried_after_bots() {
    let back = "DROP TRIGGER bots_away ON events; DROP FUNCTION bots_away();";
    command_retried_after_bots(postgres_url().await, POSTGRES_BOTS_AWAY, back).await;
}

/// A command retried with its key when it is legal again (a seat discarded a card it holds
/// twice, everyone passed, and it is that seat's turn again): the retry answers the first reply,
/// marked replayed, and plays nothing. A command's key is found by its append (the store's
/// unique index on the key), not read before the command is decided.
async fn command_legal_again_retried(url: String) {
    let app = TestApp::spawn(url, None).await;
    let client = Client::new();
    let is_pass = |c: &&Value| c["type"] == "pass";
    for seed in 40..100 {
        let g = seat(&app, "base", seed, json!({}), &[true; 4], "random").await;
        let (st, out) = app.start(&g.id, Some(&g.host)).await;
        assert_eq!(st, StatusCode::OK, "{out}");
        let mover = out["awaited"].as_u64().unwrap() as usize;
        let (_, moves) = app.legal_moves(&g.id, g.token(mover)).await;
        let passes: Vec<Value> = moves["commands"]
            .as_array()
            .unwrap()
            .iter()
            .filter(is_pass)
            .cloned()
            .collect();
        let command = &passes[seed as usize % passes.len()];
        let first = app
            .command_with(&g.id, g.token(mover), command, None, Some("again-1"))
            .await;
        assert_eq!(first.0, StatusCode::OK, "{}", first.1);
        let mut awaited = first.1["awaited"].as_u64().unwrap() as usize;
        while awaited != mover {
            let (_, moves) = app.legal_moves(&g.id, g.token(awaited)).await;
            let pass = moves["commands"].as_array().unwrap().iter().find(is_pass);
            let (st, out) = app.command(&g.id, g.token(awaited), pass.unwrap()).await;
            assert_eq!(st, StatusCode::OK, "{out}");
            awaited = out["awaited"].as_u64().unwrap() as usize;
        }
        let (_, moves) = app.legal_moves(&g.id, g.token(mover)).await;
        if !moves["commands"].as_array().unwrap().contains(command) {
            continue;
        }
        let at = version(&app, &g.id).await;
        let path = format!("/games/{}/commands", g.id);
        let keyed = (Some(g.token(mover)), Some("again-1"));
        let r = post(&client, &app, &path, keyed, Some(command)).await;
        let (st, replayed, _, again) = read(r).await;
        assert_eq!(st, StatusCode::OK, "{again}");
        assert!(replayed, "a retry is marked replayed: {again}");
        for field in ["version", "events", "awaited"] {
            assert_eq!(again[field], first.1[field], "the first reply's {field}");
        }
        assert_eq!(version(&app, &g.id).await, at, "the retry played nothing");
        return;
    }
    panic!("no seed gave a seat a discard legal again at its next turn");
}

#[tokio::test]
async fn sqlite_command_legal_again_retried() {
    let dir = tempfile::tempdir().unwrap();
    command_legal_again_retried(sqlite_url(&dir, "again.db")).await;
}

#[tokio::test]
async fn postgres_command_legal_again_retried() {
    command_legal_again_retried(postgres_url().await).await;
}

/// Sends `path` twice with one key (through two processes): one effect, the same reply (status,
/// version, events), the second marked replayed. The reply.
async fn twice(
    (one, two): (&TestApp, &TestApp),
    id: &str,
    path: &str,
    (token, key): (&str, &str),
    body: Option<&Value>,
) -> (StatusCode, Value) {
    let client = Client::new();
    let path = format!("/games/{id}{path}");
    let (st, replayed, _, first) =
        read(post(&client, one, &path, (Some(token), Some(key)), body).await).await;
    assert!(st.is_success() && !replayed, "{path}: {st} {first}");
    let at = version(one, id).await;
    let (again_st, replayed, _, again) =
        read(post(&client, two, &path, (Some(token), Some(key)), body).await).await;
    assert!(replayed, "{path}: a retry is marked replayed: {again}");
    assert_eq!(again_st, st, "{path}: {again}");
    for field in ["version", "events"] {
        assert_eq!(
            again[field], first[field],
            "{path}: the first reply's {field}"
        );
    }
    assert_eq!(version(one, id).await, at, "{path}: one effect");
    (st, first)
}

/// A key sent again with another act than the one it recorded: 422 `idempotency_key_reused`.
async fn reused(
    app: &TestApp,
    id: &str,
    path: &str,
    (token, key): (&str, &str),
    body: Option<&Value>,
) {
    let path = format!("/games/{id}{path}");
    let r = post(&Client::new(), app, &path, (Some(token), Some(key)), body).await;
    let (st, _, _, body) = read(r).await;
    assert_eq!(
        (st, &body["code"]),
        (
            StatusCode::UNPROCESSABLE_ENTITY,
            &json!("idempotency_key_reused")
        ),
        "{path} with the key {key}: {body}"
    );
}

/// Every act a player can retry takes an `Idempotency-Key`: a message, an undo request, a vote and
/// a seat taken back, each sent twice with one key, recorded once and answered the same (202 again
/// for a request still awaiting votes); the key sent with another act is 422.
async fn acts_retried(url: String) {
    let one = TestApp::spawn(url.clone(), None).await;
    let two = TestApp::spawn(url.clone(), None).await;
    let g = seat(&one, "base", 37, json!({}), &[true, true, true], "random").await;
    let (st, out) = one.start(&g.id, Some(&g.host)).await;
    assert_eq!(st, StatusCode::OK, "{out}");
    let apps = (&one, &two);
    let talk = json!({ "text": "good luck" });
    twice(apps, &g.id, "/talk", (g.token(1), "talk-1"), Some(&talk)).await;
    let other = json!({ "text": "something else" });
    reused(&one, &g.id, "/talk", (g.token(1), "talk-1"), Some(&other)).await;
    // Seat 0 moves, then asks to take it back: the others must vote.
    let (_, moves) = one.legal_moves(&g.id, g.token(0)).await;
    let command = pick(moves["commands"].as_array().unwrap(), 1);
    let (st, out) = one.command(&g.id, g.token(0), &command).await;
    assert_eq!(st, StatusCode::OK, "{out}");
    let (st, _) = twice(apps, &g.id, "/undo", (g.token(0), "undo-1"), None).await;
    assert_eq!(st, StatusCode::ACCEPTED, "votes are awaited");
    let (st, _) = twice(apps, &g.id, "/undo/approve", (g.token(1), "yes-1"), None).await;
    assert_eq!(st, StatusCode::ACCEPTED, "one vote of two");
    let (st, _) = twice(apps, &g.id, "/undo/decline", (g.token(2), "no-2"), None).await;
    assert_eq!(st, StatusCode::OK, "declined: settled");
    // The key of a vote against, sent with a vote for: another act.
    reused(&one, &g.id, "/undo/approve", (g.token(2), "no-2"), None).await;
    // The host hands seat 2 to a bot; its player takes it back.
    let (st, out) = one
        .post_json(
            &format!("/games/{}/seats/2/handover", g.id),
            Some(&g.host),
            Some(&json!({})),
        )
        .await;
    assert_eq!(st, StatusCode::OK, "{out}");
    twice(
        apps,
        &g.id,
        "/seats/2/reclaim",
        (g.token(2), "back-2"),
        None,
    )
    .await;
}

#[tokio::test]
async fn sqlite_acts_retried() {
    let dir = tempfile::tempdir().unwrap();
    acts_retried(sqlite_url(&dir, "acts.db")).await;
}

#[tokio::test]
async fn postgres_acts_retried() {
    acts_retried(postgres_url().await).await;
}

/// A seat's talk past its own limit is 429 with its `Retry-After` only: the `write` allowance
/// the message did not exhaust is not said beside it (the replies before say it).
async fn talk_refused_says_no_other_allowance(url: String) {
    let config = saboteur_api::Config::new("127.0.0.1:0", url);
    let app = TestApp::spawn_config(config, None).await;
    let client = Client::new();
    let body = json!({ "ruleset": "base", "players": 3 });
    let created = read(post(&client, &app, "/games", (None, None), Some(&body)).await).await;
    let id = created.3["game_id"].as_str().unwrap();
    let path = format!("/games/{id}/seats");
    let joined = read(
        post(
            &client,
            &app,
            &path,
            (None, None),
            Some(&json!({"name": "Ann"})),
        )
        .await,
    )
    .await;
    let token = joined.3["player_token"].as_str().unwrap();
    // Talk opens with the deal: two bots seated, and the game started.
    let host = created.3["host_token"].as_str().unwrap();
    let bots = format!("/games/{id}/bots");
    let level = json!({"level": "random"});
    for _ in 0..2 {
        let seated = post(&client, &app, &bots, (Some(host), None), Some(&level)).await;
        assert_eq!(seated.status(), StatusCode::CREATED);
    }
    let start = format!("/games/{id}/start");
    let started = post(&client, &app, &start, (Some(host), None), None).await;
    assert_eq!(started.status(), StatusCode::OK);
    let path = format!("/games/{id}/talk");
    for i in 0..=saboteur_domain::online::TALK_BURST {
        let answer = post(
            &client,
            &app,
            &path,
            (Some(token), None),
            Some(&json!({"text": format!("hi {i}")})),
        )
        .await;
        let allowance = rate_limit(&answer);
        if i < saboteur_domain::online::TALK_BURST {
            assert_eq!(answer.status(), StatusCode::OK, "message {i}");
            assert!(
                allowance.is_some_and(|a| a.starts_with("\"write\";")),
                "message {i}"
            );
        } else {
            assert_eq!(answer.status(), StatusCode::TOO_MANY_REQUESTS);
            assert!(answer.headers().contains_key("retry-after"));
            assert_eq!(allowance, None, "a talk's 429 says no write allowance left");
        }
    }
}

#[tokio::test]
async fn sqlite_talk_refused_says_no_other_allowance() {
    let dir = tempfile::tempdir().unwrap();
    talk_refused_says_no_other_allowance(sqlite_url(&dir, "talk.db")).await;
}

#[tokio::test]
async fn postgres_talk_refused_says_no_other_allowance() {
    talk_refused_says_no_other_allowance(postgres_url().await).await;
}
