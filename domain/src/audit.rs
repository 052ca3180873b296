//! The audit of a whole log: every deal derived again from the seed, every command decided
//! again, every bot move chosen again, every undo checked against the undo rules.

use serde::{Deserialize, Serialize};

use crate::bot::{BOT_VERSION, BOT_VERSIONS, choose_as, decision_rng, decision_seed};
use crate::command::Command;
use crate::decide::deal;
use crate::event::{BotMove, Event, HandOver};
use crate::history::{History, opens_batch};
use crate::seat::Seat;
use crate::secret::Secret;
use crate::signed_log::signed_acts;
use crate::view::{Audience, view};

/// What an audit of a whole log found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditReport {
    /// Events in the log.
    pub events: u64,
    /// Commands decided again and found to cause exactly the recorded events.
    pub commands_checked: u64,
    /// Deals derived again from the seed and found equal to the recorded ones.
    pub deals_checked: u64,
    /// Undo and rollback events checked against the undo rules.
    pub undos_checked: u64,
    /// Bot commands chosen again from the seat's view and recorded seed, and found equal.
    #[serde(default)]
    pub bot_moves_checked: u64,
    /// Bot commands of a lobby bot seat recorded by a [`crate::bot::BOT_VERSION`] this build
    /// does not have (a newer one), whose logic it cannot run: decided again like any command,
    /// but not chosen again. (A move made for a player by such a version is a discrepancy.)
    #[serde(default)]
    pub bot_moves_of_other_versions: u64,
    /// Timeouts checked against the deadlines reckoned from the recorded times, each decided
    /// again by the bot.
    #[serde(default)]
    pub timeouts_checked: u64,
    /// Each seat's final total.
    pub gold: Vec<u32>,
    /// The seats sharing the win.
    pub winners: Vec<Seat>,
}

/// The first discrepancy an audit found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[error("event {seq}: {what}")]
pub struct Discrepancy {
    /// The sequence number of the first event in question.
    pub seq: u64,
    /// What is wrong.
    pub what: String,
}

fn wrong(seq: u64, what: impl Into<String>) -> Discrepancy {
    Discrepancy {
        seq,
        what: what.into(),
    }
}

/// Chooses a recorded bot command again: the same level, version and seed on the seat's view
/// before it must give the same command.
/// `Ok(false)` when a [`crate::bot::BOT_VERSION`] this build does not have chose it (one newer
/// than this build): that logic is not here to run again.
fn check_bot(h: &History, seat: Seat, command: &Command, bot: &BotMove) -> Result<bool, String> {
    if !BOT_VERSIONS.contains(&bot.version) {
        return Ok(false);
    }
    let seed = *bot.seed.known().ok_or("the bot's seed is redacted")?;
    let seen = view(h.game(), Audience::Seat(seat));
    match choose_as(bot.version, bot.level, &seen, &mut decision_rng(seed)) {
        Some(again) if &again == command => Ok(true),
        Some(_) => Err(format!(
            "the {} bot with the recorded seed chooses another command",
            bot.level
        )),
        None => Err(format!("the {} bot had no command to choose", bot.level)),
    }
}

/// A move made for a player (a timeout's, or a seat handed over) by a bot version this verifier
/// does not have: the server records only versions its own verifier has, so nobody can check it.
fn nobody_can_check(seat: Seat, bot: &BotMove) -> String {
    nobody_can_check_for(&seat.to_string(), bot)
}

fn nobody_can_check_for(seat: &str, bot: &BotMove) -> String {
    format!(
        "a move made for {seat} that nobody can check: it is labelled as the {} bot's version \
         {}, which this verifier does not have (it knows versions up to {BOT_VERSION}), and a \
         server records a move for a player only by a bot version its own verifier has",
        bot.level, bot.version
    )
}

/// A bot's command under record version 2: the record must give the seat to a bot of that
/// level at this version (in the lobby, by the host, or after its timeouts), and the seed must
/// be the one derived from the game's seed and version ([`derived_seed`]).
fn bot_seat_and_seed(h: &History, seat: Seat, bot: &BotMove) -> Result<(), String> {
    if !h.records_bots() {
        return Ok(());
    }
    match h.handed_to(seat) {
        Some(level) if level == bot.level => {}
        Some(level) => {
            return Err(format!(
                "a {} bot's command for {seat}, which the record gives to the {level} bot",
                bot.level
            ));
        }
        None => {
            return Err(format!(
                "a {} bot's command for {seat}, which the record does not give to a bot at \
                 this version: a move made for the seat's player",
                bot.level
            ));
        }
    }
    derived_seed(h, bot)
}

