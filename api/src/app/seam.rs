//! The one seam: every act that writes a game goes through [`act`], which in this order and
//! once
//!
//! 1. opens the game's table (a decision whose deadline passed is recorded first, through
//!    this same seam, as [`Act::TimeOut`]),
//! 2. identifies and authorises the caller,
//! 3. answers a retried `Idempotency-Key` with the reply it was given first,
//! 4. checks the act's precondition (`If-Match`, the game's status, the seat),
//! 5. decides with the engine,
//! 6. stamps the time and appends at the expected version (or makes the act's own write: a
//!    game, a credential),
//! 7. lets the bots answer,
//! 8. builds and signs the reply from exactly what the log holds,
//! 9. (the store announces each accepted append to every process),
//! 10. applies the act's effects on live connections (a revoked token's streams close).
//!
//! Handlers only parse a request into an [`Act`] and turn the [`Done`] into a response.

use saboteur_domain::{Audience, Event, Seat, Seed};
use saboteur_storage::{Credential, GameStatus, NewGame, Role, StoreError, TokenSwap};

use crate::app::act::{Act, Done, Request, Who};
use crate::app::auth::{Caller, bot_level, new_token, token_hash};
use crate::app::bots;
use crate::app::ids::{GameId, Version};
use crate::app::reply;
use crate::app::table::{Batch, Committed};
use crate::app::tables::Held;
use crate::app::text;
use crate::dto::{BotSeated, GameCreated, Joined, NewToken};
use crate::error::ApiError;
use crate::state::AppState;

/// The prefix of a rematch's reserved seat: what follows is the previous game's token hash.
pub(crate) const CLAIM: &str = "claim:";

/// How many times in a row the bots' answers may lose a race to another process before the
/// request leaves them to the sweep.
const BOT_RACES: u32 = 3;

/// Does `request`: the one write path of the service (see the module's steps).
pub(crate) async fn act(state: &AppState, request: Request) -> Result<Done, ApiError> {
    let Request { token, act } = request;
    let Some(game) = act.game().cloned() else {
        return create(state, act).await;
    };
    if matches!(act, Act::Rematch { .. }) {
        return rematch(state, token.as_deref(), &game).await;
    }
    // 1. The table, with its clock enforced.
    let mut table = open(state, &game).await?;
    on_table(state, &mut table, token.as_deref(), act).await
}

/// Opens a game's table for a request. A decision whose deadline has passed is recorded first
/// (through the seam, as [`Act::TimeOut`]), so no read and no act answers from a game whose
/// clock ran out; whichever process gets there first records it, the others read it.
pub(crate) async fn open(state: &AppState, game: &GameId) -> Result<Held, ApiError> {
    let mut table = state.tables.open(game).await?;
    if table.history().overdue(table.time().now_ms()) {
        let timeout = Act::TimeOut { game: game.clone() };
        if let Err(e) = Box::pin(on_table(state, &mut table, None, timeout)).await {
            // Another process recorded it first (the table has read it), or the store is away:
            // the answer is still the table's, the sweep tries again.
            tracing::debug!(game = %game, "timeout not recorded here: {e}");
        }
    }
    Ok(table)
}

