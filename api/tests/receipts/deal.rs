//! The seed's commitment holds the server to the deal it made: a seed changed in the lobby is
//! named by the commitments a player kept.

use crate::operator::*;
use serde_json::json;

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
    let hash = saboteur_verifier::seal::Chain::new(id)
        .hash(
            &first.prev_hash,
            1,
            &first.event_type,
            first.schema_version,
            &payload,
        )
        .unwrap();
    let commitment = saboteur_storage::seed_commitment(&[0xc4; 32]);
    let bytes = if postgres {
        format!("decode('{seed}', 'hex')")
    } else {
        format!("X'{seed}'")
    };
    for sql in [
        format!(
            "UPDATE events SET payload = '{payload}', hash = {} \
             WHERE game_id = '{id}' AND seq = 1",
            store.hash_sql(&hash)
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
