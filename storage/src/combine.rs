//! Group commit on PostgreSQL: appends to different games that arrive while others are being
//! written share one statement and one commit. Each keeps its own version guard: a game's
//! events go in only if its row still holds the version and hash its writer saw, so one stale
//! writer in a group refuses only its own append.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::ids::GameId;
use sqlx::Connection;
use sqlx::pool::PoolConnection;
use sqlx::postgres::{PgConnection, PgPool, Postgres};
use sqlx::types::Json;
use tokio::sync::{Mutex, mpsc, oneshot};

/// The most appends one statement carries.
const MOST: usize = 64;

/// Statements in flight at once: while some are written, the next group gathers.
const WORKERS: usize = 4;

/// How long a writer's connection may sit idle before it is tested again.
const IDLE_TEST: Duration = Duration::from_secs(1);

/// One append waiting for its group.
pub(crate) struct Pending {
    /// The game's guard and new head: `{game_id, expected, prev_hash, version, last_hash,
    /// status, bot_awaited, deadline, token_seat, token_hash}`.
    pub head: Value,
    /// The game.
    pub game_id: String,
    /// Its events, as rows with their `game_id`.
    pub rows: Vec<Value>,
    /// `Ok(Some(at))`: appended at `at`; `Ok(None)`: the guard refused it.
    pub reply: oneshot::Sender<Result<Option<DateTime<Utc>>, sqlx::Error>>,
}

/// The queue appends wait in.
#[derive(Clone)]
pub(crate) struct Combiner {
    queue: mpsc::UnboundedSender<Pending>,
}

impl Combiner {
    /// Starts the writers on `pool`.
    pub fn start(pool: PgPool) -> Combiner {
        let (queue, inbox) = mpsc::unbounded_channel();
        let inbox = Arc::new(Mutex::new(inbox));
        for _ in 0..WORKERS {
            tokio::spawn(write_groups(pool.clone(), inbox.clone()));
        }
        Combiner { queue }
    }

    /// Appends with the next group: whether the guard let it in.
    pub async fn append(
        &self,
        game_id: &GameId,
        head: Value,
        rows: Vec<Value>,
    ) -> Result<Option<DateTime<Utc>>, sqlx::Error> {
        let (reply, answer) = oneshot::channel();
        let pending = Pending {
            head,
            game_id: game_id.to_string(),
            rows,
            reply,
        };
        if self.queue.send(pending).is_err() {
            return Err(sqlx::Error::PoolClosed);
        }
        answer.await.unwrap_or(Err(sqlx::Error::PoolClosed))
    }
}

/// One writer: takes what has queued up (one append per game: a second one for a game waits
/// for the next group, behind the first), writes it, answers each writer. It keeps its
/// connection from one group to the next (a connection given back to the pool is tested with a
/// round trip to the server) and tests it only after it sat idle for [`IDLE_TEST`] (the
/// database may have restarted meanwhile); after any error it gives it back and takes another.
async fn write_groups(pool: PgPool, inbox: Arc<Mutex<mpsc::UnboundedReceiver<Pending>>>) {
    let mut carried: Option<Pending> = None;
    let mut held: Option<(PoolConnection<Postgres>, Instant)> = None;
    loop {
        let mut group: Vec<Pending> = carried.take().into_iter().collect();
        // A writer holding a carried append must not wait for the inbox: another writer may be
        // holding it while it waits for new appends.
        let guard = if group.is_empty() {
            Some(inbox.lock().await)
        } else {
            inbox.try_lock().ok()
        };
        if let Some(mut inbox) = guard {
            if group.is_empty() {
                match inbox.recv().await {
                    Some(p) => group.push(p),
                    None => return,
                }
            }
            let mut games: HashSet<String> = group.iter().map(|p| p.game_id.clone()).collect();
            while group.len() < MOST {
                let Ok(p) = inbox.try_recv() else { break };
                if !games.insert(p.game_id.clone()) {
                    carried = Some(p);
                    break;
                }
                group.push(p);
            }
        }
        // Every group takes its games' rows in the same order: no two groups wait on each other.
        group.sort_by(|a, b| a.game_id.cmp(&b.game_id));
        let now = Utc::now();
        match write_held(&pool, &mut held, &group, now).await {
            Ok(done) => {
                for p in group {
                    let _ = p.reply.send(Ok(done.contains(&p.game_id).then_some(now)));
                }
            }
            // The connection broke: whether the group was recorded is unknown, for every
            // member; each writer reads back what happened.
            Err(e) if crate::error::is_unreachable(&e) => {
                let message = e.to_string();
                for p in group {
                    let _ = p
                        .reply
                        .send(Err(sqlx::Error::Io(std::io::Error::other(message.clone()))));
                }
            }
            // One append's failure (a used command id) must not fail the others: each alone.
            Err(_) if group.len() > 1 => {
                for p in group {
                    let alone = write_new(&pool, std::slice::from_ref(&p), now).await;
                    let _ = p
                        .reply
                        .send(alone.map(|done| (!done.is_empty()).then_some(now)));
                }
            }
            Err(e) => {
                if let Some(p) = group.pop() {
                    let _ = p.reply.send(Err(e));
                }
            }
        }
    }
}

