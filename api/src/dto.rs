//! Request and response bodies.

use saboteur_domain::{BotLevel, Options, Ruleset};
use saboteur_storage::{Credential, GameId, GameStatus};

pub use saboteur_verifier::body::{EventRecord, Outcome, SeedCommitment, StateView};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A game to create.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateGame {
    /// `base` (3–10 players) or `saboteur2` (2–12 players).
    pub ruleset: Ruleset,
    /// Rule variants (docs/rules.md §7.1), each with its default when left out.
    #[serde(default)]
    pub options: Options,
    /// How many seats: 3–10 for `base`, 2–12 for `saboteur2`.
    #[schema(example = 4, minimum = 2, maximum = 12)]
    pub players: u8,
    /// The seat that plays first in round 1 (default 0).
    #[serde(default)]
    pub first_player: u8,
    /// A fixed seed (64 hex digits): only accepted by a server started with
    /// `--allow-fixed-seed`, for testing.
    pub seed: Option<String>,
}

/// A created game.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct GameCreated {
    /// The game's id.
    pub game_id: String,
    /// The host's bearer token: keep it secret; it starts the game.
    pub host_token: String,
    /// Hex SHA-256 of the game's seed, published now; the seed is revealed when the game ends.
    pub seed_commitment: String,
    /// The game's version.
    pub version: i64,
    /// What the server commits to, signed by `receipt`: keep both (`saboteur verify
    /// --commitment`).
    pub commitment: SeedCommitment,
    /// The server's signed receipt of `commitment` (kind `commitment`: its `view_hash` covers
    /// `commitment` alone, so it can be shown without the token).
    #[schema(required = true)]
    pub receipt: Option<crate::receipt::Receipt>,
}

/// A taken seat.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SeatInfo {
    /// The seat number, from 0.
    pub seat: u8,
    /// The player's display name.
    pub name: String,
    /// When a bot holds the seat, its level.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bot: Option<BotLevel>,
    /// A rematch's seat still waiting for its player from the previous game to claim it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reserved: bool,
    /// Where the seat's share stands, when its player committed to one
    /// ([`JoinGame::share_commitment`]): `committed` until revealed, then `revealed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub share: Option<ShareState>,
}

/// Where a committed share stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ShareState {
    /// Committed to with the seat; not revealed yet.
    Committed,
    /// Revealed once the host closed the lobby.
    Revealed,
}

/// A game as listed.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct GameSummary {
    /// The game's id.
    pub id: String,
    /// The ruleset.
    pub ruleset: Ruleset,
    /// Rule variants.
    pub options: Options,
    /// Where the game is in its life.
    pub status: GameStatus,
    /// How many events the log holds.
    pub version: i64,
    /// Hex SHA-256 of the seed.
    pub seed_commitment: String,
    /// The seed (64 hex digits), once the game is finished.
    #[schema(required = true)]
    pub seed: Option<String>,
    /// The seats taken so far.
    pub seats: Vec<SeatInfo>,
    /// How many seats the game has.
    pub players: u8,
    /// The game this one is a rematch of (`GET /games/{id}/series` follows the series).
    #[schema(required = true)]
    pub previous: Option<String>,
    /// When the game was created (RFC 3339, UTC).
    #[schema(format = DateTime)]
    pub created_at: String,
    /// When the game's log last grew (RFC 3339, UTC, to the second): its creation, then each
    /// event recorded (the start, a move, a bot's move, a round's end); a seat taken in the
    /// lobby does not change it. A game under way whose time stands still waits for a player
    /// who has gone.
    #[schema(format = DateTime)]
    pub updated_at: String,
    /// The seats sharing the win once the game is finished (`null` before), as its
    /// `game_ended` event records them.
    #[schema(required = true)]
    pub winners: Option<Vec<u8>>,
    /// Once the host closed the lobby for the committed shares to be revealed
    /// (`POST /games/{id}/close`): when their time is up (RFC 3339, UTC, to the millisecond).
    /// No seat is taken or given back after it. Absent while the lobby is open.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(format = DateTime)]
    pub reveal_by: Option<String>,
    /// The lobby's version: raised by every change to the lobby (a seat taken, claimed, given
    /// back or renamed, a key kept, the lobby closed, a share revealed), never after the start.
    /// A keyed seat's lobby act (leaving, a new name, a new key before the start) is signed at
    /// it (`Seat-Signature-Version`) and holds only while the lobby is at it: 412 once it moved
    /// on (read the game and sign again).
    pub lobby_version: i64,
}

/// A page of games.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct GameList {
    /// The games, oldest first.
    pub games: Vec<GameSummary>,
    /// Pass as `cursor` for the next page; absent on the last page.
    #[schema(required = true)]
    pub next_cursor: Option<String>,
}

