//! A retry answers exactly the first reply, even when the answer of one of the appends the
//! request made was lost: the store went away between a bot's commit and its answer (a fault
//! injected, `saboteur_storage::faults`). The bot's move under the request's key is then in the
//! store, and the request cannot say whether: it answers 503, never a 200 its retry would
//! contradict; the retry, read back from the store, answers the act and the key's bot moves,
//! and every later retry the same. On SQLite and PostgreSQL.

#[macro_use]
mod operator;

use operator::*;
use serde_json::Value;

/// `POST /games/{id}/commands` with `command`, signed by `key` for seat 0 at `version`, under
/// the `Idempotency-Key` `retry`: the status, whether it was replayed, and the body.
async fn command(
    server: &Server,
    (id, me): (&str, &str),
    (key, version): (&ed25519_dalek::SigningKey, u64),
    command: &Value,
    retry: &str,
) -> (u16, bool, Value) {
    use ed25519_dalek::Signer as _;
    let body = command.to_string();
    let signature = key.sign(&statement(id, 0, version, "command", &body));
    let res = server
        .client
        .post(format!("{}/games/{id}/commands", server.base))
        .bearer_auth(me)
        .header("Content-Type", "application/json")
        .header("Idempotency-Key", retry)
        .header("Seat-Signature", hex::encode(signature.to_bytes()))
        .header("Seat-Signature-Version", version.to_string())
        .body(body)
        .send()
        .await
        .unwrap();
    let status = res.status().as_u16();
    let replayed = res
        .headers()
        .get("Idempotency-Replayed")
        .is_some_and(|v| v == "true");
    (status, replayed, res.json().await.unwrap_or(Value::Null))
}

/// The sequence numbers and types of a reply's events.
fn events(reply: &Value) -> Vec<(u64, String)> {
    reply["events"]
        .as_array()
        .map(|events| {
            events
                .iter()
                .map(|e| {
                    let kind = e["event"]["type"].as_str().unwrap_or_default().to_string();
                    (e["seq"].as_u64().unwrap_or_default(), kind)
                })
                .collect()
        })
        .unwrap_or_default()
}

async fn a_lost_bot_answer_is_not_answered_twice_differently(url: &str, _dir: &std::path::Path) {
    let (key, _) = player_key(41);
    let server = Server::start(url).await;
    let (id, me, _) = keyed_game_with_bots(&server, &key).await;
    let (version, chosen) = first_legal(&server, &id, &me).await;
    // The command's own append goes through; the first bot's, under the command's key,
    // commits and loses its answer.
    saboteur_storage::faults::lose_an_answer(&saboteur_storage::GameId::parse(&id).unwrap(), 1);
    let (first, _, reply) = command(&server, (&id, &me), (&key, version), &chosen, "lost-1").await;
    let (status, replayed, retried) =
        command(&server, (&id, &me), (&key, version), &chosen, "lost-1").await;
    assert_eq!((status, replayed), (200, true), "{retried}");
    let answered = events(&retried);
    assert_eq!(
        answered.first().map(|(seq, kind)| (*seq, kind.as_str())),
        Some((version + 1, "command_accepted")),
        "{retried}"
    );
    assert!(
        answered.iter().any(|(seq, _)| *seq > version + 1),
        "the bot's move the lost answer recorded is the key's: {retried}"
    );
    // The first reply is never a 200 its retry contradicts: here, 503.
    if first == 200 {
        assert_eq!(events(&reply), answered, "first {reply}, retry {retried}");
    } else {
        assert_eq!(first, 503, "{reply}");
    }
    // Every later retry answers the same, whatever the bots played since.
    let (status, replayed, again) =
        command(&server, (&id, &me), (&key, version), &chosen, "lost-1").await;
    assert_eq!((status, replayed), (200, true), "{again}");
    assert_eq!(events(&again), answered);
}

on_both_stores!(
    a_lost_bot_answer_is_not_answered_twice_differently_on_sqlite,
    a_lost_bot_answer_is_not_answered_twice_differently_on_postgres,
    a_lost_bot_answer_is_not_answered_twice_differently
);
