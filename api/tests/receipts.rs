//! Receipts make a rewritten record provable: a game is played over HTTP keeping every body
//! served; an operator then rewrites the finished game in the database (triggers dropped, the
//! chain and the transparency log recomputed); `saboteur verify --receipts` names the first
//! receipt the rewritten bundle contradicts. Untouched, the receipts agree; a forged one is
//! refused.

#[macro_use]
mod operator;

use std::process::Command;

use operator::*;
use serde_json::{Value, json};

/// Plays a game of one human (seat 0, the first legal move each turn) and two bots, keeping
/// every body served with a receipt: the player's views and outcomes, a spectator's views, a
/// replay (`?at=`) and the final view. Returns the game's id and the bodies.
async fn play(server: &Server) -> (String, Vec<Value>) {
    let created = server
        .call(
            "POST",
            "/games",
            None,
            Some(json!({"ruleset": "base", "players": 3, "seed": "ab".repeat(32)})),
        )
        .await;
    let id = created["game_id"].as_str().unwrap().to_string();
    let host = created["host_token"].as_str().unwrap().to_string();
    let joined = server
        .call(
            "POST",
            &format!("/games/{id}/seats"),
            None,
            Some(json!({"name": "Ada", "entropy": "0f".repeat(32)})),
        )
        .await;
    let me = joined["player_token"].as_str().unwrap().to_string();
    server.random_bots(&id, &host, 2).await;
    // The creation's and the seat's signed commitments to the seed come first.
    let mut kept = vec![
        created.clone(),
        joined.clone(),
        server
            .call("POST", &format!("/games/{id}/start"), Some(&host), None)
            .await,
    ];
    // Table talk, hidden by the host afterwards: the receipt of the reply that showed the
    // message still agrees with the record (it covers what was shown then).
    let said = server
        .call(
            "POST",
            &format!("/games/{id}/talk"),
            Some(&me),
            Some(json!({"text": "hello"})),
        )
        .await;
    let seq = said["events"][0]["seq"].as_i64().unwrap();
    kept.push(said);
    // A command at a version long gone is refused (412), with a signed receipt of the refusal.
    let refused = server
        .client
        .post(format!("{}/games/{id}/commands", server.base))
        .bearer_auth(&me)
        .header("If-Match", "\"1\"")
        .json(&json!({"type": "pass", "discard": []}))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 412);
    let refused: Value = refused.json().await.unwrap();
    assert_eq!(refused["receipt"]["kind"], "refusal", "{refused}");
    assert_eq!(refused["receipt"]["seat"], 0, "{refused}");
    kept.push(refused);
    kept.push(
        server
            .call("GET", &format!("/games/{id}/state"), None, None)
            .await,
    );
    kept.push(
        server
            .call(
                "POST",
                &format!("/games/{id}/talk/{seq}/hide"),
                Some(&host),
                None,
            )
            .await,
    );
    for turn in 0..2000 {
        let summary = server
            .call("GET", &format!("/games/{id}"), None, None)
            .await;
        if summary["status"] == "finished" {
            break;
        }
        kept.push(
            server
                .call("GET", &format!("/games/{id}/state"), Some(&me), None)
                .await,
        );
        if turn % 5 == 0 {
            kept.push(
                server
                    .call("GET", &format!("/games/{id}/state"), None, None)
                    .await,
            );
        }
        let legal = server
            .call("GET", &format!("/games/{id}/legal-moves"), Some(&me), None)
            .await;
        if let Some(command) = legal["commands"].as_array().and_then(|c| c.first()) {
            kept.push(
                server
                    .call(
                        "POST",
                        &format!("/games/{id}/commands"),
                        Some(&me),
                        Some(command.clone()),
                    )
                    .await,
            );
        } else {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }
    kept.push(
        server
            .call("GET", &format!("/games/{id}/state?at=5"), Some(&me), None)
            .await,
    );
    kept.push(
        server
            .call("GET", &format!("/games/{id}/state"), None, None)
            .await,
    );
    for body in &kept {
        assert!(
            body["receipt"]["signature"].is_string(),
            "no receipt: {body}"
        );
    }
    (id, kept)
}

fn verify(dir: &std::path::Path, bundle: &Value, receipts: &Value) -> std::process::Output {
    let b = dir.join("bundle.json");
    let r = dir.join("receipts.json");
    std::fs::write(&b, bundle.to_string()).unwrap();
    std::fs::write(&r, receipts.to_string()).unwrap();
    Command::new(env!("CARGO_BIN_EXE_saboteur"))
        .args(["verify", "--file"])
        .arg(&b)
        .arg("--receipts")
        .arg(&r)
        .output()
        .unwrap()
}

/// A bundle cut before the game's end, as an operator would serve a game it claims never
/// ended: the last batch (from the last `command_accepted`) removed, no log entry.
fn cut_before_the_end(bundle: &Value) -> (Value, usize) {
    let events = bundle["events"].as_array().unwrap();
    let last_command = events
        .iter()
        .rposition(|e| e["event_type"] == "command_accepted")
        .unwrap();
    let mut cut = bundle.clone();
    cut["events"] = json!(events[..last_command]);
    cut.as_object_mut().unwrap().remove("log_entry");
    (cut, last_command)
}

