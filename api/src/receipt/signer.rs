//! The server's signing key: it signs receipts, log checkpoints and the next key's endorsement,
//! with a key from the store, a key file, or a new one.

use ed25519_dalek::{Signer as _, SigningKey};

use saboteur_verifier::receipt::{PublishedKey, Receipt, endorsement_bytes, key_id};

/// The server's signing key.
#[derive(Clone)]
pub struct Signer {
    key: SigningKey,
    id: String,
}

impl std::fmt::Debug for Signer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Signer({})", self.id)
    }
}

impl Signer {
    /// A signer from a 32-byte Ed25519 secret key.
    pub fn from_secret(secret: &[u8; 32]) -> Signer {
        let key = SigningKey::from_bytes(secret);
        let id = key_id(key.verifying_key().as_bytes());
        Signer { key, id }
    }

    /// A new random key, from the operating system.
    pub fn generate() -> std::io::Result<Signer> {
        let mut secret = [0u8; 32];
        getrandom::fill(&mut secret).map_err(|e| std::io::Error::other(e.to_string()))?;
        Ok(Signer::from_secret(&secret))
    }

    /// A signer from a file of 64 hex digits (the secret key); a missing file is created with
    /// a new key, readable by its owner only.
    pub fn from_file(path: &std::path::Path) -> std::io::Result<Signer> {
        match std::fs::read_to_string(path) {
            Ok(text) => {
                let secret: [u8; 32] = hex::decode(text.trim())
                    .ok()
                    .and_then(|b| b.try_into().ok())
                    .ok_or_else(|| {
                        std::io::Error::other(format!(
                            "{}: a signing key file holds 64 hex digits",
                            path.display()
                        ))
                    })?;
                Ok(Signer::from_secret(&secret))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let signer = Signer::generate()?;
                let mut options = std::fs::OpenOptions::new();
                options.write(true).create_new(true);
                #[cfg(unix)]
                std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
                let mut file = options.open(path)?;
                std::io::Write::write_all(
                    &mut file,
                    hex::encode(signer.key.to_bytes()).as_bytes(),
                )?;
                Ok(signer)
            }
            Err(e) => Err(e),
        }
    }

    /// The key's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The public key, 64 hex digits.
    pub fn public_hex(&self) -> String {
        hex::encode(self.key.verifying_key().as_bytes())
    }

    /// The key as the store records it; `with_secret` keeps the secret half in the store.
    pub fn new_key(&self, with_secret: bool) -> saboteur_storage::NewKey {
        saboteur_storage::NewKey {
            id: self.id.clone(),
            public_key: self.public_hex(),
            secret_key: with_secret.then(|| self.key.to_bytes().to_vec()),
            endorsement: None,
        }
    }

    /// This key's endorsement of `next`, the key that replaces it ([`endorsement_bytes`]).
    pub fn endorse(&self, next: &saboteur_storage::NewKey) -> String {
        self.sign_bytes(&endorsement_bytes(&self.id, &next.id, &next.public_key))
    }

    /// A signer from a key the store kept (with its secret half).
    pub fn from_stored(key: &saboteur_storage::ServerKey) -> std::io::Result<Signer> {
        let secret: [u8; 32] = key
            .secret_key
            .as_deref()
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| {
                std::io::Error::other(format!(
                    "the active signing key {} is kept outside the store: start with \
                     --signing-key-file (its file), or rotate the key with `saboteur keys \
                     rotate --signing-key-file`",
                    key.id
                ))
            })?;
        let signer = Signer::from_secret(&secret);
        if signer.id != key.id {
            return Err(std::io::Error::other(format!(
                "the stored signing key {} does not match its id",
                key.id
            )));
        }
        Ok(signer)
    }

    /// Signs `receipt` (its `key_id` set to this key's).
    pub fn sign(&self, mut receipt: Receipt) -> Receipt {
        receipt.key_id = self.id.clone();
        receipt.signature = String::new();
        let signature = self.key.sign(&receipt.signed_bytes());
        receipt.signature = hex::encode(signature.to_bytes());
        receipt
    }

    /// Signs any statement's JCS bytes (a log checkpoint), 128 hex digits.
    pub fn sign_bytes(&self, bytes: &[u8]) -> String {
        hex::encode(self.key.sign(bytes).to_bytes())
    }

    /// A published form of this key, for tests and tools that sign offline.
    pub fn published(&self) -> PublishedKey {
        PublishedKey {
            id: self.id.clone(),
            public_key: self.public_hex(),
            created_at: chrono::Utc::now().to_rfc3339(),
            retired_at: None,
            endorsement: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use saboteur_verifier::receipt::{ReceiptAudience, ReceiptKind, view_hash};

    use super::*;

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

    #[test]
    fn a_key_file_is_made_once_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("key");
        let made = Signer::from_file(&path).unwrap();
        let read = Signer::from_file(&path).unwrap();
        assert_eq!(made.id(), read.id());
        std::fs::write(&path, "not hex").unwrap();
        assert!(Signer::from_file(&path).is_err());
    }
}
