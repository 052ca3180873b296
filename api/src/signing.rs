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
                let new = endorsed(active.as_ref(), None, signer.new_key(false))?;
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

/// Retires the active signing key and makes a new one (kept by the store), endorsed by the
/// active key: the store's, or `file`'s when it is kept outside the store (a server started
/// with a key file). The old keys stay published; the store erases the retired key's secret
/// half. Running servers sign with the key they started with until they restart.
pub async fn rotate_signing_key(
    store: &EventStore,
    file: Option<receipt::Signer>,
) -> std::io::Result<receipt::PublishedKey> {
    let err = |e: saboteur_storage::StoreError| {
        std::io::Error::other(format!("cannot rotate the signing key: {e}"))
    };
    let signer = receipt::Signer::generate()?;
    let active = store.active_server_key().await.map_err(err)?;
    let new = endorsed(active.as_ref(), file.as_ref(), signer.new_key(true))?;
    let key = store.rotate_server_key(new).await.map_err(err)?;
    Ok(receipt::PublishedKey::from(&key))
}

/// `new`, endorsed by the key it replaces (every key after the first is: a verifier refuses a
/// chain with an unendorsed link): by `held`, the active key's own signer when the caller has
/// it (a key file), else by the key as the store keeps it. An active key kept outside the store
/// (a file's) cannot sign here without its file, so it cannot be replaced: the error says so.
fn endorsed(
    active: Option<&saboteur_storage::ServerKey>,
    held: Option<&receipt::Signer>,
    mut new: saboteur_storage::NewKey,
) -> std::io::Result<saboteur_storage::NewKey> {
    if let Some(held) = held
        && active.map(|k| k.id.as_str()) != Some(held.id())
    {
        return Err(std::io::Error::other(format!(
            "the key file holds key {}, which is not the active key {}",
            held.id(),
            active.map_or("(none)", |k| k.id.as_str())
        )));
    }
    let Some(active) = active else {
        return Ok(new);
    };
    let stored;
    let previous = match held {
        Some(held) => held,
        None => {
            stored = receipt::Signer::from_stored(active).map_err(|_| {
                std::io::Error::other(format!(
                    "the active signing key {} is kept outside the store, so it cannot endorse \
                     its successor, and an unendorsed key would break the published chain: \
                     rotate with `saboteur keys rotate --signing-key-file` (its file), then \
                     start with the new key",
                    active.id
                ))
            })?;
            &stored
        }
    };
    new.endorsement = Some(previous.endorse(&new));
    Ok(new)
}
