//! Players' signatures in the log: every act of a seat with a key carries one, nothing else
//! does, none is dated after its act or used twice, and a reissued token drops the key. (The
//! signatures' cryptography is checked by the API's audit.)

use saboteur_domain::{
    Command, Event, History, Options, Ruleset, Seat, SeatSignature, Seed, SignedAct, SigningScheme,
    act_statement, audit, create, fingerprint, legal_commands, signed_acts, signing_message,
    signing_statement,
};

const KEY: &str = "3b6a27bcceb6a42d62a3a8d02a6f0d73653215771de243a63ac048a18b59da29";
/// A proof of possession as the record writes it (the engine checks its form; the verifier,
/// whether it verifies).
const PROOF: &str = "5d2a9e0c5d2a9e0c5d2a9e0c5d2a9e0c5d2a9e0c5d2a9e0c5d2a9e0c5d2a9e0c\
                     5d2a9e0c5d2a9e0c5d2a9e0c5d2a9e0c5d2a9e0c5d2a9e0c5d2a9e0c5d2a9e0c";

fn signed(version: u64, body: &str, n: u8) -> SeatSignature {
    SeatSignature {
        version,
        body: body.to_string(),
        signature: format!("{n:02x}").repeat(64),
    }
}

fn push_all(h: &mut History, events: Vec<Event>) {
    for e in events {
        h.push(e);
    }
}

/// A started three-player game, of record version `record` (the newest by default).
fn started_under(record: Option<u8>) -> History {
    let mut created = create(
        Ruleset::Base,
        Options::default(),
        3,
        Seat(0),
        Seed::from_u64(7),
    )
    .unwrap();
    if let (Event::GameCreated { record_version, .. }, Some(v)) = (&mut created, record) {
        *record_version = v;
    }
    let mut h = History::new(created).unwrap();
    let start = h.start().unwrap();
    push_all(&mut h, start);
    h
}

/// A started three-player game whose seat 0 registered [`KEY`], and the log so far.
fn keyed_game() -> History {
    let mut h = started_under(None);
    let key = h.register_key(Seat(0), KEY, (Some(PROOF), None)).unwrap();
    push_all(&mut h, key);
    h
}

/// Seat 0's first legal command, decided with `signature` recorded (if any).
fn play(h: &mut History, signature: Option<SeatSignature>) -> Command {
    let seat = h.game().awaited().unwrap();
    assert_eq!(seat, Seat(0));
    let command = legal_commands(h.game(), seat)[0].clone();
    let mut events = h.execute(seat, &command).unwrap();
    if let Some(s) = signature {
        assert!(Event::sign(&mut events, seat, s));
    }
    push_all(h, events);
    command
}

fn log(h: &History) -> Vec<Event> {
    h.log().to_vec()
}

#[test]
fn a_keyed_seats_signed_command_is_listed_with_its_key() {
    let mut h = keyed_game();
    let base = h.version();
    play(&mut h, Some(signed(base, "{}", 1)));
    let entries = signed_acts(&log(&h)).unwrap();
    assert_eq!(entries.len(), 1);
    let e = &entries[0];
    assert_eq!(
        (e.seat, e.act, e.base, e.key.as_str()),
        (Seat(0), SignedAct::Command, base, KEY)
    );
    assert_eq!(e.seq, base + 1);
    // The engine's audit decides it again, signature and all.
    let report = audit(&log(&h)).unwrap();
    assert_eq!(report.commands_checked, 1);
}

#[test]
fn a_keyed_seats_unsigned_command_is_named() {
    let mut h = keyed_game();
    let base = h.version();
    play(&mut h, None);
    let (seq, what) = signed_acts(&log(&h)).unwrap_err();
    assert_eq!(seq, base + 1);
    assert!(what.contains("seat 0's command is not signed"), "{what}");
    assert!(what.contains(&fingerprint(KEY)), "{what}");
    let d = audit(&log(&h)).unwrap_err();
    assert_eq!(d.seq, base + 1);
}

