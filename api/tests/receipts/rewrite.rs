//! A record rewritten after it was served, proved by the receipts kept of it.

use std::process::Command;

use crate::operator::*;
use crate::{cut_before_the_end, play, redate_talk, verify};
use serde_json::{Value, json};

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
    let first = store
        .events_after(&game_id, saboteur_storage::Version::of(0), 1)
        .await
        .unwrap()
        .remove(0);
    let created = saboteur_storage::decode(&first).unwrap();
    let hash = saboteur_verifier::seal::Chain::after(id, &created)
        .hash(
            &last.prev_hash,
            last.seq.stored(),
            &last.event_type,
            last.schema_version,
            &payload,
        )
        .unwrap();
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
            "UPDATE events SET payload = '{payload}', hash = {} \
             WHERE game_id = '{id}' AND seq = {}",
            store.hash_sql(&hash),
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

/// A finished game as served: every body kept with its receipt, the receipts alone, and what
/// the server published of it before anything changed.
struct Served {
    url: String,
    id: String,
    kept: Vec<Value>,
    bare: Vec<Value>,
    bundle: Value,
    keys: Value,
    checkpoint: Value,
}

impl Served {
    /// The version the game ended at.
    fn version(&self) -> usize {
        self.bundle["events"].as_array().unwrap().len()
    }
}

/// The files a later check reads: the record cut before its end, the keys kept from first
/// contact, the bodies kept.
struct Files {
    cut: String,
    keys: String,
    kept: String,
}

/// Plays a game keeping every body served, and reads its bundle, the keys, the log and the
/// checkpoint: each publishes the same keys and entry.
async fn served(url: &str) -> (Server, Served) {
    let server = Server::start(url).await;
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
    let bare: Vec<Value> = kept.iter().map(|b| b["receipt"].clone()).collect();
    let served = Served {
        url: url.to_string(),
        id,
        kept,
        bare,
        bundle,
        keys,
        checkpoint,
    };
    (server, served)
}

/// Untouched, the receipts agree, bare or with their bodies, with the CLI and the server; a
/// back-dated message is named.
async fn untouched_receipts_agree(server: &Server, s: &Served, dir: &std::path::Path) {
    let Served {
        id,
        kept,
        bare,
        bundle,
        ..
    } = s;
    // Untouched, every receipt agrees with the bundle: views, outcomes, spectators, a replay.
    let out = verify(dir, bundle, &json!(kept));
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("receipts agree with the bundle")
            && text(&out).contains("\"commitments\":2,\"refusals\":1,"),
        "{}",
        text(&out)
    );
    // The operator back-dates the message posted after the start was served (its time, the
    // chain after it recomputed): the start outcome's signed time names it.
    let redated = redate_talk(bundle, 60_000);
    let out = verify(dir, &redated, &json!(kept));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("the event was back-dated"),
        "{}",
        text(&out)
    );
    // Bare receipts too.
    let out = verify(dir, bundle, &json!(bare));
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
}

/// A forged receipt, or a body changed after it was served, proves nothing.
async fn forgeries_prove_nothing(server: &Server, s: &Served, dir: &std::path::Path) {
    let Served {
        id,
        kept,
        bare,
        bundle,
        ..
    } = s;
    // A forged receipt proves nothing: it is refused.
    let mut forged = bare.clone();
    forged[3]["version"] = json!(forged[3]["version"].as_i64().unwrap() + 1);
    let out = verify(dir, bundle, &json!(forged));
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
    let out = verify(dir, bundle, &json!(changed));
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("not the one it signed"),
        "{}",
        text(&out)
    );
}

/// A record cut before the end, or relabelled, does not verify; the cut record is written to
/// `dir` for the checks after the rewrite.
fn a_cut_record_says_where_it_stops(s: &Served, dir: &std::path::Path) -> String {
    let Served { bare, bundle, .. } = s;
    // A record that never ends the game does not verify: it says where it stops. Receipts
    // served before the cut agree with it, and `--unfinished` audits it as a game in progress.
    let (cut, at) = cut_before_the_end(bundle);
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
    cut_file
}

/// Receipts alone, with the keys kept from first contact, say what they prove; the keys and
/// the bodies kept are written to `dir`.
fn receipts_alone_say_what_they_prove(s: &Served, dir: &std::path::Path) -> (String, String) {
    let Served { id, kept, keys, .. } = s;
    let version = s.version();
    // Receipts alone, with the keys kept from first contact, say what they prove.
    let keys_file = file(dir, "keys.json", keys);
    let kept_file = file(dir, "kept.json", &json!(kept));
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
    (keys_file, kept_file)
}