/// Steps 2–10 on an open table.
async fn on_table(
    state: &AppState,
    table: &mut Held,
    token: Option<&str>,
    act: Act,
) -> Result<Done, ApiError> {
    // 2. Who asks, and may they.
    let who = authorise(state, table, token, &act).await?;
    // 3. A retried key answers with the first reply.
    let key = match (&act, who) {
        (Act::Command { key: Some(k), .. }, Who::Player(seat)) => Some(format!("{}:{k}", seat.0)),
        _ => None,
    };
    if let Some(key) = &key
        && let Some((first, last)) = state.store.command_batch(table.id().as_str(), key).await?
    {
        let batch = Batch {
            first: Version::from_stored(first)?,
            last: Version::from_stored(last)?,
        };
        return retried(state, table, batch, who, &act).await;
    }
    // 4. The precondition.
    precondition(state, table, &act)?;
    // 5. Decide.
    let decided = decide(state, table, &act, who, token)?;
    // 6. Stamp and append (or the act's own write).
    let written = match decided {
        Decided::Events { events, swap } => {
            let swap_hash = swap.as_ref().map(|(s, _)| s.clone());
            match append(state, table, events, key, swap_hash).await? {
                Committed::New(batch) => Written::Batch(batch, swap.map(|(_, t)| t)),
                Committed::Retried(batch) => return retried(state, table, batch, who, &act).await,
            }
        }
        Decided::Seat(credential, token) => {
            let seat = seat_number(&credential)?;
            let level = bot_level(&credential);
            let name = credential.display_name.clone().unwrap_or_default();
            table.seat(&state.store, credential).await?;
            match (level, token) {
                (Some(level), _) => Written::Done(Done::BotSeated(BotSeated { seat, level, name })),
                (None, Some(player_token)) => {
                    Written::Done(Done::Joined(Joined { seat, player_token }))
                }
                (None, None) => {
                    return Err(ApiError::Internal("a player seated without a token".into()));
                }
            }
        }
        Decided::Unseat(seat) => {
            table.unseat(&state.store, seat).await?;
            Written::Done(Done::Left)
        }
        Decided::Claim {
            seat,
            reserved,
            token,
        } => {
            let claimed = state
                .store
                .claim_seat(
                    table.id().as_str(),
                    i32::from(seat.0),
                    &reserved,
                    &token_hash(&token),
                )
                .await;
            table.reload_credentials(&state.store).await?;
            match claimed {
                Ok(()) => Written::Done(Done::Joined(Joined {
                    seat: seat.0,
                    player_token: token,
                })),
                Err(StoreError::NotFound) => {
                    return Err(ApiError::NotFound(format!("{seat} was just claimed")));
                }
                Err(e) => return Err(e.into()),
            }
        }
        Decided::Nothing => Written::Done(Done::Nothing),
    };
    // 7. The bots answer.
    let_bots_answer(state, table).await;
    // 8. The reply, signed.
    let done = match written {
        Written::Batch(batch, new_token) => {
            answer(state, table, batch, who, &act, new_token).await?
        }
        Written::Done(done) => done,
    };
    // 10. Live connections: a stream re-checks its token now (one whose token was issued
    //     again ends); streams in other processes are woken by the store's announcement.
    if let Act::ReissueToken { .. } = act {
        state.presence.recheck(table.id().as_str());
    }
    Ok(done)
}

/// What an act decided to write.
enum Decided {
    /// Events to append, with a seat's new token (its hash and the token) swapped with them.
    Events {
        events: Vec<Event>,
        swap: Option<(TokenSwap, String)>,
    },
    /// A seat taken (with the player's token; a bot has none).
    Seat(Credential, Option<String>),
    /// A seat given back.
    Unseat(Seat),
    /// A rematch's reserved seat claimed with a new token.
    Claim {
        seat: Seat,
        reserved: String,
        token: String,
    },
    /// Nothing to write.
    Nothing,
}

/// What the write did.
enum Written {
    /// A batch appended (and the new token it swapped in, if any).
    Batch(Batch, Option<String>),
    /// The act's answer, with no batch of events.
    Done(Done),
}

