//! The one seam: every act that writes a game goes through [`act`], which in this order and
//! once
//!
//! 1. opens the game's table (a decision whose deadline passed is recorded first, through
//!    this same seam, as [`Act::TimeOut`]),
//! 2. identifies and authorises the caller,
//! 3. answers a retried `Idempotency-Key` with the reply it was given first,
//! 4. checks the act's precondition (`If-Match`, the game's status, the seat), having first
//!    read the versions an `If-Match` names that were recorded through another process,
//! 5. decides with the engine,
//! 6. stamps the time and appends at the expected version (or makes the act's own write: a
//!    game, a credential; a seat taken meanwhile through another process is decided again),
//! 7. lets the bots answer (up to an expert's search, after a person's command),
//! 8. builds and signs the reply from exactly what the log holds,
//! 9. (the store announces each accepted append to every process),
//! 10. applies the act's effects on live connections (a revoked token's streams close),
//! 11. hands an expert that answers a person's command to the driver, which thinks its move
//!     over while the table answers reads and plays it (and the bots after it) through this
//!     seam once the reply is on its way: a person never waits for a search, and the bots'
//!     moves reach every client on the stream.
//!
//! Handlers only parse a request into an [`Act`] and turn the [`Done`] into a response. The
//! steps that need room of their own live beside this file: who may act and the precondition
//! in `check.rs`, the decision in `decision.rs`, the acts that make a game (a creation, a
//! rematch) in `games.rs`.

use saboteur_domain::Event;
use saboteur_storage::TokenSwap;

use crate::app::act::{Act, Done, Reply, Request, Signed, Who};
use crate::app::bots;
use crate::app::check::{authorise, precondition};
use crate::app::decision::{Decided, decide};
use crate::app::games::{create, rematch};
use crate::app::ids::{GameId, Version};
use crate::app::lobby;
use crate::app::lobby_replies;
use crate::app::refusal::{refused_hash, refused_to_caller, signed_refusal};
use crate::app::reply;
use crate::app::retry::retried;
use crate::app::signing;
use crate::app::state::AppState;
use crate::app::table::{Batch, Committed};
use crate::app::tables::{Held, Reading};
use crate::dto::NewToken;
use crate::error::ApiError;

/// How many times in a row the bots' answers may lose a race to another process before the
/// request leaves them to the sweep.
const BOT_RACES: u32 = 3;

/// Does `request`: the one write path of the service (see the module's steps).
pub(crate) async fn act(state: &AppState, request: Request) -> Result<Done, ApiError> {
    let Request {
        token,
        act,
        signed,
        body_hash,
    } = request;
    let Some(game) = act.game().cloned() else {
        return create(state, act).await;
    };
    if let Act::Rematch { key, .. } = &act {
        return rematch(state, token.as_deref(), &game, key.as_ref()).await;
    }
    // 1. The table, with its clock enforced.
    let mut table = open_as(state, &game).await?;
    let done = on_table(
        state,
        &mut table,
        token.as_deref(),
        act,
        (signed, body_hash),
    )
    .await;
    if done.as_ref().is_err_and(ApiError::unreachable) {
        table.note_unreachable();
    }
    done
}

/// Opens a game's table for a request. A decision whose deadline has passed is recorded first
/// (through the seam, as [`Act::TimeOut`]), so no read and no act answers from a game whose
/// clock ran out; whichever process gets there first records it, the others read it.
///
/// For a read: while the store cannot be reached, the table as this process holds it (or as
/// the read-only store has it); behind a write its database has not answered for
/// [`READ_WAIT`], the game as the store has it, read for this read alone; either way no timeout
/// is recorded (see [`Tables::open_to_read`]). While no database can be reached, tried again
/// for a moment ([`AppState::patiently`]).
///
/// [`READ_WAIT`]: crate::app::tables::READ_WAIT
///
/// [`Tables::open_to_read`]: crate::app::tables::Tables::open_to_read
pub(crate) async fn open(state: &AppState, game: &GameId) -> Result<Reading, ApiError> {
    state
        .patiently(|| async {
            let (mut reading, stale) = state.tables.open_to_read(game).await?;
            if let Some(table) = reading.held().filter(|_| !stale) {
                time_out_due(state, game, table).await;
            }
            Ok(reading)
        })
        .await
}

async fn open_as(state: &AppState, game: &GameId) -> Result<Held, ApiError> {
    let mut table = state.tables.open(game).await?;
    time_out_due(state, game, &mut table).await;
    Ok(table)
}

