//! The referee's own words judged, tried as a dishonest operator would.
//!
//! A legal move refused: the operator answers a player's signed, legal command with a refusal
//! it signs itself (the store holds its signing key), at the game's version, naming the
//! player's statement. `verify` alone cannot tell (the refusal's head and time are right); with
//! the statement the player kept it decides the command again and names the refusal. An honest
//! refusal of an illegal move is judged right.
//!
//! A commitment that names another key than the one sent: the reply the player got names the
//! operator's key, and the record agrees with it. `--commitment` alone passes it; with the
//! request the player kept beside the reply (`sent`), it is named.
//!
//! On SQLite and PostgreSQL.

#[macro_use]
mod operator;

use operator::*;
use saboteur_api::receipt::{Receipt, ReceiptAudience, ReceiptKind, Signer, view_hash};
use serde_json::{Value, json};

/// The statement `key` signs for `body` at `version` in game `id` (seat 0), kept as the SDKs
/// keep it: the statement and its signature.
fn kept(key: &ed25519_dalek::SigningKey, id: &str, version: u64, body: &Value) -> Value {
    use ed25519_dalek::Signer as _;
    let bytes = statement(id, 0, version, "command", &body.to_string());
    json!({
        "statement": serde_json::from_slice::<Value>(&bytes).unwrap(),
        "signature": hex::encode(key.sign(&bytes).to_bytes()),
    })
}

/// The operator's refusal of `refused` (a kept statement) at the table's version, signed with
/// the server's key read from the store: the problem with its receipt, as the player got it.
async fn forged_refusal(url: &str, server: &Server, id: &str, me: &str, refused: &Value) -> Value {
    let problem = json!({
        "type": "https://saboteur.example/problems/not_your_turn",
        "title": "The move breaks a rule",
        "status": 422,
        "detail": "another player must act",
        "code": "not_your_turn",
    });
    forged_refusal_as(url, server, (id, me), refused, problem).await
}

/// [`forged_refusal`] with the operator's `problem`.
async fn forged_refusal_as(
    url: &str,
    server: &Server,
    (id, me): (&str, &str),
    refused: &Value,
    problem: Value,
) -> Value {
    use sha2::Digest as _;
    let state = server
        .call("GET", &format!("/games/{id}/state"), Some(me), None)
        .await;
    let store = saboteur_storage::EventStore::connect(url).await.unwrap();
    let key = store.active_server_key().await.unwrap().unwrap();
    let signer = Signer::from_stored(&key).unwrap();
    let receipt = signer.sign(Receipt {
        kind: ReceiptKind::Refusal,
        game_id: id.to_string(),
        version: state["version"].as_i64().unwrap(),
        first: None,
        head: state["receipt"]["head"].as_str().unwrap().to_string(),
        served_at: chrono::Utc::now().to_rfc3339(),
        audience: ReceiptAudience::Seat,
        seat: Some(0),
        view_hash: view_hash(&problem),
        request_hash: Some(hex::encode(sha2::Sha256::digest(
            saboteur_api::receipt::jcs(&refused["statement"]),
        ))),
        key_id: String::new(),
        signature: String::new(),
    });
    let mut served = problem;
    served["receipt"] = serde_json::to_value(receipt).unwrap();
    served
}