/// Step 2: the caller, and whether they may do the act.
async fn authorise(
    state: &AppState,
    table: &mut Held,
    token: Option<&str>,
    act: &Act,
) -> Result<Who, ApiError> {
    if act.by_server() {
        return Ok(Who::Server);
    }
    match act {
        // Anyone may take a seat.
        Act::Join { .. } => return Ok(Who::Anyone),
        // A rematch's seat is claimed with the previous game's token (checked when decided).
        Act::Claim { .. } if token.is_some() => return Ok(Who::Anyone),
        Act::Claim { .. } => {
            return Err(ApiError::Unauthorized(
                "the seat's token from the previous game is needed".into(),
            ));
        }
        _ => {}
    }
    let caller = table.caller(&state.store, token).await?;
    let who = match act {
        Act::SeatBot { .. } => host(caller, "seats bots")?,
        Act::Start { .. } => host(caller, "starts the game")?,
        Act::Rollback { .. } => host(caller, "rolls a game back")?,
        Act::HideTalk { .. } => host(caller, "hides messages")?,
        Act::HandOver { .. } => host(caller, "hands seats to bots")?,
        Act::ReissueToken { .. } => host(caller, "issues tokens")?,
        Act::Rematch { .. } => host(caller, "creates the rematch")?,
        Act::Command { .. } | Act::RequestUndo { .. } | Act::VoteUndo { .. } => {
            Who::Player(caller.seat()?)
        }
        Act::Reclaim { seat, .. } => {
            let own = caller.seat()?;
            if own.0 != *seat {
                return Err(ApiError::Forbidden(format!(
                    "only {}'s own player takes it back",
                    Seat(*seat)
                )));
            }
            Who::Player(own)
        }
        Act::Leave { seat, .. } => match caller {
            Caller::Player(s) if s.0 == *seat => Who::Player(s),
            Caller::Host if table.bot(Seat(*seat)).is_some() => Who::Host,
            Caller::Anonymous => {
                return Err(ApiError::Unauthorized(
                    "the seat's player token (or for a bot, the host's) is needed".into(),
                ));
            }
            _ => {
                return Err(ApiError::Forbidden(
                    "only the seat's own player may leave it; the host may unseat a bot".into(),
                ));
            }
        },
        Act::Talk { name, .. } => match caller {
            Caller::Player(_) if name.is_some() => {
                return Err(ApiError::BadRequest(
                    "players are known by their seat: send no name".into(),
                ));
            }
            Caller::Player(s) => Who::Player(s),
            Caller::Host => {
                return Err(ApiError::Forbidden(
                    "the host talks with a player's token (or as a spectator, without one)".into(),
                ));
            }
            Caller::Anonymous => Who::Anyone,
        },
        Act::Create(_)
        | Act::Join { .. }
        | Act::Claim { .. }
        | Act::TimeOut { .. }
        | Act::BotsDue { .. } => Who::Anyone,
    };
    Ok(who)
}

fn host(caller: Caller, what: &str) -> Result<Who, ApiError> {
    caller.host(what).map(|()| Who::Host)
}

/// A seat number a client named: 404 when the game has no such seat.
fn seat_of(table: &Held, seat: u8) -> Result<Seat, ApiError> {
    if seat >= table.players() {
        return Err(ApiError::NotFound(format!("the game has no seat {seat}")));
    }
    Ok(Seat(seat))
}

