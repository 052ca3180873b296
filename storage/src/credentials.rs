//! Credentials: hashed bearer tokens, and who holds each seat.

use chrono::{DateTime, Utc};
use sqlx::Row;

use crate::EventStore;
use crate::backend::{CREDENTIAL_COLUMNS, credential_from_row, on_pool, on_writer};
use crate::error::{Result, StoreError, inserted, touched};
use crate::ids::GameId;
use crate::records::Credential;
use crate::records::seat_column;
use saboteur_domain::Seat;

/// Inserts a credential: `$1` game, `$2` token hash, `$3` role, `$4` seat, `$5` name,
/// `$6` time, `$7` the seat's share in the seed, `$8` the player's public key, `$9` its proof
/// of possession, `$10` the commitment to the seat's share.
pub(crate) const INSERT: &str = "INSERT INTO credentials (game_id, token_hash, role, seat, \
                                 display_name, created_at, entropy, public_key, key_proof, \
                                 share_commitment) \
                                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)";

/// The statement that inserts credential `$c` ([`INSERT`] with its columns bound), on either
/// backend: executed in the transaction of a seat taken or of a game's creation.
macro_rules! insert_credential {
    ($c:expr) => {
        sqlx::query($crate::credentials::INSERT)
            .bind(&$c.game_id)
            .bind($c.stored_key())
            .bind($c.role.to_string())
            .bind($c.seat.map($crate::records::seat_column))
            .bind(&$c.display_name)
            .bind($c.created_at)
            .bind(&$c.entropy)
            .bind(&$c.public_key)
            .bind(&$c.key_proof)
            .bind(&$c.share_commitment)
    };
}
pub(crate) use insert_credential;

/// What a write to a lobby asks of it, tested in the write's own transaction, whichever
/// process wrote before: the store decides. Every lobby write raises the lobby's version
/// ([`crate::GameRecord::lobby_version`]); none is made once the game left the lobby.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LobbyAt {
    /// The lobby version a signed act names: written only while the lobby is still at it (a
    /// signature made for one moment of the lobby is never spent at another).
    pub version: Option<i64>,
    /// Written only while the lobby is open, not closed for the committed shares (a seat
    /// taken, claimed or given back).
    pub open: bool,
}

impl LobbyAt {
    /// A write only while the lobby is open.
    pub const OPEN: LobbyAt = LobbyAt {
        version: None,
        open: true,
    };

    /// The statement that raises lobby `$1`'s version when it is as asked (`$2`: the version
    /// named, or null): one row touched, or none when it is not.
    fn raise(self) -> &'static str {
        match (self.version.is_some(), self.open) {
            (false, false) => {
                "UPDATE games SET lobby_version = lobby_version + 1 \
                 WHERE id = $1 AND status = 'lobby' AND $2 IS NULL"
            }
            (false, true) => {
                "UPDATE games SET lobby_version = lobby_version + 1 \
                 WHERE id = $1 AND status = 'lobby' AND $2 IS NULL AND reveal_by IS NULL"
            }
            (true, false) => {
                "UPDATE games SET lobby_version = lobby_version + 1 \
                 WHERE id = $1 AND status = 'lobby' AND lobby_version = $2"
            }
            (true, true) => {
                "UPDATE games SET lobby_version = lobby_version + 1 \
                 WHERE id = $1 AND status = 'lobby' AND lobby_version = $2 AND reveal_by IS NULL"
            }
        }
    }
}

/// In transaction `$tx`, raises lobby `$game`'s version as `$at` asks; returns
/// [`StoreError::LobbyChanged`] from the calling function (the transaction rolled back) when the
/// lobby is not as asked.
macro_rules! raise_lobby {
    ($tx:expr, $game:expr, $at:expr) => {
        if sqlx::query($at.raise())
            .bind($game)
            .bind($at.version)
            .execute(&mut *$tx)
            .await?
            .rows_affected()
            == 0
        {
            return Err(StoreError::LobbyChanged);
        }
    };
}

/// Runs the write `$write` (a query, its values bound) on lobby `$game` in one transaction
/// with the raise of its version ([`LobbyAt`] `$at`): the rows `$write` touched, nothing
/// written (the version not raised) when it touched none.
macro_rules! in_lobby {
    ($store:expr, $game:expr, $at:expr, $write:expr) => {
        on_writer!($store, pool => {
            let mut tx = pool.begin().await?;
            raise_lobby!(tx, $game, $at);
            let n = $write.execute(&mut *tx).await?.rows_affected();
            if n > 0 {
                tx.commit().await?;
            }
            n
        })
    };
}