/// Records the timeout of a decision whose deadline has passed (none while a bot is due).
async fn time_out_due(state: &AppState, game: &GameId, table: &mut Held) {
    // A bot due is played (step 7 of any act, or the driver's `Act::BotsDue`), never timed out.
    if !table.bot_due() && table.timeout_due(table.now_ms()) {
        let timeout = Act::TimeOut { game: game.clone() };
        if let Err(e) = Box::pin(on_table(state, table, None, timeout, (None, None))).await {
            if let ApiError::Unreachable(_) = e {
                table.note_unreachable();
            }
            // Another process recorded it first (the table has read it), or the store is away:
            // the answer is still the table's, the sweep tries again.
            tracing::debug!(game = %game, "timeout not recorded here: {e}");
        }
    }
}

/// Steps 2–10 on an open table.
async fn on_table(
    state: &AppState,
    table: &mut Held,
    token: Option<&str>,
    act: Act,
    (signed, body_hash): (Option<Signed>, Option<String>),
) -> Result<Done, ApiError> {
    // In the lobby, seats change without events, so another process's are not announced:
    // they are read before an act decides on them (a lobby's acts are few).
    if table.record().status == saboteur_storage::GameStatus::Lobby {
        table.reload_credentials(&state.store).await?;
    }
    // 1b. A lobby's act retried with its key answers its kept reply (before who asks: a seat
    //     given back has no token any more).
    if let Some(key) = act.kept_key()
        && let Some(done) = lobby_replies::again(state, key).await?
    {
        return Ok(done);
    }
    // 2. Who asks, and may they. A token this game knows that may not do this (the host's on a
    // player's act, a player's on the host's) is refused with a signed receipt.
    let who = match authorise(state, table, token, &act).await {
        Ok(who) => who,
        Err(e @ ApiError::Forbidden(_)) => {
            return Err(refused_to_caller(state, table, (token, body_hash.clone()), e).await);
        }
        Err(e) => return Err(e),
    };
    // 3. A retried key answers with the first reply. A command's key is looked up only when
    //    the command is refused (steps 2b, 4–6): decided again, its append finds the key used
    //    (the store's unique index), so an accepted command costs no read.
    let key = act.seat_key(who);
    if !matches!(act, Act::Command { .. })
        && let Some(done) = first_reply(state, table, key.as_deref(), who, &act).await?
    {
        return Ok(done);
    }
    // What a refusal names as refused: the signed message, or the body.
    let refused = (
        who,
        refused_hash(table, &act, who, signed.as_ref(), body_hash.as_deref()),
    );
    // 2b. A seat with a key acts with its player's signature.
    let signature = match signing::check(table, &act, who, signed) {
        Ok(signature) => signature,
        Err(e) => return refuse(state, table, (key.as_deref(), &act), refused, e).await,
    };
    // 3b. A version named by `If-Match` that this table has not read was recorded through
    //     another process (a client's requests spread over processes): read it first.
    if let Act::Command {
        if_match: Some(listed),
        ..
    } = &act
        && listed.iter().any(|v| *v > table.version())
    {
        table.follow(&state.store).await?;
    }
    // 3c. The sweep found the game waiting for a bot in the store: what this table has not
    //     heard yet (another process's appends, an announcement lost in a failover) is read
    //     first, so a table behind the store never finds nothing due and clears the flag.
    if let Act::BotsDue { .. } = act {
        table.follow(&state.store).await?;
    }
    // 4. The precondition, and 5. the decision: a refusal is signed for its caller.
    let decided = match precondition(state, table, &act)
        .and_then(|()| decide(state, table, &act, who, token))
    {
        Ok(decided) => decided,
        Err(e) => return refuse(state, table, (key.as_deref(), &act), refused, e).await,
    };
    // 6. Stamp and append (or the act's own write: a signed lobby act's while the lobby is at
    //    the version it names).
    let signed_at = signature.as_ref().map(|(_, s)| s.version);
    let written = match decided {
        Decided::Events { mut events, swap } => {
            if let Some((seat, signature)) = signature
                && !Event::sign(&mut events, seat, signature)
            {
                return Err(ApiError::Internal(
                    "a signed act decided no event to record its signature in".into(),
                ));
            }
            let swap_hash = swap.as_ref().map(|(s, _)| s.clone());
            let appended = match append(state, table, events, key.clone(), swap_hash).await {
                Ok(appended) => appended,
                Err(e) => return Err(signed_refusal(state, table, refused.clone(), e).await),
            };
            match appended {
                Committed::New(batch) => Written::Batch(batch, swap.map(|(_, t)| t)),
                Committed::Retried(batch) => {
                    let key = key.as_deref().unwrap_or_default();
                    return retried(state, table, (batch, key), who, &act).await;
                }
            }
        }
        Decided::Lobby(write) => {
            let (done, start) =
                lobby::write(state, table, (&act, who, token), write, signed_at).await?;
            if let Some(events) = start {
                // The last share awaited: the game starts with it.
                if let Err(e) = append(state, table, events, None, None).await {
                    return Err(signed_refusal(state, table, refused.clone(), e).await);
                }
            }
            Written::Done(Box::new(done))
        }
        Decided::Nothing => done(Done::Nothing),
    };
    // 7. The bots answer; when the sweep found none due in the game as the store has it (the
    //    table followed it at 3c), its flag is cleared at this version. A person's command is
    //    answered before an expert thinks: its search, and the bots after it, come after the
    //    reply (step 11).
    let after_reply = matches!(act.reply(), Reply::Command);
    let think_here = !after_reply && !matches!(act, Act::BotsDue { .. });
    let answered = let_bots_answer(state, table, key.as_deref(), think_here).await?;
    if let (Act::BotsDue { .. }, Written::Done(_), None) = (&act, &written, answered) {
        settle_bot_flag(state, table).await?;
    }
    // 8. The reply, signed.
    let done = match written {
        Written::Batch(batch, new_token) => {
            let end = answered.map_or(batch.last, |v| v.max(batch.last));
            answer(state, table, (batch, end), who, &act, new_token).await?
        }
        Written::Done(done) => *done,
    };
    if let Some(key) = act.kept_key() {
        lobby_replies::keep(state, table.id(), key, &done).await;
    }
    afterwards(state, table, &act, after_reply);
    Ok(done)
}

