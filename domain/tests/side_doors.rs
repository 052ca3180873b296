//! The record's side doors (record version 2): a bot's command only for a seat the record gives
//! to a bot, with the seed derived from the game's seed and version; a signature only at the
//! decision it was made for. Each attack is shown caught, and the honest record beside it
//! passing. (The signatures' cryptography is checked by the API's audit.)

use saboteur_domain::bot::{BOT_VERSIONS, bot_game, decision_seed};
use saboteur_domain::{
    BotLevel, BotMove, Event, HandOver, History, Options, Ruleset, Seat, SeatSignature, Secret,
    Seed, audit, create, legal_commands, signed_acts,
};

/// A whole game of heuristic bots at 4 seats, recorded as a server records it.
fn bots_log() -> Vec<Event> {
    bot_game(
        Ruleset::Base,
        Options::default(),
        4,
        Seed::from_u64(31),
        |_, _| BotLevel::Heuristic,
    )
}

#[test]
fn a_bot_game_records_every_bot_seat_after_the_deal_and_verifies() {
    let log = bots_log();
    // Created under today's record version (2 or later records the bot seats).
    assert!(matches!(
        log[0],
        Event::GameCreated {
            record_version: saboteur_domain::options::RECORD_VERSION,
            ..
        }
    ));
    const { assert!(saboteur_domain::options::RECORD_VERSION >= 2) };
    let lobby: Vec<Seat> = log
        .iter()
        .filter_map(|e| match e {
            Event::SeatHandedToBot {
                seat,
                reason: HandOver::Lobby,
                ..
            } => Some(*seat),
            _ => None,
        })
        .collect();
    assert_eq!(lobby, vec![Seat(0), Seat(1), Seat(2), Seat(3)]);
    let first_move = log
        .iter()
        .position(|e| matches!(e, Event::CommandAccepted { .. }))
        .unwrap();
    let last_lobby = log
        .iter()
        .rposition(|e| matches!(e, Event::SeatHandedToBot { .. }))
        .unwrap();
    assert!(last_lobby < first_move, "recorded before the first move");
    let report = audit(&log).unwrap();
    assert!(report.bot_moves_checked > 50);
    assert_eq!(report.bot_moves_of_other_versions, 0);
}

/// A base game for three, seat 1 first, created under the newest record version.
fn created() -> History {
    History::new(
        create(
            Ruleset::Base,
            Options::default(),
            3,
            Seat(1),
            Seed::from_u64(8),
        )
        .unwrap(),
    )
    .unwrap()
}

/// A game of one human seat (0) and two bots: the log up to the human's first decision.
fn mixed_table() -> History {
    let mut h = created();
    let start = h.start().unwrap();
    start.into_iter().for_each(|e| h.push(e));
    let bots = h
        .seat_lobby_bots(&[(Seat(1), BotLevel::Random), (Seat(2), BotLevel::Random)])
        .unwrap();
    bots.into_iter().for_each(|e| h.push(e));
    while h.game().awaited() != Some(Seat(0)) {
        let seat = h.game().awaited().unwrap();
        let events = h.execute_bot(seat, BotLevel::Random).unwrap();
        events.into_iter().for_each(|e| h.push(e));
    }
    h
}

/// Attack 1: the operator writes a move for a player's seat labelled as a bot's, grinding the
/// seed until the random bot chooses the move it wants.
#[test]
fn a_bot_label_on_a_players_seat_is_named() {
    let h = mixed_table();
    // Honest: the player's own command verifies.
    let command = legal_commands(h.game(), Seat(0))[0].clone();
    let mut honest = h.log().to_vec();
    honest.extend(h.execute(Seat(0), &command).unwrap());
    audit(&honest).unwrap();
    // The same command labelled as a random bot's, with the derived seed: the seat is not a
    // bot's in the record.
    let seed = decision_seed(&h.game().seed(), h.version());
    let labelled = |bot: BotMove| {
        let mut events = h.execute(Seat(0), &command).unwrap();
        if let Event::CommandAccepted { bot: b, .. } = &mut events[0] {
            *b = Some(bot);
        }
        events
    };
    let forged = labelled(BotMove::new(BotLevel::Random, seed));
    let mut log = h.log().to_vec();
    log.extend(forged);
    let found = audit(&log).expect_err("a bot move for a player's seat");
    assert_eq!(found.seq, h.version() + 1);
    assert!(
        found
            .what
            .contains("which the record does not give to a bot at this version"),
        "{found}"
    );
    // With a version the verifier does not know, no grinding is needed: still named.
    let mut newer = BotMove::new(BotLevel::Random, seed);
    newer.version = 99;
    let forged = labelled(newer);
    let mut log = h.log().to_vec();
    log.extend(forged);
    assert!(audit(&log).is_err());
}