/// Who takes a seat, as the per-client limits name it, and the most seats it may have taken
/// since a moment (its join limit over its period), if it has a limit.
#[derive(Debug, Clone, Copy)]
pub struct SeatTaker<'a> {
    /// The client.
    pub client: &'a str,
    /// At most this many seats taken at or after this moment, this one included.
    pub at_most: Option<(u32, chrono::DateTime<chrono::Utc>)>,
}

impl EventStore {
    /// Stores a credential (the token's hash, never the token) as it is, whatever the game's
    /// state: a seat taken in a lobby is [`EventStore::add_credential_by`]. A seat already
    /// held, or a token already stored, is [`StoreError::Exists`].
    pub async fn add_credential(&self, c: &Credential) -> Result<()> {
        inserted(on_writer!(self, pool => insert_credential!(c).execute(pool).await.map(|_| ())))
    }

    /// [`EventStore::add_credential`], recording in the same transaction who took the seat
    /// ([`SeatTaker`]; [`EventStore::seats_taken_by`]) and raising the lobby's version. When the
    /// taker has a limit and already took that many seats in its period, through any process,
    /// nothing is stored: [`StoreError::OverLimit`]; nor when the game is no open lobby
    /// ([`LobbyAt::OPEN`]): [`StoreError::LobbyChanged`]. Two takes of one client never both
    /// pass the count: they are counted and recorded one after the other (a lock per client on
    /// PostgreSQL; SQLite's one writer, whose lock the first statement takes).
    pub async fn add_credential_by(
        &self,
        c: &Credential,
        taker: Option<SeatTaker<'_>>,
    ) -> Result<()> {
        let postgres = matches!(self.backend, crate::backend::Backend::Postgres(_));
        on_writer!(self, pool => {
            let mut tx = pool.begin().await?;
            if let Some(taker) = &taker {
                // With a limit, the count and the record are one step per client; without
                // one, the take is only recorded (no lock, no count).
                if postgres && taker.at_most.is_some() {
                    sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended($1, 7))")
                        .bind(taker.client)
                        .execute(&mut *tx)
                        .await?;
                }
                let (most, since) = taker
                    .at_most
                    .map_or((None, c.created_at), |(n, since)| (Some(i64::from(n)), since));
                let recorded = sqlx::query(
                    "INSERT INTO seat_takes (game_id, seat, client, taken_at) \
                     SELECT $1, $2, $3, $4 WHERE $6 IS NULL OR (SELECT COUNT(*) \
                     FROM seat_takes WHERE client = $3 AND taken_at >= $5) < $6",
                )
                .bind(&c.game_id)
                .bind(c.seat.map(seat_column))
                .bind(taker.client)
                .bind(c.created_at)
                .bind(since)
                .bind(most)
                .execute(&mut *tx)
                .await?
                .rows_affected();
                if recorded == 0 {
                    // The transaction, dropped, rolls back.
                    return Err(StoreError::OverLimit);
                }
            }
            raise_lobby!(tx, &c.game_id, LobbyAt::OPEN);
            inserted(insert_credential!(c).execute(&mut *tx).await)?;
            tx.commit().await?;
        });
        Ok(())
    }

    /// When `client` took each seat (or seated a bot) at `since` or later, through any process,
    /// oldest first.
    pub async fn seats_taken_by(
        &self,
        client: &str,
        since: chrono::DateTime<chrono::Utc>,
    ) -> Result<Vec<chrono::DateTime<chrono::Utc>>> {
        let sql = "SELECT taken_at FROM seat_takes WHERE client = $1 AND taken_at >= $2 \
                   ORDER BY taken_at";
        Ok(on_pool!(self, pool => {
            sqlx::query_scalar(sql).bind(client).bind(since).fetch_all(pool).await?
        }))
    }

    /// Forgets the seats taken before `before` (never read once older than the join limit's
    /// period): how many.
    pub async fn forget_seat_takes(&self, before: chrono::DateTime<chrono::Utc>) -> Result<u64> {
        let sql = "DELETE FROM seat_takes WHERE taken_at < $1";
        Ok(on_writer!(self, pool => {
            sqlx::query(sql).bind(before).execute(pool).await?.rows_affected()
        }))
    }

    /// Every credential of a game, in the order they were issued.
    pub async fn credentials(&self, game_id: &GameId) -> Result<Vec<Credential>> {
        let sql = format!(
            "SELECT {CREDENTIAL_COLUMNS} FROM credentials WHERE game_id = $1 \
             ORDER BY created_at, token_hash"
        );
        on_pool!(self, pool => {
            sqlx::query(&sql)
                .bind(game_id)
                .fetch_all(pool)
                .await?
                .iter()
                .map(|row| credential_from_row!(row))
                .collect()
        })
    }

    /// Records the public key of a seat's player before the start, with its proof of
    /// possession (both are in the log from the start on), while the lobby is as `at` asks.
    pub async fn set_public_key(
        &self,
        game_id: &GameId,
        seat: Seat,
        (public_key, key_proof): (&str, Option<&str>),
        at: LobbyAt,
    ) -> Result<()> {
        touched(in_lobby!(
            self,
            game_id,
            at,
            sqlx::query(
                "UPDATE credentials SET public_key = $1, key_proof = $4 WHERE game_id = $2 \
             AND seat = $3 AND role = 'player'",
            )
            .bind(public_key)
            .bind(game_id)
            .bind(seat_column(seat))
            .bind(key_proof)
        ))
    }

    /// Names a player's seat anew before the start (a guest invited as "Guest" saying who
    /// they are), while the lobby is as `at` asks. [`StoreError::NotFound`] when no player
    /// holds the seat.
    pub async fn rename_seat(
        &self,
        game_id: &GameId,
        seat: Seat,
        name: &str,
        at: LobbyAt,
    ) -> Result<()> {
        touched(in_lobby!(
            self,
            game_id,
            at,
            sqlx::query(
                "UPDATE credentials SET display_name = $1 WHERE game_id = $2 AND seat = $3 \
             AND role = 'player'",
            )
            .bind(name)
            .bind(game_id)
            .bind(seat_column(seat))
        ))
    }

    /// Moves the player of seat `from` whose token hashes to `token_hash` to the free seat `to`
    /// before the start, with everything the seat was taken with (token, key, share), while the
    /// lobby is as `at` asks (open, at least). [`StoreError::NotFound`] when that player does
    /// not hold `from` (any more) or `to` is held (by a player, a bot or a rematch's
    /// reservation).
    pub async fn move_seat(
        &self,
        game_id: &GameId,
        (from, to): (Seat, Seat),
        token_hash: &str,
        at: LobbyAt,
    ) -> Result<()> {
        let at = LobbyAt { open: true, ..at };
        touched(in_lobby!(
            self,
            game_id,
            at,
            sqlx::query(
                "UPDATE credentials SET seat = $3 WHERE game_id = $1 AND seat = $2 \
                 AND role = 'player' AND token_hash = $4 AND NOT EXISTS \
                 (SELECT 1 FROM credentials WHERE game_id = $1 AND seat = $3)",
            )
            .bind(game_id)
            .bind(seat_column(from))
            .bind(seat_column(to))
            .bind(token_hash)
        ))
    }

    /// Gives a seat back (a player leaving before the start, or a bot unseated): its
    /// credential is removed, while the lobby is as `at` asks (open, at least).
    pub async fn remove_seat(&self, game_id: &GameId, seat: Seat, at: LobbyAt) -> Result<()> {
        let at = LobbyAt { open: true, ..at };
        touched(in_lobby!(
            self,
            game_id,
            at,
            sqlx::query("DELETE FROM credentials WHERE game_id = $1 AND seat = $2")
                .bind(game_id)
                .bind(seat_column(seat))
        ))
    }
}

