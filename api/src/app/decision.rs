//! Step 5 of the seam: what an act decides to write, by the engine (events) or as the
//! credential a seat needs.

use saboteur_domain::{Event, Seat};
use saboteur_storage::{Credential, Role, TokenSwap};

use crate::app::act::{Act, Who};
use crate::app::auth::{new_token, token_hash};
use crate::app::check::free_seat;
use crate::app::ids::GameId;
use crate::app::tables::Held;
use crate::app::text;
use crate::error::ApiError;
use crate::state::AppState;

/// What an act decided to write.
pub(crate) enum Decided {
    /// Events to append, with a seat's new token (its hash and the token) swapped with them.
    Events {
        events: Vec<Event>,
        swap: Option<(TokenSwap, String)>,
    },
    /// A seat taken (with the player's token; a bot has none).
    Seat(Credential, Option<String>),
    /// A seat given back.
    Unseat(Seat),
    /// A seat's public key registered before the start.
    Key(Seat, String),
    /// A rematch's reserved seat claimed with a new token.
    Claim {
        seat: Seat,
        /// The previous game's token hash the seat was kept for.
        claimant: String,
        token: String,
        /// The player's share in the seed, and public key, if sent.
        entropy: Option<String>,
        public_key: Option<String>,
    },
    /// Nothing to write.
    Nothing,
}

/// A credential's seat, as the wire numbers it.
pub(crate) fn seat_number(c: &Credential) -> Result<u8, ApiError> {
    c.seat
        .and_then(|s| u8::try_from(s).ok())
        .ok_or_else(|| ApiError::Internal("a seat's credential names no seat".into()))
}

/// A share in the seed as sent (64 hex digits, any case), written in lowercase.
fn share(hex: Option<&str>) -> Result<Option<String>, ApiError> {
    hex.map(|hex| {
        saboteur_domain::Seed::from_hex(&hex.to_ascii_lowercase())
            .map(|s| s.to_hex())
            .ok_or_else(|| {
                ApiError::BadRequest("entropy is 32 bytes written as 64 hex digits".into())
            })
    })
    .transpose()
}

/// A public key as sent (64 hex digits, any case), written in lowercase: 400 `bad_key` unless
/// it is an Ed25519 key.
fn key(hex: Option<&str>) -> Result<Option<String>, ApiError> {
    hex.map(|hex| {
        let hex = hex.to_ascii_lowercase();
        if saboteur_domain::is_public_key(&hex)
            && crate::app::signing::verifying_key(&hex).is_some()
        {
            Ok(hex)
        } else {
            Err(saboteur_domain::TableError::BadKey.into())
        }
    })
    .transpose()
}

/// Step 5: the engine decides.
pub(crate) fn decide(
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
        (Act::Start { .. }, _) => events(start(table)?),
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
            let now = table.now_ms();
            events(history.talk(seat, name.as_deref(), text, now)?)
        }
        (Act::HideTalk { seq, .. }, _) => events(history.hide_talk(*seq)?),
        (Act::HandOver { seat, level, .. }, _) => events(history.hand_to_bot(*seat, *level)?),
        (Act::Reclaim { seat, .. }, _) => events(history.reclaim_seat(*seat)?),
        (Act::ReissueToken { seat, .. }, _) => {
            let token = new_token()?;
            let swap = TokenSwap {
                seat: i32::from(seat.0),
                token_hash: token_hash(&token),
            };
            Decided::Events {
                events: history.reissue_token(*seat)?,
                swap: Some((swap, token)),
            }
        }
        (Act::TimeOut { .. }, _) => match history.time_out(table.now_ms()) {
            Ok(e) => events(e),
            Err(saboteur_domain::TableError::NoCommand(seat)) => {
                return Err(ApiError::Internal(format!(
                    "the timeout of {seat} found no command to play"
                )));
            }
            // Recorded meanwhile (another process), or the clock moved: nothing is due.
            Err(_) => Decided::Nothing,
        },
        (
            Act::Join {
                game,
                name,
                entropy,
                public_key,
            },
            _,
        ) => join(
            table,
            game,
            name,
            (entropy.as_deref(), public_key.as_deref()),
        )?,
        (Act::SeatBot { game, level, name }, _) => {
            let seat = free_seat(table)?;
            // Named after its level and numbered by its seat (counted from 1), so that two bots
            // at one table read apart.
            let name = match name.as_deref() {
                None => format!("{level} bot {}", u16::from(seat) + 1),
                Some(n) => text::name(n)?,
            };
            Decided::Seat(
                Credential {
                    game_id: game.as_str().to_string(),
                    // No bearer token acts as a bot.
                    token_hash: None,
                    role: Role::Bot(*level),
                    seat: Some(i32::from(seat)),
                    display_name: Some(name),
                    created_at: chrono::Utc::now(),
                    claimed_by: None,
                    entropy: None,
                    public_key: None,
                },
                None,
            )
        }
        (Act::Leave { seat, .. }, _) => Decided::Unseat(*seat),
        (
            Act::Claim {
                seat,
                entropy,
                public_key,
                ..
            },
            _,
        ) => claim(
            table,
            token,
            *seat,
            (entropy.as_deref(), public_key.as_deref()),
        )?,
        (Act::RegisterKey { seat, key: k, .. }, _) => {
            let k = key(Some(k))?.unwrap_or_default();
            if table.record().status == saboteur_storage::GameStatus::Lobby {
                Decided::Key(*seat, k)
            } else {
                events(history.register_key(*seat, &k)?)
            }
        }
        (Act::BotsDue { .. }, _) => Decided::Nothing,
        (Act::Create(..) | Act::Rematch { .. }, _)
        | (Act::Command { .. } | Act::RequestUndo { .. } | Act::VoteUndo { .. }, _) => {
            return Err(ApiError::Internal("an act reached the wrong step".into()));
        }
    })
}

