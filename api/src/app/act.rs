//! Every act that writes a game, as one value: what a client asks for (parsed by a handler)
//! or what the server does by itself (a timeout, a bot due after a restart). The seam
//! ([`crate::app::seam::act`]) takes an [`Act`] and gives a [`Done`].

use saboteur_domain::{Audience, BotLevel, Command, Seat};

use crate::app::ids::{GameId, Version};
use crate::dto::{BotSeated, CreateGame, GameCreated, Joined, NewToken, Outcome};

/// An act and the bearer token it came with.
#[derive(Debug)]
pub(crate) struct Request {
    /// The `Authorization: Bearer` token, if the request carried one.
    pub token: Option<String>,
    /// What is asked.
    pub act: Act,
    /// The player's signature of the act, if the request carried one.
    pub signed: Option<Signed>,
    /// Hex SHA-256 of the request's body exactly as sent, if it had one: what a refusal's
    /// receipt names as refused when the act is not signed.
    pub body_hash: Option<String>,
}

impl Request {
    /// An act asked with `token`.
    pub fn new(token: Option<String>, act: Act) -> Request {
        Request {
            token,
            act,
            signed: None,
            body_hash: None,
        }
    }

    /// The request with the player's signature of it.
    pub fn signed(mut self, signed: Option<Signed>) -> Request {
        self.signed = signed;
        self
    }

    /// The request with the body it came with (exactly as sent), hashed.
    pub fn body(mut self, body: Option<&str>) -> Request {
        use sha2::{Digest as _, Sha256};
        self.body_hash = body.map(|b| hex::encode(Sha256::digest(b.as_bytes())));
        self
    }
}

/// A player's signature of a request: the `Seat-Signature` and `Seat-Signature-Version`
/// headers and the body exactly as sent.
#[derive(Debug, Clone)]
pub(crate) struct Signed {
    /// The version the act was chosen (and signed) at.
    pub version: u64,
    /// 128 lowercase hex digits.
    pub signature: String,
    /// The body as sent (empty without one).
    pub body: String,
}

/// The `Idempotency-Key` of an act whose first reply is kept apart from the log, for
/// [`saboteur_storage::KEPT_FOR`], and answered again to a retry: a creation's and a rematch's
/// with the game they make, a lobby act's (`app/lobby_replies.rs`) after it.
#[derive(Debug, Clone)]
pub(crate) struct KeyFor {
    /// Who may get the reply back: `create <client>` (the client as the per-client limits name
    /// it), `rematch <game>` (whose host alone may ask), or a lobby act's: `join <game>
    /// <client>`, or `<act> <game> <token hash>` for one sent with a token.
    pub scope: String,
    /// The key.
    pub key: String,
    /// The SHA-256 of the request (hex): the key sent with another request is refused.
    pub request: String,
}

/// A public key as sent with a seat, and its proof of possession
/// ([`saboteur_domain::key_proof_statement`]), if sent.
#[derive(Debug, Clone)]
pub(crate) struct SentKey {
    /// The key (64 hex digits, any case as sent).
    pub key: String,
    /// Its holder's signature of the game's key statement (128 hex digits).
    pub proof: Option<String>,
    /// The version a proof made during play names
    /// ([`saboteur_domain::key_proof_statement_at`]), if sent.
    pub at: Option<u64>,
}

