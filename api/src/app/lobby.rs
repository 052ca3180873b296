//! Step 6 of the seam for the lobby's acts, which write credentials and no events
//! ([`write`]): a seat taken, claimed, given back, named anew or changed for another, a key
//! kept with a seat, the lobby closed for the committed shares and a share revealed (the last
//! one starts the game: its events go back to the seam to append).

use saboteur_domain::{Event, Seat};
use saboteur_storage::Credential;

use crate::app::act::{Act, Done, SentKey, Who};
use crate::app::auth::token_hash;
use crate::app::check::precondition;
use crate::app::decision::{Decided, LobbyWrite, decide, seat_number};
use crate::app::joins;
use crate::app::lobby_done::LobbyDone;
use crate::app::reply;
use crate::app::shares::{Closing, Reveal};
use crate::app::state::AppState;
use crate::app::tables::Held;
use crate::dto::{BotSeated, Joined, LobbyClosed, SeatNamed, ShareRevealed, rfc3339_ms};
use crate::error::ApiError;
use saboteur_storage::StoreError;

/// Step 6 for a lobby's act: its own write and its reply; with the start's events when it
/// revealed the last share awaited (the seam appends them). A signed act's write is made only
/// while the lobby is at the version it was signed at (`signed_at`).
pub(in crate::app) async fn write(
    state: &AppState,
    table: &mut Held,
    (act, who, token): (&Act, Who, Option<&str>),
    write: LobbyWrite,
    signed_at: Option<u64>,
) -> Result<(Done, Option<Vec<Event>>), ApiError> {
    let done = match write {
        LobbyWrite::Seat(credential, issued) => {
            seated(state, table, (act, who, token), (credential, issued)).await?
        }
        LobbyWrite::Key(seat, key) => key_kept(state, table, (seat, key), signed_at).await?,
        LobbyWrite::Close(closing) => closed(state, table, closing).await?,
        LobbyWrite::Reveal(reveal) => return revealed(state, table, reveal).await,
        LobbyWrite::Unseat(seat) => {
            table.unseat(&state.writer, seat, signed_at).await?;
            Done::Lobby(LobbyDone::Left)
        }
        LobbyWrite::Rename(seat, name) => {
            table.rename(&state.writer, seat, &name, signed_at).await?;
            Done::Lobby(LobbyDone::Renamed(SeatNamed { seat: seat.0, name }))
        }
        LobbyWrite::Sit(from, to) => moved(state, table, (from, to), signed_at).await?,
        claim @ LobbyWrite::Claim { .. } => claimed(state, table, claim).await?,
    };
    Ok((done, None))
}

/// Step 6 for an act that seats (a join, a bot seated): the seat taken, and the reply to it —
/// for a player, the seat's commitment, signed.
async fn seated(
    state: &AppState,
    table: &mut Held,
    (act, who, token): (&Act, Who, Option<&str>),
    (credential, issued): (Credential, Option<String>),
) -> Result<Done, ApiError> {
    let (credential, token) =
        take_seat(state, table, act, who, token, (credential, issued)).await?;
    let seat = seat_number(&credential)?;
    let level = credential.bot_level();
    let name = credential.display_name.clone().unwrap_or_default();
    let public_key = credential.public_key.clone();
    match (level, token) {
        (Some(level), _) => Ok(Done::Lobby(LobbyDone::BotSeated(BotSeated {
            seat,
            level,
            name,
        }))),
        (None, Some(player_token)) => {
            let (commitment, receipt) =
                reply::seat_commitment(state, table, Seat(seat), public_key).await?;
            Ok(Done::Lobby(LobbyDone::Joined(Box::new(Joined {
                seat,
                player_token,
                commitment,
                receipt: Some(receipt),
            }))))
        }
        (None, None) => Err(ApiError::Internal("a player seated without a token".into())),
    }
}

/// Step 6 for a rematch's reserved seat: claimed with its new token, the player's commitment
/// signed.
async fn claimed(state: &AppState, table: &mut Held, claim: LobbyWrite) -> Result<Done, ApiError> {
    let LobbyWrite::Claim {
        seat,
        claimant,
        token,
        share,
        key,
    } = claim
    else {
        return Err(ApiError::Internal("only a claim is claimed".into()));
    };
    let claimed = state
        .writer
        .claim_seat(
            table.id(),
            seat,
            &claimant,
            &token_hash(&token),
            (
                share.entropy.as_deref(),
                key.as_ref().map(|k| k.key.as_str()),
                key.as_ref().and_then(|k| k.proof.as_deref()),
                share.commitment.as_deref(),
            ),
        )
        .await;
    table.reload_credentials(&state.store).await?;
    match claimed {
        Ok(()) => {
            let public_key = key.map(|k| k.key);
            let (commitment, receipt) =
                reply::seat_commitment(state, table, seat, public_key).await?;
            Ok(Done::Lobby(LobbyDone::Joined(Box::new(Joined {
                seat: seat.0,
                player_token: token,
                commitment,
                receipt: Some(receipt),
            }))))
        }
        Err(StoreError::NotFound) => Err(ApiError::NotFound(format!("{seat} was just claimed"))),
        Err(StoreError::LobbyChanged) => Err(ApiError::Conflict(
            crate::error::Conflict::LobbyClosed,
            "the lobby was closed, or the game started: no seat is claimed now".into(),
        )),
        Err(e) => Err(e.into()),
    }
}