/// The start's events: the deal from the seed mixed with every seated player's share, then the
/// keys sent with the seats and the seats given to bots in the lobby, recorded after the deal.
fn start(table: &Held) -> Result<Vec<Event>, ApiError> {
    let history = table.history();
    // Every seated player's share, in seat order: the deals are drawn from the seed
    // mixed with them.
    let mut shares: Vec<saboteur_domain::Contribution> = table
        .credentials()
        .iter()
        .filter(|c| c.role == Role::Player)
        .filter_map(|c| {
            let seat = u8::try_from(c.seat?).ok()?;
            let entropy = saboteur_domain::Seed::from_hex(c.entropy.as_deref()?)?;
            Some(saboteur_domain::Contribution {
                seat: Seat(seat),
                entropy,
            })
        })
        .collect();
    shares.sort_by_key(|c| c.seat);
    let mut started = history
        .start_with(&shares)
        .map_err(|v| ApiError::Conflict(v.detail))?;
    // The keys sent with the seats, recorded after the deal: from now on the log says
    // who signs for each seat.
    let mut keys: Vec<(Seat, String)> = table
        .credentials()
        .iter()
        .filter(|c| c.role == Role::Player)
        .filter_map(|c| Some((Seat(u8::try_from(c.seat?).ok()?), c.public_key.clone()?)))
        .collect();
    keys.sort();
    for (seat, key) in keys {
        started.push(Event::SeatKeyRegistered {
            seat,
            key,
            signature: None,
        });
    }
    // The seats given to bots in the lobby, recorded after the deal: from now on the
    // log says which seats are bots' (record version 2), so no bot command for another
    // seat verifies.
    let mut bots: Vec<(Seat, saboteur_domain::BotLevel)> = table
        .credentials()
        .iter()
        .filter_map(|c| {
            Some((
                Seat(u8::try_from(c.seat?).ok()?),
                crate::app::auth::bot_level(c)?,
            ))
        })
        .collect();
    bots.sort();
    if !bots.is_empty() {
        let mut dealt = history.clone();
        started.iter().cloned().for_each(|e| dealt.push(e));
        started.extend(dealt.seat_lobby_bots(&bots)?);
    }
    Ok(started)
}

/// A seat taken: the first free one, with the player's name, share and key checked.
fn join(
    table: &Held,
    game: &GameId,
    name: &str,
    (entropy, public_key): (Option<&str>, Option<&str>),
) -> Result<Decided, ApiError> {
    let name = text::name(name)?;
    let entropy = share(entropy)?;
    let public_key = key(public_key)?;
    let seat = free_seat(table)?;
    let token = new_token()?;
    Ok(Decided::Seat(
        Credential {
            game_id: game.as_str().to_string(),
            token_hash: Some(token_hash(&token)),
            role: Role::Player,
            seat: Some(i32::from(seat)),
            display_name: Some(name),
            created_at: chrono::Utc::now(),
            claimed_by: None,
            entropy,
            public_key,
        },
        Some(token),
    ))
}

/// A rematch's reserved seat claimed with the previous game's token for that very seat.
fn claim(
    table: &Held,
    token: Option<&str>,
    seat: Seat,
    (entropy, public_key): (Option<&str>, Option<&str>),
) -> Result<Decided, ApiError> {
    let entropy = share(entropy)?;
    let public_key = key(public_key)?;
    let claimant = token_hash(token.unwrap_or_default());
    let number = Some(i32::from(seat.0));
    let held = table
        .credentials()
        .iter()
        .find(|c| c.role == Role::Reserved && c.claimed_by.as_deref() == Some(&claimant))
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
    Ok(Decided::Claim {
        seat,
        claimant,
        token: new_token()?,
        entropy,
        public_key,
    })
}
