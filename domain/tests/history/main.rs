//! Undo without rewriting history, and the audit of whole logs.

mod games;

use saboteur_domain::bot::bot_rng;
use saboteur_domain::random::below;
use saboteur_domain::{
    Event, History, Options, Ruleset, Seat, Secret, Seed, UndoError, audit, create, legal_commands,
};

use games::{bots_play, find_request, game_with_undos, push_all, seat_bots, shares};

#[test]
fn undo_returns_to_the_state_before_and_the_audit_accepts_it() {
    for seed in 0..60 {
        let (ruleset, players) = if seed % 2 == 0 {
            (Ruleset::Base, 3 + (seed % 8) as u8)
        } else {
            (Ruleset::Saboteur2, 2 + (seed % 11) as u8)
        };
        let h = game_with_undos(ruleset, players, seed);
        assert!(
            h.log().iter().any(|e| matches!(e, Event::Undone { .. })),
            "seed {seed}: some undo"
        );
        let report = audit(h.log()).unwrap_or_else(|d| panic!("seed {seed}: {d}"));
        assert_eq!(report.events, h.version());
        assert_eq!(report.gold, h.game().gold());
        assert!(
            report.commands_checked > 0 && report.deals_checked >= 3 && report.undos_checked > 0
        );
        // Replaying the log gives the same state.
        let again = History::replay(h.log().iter().cloned()).unwrap();
        assert_eq!(again.game(), h.game());
    }
}

/// The players' shares change the deal, the log records them, and the audit deals again from
/// the mixed seed: a deal from the server's seed alone, a changed or dropped share, or shares
/// out of order are each named.
#[test]
fn players_shares_are_mixed_into_the_seed_and_the_audit_deals_from_the_mix() {
    let seed = Seed::from_u64(7);
    let created = create(Ruleset::Base, Options::default(), 5, Seat(0), seed).unwrap();
    let alone = History::new(created.clone()).unwrap().start().unwrap();
    let h = History::new(created.clone()).unwrap();
    let shares = shares(0, 5);
    let mixed = h.start_with(&shares).unwrap();
    assert_eq!(
        mixed[0],
        Event::SeedMixed {
            contributions: shares.clone(),
            committed: vec![],
        }
    );
    assert_ne!(mixed[1], alone[0], "the shares change the deal");
    // Another share of one seat: another deal.
    let mut other = shares.clone();
    other[2].entropy = Seed::from_u64(999);
    assert_ne!(h.start_with(&other).unwrap()[1], mixed[1]);
    // Without shares the start is as before: no event for them.
    assert_eq!(h.start_with(&[]).unwrap(), alone);
    // Shares must be one per seat, in seat order, of seats at the table.
    let mut twice = shares.clone();
    twice[1].seat = Seat(0);
    assert_eq!(h.start_with(&twice).unwrap_err().code(), "invalid_target");
    let mut stranger = shares.clone();
    stranger[4].seat = Seat(9);
    assert_eq!(
        h.start_with(&stranger).unwrap_err().code(),
        "invalid_target"
    );

    let log: Vec<Event> = std::iter::once(created).chain(mixed.clone()).collect();
    assert_eq!(audit(&log).unwrap().deals_checked, 1);
    // The operator dealt from its own seed and recorded the shares anyway.
    let mut tampered = log.clone();
    tampered[2] = alone[0].clone();
    let d = audit(&tampered).unwrap_err();
    assert_eq!(d.seq, 3, "{d}");
    // It dropped one share (its deal then is not the one recorded).
    let mut tampered = log.clone();
    tampered[1] = Event::SeedMixed {
        contributions: shares[1..].to_vec(),
        committed: vec![],
    };
    assert_eq!(audit(&tampered).unwrap_err().seq, 3);
    // It dropped the shares altogether.
    let mut tampered = log.clone();
    tampered.remove(1);
    assert!(audit(&tampered).is_err());
    // Replaying the log gives the live state.
    let mut live = History::new(log[0].clone()).unwrap();
    push_all(&mut live, mixed);
    assert_eq!(
        History::replay(log.iter().cloned()).unwrap().game(),
        live.game()
    );
}