/// What can be done to a game. Each is authorised, decided, recorded, answered by the bots and
/// signed by the seam, in that order.
#[derive(Debug)]
pub(crate) enum Act {
    /// Create a game in the lobby (anyone), with the key that makes a retry answer the first
    /// reply, and its maker as the per-client limits name it (counted in its lobbies).
    Create(CreateGame, Option<KeyFor>, Option<String>),
    /// Take the next free seat (anyone, in the lobby).
    Join {
        game: GameId,
        name: String,
        /// The player's share in the seed (64 hex digits), if sent.
        entropy: Option<String>,
        /// The player's public key and its proof, if sent: the seat's acts are then signed.
        key: Option<SentKey>,
        /// Who takes it, as the per-client limits name a client (counted in the store).
        client: Option<String>,
        /// Makes a retry answer the first reply (its token included), for the same client.
        retry: Option<KeyFor>,
    },
    /// Seat a bot in the next free seat (the host, in the lobby).
    SeatBot {
        game: GameId,
        level: BotLevel,
        name: Option<String>,
        /// Who seats it, as for a join.
        client: Option<String>,
        /// Makes a retry answer the first reply, for the same token.
        retry: Option<KeyFor>,
    },
    /// Give a seat back before the start (its player; the host for a bot).
    Leave {
        game: GameId,
        seat: Seat,
        /// Makes a retry answer the first reply, for the same token.
        retry: Option<KeyFor>,
    },
    /// Name one's seat anew before the start (its player: a guest invited under the host's
    /// word for them).
    Rename {
        game: GameId,
        seat: Seat,
        name: String,
        /// Makes a retry answer the first reply, for the same token.
        retry: Option<KeyFor>,
    },
    /// Deal round 1 (the host, every seat taken).
    Start { game: GameId },
    /// Cancel the game before its start (the host): it is no longer a lobby.
    Cancel { game: GameId },
    /// A player's command, chosen at one of the versions `if_match` lists if given (an
    /// `If-Match` list; `None` without the header or with `*`); `key` makes a retry answer the
    /// first reply.
    Command {
        game: GameId,
        command: Command,
        if_match: Option<Vec<Version>>,
        key: Option<String>,
    },
    /// Ask to take back one's last command (a player); `key` makes a retry answer the first
    /// reply.
    RequestUndo { game: GameId, key: Option<String> },
    /// Vote on the pending undo request (a player); `key` as for an undo.
    VoteUndo {
        game: GameId,
        approve: bool,
        key: Option<String>,
    },
    /// Return the game to an earlier version, with a reason (the host).
    Rollback {
        game: GameId,
        to_version: u64,
        reason: String,
    },
    /// Post a message: a player, or a spectator under a name; `key` makes a player's retry
    /// answer the first reply.
    Talk {
        game: GameId,
        text: String,
        name: Option<String>,
        key: Option<String>,
    },
    /// Hide a message (the host).
    HideTalk { game: GameId, seq: u64 },
    /// Hand a seat to a bot during play (the host).
    HandOver {
        game: GameId,
        seat: Seat,
        level: BotLevel,
    },
    /// Take one's seat back from a bot (its player); `key` as for an undo.
    Reclaim {
        game: GameId,
        seat: Seat,
        key: Option<String>,
    },
    /// Issue a seat a new token; the old one stops working (the host).
    ReissueToken { game: GameId, seat: Seat },
    /// Create the next game of a finished one's series (the host), with the key that makes a
    /// retry answer the first reply.
    Rematch { game: GameId, key: Option<KeyFor> },
    /// Claim one's seat in a rematch with the previous game's token, with a share in the seed
    /// and a public key, if sent.
    Claim {
        game: GameId,
        seat: Seat,
        entropy: Option<String>,
        key: Option<SentKey>,
    },
    /// Register the public key that signs a seat's acts (its player; signed with the seat's
    /// previous key, if it has one).
    RegisterKey {
        game: GameId,
        seat: Seat,
        key: SentKey,
        /// Makes a retry answer the first reply, for the same token: kept with the reply before
        /// the start, with the batch it recorded after.
        retry: Option<KeyFor>,
    },
    /// The awaited decision's deadline passed: the server records the timeout.
    TimeOut { game: GameId },
    /// The store says a bot is due (after a restart, an outage or a lost race): the server
    /// lets it play.
    BotsDue { game: GameId },
}

impl Act {
    /// The game the act is on; `None` for a creation.
    pub fn game(&self) -> Option<&GameId> {
        match self {
            Act::Create(..) => None,
            Act::Join { game, .. }
            | Act::SeatBot { game, .. }
            | Act::Leave { game, .. }
            | Act::Rename { game, .. }
            | Act::Start { game }
            | Act::Cancel { game }
            | Act::Command { game, .. }
            | Act::RequestUndo { game, .. }
            | Act::VoteUndo { game, .. }
            | Act::Rollback { game, .. }
            | Act::Talk { game, .. }
            | Act::HideTalk { game, .. }
            | Act::HandOver { game, .. }
            | Act::Reclaim { game, .. }
            | Act::ReissueToken { game, .. }
            | Act::Rematch { game, .. }
            | Act::Claim { game, .. }
            | Act::RegisterKey { game, .. }
            | Act::TimeOut { game }
            | Act::BotsDue { game } => Some(game),
        }
    }

    /// The `Idempotency-Key` that makes a retry of a seat's act answer its first reply, kept
    /// with the batch it recorded (step 3). A creation's and a rematch's keys are kept with the
    /// game they make (`app/games.rs`), a lobby act's with its reply ([`Act::kept_key`]).
    pub fn retry_key(&self) -> Option<&str> {
        match self {
            Act::Command { key, .. }
            | Act::RequestUndo { key, .. }
            | Act::VoteUndo { key, .. }
            | Act::Talk { key, .. }
            | Act::Reclaim { key, .. } => key.as_deref(),
            Act::RegisterKey { retry, .. } => retry.as_ref().map(|k| k.key.as_str()),
            Act::Create(..)
            | Act::Rematch { .. }
            | Act::Join { .. }
            | Act::SeatBot { .. }
            | Act::Leave { .. }
            | Act::Rename { .. }
            | Act::Start { .. }
            | Act::Cancel { .. }
            | Act::Rollback { .. }
            | Act::HideTalk { .. }
            | Act::HandOver { .. }
            | Act::ReissueToken { .. }
            | Act::Claim { .. }
            | Act::TimeOut { .. }
            | Act::BotsDue { .. } => None,
        }
    }

