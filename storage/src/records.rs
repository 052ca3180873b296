//! The store's records: games, events, appends, credentials, and what subscribers hear.

use chrono::{DateTime, Utc};
use saboteur_domain::{BotLevel, Options, Ruleset, Seat};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Result, StoreError};
use crate::ids::{GameId, Version};

/// A game to create.
#[derive(Debug, Clone)]
pub struct NewGame {
    /// The game's id.
    pub id: GameId,
    /// The ruleset.
    pub ruleset: Ruleset,
    /// The rule variants.
    pub options: Options,
    /// How many seats.
    pub players: u8,
    /// Hex SHA-256 of the seed, published at creation.
    pub seed_commitment: String,
    /// The seed, revealed only when the game is `finished`.
    pub seed: Vec<u8>,
    /// The game this one is a rematch of.
    pub previous: Option<GameId>,
    /// The client that made it, as the per-client limits name it: recorded in the creation's
    /// transaction, so its lobbies are counted by every process
    /// ([`crate::EventStore::client_lobbies`]).
    pub creator: Option<String>,
}

/// Where a game is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum GameStatus {
    /// Created: seats are being taken.
    Lobby,
    /// Started.
    Active,
    /// Over: its seed is revealed.
    Finished,
    /// Cancelled by its host before the start: no longer a lobby, never played.
    Cancelled,
}

impl GameStatus {
    /// The status as stored and as it appears on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            GameStatus::Lobby => "lobby",
            GameStatus::Active => "active",
            GameStatus::Finished => "finished",
            GameStatus::Cancelled => "cancelled",
        }
    }
}

impl std::fmt::Display for GameStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for GameStatus {
    type Err = StoreError;
    fn from_str(s: &str) -> Result<GameStatus> {
        match s {
            "lobby" => Ok(GameStatus::Lobby),
            "active" => Ok(GameStatus::Active),
            "finished" => Ok(GameStatus::Finished),
            "cancelled" => Ok(GameStatus::Cancelled),
            other => Err(StoreError::Corrupt(format!(
                "unknown game status {other:?}"
            ))),
        }
    }
}

/// What a credential lets its token do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// The host: starts the game, seats bots, rolls back.
    Host,
    /// A player: acts for its seat.
    Player,
    /// A bot of that level holds the seat (no token acts as a bot).
    Bot(BotLevel),
    /// A rematch's seat kept for the player who held it in the previous game: their old
    /// token claims it ([`Credential::claimed_by`]).
    Reserved,
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Role::Host => f.write_str("host"),
            Role::Player => f.write_str("player"),
            Role::Bot(level) => write!(f, "bot:{level}"),
            Role::Reserved => f.write_str("reserved"),
        }
    }
}

impl std::str::FromStr for Role {
    type Err = StoreError;
    fn from_str(s: &str) -> Result<Role> {
        match s {
            "host" => Ok(Role::Host),
            "player" => Ok(Role::Player),
            "reserved" => Ok(Role::Reserved),
            other => other
                .strip_prefix("bot:")
                .and_then(|l| l.parse().ok())
                .map(Role::Bot)
                .ok_or_else(|| StoreError::Corrupt(format!("unknown credential role {other:?}"))),
        }
    }
}

/// A game's row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// The game's id.
    pub id: GameId,
    /// The ruleset.
    pub ruleset: Ruleset,
    /// The rule variants.
    pub options: Options,
    /// Where the game is in its life.
    pub status: GameStatus,
    /// How many seats.
    pub players: u8,
    /// How many events the log holds.
    pub version: Version,
    /// The hash of the last event (or [`crate::GENESIS`]).
    pub last_hash: String,
    /// Hex SHA-256 of the seed.
    pub seed_commitment: String,
    /// The seed: only once the game is `finished`.
    pub seed: Option<Vec<u8>>,
    /// The game this one is a rematch of.
    #[serde(default)]
    pub previous: Option<GameId>,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// When it last changed.
    pub updated_at: DateTime<Utc>,
    /// When a closed lobby's shares are due (milliseconds since the Unix epoch): set when the
    /// host closes a lobby whose seats committed to their shares, `None` while it is open.
    pub reveal_by: Option<i64>,
    /// The lobby's version: raised by every write to the lobby (a seat taken, claimed, given
    /// back or renamed, a key kept, the lobby closed, a share revealed), the moment a signed
    /// lobby act names ([`crate::LobbyAt`]).
    #[serde(default)]
    pub lobby_version: i64,
}