/// Shares committed to before any was seen: a share must open its seat's commitment; a
/// committed seat without a share withheld it and the deal is drawn without it; the record
/// keeps every commitment, and the audit names a share that does not open its own.
#[test]
fn committed_shares_must_open_their_commitments_and_a_withheld_one_is_left_out() {
    use saboteur_domain::ShareCommitment;
    let created = create(
        Ruleset::Base,
        Options::default(),
        4,
        Seat(0),
        Seed::from_u64(5),
    )
    .unwrap();
    let h = History::new(created.clone()).unwrap();
    let shares = shares(0, 4);
    let committed: Vec<ShareCommitment> = shares
        .iter()
        .map(|c| ShareCommitment {
            seat: c.seat,
            commitment: c.entropy.share_commitment(),
        })
        .collect();
    // Every share revealed: the deal is the one the shares alone give.
    let all = h.start_committed(&shares, &committed).unwrap();
    assert_eq!(all[1], h.start_with(&shares).unwrap()[1]);
    // Seat 2 withheld its share: the deal is drawn without it, the commitment kept.
    let revealed: Vec<_> = shares
        .iter()
        .filter(|c| c.seat != Seat(2))
        .copied()
        .collect();
    let withheld = h.start_committed(&revealed, &committed).unwrap();
    assert_eq!(withheld[1], h.start_with(&revealed).unwrap()[1]);
    assert_ne!(withheld[1], all[1], "a withheld share changes the deal");
    assert!(
        matches!(&withheld[0], Event::SeedMixed { committed: c, .. } if c.len() == 4),
        "every commitment is recorded"
    );
    // A share that does not open its commitment is refused.
    let mut other = shares.clone();
    other[1].entropy = Seed::from_u64(999);
    assert_eq!(
        h.start_committed(&other, &committed).unwrap_err().code(),
        "invalid_target"
    );
    // The operator recorded another share for a committed seat (and dealt from it).
    let forged = h.start_with(&other).unwrap();
    let mut log = vec![created.clone()];
    log.push(Event::SeedMixed {
        contributions: other.clone(),
        committed: committed.clone(),
    });
    log.push(forged[1].clone());
    let d = audit(&log).unwrap_err();
    assert_eq!(d.seq, 2, "{d}");
    assert!(d.to_string().contains("does not open"), "{d}");
    // The honest record passes.
    let log: Vec<Event> = std::iter::once(created).chain(withheld).collect();
    assert_eq!(audit(&log).unwrap().deals_checked, 1);
}

#[test]
fn the_audit_names_the_first_tampered_event() {
    let h = game_with_undos(Ruleset::Base, 4, 11);
    let log = h.log().to_vec();
    // A drawn card changed.
    let (i, e) = log
        .iter()
        .enumerate()
        .rev()
        .find(|(_, e)| matches!(e, Event::CardDrawn { .. }))
        .unwrap();
    let Event::CardDrawn { seat, card } = e else {
        unreachable!()
    };
    let other = if card.known() == Some(&saboteur_domain::Card::Map) {
        saboteur_domain::Card::Rockfall
    } else {
        saboteur_domain::Card::Map
    };
    let mut tampered = log.clone();
    tampered[i] = Event::CardDrawn {
        seat: *seat,
        card: Secret::Known(other),
    };
    let d = audit(&tampered).unwrap_err();
    assert_eq!(d.seq, i as u64 + 1, "{d}");
    // A deal changed.
    let mut tampered = log.clone();
    let (j, _) = log
        .iter()
        .enumerate()
        .find(|(_, e)| matches!(e, Event::RoundStarted { round: 2, .. }))
        .unwrap();
    if let Event::RoundStarted { first_player, .. } = &mut tampered[j] {
        *first_player = first_player.left(4, 1);
    }
    assert_eq!(audit(&tampered).unwrap_err().seq, j as u64 + 1);
    // An event with no command behind it.
    let mut tampered = log.clone();
    tampered.insert(5, Event::TurnSkipped { seat: Seat(0) });
    assert!(audit(&tampered).is_err());
    // The untouched log passes.
    assert!(audit(&log).is_ok());
}

