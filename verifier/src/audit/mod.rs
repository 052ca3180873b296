//! The offline audit of a game's record: its bundle ([`verify`]), the players' signatures in
//! it, receipts and commitments kept by players and spectators checked against it, and receipts
//! pooled without it. See docs/threat-model.md for what each proves.

mod bundle;
mod commitment;
mod error;
mod proof;
#[cfg(test)]
mod properties;
mod receipts;
mod refusals;
mod signatures;
mod signed;

pub use bundle::{
    AuditBundle, BundleEvent, Verified, acts_not_signed_by, verify, verify_unfinished,
};
pub use commitment::withheld_shares;
pub use error::{AuditCheck, AuditError};
pub use proof::{ReceiptsProve, check_equivocation, prove_with_receipts};
pub use receipts::{
    CLOCK_SKEW_MS, ReceiptsChecked, check_receipts, check_receipts_with_keys, read_receipts,
};
pub use refusals::{Judged, KeptStatement, judge_bundle, judge_from_views, judge_refusals};
pub use signatures::{
    check_signatures, proves_possession, proves_possession_at, verifies, verifying_key,
};
pub use signed::ReceiptProblem;