impl EventStore {
    /// A rematch's reserved seat claimed by its player: the credential of `seat` that
    /// `claimed_by` (the previous game's token hash) may claim becomes a player's with
    /// `token_hash`, and the player's share in the seed, public key and its proof of possession
    /// sent with the claim, while the lobby is open.
    /// [`StoreError::NotFound`] when no such reservation is left (claimed already, perhaps
    /// through another process); [`StoreError::LobbyChanged`] once the lobby is closed.
    pub async fn claim_seat(
        &self,
        game_id: &GameId,
        seat: Seat,
        claimed_by: &str,
        token_hash: &str,
        sent: (Option<&str>, Option<&str>, Option<&str>, Option<&str>),
    ) -> Result<()> {
        let (entropy, public_key, key_proof, share_commitment) = sent;
        let reserved = Credential {
            game_id: game_id.clone(),
            token_hash: None,
            role: crate::records::Role::Reserved,
            seat: Some(seat),
            display_name: None,
            created_at: chrono::Utc::now(),
            claimed_by: Some(claimed_by.to_string()),
            entropy: None,
            public_key: None,
            key_proof: None,
            share_commitment: None,
        }
        .stored_key();
        let sql = "UPDATE credentials SET token_hash = $1, role = 'player', entropy = $2, \
                   public_key = $3, key_proof = $7, share_commitment = $8 \
                   WHERE game_id = $4 AND seat = $5 AND token_hash = $6 AND role = 'reserved'";
        touched(in_lobby!(
            self,
            game_id,
            LobbyAt::OPEN,
            sqlx::query(sql)
                .bind(token_hash)
                .bind(entropy)
                .bind(public_key)
                .bind(game_id)
                .bind(seat_column(seat))
                .bind(reserved)
                .bind(key_proof)
                .bind(share_commitment)
        ))
    }
}