    /// The `Idempotency-Key` of a lobby's act, whose first reply is kept apart from the log
    /// (a lobby's seats change without events): a retry with it answers that reply, before
    /// anything else is checked (a seat given back has no token any more).
    pub fn kept_key(&self) -> Option<&KeyFor> {
        match self {
            Act::Join { retry, .. }
            | Act::SeatBot { retry, .. }
            | Act::Leave { retry, .. }
            | Act::Rename { retry, .. }
            | Act::RegisterKey { retry, .. } => retry.as_ref(),
            Act::Create(..)
            | Act::Rematch { .. }
            | Act::Start { .. }
            | Act::Cancel { .. }
            | Act::Command { .. }
            | Act::RequestUndo { .. }
            | Act::VoteUndo { .. }
            | Act::Rollback { .. }
            | Act::Talk { .. }
            | Act::HideTalk { .. }
            | Act::HandOver { .. }
            | Act::Reclaim { .. }
            | Act::ReissueToken { .. }
            | Act::Claim { .. }
            | Act::TimeOut { .. }
            | Act::BotsDue { .. } => None,
        }
    }

    /// The client that takes a seat by this act, counted against its join limit in the store
    /// (a join, a bot seated); `None` for every other act.
    pub fn taker(&self) -> Option<&str> {
        match self {
            Act::Join { client, .. } | Act::SeatBot { client, .. } => client.as_deref(),
            Act::Create(..)
            | Act::Leave { .. }
            | Act::Rename { .. }
            | Act::Start { .. }
            | Act::Cancel { .. }
            | Act::Command { .. }
            | Act::RequestUndo { .. }
            | Act::VoteUndo { .. }
            | Act::Rollback { .. }
            | Act::Talk { .. }
            | Act::HideTalk { .. }
            | Act::HandOver { .. }
            | Act::Reclaim { .. }
            | Act::ReissueToken { .. }
            | Act::Rematch { .. }
            | Act::Claim { .. }
            | Act::RegisterKey { .. }
            | Act::TimeOut { .. }
            | Act::BotsDue { .. } => None,
        }
    }

    /// The key its batch is kept under: a player's retry key, scoped to the seat
    /// (`{seat}:{key}`).
    pub fn seat_key(&self, who: Who) -> Option<String> {
        match (self.retry_key(), who) {
            (Some(k), Who::Player(seat)) => Some(format!("{}:{k}", seat.0)),
            (Some(_), Who::Anyone | Who::Host | Who::Server) | (None, _) => None,
        }
    }

    /// How the reply to a batch the act recorded is shaped (step 8).
    pub fn reply(&self) -> Reply {
        match self {
            Act::Command { .. } => Reply::Command,
            Act::RequestUndo { .. } | Act::VoteUndo { .. } => Reply::Vote,
            Act::ReissueToken { seat, .. } => Reply::Token(*seat),
            Act::Create(..)
            | Act::Rematch { .. }
            | Act::Join { .. }
            | Act::SeatBot { .. }
            | Act::Leave { .. }
            | Act::Rename { .. }
            | Act::Start { .. }
            | Act::Cancel { .. }
            | Act::Rollback { .. }
            | Act::Talk { .. }
            | Act::HideTalk { .. }
            | Act::HandOver { .. }
            | Act::Reclaim { .. }
            | Act::Claim { .. }
            | Act::RegisterKey { .. }
            | Act::TimeOut { .. }
            | Act::BotsDue { .. } => Reply::Outcome,
        }
    }
}

/// How the seam answers an act that recorded a batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reply {
    /// The batch and the bots' answers its request appended after it (as a retry's reply is),
    /// 200.
    Command,
    /// The batch to the table's version: 202 while the undo request still awaits votes after
    /// the bots answered, else 200.
    Vote,
    /// The seat's new token and the version (200).
    Token(Seat),
    /// The batch to the table's version (200).
    Outcome,
}

/// Who an act is done by, once identified and authorised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Who {
    /// Anyone: no token, or none needed.
    Anyone,
    /// The game's host.
    Host,
    /// A seat's player.
    Player(Seat),
    /// The server itself (clocks and bots).
    Server,
}

impl Who {
    /// What the caller sees while the game runs: its seat's view, or a spectator's.
    pub fn audience(self) -> Audience {
        match self {
            Who::Player(seat) => Audience::Seat(seat),
            Who::Anyone | Who::Host | Who::Server => Audience::Spectator,
        }
    }
}

/// What an act did, for the handler to answer with.
#[derive(Debug)]
pub(crate) enum Done {
    /// A game was created (201).
    Created(Box<GameCreated>),
    /// A seat was taken, or claimed (201).
    Joined(Box<Joined>),
    /// A bot was seated (201).
    BotSeated(BotSeated),
    /// A seat was given back (204).
    Left,
    /// A seat's key was changed before the start: its commitment made again (201).
    KeyKept(Box<crate::dto::KeyKept>),
    /// A seat was named anew before the start (200).
    Renamed(crate::dto::SeatNamed),
    /// Events were recorded: the outcome as the caller may see it, signed (200).
    Recorded(Outcome),
    /// An undo step was recorded but votes are still awaited (202).
    Awaiting(Outcome),
    /// A seat's new token (200).
    NewToken(NewToken),
    /// Nothing to record (a server act that found nothing due).
    Nothing,
    /// The first reply to a retried `Idempotency-Key`, given again (`Idempotency-Replayed`).
    Replayed(Box<Done>),
}
