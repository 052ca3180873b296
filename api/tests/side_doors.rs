//! The side doors of "nobody, the operator included, can play for you", each tried as a
//! dishonest operator would (the store edited directly, triggers dropped, the player's key used
//! to sign what the player once sent) and caught by `saboteur verify` with its exact sentence;
//! the honest case of each passes. On SQLite and PostgreSQL.

#[macro_use]
mod operator;

use operator::*;
use serde_json::{Value, json};

/// Attack 1: a move for a keyed seat labelled as a bot's (a seed of the operator's choosing, or a
/// bot version the verifier does not know). The record says which seats are bots' (the lobby's
/// bots recorded after the deal), so the label is named; a bot seat's move of an unknown bot
/// version is not vouched for (exit 3).
async fn a_bot_label_is_no_side_door(url: &str, dir: &std::path::Path) {
    let (key, _) = player_key(7);
    for attack in [
        "none",
        "a bot's seed",
        "an unknown bot version",
        "a bot seat's newer bot",
    ] {
        let server = Server::start(url).await;
        let (id, me, started) = keyed_game_with_bots(&server, &key).await;
        let lobby: Vec<(u64, String)> = events_of(&started, "seat_handed_to_bot")
            .into_iter()
            .map(|e| {
                assert_eq!(e["event"]["reason"], "lobby", "{e}");
                (
                    e["event"]["seat"].as_u64().unwrap(),
                    e["event"]["level"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        assert_eq!(lobby, vec![(1, "random".into()), (2, "random".into())]);
        let played = play_signed(&server, &id, &me, &key).await;
        let (mine, _) = played[0];
        let bundle = server
            .call("GET", &format!("/games/{id}/audit"), None, None)
            .await;
        let bot_move = bundle["events"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| !e["payload"]["bot"].is_null())
            .map(|e| e["seq"].as_i64().unwrap())
            .unwrap();
        match attack {
            "a bot's seed" => {
                rewrite_event(url, &id, mine, |p| {
                    p.as_object_mut().unwrap().remove("signature");
                    p["bot"] = json!({"level": "random", "version": 3, "seed": 14});
                })
                .await;
            }
            "an unknown bot version" => {
                rewrite_event(url, &id, mine, |p| {
                    p.as_object_mut().unwrap().remove("signature");
                    p["bot"] = json!({"level": "random", "version": 99, "seed": 0});
                })
                .await;
            }
            "a bot seat's newer bot" => {
                rewrite_event(url, &id, bot_move, |p| p["bot"]["version"] = json!(99)).await;
            }
            _ => {}
        }
        let (code, said) = verify_bundle(url, dir, &id).await;
        match attack {
            "none" => assert_eq!(code, Some(0), "{said}"),
            "a bot seat's newer bot" => {
                assert_eq!(code, Some(3), "{said}");
                assert!(
                    said.contains(
                        "cannot vouch for 1 bot moves: they were recorded by a bot \
                                   version this verifier does not have"
                    ),
                    "{said}"
                );
            }
            _ => {
                assert_eq!(code, Some(1), "{said}");
                assert!(
                    said.contains(&format!(
                        "event {mine}: a random bot's command for seat 0, which the record does \
                         not give to a bot at this version: a move made for the seat's player"
                    )),
                    "{said}"
                );
            }
        }
    }
}

on_both_stores!(
    a_bot_label_is_no_side_door_on_sqlite,
    a_bot_label_is_no_side_door_on_postgres,
    a_bot_label_is_no_side_door
);

/// Attack 4: a hidden game. The operator erases a finished game's log entry and chains the later
/// entries again; setting their `logged_at` earlier breaks their hashes, and a checkpoint
/// signed after the game's signed end that lacks it names the game as hidden.
async fn a_hidden_game_is_named(url: &str, dir: &std::path::Path) {
    let attacks = [
        "none",
        "erased",
        "erased and re-dated",
        "re-dated, hash kept",
    ];
    for (attack, hour) in attacks.into_iter().zip(0..) {
        // Each attack on a store of its own (servers of an earlier attack, on other clocks,
        // go on sweeping theirs), an hour after the last.
        let url = &if url.starts_with("postgres") {
            saboteur_storage::testing::fresh_database().await
        } else {
            let file = dir.join(format!("hidden-{hour}.db"));
            format!("sqlite://{}?mode=rwc", file.display())
        };
        let start = T0 + hour * 3_600_000;
        let clock = saboteur_api::TimeSource::manual(start);
        let server = Server::start_at(url, clock.clone()).await;
        let (first, over) = a_finished_bot_game(&server).await;
        // Five minutes later another game ends and is logged.
        clock.advance(300_000);
        let (second, _) = a_finished_bot_game(&server).await;
        let keys = server.call("GET", "/keys", None, None).await;
        let store = without_trigger(url, "transparency_log_no_update", "transparency_log").await;
        without_trigger(url, "transparency_log_no_delete", "transparency_log").await;
        let entries = store.log_entries(0, 100).await.unwrap();
        let mine = entries
            .iter()
            .position(|e| e.game_id.as_str() == first)
            .unwrap();
        let theirs = entries
            .iter()
            .position(|e| e.game_id.as_str() == second)
            .unwrap();
        assert!(mine < theirs);
        if attack != "none" {
            // The game erased (its events gone, its row no longer a finished game's), so no
            // sweep logs it again; every entry from its own on chained again one place earlier.
            let events = without_trigger(url, "events_no_delete", "events").await;
            let sql = format!("DELETE FROM events WHERE game_id = '{first}'");
            assert!(events.execute_raw(&sql).await.unwrap() > 0);
            let sql =
                format!("UPDATE games SET status = 'active', version = 0 WHERE id = '{first}'");
            assert_eq!(events.execute_raw(&sql).await.unwrap(), 1);
            let moved: Vec<_> = entries[mine + 1..].to_vec();
            let sql = format!("DELETE FROM transparency_log WHERE seq >= {}", mine + 1);
            store.execute_raw(&sql).await.unwrap();
            let mut prev = entries[mine].prev_hash.clone();
            for (e, seq) in moved.iter().zip(mine as i64 + 1..) {
                let mut at = e.logged_at.timestamp_millis();
                if attack != "erased" {
                    at = i64::try_from(start).unwrap();
                }
                let signed_at = if attack == "re-dated, hash kept" {
                    e.logged_at.timestamp_millis()
                } else {
                    at
                };
                let hash = saboteur_storage::log_entry_hash_at(
                    &prev,
                    seq,
                    e.game_id.as_str(),
                    e.version.stored(),
                    &e.head,
                    signed_at,
                );
                let when = chrono::DateTime::from_timestamp_millis(at).unwrap();
                let sql = format!(
                    "INSERT INTO transparency_log \
                     (seq, game_id, version, head, prev_hash, hash, logged_at) VALUES \
                     ({seq}, '{}', {}, '{}', '{prev}', '{hash}', '{}')",
                    e.game_id,
                    e.version,
                    e.head,
                    when.to_rfc3339()
                );
                assert_eq!(store.execute_raw(&sql).await.unwrap(), 1, "{sql}");
                prev = hash;
            }
        }
        // A checkpoint signed now (five minutes after the first game's end), and the log.
        let server = Server::start_at(url, clock.clone()).await;
        let checkpoint = server.call("GET", "/log/checkpoint", None, None).await;
        let log = server.call("GET", "/log", None, None).await;
        let out = verify_with(&[
            "--receipts",
            &file(dir, "over.json", &json!([over])),
            "--keys",
            &file(dir, "keys.json", &keys),
            "--log",
            &file(dir, "log.json", &log),
            "--checkpoint",
            &file(dir, "checkpoint.json", &checkpoint),
        ]);
        let said = text(&out);
        match attack {
            "none" => {
                assert_eq!(out.status.code(), Some(0), "{said}");
                assert!(
                    said.contains(&format!("game {first} is log entry")),
                    "{said}"
                );
            }
            "erased" => {
                assert_eq!(out.status.code(), Some(1), "{said}");
                assert!(
                    said.contains(&format!(
                        "contradiction: the server signed game {first}'s end at version"
                    )) && said.contains("games logged since (their times bound in their hashes)")
                        && said.contains("the game was hidden"),
                    "{said}"
                );
            }
            "erased and re-dated" => {
                assert_eq!(out.status.code(), Some(1), "{said}");
                assert!(
                    said.contains("the checkpoint of size")
                        && said.contains("lacks it: the game was hidden"),
                    "{said}"
                );
            }
            _ => {
                assert_eq!(out.status.code(), Some(1), "{said}");
                assert!(
                    said.contains("its contents do not match its hash"),
                    "{said}"
                );
            }
        }
    }
}

on_both_stores!(
    a_hidden_game_is_named_on_sqlite,
    a_hidden_game_is_named_on_postgres,
    a_hidden_game_is_named
);

/// Attack 7: an honest server falsely accused. A server running 25 s fast signs a refusal; it
/// is restarted with its clock corrected. The game's next events are stamped no earlier than
/// the refusal (its time is kept in the store), so the refusal never reads as back-dated.
async fn a_corrected_clock_accuses_nobody(url: &str, dir: &std::path::Path) {
    let fast = saboteur_api::TimeSource::manual(T0 + 25_000);
    let server = Server::start_at(url, fast).await;
    let clock = json!({"options": {"clock": {"kind": "per_decision", "seconds": 600}}});
    let (id, host, joined) = lobby(&server, clock, |_| json!({"name": "Ada"})).await;
    let me = joined["player_token"].as_str().unwrap().to_string();
    server
        .call("POST", &format!("/games/{id}/start"), Some(&host), None)
        .await;
    // A command refused (a pass discards a card): its refusal signed at the fast time.
    let (status, refused) = server
        .signed(
            &format!("/games/{id}/commands"),
            &me,
            &json!({"type": "pass", "discard": []}).to_string(),
            None,
        )
        .await;
    assert!((400..500).contains(&status), "{status} {refused}");
    assert!(refused["receipt"]["signature"].is_string(), "{refused}");
    // Restarted with the clock corrected: 25 s earlier.
    let corrected = Server::start_at(url, saboteur_api::TimeSource::manual(T0)).await;
    play_to_end(&corrected, &id, &me).await;
    let bundle = corrected
        .call("GET", &format!("/games/{id}/audit"), None, None)
        .await;
    let out = verify_with(&[
        "--file",
        &file(dir, "bundle.json", &bundle),
        "--receipts",
        &file(dir, "refused.json", &json!([refused])),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        text(&out).contains("receipts agree with the bundle"),
        "{}",
        text(&out)
    );
}

on_both_stores!(
    a_corrected_clock_accuses_nobody_on_sqlite,
    a_corrected_clock_accuses_nobody_on_postgres,
    a_corrected_clock_accuses_nobody
);

/// Attack 3: a key swapped in the lobby. The operator puts its own key in place of seat 0's
/// before the start and plays the seat with it. The seat's signed commitment covers the key
/// the player sent, so `verify --commitment` names the swap, and `verify --player-key` names
/// every act the player's own key did not sign.
async fn a_key_swapped_in_the_lobby_is_named(url: &str, dir: &std::path::Path) {
    let (_, public) = player_key(11);
    let (operator_key, operator_public) = player_key(12);
    for attack in ["none", "changed by the player", "swapped"] {
        let server = Server::start(url).await;
        let (id, host, joined) = keyed_lobby(&server, &player_key(11).0).await;
        assert_eq!(
            joined["commitment"]["public_key"],
            json!(public),
            "{joined}"
        );
        let me = joined["player_token"].as_str().unwrap().to_string();
        let mut commitments = vec![file(dir, "joined.json", &joined)];
        let mut public = public.clone();
        let signer = if attack == "changed by the player" {
            // The honest case of a key changed in the lobby: signed by the old key, answered
            // with the seat's commitment made again, which the player keeps too.
            let (new_key, new_public) = player_key(13);
            let proof = key_proof(&new_key, &id);
            let body = json!({ "public_key": new_public, "key_proof": proof }).to_string();
            let version = server
                .call("GET", &format!("/games/{id}"), None, None)
                .await["lobby_version"]
                .as_u64()
                .unwrap();
            let (status, kept) = server
                .signed_with(
                    reqwest::Method::PUT,
                    &format!("/games/{id}/seats/0/key"),
                    &me,
                    &body,
                    Some((&player_key(11).0, &id, 0, version, "key")),
                )
                .await;
            assert_eq!(status, 201, "{kept}");
            assert_eq!(
                kept["commitment"]["public_key"],
                json!(new_public),
                "{kept}"
            );
            assert_eq!(kept["receipt"]["kind"], "commitment", "{kept}");
            commitments.push(file(dir, "kept.json", &kept));
            public = new_public;
            new_key
        } else if attack == "swapped" {
            let store = saboteur_storage::EventStore::connect(url).await.unwrap();
            // With its own proof: the operator holds that key.
            let proof = key_proof(&operator_key, &id);
            let sql = format!(
                "UPDATE credentials SET public_key = '{operator_public}', \
                 key_proof = '{proof}' WHERE game_id = '{id}' AND seat = 0"
            );
            assert_eq!(store.execute_raw(&sql).await.unwrap(), 1);
            operator_key.clone()
        } else {
            player_key(11).0
        };
        // A fresh process, as the operator's: it reads the seats from the store.
        let server = Server::start(url).await;
        server
            .call("POST", &format!("/games/{id}/start"), Some(&host), None)
            .await;
        let played = play_signed(&server, &id, &me, &signer).await;
        let bundle = server
            .call("GET", &format!("/games/{id}/audit"), None, None)
            .await;
        let bundle_file = file(dir, "bundle.json", &bundle);
        let mut args = vec!["--file", bundle_file.as_str()];
        for c in &commitments {
            args.extend(["--commitment", c.as_str()]);
        }
        let out = verify_with(&args);
        let said = text(&out);
        let mine = saboteur_domain::fingerprint(&public);
        let theirs = saboteur_domain::fingerprint(&operator_public);
        let player = format!("0:{public}");
        let own = verify_with(&["--file", &bundle_file, "--player-key", &player]);
        let own_said = text(&own);
        if attack != "swapped" {
            assert_eq!(out.status.code(), Some(0), "{said}");
            assert_eq!(own.status.code(), Some(0), "{own_said}");
            assert!(
                own_said.contains(&format!("every act of seat 0 is signed by the key {mine}")),
                "{own_said}"
            );
            continue;
        }
        assert_eq!(out.status.code(), Some(1), "{said}");
        assert!(
            said.contains(&format!(
                "seat 0 was taken with the key {mine} when seat 0 was taken; the record \
                 registers {theirs} for it: a key swapped in the lobby"
            )),
            "{said}"
        );
        assert_eq!(own.status.code(), Some(1), "{own_said}");
        assert!(
            own_said.contains(&format!(
                "the record registers key {theirs} for seat 0, not yours ({mine})"
            )),
            "{own_said}"
        );
        let (first, _) = played[0];
        assert!(
            own_said.contains(&format!(
                "event {first}: seat 0's command is signed by key {theirs}, not yours ({mine})"
            )),
            "{own_said}"
        );
    }
}

on_both_stores!(
    a_key_swapped_in_the_lobby_is_named_on_sqlite,
    a_key_swapped_in_the_lobby_is_named_on_postgres,
    a_key_swapped_in_the_lobby_is_named
);

/// Attack 5: a rotated-in key withdrawn. `saboteur keys rotate` publishes the new key endorsed
/// by the one before it, so a client that kept the first key follows the chain when it reads
/// `GET /keys` again; the operator who later deletes the rotated-in key is named as withdrawing
/// it, a key list whose chain was changed is named too, and so is the fresh, unendorsed key a
/// server makes when the active key is gone.
async fn a_rotated_key_cannot_be_withdrawn(url: &str, dir: &std::path::Path) {
    let server = Server::start(url).await;
    let first_keys = server.call("GET", "/keys", None, None).await;
    let (id, _, me) = server.started_with_bots(json!({"name": "Ada"})).await;
    let before = server
        .call("GET", &format!("/games/{id}/state"), Some(&me), None)
        .await;
    // The key rotated mid-game; a process started since signs with the new one.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_saboteur"))
        .args(["keys", "rotate", "--database-url", url])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let rotated: Value = serde_json::from_slice(&out.stdout).unwrap();
    let server = Server::start(url).await;
    let after = server
        .call("GET", &format!("/games/{id}/state"), Some(&me), None)
        .await;
    assert_eq!(after["receipt"]["key_id"], rotated["id"]);
    // The client reads the keys again on meeting a key it does not have: the new key is
    // endorsed by the first.
    let later_keys = server.call("GET", "/keys", None, None).await;
    let published: Vec<saboteur_verifier::receipt::PublishedKey> =
        serde_json::from_value(later_keys["keys"].clone()).unwrap();
    assert_eq!(published.len(), 2);
    assert!(published[1].endorsement.is_some(), "{later_keys}");
    assert_eq!(saboteur_verifier::receipt::broken_chain(&published), None);
    play_to_end(&server, &id, &me).await;
    let receipts = file(dir, "receipts.json", &json!([before, after]));
    let first = file(dir, "first-keys.json", &first_keys);
    let later = file(dir, "later-keys.json", &later_keys);
    let bundle = server
        .call("GET", &format!("/games/{id}/audit"), None, None)
        .await;
    let out = verify_with(&[
        "--file",
        &file(dir, "bundle.json", &bundle),
        "--receipts",
        &receipts,
        "--keys",
        &first,
        "--keys",
        &later,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));

    // A kept list whose endorsement was changed: named.
    let mut forged = later_keys.clone();
    forged["keys"][1]["endorsement"] = json!("00".repeat(64));
    let out = verify_with(&[
        "--receipts",
        &receipts,
        "--keys",
        &file(dir, "forged-keys.json", &forged),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains(&format!(
            "key {} is published as endorsed by key {}, and that key did not sign it",
            published[1].id, published[0].id
        )),
        "{}",
        text(&out)
    );

    // The operator deletes the rotated-in key: the bundle no longer publishes it, and the
    // receipts it signed are named as the server withdrawing its key.
    let store = without_trigger(url, "server_keys_no_delete", "server_keys").await;
    let sql = format!("DELETE FROM server_keys WHERE id = '{}'", published[1].id);
    assert_eq!(store.execute_raw(&sql).await.unwrap(), 1);
    // The running server, which signs with the deleted key, serves the bundle without it.
    let withdrawn = server
        .call("GET", &format!("/games/{id}/audit"), None, None)
        .await;
    let out = verify_with(&[
        "--file",
        &file(dir, "withdrawn.json", &withdrawn),
        "--receipts",
        &receipts,
        "--keys",
        &first,
        "--keys",
        &later,
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains(&format!(
            "it is signed by key {}, which was kept from the server's published keys and which \
             the bundle no longer publishes as it was: the server withdrew its key",
            published[1].id
        )),
        "{}",
        text(&out)
    );

    // A server started since finds no active key and makes a fresh one: nobody endorsed it,
    // and the bundle's chain names it (the kept keys no longer needed).
    let server = Server::start(url).await;
    let fresh = server.call("GET", "/keys", None, None).await;
    let fresh_id = fresh["keys"][1]["id"].as_str().unwrap().to_string();
    assert!(fresh["keys"][1]["endorsement"].is_null(), "{fresh}");
    let bundle = server
        .call("GET", &format!("/games/{id}/audit"), None, None)
        .await;
    let out = verify_with(&["--file", &file(dir, "fresh.json", &bundle)]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains(&format!(
            "the bundle's keys: key {fresh_id} is published without an endorsement by key {}, \
             the key before it: nobody vouched for it",
            published[0].id
        )),
        "{}",
        text(&out)
    );
}

on_both_stores!(
    a_rotated_key_cannot_be_withdrawn_on_sqlite,
    a_rotated_key_cannot_be_withdrawn_on_postgres,
    a_rotated_key_cannot_be_withdrawn
);