/// How many times in a row a seat may be taken through another process between this table's
/// reading of the seats and its write before the request answers 409.
const SEAT_RACES: u32 = 3;

/// Step 6 for a seat: stores its credential. When another process took that seat since this
/// table read the seats (a client's requests spread over processes by a load balancer), the
/// seats are read again and the free seat decided again, up to [`SEAT_RACES`] times.
async fn take_seat(
    state: &AppState,
    table: &mut Held,
    act: &Act,
    who: Who,
    token: Option<&str>,
    mut decided: (Credential, Option<String>),
) -> Result<(Credential, Option<String>), ApiError> {
    let mut races = 0;
    loop {
        match table
            .seat(
                &state.writer,
                decided.0.clone(),
                act.taker()
                    .map(|c| joins::taker(c, &state.config.limits, chrono::Utc::now())),
            )
            .await
        {
            Ok(()) => return Ok(decided),
            Err(ApiError::Conflict(..)) if races < SEAT_RACES => {
                races += 1;
                precondition(state, table, act)?;
                match decide(state, table, act, who, token)? {
                    Decided::Lobby(LobbyWrite::Seat(credential, token)) => {
                        decided = (credential, token)
                    }
                    _ => return Err(ApiError::Internal("a seat decided as another act".into())),
                }
            }
            Err(e) => return Err(e),
        }
    }
}

/// Step 6 for a key changed in the lobby: kept with the seat (while the lobby is at the
/// version the change was signed at, if it was), and the seat's commitment made again with it,
/// so the player can show the key the start must register.
async fn key_kept(
    state: &AppState,
    table: &mut Held,
    (seat, key): (Seat, SentKey),
    signed_at: Option<u64>,
) -> Result<Done, ApiError> {
    table.set_key(&state.writer, seat, &key, signed_at).await?;
    let (commitment, receipt) = reply::seat_commitment(state, table, seat, Some(key.key)).await?;
    Ok(Done::Lobby(LobbyDone::KeyKept(Box::new(
        crate::dto::KeyKept {
            seat: seat.0,
            commitment,
            receipt: Some(receipt),
        },
    ))))
}

/// Step 6 for a player's move to another seat: moved, and the new seat's commitment, signed.
async fn moved(
    state: &AppState,
    table: &mut Held,
    (from, to): (Seat, Seat),
    signed_at: Option<u64>,
) -> Result<Done, ApiError> {
    table.sit(&state.writer, (from, to), signed_at).await?;
    let key = table.holder(to).and_then(|c| c.public_key.clone());
    let (commitment, receipt) = reply::seat_commitment(state, table, to, key).await?;
    Ok(Done::Lobby(LobbyDone::Moved(Box::new(
        crate::dto::SeatMoved {
            seat: to.0,
            from: from.0,
            commitment,
            receipt: Some(receipt),
        },
    ))))
}

/// Step 6 for the host's closing of the lobby: closed (through any process first: then as that
/// one closed it), and the seats whose shares are awaited.
async fn closed(state: &AppState, table: &mut Held, closing: Closing) -> Result<Done, ApiError> {
    table.close(&state.writer, closing.reveal_by).await?;
    let reveal_by = table.record().reveal_by.unwrap_or(closing.reveal_by);
    Ok(Done::Lobby(LobbyDone::Closed(LobbyClosed {
        reveal_by: rfc3339_ms(reveal_by),
        waiting: closing.waiting.iter().map(|s| s.0).collect(),
    })))
}

/// Step 6 for a share revealed: stored (unless it was already), and the seat's commitment made
/// again naming it, signed; with the start's events when it was the last awaited.
async fn revealed(
    state: &AppState,
    table: &mut Held,
    reveal: Reveal,
) -> Result<(Done, Option<Vec<Event>>), ApiError> {
    let Reveal {
        seat,
        entropy,
        fresh,
        waiting,
        start,
    } = reveal;
    if fresh {
        table.reveal(&state.writer, seat, &entropy).await?;
    }
    let key = table.holder(seat).and_then(|c| c.public_key.clone());
    let (commitment, receipt) = reply::seat_commitment(state, table, seat, key).await?;
    let done = Done::Lobby(LobbyDone::Revealed(Box::new(ShareRevealed {
        seat: seat.0,
        commitment,
        receipt: Some(receipt),
        waiting: waiting.iter().map(|s| s.0).collect(),
        started: start.is_some(),
    })));
    Ok((done, start))
}
