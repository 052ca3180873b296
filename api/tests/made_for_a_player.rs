//! Moves that stand for a player are checkable (disputes v4, attack 1): a move a bot makes for a
//! player's seat — when the player's clock ran out, or after the host handed the seat over — is
//! recorded by the server only with a bot version its own verifier has, so a move the operator
//! labels with a version the verifier does not know is "a move made for seat 0 that nobody can
//! check" (exit 1), not a move it merely cannot vouch for (exit 3, kept for the lobby's bot
//! seats). On SQLite and PostgreSQL, the honest game of each kind beside it.

#[macro_use]
mod operator;

use operator::*;
use serde_json::{Value, json};

/// The sequence number of the first bot move for seat 0 after the first event of `kind`.
fn first_bot_move_after(events: &Value, kind: &str) -> i64 {
    let events = events["events"].as_array().unwrap();
    let from = events
        .iter()
        .position(|r| r["event"]["type"] == kind)
        .unwrap();
    events[from..]
        .iter()
        .find(|r| {
            r["event"]["type"] == "command_accepted"
                && r["event"]["seat"] == 0
                && r["event"]["bot"].is_object()
        })
        .map(|r| r["seq"].as_i64().unwrap())
        .unwrap()
}

async fn a_move_made_for_a_player_is_checkable(url: &str, dir: &std::path::Path) {
    let (key, _) = player_key(21);
    for ((how, forged), n) in [
        ("a timeout", false),
        ("a timeout", true),
        ("a hand-over", false),
        ("a hand-over", true),
    ]
    .into_iter()
    .zip(0..)
    {
        // Each case on a store of its own: the servers of an earlier case go on sweeping theirs
        // on their own clocks, and would time this one's seat out.
        let url = &if url.starts_with("postgres") {
            saboteur_storage::testing::fresh_database().await
        } else {
            format!(
                "sqlite://{}?mode=rwc",
                dir.join(format!("case-{n}.db")).display()
            )
        };
        let clock = saboteur_api::TimeSource::manual(T0);
        let server = Server::start_at(url, clock.clone()).await;
        let (id, host, me) = clocked_game(&server, &key).await;
        let kind = if how == "a timeout" {
            // The player is away past the clock: the next read records the timeout and the
            // timeout bot's move for the seat; then the player plays on.
            clock.advance(61_000);
            server
                .call("GET", &format!("/games/{id}/state"), None, None)
                .await;
            play_signed(&server, &id, &me, &key).await;
            "turn_timed_out"
        } else {
            // The host hands the seat to a bot, which plays it to the end.
            let handed = server
                .call(
                    "POST",
                    &format!("/games/{id}/seats/0/handover"),
                    Some(&host),
                    Some(json!({"level": "heuristic"})),
                )
                .await;
            assert!(handed["version"].is_i64(), "{handed}");
            play_to_end(&server, &id, &me).await;
            "seat_handed_to_bot"
        };
        let events = server
            .call(
                "GET",
                &format!("/games/{id}/events?after=0&limit=1000"),
                None,
                None,
            )
            .await;
        let seq = first_bot_move_after(&events, kind);
        if forged {
            // The operator labels the move with a bot version no verifier has (its own choice
            // can then not be told from the bot's).
            rewrite_event(url, &id, seq, |p| p["bot"]["version"] = json!(99)).await;
        }
        let (code, said) = verify_bundle(url, dir, &id).await;
        if forged {
            // A timeout is named at its batch, which opens with the timeout just before the
            // move; a hand-over's move at the move.
            let at = if how == "a timeout" { seq - 1 } else { seq };
            assert_eq!(code, Some(1), "{how}: {said}");
            assert!(
                said.contains(&format!("event {at}: "))
                    && said.contains("a move made for seat 0 that nobody can check"),
                "{how}: {said}"
            );
        } else {
            assert_eq!(code, Some(0), "{how}: {said}");
        }
    }
}

on_both_stores!(
    a_move_made_for_a_player_is_checkable_on_sqlite,
    a_move_made_for_a_player_is_checkable_on_postgres,
    a_move_made_for_a_player_is_checkable
);
