//! Replies kept for retries: the first reply to a creation or a rematch sent with an
//! `Idempotency-Key` (written with the game it made, see [`EventStore::create_game_kept`]), to
//! a lobby's act ([`EventStore::keep_reply`]), and
//! the end of a command's first reply (the bots' answers its request appended, named after its
//! key).

use chrono::{DateTime, Utc};

use crate::EventStore;
use crate::backend::{on_pool, on_writer};
use crate::error::Result;
use crate::ids::{GameId, Version};

/// How long a kept reply is answered again, and kept at all: it holds a host token.
pub const KEPT_FOR: chrono::Duration = chrono::Duration::hours(24);

/// The first reply to an act that made a game, kept for a retry with the same key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptReply {
    /// Who may get it back (`create <client>`, `rematch <game>`, a lobby act's scope).
    pub scope: String,
    /// The `Idempotency-Key`.
    pub key: String,
    /// A digest of the request, so that the key sent with another request is told apart.
    pub request: String,
    /// The reply's body, exactly as first sent.
    pub reply: String,
}

/// The separator between a command's key and the number of a bot's answer its request
/// appended: a control character, which no `Idempotency-Key` (visible characters) holds.
pub const ANSWER_SEPARATOR: char = '\u{1f}';

/// The command id of the `n`th bot's answer appended by the request of command `key`.
pub fn answer_id(key: &str, n: u32) -> String {
    format!("{key}{ANSWER_SEPARATOR}{n}")
}

impl EventStore {
    /// The reply kept for `scope` and `key`, if one was kept since `since`.
    pub async fn kept_reply(
        &self,
        scope: &str,
        key: &str,
        since: DateTime<Utc>,
    ) -> Result<Option<KeptReply>> {
        let sql = "SELECT request, reply FROM kept_replies \
                   WHERE scope = $1 AND idem_key = $2 AND created_at >= $3";
        let found: Option<(String, String)> = on_pool!(self, pool => {
            sqlx::query_as(sql).bind(scope).bind(key).bind(since).fetch_optional(pool).await?
        });
        Ok(found.map(|(request, reply)| KeptReply {
            scope: scope.to_string(),
            key: key.to_string(),
            request,
            reply,
        }))
    }

    /// Keeps the first reply to a lobby's act sent with an `Idempotency-Key` (a seat taken, a
    /// bot seated, a seat given back, a seat's key changed), for a retry through any process:
    /// `false` when the scope already keeps a reply under that key (another request with the
    /// same key was first; its reply stays).
    pub async fn keep_reply(&self, kept: &KeptReply, game_id: &GameId) -> Result<bool> {
        let sql = "INSERT INTO kept_replies (scope, idem_key, request, game_id, reply, created_at) \
                   VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (scope, idem_key) DO NOTHING";
        let now = Utc::now();
        let n = on_writer!(self, pool => {
            sqlx::query(sql)
                .bind(&kept.scope)
                .bind(&kept.key)
                .bind(&kept.request)
                .bind(game_id)
                .bind(&kept.reply)
                .bind(now)
                .execute(pool)
                .await?
                .rows_affected()
        });
        Ok(n == 1)
    }

    /// Deletes the kept replies made before `before` (they hold host tokens, and are never
    /// answered after [`KEPT_FOR`]): how many.
    pub async fn forget_kept_replies(&self, before: DateTime<Utc>) -> Result<u64> {
        let sql = "DELETE FROM kept_replies WHERE created_at < $1";
        Ok(on_writer!(self, pool => {
            sqlx::query(sql).bind(before).execute(pool).await?.rows_affected()
        }))
    }

    /// The last version of a command's first reply: the last of its batch (opened with
    /// `command_id`) and of the bots' answers its own request appended (named by
    /// [`answer_id`]); `None` when no batch has that id.
    pub async fn reply_end(&self, game_id: &GameId, command_id: &str) -> Result<Option<Version>> {
        let sql = "SELECT MAX(batch_last_seq) FROM events WHERE game_id = $1 \
                   AND (command_id = $2 OR (command_id > $3 AND command_id < $4))";
        let low = format!("{command_id}{ANSWER_SEPARATOR}");
        let high = format!("{command_id}{}", char::from(ANSWER_SEPARATOR as u8 + 1));
        let end: Option<Version> = on_pool!(self, pool => {
            sqlx::query_scalar(sql)
                .bind(game_id)
                .bind(command_id)
                .bind(&low)
                .bind(&high)
                .fetch_one(pool)
                .await?
        });
        Ok(end)
    }
}