/// An event to append.
#[derive(Debug, Clone, PartialEq)]
pub struct NewEvent {
    /// The event's type tag.
    pub event_type: String,
    /// The schema version of its payload.
    pub schema_version: i32,
    /// The event as JSON.
    pub payload: Value,
    /// The acting seat, if a player's.
    pub seat: Option<Seat>,
    /// The form the hash chain covers in place of `payload`, when it differs: the event
    /// sealed, every hidden value a commitment (games of record version 6 on,
    /// `saboteur_verifier::seal`). Not stored: the chain's hashes are.
    pub sealed: Option<Value>,
}

/// An event as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredEvent {
    /// The game.
    pub game_id: GameId,
    /// Its place in the log, from 1.
    pub seq: Version,
    /// The event's type tag.
    pub event_type: String,
    /// The schema version of its payload.
    pub schema_version: i32,
    /// The event as JSON.
    pub payload: Value,
    /// The acting seat, if a player's.
    pub seat: Option<Seat>,
    /// The command id of the batch it opened (recorded on a batch's first event only).
    pub command_id: Option<String>,
    /// When it was appended.
    pub recorded_at: DateTime<Utc>,
    /// The previous event's hash.
    pub prev_hash: String,
    /// This event's hash.
    pub hash: String,
}

/// A batch to append to one game.
#[derive(Debug, Clone)]
pub struct Append {
    /// The game.
    pub game_id: GameId,
    /// The version the writer saw: the batch goes right after it, or not at all.
    pub expected_version: Version,
    /// The hash of the event at `expected_version`, if the writer knows it (saves a read).
    pub prev_hash: Option<String>,
    /// The events, in order (at least one).
    pub events: Vec<NewEvent>,
    /// Makes the append idempotent: a batch with a command id already used appends nothing
    /// and returns the original outcome.
    pub command_id: Option<String>,
    /// A new status for the game, set in the same transaction.
    pub status: Option<GameStatus>,
    /// Whether a bot is due to act after this batch (its vote or its turn): kept on the
    /// game's row so a sweep finds games left waiting for a bot.
    pub bot_awaited: bool,
    /// The deadline of the awaited decision after this batch, in milliseconds since the Unix
    /// epoch (clocked games): kept on the game's row so a sweep finds games past it.
    pub deadline: Option<i64>,
    /// A seat's new token, swapped in the same transaction as the batch (which records that
    /// it was issued).
    pub token: Option<TokenSwap>,
}

/// A seat's credential given a new token hash, in [`Append::token`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenSwap {
    /// The seat.
    pub seat: Seat,
    /// The new token's hash.
    pub token_hash: String,
}

/// What an append did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AppendOutcome {
    /// The batch is in the log.
    Appended {
        /// The first new sequence number.
        first_seq: Version,
        /// The last new sequence number: the game's new version.
        last_seq: Version,
        /// The hash of the last event.
        last_hash: String,
        /// The hash of each new event, in order (the chain's head at each new version).
        hashes: Vec<String>,
        /// When the store recorded it: the game row's new `updated_at` and each new event's
        /// `recorded_at`.
        at: DateTime<Utc>,
    },
    /// The command id was used before: nothing was appended; this is the original batch.
    Duplicate {
        /// Its first sequence number.
        first_seq: Version,
        /// Its last sequence number.
        last_seq: Version,
    },
}

/// An append, announced to subscribers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Appended {
    /// The game.
    pub game_id: GameId,
    /// Its new version.
    pub last_seq: Version,
}

/// What subscribers of [`crate::EventStore::subscribe`] hear.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// A game moved on (through any process, on PostgreSQL).
    Appended(Appended),
    /// Announcements may have been lost (the listener's connection was lost and is back):
    /// every subscriber reads again, from the log by sequence number, what it follows.
    Resync,
}

/// A game as listed: its row and its credentials' public parts.
#[derive(Debug, Clone)]
pub struct ListedGame {
    /// The game's row.
    pub record: GameRecord,
    /// Its credentials (seats, names, roles; the token hashes too, which callers must not show).
    pub credentials: Vec<Credential>,
    /// The seats sharing the win, as its `game_ended` event records them: `None` unless the
    /// game is finished.
    pub winners: Option<Vec<u8>>,
}

/// A page of games.
#[derive(Debug, Clone)]
pub struct GamePage {
    /// The games, oldest first.
    pub games: Vec<ListedGame>,
    /// The cursor of the next page, if there may be one.
    pub next_cursor: Option<String>,
}

