//! Refusals judged: a refusal's receipt names what was refused by the hash of the statement the
//! player signed (`request_hash`); with the statement the player kept, and the bundle, the
//! refused act is decided again at the refusal's version. A command the rules allow there (or an
//! undo request, a vote or a reclaim the undo and table rules allow, about the event it names),
//! signed by the seat's key, at a version that still held, and never recorded before, was a
//! legal act the server refused.

use saboteur_domain::{Command, History, Seat};
use serde::Deserialize;
use serde_json::Value;
use sha2::{Digest as _, Sha256};

use super::signatures::verifies;
use crate::receipt::{Receipt, ReceiptKind, jcs};

/// A statement a player signed and kept: the act's canonical statement (`scheme`, `act`,
/// `game`, `seat`, `version`, `body`, `about`) and the signature sent with it, as the SDKs and
/// the web client keep them.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct KeptStatement {
    /// The statement, as signed.
    pub statement: Value,
    /// The player's Ed25519 signature of its canonical bytes, 128 hex digits.
    pub signature: String,
}

impl KeptStatement {
    /// Hex SHA-256 of the statement's canonical bytes: what a refusal of it names.
    pub fn hash(&self) -> String {
        hex::encode(Sha256::digest(jcs(&self.statement)))
    }
}

/// The problem codes that say something of the refused move itself (the rules, its version,
/// its signature, the game's phase), each of which the record can decide again. A refusal for
/// another reason (a limit, a reused `Idempotency-Key`, a token) says nothing of the move.
fn judged(code: &str) -> bool {
    saboteur_domain::Violation::ALL
        .iter()
        .any(|v| v.code() == code)
        || saboteur_domain::UndoError::CODES.contains(&code)
        || matches!(code, "not_bot" | "game_over")
        || matches!(
            code,
            "precondition_failed"
                | "conflict"
                | "not_started"
                | "bad_signature"
                | "signature_required"
                | UNAVAILABLE
        )
}

/// The code of a 503 of a store that could not be reached: the move was not refused, only
/// not recorded; what the record does next is judged ([`after_outage`]).
const UNAVAILABLE: &str = "unavailable";

/// A statement's member (`null` when it has none).
fn field<'a>(statement: &'a Value, name: &str) -> &'a Value {
    statement.get(name).unwrap_or(&Value::Null)
}

/// What deciding a refusal again showed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Judged {
    /// The refusal was right: why.
    Right(String),
    /// The record cannot judge it: why.
    NotJudged(String),
    /// The server refused a legal move: the sentence that says so.
    LegalRefused(String),
}

/// Each refusal among `receipts` (given with its body) that names one of `statements`, decided
/// again against `history` (the bundle's whole log, of game `game`). Refusals of other games,
/// or naming no kept statement, are left out.
pub fn judge_refusals(
    game: &str,
    history: &History,
    receipts: &[(Receipt, Option<Value>)],
    statements: &[KeptStatement],
) -> Vec<(String, Judged)> {
    refusals_of_kept(receipts, statements)
        .filter(|(_, receipt, _, _)| receipt.game_id == game)
        .map(|(name, receipt, body, kept)| (name, judge(history, receipt, body, kept)))
        .collect()
}

/// Each refusal among `receipts` whose `request_hash` names one of `statements`: its name in a
/// sentence, the refusal, its body (the problem) and the statement.
fn refusals_of_kept<'a>(
    receipts: &'a [(Receipt, Option<Value>)],
    statements: &'a [KeptStatement],
) -> impl Iterator<Item = (String, &'a Receipt, Option<&'a Value>, &'a KeptStatement)> {
    let hashed: Vec<(String, &KeptStatement)> = statements.iter().map(|s| (s.hash(), s)).collect();
    receipts.iter().filter_map(move |(receipt, body)| {
        if receipt.kind != ReceiptKind::Refusal {
            return None;
        }
        let kept = receipt
            .request_hash
            .as_deref()
            .and_then(|h| hashed.iter().find(|(hash, _)| hash == h))
            .map(|(_, kept)| *kept)?;
        let name = format!(
            "the refusal at version {} of seat {}'s signed {}",
            receipt.version,
            receipt.seat.map_or("?".into(), |s| s.to_string()),
            field(&kept.statement, "act").as_str().unwrap_or("act")
        );
        Some((name, receipt, body.as_ref(), kept))
    })
}