/// A bundle whose first table talk records a time `by` ms earlier, the chain after it
/// recomputed: consistent on its own.
fn redate_talk(bundle: &Value, by: u64) -> Value {
    let mut b = bundle.clone();
    let id = b["game_id"].as_str().unwrap().to_string();
    let events = b["events"].as_array_mut().unwrap();
    let i = events
        .iter()
        .position(|e| e["event_type"] == "talk_posted")
        .unwrap();
    let at = events[i]["payload"]["at"].as_u64().unwrap();
    events[i]["payload"]["at"] = json!(at - by);
    let mut prev = events[i]["prev_hash"].as_str().unwrap().to_string();
    for e in events.iter_mut().skip(i) {
        e["prev_hash"] = json!(prev);
        let hash = saboteur_storage::chain_hash(
            &prev,
            &id,
            e["seq"].as_i64().unwrap(),
            e["event_type"].as_str().unwrap(),
            i32::try_from(e["schema_version"].as_i64().unwrap()).unwrap(),
            &e["payload"],
        );
        e["hash"] = json!(hash);
        prev = hash;
    }
    b["log_entry"] = Value::Null;
    b
}

/// What a dishonest operator does to a finished game: drops the triggers, gives seat 0 more
/// gold in the last event (`game_ended`), recomputes its hash, the game's last hash and the
/// game's transparency log entry.
async fn rewrite(database_url: &str, id: &str) {
    let store = saboteur_storage::EventStore::connect(database_url)
        .await
        .unwrap();
    let on = if database_url.starts_with("postgres") {
        " ON events"
    } else {
        ""
    };
    let on_log = if on.is_empty() {
        ""
    } else {
        " ON transparency_log"
    };
    store
        .execute_raw(&format!("DROP TRIGGER events_no_update{on}"))
        .await
        .unwrap();
    store
        .execute_raw(&format!("DROP TRIGGER transparency_log_no_update{on_log}"))
        .await
        .unwrap();
    let game_id = saboteur_storage::GameId::parse(id).unwrap();
    let game = store.get_game(&game_id).await.unwrap();
    let last = store
        .events_after(
            &game_id,
            saboteur_storage::Version::of(game.version.get() - 1),
            1,
        )
        .await
        .unwrap()
        .remove(0);
    assert_eq!(last.event_type, "game_ended");
    let mut payload = last.payload.clone();
    payload["gold"][0] = json!(payload["gold"][0].as_u64().unwrap() + 5);
    let hash = saboteur_storage::chain_hash(
        &last.prev_hash,
        id,
        last.seq.stored(),
        &last.event_type,
        last.schema_version,
        &payload,
    );
    let entry = store.log_entry_of(&game_id).await.unwrap().unwrap();
    let entry_hash = saboteur_storage::log_entry_hash_at(
        &entry.prev_hash,
        entry.seq,
        id,
        last.seq.stored(),
        &hash,
        entry.logged_at.timestamp_millis(),
    );
    // Ids, hashes and this payload hold no quote.
    for sql in [
        format!(
            "UPDATE events SET payload = '{payload}', hash = '{hash}' \
             WHERE game_id = '{id}' AND seq = {}",
            last.seq
        ),
        format!("UPDATE games SET last_hash = '{hash}' WHERE id = '{id}'"),
        format!(
            "UPDATE transparency_log SET head = '{hash}', hash = '{entry_hash}' \
             WHERE game_id = '{id}'"
        ),
    ] {
        assert_eq!(store.execute_raw(&sql).await.unwrap(), 1, "{sql}");
    }
}

