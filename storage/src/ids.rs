//! The store's edges, typed: a game's id ([`GameId`]) and a version of its log ([`Version`]);
//! seats are the engine's [`saboteur_domain::Seat`] (their columns in `records.rs`). The
//! database keys games by text and counts versions as SQL integers; the conversions live here,
//! checked, and nowhere else.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A game's id: a UUID, as text in its lowercase hyphenated form.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct GameId(String);

/// A text that is not a game's id (not a UUID).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no game {0:?}: game ids are UUIDs")]
pub struct NotAGameId(pub String);

impl GameId {
    /// A fresh random id.
    pub fn new() -> GameId {
        GameId(uuid::Uuid::new_v4().to_string())
    }

    /// The id a client named, in its one form; [`NotAGameId`] when it is not a UUID.
    pub fn parse(text: &str) -> std::result::Result<GameId, NotAGameId> {
        uuid::Uuid::parse_str(text)
            .map(|u| GameId(u.hyphenated().to_string()))
            .map_err(|_| NotAGameId(text.to_string()))
    }

    /// An id chosen by its caller, taken as it is (a test's game, an import): the store keys
    /// games by any text. A client's id goes through [`GameId::parse`].
    pub fn named(text: &str) -> GameId {
        GameId(text.to_string())
    }

    /// An id the store itself holds, read back from a row: trusted as written.
    pub(crate) fn stored(text: String) -> GameId {
        GameId(text)
    }

    /// The id as the store keys it.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Default for GameId {
    fn default() -> GameId {
        GameId::new()
    }
}

impl fmt::Display for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl PartialEq<str> for GameId {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for GameId {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl AsRef<str> for GameId {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

/// A version of a game's log: how many events it holds (1 once created). Sequence numbers are
/// versions too: event `n` is the one that made version `n`.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Version(pub u64);

impl Version {
    /// The version of a log holding `events` events.
    pub const fn of(events: u64) -> Version {
        Version(events)
    }

    /// The version as the database counts it (a signed 64-bit integer).
    pub fn stored(self) -> i64 {
        // A log never holds 2^63 events: the database could not have counted them.
        i64::try_from(self.0).unwrap_or(i64::MAX)
    }

    /// A version as a client or the database counts it; `None` when it is negative.
    pub fn from_stored(n: i64) -> Option<Version> {
        u64::try_from(n).ok().map(Version)
    }

    /// The version as the engine counts it.
    pub const fn get(self) -> u64 {
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

/// A game's id binds and reads as the text the database keys it by, on either backend.
impl<DB: sqlx::Database> sqlx::Type<DB> for GameId
where
    String: sqlx::Type<DB>,
{
    fn type_info() -> DB::TypeInfo {
        <String as sqlx::Type<DB>>::type_info()
    }

    fn compatible(ty: &DB::TypeInfo) -> bool {
        <String as sqlx::Type<DB>>::compatible(ty)
    }
}

impl<'q, DB: sqlx::Database> sqlx::Encode<'q, DB> for GameId
where
    String: sqlx::Encode<'q, DB>,
{
    fn encode_by_ref(
        &self,
        buf: &mut <DB as sqlx::Database>::ArgumentBuffer<'q>,
    ) -> std::result::Result<sqlx::encode::IsNull, sqlx::error::BoxDynError> {
        <String as sqlx::Encode<'q, DB>>::encode_by_ref(&self.0, buf)
    }
}

impl<'r, DB: sqlx::Database> sqlx::Decode<'r, DB> for GameId
where
    String: sqlx::Decode<'r, DB>,
{
    fn decode(
        value: <DB as sqlx::Database>::ValueRef<'r>,
    ) -> std::result::Result<GameId, sqlx::error::BoxDynError> {
        <String as sqlx::Decode<'r, DB>>::decode(value).map(GameId::stored)
    }
}

/// A version binds as the database's 64-bit integer; one read back negative is refused.
impl<DB: sqlx::Database> sqlx::Type<DB> for Version
where
    i64: sqlx::Type<DB>,
{
    fn type_info() -> DB::TypeInfo {
        <i64 as sqlx::Type<DB>>::type_info()
    }

    fn compatible(ty: &DB::TypeInfo) -> bool {
        <i64 as sqlx::Type<DB>>::compatible(ty)
    }
}

impl<'q, DB: sqlx::Database> sqlx::Encode<'q, DB> for Version
where
    i64: sqlx::Encode<'q, DB>,
{
    fn encode_by_ref(
        &self,
        buf: &mut <DB as sqlx::Database>::ArgumentBuffer<'q>,
    ) -> std::result::Result<sqlx::encode::IsNull, sqlx::error::BoxDynError> {
        <i64 as sqlx::Encode<'q, DB>>::encode_by_ref(&self.stored(), buf)
    }
}

impl<'r, DB: sqlx::Database> sqlx::Decode<'r, DB> for Version
where
    i64: sqlx::Decode<'r, DB>,
{
    fn decode(
        value: <DB as sqlx::Database>::ValueRef<'r>,
    ) -> std::result::Result<Version, sqlx::error::BoxDynError> {
        let n = <i64 as sqlx::Decode<'r, DB>>::decode(value)?;
        Version::from_stored(n).ok_or_else(|| format!("a negative version {n} in the store").into())
    }
}