#[test]
fn a_player_takes_back_their_command_with_the_bot_moves_after_it() {
    for seed in 0..10 {
        let humans = [Seat(0), Seat(2)];
        let mut h = History::new(
            create(
                Ruleset::Base,
                Options::default(),
                5,
                Seat(0),
                Seed::from_u64(seed),
            )
            .unwrap(),
        )
        .unwrap();
        let start = h.start().unwrap();
        push_all(&mut h, start);
        seat_bots(&mut h, &humans, saboteur_domain::BotLevel::Heuristic);
        let mut rng = bot_rng(Seed::from_u64(seed));
        let mut undone = 0;
        bots_play(&mut h, &humans);
        while let Some(seat) = h.game().awaited() {
            let legal = legal_commands(h.game(), seat);
            let command = legal[below(&mut rng, legal.len())].clone();
            let (before, version_before) = (h.game().clone(), h.version());
            let events = h.execute(seat, &command).unwrap();
            push_all(&mut h, events);
            bots_play(&mut h, &humans);
            if *h.game().phase() == saboteur_domain::Phase::GameOver {
                break;
            }
            let other = humans.into_iter().find(|s| *s != seat).unwrap();
            if h.game().awaited() == Some(other) && h.log().len() as u64 > version_before + 8 {
                // Bots acted after it: a request, which every other seat must approve.
                let asked = h.request_undo(seat).unwrap();
                assert!(
                    matches!(
                        &asked[..],
                        [Event::UndoRequested { seat: s, to_version, revealed: Some(_), .. }]
                            if *s == seat && *to_version == version_before
                    ),
                    "{asked:?}"
                );
                push_all(&mut h, asked);
                let mut last = Vec::new();
                for voter in (0..5).map(Seat).filter(|s| *s != seat) {
                    last = h.vote_undo(voter, true).unwrap();
                    push_all(&mut h, last.clone());
                }
                assert!(
                    matches!(last.last(), Some(Event::Undone { to_version, .. }) if *to_version == version_before)
                );
                assert_eq!(h.game(), &before, "seed {seed}: back before the command");
                undone += 1;
                // Replaying the same command goes on as before.
                let events = h.execute(seat, &command).unwrap();
                push_all(&mut h, events);
                bots_play(&mut h, &humans);
                if *h.game().phase() == saboteur_domain::Phase::GameOver {
                    break;
                }
                // Another human acting in between makes it impossible.
                if let Some(next) = h.game().awaited().filter(|s| *s == other) {
                    let legal = legal_commands(h.game(), next);
                    let events = h.execute(next, &legal[0]).unwrap();
                    push_all(&mut h, events);
                    bots_play(&mut h, &humans);
                    if *h.game().phase() != saboteur_domain::Phase::GameOver {
                        assert_eq!(h.request_undo(seat), Err(UndoError::NothingToUndo(seat)));
                    }
                }
            }
        }
        assert!(undone > 0, "seed {seed}: no undo tried");
        let report = audit(h.log()).unwrap_or_else(|d| panic!("seed {seed}: {d}"));
        assert!(report.bot_moves_checked > 0 && report.undos_checked > 0);
    }
}

/// docs/rules.md §12: a request says whether the commands it takes back showed the requester
/// something hidden. A Map's peek did: a bot declines it.
#[test]
fn rule_12_a_request_after_a_peek_is_marked_and_bots_decline_it() {
    let (mut h, seat) = find_request(0, |_, mine, _| {
        mine.iter().any(|e| matches!(e, Event::MapUsed { .. }))
    });
    let asked = h.request_undo(seat).unwrap();
    assert!(
        matches!(
            asked[..],
            [Event::UndoRequested {
                revealed: Some(true),
                ..
            }]
        ),
        "{asked:?}"
    );
    push_all(&mut h, asked);
    let pending = h.pending_undo().unwrap();
    assert!(pending.revealed);
    assert!(!pending.bot_approves());
}

/// docs/rules.md §12: commands that showed the requester nothing (no card drawn, nothing turned,
/// no peek) make an unmarked request, which a bot approves.
#[test]
fn rule_12_a_request_that_revealed_nothing_is_approved_by_bots() {
    let quiet = |events: &[Event]| {
        events
            .iter()
            .all(|e| !saboteur_domain::view::reveals_hidden(e))
    };
    let (mut h, seat) = find_request(1000, |_, mine, theirs| quiet(mine) && quiet(theirs));
    let asked = h.request_undo(seat).unwrap();
    assert!(
        matches!(
            asked[..],
            [Event::UndoRequested {
                revealed: Some(false),
                ..
            }]
        ),
        "{asked:?}"
    );
    push_all(&mut h, asked);
    assert!(h.pending_undo().unwrap().bot_approves());
    // Approved by everyone, it takes both commands back; the audit agrees.
    let n = h.game().n();
    for k in 1..n {
        let votes = h.vote_undo(seat.left(n, k), true).unwrap();
        push_all(&mut h, votes);
    }
    assert!(matches!(h.log().last(), Some(Event::Undone { .. })));
    audit(h.log()).unwrap();
}

/// docs/rules.md §13: a game records the rules version it was created under in its first event;
/// new games get the newest, and logs recorded before versions existed read as version 1 and
/// are written back byte for byte (so their hash chains still hold).
#[test]
fn rule_13_games_keep_the_rules_version_they_were_created_under() {
    let created = create(
        Ruleset::Base,
        Options::default(),
        4,
        Seat(0),
        Seed::from_u64(1),
    )
    .unwrap();
    assert!(matches!(
        created,
        Event::GameCreated {
            rules_version: 2,
            ..
        }
    ));
    assert_eq!(saboteur_domain::RULES_VERSION, 2);
    let json = serde_json::to_value(&created).unwrap();
    assert_eq!(json["rules_version"], 2);
    assert_eq!(History::new(created).unwrap().game().rules_version(), 2);

    let old = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/golden/base_3p_seed6.jsonl"
    ))
    .unwrap();
    let line: serde_json::Value = serde_json::from_str(old.lines().next().unwrap()).unwrap();
    let first: Event = serde_json::from_value(line["event"].clone()).unwrap();
    assert!(matches!(
        first,
        Event::GameCreated {
            rules_version: 1,
            ..
        }
    ));
    assert_eq!(serde_json::to_value(&first).unwrap(), line["event"]);
    assert_eq!(History::new(first).unwrap().game().rules_version(), 1);

    // A version that does not exist is refused.
    let mut future = json;
    future["rules_version"] = 3.into();
    let future: Event = serde_json::from_value(future).unwrap();
    assert!(History::new(future).is_none());
}

