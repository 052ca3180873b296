//! A hidden game, by the clock: the operator erases a finished game and its log entry, and
//! restarts its server with the clock set back, so that the games it logs and the checkpoints
//! it signs afterwards all seem to come before the hidden game's end. `verify` no longer says
//! "verified" of such a log: with nothing late enough to tell, it says it cannot tell yet (exit
//! 4), and so it says of an old checkpoint served again; a checkpoint signed before the entries
//! it covers is a contradiction (exit 1). On SQLite and PostgreSQL, the honest case beside it.

#[macro_use]
mod operator;

use operator::*;
use serde_json::{Value, json};

/// Erases game `id` (its events, its row no longer a finished game's) and its log entry, the
/// last of the log.
async fn erase(url: &str, id: &str) {
    let events = without_trigger(url, "events_no_delete", "events").await;
    let sql = format!("DELETE FROM events WHERE game_id = '{id}'");
    assert!(events.execute_raw(&sql).await.unwrap() > 0);
    let sql = format!("UPDATE games SET status = 'active', version = 0 WHERE id = '{id}'");
    assert_eq!(events.execute_raw(&sql).await.unwrap(), 1);
    let log = without_trigger(url, "transparency_log_no_delete", "transparency_log").await;
    let sql = format!("DELETE FROM transparency_log WHERE game_id = '{id}'");
    assert_eq!(log.execute_raw(&sql).await.unwrap(), 1, "{sql}");
}

/// `verify` of the receipt of a game's end against the keys, a log and checkpoints.
fn verify_log(
    dir: &std::path::Path,
    over: &Value,
    keys: &Value,
    log: &Value,
    checkpoints: &[&Value],
) -> (Option<i32>, String) {
    let mut args = vec![
        "--receipts".to_string(),
        file(dir, "over.json", &json!([over])),
        "--keys".to_string(),
        file(dir, "keys.json", keys),
        "--log".to_string(),
        file(dir, "log.json", log),
    ];
    for (c, n) in checkpoints.iter().zip(0..) {
        args.push("--checkpoint".into());
        args.push(file(dir, &format!("checkpoint-{n}.json"), c));
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = verify_with(&args);
    (out.status.code(), text(&out))
}

async fn a_hidden_game_by_the_clock_is_not_verified(url: &str, dir: &std::path::Path) {
    let clock = saboteur_api::TimeSource::manual(T0);
    let server = Server::start_at(url, clock.clone()).await;
    let before = server.call("GET", "/log/checkpoint", None, None).await;
    let (first, over) = a_finished_bot_game(&server).await;
    let keys = server.call("GET", "/keys", None, None).await;
    // Honest: the game is an entry of the log, and a checkpoint signed after covers it.
    clock.advance(5_000);
    let honest_checkpoint = server.call("GET", "/log/checkpoint", None, None).await;
    let log = server.call("GET", "/log", None, None).await;
    let (code, said) = verify_log(dir, &over, &keys, &log, &[&honest_checkpoint]);
    assert_eq!(code, Some(0), "{said}");
    assert!(
        said.contains(&format!("game {first} is log entry")),
        "{said}"
    );

    // The operator erases the game and its entry, and starts again 30 s before its end.
    erase(url, &first).await;
    let ended = chrono::DateTime::parse_from_rfc3339(over["receipt"]["served_at"].as_str().unwrap())
        .unwrap()
        .timestamp_millis() as u64;
    // The operator's one clock, set back: the server started before runs on it too (its sweep
    // may log the next game first), as one machine's processes would.
    clock.set(ended - 30_000);
    let server = Server::start_at(url, clock.clone()).await;
    let (second, _) = a_finished_bot_game(&server).await;
    let checkpoint = server.call("GET", "/log/checkpoint", None, None).await;
    let log = server.call("GET", "/log", None, None).await;
    assert!(
        log["entries"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["game_id"] == second.as_str())
    );
    // Everything the operator serves seems to come before the game's end: not "verified".
    let (code, said) = verify_log(dir, &over, &keys, &log, &[&checkpoint]);
    assert_eq!(code, Some(4), "{said}");
    assert!(
        said.contains(&format!("cannot tell yet whether game {first} was logged")),
        "{said}"
    );

    // A checkpoint signed 24 s before the entries it covers: the clock was set back.
    let earlier = saboteur_api::TimeSource::manual(ended - 54_000);
    let server = Server::start_at(url, earlier).await;
    let early = server.call("GET", "/log/checkpoint", None, None).await;
    assert_eq!(early["size"], checkpoint["size"], "{early}");
    let (code, said) = verify_log(dir, &over, &keys, &log, &[&early]);
    assert_eq!(code, Some(1), "{said}");
    assert!(
        said.contains("before its last entry") && said.contains("the server's clock was set back"),
        "{said}"
    );

    // A checkpoint kept from before the game ended, served again as the latest: it is a prefix
    // of the log, and too early to tell.
    let (code, said) = verify_log(dir, &over, &keys, &log, &[&before]);
    assert_eq!(code, Some(4), "{said}");
    assert!(said.contains("cannot tell yet"), "{said}");
}

on_both_stores!(
    a_hidden_game_by_the_clock_is_not_verified_on_sqlite,
    a_hidden_game_by_the_clock_is_not_verified_on_postgres,
    a_hidden_game_by_the_clock_is_not_verified
);
