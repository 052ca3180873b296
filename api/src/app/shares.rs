//! The players' shares in the seed at the start: the start's events (the deal from the seed
//! mixed with the shares), the lobby closed for the committed shares to be revealed, and a
//! share revealed (the last one awaited starts the game).

use saboteur_domain::{Event, Seat, Seed};
use saboteur_storage::{Credential, Role};

use crate::app::tables::Held;
use crate::error::{ApiError, Conflict};

/// How long the committed seats have to reveal their shares once the host closes the lobby,
/// in milliseconds: the web client reveals at once (within its 2 s look at the lobby). Past it
/// the host's start deals without the shares still awaited.
pub(crate) const REVEAL_WINDOW_MS: i64 = 30_000;

/// The lobby to close: when the shares' time is up, and whose are awaited.
#[derive(Debug, Clone)]
pub(crate) struct Closing {
    /// Milliseconds since the Unix epoch.
    pub reveal_by: i64,
    pub waiting: Vec<Seat>,
}

/// A share revealed: whose, the share (64 lowercase hex digits), whether it is new (not
/// stored already), the seats still awaited after it, and the start's events when it was the
/// last.
#[derive(Debug, Clone)]
pub(crate) struct Reveal {
    pub seat: Seat,
    pub entropy: String,
    pub fresh: bool,
    pub waiting: Vec<Seat>,
    pub start: Option<Vec<Event>>,
}

/// A share or its commitment as sent (64 hex digits, any case): 400 naming the field `what`
/// for anything else.
pub(in crate::app) fn seed_sent(hex: &str, what: &str) -> Result<Seed, ApiError> {
    Seed::from_hex(&hex.to_ascii_lowercase())
        .ok_or_else(|| ApiError::BadRequest(format!("{what} is 32 bytes written as 64 hex digits")))
}

/// The seated players who committed to a share and have not revealed it, in seat order.
fn awaited(credentials: &[Credential]) -> Vec<Seat> {
    let mut seats: Vec<Seat> = credentials
        .iter()
        .filter(|c| c.role == Role::Player && c.share_commitment.is_some() && c.entropy.is_none())
        .filter_map(|c| c.seat)
        .collect();
    seats.sort();
    seats
}