/// Plays, keeps receipts, checks them, rewrites the game, and checks them again.
async fn receipts_prove_a_rewrite(url: &str, dir: &std::path::Path) {
    let url = url.to_string();
    let server = Server::start(&url).await;
    let (id, kept) = play(&server).await;
    let bundle = server
        .call("GET", &format!("/games/{id}/audit"), None, None)
        .await;
    assert!(!bundle["keys"].as_array().unwrap().is_empty());
    assert_eq!(bundle["log_entry"]["game_id"], id.as_str());
    let keys = server.call("GET", "/keys", None, None).await;
    assert_eq!(keys["keys"], bundle["keys"]);
    let log = server.call("GET", "/log", None, None).await;
    assert_eq!(log["entries"][0], bundle["log_entry"]);
    let checkpoint = server.call("GET", "/log/checkpoint", None, None).await;
    assert_eq!(checkpoint["size"], 1);

    // Untouched, every receipt agrees with the bundle: views, outcomes, spectators, a replay.
    let out = verify(dir, &bundle, &json!(kept));
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("receipts agree with the bundle")
            && text(&out).contains("\"commitments\":2,\"refusals\":1,"),
        "{}",
        text(&out)
    );
    // The operator back-dates the message posted after the start was served (its time, the
    // chain after it recomputed): the start outcome's signed time names it.
    let redated = redate_talk(&bundle, 60_000);
    let out = verify(dir, &redated, &json!(kept));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("the event was back-dated"),
        "{}",
        text(&out)
    );
    // Bare receipts too.
    let bare: Vec<Value> = kept.iter().map(|b| b["receipt"].clone()).collect();
    let out = verify(dir, &bundle, &json!(bare));
    assert!(out.status.success(), "{}", text(&out));

    // The server checks them too, and its verdict shows the keys and the log entry.
    let verdict = server
        .call("GET", &format!("/games/{id}/audit/verdict"), None, None)
        .await;
    assert_eq!(verdict["ok"], true, "{verdict}");
    assert_eq!(verdict["keys"], bundle["keys"]);
    assert_eq!(verdict["log_entry"], bundle["log_entry"]);
    let some: Vec<Value> = bare.iter().take(20).cloned().collect();
    let checked = server
        .call(
            "POST",
            &format!("/games/{id}/audit/receipts"),
            None,
            Some(json!(some)),
        )
        .await;
    assert_eq!(checked["ok"], true, "{checked}");
    assert_eq!(checked["checked"]["receipts"], 20);

    // A forged receipt proves nothing: it is refused.
    let mut forged = bare.clone();
    forged[3]["version"] = json!(forged[3]["version"].as_i64().unwrap() + 1);
    let out = verify(dir, &bundle, &json!(forged));
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("a forgery proves nothing"),
        "{}",
        text(&out)
    );
    let refused = server
        .call(
            "POST",
            &format!("/games/{id}/audit/receipts"),
            None,
            Some(json!(forged[..5])),
        )
        .await;
    assert_eq!(refused["ok"], false);
    assert!(
        refused["refused"]
            .as_str()
            .unwrap()
            .contains("a forgery proves nothing")
    );
    // A body changed after it was served no longer matches its receipt.
    let mut changed = kept.clone();
    changed[3]["version"] = json!(0);
    let out = verify(dir, &bundle, &json!(changed));
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("not the one it signed"),
        "{}",
        text(&out)
    );

    // A record that never ends the game does not verify: it says where it stops. Receipts
    // served before the cut agree with it, and `--unfinished` audits it as a game in progress.
    let (cut, at) = cut_before_the_end(&bundle);
    let cut_file = file(dir, "cut.json", &cut);
    let out = verify_with(&["--file", &cut_file]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let last_kind = cut["events"][at - 1]["event_type"].as_str().unwrap();
    assert!(
        text(&out).contains(&format!(
            "first discrepancy: the record stops at version {at} (its last event is \
             `{last_kind}`) before the game's end"
        )),
        "{}",
        text(&out)
    );
    let before: Vec<Value> = bare
        .iter()
        .filter(|r| r["version"].as_u64().unwrap() <= at as u64)
        .cloned()
        .collect();
    let before_file = file(dir, "before.json", &json!(before));
    let out = verify_with(&[
        "--file",
        &cut_file,
        "--unfinished",
        "--receipts",
        &before_file,
    ]);
    assert!(out.status.success(), "{}", text(&out));
    // The bundle's ruleset is the one the log created.
    let mut relabelled = bundle.clone();
    relabelled["ruleset"] = json!("saboteur2");
    let out = verify_with(&["--file", &file(dir, "relabelled.json", &relabelled)]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out)
            .contains("the bundle says the ruleset is saboteur2, event 1 created a game of base"),
        "{}",
        text(&out)
    );
    // Receipts alone, with the keys kept from first contact, say what they prove.
    let keys_file = file(dir, "keys.json", &keys);
    let kept_file = file(dir, "kept.json", &json!(kept));
    let version = bundle["events"].as_array().unwrap().len();
    let out = verify_with(&["--receipts", &kept_file, "--keys", &keys_file]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains(&format!(
            "game {id}: {} genuine receipts, signed up to version {version}",
            kept.len()
        )) && text(&out).contains(&format!(
            "the server signed the game over at version {version}"
        )),
        "{}",
        text(&out)
    );

    // The operator rewrites the end of the game and everything that hashes it.
    rewrite(&url, &id).await;
    let server = Server::start(&url).await;
    let rewritten = server
        .call("GET", &format!("/games/{id}/audit"), None, None)
        .await;
    assert_ne!(rewritten, bundle);
    let out = verify(dir, &rewritten, &json!(kept));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let first_at_end = kept
        .iter()
        .map(|b| &b["receipt"])
        .find(|r| r["version"].as_u64() == Some(version as u64))
        .unwrap();
    let who = match first_at_end["seat"].as_u64() {
        Some(s) => format!("seat {s}"),
        None if first_at_end["audience"] == "everyone" => "everyone".to_string(),
        None => "a spectator".to_string(),
    };
    let expected = format!(
        "receipt for {who} at version {version}: the bundle's chain head at {version} is {}, \
         the receipt signed {}: the record was changed after it was served",
        rewritten["events"][version - 1]["hash"].as_str().unwrap(),
        first_at_end["head"].as_str().unwrap()
    );
    assert!(
        text(&out).contains(&expected),
        "{}\nwanted: {expected}",
        text(&out)
    );
    let contradicted = server
        .call(
            "POST",
            &format!("/games/{id}/audit/receipts"),
            None,
            Some(json!([first_at_end])),
        )
        .await;
    assert!(
        contradicted["contradiction"]
            .as_str()
            .unwrap()
            .contains(&expected),
        "{contradicted}"
    );

    // The rewritten log no longer extends the checkpoint kept before.
    let original = dir.join("original.json");
    std::fs::write(&original, bundle.to_string()).unwrap();
    let log_file = dir.join("log.json");
    let cp_file = dir.join("checkpoint.json");
    let log_now = server.call("GET", "/log", None, None).await;
    std::fs::write(&log_file, log_now.to_string()).unwrap();
    std::fs::write(&cp_file, checkpoint.to_string()).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_saboteur"))
        .args(["verify", "--file"])
        .arg(&original)
        .arg("--log")
        .arg(&log_file)
        .arg("--checkpoint")
        .arg(&cp_file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("the log was rewritten"),
        "{}",
        text(&out)
    );

    // Equivocation: a spectator served the rewritten record at the same version. Pooled with
    // a receipt from before, the two heads the server signed at one version are named, with or
    // without a bundle.
    let other = server
        .call("GET", &format!("/games/{id}/state"), None, None)
        .await;
    assert_eq!(other["receipt"]["version"], version as u64);
    let pooled = file(dir, "pooled.json", &json!([first_at_end, other["receipt"]]));
    let expected = format!(
        "equivocation: the server signed two different heads at version {version} of game \
         {id}: {} ({who}) and {} (everyone)",
        first_at_end["head"].as_str().unwrap(),
        other["receipt"]["head"].as_str().unwrap()
    );
    for args in [
        vec!["--receipts", pooled.as_str(), "--keys", keys_file.as_str()],
        vec![
            "--receipts",
            pooled.as_str(),
            "--file",
            cut_file.as_str(),
            "--unfinished",
        ],
    ] {
        let out = verify_with(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", text(&out));
        assert!(
            text(&out).contains(&expected),
            "{}\nwanted: {expected}",
            text(&out)
        );
    }

    // A hidden game: another game is played and logged; the operator serves a log without the
    // first (the second re-chained from the start). The receipts of the first show its end was
    // signed before a later game was logged.
    let (second, _) = play(&server).await;
    let log_now = server.call("GET", "/log", None, None).await;
    let entries = log_now["entries"].as_array().unwrap();
    let theirs = entries
        .iter()
        .find(|e| e["game_id"] == second.as_str())
        .unwrap();
    let mut hidden = theirs.clone();
    hidden["seq"] = json!(1);
    hidden["prev_hash"] = json!(saboteur_storage::GENESIS);
    let logged_at = chrono::DateTime::parse_from_rfc3339(hidden["logged_at"].as_str().unwrap())
        .unwrap()
        .timestamp_millis();
    hidden["hash"] = json!(saboteur_storage::log_entry_hash_at(
        saboteur_storage::GENESIS,
        1,
        &second,
        hidden["version"].as_i64().unwrap(),
        hidden["head"].as_str().unwrap(),
        logged_at,
    ));
    let hidden_log = file(dir, "hidden.json", &json!({ "entries": [hidden] }));
    let out = verify_with(&[
        "--receipts",
        &kept_file,
        "--keys",
        &keys_file,
        "--log",
        &hidden_log,
    ]);
    // Logged seconds after the end, the later game is within the time the server may take to
    // log a game (its sweep, after a crash): not yet proof (side_doors.rs shows the proof once
    // it is).
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains(&format!("game {id} is not in the log yet")),
        "{}",
        text(&out)
    );

    // The operator withdraws its keys (trigger dropped, every key deleted) and starts again
    // with a new one: the bundle publishes only the new key. Without kept keys the old
    // receipts look forged; with them, the withdrawal is named. The checkpoint signed by the
    // old key is still checked with the kept keys, without a bundle.
    let checkpoint = server.call("GET", "/log/checkpoint", None, None).await;
    assert_eq!(checkpoint["size"], 2);
    let cp_file = file(dir, "checkpoint-2.json", &checkpoint);
    let store = without_trigger(&url, "server_keys_no_delete", "server_keys").await;
    assert!(store.execute_raw("DELETE FROM server_keys").await.unwrap() >= 1);
    let server = Server::start(&url).await;
    let without = server
        .call("GET", &format!("/games/{id}/audit"), None, None)
        .await;
    assert_ne!(without["keys"], bundle["keys"]);
    let without_file = file(dir, "without.json", &without);
    let out = verify_with(&["--file", &without_file, "--receipts", &kept_file]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("a forgery proves nothing"),
        "{}",
        text(&out)
    );
    let out = verify_with(&[
        "--file",
        &without_file,
        "--receipts",
        &kept_file,
        "--keys",
        &keys_file,
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains(&format!(
            "receipt for {} at version {}: it is signed by key {}, which was kept from the \
             server's published keys and which the bundle no longer publishes as it was: the \
             server withdrew its key",
            match kept[0]["receipt"]["seat"].as_u64() {
                Some(s) => format!("seat {s}"),
                None => "a spectator".into(),
            },
            kept[0]["receipt"]["version"],
            kept[0]["receipt"]["key_id"].as_str().unwrap()
        )),
        "{}",
        text(&out)
    );
    let log_file = file(
        dir,
        "log-now.json",
        &server.call("GET", "/log", None, None).await,
    );
    let out = verify_with(&[
        "--log",
        &log_file,
        "--checkpoint",
        &cp_file,
        "--keys",
        &keys_file,
    ]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("checkpoint of size 2 is a prefix of the log"),
        "{}",
        text(&out)
    );
}

