//! The types at the edges of the write path: a game's id and a version of its log. The store
//! keys games by text and counts versions as SQL integers; the conversions live here, checked,
//! and nowhere else.

use std::fmt;

use crate::error::ApiError;

/// A game's id: a UUID, as text in its hyphenated form.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct GameId(String);

impl GameId {
    /// A fresh random id.
    pub fn new() -> GameId {
        GameId(uuid::Uuid::new_v4().to_string())
    }

    /// The id a client named: 404 when it is not a UUID (no game has such an id).
    pub fn parse(text: &str) -> Result<GameId, ApiError> {
        uuid::Uuid::parse_str(text)
            .map(|u| GameId(u.hyphenated().to_string()))
            .map_err(|_| ApiError::NotFound(format!("no game {text:?}: game ids are UUIDs")))
    }

    /// The id as the store keys it.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A version of a game's log: how many events it holds (1 once created). Sequence numbers are
/// versions too: event `n` is the one that made version `n`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Version(u64);

impl Version {
    /// The version of a log holding `events` events.
    pub fn of(events: u64) -> Version {
        Version(events)
    }

    /// A version as the store and the wire count it (a signed 64-bit integer).
    pub fn stored(self) -> i64 {
        // A log never holds 2^63 events: the store could not have counted them.
        i64::try_from(self.0).unwrap_or(i64::MAX)
    }

    /// A version the store or a client gave: 400 when it is negative.
    pub fn from_stored(n: i64) -> Result<Version, ApiError> {
        u64::try_from(n)
            .map(Version)
            .map_err(|_| ApiError::BadRequest(format!("{n} is not a version")))
    }

    /// The version as the engine counts it.
    pub fn get(self) -> u64 {
        self.0
    }

    /// The version after `n` more events.
    pub fn plus(self, n: usize) -> Version {
        Version(self.0.saturating_add(u64::try_from(n).unwrap_or(u64::MAX)))
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}
