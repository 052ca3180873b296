//! A read-only handle on the store: every question, no writer. The server gives it to its
//! HTTP layer, so a handler cannot write however it is written; appends, creations and the
//! other writers stay with the one that holds the [`EventStore`].

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use saboteur_domain::{History, Seat};
use tokio::sync::broadcast;

use crate::error::Result;
use crate::ids::{GameId, Version};
use crate::records::{
    ChainReport, Credential, GamePage, GameRecord, GameStatus, Notice, StoredEvent,
};
use crate::{EventStore, KeptReply, LogEntry, PresenceKey, ServerKey};

/// The store's reads, without its writers ([`EventStore::reader`]). Cloning it is cheap: it
/// shares the store's connections.
#[derive(Clone)]
pub struct ReadStore(EventStore);

impl EventStore {
    /// A handle on this store that can only read it.
    pub fn reader(&self) -> ReadStore {
        ReadStore(self.clone())
    }
}

/// Each method of [`ReadStore`] asks the [`EventStore`] method of its name.
macro_rules! reads {
    ($($(#[$doc:meta])* $name:ident($($arg:ident: $ty:ty),*) -> $out:ty;)*) => {
        impl ReadStore {
            $(
                $(#[$doc])*
                pub async fn $name(&self, $($arg: $ty),*) -> $out {
                    self.0.$name($($arg),*).await
                }
            )*
        }
    };
}

reads! {
    /// [`EventStore::ping`].
    ping() -> Result<()>;
    /// [`EventStore::writable`]: a question, it writes nothing.
    writable() -> Result<()>;
    /// [`EventStore::events_after`].
    events_after(game_id: &GameId, after: Version, limit: u32) -> Result<Vec<StoredEvent>>;
    /// [`EventStore::load_history`].
    load_history(game_id: &GameId) -> Result<History>;
    /// [`EventStore::load_history_and_heads`].
    load_history_and_heads(game_id: &GameId) -> Result<(History, Vec<String>)>;
    /// [`EventStore::time_floor`].
    time_floor(game_id: &GameId) -> Result<i64>;
    /// [`EventStore::game_creator`].
    game_creator(game_id: &GameId) -> Result<Option<String>>;
    /// [`EventStore::get_game`].
    get_game(id: &GameId) -> Result<GameRecord>;
    /// [`EventStore::list_games`].
    list_games(status: Option<GameStatus>, cursor: Option<&str>, limit: u32) -> Result<GamePage>;
    /// [`EventStore::list_games_since`].
    list_games_since(
        status: Option<GameStatus>,
        cursor: Option<&str>,
        limit: u32,
        lobbies_since: Option<DateTime<Utc>>
    ) -> Result<GamePage>;
    /// [`EventStore::count_lobbies`].
    count_lobbies(since: DateTime<Utc>) -> Result<u64>;
    /// [`EventStore::client_lobbies`].
    client_lobbies(client: &str, since: DateTime<Utc>) -> Result<Vec<DateTime<Utc>>>;
    /// [`EventStore::next_game`].
    next_game(id: &GameId) -> Result<Option<GameId>>;
    /// [`EventStore::seats_taken_by`].
    seats_taken_by(client: &str, since: DateTime<Utc>) -> Result<Vec<DateTime<Utc>>>;
    /// [`EventStore::credentials`].
    credentials(game_id: &GameId) -> Result<Vec<Credential>>;
    /// [`EventStore::seats_of_key`].
    seats_of_key(public_key: &str, since: DateTime<Utc>, limit: u32) -> Result<Vec<(GameId, Seat)>>;
    /// [`EventStore::server_keys`].
    server_keys() -> Result<Vec<ServerKey>>;
    /// [`EventStore::active_server_key`].
    active_server_key() -> Result<Option<ServerKey>>;
    /// [`EventStore::others_presence`].
    others_presence(process: &str, since_ms: i64) -> Result<BTreeMap<PresenceKey, u32>>;
    /// [`EventStore::kept_reply`].
    kept_reply(scope: &str, key: &str, since: DateTime<Utc>) -> Result<Option<KeptReply>>;
    /// [`EventStore::log_entries`].
    log_entries(after: i64, limit: u32) -> Result<Vec<LogEntry>>;
    /// [`EventStore::last_log_entry`].
    last_log_entry() -> Result<Option<LogEntry>>;
    /// [`EventStore::log_entry_of`].
    log_entry_of(game_id: &GameId) -> Result<Option<LogEntry>>;
    /// [`EventStore::verify_chain`].
    verify_chain(game_id: &GameId) -> Result<ChainReport>;
}

impl ReadStore {
    /// [`EventStore::backend_name`].
    pub fn backend_name(&self) -> &'static str {
        self.0.backend_name()
    }

    /// [`EventStore::subscribe`].
    pub fn subscribe(&self) -> broadcast::Receiver<Notice> {
        self.0.subscribe()
    }
}