/// Step 4: what must hold before the act is decided.
fn precondition(state: &AppState, table: &Held, act: &Act) -> Result<(), ApiError> {
    let lobby = table.record().status == GameStatus::Lobby;
    match act {
        Act::Command { if_match, .. } => {
            if let Some(v) = if_match {
                let (decided, now) = (table.decision_version(), table.version());
                if *v < decided || *v > now {
                    state.metrics.conflicts.with_label_values(&["stale"]).inc();
                    return Err(ApiError::PreconditionFailed(format!(
                        "the command was chosen at version {v}; the game has changed since \
                         version {decided} (it is at version {now})"
                    )));
                }
            }
            if lobby {
                return Err(ApiError::Conflict("the game has not started".into()));
            }
        }
        Act::Join { .. } | Act::SeatBot { .. } => {
            free_seat(table)?;
        }
        Act::Leave { seat, .. } => {
            if !lobby {
                return Err(ApiError::Conflict(
                    "the game has started: seats are kept to the end".into(),
                ));
            }
            table
                .holder(seat_of(table, *seat)?)
                .ok_or_else(|| ApiError::NotFound("that seat is free".into()))?;
        }
        Act::Start { .. } => {
            if !lobby {
                return Err(ApiError::Conflict("the game has already started".into()));
            }
            let seated = table
                .credentials()
                .iter()
                .filter(|c| c.seat.is_some() && c.role != Role::Reserved)
                .count();
            if seated < usize::from(table.players()) {
                return Err(ApiError::Conflict(format!(
                    "{seated} of {} seats are taken (a rematch's reserved seats wait for their players)",
                    table.players()
                )));
            }
        }
        Act::HandOver { seat, .. } => {
            let seat = seat_of(table, *seat)?;
            if table.bot(seat).is_some() {
                return Err(ApiError::Conflict(format!("a bot already plays {seat}")));
            }
        }
        Act::Reclaim { seat, .. } => {
            seat_of(table, *seat)?;
        }
        Act::ReissueToken { seat, .. } => {
            let seat = seat_of(table, *seat)?;
            let holder = table
                .holder(seat)
                .ok_or_else(|| ApiError::NotFound(format!("nobody holds {seat}")))?;
            if bot_level(holder).is_some() {
                return Err(ApiError::Conflict(format!(
                    "a bot holds {seat}: it has no token"
                )));
            }
        }
        Act::Claim { seat, .. } => {
            seat_of(table, *seat)?;
        }
        Act::Create(_)
        | Act::RequestUndo { .. }
        | Act::VoteUndo { .. }
        | Act::Rollback { .. }
        | Act::Talk { .. }
        | Act::HideTalk { .. }
        | Act::Rematch { .. }
        | Act::TimeOut { .. }
        | Act::BotsDue { .. } => {}
    }
    Ok(())
}

/// The first free seat of a game in the lobby.
fn free_seat(table: &Held) -> Result<u8, ApiError> {
    if table.record().status != GameStatus::Lobby {
        return Err(ApiError::Conflict(
            "the game has started: no seat can be taken".into(),
        ));
    }
    (0..table.players())
        .find(|s| table.holder(Seat(*s)).is_none())
        .ok_or_else(|| ApiError::Conflict("every seat is taken".into()))
}

/// A credential's seat, as the wire numbers it.
fn seat_number(c: &Credential) -> Result<u8, ApiError> {
    c.seat
        .and_then(|s| u8::try_from(s).ok())
        .ok_or_else(|| ApiError::Internal("a seat's credential names no seat".into()))
}

