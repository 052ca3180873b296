//! A signer for tests: signs receipts and statements as the server does (Ed25519 over the JCS
//! bytes), with a key given by the test.

use ed25519_dalek::{Signer as _, SigningKey};

use crate::receipt::{PublishedKey, Receipt, key_id};

/// A test's signing key.
pub(crate) struct Signer(SigningKey);

impl Signer {
    /// A signer from a 32-byte Ed25519 secret key.
    pub(crate) fn from_secret(secret: &[u8; 32]) -> Signer {
        Signer(SigningKey::from_bytes(secret))
    }

    /// The key's id.
    pub(crate) fn id(&self) -> String {
        key_id(self.0.verifying_key().as_bytes())
    }

    /// Signs `receipt` (its `key_id` set to this key's).
    pub(crate) fn sign(&self, mut receipt: Receipt) -> Receipt {
        receipt.key_id = self.id();
        receipt.signature = String::new();
        receipt.signature = self.sign_bytes(&receipt.signed_bytes());
        receipt
    }

    /// Signs any statement's bytes, 128 hex digits.
    pub(crate) fn sign_bytes(&self, bytes: &[u8]) -> String {
        hex::encode(self.0.sign(bytes).to_bytes())
    }

    /// The key as the server publishes it.
    pub(crate) fn published(&self) -> PublishedKey {
        PublishedKey {
            id: self.id(),
            public_key: hex::encode(self.0.verifying_key().as_bytes()),
            created_at: "2026-01-01T00:00:00+00:00".into(),
            retired_at: None,
            endorsement: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::receipt::{
        ReceiptAudience, ReceiptKind, broken_chain, endorsement_bytes, follow_endorsements,
        view_hash,
    };

    /// Keys 1, 2, 3 from secrets 1, 2, 3; each after the first endorsed by the one before it
    /// when `endorsed`.
    fn chain(endorsed: [bool; 2]) -> Vec<PublishedKey> {
        let signers: Vec<Signer> = (1..=3u8).map(|b| Signer::from_secret(&[b; 32])).collect();
        let mut keys: Vec<PublishedKey> = signers.iter().map(|s| s.published()).collect();
        for i in 1..3 {
            if endorsed[i - 1] {
                let (previous, key) = (&keys[i - 1], &keys[i]);
                let bytes = endorsement_bytes(&previous.id, &key.id, &key.public_key);
                keys[i].endorsement = Some(signers[i - 1].sign_bytes(&bytes));
            }
        }
        keys
    }

    #[test]
    fn every_key_after_the_first_must_be_endorsed() {
        assert_eq!(broken_chain(&chain([true, true])), None);
        let unendorsed = chain([true, false]);
        let said = broken_chain(&unendorsed).unwrap();
        assert!(
            said.starts_with(&format!(
                "key {} is published without an endorsement by key {}",
                unendorsed[2].id, unendorsed[1].id
            )),
            "{said}"
        );
        let mut forged = chain([true, true]);
        forged[1].endorsement = forged[2].endorsement.clone();
        assert!(broken_chain(&forged).unwrap().contains("did not sign it"));
    }

    #[test]
    fn a_key_endorsed_by_a_trusted_key_is_followed_and_no_other() {
        let keys = chain([true, true]);
        let mut trusted = vec![keys[0].clone()];
        follow_endorsements(&mut trusted, &[keys[2].clone(), keys[1].clone()]);
        assert_eq!(
            trusted.len(),
            3,
            "key 3 followed through key 2, offered after it"
        );
        assert!(keys.iter().all(|k| trusted.contains(k)));
        let broken = chain([false, true]);
        let mut trusted = vec![broken[0].clone()];
        follow_endorsements(&mut trusted, &broken[1..]);
        assert_eq!(
            trusted,
            vec![broken[0].clone()],
            "an unendorsed link stops the chain"
        );
    }

    fn receipt() -> Receipt {
        Receipt {
            kind: ReceiptKind::View,
            game_id: "g".into(),
            version: 3,
            first: None,
            head: "ab".repeat(32),
            served_at: "2026-01-01T00:00:00+00:00".into(),
            audience: ReceiptAudience::Seat,
            seat: Some(2),
            view_hash: view_hash(&serde_json::json!({"version": 3, "view": {"b": 1, "a": 2}})),
            request_hash: None,
            key_id: String::new(),
            signature: String::new(),
        }
    }

    #[test]
    fn a_signed_receipt_checks_and_a_changed_one_does_not() {
        let signer = Signer::from_secret(&[7; 32]);
        let keys = vec![signer.published()];
        let signed = signer.sign(receipt());
        assert_eq!(signed.key_id.len(), 16);
        assert_eq!(signed.signature.len(), 128);
        signed.check_signature(&keys).unwrap();
        let mut changed = signed.clone();
        changed.version = 4;
        assert!(changed.check_signature(&keys).is_err());
        let other = Signer::from_secret(&[8; 32]);
        assert!(signed.check_signature(&[other.published()]).is_err());
    }
}
