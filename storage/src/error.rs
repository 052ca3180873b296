//! What can go wrong in the store, and which failures mean "the database cannot be reached".

/// What can go wrong in the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Another writer appended first: the expected version is stale.
    #[error("version conflict: expected version {expected}, the game is at {actual}")]
    Conflict {
        /// The version the caller expected.
        expected: crate::Version,
        /// The version the game is at.
        actual: crate::Version,
    },
    /// No game with that id.
    #[error("no such game")]
    NotFound,
    /// The taker of a seat took as many as its limit allows in its period: nothing stored.
    #[error("the client took as many seats as its limit allows")]
    OverLimit,
    /// A game (or a credential, or a seat) with that key exists already.
    #[error("that exists already")]
    Exists,
    /// The lobby is not as the write asked ([`crate::LobbyAt`]): it moved on from the version
    /// a signed act names, it was closed for the committed shares, or the game is no longer a
    /// lobby. Nothing was written.
    #[error("the lobby is not at the version or state the write asks for")]
    LobbyChanged,
    /// The request makes no sense (an empty batch, a bad cursor, an unknown URL scheme).
    #[error("{0}")]
    Invalid(String),
    /// What the store holds cannot be read back (a row or an event the code does not
    /// understand), or it broke one of its own invariants: the store's fault, never the
    /// caller's.
    #[error("the stored record cannot be read: {0}")]
    Corrupt(String),
    /// The database cannot be reached, or the connection broke. After a write answered this,
    /// its outcome is **unknown**: it may or may not have been recorded; read it back.
    #[error("the database cannot be reached: {0}")]
    Unavailable(String),
    /// The database failed.
    #[error("database error: {0}")]
    Database(#[source] sqlx::Error),
    /// A migration failed.
    #[error("migration error: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
}

/// A result of the store.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> StoreError {
        if is_unreachable(&e) {
            StoreError::Unavailable(e.to_string())
        } else {
            StoreError::Database(e)
        }
    }
}

/// Whether an error says the database could not be reached or the connection broke (rather
/// than that a statement was refused): IO, TLS and protocol failures, pool time-outs,
/// PostgreSQL's connection exceptions (class 08), shutdowns (57P01–57P03) and a write refused
/// as read-only (25006: the server reached is a standby, as during a failover, when the old
/// primary's address still leads to it), SQLite's busy, locked, read-only and full database and
/// its I/O errors (each with its extended codes: a file opened read-only, a read-only
/// filesystem, a full disk).
pub fn is_unreachable(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::Protocol(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed => true,
        sqlx::Error::Database(d) => d.code().is_some_and(|c| {
            c.starts_with("08")
                || matches!(&*c, "25006" | "57P01" | "57P02" | "57P03")
                || sqlite_unavailable(&c)
        }),
        _ => false,
    }
}

/// Whether a SQLite result code (shorter than a PostgreSQL SQLSTATE's five characters; an
/// extended code keeps its primary code in the low byte) says the database cannot take the
/// statement now: `SQLITE_BUSY` (5), `SQLITE_LOCKED` (6), `SQLITE_READONLY` (8),
/// `SQLITE_IOERR` (10), `SQLITE_FULL` (13).
fn sqlite_unavailable(code: &str) -> bool {
    code.len() < 5
        && code
            .parse::<u32>()
            .is_ok_and(|n| matches!(n & 0xff, 5 | 6 | 8 | 10 | 13))
}

pub(crate) fn is_unique_violation(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::Database(d) if d.is_unique_violation())
}

/// The outcome of an insert: a key already taken is [`StoreError::Exists`].
pub(crate) fn inserted<T>(result: std::result::Result<T, sqlx::Error>) -> Result<()> {
    match result {
        Ok(_) => Ok(()),
        Err(e) if is_unique_violation(&e) => Err(StoreError::Exists),
        Err(e) => Err(e.into()),
    }
}

/// The outcome of an update or delete of one row: none touched is [`StoreError::NotFound`].
pub(crate) fn touched(rows: u64) -> Result<()> {
    if rows == 0 {
        Err(StoreError::NotFound)
    } else {
        Ok(())
    }
}