/// Step 5: the engine decides.
fn decide(
    state: &AppState,
    table: &Held,
    act: &Act,
    who: Who,
    token: Option<&str>,
) -> Result<Decided, ApiError> {
    let history = table.history();
    let events = |events: Vec<Event>| Decided::Events { events, swap: None };
    Ok(match (act, who) {
        (Act::Command { command, .. }, Who::Player(seat)) => {
            events(history.execute(seat, command).inspect_err(|_| {
                state
                    .metrics
                    .commands
                    .with_label_values(&["rejected"])
                    .inc();
            })?)
        }
        (Act::Start { .. }, _) => {
            events(history.start().map_err(|v| ApiError::Conflict(v.detail))?)
        }
        (Act::RequestUndo { .. }, Who::Player(seat)) => events(history.request_undo(seat)?),
        (Act::VoteUndo { approve, .. }, Who::Player(seat)) => {
            events(history.vote_undo(seat, *approve)?)
        }
        (
            Act::Rollback {
                to_version, reason, ..
            },
            _,
        ) => {
            let reason = text::reason(reason)?;
            events(history.rollback(*to_version, &reason)?)
        }
        (Act::Talk { text, name, .. }, who) => {
            let seat = match who {
                Who::Player(s) => Some(s),
                _ => None,
            };
            let now = table.time().now_ms();
            events(history.talk(seat, name.as_deref(), text, now)?)
        }
        (Act::HideTalk { seq, .. }, _) => events(history.hide_talk(*seq)?),
        (Act::HandOver { seat, level, .. }, _) => events(history.hand_to_bot(Seat(*seat), *level)?),
        (Act::Reclaim { seat, .. }, _) => events(history.reclaim_seat(Seat(*seat))?),
        (Act::ReissueToken { seat, .. }, _) => {
            let token = new_token()?;
            let swap = TokenSwap {
                seat: i32::from(*seat),
                token_hash: token_hash(&token),
            };
            Decided::Events {
                events: history.reissue_token(Seat(*seat))?,
                swap: Some((swap, token)),
            }
        }
        (Act::TimeOut { .. }, _) => match history.time_out(table.time().now_ms()) {
            Ok(e) => events(e),
            Err(saboteur_domain::TableError::NoCommand(seat)) => {
                return Err(ApiError::Internal(format!(
                    "the timeout of {seat} found no command to play"
                )));
            }
            // Recorded meanwhile (another process), or the clock moved: nothing is due.
            Err(_) => Decided::Nothing,
        },
        (Act::Join { game, name }, _) => {
            let name = text::name(name)?;
            let seat = free_seat(table)?;
            let token = new_token()?;
            Decided::Seat(
                Credential {
                    game_id: game.as_str().to_string(),
                    token_hash: token_hash(&token),
                    role: Role::Player,
                    seat: Some(i32::from(seat)),
                    display_name: Some(name),
                    created_at: chrono::Utc::now(),
                },
                Some(token),
            )
        }
        (Act::SeatBot { game, level, name }, _) => {
            let name = match name.as_deref() {
                None => format!("{level} bot"),
                Some(n) => text::name(n)?,
            };
            let seat = free_seat(table)?;
            Decided::Seat(
                Credential {
                    game_id: game.as_str().to_string(),
                    // Not a token's hash (those are 64 hex digits): no bearer token acts as a bot.
                    token_hash: format!("bot:{seat}"),
                    role: Role::Bot(*level),
                    seat: Some(i32::from(seat)),
                    display_name: Some(name),
                    created_at: chrono::Utc::now(),
                },
                None,
            )
        }
        (Act::Leave { seat, .. }, _) => Decided::Unseat(Seat(*seat)),
        (Act::Claim { seat, .. }, _) => {
            let reserved = format!("{CLAIM}{}", token_hash(token.unwrap_or_default()));
            let seat = Seat(*seat);
            let number = Some(i32::from(seat.0));
            let held = table
                .credentials()
                .iter()
                .find(|c| c.role == Role::Reserved && c.token_hash == reserved)
                .map(|c| c.seat);
            let waiting = table
                .credentials()
                .iter()
                .any(|c| c.seat == number && c.role == Role::Reserved);
            match held {
                Some(s) if s == number => {}
                Some(_) => {
                    return Err(ApiError::Forbidden(
                        "that token held another seat in the previous game".into(),
                    ));
                }
                None if waiting => {
                    return Err(ApiError::Forbidden(
                        "that token did not hold this seat in the previous game".into(),
                    ));
                }
                None => {
                    return Err(ApiError::NotFound(format!(
                        "{seat} is not waiting to be claimed"
                    )));
                }
            }
            Decided::Claim {
                seat,
                reserved,
                token: new_token()?,
            }
        }
        (Act::BotsDue { .. }, _) => Decided::Nothing,
        (Act::Create(_) | Act::Rematch { .. }, _)
        | (Act::Command { .. } | Act::RequestUndo { .. } | Act::VoteUndo { .. }, _) => {
            return Err(ApiError::Internal("an act reached the wrong step".into()));
        }
    })
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
    match table.commit(&state.store, events, key, swap).await {
        Ok(c) => {
            if is_command {
                let label = if bot { "bot" } else { "accepted" };
                state.metrics.commands.with_label_values(&[label]).inc();
            }
            Ok(c)
        }
        Err(e) => {
            if let ApiError::Conflict(_) = e {
                state.metrics.conflicts.with_label_values(&["race"]).inc();
            }
            Err(e)
        }
    }
}

/// Step 7: while the game waits for a bot, its move is decided and appended like any act.
/// Stops at a human's decision, at the end, or when the store fails (the driver's sweep takes
/// over from there); a race lost to another process is read and the bots go on.
async fn let_bots_answer(state: &AppState, table: &mut Held) {
    let mut races = 0;
    while let Some(events) = bots::next_move(table) {
        match append(state, table, events, None, None).await {
            Ok(_) => races = 0,
            Err(ApiError::Conflict(_)) if races < BOT_RACES => races += 1,
            Err(e) => {
                tracing::warn!(game = %table.id(), "a bot's move was not recorded: {e}");
                return;
            }
        }
    }
}