/// Writes `group` on the writer's `held` connection (tested first when it sat idle for
/// [`IDLE_TEST`]) or a new one from the pool, kept for the next group when the write succeeds.
/// A held connection the server ended while it sat idle (a restart, a session cut) answers
/// with that ending: the group is then looked up and written again on a new connection
/// ([`again`]), so an idle connection's death never makes a write's outcome unknown.
async fn write_held(
    pool: &PgPool,
    held: &mut Option<(PoolConnection<Postgres>, Instant)>,
    group: &[Pending],
    now: DateTime<Utc>,
) -> Result<HashSet<String>, sqlx::Error> {
    let kept = match held.take() {
        Some((conn, used)) if used.elapsed() < IDLE_TEST => Some(conn),
        Some((mut conn, _)) => conn.ping().await.is_ok().then_some(conn),
        None => None,
    };
    let reused = kept.is_some();
    let mut conn = match kept {
        Some(conn) => conn,
        None => pool.acquire().await?,
    };
    match write(&mut conn, group, now).await {
        Ok(done) => {
            *held = Some((conn, Instant::now()));
            Ok(done)
        }
        Err(e) if reused && crate::error::is_unreachable(&e) => {
            drop(conn);
            again(pool, group, now).await.map_err(|_| e)
        }
        Err(e) => Err(e),
    }
}

/// A group whose connection broke, written again on a new connection: the games whose row
/// already holds the group's head were recorded (the write reached the server after all); the
/// others are written again under the same guards (a game the first write recorded fails its
/// guard, so nothing is written twice). The games recorded either way.
async fn again(
    pool: &PgPool,
    group: &[Pending],
    now: DateTime<Utc>,
) -> Result<HashSet<String>, sqlx::Error> {
    let ids: Vec<&str> = group.iter().map(|p| p.game_id.as_str()).collect();
    let sql = "SELECT id, version, last_hash FROM games WHERE id = ANY($1)";
    // The pool's idle connections may have been ended with it: each that fails is closed.
    let mut tries = 0;
    let (mut conn, rows) = loop {
        let mut conn = pool.acquire().await?;
        let read: Result<Vec<(String, i64, String)>, _> =
            sqlx::query_as(sql).bind(&ids).fetch_all(&mut *conn).await;
        match read {
            Ok(rows) => break (conn, rows),
            Err(e) if tries < 3 && crate::error::is_unreachable(&e) => tries += 1,
            Err(e) => return Err(e),
        }
    };
    let mut recorded: HashSet<String> = group
        .iter()
        .filter(|p| {
            rows.iter().any(|(id, version, hash)| {
                *id == p.game_id
                    && p.head.get("version").and_then(Value::as_i64) == Some(*version)
                    && p.head.get("last_hash").and_then(Value::as_str) == Some(hash.as_str())
            })
        })
        .map(|p| p.game_id.clone())
        .collect();
    recorded.extend(write(&mut conn, group, now).await?);
    Ok(recorded)
}

/// [`write`] on a connection of its own from the pool.
async fn write_new(
    pool: &PgPool,
    group: &[Pending],
    now: DateTime<Utc>,
) -> Result<HashSet<String>, sqlx::Error> {
    write(&mut *pool.acquire().await?, group, now).await
}