/// Under record version 2, a bot's seed is the one derived from the game's (mixed) seed and the
/// version it chose at ([`crate::bot::decision_seed`]), never one written freely: a seed tried
/// until the bot chose what someone wanted is named.
fn derived_seed(h: &History, bot: &BotMove) -> Result<(), String> {
    if !h.records_bots() {
        return Ok(());
    }
    let derived = decision_seed(&h.game().seed(), h.version());
    match bot.seed.known() {
        Some(seed) if *seed == derived => Ok(()),
        Some(seed) => Err(format!(
            "the bot's seed {seed} is not the one derived from the game's seed at version {} \
             ({derived}): a seed chosen to make the bot choose a move",
            h.version()
        )),
        None => Err("the bot's seed is redacted".into()),
    }
}

/// Records in `expected` (decided without a clock) the time the batch recorded, as the server
/// stamped it: the time of a clocked game's batch is the server's word, but it must be there
/// and must not go backwards.
fn stamp_as_recorded(
    h: &History,
    seq: u64,
    expected: &mut [Event],
    recorded: &[Event],
) -> Result<(), Discrepancy> {
    let stamped = recorded.iter().find_map(|e| match e {
        Event::CommandAccepted { at, .. }
        | Event::Undone { at, .. }
        | Event::RoundStarted { round: 1, at, .. } => Some(*at),
        _ => None,
    });
    match stamped {
        Some(Some(t)) => {
            if h.recorded_now(t) != t {
                return Err(wrong(
                    seq,
                    format!("time {t} is earlier than a time recorded before it"),
                ));
            }
            h.stamp(expected, t);
        }
        Some(None) if h.table_status().clock.is_some() => {
            return Err(wrong(seq, "a clocked game's batch records no time"));
        }
        _ => {}
    }
    Ok(())
}

/// The seat an undo event is by (the requester, the voter).
fn undo_seat(e: &Event) -> Option<Seat> {
    match e {
        Event::UndoRequested { seat, .. }
        | Event::UndoApproved { seat, .. }
        | Event::UndoDeclined { seat, .. }
        | Event::Undone { by: Some(seat), .. }
        | Event::CommandAccepted { seat, .. } => Some(*seat),
        _ => None,
    }
}

/// Audits a complete log: every deal derived again from the seed, every command decided again
/// against the state before it and compared with the events recorded after it, every undo
/// checked against the undo rules, and the final scores recomputed.
pub fn audit(log: &[Event]) -> Result<AuditReport, Discrepancy> {
    let first = log.first().ok_or_else(|| wrong(1, "the log is empty"))?;
    let mut h = History::new(first.clone())
        .ok_or_else(|| wrong(1, "the log does not start with game_created and its seed"))?;
    let mut report = AuditReport {
        events: log.len() as u64,
        commands_checked: 0,
        deals_checked: 0,
        undos_checked: 0,
        bot_moves_checked: 0,
        bot_moves_of_other_versions: 0,
        timeouts_checked: 0,
        gold: Vec::new(),
        winners: Vec::new(),
    };
    // Every act of a seat with a key carries a signature, nothing else does; the signatures
    // themselves are checked where keys are verified.
    signed_acts(log).map_err(|(seq, what)| wrong(seq, what))?;
    let mut i = 1;
    while i < log.len() {
        let seq = i as u64 + 1;
        let end = (i + 1..log.len())
            .find(|&k| opens_batch(log, k))
            .unwrap_or(log.len());
        let recorded = &log[i..end];
        let expected = decide_again(&mut h, &mut report, seq, recorded)?;
        check_batch(&mut h, &mut report, seq, expected, recorded)?;
        i = end;
    }
    let game = h.game();
    if let Some(Event::GameEnded { gold, winners }) = log
        .iter()
        .rev()
        .find(|e| matches!(e, Event::GameEnded { .. }))
        && (gold != &game.gold || winners != &game.winners)
    {
        return Err(wrong(
            report.events,
            "the final scores differ from the replayed ones",
        ));
    }
    report.gold = game.gold.clone();
    report.winners = game.winners.clone();
    Ok(report)
}

