//! The store's records in the forms the server publishes them and the verifier reads them: a
//! signing key ([`PublishedKey`]), a transparency log entry ([`LogRecord`]), an event of an
//! audit bundle ([`BundleEvent`]).

use saboteur_verifier::audit::BundleEvent;
use saboteur_verifier::receipt::PublishedKey;
use saboteur_verifier::transparency::LogRecord;

use crate::{LogEntry, ServerKey, StoredEvent};

impl From<&ServerKey> for PublishedKey {
    fn from(k: &ServerKey) -> Self {
        PublishedKey {
            id: k.id.clone(),
            public_key: k.public_key.clone(),
            created_at: k.created_at.to_rfc3339(),
            retired_at: k.retired_at.map(|t| t.to_rfc3339()),
            endorsement: k.endorsement.clone(),
        }
    }
}

impl From<LogEntry> for LogRecord {
    fn from(e: LogEntry) -> Self {
        LogRecord {
            seq: e.seq,
            game_id: e.game_id.to_string(),
            version: e.version.stored(),
            head: e.head,
            prev_hash: e.prev_hash,
            hash: e.hash,
            logged_at: e.logged_at.to_rfc3339(),
        }
    }
}

impl From<&StoredEvent> for BundleEvent {
    fn from(e: &StoredEvent) -> Self {
        BundleEvent {
            seq: e.seq.stored(),
            event_type: e.event_type.clone(),
            schema_version: e.schema_version,
            payload: e.payload.clone(),
            prev_hash: e.prev_hash.clone(),
            hash: e.hash.clone(),
        }
    }
}