#[test]
fn a_signature_dated_after_its_act_or_used_twice_is_named() {
    let mut h = keyed_game();
    let base = h.version();
    play(&mut h, Some(signed(base + 1, "{}", 1)));
    let (_, what) = signed_acts(&log(&h)).unwrap_err();
    assert!(what.contains("after the version"), "{what}");

    // The same signature recorded for two acts of one decision (two messages).
    let mut h = keyed_game();
    let base = h.version();
    for _ in 0..2 {
        let mut said = h.talk(Some(Seat(0)), None, "hello", 1).unwrap();
        assert!(Event::sign(
            &mut said,
            Seat(0),
            signed(base, r#"{"text":"hello"}"#, 1)
        ));
        push_all(&mut h, said);
    }
    let (_, what) = signed_acts(&log(&h)).unwrap_err();
    assert!(what.contains("already used"), "{what}");

    // The same signature spent again at a later decision (record version 2).
    let mut h = keyed_game();
    let base = h.version();
    play(&mut h, Some(signed(base, "{}", 1)));
    while h.game().awaited() != Some(Seat(0)) {
        let seat = h.game().awaited().unwrap();
        let c = legal_commands(h.game(), seat)[0].clone();
        let e = h.execute(seat, &c).unwrap();
        push_all(&mut h, e);
    }
    play(&mut h, Some(signed(base, "{}", 1)));
    let (_, what) = signed_acts(&log(&h)).unwrap_err();
    assert!(
        what.contains("before the decision it was recorded at"),
        "{what}"
    );
}

#[test]
fn an_unkeyed_seat_signs_nothing_and_a_reissued_token_drops_the_key() {
    // Seat 1 has no key: its signature is out of place.
    let mut h = keyed_game();
    let base = h.version();
    play(&mut h, Some(signed(base, "{}", 1)));
    let seat = h.game().awaited().unwrap();
    assert_eq!(seat, Seat(1));
    let c = legal_commands(h.game(), seat)[0].clone();
    let mut events = h.execute(seat, &c).unwrap();
    assert!(Event::sign(&mut events, seat, signed(h.version(), "{}", 2)));
    let mut tampered = h.clone();
    push_all(&mut tampered, events);
    let (_, what) = signed_acts(&log(&tampered)).unwrap_err();
    assert!(what.contains("the seat has no key"), "{what}");

    // After a reissue, seat 0 plays unsigned, as a fresh token's holder may.
    let mut h = keyed_game();
    let reissued = h.reissue_token(Seat(0)).unwrap();
    push_all(&mut h, reissued);
    assert_eq!(h.seat_key(Seat(0)), None);
    play(&mut h, None);
    assert!(signed_acts(&log(&h)).unwrap().is_empty());
    audit(&log(&h)).unwrap();
}

#[test]
fn a_new_key_over_an_old_one_is_signed_by_the_old_one() {
    let mut h = keyed_game();
    let other = "a".repeat(64);
    let unsigned = h
        .register_key(Seat(0), &other, (Some(PROOF), None))
        .unwrap();
    let mut tampered = h.clone();
    push_all(&mut tampered, unsigned.clone());
    let (_, what) = signed_acts(&log(&tampered)).unwrap_err();
    assert!(what.contains("seat 0's key is not signed"), "{what}");

    let mut events = unsigned;
    let body = format!("{{\"public_key\":\"{other}\"}}");
    assert!(Event::sign(
        &mut events,
        Seat(0),
        signed(h.version(), &body, 3)
    ));
    push_all(&mut h, events);
    assert_eq!(h.seat_key(Seat(0)), Some(other.as_str()));
    let entries = signed_acts(&log(&h)).unwrap();
    assert_eq!(
        (entries[0].act, entries[0].key.as_str()),
        (SignedAct::Key, KEY)
    );
    audit(&log(&h)).unwrap();
    assert!(
        h.register_key(Seat(0), "not a key", (Some(PROOF), None))
            .is_err()
    );
}

#[test]
fn the_signed_message_names_game_seat_version_act_and_body() {
    let m = signing_message("g1", Seat(2), 41, SignedAct::Command, "{\"type\":\"pass\"}");
    assert_eq!(
        String::from_utf8(m).unwrap(),
        "saboteur-act-v1\ng1\n2\n41\ncommand\n{\"type\":\"pass\"}"
    );
    let m = signing_message("g1", Seat(0), 7, SignedAct::Approve, "");
    assert_eq!(
        String::from_utf8(m).unwrap(),
        "saboteur-act-v1\ng1\n0\n7\napprove\n"
    );
    assert_eq!(fingerprint(KEY).len(), 19);
}

#[test]
fn the_canonical_statement_is_the_act_as_a_value_whatever_bytes_were_sent() {
    let pretty = "{\n  \"type\": \"play_path\",\n  \"card\": 3, \"at\": {\"y\": -1, \"x\": 2},\n  \"rotated\": false\n}";
    let compact = r#"{"at":{"x":2,"y":-1},"card":3,"rotated":false,"type":"play_path"}"#;
    let m = signing_statement("g1", Seat(2), 41, SignedAct::Command, pretty).unwrap();
    assert_eq!(
        String::from_utf8(m.clone()).unwrap(),
        format!(
            r#"{{"act":"command","body":{compact},"game":"g1","scheme":"saboteur-act-v2","seat":2,"version":41}}"#
        )
    );
    assert_eq!(
        signing_statement("g1", Seat(2), 41, SignedAct::Command, compact),
        Some(m)
    );
    // An act without a body signs null; its version says what it is about.
    let m = signing_statement("g1", Seat(0), 7, SignedAct::Approve, "").unwrap();
    assert_eq!(
        String::from_utf8(m).unwrap(),
        r#"{"act":"approve","body":null,"game":"g1","scheme":"saboteur-act-v2","seat":0,"version":7}"#
    );
    // Another act, version or seat is another statement; a body that is not JSON has none.
    let undo = signing_statement("g1", Seat(0), 7, SignedAct::Undo, "");
    let later = signing_statement("g1", Seat(0), 8, SignedAct::Approve, "");
    assert!(undo.is_some() && undo != later);
    assert_eq!(
        signing_statement("g1", Seat(0), 7, SignedAct::Talk, "{oops"),
        None
    );
    // The record version chooses the scheme: the old one stays for recorded games.
    assert_eq!(SigningScheme::of_record(2), SigningScheme::ActV1);
    assert_eq!(SigningScheme::of_record(3), SigningScheme::ActV2);
    assert_eq!(SigningScheme::of_record(4), SigningScheme::ActV2);
    assert_eq!(SigningScheme::of_record(5), SigningScheme::ActV3);
    assert_eq!(
        SigningScheme::ActV1.signed_bytes("g1", Seat(0), 7, SignedAct::Approve, "", Some(5)),
        Some(signing_message("g1", Seat(0), 7, SignedAct::Approve, ""))
    );
    assert_eq!(
        SigningScheme::ActV2.signed_bytes("g1", Seat(0), 7, SignedAct::Approve, "", Some(5)),
        signing_statement("g1", Seat(0), 7, SignedAct::Approve, "")
    );
}

#[test]
fn the_statement_of_record_version_5_names_the_event_an_act_is_about() {
    let m = act_statement("g1", Seat(0), 7, SignedAct::Approve, "", Some(6)).unwrap();
    assert_eq!(
        String::from_utf8(m).unwrap(),
        r#"{"about":6,"act":"approve","body":null,"game":"g1","scheme":"saboteur-act-v3","seat":0,"version":7}"#
    );
    // An act about no event names none.
    let m = act_statement(
        "g1",
        Seat(2),
        41,
        SignedAct::Command,
        r#"{"type":"pass"}"#,
        None,
    );
    assert_eq!(
        String::from_utf8(m.unwrap()).unwrap(),
        r#"{"about":null,"act":"command","body":{"type":"pass"},"game":"g1","scheme":"saboteur-act-v3","seat":2,"version":41}"#
    );
    // The same vote about another request is another statement.
    assert_ne!(
        act_statement("g1", Seat(0), 7, SignedAct::Approve, "", Some(6)),
        act_statement("g1", Seat(0), 7, SignedAct::Approve, "", Some(3))
    );
    assert_eq!(
        SigningScheme::ActV3.signed_bytes("g1", Seat(0), 7, SignedAct::Undo, "", Some(4)),
        act_statement("g1", Seat(0), 7, SignedAct::Undo, "", Some(4))
    );
    let about = [
        SignedAct::Undo,
        SignedAct::Approve,
        SignedAct::Decline,
        SignedAct::Reclaim,
    ];
    for act in [
        SignedAct::Command,
        SignedAct::Talk,
        SignedAct::Leave,
        SignedAct::Key,
    ] {
        assert!(!act.names_an_event() && !about.contains(&act));
    }
    assert!(about.iter().all(|a| a.names_an_event()));
}

#[test]
fn a_hidden_commands_signature_is_hidden_with_it() {
    let mut h = keyed_game();
    let base = h.version();
    play(&mut h, Some(signed(base, "{\"type\":\"x\"}", 1)));
    let e = &log(&h)[base as usize];
    let spectator = saboteur_domain::redact(e, saboteur_domain::Audience::Spectator, false);
    let own = saboteur_domain::redact(e, saboteur_domain::Audience::Seat(Seat(0)), false);
    assert_eq!(spectator.signature(), None);
    assert!(
        !serde_json::to_string(&spectator)
            .unwrap()
            .contains("\\\"type\\\"")
    );
    assert_eq!(own.signature().map(|s| s.version), Some(base));
}

/// Record version 4: a key is registered only with its proof of possession (the engine refuses
/// one without it, `bad_key_proof`), and `key_proofs` lists each for the verifier or names a key
/// recorded without one. A game of record version 3 records keys without proofs, and a proof in
/// it is named as out of place.
#[test]
fn a_key_is_registered_with_its_proof_from_record_version_4() {
    use saboteur_domain::{TableError, key_proofs, options::KEY_PROOF_RECORD_VERSION};
    const { assert!(saboteur_domain::options::RECORD_VERSION >= KEY_PROOF_RECORD_VERSION) };
    let mut h = keyed_game();
    assert_eq!(
        h.register_key(Seat(1), KEY, (None, None)).unwrap_err(),
        TableError::BadKeyProof
    );
    assert_eq!(
        h.register_key(Seat(1), KEY, (Some("ab"), None))
            .unwrap_err(),
        TableError::BadKeyProof
    );
    let proofs = key_proofs(&log(&h)).unwrap();
    assert_eq!(
        proofs
            .iter()
            .map(|p| (p.seat, p.key.as_str(), p.proof.as_str()))
            .collect::<Vec<_>>(),
        vec![(Seat(0), KEY, PROOF)]
    );
    // The operator records a key without its proof: named, by the key's fingerprint.
    h.push(Event::SeatKeyRegistered {
        seat: Seat(1),
        key: KEY.into(),
        signature: None,
        proof: None,
        at: None,
    });
    let (seq, what) = key_proofs(&log(&h)).unwrap_err();
    assert_eq!(seq, h.version());
    assert_eq!(
        what,
        format!(
            "seat 1's key {} is registered without its holder's proof of possession: nothing \
             shows the player took the seat with it",
            fingerprint(KEY)
        )
    );
    assert!(audit(&log(&h)).is_err());

    // Record version 3: no proof asked for, none allowed.
    let mut old = started_under(Some(3));
    let key = old.register_key(Seat(0), KEY, (None, None)).unwrap();
    push_all(&mut old, key);
    assert!(key_proofs(&log(&old)).unwrap().is_empty());
    old.push(Event::SeatKeyRegistered {
        seat: Seat(1),
        key: KEY.into(),
        signature: None,
        proof: Some(PROOF.into()),
        at: None,
    });
    assert!(key_proofs(&log(&old)).is_err());
}

/// The key statement, byte for byte (docs/clients.md): its three members sorted, the key in
/// lowercase whatever case it was sent in.
#[test]
fn the_key_statement_names_its_scheme_the_game_the_key_and_during_play_its_moment() {
    let statement = saboteur_domain::key_proof_statement("g1", &KEY.to_ascii_uppercase());
    assert_eq!(
        String::from_utf8(statement).unwrap(),
        format!("{{\"game\":\"g1\",\"key\":\"{KEY}\",\"scheme\":\"saboteur-key-v1\"}}")
    );
    // During play (record version 7 on) it also names the seat and the version it was made at.
    let dated =
        saboteur_domain::key_proof_statement_at("g1", &KEY.to_ascii_uppercase(), Seat(2), 41);
    assert_eq!(
        String::from_utf8(dated).unwrap(),
        format!(
            "{{\"game\":\"g1\",\"key\":\"{KEY}\",\"scheme\":\"saboteur-key-v2\",\"seat\":2,\"version\":41}}"
        )
    );
}

/// `not_signed_by`, as `verify --player-key` uses it: a player who changed keys during play
/// gives every key they held, and no act of theirs is named; given only one of them, the acts
/// signed with the other (and its registration) are named.
#[test]
fn a_player_who_changed_keys_shows_every_act_with_all_of_them() {
    use saboteur_domain::not_signed_by;
    let mut h = keyed_game();
    let body = |command: &Command| serde_json::to_string(command).unwrap();
    let command = legal_commands(h.game(), Seat(0))[0].clone();
    let version = h.version();
    play(&mut h, Some(signed(version, &body(&command), 1)));
    let other = "a".repeat(64);
    let mut events = h
        .register_key(Seat(0), &other, (Some(PROOF), None))
        .unwrap();
    let key_body = format!("{{\"public_key\":\"{other}\",\"key_proof\":\"{PROOF}\"}}");
    assert!(Event::sign(
        &mut events,
        Seat(0),
        signed(h.version(), &key_body, 2)
    ));
    push_all(&mut h, events);
    let mut talk = h.talk(Some(Seat(0)), None, "mine too", 0).unwrap();
    let talk_body = "{\"text\":\"mine too\"}";
    assert!(Event::sign(
        &mut talk,
        Seat(0),
        signed(h.version(), talk_body, 3)
    ));
    push_all(&mut h, talk);
    let log = log(&h);
    assert_eq!(not_signed_by(&log, Seat(0), &[KEY, &other]), vec![]);
    let first_only = not_signed_by(&log, Seat(0), &[KEY]);
    assert_eq!(first_only.len(), 2, "{first_only:?}");
    assert!(
        first_only[0].1.contains("the record registers key"),
        "{first_only:?}"
    );
    assert!(
        first_only[1].1.contains("seat 0's talk is signed by key"),
        "{first_only:?}"
    );
    let second_only = not_signed_by(&log, Seat(0), &[&other]);
    assert!(
        second_only
            .iter()
            .any(|(_, what)| what.contains("seat 0's command is signed by key")),
        "{second_only:?}"
    );
}

/// Record version 7: a key registered after the seat's token was reissued is proved at a
/// version no earlier than the reissue and no later than its own (`at`), so the proof a player
/// made before, read from the record, cannot seat their key again. A key proved in the lobby
/// (no `at`) holds only while the seat's token was never reissued, and a key signs for one seat
/// at a time. The audit names each misdated proof and a key on two seats; a game of record
/// version 6 dates none.
#[test]
fn a_key_registered_after_a_reissue_is_proved_after_it_from_record_version_7() {
    use saboteur_domain::{TableError, audit, key_proofs, options::DATED_KEY_PROOF_RECORD_VERSION};
    const { assert!(saboteur_domain::options::RECORD_VERSION >= DATED_KEY_PROOF_RECORD_VERSION) };
    let mut h = keyed_game();
    // Before any reissue the lobby's undated proof holds, and so does a dated one; seat 0's
    // key is its own.
    let other = "ab".repeat(32);
    assert!(h.register_key(Seat(1), &other, (Some(PROOF), None)).is_ok());
    let version = h.version();
    assert!(
        h.register_key(Seat(1), &other, (Some(PROOF), Some(version)))
            .is_ok()
    );
    assert_eq!(
        h.register_key(Seat(1), KEY, (Some(PROOF), None))
            .unwrap_err(),
        TableError::KeyInUse(Seat(0))
    );
    let reissue = h.reissue_token(Seat(0)).unwrap();
    push_all(&mut h, reissue);
    let since = h.version();
    assert_eq!(h.key_proof_since(Seat(0)), since);
    assert_eq!(h.key_proof_since(Seat(1)), 0);
    for at in [None, Some(since - 1), Some(since + 1)] {
        assert_eq!(
            h.register_key(Seat(0), KEY, (Some(PROOF), at)).unwrap_err(),
            TableError::BadKeyProof,
            "{at:?}"
        );
    }
    // One key signs for one seat: once seat 1 holds it, seat 0 cannot take it back.
    let seat1 = h.register_key(Seat(1), KEY, (Some(PROOF), None)).unwrap();
    let mut two = h.clone();
    push_all(&mut two, seat1);
    assert_eq!(
        two.register_key(Seat(0), KEY, (Some(PROOF), Some(since)))
            .unwrap_err(),
        TableError::KeyInUse(Seat(1))
    );
    let events = h
        .register_key(Seat(0), KEY, (Some(PROOF), Some(since)))
        .unwrap();
    assert!(matches!(events[..], [Event::SeatKeyRegistered { at: Some(a), .. }] if a == since));
    push_all(&mut h, events);
    assert!(audit(&log(&h)).is_ok());
    assert_eq!(
        key_proofs(&log(&h)).unwrap().last().unwrap().at,
        Some(since)
    );

    // The operator registers the same key for a second seat: named.
    let mut doubled = h.clone();
    doubled.push(Event::SeatKeyRegistered {
        seat: Seat(2),
        key: KEY.into(),
        signature: None,
        proof: Some(PROOF.into()),
        at: None,
    });
    let wrong = audit(&log(&doubled)).unwrap_err();
    assert_eq!(wrong.seq, doubled.version());
    assert!(
        wrong
            .what
            .contains("the key is seat 0's: one key signs for one seat"),
        "{}",
        wrong.what
    );

    // The operator puts the key back after another reissue with the proof already recorded
    // (dated before it), or with the lobby's: named.
    let reissue = h.reissue_token(Seat(0)).unwrap();
    push_all(&mut h, reissue);
    let again = h.version();
    for (at, named) in [
        (
            Some(since),
            format!(
                "made at version {since}, before the seat's token was reissued at version {again}"
            ),
        ),
        (
            None,
            format!(
                "after the seat's token was reissued at version {again} with a proof that names no moment"
            ),
        ),
    ] {
        let mut forged = h.clone();
        forged.push(Event::SeatKeyRegistered {
            seat: Seat(0),
            key: KEY.into(),
            signature: None,
            proof: Some(PROOF.into()),
            at,
        });
        let wrong = audit(&log(&forged)).unwrap_err();
        assert_eq!(wrong.seq, forged.version());
        assert!(wrong.what.contains(&named), "{}", wrong.what);
    }

    // Record version 6 dates no proof: a dated one is named as out of place.
    let mut old = started_under(Some(6));
    let reissue = old.reissue_token(Seat(0)).unwrap();
    push_all(&mut old, reissue);
    let key = old
        .register_key(Seat(0), KEY, (Some(PROOF), Some(old.version())))
        .unwrap();
    assert!(matches!(
        key[..],
        [Event::SeatKeyRegistered { at: None, .. }]
    ));
    old.push(Event::SeatKeyRegistered {
        seat: Seat(0),
        key: KEY.into(),
        signature: None,
        proof: Some(PROOF.into()),
        at: Some(2),
    });
    assert!(key_proofs(&log(&old)).is_err());
}