/// Steps 10 and 11, once the reply is made. 10. Live connections: a stream re-checks its token
/// now (one whose token was issued again ends); streams in other processes are woken by the
/// store's announcement. 11. The expert (and the bots after it) that answers a person's
/// command (`after_reply`) is handed to the driver.
fn afterwards(state: &AppState, table: &Held, act: &Act, after_reply: bool) {
    if let Act::ReissueToken { .. } = act {
        state.presence.recheck(table.id());
    }
    if after_reply && table.bot_due() && state.bots_due.send(table.id().clone()).is_err() {
        tracing::debug!(game = %table.id(), "no driver: the sweep plays the bots");
    }
}

/// Step 7 for the sweep's `BotsDue` that found no bot due in the game as the store has it: the
/// store's flag outlived its reason and is cleared at the table's version.
async fn settle_bot_flag(state: &AppState, table: &Held) -> Result<(), ApiError> {
    if !table.bot_due() && table.clear_bot_flag(&state.writer).await? {
        tracing::info!(game = %table.id(), version = %table.version(), "nothing due: the bot flag is cleared");
    }
    Ok(())
}

/// What the write did.
enum Written {
    /// A batch appended (and the new token it swapped in, if any).
    Batch(Batch, Option<String>),
    /// The act's answer, with no batch of events.
    Done(Box<Done>),
}

/// A refusal from step 2b on, signed for its caller; for a command sent with a key that opened
/// a batch already, that batch's first reply instead (step 3, read only now for a command).
async fn refuse(
    state: &AppState,
    table: &mut Held,
    (key, act): (Option<&str>, &Act),
    refused: (Who, Option<String>),
    e: ApiError,
) -> Result<Done, ApiError> {
    if matches!(act, Act::Command { .. })
        && let Some(done) = first_reply(state, table, key, refused.0, act).await?
    {
        return Ok(done);
    }
    Err(signed_refusal(state, table, refused, e).await)
}

/// Step 3: the first reply to the batch `key` opened, if it opened one (a retry).
async fn first_reply(
    state: &AppState,
    table: &mut Held,
    key: Option<&str>,
    who: Who,
    act: &Act,
) -> Result<Option<Done>, ApiError> {
    let Some(key) = key else { return Ok(None) };
    let Some((first, last)) = state.writer.command_batch(table.id(), key).await? else {
        return Ok(None);
    };
    retried(state, table, (Batch { first, last }, key), who, act)
        .await
        .map(Some)
}

/// The act's answer, with no batch of events.
fn done(done: Done) -> Written {
    Written::Done(Box::new(done))
}