/// A player joining.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct JoinGame {
    /// The name shown to others (1–40 characters, not only spaces).
    #[schema(example = "Ada", min_length = 1, max_length = 40, pattern = "\\S")]
    pub name: String,
    /// Your share in the seed of the deals: 32 random bytes as 64 hex digits, chosen by you
    /// after the game's `seed_commitment` was published. The start mixes every seat's share
    /// into the server's seed (the `seed_mixed` event), so the server cannot choose the deal
    /// alone; the reply's signed `commitment` holds the server to mixing it in.
    #[schema(pattern = "^[0-9a-fA-F]{64}$")]
    #[serde(default)]
    pub entropy: Option<String>,
    /// Instead of `entropy`, the commitment to it: SHA-256 of the 28 ASCII bytes `saboteur
    /// share commitment v1` then the share's 32 bytes, as 64 hex digits. Nobody sees your
    /// share before every seat has committed: the host closes the lobby
    /// (`POST /games/{id}/close`), each committed seat reveals its share
    /// (`PUT /games/{id}/seats/{seat}/share`) and the last one starts the game; the start
    /// records the commitments with the shares (`seed_mixed.committed`), so no seat, the
    /// server's own included, can choose its share knowing the others'. Sending both is 400.
    #[schema(pattern = "^[0-9a-fA-F]{64}$")]
    #[serde(default)]
    pub share_commitment: Option<String>,
    /// Your Ed25519 public key, 32 bytes as 64 hex digits. Recorded in the log when the game
    /// starts (`seat_key_registered`); from then on (and for leaving before the start) every
    /// act of your seat must carry your signature (`Seat-Signature`,
    /// `Seat-Signature-Version`; docs/clients.md), so nobody, the server included, can act
    /// for you unseen.
    #[schema(pattern = "^[0-9a-fA-F]{64}$")]
    #[serde(default)]
    pub public_key: Option<String>,
    /// The proof that you hold `public_key`, needed with it: your signature, with that key, of
    /// the RFC 8785 (JCS) canonical JSON of `{"scheme": "saboteur-key-v1", "game": <the game's
    /// id>, "key": <public_key in lowercase hex>}`, 128 hex digits. The start records it with
    /// the key, so the record shows you took the seat with it (`saboteur verify`). Without it,
    /// or with one that does not verify: 400 `bad_key_proof`.
    #[schema(pattern = "^[0-9a-fA-F]{128}$")]
    #[serde(default)]
    pub key_proof: Option<String>,
}

/// What a player sends when claiming their seat in a rematch (all optional).
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ClaimSeat {
    /// Your share in the rematch's seed (as [`JoinGame::entropy`]).
    #[schema(pattern = "^[0-9a-fA-F]{64}$")]
    #[serde(default)]
    pub entropy: Option<String>,
    /// The commitment to your share instead (as [`JoinGame::share_commitment`]).
    #[schema(pattern = "^[0-9a-fA-F]{64}$")]
    #[serde(default)]
    pub share_commitment: Option<String>,
    /// Your public key for the rematch (as [`JoinGame::public_key`]).
    #[schema(pattern = "^[0-9a-fA-F]{64}$")]
    #[serde(default)]
    pub public_key: Option<String>,
    /// The proof that you hold `public_key`, for the rematch's game (as
    /// [`JoinGame::key_proof`]).
    #[schema(pattern = "^[0-9a-fA-F]{128}$")]
    #[serde(default)]
    pub key_proof: Option<String>,
}

/// A seat's new public key.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SeatKey {
    /// The Ed25519 public key, 32 bytes as 64 hex digits.
    #[schema(pattern = "^[0-9a-fA-F]{64}$")]
    pub public_key: String,
    /// The proof that you hold `public_key`; needed. Before the start, as
    /// [`JoinGame::key_proof`]. During play in a game of record version 7 on
    /// (`TableStatus.record_version`), your signature, with that key, of the RFC 8785 (JCS)
    /// canonical JSON of `{"scheme": "saboteur-key-v2", "game": <the game's id>, "key":
    /// <public_key in lowercase hex>, "seat": <your seat>, "version": <key_proof_version>}`: it
    /// holds for this seat only, so nobody can put your key back with it after the host
    /// reissues your seat's token.
    #[schema(pattern = "^[0-9a-fA-F]{128}$")]
    #[serde(default)]
    pub key_proof: Option<String>,
    /// The game's version your proof names: needed during play from record version 7 on (the
    /// version you read, no earlier than your seat's last reissued token and no later than now;
    /// recorded as the event's `at`), refused before the start. Otherwise 400 `bad_key_proof`.
    #[serde(default)]
    pub key_proof_version: Option<u64>,
}

/// A committed seat's share, revealed once the host closed the lobby.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RevealShare {
    /// The share whose commitment the seat sent with it (`share_commitment`): 64 hex digits.
    #[schema(pattern = "^[0-9a-fA-F]{64}$")]
    pub entropy: String,
}