/// Decides again the batch `recorded` opens, against the history before it: the events the
/// rules cause, to compare with the record.
fn decide_again(
    h: &mut History,
    report: &mut AuditReport,
    seq: u64,
    recorded: &[Event],
) -> Result<Vec<Event>, Discrepancy> {
    Ok(match &recorded[0] {
        Event::CommandAccepted {
            seat,
            command,
            bot,
            at,
            ..
        } => command_again(h, report, seq, *seat, command, *bot, *at)?,
        Event::RoundStarted { round: 1, .. } => h
            .start()
            .map_err(|v| wrong(seq, format!("the game could not start: {v}")))?,
        Event::SeedMixed {
            contributions,
            committed,
        } => h
            .start_committed(contributions, committed)
            .map_err(|v| wrong(seq, format!("the game could not start: {v}")))?,
        Event::UndoRequested { seat, revealed, .. } => {
            report.undos_checked += 1;
            let mut asked = h
                .request_undo(*seat)
                .map_err(|e| wrong(seq, e.to_string()))?;
            // Requests recorded before `revealed` was kept are checked without it.
            if revealed.is_none() {
                for e in &mut asked {
                    if let Event::UndoRequested { revealed, .. } = e {
                        *revealed = None;
                    }
                }
            }
            asked
        }
        Event::UndoApproved { seat, .. } => {
            report.undos_checked += 1;
            h.vote_undo(*seat, true)
                .map_err(|e| wrong(seq, e.to_string()))?
        }
        Event::UndoDeclined { seat, .. } => {
            report.undos_checked += 1;
            h.vote_undo(*seat, false)
                .map_err(|e| wrong(seq, e.to_string()))?
        }
        Event::Undone {
            to_version,
            by: None,
            reason,
            ..
        } => {
            report.undos_checked += 1;
            h.rollback(*to_version, reason.as_deref().unwrap_or(""))
                .map_err(|e| wrong(seq, e.to_string()))?
        }
        Event::Undone { by: Some(seat), .. } => {
            report.undos_checked += 1;
            h.request_undo(*seat)
                .map_err(|e| wrong(seq, e.to_string()))?
        }
        Event::TurnTimedOut { at, .. } => timeout_again(h, report, seq, *at, recorded)?,
        Event::TalkPosted {
            seat,
            name,
            text,
            at,
            ..
        } => {
            let text = text
                .known()
                .ok_or_else(|| wrong(seq, "the message is redacted"))?;
            h.talk(*seat, name.as_deref(), text, *at)
                .map_err(|e| wrong(seq, e.to_string()))?
        }
        Event::GameCancelled {} => h.cancel().map_err(|e| wrong(seq, e.to_string()))?,
        Event::TalkHidden { message } => h
            .hide_talk(*message)
            .map_err(|e| wrong(seq, e.to_string()))?,
        Event::SeatHandedToBot {
            seat,
            level,
            reason: HandOver::Host,
        } => h
            .hand_to_bot(*seat, *level)
            .map_err(|e| wrong(seq, e.to_string()))?,
        Event::SeatHandedToBot {
            seat,
            level,
            reason: HandOver::Lobby,
        } => h
            .seat_lobby_bots(&[(*seat, *level)])
            .map_err(|e| wrong(seq, e.to_string()))?,
        Event::SeatReclaimed { seat, .. } => h
            .reclaim_seat(*seat)
            .map_err(|e| wrong(seq, e.to_string()))?,
        Event::TokenReissued { seat } => h
            .reissue_token(*seat)
            .map_err(|e| wrong(seq, e.to_string()))?,
        Event::SeatKeyRegistered {
            seat,
            key,
            proof,
            at,
            ..
        } => h
            .register_key(*seat, key, (proof.as_deref(), *at))
            .map_err(|e| match e {
                crate::TableError::BadKeyProof if proof.is_none() => {
                    wrong(seq, crate::signed_log::unproved_key(*seat, key))
                }
                crate::TableError::BadKeyProof => wrong(
                    seq,
                    crate::signed_log::proof_out_of_time(
                        (*seat, key),
                        *at,
                        (h.key_proof_since(*seat), seq),
                    ),
                ),
                e => wrong(seq, e.to_string()),
            })?,
        other => {
            return Err(wrong(
                seq,
                format!("`{}` was recorded without a command", other.kind()),
            ));
        }
    })
}