/// [`judge_refusals`] against a bundle's record.
pub fn judge_bundle(
    bundle: &super::AuditBundle,
    receipts: &[(Receipt, Option<Value>)],
    statements: &[KeptStatement],
) -> Result<Vec<(String, Judged)>, String> {
    let log = super::bundle::decode_log(bundle).map_err(|e| e.to_string())?;
    let history = History::replay(log)
        .ok_or_else(|| "the bundle's log does not start with a game".to_string())?;
    Ok(judge_refusals(
        &bundle.game_id,
        &history,
        receipts,
        statements,
    ))
}

/// Each refusal among `receipts` that names one of `statements`, decided again without the
/// bundle: from the seat's own view at the refusal's version, a view receipt given with its body
/// (`GET /games/{id}/state` as served, whose receipt [`super::prove_with_receipts`] checked).
/// A seat's view is enough to decide its own command ([`saboteur_domain::bot::rebuild`] lists
/// the awaited seat's legal commands as the real game does); an undo, a vote or a reclaim needs
/// the record, and is left to [`judge_refusals`].
pub fn judge_from_views(
    receipts: &[(Receipt, Option<Value>)],
    statements: &[KeptStatement],
) -> Vec<(String, Judged)> {
    refusals_of_kept(receipts, statements)
        .map(|(name, receipt, body, kept)| {
            let view = receipts.iter().find_map(|(r, b)| {
                (r.kind == ReceiptKind::View
                    && r.game_id == receipt.game_id
                    && r.seat.is_some()
                    && r.seat == receipt.seat
                    && r.version == receipt.version)
                    .then_some(b.as_ref())
                    .flatten()
                    .and_then(|b| serde_json::from_value::<crate::body::StateView>(b.clone()).ok())
            });
            let verdict = match view {
                Some(view) => judge_by_view(&view, receipt, body, kept),
                None => Judged::NotJudged(format!(
                    "neither the bundle nor the seat's view at version {} (its state with its \
                     receipt) was given",
                    receipt.version
                )),
            };
            (name, verdict)
        })
        .collect()
}

/// The seat a kept statement is signed for, the version it was signed at and the refusal's:
/// not judged when it names none or another seat than the refusal's; rightly refused when
/// signed after the refusal's version.
fn moments(s: &Value, receipt: &Receipt) -> Result<(Seat, u64, u64), Judged> {
    let (Some(seat), Some(signed_at), Ok(at)) = (
        field(s, "seat").as_u64().and_then(|x| u8::try_from(x).ok()),
        field(s, "version").as_u64(),
        u64::try_from(receipt.version),
    ) else {
        return Err(Judged::NotJudged(
            "the statement names no seat or version".into(),
        ));
    };
    if receipt.seat != Some(seat) {
        return Err(Judged::NotJudged(format!(
            "the refusal was signed for another seat than {seat}"
        )));
    }
    if signed_at > at {
        return Err(Judged::Right(format!(
            "signed at version {signed_at}, after the game's {at}"
        )));
    }
    Ok((Seat(seat), signed_at, at))
}

/// A refused command decided again from the seat's view at the refusal's version: signed at
/// that very version (so never recorded before), by the key the view gives the seat, and
/// allowed by the rules there.
fn judge_by_view(
    state: &crate::body::StateView,
    receipt: &Receipt,
    body: Option<&Value>,
    kept: &KeptStatement,
) -> Judged {
    let s = &kept.statement;
    if field(s, "act") != "command" {
        return Judged::NotJudged(
            "without the bundle only a command is decided again (from the seat's view)".into(),
        );
    }
    let Some(code) = body.and_then(|b| b.get("code")).and_then(Value::as_str) else {
        return Judged::NotJudged("it was kept without its body, which says why".into());
    };
    if !judged(code) || code == UNAVAILABLE {
        return Judged::NotJudged(format!(
            "it was refused as `{code}`, which the seat's view cannot decide"
        ));
    }
    let (seat, signed_at, at) = match moments(s, receipt) {
        Ok(m) => m,
        Err(judged) => return judged,
    };
    if state.view.seat != Some(seat) {
        return Judged::NotJudged(format!("the view is not {seat}'s"));
    }
    if signed_at != at {
        return Judged::NotJudged(format!(
            "signed at version {signed_at}, before the refusal's {at}: whether it still held \
             needs the bundle"
        ));
    }
    let key = state
        .table
        .seats
        .get(seat.index())
        .and_then(|x| x.key.as_deref());
    if let Some(key) = key
        && !verifies(key, &jcs(s), &kept.signature)
    {
        return Judged::Right("its signature is not the seat's key's".into());
    }
    let Ok(command) = serde_json::from_value::<Command>(field(s, "body").clone()) else {
        return Judged::Right("its body is not a command".into());
    };
    let game = saboteur_domain::bot::rebuild(&state.view);
    let canonical = command.canonical();
    let legal = state.view.phase.awaited == Some(seat)
        && saboteur_domain::legal_commands(&game, seat)
            .iter()
            .any(|c| c.canonical() == canonical);
    if !legal {
        return Judged::Right("the rules refuse it too, by the seat's own view".into());
    }
    Judged::LegalRefused(format!(
        "the server refused a legal move at version {at}: seat {}'s command {}, signed by its \
         key at version {at}, is one the rules allow there, by the seat's own view at that \
         version (refused as `{code}`)",
        seat.0,
        serde_json::to_string(&field(s, "body")).unwrap_or_default()
    ))
}

