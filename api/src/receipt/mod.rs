//! The server's signing key ([`Signer`]): it signs receipts, log checkpoints and the next key's
//! endorsement. Receipts, published keys and their checks are the verifier's
//! ([`saboteur_verifier::receipt`], re-exported here), usable offline (docs/threat-model.md).

mod signer;

pub use saboteur_verifier::receipt::{
    PublishedKey, Receipt, ReceiptAudience, ReceiptKind, audience_from, audience_of, broken_chain,
    canonicalised, check_bytes, endorsement_bytes, jcs, key_id, view_hash,
};
pub use signer::Signer;