/// One statement for a group: the guarded head updates, then the events of the games whose
/// guard held. Returns those games.
async fn write(
    conn: &mut PgConnection,
    group: &[Pending],
    now: DateTime<Utc>,
) -> Result<HashSet<String>, sqlx::Error> {
    if let [one] = group {
        return write_one(conn, one, now).await;
    }
    let heads: Vec<&Value> = group.iter().map(|p| &p.head).collect();
    let rows: Vec<&Value> = group.iter().flat_map(|p| &p.rows).collect();
    let sql = "WITH v AS (
            SELECT * FROM jsonb_to_recordset($1::jsonb) AS v(game_id text, expected bigint,
                prev_hash text, version bigint, last_hash text, status text,
                bot_awaited boolean, deadline bigint, token_seat int, token_hash text)),
        g AS (
            UPDATE games SET version = v.version, last_hash = v.last_hash, updated_at = $2,
                status = COALESCE(v.status, games.status), bot_awaited = v.bot_awaited,
                deadline = v.deadline
            FROM v
            WHERE games.id = v.game_id AND games.version = v.expected
                AND games.last_hash = v.prev_hash
            RETURNING games.id),
        c AS (
            UPDATE credentials SET token_hash = v.token_hash
            FROM v JOIN g ON g.id = v.game_id
            WHERE credentials.game_id = v.game_id AND credentials.seat = v.token_seat
                AND v.token_hash IS NOT NULL
            RETURNING 1),
        e AS (
            INSERT INTO events (game_id, seq, event_type, schema_version, payload, seat,
                command_id, batch_last_seq, recorded_at, prev_hash, hash)
            SELECT g.id, x.seq, x.event_type, x.schema_version, x.payload, x.seat,
                x.command_id, x.batch_last_seq, $2, decode(x.prev_hash, 'hex'),
                decode(x.hash, 'hex')
            FROM jsonb_to_recordset($3::jsonb) AS x(game_id text, seq bigint, event_type text,
                schema_version int, payload jsonb, seat int, command_id text,
                batch_last_seq bigint, prev_hash text, hash text)
            JOIN g ON g.id = x.game_id)
        SELECT id FROM g";
    let done: Vec<(String,)> = sqlx::query_as(sql)
        .bind(Json(&heads))
        .bind(now)
        .bind(Json(&rows))
        .fetch_all(conn)
        .await?;
    Ok(done.into_iter().map(|(id,)| id).collect())
}

/// The statement for a group of one: no join, the guard's values bound directly.
async fn write_one(
    conn: &mut PgConnection,
    p: &Pending,
    now: DateTime<Utc>,
) -> Result<HashSet<String>, sqlx::Error> {
    let sql = "WITH g AS (
            UPDATE games SET version = $1, last_hash = $2, updated_at = $3,
                status = COALESCE($4, status), bot_awaited = $9, deadline = $10
            WHERE id = $5 AND version = $6 AND last_hash = $7 RETURNING id),
        c AS (
            UPDATE credentials SET token_hash = $11::text FROM g
            WHERE credentials.game_id = g.id AND credentials.seat = $12::int
                AND $11::text IS NOT NULL
            RETURNING 1)
        INSERT INTO events (game_id, seq, event_type, schema_version, payload, seat,
            command_id, batch_last_seq, recorded_at, prev_hash, hash)
        SELECT g.id, x.seq, x.event_type, x.schema_version, x.payload, x.seat,
            x.command_id, x.batch_last_seq, $3, decode(x.prev_hash, 'hex'),
            decode(x.hash, 'hex')
        FROM g CROSS JOIN jsonb_to_recordset($8::jsonb) AS x(
            seq bigint, event_type text, schema_version int, payload jsonb,
            seat int, command_id text, batch_last_seq bigint, prev_hash text,
            hash text)";
    let h = &p.head;
    let inserted = sqlx::query(sql)
        .bind(h["version"].as_i64())
        .bind(h["last_hash"].as_str())
        .bind(now)
        .bind(h["status"].as_str())
        .bind(&p.game_id)
        .bind(h["expected"].as_i64())
        .bind(h["prev_hash"].as_str())
        .bind(Json(&p.rows))
        .bind(h["bot_awaited"].as_bool().unwrap_or(false))
        .bind(h["deadline"].as_i64())
        .bind(h["token_hash"].as_str())
        .bind(h["token_seat"].as_i64().and_then(|s| i32::try_from(s).ok()))
        .execute(conn)
        .await?
        .rows_affected();
    Ok(if inserted > 0 {
        HashSet::from([p.game_id.clone()])
    } else {
        HashSet::new()
    })
}