/// One refusal of a kept statement, decided again.
fn judge(
    history: &History,
    receipt: &Receipt,
    body: Option<&Value>,
    kept: &KeptStatement,
) -> Judged {
    let s = &kept.statement;
    let Some(act) = Decided::of(field(s, "act").as_str().unwrap_or("")) else {
        return Judged::NotJudged(
            "only a command, an undo request, a vote and a reclaim are decided again".into(),
        );
    };
    let Some(code) = body.and_then(|b| b.get("code")).and_then(Value::as_str) else {
        return Judged::NotJudged(
            "it was kept without its body, which says why it was refused: keep the problem \
             with its receipt"
                .into(),
        );
    };
    if !judged(code) {
        return Judged::NotJudged(format!(
            "it was refused as `{code}`, which says nothing of the move"
        ));
    }
    let (seat, signed_at, at) = match moments(s, receipt) {
        Ok(m) => m,
        Err(judged) => return judged,
    };
    let Some(then) = history.at(at) else {
        return Judged::NotJudged(format!("the record has no version {at}"));
    };
    if let Some(key) = then.seat_key(seat)
        && !verifies(key, &jcs(s), &kept.signature)
    {
        return Judged::Right("its signature is not the seat's key's".into());
    }
    let spent = saboteur_domain::signed_acts(then.log())
        .unwrap_or_default()
        .iter()
        .any(|e| e.signature.signature == kept.signature);
    if spent {
        return Judged::Right("its signature was already recorded".into());
    }
    if signed_at < then.decision_version() {
        return Judged::Right(format!(
            "signed at version {signed_at}; the game had changed since version {}",
            then.decision_version()
        ));
    }
    if let Decided::Table(act) = act {
        return judge_table_act(&then, (act, seat), (at, signed_at), s, code);
    }
    let Ok(command) = serde_json::from_value::<Command>(field(s, "body").clone()) else {
        return Judged::Right("its body is not a command".into());
    };
    match then.execute(seat, &command) {
        Err(violation) => Judged::Right(format!("the rules refuse it too: {violation}")),
        Ok(_) if code == UNAVAILABLE => after_outage(history, (&then, at), receipt, seat, kept),
        Ok(_) => Judged::LegalRefused(format!(
            "the server refused a legal move at version {at}: seat {}'s command {}, signed by \
             its key at version {signed_at}, is one the rules allow there (refused as `{code}`)",
            seat.0,
            serde_json::to_string(&field(s, "body")).unwrap_or_default()
        )),
    }
}

/// The signed acts a refusal of which is decided again: a command by the rules, the others by
/// the undo rules and the table's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Decided {
    Command,
    Table(TableAct),
}

/// An act at the table decided again: an undo request, a vote, a reclaim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TableAct {
    Undo,
    Vote(bool),
    Reclaim,
}

impl Decided {
    /// The act a statement's `act` names, if it is one decided again.
    fn of(act: &str) -> Option<Decided> {
        Some(match act {
            "command" => Decided::Command,
            "undo" => Decided::Table(TableAct::Undo),
            "approve" => Decided::Table(TableAct::Vote(true)),
            "decline" => Decided::Table(TableAct::Vote(false)),
            "reclaim" => Decided::Table(TableAct::Reclaim),
            _ => return None,
        })
    }
}

