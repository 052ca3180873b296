//! Step 5 of the seam: what an act decides to write, by the engine (events) or as the
//! credential a seat needs.

use saboteur_domain::{Event, Seat};
use saboteur_storage::{Credential, Role, TokenSwap};

use crate::app::act::{Act, SentKey, SentShare, Who};
use crate::app::auth::{new_token, token_hash};
use crate::app::check::free_seat;
use crate::app::ids::GameId;
use crate::app::shares::{self, Closing, Reveal};
use crate::app::state::AppState;
use crate::app::tables::Held;
use crate::app::text;
use crate::error::ApiError;

/// What an act decided to write.
pub(crate) enum Decided {
    /// Events to append, with a seat's new token (its hash and the token) swapped with them.
    Events {
        events: Vec<Event>,
        swap: Option<(TokenSwap, String)>,
    },
    /// A lobby's own write, made in step 6 by `lobby::write`: no event.
    Lobby(LobbyWrite),
    /// Nothing to write.
    Nothing,
}

/// A lobby's act decided: what it writes (a seat's credential, the lobby's state), no event.
pub(crate) enum LobbyWrite {
    /// A seat taken (with the player's token; a bot has none).
    Seat(Credential, Option<String>),
    /// A seat given back.
    Unseat(Seat),
    /// A seat named anew (the name checked).
    Rename(Seat, String),
    /// A player moved from the first seat to the second.
    Sit(Seat, Seat),
    /// A seat's public key (lowercase, and its proof when the record keeps one) registered
    /// before the start.
    Key(Seat, SentKey),
    /// A rematch's reserved seat claimed with a new token.
    Claim {
        seat: Seat,
        /// The previous game's token hash the seat was kept for.
        claimant: String,
        token: String,
        /// The player's share in the seed or the commitment to it, and public key with its
        /// proof, if sent.
        share: Share,
        key: Option<SentKey>,
    },
    /// The lobby closed for the committed shares to be revealed.
    Close(Closing),
    /// A committed share revealed.
    Reveal(Reveal),
}

/// A credential's seat, as the wire numbers it.
pub(crate) fn seat_number(c: &Credential) -> Result<u8, ApiError> {
    c.seat
        .map(|s| s.0)
        .ok_or_else(|| ApiError::Internal("a seat's credential names no seat".into()))
}

/// A share in the seed and its commitment as a seat holds them (64 lowercase hex digits each).
#[derive(Debug, Clone, Default)]
pub(crate) struct Share {
    pub entropy: Option<String>,
    pub commitment: Option<String>,
}

/// A share in the seed, or the commitment to it, as sent (64 hex digits, any case), written in
/// lowercase: 400 for anything else, or for both at once.
fn share(sent: &SentShare) -> Result<Share, ApiError> {
    let hex = |hex: &Option<String>, what: &str| {
        hex.as_deref()
            .map(|hex| shares::seed_sent(hex, what).map(|s| s.to_hex()))
            .transpose()
    };
    let share = Share {
        entropy: hex(&sent.entropy, "entropy")?,
        commitment: hex(&sent.commitment, "share_commitment")?,
    };
    if share.entropy.is_some() && share.commitment.is_some() {
        return Err(ApiError::BadRequest(
            "send your share (entropy) or the commitment to it (share_commitment), not both".into(),
        ));
    }
    Ok(share)
}

/// Where a key is sent: in the lobby, for a seat (none yet for a join), or during play for a
/// seat.
#[derive(Debug, Clone, Copy)]
enum Moment {
    Lobby(Option<Seat>),
    Play(Seat),
}

/// A public key as sent (64 hex digits, any case) with its proof, written in lowercase: 400
/// `bad_key` unless it is an Ed25519 key; in a game of record version 4 on, 400
/// `bad_key_proof` unless the proof is the key's signature of the game's key statement
/// ([`saboteur_domain::key_proof_statement`]), or, during play from record version 7 on, of
/// the statement dated at the version sent with it, for its seat
/// ([`saboteur_domain::key_proof_statement_at`]; the engine checks the version's window and
/// that no other seat holds the key). A version sent with a key in the lobby is refused: the
/// lobby's proof names none. In the lobby from record version 7 on, 409 `key_in_use` when
/// another seat holds the key: one key signs for one seat. Before version 4 no proof is
/// recorded.
fn key(table: &Held, sent: &SentKey, to: Moment) -> Result<SentKey, ApiError> {
    use saboteur_domain::TableError;
    let key = sent.key.to_ascii_lowercase();
    if !saboteur_domain::is_public_key(&key) || crate::app::signing::verifying_key(&key).is_none() {
        return Err(TableError::BadKey.into());
    }
    let record = table.history().record_version();
    if !saboteur_domain::options::proves_keys(record) {
        return Ok(SentKey {
            key,
            proof: None,
            at: None,
        });
    }
    let dated = saboteur_domain::options::dates_key_proofs(record);
    let game = table.id().as_str();
    let proof = sent.proof.as_deref().map(str::to_ascii_lowercase);
    let proved = match (&proof, to, sent.at) {
        (Some(p), Moment::Play(seat), Some(at)) if dated => {
            crate::app::signing::proves_possession_at(game, (&key, seat), at, p)
        }
        (Some(p), Moment::Play(_), None) if !dated => {
            crate::app::signing::proves_possession(game, &key, p)
        }
        (Some(p), Moment::Lobby(_), None) => crate::app::signing::proves_possession(game, &key, p),
        _ => false,
    };
    if !proved {
        return Err(TableError::BadKeyProof.into());
    }
    if let Moment::Lobby(seat) = to
        && dated
        && let Some(other) = table
            .credentials()
            .iter()
            .find(|c| {
                c.role == Role::Player
                    && c.seat != seat
                    && c.public_key.as_deref() == Some(key.as_str())
            })
            .and_then(|c| c.seat)
    {
        return Err(TableError::KeyInUse(other).into());
    }
    Ok(SentKey {
        key,
        proof,
        at: sent.at,
    })
}

