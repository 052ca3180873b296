//! The append-only event store of Saboteur Server, on sqlx: PostgreSQL in production, SQLite as
//! the embedded default. Both backends keep one contract, checked by one conformance suite.
//!
//! - **Append** a batch of events at an expected version, atomically; a writer that lost the
//!   race gets [`StoreError::Conflict`]; a command id makes the append idempotent; a write
//!   whose outcome is unknown (the database went away) is [`StoreError::Unavailable`].
//! - **Create** a game whole: its row, first event and host credential in one transaction.
//! - **Immutability**: triggers refuse UPDATE and DELETE on `events`, and DELETE on `games`.
//! - **Tamper evidence**: every event carries `hash = SHA-256(prev_hash ‖ canonical event)`;
//!   [`EventStore::verify_chain`] names the first broken sequence number.
//! - **Signing keys** ([`ServerKey`]): one active, every one kept; and the **transparency log**
//!   ([`LogEntry`]): one hash-chained entry per finished game, written once.
//! - **Presence** shared by the server processes on one database: each records its open streams
//!   per game and seat and beats; the others read them ([`EventStore::beat_presence`]).
//! - **Live notification** of appends: LISTEN/NOTIFY on PostgreSQL (shared by every server
//!   process on the database, surviving outages), an in-process broadcast on SQLite.
//!
//! The store knows nothing of the game's rules: the caller gives each event's type, schema
//! version and JSON payload.

#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::panic
    )
)]

mod append;
mod backend;
mod chain;
mod combine;
mod credentials;
mod engine;
mod error;
#[cfg(feature = "testing")]
pub mod faults;
mod games;
mod ids;
mod keys;
mod notify;
mod presence;
mod published;
mod reads;
mod records;
mod replies;
mod signed_times;
#[cfg(feature = "testing")]
pub mod testing;
mod translog;

pub use backend::{ACQUIRE_TIMEOUT, EventStore};
pub use credentials::{LobbyAt, SeatTaker};
pub use engine::{decode, to_new_event, to_new_events};
pub use error::{Result, StoreError, is_unreachable};
pub use games::first_head;
pub use ids::{GameId, NotAGameId, Version};
pub use keys::{NewKey, ServerKey};
pub use notify::CHANNEL;
pub use presence::PresenceKey;
pub use reads::ReadStore;
pub use records::{
    Append, AppendOutcome, Appended, ChainReport, Credential, GamePage, GameRecord, GameStatus,
    ListedGame, NewEvent, NewGame, Notice, Role, StoredEvent, TokenSwap,
};
pub use replies::{ANSWER_SEPARATOR, KEPT_FOR, KeptReply, answer_id};
pub use saboteur_verifier::hash::{
    GENESIS, canonical_json, chain_hash, log_entry_hash, log_entry_hash_at, seed_commitment,
};
pub use translog::LogEntry;
