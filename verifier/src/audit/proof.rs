//! Receipts pooled from several players, without the game's record: equivocation (two heads
//! signed at one version), and what genuine receipts prove by themselves.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::signed::{ReceiptProblem, check_signed, receipt_name, signed_body};
use crate::receipt::{PublishedKey, Receipt, view_hash};

/// Receipts pooled from several players, checked against each other: the server signs one
/// chain per game, so two genuine receipts with different heads at one version of a game prove
/// that it served two different records (equivocation). Receipts that no key signed are left
/// to the other checks.
pub fn check_equivocation(
    receipts: &[(Receipt, Option<Value>)],
    published: &[PublishedKey],
    kept: &[PublishedKey],
) -> Result<(), ReceiptProblem> {
    let mut heads: std::collections::BTreeMap<(&str, i64), &Receipt> = Default::default();
    for (receipt, _) in receipts {
        let genuine =
            receipt.check_signature(published).is_ok() || receipt.check_signature(kept).is_ok();
        if !genuine {
            continue;
        }
        let at = (receipt.game_id.as_str(), receipt.version);
        match heads.get(&at) {
            Some(other) if other.head != receipt.head => {
                return Err(ReceiptProblem::Contradiction(format!(
                    "equivocation: the server signed two different heads at version {} of \
                     game {}: {} ({}) and {} ({})",
                    receipt.version,
                    receipt.game_id,
                    other.head,
                    other.audience_words(),
                    receipt.head,
                    receipt.audience_words()
                )));
            }
            Some(_) => {}
            None => {
                heads.insert(at, receipt);
            }
        }
    }
    Ok(())
}

/// What receipts prove by themselves, without the game's record: per game, how many genuine
/// receipts there are, the latest version the server signed, and whether a body kept with a
/// receipt shows the game over.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReceiptsProve {
    /// The game.
    pub game_id: String,
    /// Genuine receipts of it.
    pub receipts: u64,
    /// The latest version a receipt signed.
    pub latest_version: i64,
    /// When the latest receipt was served (RFC 3339).
    pub latest_served_at: String,
    /// The version at which a kept body (signed by its receipt) shows the game over.
    pub signed_game_over_at: Option<i64>,
}

/// Checks receipts without a bundle: every signature (under the kept keys), then the pool for
/// equivocation; returns what they prove, game by game.
pub fn prove_with_receipts(
    receipts: &[(Receipt, Option<Value>)],
    kept: &[PublishedKey],
) -> Result<Vec<ReceiptsProve>, ReceiptProblem> {
    for (receipt, body) in receipts {
        let name = receipt_name(receipt);
        check_signed(&name, receipt, kept, &[])?;
        if let Some(body) = body
            && view_hash(&signed_body(receipt, body)) != receipt.view_hash
        {
            return Err(ReceiptProblem::Refused(format!(
                "{name}: the body given with it is not the one it signed"
            )));
        }
    }
    check_equivocation(receipts, kept, &[])?;
    let mut games: Vec<ReceiptsProve> = Vec::new();
    for (receipt, body) in receipts {
        let over = body.as_ref().is_some_and(|b| {
            b.pointer("/view/phase/name").and_then(Value::as_str) == Some("game_over")
        });
        if !games.iter().any(|g| g.game_id == receipt.game_id) {
            games.push(ReceiptsProve {
                game_id: receipt.game_id.clone(),
                receipts: 0,
                latest_version: 0,
                latest_served_at: String::new(),
                signed_game_over_at: None,
            });
        }
        let Some(entry) = games.iter_mut().find(|g| g.game_id == receipt.game_id) else {
            continue;
        };
        entry.receipts += 1;
        if receipt.version >= entry.latest_version {
            entry.latest_version = receipt.version;
            entry.latest_served_at = receipt.served_at.clone();
        }
        if over {
            entry.signed_game_over_at = Some(receipt.version);
        }
    }
    Ok(games)
}