/// Step 6: stamps and appends a batch at the table's version (the table's one write).
async fn append(
    state: &AppState,
    table: &mut Held,
    events: Vec<Event>,
    key: Option<String>,
    swap: Option<TokenSwap>,
) -> Result<Committed, ApiError> {
    let is_command = matches!(events.first(), Some(Event::CommandAccepted { .. }));
    let bot = matches!(
        events.first(),
        Some(Event::CommandAccepted { bot: Some(_), .. })
    );
    match table.commit(&state.writer, events, key, swap).await {
        Ok(c) => {
            if is_command {
                let label = if bot { "bot" } else { "accepted" };
                state.metrics.commands.with_label_values(&[label]).inc();
            }
            Ok(c)
        }
        Err(e) => {
            if let ApiError::Conflict(..) = e {
                state.metrics.conflicts.with_label_values(&["race"]).inc();
            }
            // A player's command the store could not take: the seat has its whole time again.
            if is_command && !bot && e.unreachable() {
                let now = table.now_ms();
                table.note_outage(now);
            }
            Err(e)
        }
    }
}

/// Step 7: while the game waits for a bot, its move is decided and appended like any act.
/// Stops at a human's decision, at the end, or when the store fails (the driver's sweep takes
/// over from there); a race lost to another process is read and the bots go on. Answers the
/// version after the last move this request appended, if any. After a command sent with a key,
/// each move is recorded under that key ([`saboteur_storage::answer_id`]), in its own append:
/// so the store holds exactly where the command's first reply ended, whatever was lost to a
/// failover and whatever the sweep played later. For the driver's `Act::BotsDue`, an expert
/// whose move was not thought over ahead stops it ([`bots::next_move`]).
///
/// A move under the request's key whose append failed with its outcome unknown (the store
/// went away, perhaps between the commit and its answer) is the request's error: a reply that
/// left it out could differ from its retry's, which reads the key's moves back from the store.
/// The act itself is recorded; the retry answers it.
async fn let_bots_answer(
    state: &AppState,
    table: &mut Held,
    key: Option<&str>,
    think_here: bool,
) -> Result<Option<Version>, ApiError> {
    let mut races = 0;
    let mut moves = 0;
    let mut last = None;
    while let Some(events) = bots::next_move(state, table, think_here).await {
        let id = key.map(|k| saboteur_storage::answer_id(k, moves + 1));
        match append(state, table, events, id, None).await {
            Ok(Committed::New(batch)) => {
                races = 0;
                moves += 1;
                last = Some(batch.last);
            }
            Ok(Committed::Retried(_)) => races = 0,
            Err(ApiError::Conflict(..)) if races < BOT_RACES => races += 1,
            // The store went away: whether the move was recorded is unknown.
            Err(e) if key.is_some() && e.unreachable() => {
                tracing::warn!(
                    game = %table.id(),
                    "a bot's move under the request's key may or may not be recorded: {e}"
                );
                return Err(e);
            }
            Err(e) => {
                tracing::warn!(
                    game = %table.id(),
                    "a bot's move was not recorded here; the sweep reads the store: {e}"
                );
                break;
            }
        }
    }
    Ok(last)
}

/// Step 8: the reply to a batch, built from the log (so exactly what is stored and served,
/// clock times included), as `who` may see it, signed.
async fn answer(
    state: &AppState,
    table: &Held,
    (batch, answered): (Batch, Version),
    who: Who,
    act: &Act,
    new_token: Option<String>,
) -> Result<Done, ApiError> {
    let shape = act.reply();
    let end = match shape {
        // A command's reply is its batch and the bots' answers its request appended after it,
        // as a retry's is.
        Reply::Command => answered,
        Reply::Vote | Reply::Token(_) | Reply::Outcome => table.version(),
    };
    let outcome = reply::outcome(state, table, batch.first, end, who.audience()).await?;
    Ok(match shape {
        Reply::Token(seat) => Done::NewToken(NewToken {
            seat: seat.0,
            player_token: new_token
                .ok_or_else(|| ApiError::Internal("a token issued again got no token".into()))?,
            version: outcome.version,
        }),
        // An undo request or a vote leaves votes awaited (202) while a request is pending after
        // the bots answered; otherwise its outcome is settled (200): taken back, or declined.
        Reply::Vote if table.history().pending_undo().is_some() => Done::Awaiting(outcome),
        Reply::Vote | Reply::Command | Reply::Outcome => Done::Recorded(outcome),
    })
}
