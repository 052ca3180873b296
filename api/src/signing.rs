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
            if active.as_ref().map(|k| k.id.as_str()) != Some(signer.id()) {
                let new = endorsed(active.as_ref(), signer.new_key(false));
                store.rotate_server_key(new).await.map_err(err)?;
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
    let err = |e: saboteur_storage::StoreError| {
        std::io::Error::other(format!("cannot rotate the signing key: {e}"))
    };
    let signer = receipt::Signer::generate()?;
    let active = store.active_server_key().await.map_err(err)?;
    let new = endorsed(active.as_ref(), signer.new_key(true));
    let key = store.rotate_server_key(new).await.map_err(err)?;
    Ok(receipt::PublishedKey::from(&key))
}

/// `new`, endorsed by the key it replaces when the store keeps that key's secret half (one
/// kept in a file cannot sign here: the new key is then published without an endorsement).
fn endorsed(
    active: Option<&saboteur_storage::ServerKey>,
    mut new: saboteur_storage::NewKey,
) -> saboteur_storage::NewKey {
    new.endorsement = active
        .and_then(|k| receipt::Signer::from_stored(k).ok())
        .map(|previous| previous.endorse(&new));
    new
}
