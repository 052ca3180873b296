//! What every check of a receipt starts with: its signature by a published (or kept) key, the
//! part of a kept body it signs, its name in a verdict, and why it fails ([`ReceiptProblem`]).

use std::borrow::Cow;

use serde_json::Value;

use crate::receipt::{PublishedKey, Receipt, ReceiptKind};

/// Why receipts do not agree with a bundle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReceiptProblem {
    /// A receipt proves nothing (a bad signature, an unknown key, another game, a body that is
    /// not the one it signed): it is refused.
    Refused(String),
    /// A genuine receipt contradicts the bundle: the record changed after it was served.
    Contradiction(String),
}

impl std::fmt::Display for ReceiptProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReceiptProblem::Refused(s) => write!(f, "refused: {s}"),
            ReceiptProblem::Contradiction(s) => write!(f, "contradiction: {s}"),
        }
    }
}

/// The receipt's signature checked against the keys the bundle publishes; a receipt signed by
/// a key the client kept (`GET /keys` from first contact) that the bundle no longer publishes
/// is genuine, and its key's absence is the server's contradiction, not a forgery.
pub(crate) fn check_signed(
    name: &str,
    receipt: &Receipt,
    published: &[PublishedKey],
    kept: &[PublishedKey],
) -> Result<(), ReceiptProblem> {
    let Err(e) = receipt.check_signature(published) else {
        return Ok(());
    };
    if receipt.check_signature(kept).is_ok() {
        return Err(ReceiptProblem::Contradiction(format!(
            "{name}: it is signed by key {}, which was kept from the server's published keys \
             and which the bundle no longer publishes as it was: the server withdrew its key",
            receipt.key_id
        )));
    }
    Err(ReceiptProblem::Refused(format!(
        "{name}: {e}: a forgery proves nothing"
    )))
}

/// The part of a body kept with its receipt that the receipt signs: the body, or for a
/// commitment, the reply's `commitment` alone (the rest of the reply holds a token); an
/// outcome's events served wrapped for an older client ([`crate::newer`]) as the events they
/// hold.
pub(crate) fn signed_body<'a>(receipt: &Receipt, body: &'a Value) -> Cow<'a, Value> {
    match receipt.kind {
        ReceiptKind::Commitment => Cow::Borrowed(body.get("commitment").unwrap_or(body)),
        _ => crate::newer::unwrapped(body),
    }
}

/// The name of a receipt in a verdict: whom it was for and at which version.
pub(crate) fn receipt_name(receipt: &Receipt) -> String {
    format!(
        "receipt for {} at version {} of game {}",
        receipt.audience_words(),
        receipt.version,
        receipt.game_id
    )
}
