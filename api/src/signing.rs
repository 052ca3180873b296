//! The key receipts and checkpoints are signed with: the store's active key (made on the first
//! start) or a key file's, and rotation.

use saboteur_storage::EventStore;

use crate::receipt;

/// The key this process signs with: the file's when one is given (recorded as the active key
/// if it is not), otherwise the store's active key, made on the first start. Processes
/// starting together on one database end up with one key: the store decides.
pub async fn signing_key(
    store: &EventStore,
    file: Option<&std::path::Path>,
) -> std::io::Result<receipt::Signer> {
    let err = |e: saboteur_storage::StoreError| {
        std::io::Error::other(format!("cannot read the signing keys: {e}"))
    };
    match file {
        Some(path) => {
            let signer = receipt::Signer::from_file(path)?;
            let active = store.active_server_key().await.map_err(err)?;
            if active.map(|k| k.id).as_deref() != Some(signer.id()) {
                store
                    .rotate_server_key(signer.new_key(false))
                    .await
                    .map_err(err)?;
            }
            Ok(signer)
        }
        None => {
            let candidate = receipt::Signer::generate()?;
            let key = store
                .ensure_server_key(candidate.new_key(true))
                .await
                .map_err(err)?;
            receipt::Signer::from_stored(&key)
        }
    }
}

/// Retires the active signing key and makes a new one (kept by the store); the old keys stay
/// published. Running servers sign with the key they started with until they restart.
pub async fn rotate_signing_key(store: &EventStore) -> std::io::Result<receipt::PublishedKey> {
    let signer = receipt::Signer::generate()?;
    let key = store
        .rotate_server_key(signer.new_key(true))
        .await
        .map_err(|e| std::io::Error::other(format!("cannot rotate the signing key: {e}")))?;
    Ok(receipt::PublishedKey::from(&key))
}