/// A share revealed: the seat's commitment again, now naming the share, signed (keep it with the
/// first: `saboteur verify --commitment` then names a deal drawn without it), and what the
/// lobby still waits for.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ShareRevealed {
    /// The seat number, from 0.
    pub seat: u8,
    /// What the server commits to for this seat now: the seed's hash, the seat's share and its
    /// commitment, and the seat's key.
    pub commitment: SeedCommitment,
    /// The server's signed receipt of `commitment` (kind `commitment`).
    #[schema(required = true)]
    pub receipt: Option<crate::receipt::Receipt>,
    /// The seats whose shares are still awaited, in seat order.
    pub waiting: Vec<u8>,
    /// Whether this share was the last awaited, and the game started with it.
    pub started: bool,
}

/// The lobby closed for the committed shares to be revealed.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct LobbyClosed {
    /// When the shares' time is up (RFC 3339, UTC, to the millisecond): the host's start then
    /// deals without those still awaited.
    #[schema(format = DateTime)]
    pub reveal_by: String,
    /// The seats whose shares are awaited, in seat order.
    pub waiting: Vec<u8>,
}

/// A seat's new name, before the start.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SeatName {
    /// The player's name, 1 to 40 characters (no control characters; spaces trimmed).
    pub name: String,
}

/// A seat named anew.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SeatNamed {
    /// The seat.
    pub seat: u8,
    /// Its name now, as the game lists it.
    pub name: String,
}

/// The free seat a player moves to, before the start.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SeatMove {
    /// The seat number to sit in, from 0: free, and one of the game's.
    pub to: u8,
}

/// A player moved to another seat, with everything the first was taken with (token, key,
/// share), and that seat's commitment made again, signed. Keep it in place of the first seat's
/// (`saboteur verify --commitment` compares a seat's share and key with the record).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SeatMoved {
    /// The seat number now, from 0.
    pub seat: u8,
    /// The seat moved from, free now.
    pub from: u8,
    /// What the server commits to for the new seat: the seed's hash, the seat's share (or its
    /// commitment) and key.
    pub commitment: SeedCommitment,
    /// The server's signed receipt of `commitment` (kind `commitment`).
    #[schema(required = true)]
    pub receipt: Option<crate::receipt::Receipt>,
}

/// A bot to seat.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AddBot {
    /// `random` (uniform among the legal moves), `heuristic` (plays its role) or `expert`
    /// (searches games consistent with what its seat has seen).
    pub level: BotLevel,
    /// The name shown to others (1–40 characters; by default the level, "bot" and the seat
    /// counted from 1, as in "expert bot 2").
    #[schema(example = "Digbot", min_length = 1, max_length = 40, pattern = "\\S")]
    pub name: Option<String>,
}

/// A seat given to a bot.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct BotSeated {
    /// The seat number, from 0.
    pub seat: u8,
    /// The bot's level.
    pub level: BotLevel,
    /// Its display name.
    pub name: String,
}

/// A seat taken.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Joined {
    /// The seat number, from 0.
    pub seat: u8,
    /// The player's bearer token: keep it secret; it plays for this seat.
    pub player_token: String,
    /// What the server commits to for this seat (the seed's hash and the seat's share), signed
    /// by `receipt`: keep both (`saboteur verify --commitment`).
    pub commitment: SeedCommitment,
    /// The server's signed receipt of `commitment` (kind `commitment`: its `view_hash` covers
    /// `commitment` alone, so it can be shown without the token).
    #[schema(required = true)]
    pub receipt: Option<crate::receipt::Receipt>,
}

/// A seat's key changed before the start: the seat's commitment again, now covering the new
/// key, signed. Keep it with the first (`saboteur verify --commitment` compares the key of a
/// seat's latest commitment with the record).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct KeyKept {
    /// The seat number, from 0.
    pub seat: u8,
    /// What the server commits to for this seat now: the seed's hash, the seat's share and the
    /// new key.
    pub commitment: SeedCommitment,
    /// The server's signed receipt of `commitment` (kind `commitment`).
    #[schema(required = true)]
    pub receipt: Option<crate::receipt::Receipt>,
}

/// The caller's legal commands.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct LegalMoves {
    /// The version after the last event that changes what a seat decides on: `If-Match` with
    /// any version from this one to `version` holds (talk, new tokens and keys do not move it).
    pub decision_version: i64,
    /// The version they are legal at.
    pub version: i64,
    /// Every command the caller may send now, in the wire format (identical cards once).
    pub commands: Vec<saboteur_domain::Command>,
}

