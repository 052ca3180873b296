//! The server's signing keys: every key it has signed with stays published; one is active.
//!
//! The store knows nothing of signatures: the caller makes a key's material and id, the store
//! decides which key is active when several processes start on one database at once (a
//! unique index allows one key without `retired_at`).

use chrono::{DateTime, Utc};
use sqlx::Row;

use crate::EventStore;
use crate::backend::{on_pool, on_writer};
use crate::error::{Result, StoreError, is_unique_violation};

/// A signing key as the store keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerKey {
    /// The key's id (chosen by the caller; derived from the public key).
    pub id: String,
    /// The public key, as the caller encoded it.
    pub public_key: String,
    /// The secret key's bytes; `None` for a key kept outside the store.
    pub secret_key: Option<Vec<u8>>,
    /// When it was first recorded.
    pub created_at: DateTime<Utc>,
    /// When another key replaced it; `None` for the active key.
    pub retired_at: Option<DateTime<Utc>>,
    /// The previous key's signature of it (hex); `None` for the first key and keys rotated in
    /// without one.
    pub endorsement: Option<String>,
}

/// A key to record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewKey {
    /// Its id.
    pub id: String,
    /// Its public half.
    pub public_key: String,
    /// Its secret half, or `None` when it is kept elsewhere (a file).
    pub secret_key: Option<Vec<u8>>,
    /// The previous key's signature of it, when that key could sign (hex).
    pub endorsement: Option<String>,
}

const KEY_COLUMNS: &str = "id, public_key, secret_key, created_at, retired_at, endorsement";

macro_rules! key_from_row {
    ($row:expr) => {{
        let row = &$row;
        ServerKey {
            id: row.try_get("id")?,
            public_key: row.try_get("public_key")?,
            secret_key: row.try_get("secret_key")?,
            created_at: row.try_get("created_at")?,
            retired_at: row.try_get("retired_at")?,
            endorsement: row.try_get("endorsement")?,
        }
    }};
}

impl EventStore {
    /// Every key, oldest first.
    pub async fn server_keys(&self) -> Result<Vec<ServerKey>> {
        let sql = format!("SELECT {KEY_COLUMNS} FROM server_keys ORDER BY created_at, id");
        on_pool!(self, pool => {
            let rows = sqlx::query(&sql).fetch_all(pool).await?;
            let mut keys = Vec::with_capacity(rows.len());
            for row in rows {
                keys.push(key_from_row!(row));
            }
            Ok(keys)
        })
    }

    /// The active key, if there is one.
    pub async fn active_server_key(&self) -> Result<Option<ServerKey>> {
        let sql = format!("SELECT {KEY_COLUMNS} FROM server_keys WHERE retired_at IS NULL");
        on_pool!(self, pool => {
            match sqlx::query(&sql).fetch_optional(pool).await? {
                Some(row) => Ok(Some(key_from_row!(row))),
                None => Ok(None),
            }
        })
    }

    /// The active key; `candidate` becomes it when there is none. Processes starting together
    /// all end up with the same key: one insert wins, the others read it back.
    pub async fn ensure_server_key(&self, candidate: NewKey) -> Result<ServerKey> {
        let sql = "INSERT INTO server_keys (id, public_key, secret_key, created_at) \
                   SELECT $1, $2, $3, $4 \
                   WHERE NOT EXISTS (SELECT 1 FROM server_keys WHERE retired_at IS NULL)";
        let now = Utc::now();
        let result = on_writer!(self, pool => {
            sqlx::query(sql)
                .bind(&candidate.id)
                .bind(&candidate.public_key)
                .bind(&candidate.secret_key)
                .bind(now)
                .execute(pool)
                .await
                .map(|_| ())
        });
        match result {
            Ok(()) => {}
            // Another process recorded its own at the same moment.
            Err(e) if is_unique_violation(&e) => {}
            Err(e) => return Err(e.into()),
        }
        self.active_server_key()
            .await?
            .ok_or_else(|| StoreError::Corrupt("no active signing key after recording one".into()))
    }

    /// Retires the active key (it stays published; its secret half is erased) and makes `new`
    /// the active key, in one transaction. A key already recorded under `new`'s id is returned as it is.
    pub async fn rotate_server_key(&self, new: NewKey) -> Result<ServerKey> {
        if let Some(k) = self
            .server_keys()
            .await?
            .into_iter()
            .find(|k| k.id == new.id)
        {
            return Ok(k);
        }
        let now = Utc::now();
        let result = on_writer!(self, pool => {
            async {
                let mut tx = pool.begin().await?;
                // The retired key signs nothing more: its secret half is erased with it.
                sqlx::query(
                    "UPDATE server_keys SET retired_at = $1, secret_key = NULL \
                     WHERE retired_at IS NULL",
                )
                    .bind(now)
                    .execute(&mut *tx)
                    .await?;
                sqlx::query(
                    "INSERT INTO server_keys (id, public_key, secret_key, created_at, endorsement) \
                     VALUES ($1, $2, $3, $4, $5)",
                )
                .bind(&new.id)
                .bind(&new.public_key)
                .bind(&new.secret_key)
                .bind(now)
                .bind(&new.endorsement)
                .execute(&mut *tx)
                .await?;
                tx.commit().await
            }
            .await
        });
        match result {
            Ok(()) => {}
            // Another process recorded the same key at the same moment.
            Err(e) if is_unique_violation(&e) => {}
            Err(e) => return Err(e.into()),
        }
        self.server_keys()
            .await?
            .into_iter()
            .find(|k| k.id == new.id)
            .ok_or(StoreError::NotFound)
    }
}
