//! What the server publishes of its commitments: its keys (`GET /keys`), a page of the log
//! (`GET /log`), a checkpoint signed (`GET /log/checkpoint`).

use saboteur_storage::ReadStore;
use saboteur_verifier::transparency::{Checkpoint, LogRecord};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::error::ApiError;
use crate::receipt::{PublishedKey, Signer};

/// Every key the server has signed with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct KeyList {
    /// Oldest first; the one without `retired_at` signs now.
    pub keys: Vec<PublishedKey>,
}

/// A page of the transparency log.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct LogPage {
    /// The entries, in order.
    pub entries: Vec<LogRecord>,
    /// Pass as `after` for the next page; absent on the last page.
    #[schema(required = true)]
    pub next_after: Option<i64>,
}

/// `checkpoint` signed by `signer` (its `key_id` set to the signer's).
pub(crate) fn signed(mut checkpoint: Checkpoint, signer: &Signer) -> Checkpoint {
    checkpoint.key_id = signer.id().to_string();
    checkpoint.signature = String::new();
    checkpoint.signature = signer.sign_bytes(&checkpoint.signed_bytes());
    checkpoint
}

/// The published keys, oldest first.
pub(crate) async fn published_keys(store: &ReadStore) -> Result<Vec<PublishedKey>, ApiError> {
    Ok(store
        .server_keys()
        .await?
        .iter()
        .map(PublishedKey::from)
        .collect())
}
