//! The server's public commitments: its signing keys (`GET /keys`) and the transparency log of
//! finished games (`GET /log`, `GET /log/checkpoint`). The log's records and their offline
//! checks are the verifier's ([`saboteur_verifier::transparency`], re-exported here).
//!
//! A game is logged when the append that finishes it is accepted (`Table::commit`), and by the
//! bots' sweep for any finished game left unlogged (a crash in between, games finished before
//! the log existed): the store writes each game's entry once.

mod published;

pub use published::{KeyList, LogPage};
pub(crate) use published::{published_keys, signed};
pub use saboteur_verifier::transparency::{
    Checkpoint, LOGGING_GRACE_MS, LogRecord, Placed, check_checkpoint, check_checkpoint_times,
    check_entries, check_entry, place_game, withdrawn_keys,
};