/// The seat an event names as its actor is the seat whose command caused it, for every act of
/// both rulesets (the store keeps it beside the event).
#[test]
fn every_act_names_the_seat_that_commanded_it() {
    const ACTS: [&str; 15] = [
        "path_played",
        "tool_broken",
        "tool_repaired",
        "path_removed",
        "map_used",
        "passed",
        "discarded_to_remove",
        "theft_played",
        "player_trapped",
        "action_cancelled",
        "hats_swapped",
        "inspected",
        "hands_swapped",
        "coin_stolen",
        "gold_kept",
    ];
    let mut seen = std::collections::BTreeSet::new();
    for seed in 0..200 {
        let (ruleset, players) = if seed % 2 == 0 {
            (Ruleset::Saboteur2, 2 + (seed % 11) as u8)
        } else {
            (Ruleset::Base, 3 + (seed % 8) as u8)
        };
        let log = saboteur_domain::bot::random_game(
            ruleset,
            Options::default(),
            players,
            Seed::from_u64(seed),
        );
        let mut commander = None;
        for e in &log {
            match e {
                Event::CommandAccepted { seat, .. } => commander = Some(*seat),
                Event::RoundStarted { .. } => commander = None,
                e if ACTS.contains(&e.kind()) => {
                    if matches!(
                        e,
                        Event::GoldKept {
                            automatic: true,
                            ..
                        }
                    ) {
                        continue;
                    }
                    assert_eq!(e.actor(), commander, "{e:?}");
                    seen.insert(e.kind());
                }
                e => assert_eq!(e.actor(), None, "{e:?}"),
            }
        }
    }
    // The random games reach every kind of act but a chosen gold card (random diggers seldom
    // reach the gold; the golden logs show those).
    assert_eq!(seen.len(), ACTS.len() - 1, "{seen:?}");
}

/// §12: the host's rollback may come while an undo request waits for more votes, right after
/// one approval. It is a batch of its own: the audit decides it as the host's rollback, not as
/// the end of the approval before it.
#[test]
fn rule_12_a_rollback_right_after_a_partial_approval_is_its_own_batch() {
    let seed = Seed::from_u64(11);
    let mut h =
        History::new(create(Ruleset::Base, Options::default(), 4, Seat(0), seed).unwrap()).unwrap();
    let start = h.start().unwrap();
    push_all(&mut h, start);
    let mut rng = bot_rng(seed);
    // A few commands, so there is a version to roll back to.
    for _ in 0..6 {
        let seat = h.game().awaited().unwrap();
        let legal = legal_commands(h.game(), seat);
        let events = h
            .execute(seat, &legal[below(&mut rng, legal.len())])
            .unwrap();
        push_all(&mut h, events);
    }
    // The last mover asks; someone else's command may not be taken back by them.
    let requester = Seat(((h.game().awaited().unwrap().0 as usize + 3) % 4) as u8);
    let asked = h.request_undo(requester).unwrap();
    assert!(
        matches!(asked[..], [Event::UndoRequested { .. }]),
        "a play draws a card, so the request waits for votes: {asked:?}"
    );
    push_all(&mut h, asked);
    // One approval of three: the request still waits.
    let voter = requester.left(4, 1);
    let approval = h.vote_undo(voter, true).unwrap();
    assert!(matches!(approval[..], [Event::UndoApproved { .. }]));
    push_all(&mut h, approval);
    assert!(h.pending_undo().is_some());
    // The host rolls back to just after the start (a batch boundary).
    let to = h
        .log()
        .iter()
        .position(|e| matches!(e, Event::CommandAccepted { .. }))
        .unwrap() as u64;
    // Not to before the deal (version 1 is the game's creation): nothing could start it again.
    assert_eq!(h.rollback(1, "a dispute"), Err(UndoError::BadVersion(1)));
    let rolled = h.rollback(to, "a dispute").unwrap();
    push_all(&mut h, rolled);
    assert!(h.pending_undo().is_none());
    let report = audit(h.log()).unwrap_or_else(|d| panic!("{d}"));
    assert_eq!(report.events, h.version());
    // The illegal case: the same rollback with its reason removed is caught.
    let mut tampered = h.log().to_vec();
    if let Some(Event::Undone { reason, .. }) = tampered.last_mut() {
        *reason = None;
    }
    assert!(audit(&tampered).is_err());
}