impl EventStore {
    /// Closes lobby `game_id` to seats taken and given back, its shares due by `reveal_by`
    /// (milliseconds since the Unix epoch): `false` when it was no open lobby (closed
    /// already, perhaps through another process, started or cancelled).
    pub async fn close_lobby(&self, game_id: &GameId, reveal_by: i64) -> Result<bool> {
        let sql = "UPDATE games SET reveal_by = $2, lobby_version = lobby_version + 1 \
                   WHERE id = $1 AND status = 'lobby' AND reveal_by IS NULL";
        let n = on_writer!(self, pool => {
            sqlx::query(sql)
                .bind(game_id)
                .bind(reveal_by)
                .execute(pool)
                .await?
                .rows_affected()
        });
        Ok(n == 1)
    }

    /// Stores the share `entropy` seat `seat` revealed in closed lobby `game_id` (the caller
    /// checked that it opens the seat's commitment): [`StoreError::NotFound`] unless the seat
    /// committed and had not revealed; [`StoreError::LobbyChanged`] once the game left the lobby.
    pub async fn reveal_share(&self, game_id: &GameId, seat: Seat, entropy: &str) -> Result<()> {
        let sql = "UPDATE credentials SET entropy = $3 \
                   WHERE game_id = $1 AND seat = $2 AND role = 'player' \
                   AND share_commitment IS NOT NULL AND entropy IS NULL";
        touched(in_lobby!(
            self,
            game_id,
            LobbyAt::default(),
            sqlx::query(sql)
                .bind(game_id)
                .bind(seat_column(seat))
                .bind(entropy)
        ))
    }
}

impl EventStore {
    /// The seats the player's `public_key` (64 lowercase hex digits) holds in games not over
    /// (lobbies and games under way), then in games that ended or were cancelled at `since` or
    /// later, each group oldest game first, at most `limit`: what a player's stream follows (a
    /// lobby cancelled before the stream found it is still announced). A key registered for two
    /// seats of one game lists both.
    pub async fn seats_of_key(
        &self,
        public_key: &str,
        since: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<(GameId, Seat)>> {
        let sql = "SELECT c.game_id, c.seat FROM credentials c JOIN games g ON g.id = c.game_id \
                   WHERE c.public_key = $1 AND c.role = 'player' \
                   AND (g.status IN ('lobby', 'active') OR g.updated_at >= $3) \
                   ORDER BY CASE WHEN g.status IN ('lobby', 'active') THEN 0 ELSE 1 END, \
                   g.ord, c.seat LIMIT $2";
        let rows: Vec<(String, Option<i32>)> = on_pool!(self, pool => {
            sqlx::query_as(sql)
                .bind(public_key)
                .bind(i64::from(limit))
                .bind(since)
                .fetch_all(pool)
                .await?
        });
        rows.into_iter()
            .filter_map(|(game, seat)| seat.map(|s| (game, s)))
            .map(|(game, seat)| Ok((GameId::stored(game), crate::records::read_seat(seat)?)))
            .collect()
    }
}
