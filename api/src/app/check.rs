//! Steps 2 and 4 of the seam: who asks and whether they may, and what must hold before an act
//! is decided.

use saboteur_domain::Seat;
use saboteur_storage::{GameStatus, Role};

use crate::app::act::{Act, May, Need, Who};
use crate::app::auth::Caller;
use crate::app::ids::Version;
use crate::app::state::AppState;
use crate::app::tables::Held;
use crate::error::{ApiError, Conflict};

/// Step 2: the caller, and whether they may do the act.
pub(in crate::app) async fn authorise(
    state: &AppState,
    table: &mut Held,
    token: Option<&str>,
    act: &Act,
) -> Result<Who, ApiError> {
    // Who needs no token of this game, and who does: as the act declares it.
    let may = act.declared().may;
    match may {
        May::Server => return Ok(Who::Server),
        May::Anyone => return Ok(Who::Anyone),
        // A rematch's seat is claimed with the previous game's token (checked when decided).
        May::Claimant if token.is_some() => return Ok(Who::Anyone),
        May::Claimant => {
            return Err(ApiError::Unauthorized(
                "the seat's token from the previous game is needed".into(),
            ));
        }
        May::Host(_)
        | May::Player
        | May::OwnSeat(..)
        | May::SeatOrHost(_)
        | May::PlayerOrSpectator { .. } => {}
    }
    let caller = table.caller(&state.store, token).await?;
    let who = match may {
        May::Host(does) => host(caller, does)?,
        May::Player => Who::Player(caller.seat()?),
        May::OwnSeat(seat, does) => own_seat(caller, seat, does)?,
        May::SeatOrHost(seat) => match caller {
            Caller::Player(s) if s == seat => Who::Player(s),
            // The host frees any seat before the start: a bot's, or a holder it does not want
            // (a stranger who took a seat), and may seat a bot there.
            Caller::Host => Who::Host,
            Caller::Anonymous => {
                return Err(ApiError::Unauthorized(
                    "the seat's player token (or the host's) is needed".into(),
                ));
            }
            Caller::Player(_) => {
                return Err(ApiError::Forbidden(
                    "only the seat's own player (or the host) may give it back".into(),
                ));
            }
        },
        May::PlayerOrSpectator { named } => match caller {
            Caller::Player(_) if named => {
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
        May::Server | May::Anyone | May::Claimant => Who::Anyone,
    };
    Ok(who)
}

/// The caller as `seat`'s own player, the only one who `does` the act.
fn own_seat(caller: Caller, seat: Seat, does: &str) -> Result<Who, ApiError> {
    let own = caller.seat()?;
    if own != seat {
        return Err(ApiError::Forbidden(format!(
            "only {seat}'s own player {does}"
        )));
    }
    Ok(Who::Player(own))
}

pub(crate) fn host(caller: Caller, what: &str) -> Result<Who, ApiError> {
    caller.host(what).map(|()| Who::Host)
}

/// A seat number a client named: 404 when the game has no such seat.
pub(in crate::app) fn seat_of(table: &Held, seat: Seat) -> Result<Seat, ApiError> {
    if seat.0 >= table.players() {
        return Err(ApiError::NotFound(format!("the game has no {seat}")));
    }
    Ok(seat)
}

/// Step 4: what must hold before the act is decided, as the act declares it
/// ([`Declared::needs`](crate::app::act::Declared)), in its order.
pub(in crate::app) fn precondition(
    state: &AppState,
    table: &Held,
    act: &Act,
) -> Result<(), ApiError> {
    if *table.history().game().phase() == saboteur_domain::Phase::Cancelled {
        return Err(ApiError::Conflict(
            Conflict::Cancelled,
            "the host cancelled the game before its start: nothing more can be done in it".into(),
        ));
    }
    for need in act.declared().needs.into_iter().flatten() {
        holds(state, table, need)?;
    }
    Ok(())
}

/// Whether one need of an act holds (step 4).
fn holds(state: &AppState, table: &Held, need: Need<'_>) -> Result<(), ApiError> {
    let lobby = table.record().status == GameStatus::Lobby;
    match need {
        Need::Current(if_match) => {
            // RFC 9110 §13.1.1: the condition holds when any listed version does; a version v
            // holds while nothing a seat decides on was recorded after it.
            if let Some(listed) = if_match {
                let (decided, now) = (table.decision_version(), table.version());
                if !listed.iter().any(|v| decided <= *v && *v <= now) {
                    state.metrics.conflicts.with_label_values(&["stale"]).inc();
                    let names: Vec<String> = listed.iter().map(Version::to_string).collect();
                    return Err(ApiError::PreconditionFailed(format!(
                        "the command was chosen at version {}; the game has changed since \
                         version {decided} (it is at version {now})",
                        names.join(" or ")
                    )));
                }
            }
            if lobby {
                return Err(ApiError::Conflict(
                    Conflict::NotStarted,
                    "the game has not started".into(),
                ));
            }
        }
        Need::Dealt if lobby => return Err(talk_before_the_start()),
        Need::Dealt => {}
        Need::FreeSeat => {
            free_seat(table)?;
        }
        Need::Lobby(started) if !lobby => {
            return Err(ApiError::Conflict(Conflict::Started, started.into()));
        }
        Need::Lobby(_) => {}
        Need::Open => still_open(table)?,
        Need::Seat(seat) => {
            seat_of(table, seat)?;
        }
        Need::Held(seat) => {
            table
                .holder(seat_of(table, seat)?)
                .ok_or_else(|| ApiError::NotFound("that seat is free".into()))?;
        }
        Need::Full => {
            let seated = table
                .credentials()
                .iter()
                .filter(|c| c.seat.is_some() && c.role != Role::Reserved)
                .count();
            if seated < usize::from(table.players()) {
                return Err(ApiError::Conflict(
                    Conflict::SeatsOpen,
                    format!(
                        "{seated} of {} seats are taken (a rematch's reserved seats wait for their players)",
                        table.players()
                    ),
                ));
            }
        }
        Need::NoBot(seat) => {
            let seat = seat_of(table, seat)?;
            if table.bot(seat).is_some() {
                return Err(ApiError::Conflict(
                    Conflict::BotSeat,
                    format!("a bot already plays {seat}"),
                ));
            }
        }
        Need::Person(seat) => {
            let seat = seat_of(table, seat)?;
            let holder = table
                .holder(seat)
                .ok_or_else(|| ApiError::NotFound(format!("nobody holds {seat}")))?;
            if holder.bot_level().is_some() {
                return Err(ApiError::Conflict(
                    Conflict::BotSeat,
                    format!("a bot holds {seat}: it has no token"),
                ));
            }
        }
    }
    Ok(())
}

/// 409 `not_started` for a message before the start: a message is an event, and the lobby's
/// log holds the creation alone until the deal (an event appended before it would mark the
/// game under way).
fn talk_before_the_start() -> ApiError {
    ApiError::Conflict(
        Conflict::NotStarted,
        "the game has not started: table talk opens with the deal".into(),
    )
}

/// 409 `lobby_closed` once the host closed the lobby for the committed shares: the seats that
/// committed must stay the seats that reveal.
fn still_open(table: &Held) -> Result<(), ApiError> {
    match table.record().reveal_by {
        Some(_) if table.record().status == GameStatus::Lobby => Err(ApiError::Conflict(
            Conflict::LobbyClosed,
            "the host closed the lobby for the players' shares: no seat is taken or given back \
             until the start"
                .into(),
        )),
        _ => Ok(()),
    }
}

/// The first free seat of a game in the lobby.
pub(in crate::app) fn free_seat(table: &Held) -> Result<u8, ApiError> {
    if table.record().status != GameStatus::Lobby {
        return Err(ApiError::Conflict(
            Conflict::Started,
            "the game has started: no seat can be taken".into(),
        ));
    }
    (0..table.players())
        .find(|s| table.holder(Seat(*s)).is_none())
        .ok_or_else(|| ApiError::Conflict(Conflict::SeatsFull, "every seat is taken".into()))
}