/// The table at one version, read at once: what a client following the stream reads after
/// each piece of news.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct TableRead {
    /// The version all of it is of.
    pub version: i64,
    /// The game, as `GET /games/{id}` answers.
    pub game: GameSummary,
    /// The caller's view with its receipt, as `GET /games/{id}/state` answers (everyone's once
    /// the game is over).
    pub state: StateView,
    /// The caller's legal commands, as `GET /games/{id}/legal-moves` answers; null for a
    /// spectator or the host.
    #[schema(required = true)]
    pub legal: Option<LegalMoves>,
    /// Who is connected, as `GET /games/{id}/presence` answers.
    pub presence: PresenceView,
    /// The events after the query's `after`, as `GET /games/{id}/events` answers.
    pub events: EventPage,
}

/// One message's `data` on `GET /games/{id}/events/stream`: an `EventRecord`, and on request
/// (`?table=true`) the caller's table with the last event of each batch.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct StreamRecord {
    /// Its sequence number, from 1: the game's version once it is applied.
    pub seq: i64,
    /// The event, with what the caller may not see replaced by `null` or `{"count": n}`; for
    /// a client that declared an older `Api-Version` than the event's type, wrapped
    /// (`NewerEvent`).
    pub event: saboteur_verifier::newer::ServedEvent,
    /// For a seat (record version 6 on): the commitment and salt of each value of the event
    /// that the seat sees and others do not while the game runs, as `EventRecord.openings`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub openings: Vec<saboteur_verifier::seal::CommitmentOpening>,
    /// With `?table=true`, on the last event of each batch the stream sends (the newest event
    /// when it was sent): the caller's table at this event's version, as `GET /games/{id}/table`
    /// answers it, with `events` empty. Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<Box<TableRead>>,
}

/// A page of events.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct EventPage {
    /// The events, in order.
    pub events: Vec<EventRecord>,
    /// Pass as `after` for the next page; absent when the log has no more events yet.
    #[schema(required = true)]
    pub next_after: Option<i64>,
}

/// The server's health.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Health {
    /// `ok`.
    pub status: String,
    /// `postgres` or `sqlite`.
    pub database: String,
    /// Games held in memory by this process.
    pub cached_games: u64,
    /// Their estimated size in bytes (bounded by `--cache-bytes`).
    pub cache_bytes: u64,
    /// Event streams open on this process (bounded by `--max-streams`).
    pub streams: u64,
    /// Whether the database takes writes now (`/healthz/write` answers 200): false while it
    /// is read-only (a demoted primary, a standby) or cannot be reached for writes, when the
    /// server still answers reads.
    pub writable: bool,
}

/// A game as listed: its row, its seat count and its credentials (never their tokens).
pub(crate) fn summary(
    record: &saboteur_storage::GameRecord,
    credentials: &[Credential],
    winners: Option<Vec<u8>>,
) -> GameSummary {
    let mut seats: Vec<SeatInfo> = credentials
        .iter()
        .filter_map(|c| {
            Some(SeatInfo {
                seat: c.seat?.0,
                name: c.display_name.clone().unwrap_or_default(),
                bot: c.bot_level(),
                reserved: c.role == saboteur_storage::Role::Reserved,
                share: c.share_commitment.as_ref().map(|_| {
                    if c.entropy.is_some() {
                        ShareState::Revealed
                    } else {
                        ShareState::Committed
                    }
                }),
            })
        })
        .collect();
    seats.sort_by_key(|s| s.seat);
    GameSummary {
        id: record.id.to_string(),
        ruleset: record.ruleset,
        options: record.options,
        status: record.status,
        version: record.version.stored(),
        seed_commitment: record.seed_commitment.clone(),
        seed: record.seed.as_ref().map(hex::encode),
        seats,
        players: record.players,
        previous: record.previous.as_ref().map(GameId::to_string),
        created_at: record
            .created_at
            .to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        updated_at: record
            .updated_at
            .to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        winners: winners.filter(|_| record.status == GameStatus::Finished),
        lobby_version: record.lobby_version,
        reveal_by: record
            .reveal_by
            .filter(|_| record.status == GameStatus::Lobby)
            .map(rfc3339_ms),
    }
}

/// A time in milliseconds since the Unix epoch, as RFC 3339 (UTC, to the millisecond).
pub(crate) fn rfc3339_ms(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// A seat's new token.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct NewToken {
    /// The seat.
    pub seat: u8,
    /// The new bearer token: give it to the seat's player; the old one no longer works.
    pub player_token: String,
    /// The game's version after [`saboteur_domain::Event::TokenReissued`] was recorded.
    pub version: i64,
}

/// Whether one seat is connected.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SeatPresence {
    /// The seat.
    pub seat: u8,
    /// Whether its player follows the game live (an open event stream).
    pub connected: bool,
}

/// Who follows a game live, through any server process on the database (another process's
/// streams show within two beats of 2 s).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct PresenceView {
    /// Every seat, in order.
    pub seats: Vec<SeatPresence>,
    /// How many spectators (streams without a player's token).
    pub spectators: u32,
}