/// The seats, as words ("seat 1, seat 3").
fn seats_named(seats: &[Seat]) -> String {
    seats
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Step 5 for the host's start: the start's events when no committed share is awaited, or
/// their time is up; else 409 `shares_unrevealed` (the lobby to close first, or the shares
/// awaited until `reveal_by`).
pub(in crate::app) fn start(table: &Held) -> Result<Vec<Event>, ApiError> {
    let credentials = table.credentials();
    let waiting = awaited(credentials);
    let now = i64::try_from(table.now_ms()).unwrap_or(i64::MAX);
    let start = || start_events(table, credentials);
    match table.record().reveal_by {
        _ if waiting.is_empty() => start(),
        None => Err(ApiError::Conflict(
            Conflict::SharesUnrevealed,
            format!(
                "{} committed to a share: close the lobby (POST /games/{}/close) for the shares \
                 to be revealed; the last one revealed starts the game",
                seats_named(&waiting),
                table.id()
            ),
        )),
        Some(by) if now < by => Err(ApiError::Conflict(
            Conflict::SharesUnrevealed,
            format!(
                "{} committed to a share and not revealed it yet; the shares are awaited until \
                 {} ({} s from now), and a start then deals without them",
                seats_named(&waiting),
                crate::dto::rfc3339_ms(by),
                (by - now + 999) / 1000
            ),
        )),
        Some(_) => start(),
    }
}

/// Step 5 for the host's closing of the lobby: its shares due by now and
/// [`REVEAL_WINDOW_MS`] (closed already: as it was closed).
pub(in crate::app) fn close(table: &Held) -> Closing {
    let now = i64::try_from(table.now_ms()).unwrap_or(i64::MAX);
    Closing {
        reveal_by: table
            .record()
            .reveal_by
            .unwrap_or(now.saturating_add(REVEAL_WINDOW_MS)),
        waiting: awaited(table.credentials()),
    }
}

/// Step 5 for a share revealed by its seat: 409 `lobby_open` before the host closed the lobby;
/// 400 when the seat committed to no share or the share does not open its commitment. The
/// same share again answers as the first time; the last share awaited brings the start's
/// events.
pub(in crate::app) fn reveal(table: &Held, seat: Seat, sent: &str) -> Result<Reveal, ApiError> {
    let entropy = seed_sent(sent, "entropy")?;
    if table.record().reveal_by.is_none() {
        return Err(ApiError::Conflict(
            Conflict::LobbyOpen,
            "the lobby is open: shares are revealed once the host starts the game".into(),
        ));
    }
    let holder = table
        .holder(seat)
        .filter(|c| c.role == Role::Player)
        .ok_or_else(|| ApiError::NotFound(format!("nobody holds {seat}")))?;
    let Some(commitment) = holder.share_commitment.as_deref() else {
        return Err(ApiError::BadRequest(format!(
            "{seat} was taken without a share commitment: it has no share to reveal"
        )));
    };
    if entropy.share_commitment().to_hex() != commitment {
        return Err(ApiError::BadRequest(format!(
            "that share does not open the commitment {seat} was taken with ({commitment})"
        )));
    }
    let entropy = entropy.to_hex();
    let fresh = holder.entropy.is_none();
    let mut credentials = table.credentials().to_vec();
    for c in &mut credentials {
        if c.seat == Some(seat) && c.role == Role::Player {
            c.entropy = Some(entropy.clone());
        }
    }
    let waiting = awaited(&credentials);
    let start = if waiting.is_empty() {
        Some(start_events(table, &credentials)?)
    } else {
        None
    };
    Ok(Reveal {
        seat,
        entropy,
        fresh,
        waiting,
        start,
    })
}

/// The start's events with the seats as `credentials` hold them: the deal from the seed mixed
/// with every seated player's share (and the commitments of those who committed, revealed or
/// not), then the keys sent with the seats and the seats given to bots in the lobby, recorded
/// after the deal.
fn start_events(table: &Held, credentials: &[Credential]) -> Result<Vec<Event>, ApiError> {
    let history = table.history();
    // Every seated player's share, in seat order: the deals are drawn from the seed
    // mixed with them.
    let mut shares: Vec<saboteur_domain::Contribution> = credentials
        .iter()
        .filter(|c| c.role == Role::Player)
        .filter_map(|c| {
            let seat = c.seat?.0;
            let entropy = saboteur_domain::Seed::from_hex(c.entropy.as_deref()?)?;
            Some(saboteur_domain::Contribution {
                seat: Seat(seat),
                entropy,
            })
        })
        .collect();
    shares.sort_by_key(|c| c.seat);
    let mut committed: Vec<saboteur_domain::ShareCommitment> = credentials
        .iter()
        .filter(|c| c.role == Role::Player)
        .filter_map(|c| {
            Some(saboteur_domain::ShareCommitment {
                seat: c.seat?,
                commitment: saboteur_domain::Seed::from_hex(c.share_commitment.as_deref()?)?,
            })
        })
        .collect();
    committed.sort_by_key(|c| c.seat);
    let mut started = history
        .start_committed(&shares, &committed)
        .map_err(|v| ApiError::Conflict(Conflict::CannotStart, v.detail))?;
    // The keys sent with the seats, recorded after the deal: from now on the log says
    // who signs for each seat.
    // Each with its proof of possession, checked when it was sent (record version 4 on).
    let mut keys: Vec<(Seat, String, Option<String>)> = credentials
        .iter()
        .filter(|c| c.role == Role::Player)
        .filter_map(|c| Some((c.seat?, c.public_key.clone()?, c.key_proof.clone())))
        .collect();
    keys.sort();
    for (seat, key, proof) in keys {
        started.push(Event::SeatKeyRegistered {
            seat,
            key,
            signature: None,
            proof,
            at: None,
        });
    }
    // The seats given to bots in the lobby, recorded after the deal: from now on the
    // log says which seats are bots' (record version 2), so no bot command for another
    // seat verifies.
    let mut bots: Vec<(Seat, saboteur_domain::BotLevel)> = credentials
        .iter()
        .filter_map(|c| Some((c.seat?, c.bot_level()?)))
        .collect();
    bots.sort();
    if !bots.is_empty() {
        let mut dealt = history.clone();
        started.iter().cloned().for_each(|e| dealt.push(e));
        started.extend(dealt.seat_lobby_bots(&bots)?);
    }
    Ok(started)
}