on_both_stores!(
    receipts_prove_a_record_was_rewritten_after_it_was_served_on_sqlite,
    receipts_prove_a_record_was_rewritten_after_it_was_served_on_postgres,
    receipts_prove_a_rewrite
);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_file_is_published_and_a_rotation_keeps_the_old_key() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}?mode=rwc", dir.path().join("k.db").display());
    // Two processes starting on one database (its schema made first): one key.
    drop(saboteur_storage::EventStore::connect(&url).await.unwrap());
    let (a, b) = tokio::join!(Server::start(&url), Server::start(&url));
    let keys = a.call("GET", "/keys", None, None).await;
    assert_eq!(keys, b.call("GET", "/keys", None, None).await);
    assert_eq!(keys["keys"].as_array().unwrap().len(), 1);
    let first = keys["keys"][0]["id"].as_str().unwrap().to_string();
    assert!(keys["keys"][0]["retired_at"].is_null());
    assert_eq!(keys["keys"][0]["public_key"].as_str().unwrap().len(), 64);

    // `saboteur keys rotate`: a new active key; the old one stays published, retired.
    let out = Command::new(env!("CARGO_BIN_EXE_saboteur"))
        .args(["keys", "rotate", "--database-url", &url])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let rotated: Value = serde_json::from_slice(&out.stdout).unwrap();
    let keys = a.call("GET", "/keys", None, None).await;
    let keys = keys["keys"].as_array().unwrap();
    assert_eq!(keys.len(), 2);
    assert!(
        keys.iter()
            .any(|k| k["id"] == first.as_str() && k["retired_at"].is_string())
    );
    assert!(
        keys.iter()
            .any(|k| k["id"] == rotated["id"] && k["retired_at"].is_null())
    );

    // A key file: its key is the one published as active, and the one receipts name.
    let file = dir.path().join("signing.key");
    let config = saboteur_api::Config {
        signing_key_file: Some(file.clone()),
        // Many clients from one address: the per-client limits are switched off.
        limits: saboteur_api::Limits {
            off: true,
            ..saboteur_api::Limits::default()
        },
        ..saboteur_api::Config::new("127.0.0.1:0", url.as_str())
    };
    let (server, addr) = saboteur_api::start(config).await.unwrap();
    tokio::spawn(server);
    let mine = saboteur_api::receipt::Signer::from_file(&file).unwrap();
    let keys: Value = reqwest::get(format!("http://{addr}/keys"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let active: Vec<&Value> = keys["keys"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|k| k["retired_at"].is_null())
        .collect();
    assert_eq!(active.len(), 1);
    assert_eq!(active[0]["id"], mine.id());
    assert_eq!(active[0]["public_key"], mine.public_hex().as_str());
    let checkpoint: Value = reqwest::get(format!("http://{addr}/log/checkpoint"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(checkpoint["key_id"], mine.id());
    assert_eq!(checkpoint["size"], 0);
}

/// What a dishonest operator does to a game in the lobby to choose its deal: a seed of its
/// choosing in place of the one it committed to (the creation event, its hash, the game's row).
async fn change_the_seed(database_url: &str, id: &str) {
    let store = saboteur_storage::EventStore::connect(database_url)
        .await
        .unwrap();
    let postgres = database_url.starts_with("postgres");
    let on = if postgres { " ON events" } else { "" };
    store
        .execute_raw(&format!("DROP TRIGGER IF EXISTS events_no_update{on}"))
        .await
        .unwrap();
    let first = store
        .events_after(
            &saboteur_storage::GameId::parse(id).unwrap(),
            saboteur_storage::Version::of(0),
            1,
        )
        .await
        .unwrap()
        .remove(0);
    assert_eq!(first.event_type, "game_created");
    let seed = "c4".repeat(32);
    let mut payload = first.payload.clone();
    payload["seed"] = json!(seed);
    let hash = saboteur_storage::chain_hash(
        &first.prev_hash,
        id,
        1,
        &first.event_type,
        first.schema_version,
        &payload,
    );
    let commitment = saboteur_storage::seed_commitment(&[0xc4; 32]);
    let bytes = if postgres {
        format!("decode('{seed}', 'hex')")
    } else {
        format!("X'{seed}'")
    };
    for sql in [
        format!(
            "UPDATE events SET payload = '{payload}', hash = '{hash}' \
             WHERE game_id = '{id}' AND seq = 1"
        ),
        format!(
            "UPDATE games SET seed = {bytes}, seed_commitment = '{commitment}', \
             last_hash = '{hash}' WHERE id = '{id}'"
        ),
    ] {
        assert_eq!(store.execute_raw(&sql).await.unwrap(), 1, "{sql}");
    }
}

/// The replies to a creation and to taking a seat carry the seed's commitment and the seat's
/// share, signed: an honest game's bundle agrees with them, and `verify --commitment` names a
/// share the operator left out of the seed and a seed it changed after committing to it.
async fn commitments_hold_the_server_to_the_deal(url: &str, dir: &std::path::Path) {
    let share = "5a".repeat(32);
    for attack in ["none", "the share left out", "the seed changed"] {
        let server = Server::start(url).await;
        let (created, id, host) = server.create_base_game().await;
        assert_eq!(
            created["commitment"]["seed_commitment"],
            created["seed_commitment"]
        );
        assert_eq!(created["receipt"]["kind"], "commitment");
        // A share that is not 32 bytes of hex is refused, and takes no seat.
        let res = server
            .client
            .post(format!("{}/games/{id}/seats", server.base))
            .json(&json!({"name": "Ada", "entropy": "5a5a"}))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 400);
        let joined = server
            .call(
                "POST",
                &format!("/games/{id}/seats"),
                None,
                Some(json!({"name": "Ada", "entropy": share.to_uppercase()})),
            )
            .await;
        assert_eq!(joined["seat"], 0, "the refused share took no seat");
        assert_eq!(joined["commitment"]["entropy"], json!(share));
        assert_eq!(joined["commitment"]["seat"], 0);
        let me = joined["player_token"].as_str().unwrap().to_string();
        match attack {
            "the share left out" => {
                let store = saboteur_storage::EventStore::connect(url).await.unwrap();
                let sql = format!(
                    "UPDATE credentials SET entropy = NULL WHERE game_id = '{id}' \
                                   AND entropy IS NOT NULL"
                );
                assert_eq!(store.execute_raw(&sql).await.unwrap(), 1);
            }
            "the seed changed" => change_the_seed(url, &id).await,
            _ => {}
        }
        // The operator's server, started afresh on the store, runs the rest of the game.
        let server = Server::start(url).await;
        server.random_bots(&id, &host, 2).await;
        let started = server
            .call("POST", &format!("/games/{id}/start"), Some(&host), None)
            .await;
        let mixed = started["events"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["event"]["type"] == "seed_mixed");
        assert_eq!(mixed, attack != "the share left out", "{attack}: {started}");
        play_to_end(&server, &id, &me).await;
        let bundle = server
            .call("GET", &format!("/games/{id}/audit"), None, None)
            .await;
        let out = verify_with(&[
            "--file",
            &file(dir, "bundle.json", &bundle),
            "--commitment",
            &file(dir, "created.json", &created),
            "--commitment",
            &file(dir, "joined.json", &joined),
        ]);
        let said = text(&out);
        match attack {
            "none" => {
                assert!(out.status.success(), "{said}");
                assert!(said.contains("\"commitments\":2"), "{said}");
                let log = bundle["events"].as_array().unwrap();
                assert_eq!(log[1]["event_type"], "seed_mixed", "{}", log[1]);
                assert_eq!(
                    log[1]["payload"]["contributions"][0]["entropy"],
                    json!(share)
                );
            }
            "the share left out" => {
                // The bundle on its own is consistent: only the signed commitment shows it.
                let alone = verify_with(&["--file", &file(dir, "bundle.json", &bundle)]);
                assert!(alone.status.success(), "{}", text(&alone));
                assert_eq!(out.status.code(), Some(1), "{said}");
                assert!(
                    said.contains(&format!(
                        "seat 0 sent the share {share} when seat 0 was taken; the record mixed \
                         none into the seed for it"
                    )),
                    "{said}"
                );
            }
            _ => {
                let alone = verify_with(&["--file", &file(dir, "bundle.json", &bundle)]);
                assert!(alone.status.success(), "{}", text(&alone));
                assert_eq!(out.status.code(), Some(1), "{said}");
                assert!(
                    said.contains(&format!(
                        "the server committed to a seed hashing to {} when the game was \
                         created; the bundle's seed hashes to {}: the seed was changed after \
                         the server committed to it",
                        created["seed_commitment"].as_str().unwrap(),
                        bundle["seed_commitment"].as_str().unwrap()
                    )),
                    "{said}"
                );
            }
        }
    }
}

on_both_stores!(
    commitments_hold_the_server_to_the_deal_on_sqlite,
    commitments_hold_the_server_to_the_deal_on_postgres,
    commitments_hold_the_server_to_the_deal
);

/// A checkpoint commits to every key published when it was signed. The operator rotates its
/// key, then deletes the old one (trigger dropped): a player who kept no `GET /keys` but a
/// checkpoint signed after the rotation (by the key still published) has the withdrawal named,
/// and their receipts signed by the withdrawn key are shown genuine, not forged.
async fn checkpoints_commit_the_keys(url: &str, dir: &std::path::Path) {
    let server = Server::start(url).await;
    let (id, kept) = play(&server).await;
    let old = kept[0]["receipt"]["key_id"].as_str().unwrap().to_string();
    let out = Command::new(env!("CARGO_BIN_EXE_saboteur"))
        .args(["keys", "rotate", "--database-url", url])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    // Restarted, the server signs with the new key, and its checkpoints list both.
    let server = Server::start(url).await;
    let checkpoint = server.call("GET", "/log/checkpoint", None, None).await;
    assert_ne!(checkpoint["key_id"], old.as_str());
    let listed: Vec<&str> = checkpoint["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["id"].as_str().unwrap())
        .collect();
    assert!(
        listed.contains(&old.as_str()) && listed.len() == 2,
        "{checkpoint}"
    );
    let cp_file = file(dir, "checkpoint-keys.json", &checkpoint);
    let log_file = file(
        dir,
        "log-keys.json",
        &server.call("GET", "/log", None, None).await,
    );
    let kept_file = file(dir, "kept-keys.json", &json!(kept));
    // Untouched: the checkpoint's keys are all published.
    let bundle = server
        .call("GET", &format!("/games/{id}/audit"), None, None)
        .await;
    let args = |bundle_file: &str| {
        vec![
            "--file".to_string(),
            bundle_file.to_string(),
            "--receipts".into(),
            kept_file.clone(),
            "--log".into(),
            log_file.clone(),
            "--checkpoint".into(),
            cp_file.clone(),
        ]
    };
    let run = |a: Vec<String>| verify_with(&a.iter().map(String::as_str).collect::<Vec<_>>());
    let out = run(args(&file(dir, "bundle-keys.json", &bundle)));
    assert!(out.status.success(), "{}", text(&out));
    // The operator withdraws the old key.
    let store = without_trigger(url, "server_keys_no_delete", "server_keys").await;
    let sql = format!("DELETE FROM server_keys WHERE id = '{old}'");
    assert_eq!(store.execute_raw(&sql).await.unwrap(), 1);
    let server = Server::start(url).await;
    let without = server
        .call("GET", &format!("/games/{id}/audit"), None, None)
        .await;
    let out = run(args(&file(dir, "without-keys.json", &without)));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains(&format!(
            "the checkpoint of size {} signed at {} commits to key {old}, which the bundle no \
             longer publishes as it was: the server withdrew its key",
            checkpoint["size"],
            checkpoint["time"].as_str().unwrap()
        )),
        "{}",
        text(&out)
    );
    // Without the checkpoint, the same receipts look forged.
    let out = verify_with(&[
        "--file",
        &file(dir, "without-keys.json", &without),
        "--receipts",
        &kept_file,
    ]);
    assert!(
        text(&out).contains("a forgery proves nothing"),
        "{}",
        text(&out)
    );
}

on_both_stores!(
    checkpoints_commit_the_keys_on_sqlite,
    checkpoints_commit_the_keys_on_postgres,
    checkpoints_commit_the_keys
);

/// A seat with a key acts only with its player's signature: the operator, holding the database
/// and a token of its own swapped in for the seat's, cannot play for the player (401
/// `signature_required`); a command it writes into the record directly, or a signed body it
/// changes, is named by `saboteur verify`. Every signature of an honest game verifies.
async fn signed_seats_cannot_be_played_for(url: &str, dir: &std::path::Path) {
    let (key, public) = player_key(7);
    for attack in [
        "none",
        "an unsigned command written in",
        "a signed body changed",
    ] {
        let server = Server::start(url).await;
        let (_, id, host) = server.create_base_game().await;
        // A key that is not an Ed25519 key is refused, and takes no seat.
        let (status, problem) = server
            .signed(
                &format!("/games/{id}/seats"),
                "x",
                &json!({"name": "Ada", "public_key": "00".repeat(31)}).to_string(),
                None,
            )
            .await;
        assert_eq!((status, problem["code"].as_str()), (400, Some("bad_key")));
        let joined = server
            .call(
                "POST",
                &format!("/games/{id}/seats"),
                None,
                Some(keyed_join(&id, "Ada", &key)),
            )
            .await;
        assert_eq!(joined["seat"], 0, "the refused key took no seat");
        let me = joined["player_token"].as_str().unwrap().to_string();
        server.random_bots(&id, &host, 2).await;
        let started = server
            .call("POST", &format!("/games/{id}/start"), Some(&host), None)
            .await;
        let registered = events_of(&started, "seat_key_registered");
        assert_eq!(registered.len(), 1, "{started}");
        assert_eq!(registered[0]["event"]["key"], json!(public));
        let state = server
            .call("GET", &format!("/games/{id}/state"), None, None)
            .await;
        assert_eq!(state["table"]["seats"][0]["key"], json!(public), "{state}");

        // A signed message at the table; then the game, every command signed.
        let version = state["version"].as_u64().unwrap();
        let (status, said) = server
            .signed(
                &format!("/games/{id}/talk"),
                &me,
                &json!({"text": "signed, Ada"}).to_string(),
                Some((&key, &id, 0, version, "talk")),
            )
            .await;
        assert_eq!(status, 200, "{said}");
        let mut first_signed = None;
        for _ in 0..2000 {
            let summary = server
                .call("GET", &format!("/games/{id}"), None, None)
                .await;
            if summary["status"] == "finished" {
                break;
            }
            let legal = server
                .call("GET", &format!("/games/{id}/legal-moves"), Some(&me), None)
                .await;
            let Some(command) = legal["commands"].as_array().and_then(|c| c.first()) else {
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                continue;
            };
            let version = legal["version"].as_u64().unwrap();
            let path = format!("/games/{id}/commands");
            let body = command.to_string();
            if first_signed.is_none() {
                // Unsigned, it is refused; signed by another key, or for another version, too.
                let (status, problem) = server.signed(&path, &me, &body, None).await;
                assert_eq!(status, 401, "{problem}");
                assert_eq!(problem["code"], "signature_required", "{problem}");
                let (other, _) = player_key(8);
                let (status, problem) = server
                    .signed(
                        &path,
                        &me,
                        &body,
                        Some((&other, &id, 0, version, "command")),
                    )
                    .await;
                assert_eq!(
                    (status, problem["code"].as_str()),
                    (401, Some("bad_signature"))
                );
                let (status, problem) = server
                    .signed(
                        &path,
                        &me,
                        &body,
                        Some((&key, &id, 0, version + 1, "command")),
                    )
                    .await;
                assert_eq!(
                    (status, problem["code"].as_str()),
                    (401, Some("bad_signature"))
                );
                // The operator swaps in a token of its own for the seat: still no signature.
                let store = saboteur_storage::EventStore::connect(url).await.unwrap();
                let own = "operator-token";
                let sql = format!(
                    "UPDATE credentials SET token_hash = '{}' WHERE game_id = '{id}' AND seat = 0",
                    token_hash(own)
                );
                assert_eq!(store.execute_raw(&sql).await.unwrap(), 1);
                let operator = Server::start(url).await;
                let (status, problem) = operator.signed(&path, own, &body, None).await;
                assert_eq!(status, 401, "{problem}");
                assert_eq!(problem["code"], "signature_required", "{problem}");
                let sql = format!(
                    "UPDATE credentials SET token_hash = '{}' WHERE game_id = '{id}' AND seat = 0",
                    token_hash(&me)
                );
                assert_eq!(store.execute_raw(&sql).await.unwrap(), 1);
            }
            let (status, out) = server
                .signed(&path, &me, &body, Some((&key, &id, 0, version, "command")))
                .await;
            assert_eq!(status, 200, "{out}");
            if first_signed.is_none() {
                first_signed = out["events"][0]["seq"].as_i64();
                let recorded = &out["events"][0]["event"];
                assert_eq!(recorded["signature"]["body"], json!(body), "{recorded}");
                assert_eq!(recorded["signature"]["version"], version);
            }
        }
        let first_signed = first_signed.expect("seat 0 played");
        match attack {
            "an unsigned command written in" => {
                rewrite_event(url, &id, first_signed, |p| {
                    p.as_object_mut().unwrap().remove("signature");
                })
                .await;
            }
            "a signed body changed" => {
                rewrite_event(url, &id, first_signed, |p| {
                    // Under the canonical statement, spacing is not content: the operator
                    // changes what the body says.
                    let body = p["signature"]["body"].as_str().unwrap().to_string();
                    let mut value: Value = serde_json::from_str(&body).unwrap();
                    value["note"] = json!("the operator's");
                    p["signature"]["body"] = json!(value.to_string());
                })
                .await;
            }
            _ => {}
        }
        let server = Server::start(url).await;
        let bundle = server
            .call("GET", &format!("/games/{id}/audit"), None, None)
            .await;
        let out = verify_with(&["--file", &file(dir, "bundle.json", &bundle)]);
        let said = text(&out);
        let fingerprint = saboteur_domain::fingerprint(&public);
        // The server's verdict names the check that failed, as a stable code.
        let verdict = server
            .call("GET", &format!("/games/{id}/audit/verdict"), None, None)
            .await;
        let failed = if attack == "none" {
            Value::Null
        } else {
            json!("signature")
        };
        assert_eq!(verdict["failed_check"], failed, "{verdict}");
        match attack {
            "none" => {
                assert!(out.status.success(), "{said}");
                let verdict: Value = said
                    .lines()
                    .find_map(|l| l.strip_prefix("verified: "))
                    .and_then(|l| serde_json::from_str(l).ok())
                    .unwrap_or(Value::Null);
                let checked = verdict["signatures_checked"].as_u64().unwrap_or(0);
                assert!(checked >= 2, "{said}");
            }
            "an unsigned command written in" => {
                assert_eq!(out.status.code(), Some(1), "{said}");
                assert!(
                    said.contains(&format!(
                        "event {first_signed}: seat 0's command is not signed, yet the seat's \
                         key is {fingerprint}: the player did not make it"
                    )),
                    "{said}"
                );
            }
            _ => {
                assert_eq!(out.status.code(), Some(1), "{said}");
                assert!(
                    said.contains(&format!(
                        "event {first_signed}: seat 0's command carries a signature that does \
                         not verify under the seat's key ({fingerprint}): the player did not \
                         sign what is recorded"
                    )),
                    "{said}"
                );
            }
        }
    }
}

on_both_stores!(
    signed_seats_cannot_be_played_for_on_sqlite,
    signed_seats_cannot_be_played_for_on_postgres,
    signed_seats_cannot_be_played_for
);