/// Step 8: the reply to a batch, built from the log (so exactly what is stored and served,
/// clock times included), as `who` may see it, signed.
async fn answer(
    state: &AppState,
    table: &Held,
    batch: Batch,
    who: Who,
    act: &Act,
    new_token: Option<String>,
) -> Result<Done, ApiError> {
    let end = match act {
        // A command's reply is its batch and the bots' answers after it, as a retry's is.
        Act::Command { .. } => Version::of(table.history().answered_through(batch.last.get())),
        _ => table.version(),
    };
    let outcome = reply::outcome(state, table, batch.first, end, audience(who)).await?;
    Ok(match act {
        Act::ReissueToken { seat, .. } => Done::NewToken(NewToken {
            seat: *seat,
            player_token: new_token
                .ok_or_else(|| ApiError::Internal("a token issued again got no token".into()))?,
            version: outcome.version,
        }),
        Act::RequestUndo { .. } | Act::VoteUndo { .. } | Act::Rollback { .. }
            if !outcome
                .events
                .iter()
                .any(|e| matches!(e.event, Event::Undone { .. })) =>
        {
            Done::Awaiting(outcome)
        }
        _ => Done::Recorded(outcome),
    })
}

/// What `who` sees while the game runs.
fn audience(who: Who) -> Audience {
    match who {
        Who::Player(seat) => Audience::Seat(seat),
        Who::Anyone | Who::Host | Who::Server => Audience::Spectator,
    }
}

/// Step 3: a command sent again with its `Idempotency-Key` answers the reply it was given
/// first — its batch and the bots' answers after it — read from the log (recorded perhaps
/// through another process, or before a restart). The key names one command: sent with
/// another, it is refused (422 `idempotency_key_reused`).
async fn retried(
    state: &AppState,
    table: &mut Held,
    batch: Batch,
    who: Who,
    act: &Act,
) -> Result<Done, ApiError> {
    if batch.last > table.version() {
        // Recorded through another process: read it.
        table.follow(&state.store).await?;
    }
    let recorded = usize::try_from(batch.first.get())
        .ok()
        .and_then(|i| i.checked_sub(1))
        .and_then(|i| table.history().log().get(i));
    let same = match (recorded, act) {
        (
            Some(Event::CommandAccepted {
                command: saboteur_domain::Secret::Known(first),
                ..
            }),
            Act::Command { command, .. },
        ) => first == command,
        _ => false,
    };
    if !same {
        return Err(ApiError::Unprocessable {
            code: "idempotency_key_reused",
            detail: "this Idempotency-Key was used for another command; use a new key for a new \
                     command"
                .into(),
        });
    }
    state.metrics.commands.with_label_values(&["retried"]).inc();
    let end = Version::of(table.history().answered_through(batch.last.get()));
    Ok(Done::Recorded(
        reply::outcome(state, table, batch.first, end, audience(who)).await?,
    ))
}

/// A new game's seed: the client's fixed one (only on a server that allows it), or 32 random
/// bytes.
fn seed(state: &AppState, fixed: Option<&str>) -> Result<Seed, ApiError> {
    match fixed {
        Some(_) if !state.config.allow_fixed_seed => Err(ApiError::BadRequest(
            "a fixed seed is only accepted by a server started with --allow-fixed-seed".into(),
        )),
        Some(hex) => Seed::from_hex(hex)
            .ok_or_else(|| ApiError::BadRequest("a seed is 64 hex digits".into())),
        None => {
            let mut bytes = [0u8; 32];
            getrandom::fill(&mut bytes)
                .map_err(|e| ApiError::Internal(format!("no randomness: {e}")))?;
            Ok(Seed(bytes))
        }
    }
}