/// The operator rewrites the end of the game: the first receipt at the end names the change,
/// and the log no longer extends the checkpoint kept before. The server after the rewrite, that
/// receipt, and whose it is.
async fn a_rewrite_is_named(s: &Served, dir: &std::path::Path) -> (Server, Value, String) {
    let Served {
        url,
        id,
        kept,
        bundle,
        checkpoint,
        ..
    } = s;
    let version = s.version();
    // The operator rewrites the end of the game and everything that hashes it.
    rewrite(url, id).await;
    let server = Server::start(url).await;
    let rewritten = server
        .call("GET", &format!("/games/{id}/audit"), None, None)
        .await;
    assert_ne!(&rewritten, bundle);
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
    (server, first_at_end.clone(), who)
}

/// Equivocation: two heads signed at one version are named, with or without a bundle.
async fn equivocation_is_named(
    server: &Server,
    s: &Served,
    dir: &std::path::Path,
    (first_at_end, who): (&Value, &str),
    files: &Files,
) {
    let Served { id, .. } = s;
    let version = s.version();
    let (keys_file, cut_file) = (&files.keys, &files.cut);
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
}

/// A hidden game: a log served without this game is not yet proof seconds after its end: verify
/// cannot tell yet (exit 4).
async fn a_hidden_game_is_not_yet_proof(
    server: &Server,
    s: &Served,
    dir: &std::path::Path,
    files: &Files,
) {
    let Served { id, .. } = s;
    let (keys_file, kept_file) = (&files.keys, &files.kept);
    // A hidden game: another game is played and logged; the operator serves a log without the
    // first (the second re-chained from the start). The receipts of the first show its end was
    // signed before a later game was logged.
    let (second, _) = play(server).await;
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
        kept_file,
        "--keys",
        keys_file,
        "--log",
        &hidden_log,
    ]);
    // Logged seconds after the end, the later game is within the time the server may take to
    // log a game (its sweep, after a crash): not yet proof either way (side_doors.rs shows the
    // proof once it is), said with its own exit code, never as verified.
    assert_eq!(out.status.code(), Some(4), "{}", text(&out));
    assert!(
        text(&out).contains(&format!("cannot tell yet whether game {id} was logged")),
        "{}",
        text(&out)
    );
}

/// The operator withdraws its keys: named with the keys kept, and the checkpoint signed by
/// the old key still checks.
async fn withdrawn_keys_are_named(
    server: &Server,
    s: &Served,
    dir: &std::path::Path,
    files: &Files,
) {
    let Served {
        url,
        id,
        kept,
        bundle,
        ..
    } = s;
    let (keys_file, kept_file) = (&files.keys, &files.kept);
    // The operator withdraws its keys (trigger dropped, every key deleted) and starts again
    // with a new one: the bundle publishes only the new key. Without kept keys the old
    // receipts look forged; with them, the withdrawal is named. The checkpoint signed by the
    // old key is still checked with the kept keys, without a bundle.
    let checkpoint = server.call("GET", "/log/checkpoint", None, None).await;
    assert_eq!(checkpoint["size"], 2);
    let cp_file = file(dir, "checkpoint-2.json", &checkpoint);
    let store = without_trigger(url, "server_keys_no_delete", "server_keys").await;
    assert!(store.execute_raw("DELETE FROM server_keys").await.unwrap() >= 1);
    let server = Server::start(url).await;
    let without = server
        .call("GET", &format!("/games/{id}/audit"), None, None)
        .await;
    assert_ne!(without["keys"], bundle["keys"]);
    let without_file = file(dir, "without.json", &without);
    let out = verify_with(&["--file", &without_file, "--receipts", kept_file]);
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
        kept_file,
        "--keys",
        keys_file,
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
        keys_file,
    ]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("checkpoint of size 2 is a prefix of the log"),
        "{}",
        text(&out)
    );
}

/// Plays, keeps receipts, checks them, rewrites the game, and checks them again.
async fn receipts_prove_a_rewrite(url: &str, dir: &std::path::Path) {
    let (server, s) = served(url).await;
    untouched_receipts_agree(&server, &s, dir).await;
    forgeries_prove_nothing(&server, &s, dir).await;
    let cut = a_cut_record_says_where_it_stops(&s, dir);
    let (keys, kept) = receipts_alone_say_what_they_prove(&s, dir);
    let files = Files { cut, keys, kept };
    let (server, first_at_end, who) = a_rewrite_is_named(&s, dir).await;
    equivocation_is_named(&server, &s, dir, (&first_at_end, &who), &files).await;
    a_hidden_game_is_not_yet_proof(&server, &s, dir, &files).await;
    withdrawn_keys_are_named(&server, &s, dir, &files).await;
}

on_both_stores!(
    receipts_prove_a_record_was_rewritten_after_it_was_served_on_sqlite,
    receipts_prove_a_record_was_rewritten_after_it_was_served_on_postgres,
    receipts_prove_a_rewrite
);
