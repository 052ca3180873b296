//! Saboteur Server's offline checks of a game's record, buildable and runnable without the
//! server, its database or a network: everything `saboteur verify` (and this crate's own
//! binary, `saboteur-verify`) checks.
//!
//! - [`hash`] — the record's hashes: the event chain ([`hash::chain_hash`]), the seed's
//!   commitment, the transparency log's entries. The store writes with these same functions.
//! - [`audit`] — the audit bundle and its checks (the engine's audit of every command, deal and
//!   bot move; players' signatures), receipts and seed commitments checked against it, and
//!   receipts pooled without it.
//! - [`receipt`] — receipts, published keys and their endorsement chain, `view_hash` (RFC 8785).
//! - [`body`] — the bodies receipts sign, and the one way each is computed.
//! - [`newer`] — events of types newer than the API version a client declared, served wrapped.
//! - [`transparency`] — the log's entries and checkpoints, and their checks.
//! - [`cli`] — the command line: what to check, what is printed, the exit codes.
//!
//! See docs/threat-model.md for what each check proves.

#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::panic
    )
)]

pub mod audit;
pub mod body;
pub mod cli;
pub mod hash;
pub mod newer;
pub mod receipt;
pub mod report;
pub mod seal;
#[cfg(test)]
mod testing;
pub mod transparency;