/// [`Act::Create`]: the game, its first event and the host's credential, in one transaction.
async fn create(state: &AppState, act: Act) -> Result<Done, ApiError> {
    let Act::Create(body) = act else {
        return Err(ApiError::Internal("only a creation has no game".into()));
    };
    let seed = seed(state, body.seed.as_deref())?;
    let created = saboteur_domain::create(
        body.ruleset,
        body.options,
        body.players,
        Seat(body.first_player),
        seed,
    )
    .map_err(|e| ApiError::BadRequest(e.to_string()))?;
    let game = NewGame {
        id: GameId::new().to_string(),
        ruleset: body.ruleset,
        options: body.options,
        players: body.players,
        seed_commitment: saboteur_storage::seed_commitment(&seed.0),
        seed: seed.0.to_vec(),
        previous: None,
    };
    let (record, host_token) = record_game(state, game, Vec::new(), &created).await?;
    Ok(Done::Created(GameCreated {
        game_id: record.id,
        host_token,
        seed_commitment: record.seed_commitment,
        version: record.version,
    }))
}

/// Records a new game with its host's credential (and seats kept from the game before).
async fn record_game(
    state: &AppState,
    game: NewGame,
    seats: Vec<Credential>,
    created: &Event,
) -> Result<(saboteur_storage::GameRecord, String), ApiError> {
    let token = new_token()?;
    let host = Credential {
        game_id: game.id.clone(),
        token_hash: token_hash(&token),
        role: Role::Host,
        seat: None,
        display_name: None,
        created_at: chrono::Utc::now(),
    };
    let first = vec![saboteur_storage::to_new_event(created)];
    let record = state
        .store
        .create_game_seated(game, host, seats, first)
        .await
        .map_err(|e| match e {
            StoreError::Exists => ApiError::Conflict("this game already has a rematch".into()),
            other => other.into(),
        })?;
    Ok((record, token))
}

/// [`Act::Rematch`]: from a finished game, the next one with the same ruleset, options, seats
/// and bots, a new seed, the next seat starting; each player's seat kept for their old token.
async fn rematch(
    state: &AppState,
    token: Option<&str>,
    previous: &GameId,
) -> Result<Done, ApiError> {
    let (ruleset, options, players, first, seats) = {
        let mut table = open(state, previous).await?;
        host(
            table.caller(&state.store, token).await?,
            "creates the rematch",
        )?;
        if !table.over() {
            return Err(ApiError::Conflict(
                "the game is not over: a rematch follows a finished game".into(),
            ));
        }
        let game = table.history().game();
        (
            game.ruleset(),
            game.options(),
            table.players(),
            Seat((game.first_player().0 + 1) % table.players().max(1)),
            table.credentials().to_vec(),
        )
    };
    let seed = seed(state, None)?;
    let created = saboteur_domain::create(ruleset, options, players, first, seed)
        .map_err(|e| ApiError::Internal(e.to_string()))?;
    let id = GameId::new();
    let now = chrono::Utc::now();
    let kept = seats
        .iter()
        .filter(|c| c.seat.is_some())
        .map(|c| Credential {
            game_id: id.to_string(),
            token_hash: match c.role {
                Role::Bot(_) => c.token_hash.clone(),
                _ => format!("{CLAIM}{}", c.token_hash),
            },
            role: match c.role {
                Role::Bot(level) => Role::Bot(level),
                _ => Role::Reserved,
            },
            seat: c.seat,
            display_name: c.display_name.clone(),
            created_at: now,
        })
        .collect();
    let game = NewGame {
        id: id.to_string(),
        ruleset,
        options,
        players,
        seed_commitment: saboteur_storage::seed_commitment(&seed.0),
        seed: seed.0.to_vec(),
        previous: Some(previous.to_string()),
    };
    let (record, host_token) = record_game(state, game, kept, &created).await?;
    Ok(Done::Created(GameCreated {
        game_id: record.id,
        host_token,
        seed_commitment: record.seed_commitment,
        version: record.version,
    }))
}