/// A stored credential: who holds a seat (or hosts the game), and the hashed bearer token
/// that acts with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Credential {
    /// The game.
    pub game_id: GameId,
    /// Hex SHA-256 of the token that acts with it: a host's or a player's. `None` for a bot
    /// (no token acts as a bot) and for a rematch's reserved seat (its player has no token of
    /// this game yet).
    pub token_hash: Option<String>,
    /// What the token may do.
    pub role: Role,
    /// The seat, for players and bots.
    pub seat: Option<Seat>,
    /// The name shown to others.
    pub display_name: Option<String>,
    /// When it was issued.
    pub created_at: DateTime<Utc>,
    /// For a rematch's reserved seat ([`Role::Reserved`]): hex SHA-256 of the previous game's
    /// token that claims it.
    pub claimed_by: Option<String>,
    /// A player's share in the seed of the deals (64 hex digits), if they sent one with the
    /// seat.
    pub entropy: Option<String>,
    /// A player's Ed25519 public key (64 hex digits), if they sent one with the seat: recorded
    /// in the log when the game starts.
    pub public_key: Option<String>,
    /// The key's proof of possession (128 hex digits), sent with it: recorded with the key.
    pub key_proof: Option<String>,
    /// The commitment to the share a player sent with the seat instead of the share
    /// ([`saboteur_domain::Seed::share_commitment`], 64 hex digits); the share (`entropy`)
    /// follows once the host closes the lobby.
    pub share_commitment: Option<String>,
}

impl Credential {
    /// The level of the bot holding this credential, if a bot holds it.
    pub fn bot_level(&self) -> Option<BotLevel> {
        match self.role {
            Role::Bot(level) => Some(level),
            Role::Host | Role::Player | Role::Reserved => None,
        }
    }

    /// The credential's key in its game, as stored: the token's hash, or for a credential
    /// without a token, a key no token's hash (64 hex digits) can equal — `bot:` and the seat
    /// for a bot, `claim:` and the claiming hash for a reserved seat. Only the store reads it.
    pub(crate) fn stored_key(&self) -> String {
        match (&self.token_hash, &self.claimed_by) {
            (Some(hash), _) => hash.clone(),
            (None, Some(claim)) => format!("claim:{claim}"),
            (None, None) => format!("bot:{}", self.seat.map_or(-1, seat_column)),
        }
    }

    /// A credential read back from its stored key and role (and the share and key sent with
    /// the seat).
    pub(crate) fn from_stored(
        game_id: GameId,
        key: String,
        role: Role,
        seat: Option<i32>,
        display_name: Option<String>,
        created_at: DateTime<Utc>,
        (entropy, public_key, key_proof, share_commitment): (
            Option<String>,
            Option<String>,
            Option<String>,
            Option<String>,
        ),
    ) -> Result<Credential> {
        let (token_hash, claimed_by) = match role {
            Role::Host | Role::Player => (Some(key), None),
            Role::Bot(_) => (None, None),
            Role::Reserved => match key.strip_prefix("claim:") {
                Some(claim) => (None, Some(claim.to_string())),
                None => {
                    return Err(StoreError::Corrupt(format!(
                        "a reserved seat of game {game_id} has no claim"
                    )));
                }
            },
        };
        Ok(Credential {
            game_id,
            token_hash,
            role,
            seat: read_seat_opt(seat)?,
            display_name,
            created_at,
            claimed_by,
            entropy,
            public_key,
            key_proof,
            share_commitment,
        })
    }
}

/// The result of walking a game's hash chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChainReport {
    /// Every hash matches.
    Intact {
        /// How many events were checked.
        events: Version,
    },
    /// The first event whose hash does not match.
    Broken {
        /// Its sequence number.
        seq: Version,
        /// What is wrong.
        reason: String,
    },
}

/// A seat as the database numbers it.
pub(crate) fn seat_column(seat: Seat) -> i32 {
    i32::from(seat.0)
}

/// A seat read back from a row: one out of a seat's range is a corrupt row.
pub(crate) fn read_seat(n: i32) -> Result<Seat> {
    u8::try_from(n)
        .map(Seat)
        .map_err(|_| StoreError::Corrupt(format!("seat {n} in the store")))
}

/// A seat, if any, read back from a row.
pub(crate) fn read_seat_opt(n: Option<i32>) -> Result<Option<Seat>> {
    n.map(read_seat).transpose()
}