/// Decides a player's or a bot's command again: on time, by the bot that is recorded to have
/// chosen it (chosen again when this build has that bot), and legal.
fn command_again(
    h: &mut History,
    report: &mut AuditReport,
    seq: u64,
    seat: Seat,
    command: &Secret<Command>,
    bot: Option<BotMove>,
    at: Option<u64>,
) -> Result<Vec<Event>, Discrepancy> {
    let command = command
        .known()
        .ok_or_else(|| wrong(seq, "the command is redacted"))?;
    if let (Some(at), Some(deadline)) = (at, h.deadline())
        && at >= deadline.at
    {
        return Err(wrong(
            seq,
            format!(
                "{} decided at {at}, at or after its deadline {}: the decision was \
                 the clock's",
                deadline.seat, deadline.at
            ),
        ));
    }
    report.commands_checked += 1;
    if let Some(bot) = bot {
        bot_seat_and_seed(h, seat, &bot).map_err(|what| wrong(seq, what))?;
        if check_bot(h, seat, command, &bot).map_err(|what| wrong(seq, what))? {
            report.bot_moves_checked += 1;
        } else if h.plays_for_player(seat) {
            return Err(wrong(seq, nobody_can_check(seat, &bot)));
        } else {
            report.bot_moves_of_other_versions += 1;
        }
    }
    h.execute_as(seat, command, bot).map_err(|v| {
        wrong(
            seq,
            format!("the command was illegal: {} ({})", v.code(), v.detail),
        )
    })
}

/// Decides a timeout again, with the bot's decision for the seat: chosen again by the version
/// that chose it, or decided again when this build does not have that version.
fn timeout_again(
    h: &mut History,
    report: &mut AuditReport,
    seq: u64,
    at: u64,
    recorded: &[Event],
) -> Result<Vec<Event>, Discrepancy> {
    // The timeout and the bot's decision for the seat, chosen again (compared with
    // the record below).
    report.timeouts_checked += 1;
    report.commands_checked += 1;
    let decided = recorded.iter().find_map(|e| match e {
        Event::CommandAccepted {
            command,
            bot: Some(bot),
            ..
        } => Some((command, *bot)),
        _ => None,
    });
    match decided {
        // A bot this build does not have (a newer version) made the move for the player
        // who timed out: nobody can choose it again, so it stands for nobody.
        Some((_, bot)) if !BOT_VERSIONS.contains(&bot.version) => {
            let seat = h
                .deadline()
                .map_or_else(|| "the seat".to_string(), |d| d.seat.to_string());
            return Err(wrong(seq, nobody_can_check_for(&seat, &bot)));
        }
        // Chosen again by the version that chose it (today's when none is
        // recorded: the comparison below then finds the record short).
        decided => {
            report.bot_moves_checked += 1;
            let version = decided.map_or(BOT_VERSION, |(_, bot)| bot.version);
            h.time_out_by(at, |h, seat, level| h.execute_bot_as(seat, level, version))
        }
    }
    .map_err(|e| wrong(seq, e.to_string()))
}

/// Compares the events decided again with the recorded batch, checks every deal in it against
/// the seed, and adds the batch to the history.
fn check_batch(
    h: &mut History,
    report: &mut AuditReport,
    seq: u64,
    mut expected: Vec<Event>,
    recorded: &[Event],
) -> Result<(), Discrepancy> {
    stamp_as_recorded(h, seq, &mut expected, recorded)?;
    // Players' signatures are checked apart ([`signed_acts`]): carried as recorded.
    for (e, r) in expected.iter_mut().zip(recorded) {
        if let (Some(signed), Some(seat)) = (r.signature(), r.actor().or(undo_seat(r))) {
            Event::sign(std::slice::from_mut(e), seat, signed.clone());
        }
    }
    if expected.as_slice() != recorded {
        let k = expected
            .iter()
            .zip(recorded)
            .take_while(|(a, b)| a == b)
            .count();
        return Err(wrong(
            seq + k as u64,
            format!(
                "the record differs from what the rules decide: recorded {}, expected {}",
                recorded.get(k).map_or("nothing", Event::kind),
                expected.get(k).map_or("nothing", Event::kind)
            ),
        ));
    }
    for e in recorded {
        if let Event::RoundStarted {
            round,
            first_player,
            ..
        } = e
        {
            let again = deal(h.game(), *round, *first_player);
            let mut unstamped = e.clone();
            if let Event::RoundStarted { at, .. } = &mut unstamped {
                *at = None;
            }
            if again != unstamped {
                return Err(wrong(
                    h.version() + 1,
                    format!("round {round} was not dealt from the seed"),
                ));
            }
            report.deals_checked += 1;
        }
        h.push(e.clone());
    }
    Ok(())
}
