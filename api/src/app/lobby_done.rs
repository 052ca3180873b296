//! What a lobby's act did ([`LobbyDone`]): one type per reply, which says how it is sent and
//! is what `lobby_replies` keeps for a retry with the act's key.

use serde::{Deserialize, Serialize};

use crate::dto::{BotSeated, Joined, KeyKept, LobbyClosed, SeatMoved, SeatNamed, ShareRevealed};
use crate::error::ApiError;

/// What a lobby's act did, the one reply type of each: sent as [`LobbyDone::sent`] says,
/// and kept as stored (which act's reply, and its body) for a retry with its key.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kept", content = "reply", rename_all = "snake_case")]
pub(crate) enum LobbyDone {
    /// A seat was taken, or claimed (201).
    Joined(Box<Joined>),
    /// A bot was seated (201).
    BotSeated(BotSeated),
    /// A seat was given back (204).
    Left,
    /// A seat's key was changed before the start: its commitment made again (201).
    KeyKept(Box<KeyKept>),
    /// A seat was named anew before the start (200).
    Renamed(SeatNamed),
    /// A player moved to another seat before the start: its commitment made again (201).
    Moved(Box<SeatMoved>),
    /// The lobby was closed for the committed shares to be revealed (200).
    Closed(LobbyClosed),
    /// A committed share was revealed (200).
    Revealed(Box<ShareRevealed>),
}

/// How a lobby act's reply is sent, with its body (JSON).
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Sent {
    /// 201, naming the seat it made or changed in `Location`.
    Seated(u8, Vec<u8>),
    /// 200.
    Ok(Vec<u8>),
    /// 204, no body.
    NoContent,
}

impl LobbyDone {
    /// How the reply is sent, and its body.
    pub(crate) fn sent(&self) -> Result<Sent, ApiError> {
        fn json(body: &impl Serialize) -> Result<Vec<u8>, ApiError> {
            serde_json::to_vec(body)
                .map_err(|e| ApiError::Internal(format!("a lobby's reply cannot be written: {e}")))
        }
        Ok(match self {
            LobbyDone::Joined(j) => Sent::Seated(j.seat, json(j)?),
            LobbyDone::BotSeated(b) => Sent::Seated(b.seat, json(b)?),
            LobbyDone::KeyKept(k) => Sent::Seated(k.seat, json(k)?),
            LobbyDone::Renamed(r) => Sent::Ok(json(r)?),
            LobbyDone::Moved(m) => Sent::Seated(m.seat, json(m)?),
            LobbyDone::Closed(c) => Sent::Ok(json(c)?),
            LobbyDone::Revealed(r) => Sent::Ok(json(r)?),
            LobbyDone::Left => Sent::NoContent,
        })
    }
}