async fn a_legal_move_refused_is_named(url: &str, dir: &std::path::Path) {
    let (key, _) = player_key(9);
    let server = Server::start(url).await;
    let (id, me, _) = keyed_game_with_bots(&server, &key).await;
    // Seat 0 plays first: its legal move, and an illegal one (a pass that discards nothing).
    let (version, command) = first_legal(&server, &id, &me).await;
    let illegal = json!({"type": "pass", "discard": []});
    let (status, honest) = server
        .signed(
            &format!("/games/{id}/commands"),
            &me,
            &illegal.to_string(),
            Some((&key, &id, 0, version, "command")),
        )
        .await;
    assert_eq!(status, 422, "{honest}");
    let legal_kept = kept(&key, &id, version, &command);
    let forged = forged_refusal(url, &server, &id, &me, &legal_kept).await;
    let statements = file(
        dir,
        "statements.json",
        &json!([kept(&key, &id, version, &illegal), legal_kept]),
    );

    // During the game, without the bundle: the seat's own view at the refusals' version, kept
    // with its receipt, decides both.
    let view = server
        .call("GET", &format!("/games/{id}/state"), Some(&me), None)
        .await;
    assert_eq!(view["version"].as_u64(), Some(version), "{view}");
    let during = file(dir, "during.json", &json!([honest, forged, view]));
    let keys = file(
        dir,
        "keys.json",
        &server.call("GET", "/keys", None, None).await,
    );
    let out = verify_with(&[
        "--receipts",
        &during,
        "--statements",
        &statements,
        "--keys",
        &keys,
    ]);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains(&format!(
            "the refusal at version {version} of seat 0's signed command was right: the rules \
             refuse it too, by the seat's own view"
        )),
        "{said}"
    );
    assert!(
        said.contains(&format!(
            "the server refused a legal move at version {version}: seat 0's command {command}, \
             signed by its key at version {version}, is one the rules allow there, by the seat's \
             own view at that version (refused as `not_your_turn`)"
        )),
        "{said}"
    );
    // Without the view, nothing is decided, and nothing is claimed.
    let blind = file(dir, "blind.json", &json!([honest, forged]));
    let out = verify_with(&[
        "--receipts",
        &blind,
        "--statements",
        &statements,
        "--keys",
        &keys,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("is not judged: neither the bundle nor the seat's view"));

    play_signed(&server, &id, &me, &key).await;
    let bundle = server
        .call("GET", &format!("/games/{id}/audit"), None, None)
        .await;
    let bundle = file(dir, "bundle.json", &bundle);

    // The honest refusal, judged right.
    let honest_only = file(dir, "honest.json", &json!([honest]));
    let out = verify_with(&[
        "--file",
        &bundle,
        "--receipts",
        &honest_only,
        "--statements",
        &statements,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        text(&out).contains(&format!(
            "the refusal at version {version} of seat 0's signed command was right: the rules \
             refuse it too"
        )),
        "{}",
        text(&out)
    );

    // The forged refusal: genuine as a receipt, so `verify` without the statement passes it.
    let both = file(dir, "both.json", &json!([honest, forged]));
    let out = verify_with(&["--file", &bundle, "--receipts", &both]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    // With the statements the player kept, the legal move refused is named.
    let out = verify_with(&[
        "--file",
        &bundle,
        "--receipts",
        &both,
        "--statements",
        &statements,
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains(&format!(
            "the server refused a legal move at version {version}: seat 0's command {command}"
        )),
        "{}",
        text(&out)
    );
}

on_both_stores!(
    a_legal_move_refused_is_named_on_sqlite,
    a_legal_move_refused_is_named_on_postgres,
    a_legal_move_refused_is_named
);

/// An act at the table refused is judged too. Seat 0 asks to take back its first command: the
/// operator answers with a refusal it signs itself (`nothing_to_undo`), which `verify` with the
/// kept statement names as a legal undo request refused. An approval with no request pending,
/// refused by the honest server (`no_undo_pending`), is judged right.
async fn a_legal_undo_refused_is_named(url: &str, dir: &std::path::Path) {
    use ed25519_dalek::Signer as _;
    use saboteur_domain::{Seat, SignedAct, act_statement};
    let (key, _) = player_key(10);
    let server = Server::start(url).await;
    let (id, me, _) = keyed_game_with_bots(&server, &key).await;
    next_signed_move(&server, &id, &me, &key)
        .await
        .expect("seat 0's first move");
    let state = server
        .call("GET", &format!("/games/{id}/state"), Some(&me), None)
        .await;
    let version = state["version"].as_u64().unwrap();
    let undoable = state["table"]["seats"][0]["undoable"].as_u64();
    assert!(
        undoable.is_some(),
        "seat 0's command can be taken back: {state}"
    );
    let keep = |act: SignedAct, about: Option<u64>| {
        let bytes = act_statement(&id, Seat(0), version, act, "", about).unwrap();
        json!({
            "statement": serde_json::from_slice::<Value>(&bytes).unwrap(),
            "signature": hex::encode(key.sign(&bytes).to_bytes()),
        })
    };
    // The honest server refuses an approval with nothing to vote on.
    let approve = keep(SignedAct::Approve, None);
    let (status, honest) = server
        .signed_over(
            &format!("/games/{id}/undo/approve"),
            &me,
            "",
            (
                &key,
                &saboteur_api::receipt::jcs(&approve["statement"]),
                version,
            ),
        )
        .await;
    assert_eq!(
        (status, honest["code"].as_str()),
        (409, Some("no_undo_pending")),
        "{honest}"
    );
    // The operator refuses the legal undo request.
    let undo = keep(SignedAct::Undo, undoable);
    let problem = json!({
        "type": "https://saboteur.example/problems/nothing_to_undo",
        "title": "Nothing to undo",
        "status": 409,
        "detail": "nothing to take back",
        "code": "nothing_to_undo",
    });
    let forged = forged_refusal_as(url, &server, (&id, &me), &undo, problem).await;
    play_signed(&server, &id, &me, &key).await;
    let bundle = server
        .call("GET", &format!("/games/{id}/audit"), None, None)
        .await;
    let bundle = file(dir, "bundle.json", &bundle);
    let statements = file(dir, "statements.json", &json!([approve, undo]));
    let receipts = file(dir, "receipts.json", &json!([honest, forged]));
    let out = verify_with(&[
        "--file",
        &bundle,
        "--receipts",
        &receipts,
        "--statements",
        &statements,
    ]);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains(&format!(
            "the refusal at version {version} of seat 0's signed approve was right: the rules \
             refuse it too"
        )),
        "{said}"
    );
    assert!(
        said.contains(&format!(
            "the server refused a legal undo request at version {version}: seat 0's undo \
             request, signed by its key at version {version}, is one the rules allow there \
             (refused as `nothing_to_undo`)"
        )),
        "{said}"
    );
}

on_both_stores!(
    a_legal_undo_refused_is_named_on_sqlite,
    a_legal_undo_refused_is_named_on_postgres,
    a_legal_undo_refused_is_named
);

async fn a_commitment_to_another_key_is_named(url: &str, dir: &std::path::Path) {
    let (key, mine) = player_key(11);
    let (operator, _) = player_key(12);
    let server = Server::start(url).await;
    // The seat is taken with the operator's key; the player is handed the reply.
    let (_, id, host) = server.create_base_game().await;
    let reply = server
        .call(
            "POST",
            &format!("/games/{id}/seats"),
            None,
            Some(keyed_join(&id, "Ada", &operator)),
        )
        .await;
    server.random_bots(&id, &host, 2).await;
    server
        .call("POST", &format!("/games/{id}/start"), Some(&host), None)
        .await;
    let token = reply["player_token"].as_str().unwrap().to_string();
    play_signed(&server, &id, &token, &operator).await;
    let bundle = server
        .call("GET", &format!("/games/{id}/audit"), None, None)
        .await;
    let bundle = file(dir, "bundle.json", &bundle);
    let check = |name: &str, kept: Value| {
        verify_with(&["--file", &bundle, "--commitment", &file(dir, name, &kept)])
    };
    // The reply alone agrees with the record: the operator's key throughout.
    let out = check("reply.json", reply.clone());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    // Beside the request the player sent, with their own key: named.
    let mut kept = reply.clone();
    kept["sent"] = keyed_join(&id, "Ada", &key);
    let out = check("kept.json", kept);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains(&format!(
            "the server's commitment names the key {} for seat 0; the player sent {}: the reply \
             was rewritten, or the seat taken with another key",
            saboteur_domain::fingerprint(&hex::encode(operator.verifying_key().to_bytes())),
            saboteur_domain::fingerprint(&mine)
        )),
        "{}",
        text(&out)
    );
    // The request that was in fact sent agrees.
    let mut honest = reply;
    honest["sent"] = keyed_join(&id, "Ada", &operator);
    let out = check("honest.json", honest);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
}

on_both_stores!(
    a_commitment_to_another_key_is_named_on_sqlite,
    a_commitment_to_another_key_is_named_on_postgres,
    a_commitment_to_another_key_is_named
);

/// The store made unable to take a write while the server runs, as a database that goes away
/// does: SQLite's write lock held by another connection, or a PostgreSQL database turned
/// read-only with its sessions cut (the pool's new ones are read-only).
enum Outage {
    Sqlite(sqlx::SqliteConnection),
    Postgres(sqlx::PgConnection, String),
}

impl Outage {
    async fn begin(url: &str) -> Outage {
        use sqlx::Connection as _;
        if url.starts_with("sqlite") {
            let mut conn = sqlx::SqliteConnection::connect(url).await.unwrap();
            sqlx::raw_sql("BEGIN EXCLUSIVE")
                .execute(&mut conn)
                .await
                .unwrap();
            return Outage::Sqlite(conn);
        }
        let mut conn = sqlx::PgConnection::connect(url).await.unwrap();
        let name: String = sqlx::query_scalar("SELECT current_database()")
            .fetch_one(&mut conn)
            .await
            .unwrap();
        let mut outage = Outage::Postgres(conn, name);
        outage
            .postgres("SET default_transaction_read_only = on")
            .await;
        outage
    }

    /// `ALTER DATABASE … {change}`, then every other session cut.
    async fn postgres(&mut self, change: &str) {
        let Outage::Postgres(conn, name) = self else {
            return;
        };
        for sql in [
            format!("ALTER DATABASE \"{name}\" {change}"),
            format!(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}' \
                 AND pid <> pg_backend_pid()"
            ),
        ] {
            sqlx::raw_sql(&sql).execute(&mut *conn).await.unwrap();
        }
    }

    async fn end(mut self) {
        match &mut self {
            Outage::Sqlite(conn) => {
                sqlx::raw_sql("ROLLBACK").execute(conn).await.unwrap();
            }
            Outage::Postgres(..) => self.postgres("RESET default_transaction_read_only").await,
        }
    }
}