/// Attack 1: a bot seat's move with a seed written freely (ground until the bot chose a wanted
/// move) is named, and so is one claiming another level than the record gives the seat.
#[test]
fn a_bot_seed_not_derived_from_the_game_is_named() {
    let mut h = mixed_table();
    let command = legal_commands(h.game(), Seat(0))[0].clone();
    let events = h.execute(Seat(0), &command).unwrap();
    events.into_iter().for_each(|e| h.push(e));
    let seat = h.game().awaited().unwrap();
    assert_ne!(seat, Seat(0));
    let honest = h.execute_bot(seat, BotLevel::Random).unwrap();
    let mut log = h.log().to_vec();
    log.extend(honest.clone());
    audit(&log).unwrap();

    let derived = decision_seed(&h.game().seed(), h.version());
    let mut ground = honest.clone();
    if let Event::CommandAccepted { bot: Some(b), .. } = &mut ground[0] {
        assert_eq!(b.seed, Secret::Known(derived));
        b.seed = Secret::Known(derived ^ 1);
    }
    let mut log = h.log().to_vec();
    log.extend(ground);
    let found = audit(&log).expect_err("a seed written freely");
    assert!(
        found
            .what
            .contains("is not the one derived from the game's seed"),
        "{found}"
    );

    let mut relabelled = honest;
    if let Event::CommandAccepted { bot: Some(b), .. } = &mut relabelled[0] {
        b.level = BotLevel::Heuristic;
    }
    let mut log = h.log().to_vec();
    log.extend(relabelled);
    let found = audit(&log).expect_err("another level than the record's");
    assert!(
        found
            .what
            .contains("which the record gives to the random bot"),
        "{found}"
    );
}

/// A bot version the verifier does not know, on a seat the record gives to a bot: decided again,
/// counted apart (the verifier cannot vouch for it), never counted as checked.
#[test]
fn a_bot_version_this_build_does_not_have_is_counted_apart() {
    let log: Vec<Event> = bots_log()
        .into_iter()
        .map(|mut e| {
            if let Event::CommandAccepted { bot: Some(b), .. } = &mut e {
                b.version = BOT_VERSIONS.end() + 1;
            }
            e
        })
        .collect();
    let report = audit(&log).unwrap();
    assert_eq!(report.bot_moves_checked, 0);
    assert!(report.bot_moves_of_other_versions > 50);
}

/// The lobby's bots are recorded once, right after the deal and before any move, never for a
/// seat with a key, and only under record version 2.
#[test]
fn lobby_bots_are_recorded_only_between_the_deal_and_the_first_move() {
    let h = mixed_table();
    assert!(h.seat_lobby_bots(&[(Seat(0), BotLevel::Random)]).is_err());
    let mut fresh = created();
    // Before the deal: refused.
    assert!(
        fresh
            .seat_lobby_bots(&[(Seat(1), BotLevel::Random)])
            .is_err()
    );
    let start = fresh.start().unwrap();
    start.into_iter().for_each(|e| fresh.push(e));
    let key = "3b6a27bcceb6a42d62a3a8d02a6f0d73653215771de243a63ac048a18b59da29";
    let keyed = fresh
        .register_key(Seat(2), key, (Some("ab".repeat(64).as_str()), None))
        .unwrap();
    keyed.into_iter().for_each(|e| fresh.push(e));
    assert!(
        fresh
            .seat_lobby_bots(&[(Seat(2), BotLevel::Random)])
            .is_err()
    );
    assert!(
        fresh
            .seat_lobby_bots(&[(Seat(1), BotLevel::Random), (Seat(1), BotLevel::Random)])
            .is_err()
    );
    assert_eq!(
        fresh
            .seat_lobby_bots(&[(Seat(1), BotLevel::Random)])
            .unwrap()
            .len(),
        1
    );
    // A game recorded under version 1 has no lobby record.
    let mut created = create(
        Ruleset::Base,
        Options::default(),
        3,
        Seat(1),
        Seed::from_u64(8),
    )
    .unwrap();
    if let Event::GameCreated { record_version, .. } = &mut created {
        *record_version = 1;
    }
    let mut old = History::new(created).unwrap();
    let start = old.start().unwrap();
    start.into_iter().for_each(|e| old.push(e));
    assert!(old.seat_lobby_bots(&[(Seat(1), BotLevel::Random)]).is_err());
}

/// Attack 2: a signature made at an earlier decision (a command refused with 412, an undo
/// request refused) recorded later in place of another act is named under record version 2.
#[test]
fn a_signature_from_an_earlier_decision_is_named() {
    let key = "3b6a27bcceb6a42d62a3a8d02a6f0d73653215771de243a63ac048a18b59da29";
    let mut h = mixed_table();
    let keyed = h
        .register_key(Seat(0), key, (Some("ab".repeat(64).as_str()), None))
        .unwrap();
    keyed.into_iter().for_each(|e| h.push(e));
    let sign = |version: u64| SeatSignature {
        version,
        body: "{}".into(),
        signature: "ab".repeat(64),
    };
    let command = legal_commands(h.game(), Seat(0))[0].clone();
    // Honest: signed at the version it was decided at (a key registration since changes no
    // decision, so the version before it holds too).
    for version in [h.decision_version(), h.version()] {
        let mut events = h.execute(Seat(0), &command).unwrap();
        assert!(Event::sign(&mut events, Seat(0), sign(version)));
        let mut log = h.log().to_vec();
        log.extend(events);
        signed_acts(&log).unwrap();
    }
    // Signed at a version before the last decision: named.
    let stale = h.decision_version() - 1;
    let mut events = h.execute(Seat(0), &command).unwrap();
    assert!(Event::sign(&mut events, Seat(0), sign(stale)));
    let mut log = h.log().to_vec();
    log.extend(events);
    let (seq, what) = signed_acts(&log).expect_err("a stale signature");
    assert_eq!(seq, h.version() + 1);
    assert!(
        what.contains("before the decision it was recorded at"),
        "{what}"
    );
    assert!(audit(&log).is_err());
}