impl TableAct {
    /// What the act is called in a sentence.
    fn named(self) -> &'static str {
        match self {
            TableAct::Undo => "undo request",
            TableAct::Vote(true) => "approval of an undo",
            TableAct::Vote(false) => "refusal of an undo",
            TableAct::Reclaim => "taking back of its seat",
        }
    }

    /// The act as signed.
    fn signed(self) -> saboteur_domain::SignedAct {
        use saboteur_domain::SignedAct;
        match self {
            TableAct::Undo => SignedAct::Undo,
            TableAct::Vote(true) => SignedAct::Approve,
            TableAct::Vote(false) => SignedAct::Decline,
            TableAct::Reclaim => SignedAct::Reclaim,
        }
    }
}

/// An undo request, a vote or a reclaim refused at version `at` (`then`, the record there),
/// decided again: the event it names (`about`, from record version 5 on) must be the one it
/// would be about there, and the undo rules and the table's must refuse it. A 503 is not judged:
/// only a command's timeout follows from it.
fn judge_table_act(
    then: &History,
    (act, seat): (TableAct, Seat),
    (at, signed_at): (u64, u64),
    s: &Value,
    code: &str,
) -> Judged {
    if code == UNAVAILABLE {
        return Judged::NotJudged("the store could not record it; nothing was decided".into());
    }
    let expected = then.about(seat, act.signed());
    let named = field(s, "about").as_u64();
    if s.get("about").is_some() && named != expected {
        return Judged::Right(format!(
            "it is about event {}, where the record at version {at} has it about {}",
            named.map_or("none".into(), |e| e.to_string()),
            expected.map_or("none".into(), |e| e.to_string())
        ));
    }
    let decided = match act {
        TableAct::Undo => then.request_undo(seat).map_err(|e| e.to_string()),
        TableAct::Vote(approve) => then.vote_undo(seat, approve).map_err(|e| e.to_string()),
        TableAct::Reclaim => then.reclaim_seat(seat).map_err(|e| e.to_string()),
    };
    match decided {
        Err(why) => Judged::Right(format!("the rules refuse it too: {why}")),
        Ok(_) => Judged::LegalRefused(format!(
            "the server refused a legal {} at version {at}: seat {}'s {}, signed by its key at \
             version {signed_at}, is one the rules allow there (refused as `{code}`)",
            act.named(),
            seat.0,
            act.named()
        )),
    }
}

/// A seat's legal command the store could not record (503), at the receipt's version: it may
/// have been recorded after all; otherwise the seat had its whole time again from the refusal
/// ([`History::deadline_from`]), and a timeout recorded sooner was recorded across the outage.
/// `then` is the record at the refusal's version `at`.
fn after_outage(
    history: &History,
    (then, at): (&History, u64),
    receipt: &Receipt,
    seat: Seat,
    kept: &KeptStatement,
) -> Judged {
    use saboteur_domain::Event;
    let recorded = saboteur_domain::signed_acts(history.log())
        .unwrap_or_default()
        .into_iter()
        .find(|e| e.signature.signature == kept.signature);
    if let Some(e) = recorded {
        return Judged::Right(format!("the store recorded it after all (event {})", e.seq));
    }
    let served = chrono::DateTime::parse_from_rfc3339(&receipt.served_at)
        .ok()
        .and_then(|t| u64::try_from(t.timestamp_millis()).ok());
    let Some(served) = served else {
        return Judged::NotJudged("its time is not a time".into());
    };
    // The next decision after the refusal: a command, or the seat's timeout.
    let next = history
        .log()
        .iter()
        .enumerate()
        .skip(at as usize)
        .find(|(_, e)| {
            matches!(
                e,
                Event::CommandAccepted { .. } | Event::TurnTimedOut { .. }
            )
        });
    match (next, then.deadline_from(served)) {
        (Some((i, Event::TurnTimedOut { seat: s, at: t, .. })), Some(d))
            if *s == seat && *t < d.at =>
        {
            Judged::LegalRefused(format!(
                "a timeout recorded across an outage: the store could not record seat {}'s legal \
                 move at version {at} (refused as unavailable at {}), and event {} timed the \
                 seat out at {t} ms, before its whole time again from the refusal ran out ({} ms)",
                seat.0,
                receipt.served_at,
                i + 1,
                d.at
            ))
        }
        _ => Judged::Right(
            "the store could not record it, and the seat had its whole time again".into(),
        ),
    }
}