/// Step 5: the engine decides.
pub(in crate::app) fn decide(
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
        (Act::Start { .. }, _) => events(shares::start(table)?),
        (Act::CloseLobby { .. }, _) => Decided::Lobby(LobbyWrite::Close(shares::close(table))),
        (Act::RevealShare { seat, entropy, .. }, _) => {
            Decided::Lobby(LobbyWrite::Reveal(shares::reveal(table, *seat, entropy)?))
        }
        (Act::Cancel { .. }, _) => events(history.cancel()?),
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
                seat: *seat,
                token_hash: token_hash(&token),
            };
            Decided::Events {
                events: history.reissue_token(*seat)?,
                swap: Some((swap, token)),
            }
        }
        // A seat whose command the store could not take has its whole time again.
        (Act::TimeOut { .. }, _) if !table.timeout_due(table.now_ms()) => Decided::Nothing,
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
                share,
                key,
                ..
            },
            _,
        ) => join(table, game, name, (share, key.as_ref()))?,
        (
            Act::SeatBot {
                game, level, name, ..
            },
            _,
        ) => {
            let seat = free_seat(table)?;
            // Named after its level and numbered by its seat (counted from 1), so that two bots
            // at one table read apart.
            let name = match name.as_deref() {
                None => format!("{level} bot {}", u16::from(seat) + 1),
                Some(n) => text::name(n)?,
            };
            Decided::Lobby(LobbyWrite::Seat(
                Credential {
                    game_id: game.clone(),
                    // No bearer token acts as a bot.
                    token_hash: None,
                    role: Role::Bot(*level),
                    seat: Some(Seat(seat)),
                    display_name: Some(name),
                    created_at: chrono::Utc::now(),
                    claimed_by: None,
                    entropy: None,
                    public_key: None,
                    key_proof: None,
                    share_commitment: None,
                },
                None,
            ))
        }
        (Act::Leave { seat, .. }, _) => Decided::Lobby(LobbyWrite::Unseat(*seat)),
        (Act::Rename { seat, name, .. }, _) => {
            Decided::Lobby(LobbyWrite::Rename(*seat, text::name(name)?))
        }
        (Act::Sit { seat, to, .. }, _) => Decided::Lobby(LobbyWrite::Sit(*seat, *to)),
        (
            Act::Claim {
                seat, share, key, ..
            },
            _,
        ) => claim(table, token, *seat, (share, key.as_ref()))?,
        (Act::RegisterKey { seat, key: k, .. }, _) => {
            if table.record().status == saboteur_storage::GameStatus::Lobby {
                Decided::Lobby(LobbyWrite::Key(
                    *seat,
                    key(table, k, Moment::Lobby(Some(*seat)))?,
                ))
            } else {
                let k = key(table, k, Moment::Play(*seat))?;
                events(history.register_key(*seat, &k.key, (k.proof.as_deref(), k.at))?)
            }
        }
        (Act::BotsDue { .. }, _) => Decided::Nothing,
        (Act::Create(..) | Act::Rematch { .. }, _)
        | (Act::Command { .. } | Act::RequestUndo { .. } | Act::VoteUndo { .. }, _) => {
            return Err(ApiError::Internal("an act reached the wrong step".into()));
        }
    })
}

/// A seat taken: the first free one, with the player's name, share and key checked.
fn join(
    table: &Held,
    game: &GameId,
    name: &str,
    (sent_share, sent): (&SentShare, Option<&SentKey>),
) -> Result<Decided, ApiError> {
    let name = text::name(name)?;
    let share = share(sent_share)?;
    let sent = sent
        .map(|s| key(table, s, Moment::Lobby(None)))
        .transpose()?;
    let seat = free_seat(table)?;
    let token = new_token()?;
    Ok(Decided::Lobby(LobbyWrite::Seat(
        Credential {
            game_id: game.clone(),
            token_hash: Some(token_hash(&token)),
            role: Role::Player,
            seat: Some(Seat(seat)),
            display_name: Some(name),
            created_at: chrono::Utc::now(),
            claimed_by: None,
            entropy: share.entropy,
            public_key: sent.as_ref().map(|k| k.key.clone()),
            key_proof: sent.and_then(|k| k.proof),
            share_commitment: share.commitment,
        },
        Some(token),
    )))
}

/// A rematch's reserved seat claimed with the previous game's token for that very seat.
fn claim(
    table: &Held,
    token: Option<&str>,
    seat: Seat,
    (sent_share, sent): (&SentShare, Option<&SentKey>),
) -> Result<Decided, ApiError> {
    let share = share(sent_share)?;
    let key = sent
        .map(|s| key(table, s, Moment::Lobby(Some(seat))))
        .transpose()?;
    let Some(token) = token else {
        return Err(ApiError::Unauthorized(
            "a reserved seat is claimed with the previous game's token for it".into(),
        ));
    };
    let claimant = token_hash(token);
    let number = Some(seat);
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
    Ok(Decided::Lobby(LobbyWrite::Claim {
        seat,
        claimant,
        token: new_token()?,
        share,
        key,
    }))
}