/// Waits until the server's pool holds no connection the outage cut: a listing (read from the
/// store each time) answered forty times in a row, each on the next idle connection.
async fn settled(server: &Server) {
    let mut good = 0;
    for _ in 0..400 {
        let res = server
            .client
            .get(format!("{}/games?limit=1", server.base))
            .send()
            .await
            .unwrap();
        good = if res.status().is_success() {
            good + 1
        } else {
            0
        };
        if good == 40 {
            return;
        }
    }
    panic!("the server's store never came back");
}

/// `GET path` until it answers (the first read after an outage may meet a connection cut).
async fn read(server: &Server, path: &str, token: Option<&str>) -> Value {
    for _ in 0..50 {
        let mut rb = server.client.get(format!("{}{path}", server.base));
        if let Some(t) = token {
            rb = rb.bearer_auth(t);
        }
        let res = rb.send().await.unwrap();
        if res.status().is_success() {
            return res.json().await.unwrap();
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("{path} never answered");
}

/// A seat's legal command the store cannot record: 503, signed from memory. The seat keeps its
/// whole time again from the refusal (no timeout at its old deadline); the record then verifies
/// with the refusal and the statement. A timeout recorded sooner (a refusal the operator signs
/// earlier than the timeout by less than the clock) is named.
async fn a_timeout_across_an_outage_is_named(url: &str, dir: &std::path::Path) {
    let (key, _) = player_key(13);
    let clock = saboteur_api::TimeSource::manual(T0);
    let server = Server::start_at(url, clock.clone()).await;
    let (id, _, me) = clocked_game(&server, &key).await;
    let legal = read(&server, &format!("/games/{id}/legal-moves"), Some(&me)).await;
    let version = legal["version"].as_u64().unwrap();
    let command = legal["commands"][0].clone();
    clock.advance(50_000);
    let outage = Outage::begin(url).await;
    let (status, refused) = server
        .signed(
            &format!("/games/{id}/commands"),
            &me,
            &command.to_string(),
            Some((&key, &id, 0, version, "command")),
        )
        .await;
    outage.end().await;
    settled(&server).await;
    assert_eq!(status, 503, "{refused}");
    assert_eq!(refused["code"], "unavailable", "{refused}");
    assert_eq!(refused["receipt"]["kind"], "refusal", "{refused}");
    assert_eq!(refused["receipt"]["version"], version, "{refused}");
    // Past the old deadline (60 s from the start), not past 60 s from the refusal: no timeout.
    // (An unsigned command is the probe: the table records a timeout due before it refuses.)
    let probe = || async {
        let (status, refused) = server
            .signed(
                &format!("/games/{id}/commands"),
                &me,
                &command.to_string(),
                None,
            )
            .await;
        assert_eq!(status, 401, "{refused}");
        refused["receipt"]["version"].as_u64().unwrap()
    };
    clock.advance(30_000);
    assert_eq!(
        probe().await,
        version,
        "no timeout before the seat's whole time again"
    );
    clock.advance(31_000);
    assert!(
        probe().await > version,
        "the timeout, once that time ran out"
    );
    play_signed(&server, &id, &me, &key).await;
    let bundle = read(&server, &format!("/games/{id}/audit"), None).await;
    let timed_out = bundle["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["event_type"] == "turn_timed_out")
        .cloned()
        .unwrap();
    assert_eq!(timed_out["seq"], version + 1, "{timed_out}");
    let head = bundle["events"][version as usize - 1]["hash"].clone();
    let bundle = file(dir, "outage-bundle.json", &bundle);
    let statements = file(
        dir,
        "outage-statements.json",
        &json!([kept(&key, &id, version, &command)]),
    );
    let out = verify_with(&[
        "--file",
        &bundle,
        "--receipts",
        &file(dir, "outage.json", &json!([refused])),
        "--statements",
        &statements,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        text(&out).contains(
            "was right: the store could not record it, and the seat had its whole time again"
        ),
        "{}",
        text(&out)
    );
    // The operator's version: the same refusal signed 40 s before the timeout, less than the
    // seat's 60 s.
    let at = timed_out["payload"]["at"].as_u64().unwrap() - 40_000;
    let served = chrono::DateTime::from_timestamp_millis(at as i64).unwrap();
    let mut forged = refused.clone();
    let mut receipt: Receipt = serde_json::from_value(forged["receipt"].clone()).unwrap();
    receipt.served_at = served.to_rfc3339();
    receipt.head = head.as_str().unwrap().to_string();
    let store = saboteur_storage::EventStore::connect(url).await.unwrap();
    let signer = Signer::from_stored(&store.active_server_key().await.unwrap().unwrap()).unwrap();
    forged["receipt"] = serde_json::to_value(signer.sign(receipt)).unwrap();
    let out = verify_with(&[
        "--file",
        &bundle,
        "--receipts",
        &file(dir, "forged-outage.json", &json!([forged])),
        "--statements",
        &statements,
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains(&format!(
            "a timeout recorded across an outage: the store could not record seat 0's legal move \
             at version {version}"
        )),
        "{}",
        text(&out)
    );
}

on_both_stores!(
    a_timeout_across_an_outage_is_named_on_sqlite,
    a_timeout_across_an_outage_is_named_on_postgres,
    a_timeout_across_an_outage_is_named
);
