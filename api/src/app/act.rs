//! Every act that writes a game, as one value: what a client asks for (parsed by a handler)
//! or what the server does by itself (a timeout, a bot due after a restart). The seam
//! ([`crate::app::seam::act`]) takes an [`Act`] and gives a [`Done`].

use saboteur_domain::{Audience, BotLevel, Command, Seat, SignedAct};

use crate::app::declared::needs;
pub(crate) use crate::app::declared::{Declared, May, Need, Records, Reply, Retry};
use crate::app::ids::{GameId, Version};
pub(crate) use crate::app::sent::{KeyFor, SentKey, SentShare, Signed};
use crate::dto::{CreateGame, GameCreated, NewToken, Outcome};

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
        /// The player's share in the seed (64 hex digits), or the commitment to it, if sent.
        share: SentShare,
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
    /// Give a seat back before the start (its player, or the host).
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
    /// Move to another free seat before the start, while the lobby is open (its player).
    Sit {
        game: GameId,
        seat: Seat,
        to: Seat,
        /// Makes a retry answer the first reply, for the same token.
        retry: Option<KeyFor>,
    },
    /// Deal round 1 (the host, every seat taken).
    Start { game: GameId },
    /// Close the lobby for the committed shares to be revealed (the host, every seat taken).
    CloseLobby { game: GameId },
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
        share: SentShare,
        key: Option<SentKey>,
    },
    /// Reveal the share a seat committed to, once the host closed the lobby (its player); the
    /// last share awaited starts the game.
    RevealShare {
        game: GameId,
        seat: Seat,
        /// The share (64 hex digits, any case as sent).
        entropy: String,
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

// What a lobby's act is refused with once the game started (409 `started`).
const STARTED: &str = "the game has already started";
const SEATS_KEPT: &str = "the game has started: seats are kept to the end";
const NAMES_KEPT: &str = "the game has started: its players' names are kept to the end";
const SHARES_MIXED: &str = "the game has started: its shares were mixed at the start";
const CANCEL_UNSTARTED: &str = "the game has started: only a game nobody started can be cancelled";

impl Act {
    /// The act's declaration: one arm per act, every fact the seam goes by before deciding it.
    /// A new act does not compile until it is declared here.
    pub fn declared(&self) -> Declared<'_> {
        match self {
            Act::Create(..) => on_nothing(),
            Act::Join {
                game,
                client,
                retry,
                ..
            } => Declared {
                may: May::Anyone,
                kept_key: retry.as_ref(),
                taker: client.as_deref(),
                needs: needs([Need::FreeSeat, Need::Open]),
                ..on(game)
            },
            Act::SeatBot {
                game,
                client,
                retry,
                ..
            } => Declared {
                kept_key: retry.as_ref(),
                taker: client.as_deref(),
                needs: needs([Need::FreeSeat, Need::Open]),
                ..host(game, "seats bots")
            },
            Act::Leave { game, seat, retry } => Declared {
                may: May::SeatOrHost(*seat),
                needs: needs([Need::Lobby(SEATS_KEPT), Need::Open, Need::Held(*seat)]),
                ..seat_in_lobby(game, SignedAct::Leave, retry)
            },
            Act::Rename {
                game, seat, retry, ..
            } => Declared {
                may: May::OwnSeat(*seat, "names it"),
                needs: needs([Need::Lobby(NAMES_KEPT), Need::Held(*seat)]),
                ..seat_in_lobby(game, SignedAct::Name, retry)
            },
            Act::Sit {
                game, seat, retry, ..
            } => Declared {
                may: May::OwnSeat(*seat, "moves from it"),
                needs: needs([Need::Lobby(SEATS_KEPT), Need::Open, Need::Held(*seat)]),
                ..seat_in_lobby(game, SignedAct::Sit, retry)
            },
            Act::Start { game } => Declared {
                needs: needs([Need::Lobby(STARTED), Need::Full]),
                ..host(game, "starts the game")
            },
            Act::Cancel { game } => Declared {
                needs: needs([Need::Lobby(CANCEL_UNSTARTED)]),
                ..host(game, "cancels the game")
            },
            Act::CloseLobby { game } => Declared {
                needs: needs([Need::Lobby(STARTED), Need::Full]),
                ..host(game, "closes the lobby")
            },
            Act::Command {
                game,
                key,
                command,
                if_match,
            } => Declared {
                retry: Retry::on(key, Records::Command(command)),
                needs: needs([Need::Current(if_match.as_deref())]),
                reply: Reply::Command,
                ..player(game, SignedAct::Command)
            },
            Act::RequestUndo { game, key } => Declared {
                retry: Retry::on(key, Records::Undo),
                reply: Reply::Vote,
                ..player(game, SignedAct::Undo)
            },
            Act::VoteUndo { game, approve, key } => Declared {
                retry: Retry::on(key, Records::Vote(*approve)),
                reply: Reply::Vote,
                ..player(
                    game,
                    if *approve {
                        SignedAct::Approve
                    } else {
                        SignedAct::Decline
                    },
                )
            },
            Act::Rollback { game, .. } => host(game, "rolls a game back"),
            Act::Talk {
                game,
                name,
                key,
                text,
            } => Declared {
                may: May::PlayerOrSpectator {
                    named: name.is_some(),
                },
                signed: Some(SignedAct::Talk),
                retry: Retry::on(key, Records::Talk(text)),
                needs: needs([Need::Dealt]),
                ..on(game)
            },
            Act::HideTalk { game, .. } => host(game, "hides messages"),
            Act::HandOver { game, seat, .. } => Declared {
                needs: needs([Need::NoBot(*seat)]),
                ..host(game, "hands seats to bots")
            },
            Act::Reclaim { game, seat, key } => Declared {
                may: May::OwnSeat(*seat, "takes it back"),
                signed: Some(SignedAct::Reclaim),
                retry: Retry::on(key, Records::Reclaim(*seat)),
                needs: needs([Need::Seat(*seat)]),
                ..on(game)
            },
            Act::ReissueToken { game, seat } => Declared {
                needs: needs([Need::Person(*seat)]),
                reply: Reply::Token(*seat),
                ..host(game, "issues tokens")
            },
            Act::Rematch { game, .. } => host(game, "creates the rematch"),
            Act::Claim { game, seat, .. } => Declared {
                may: May::Claimant,
                needs: needs([Need::Seat(*seat), Need::Open]),
                ..on(game)
            },
            // Unsigned: the share opens the commitment the seat was taken with, which nobody
            // else can make it do.
            Act::RevealShare { game, seat, .. } => Declared {
                may: May::OwnSeat(*seat, "reveals its share"),
                needs: needs([Need::Lobby(SHARES_MIXED), Need::Seat(*seat)]),
                ..on(game)
            },
            Act::RegisterKey {
                game,
                seat,
                retry,
                key,
            } => Declared {
                may: May::OwnSeat(*seat, "registers its key"),
                signed: Some(SignedAct::Key),
                retry: retry.as_ref().map(|k| Retry {
                    key: &k.key,
                    records: Records::Key(*seat, &key.key),
                }),
                needs: needs([Need::Seat(*seat)]),
                kept_key: retry.as_ref(),
                ..on(game)
            },
            Act::TimeOut { game } | Act::BotsDue { game } => on(game),
        }
    }

    /// The game the act is on; `None` for a creation.
    pub fn game(&self) -> Option<&GameId> {
        self.declared().game
    }

    /// The `Idempotency-Key` that makes a retry of a seat's act answer its first reply, kept
    /// with the batch it recorded (step 3). A creation's and a rematch's keys are kept with the
    /// game they make (`app/games.rs`), a lobby act's with its reply ([`Act::kept_key`]).
    pub fn retry_key(&self) -> Option<&str> {
        self.declared().retry.map(|r| r.key)
    }

    /// The `Idempotency-Key` of a lobby's act, whose first reply is kept apart from the log
    /// (a lobby's seats change without events): a retry with it answers that reply, before
    /// anything else is checked (a seat given back has no token any more).
    pub fn kept_key(&self) -> Option<&KeyFor> {
        self.declared().kept_key
    }

    /// The client that takes a seat by this act, counted against its join limit in the store
    /// (a join, a bot seated); `None` for every other act.
    pub fn taker(&self) -> Option<&str> {
        self.declared().taker
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
        self.declared().reply
    }
}

/// A declaration of an act on `game` that only the server takes, for [`Act::declared`] to
/// fill in.
fn on(game: &GameId) -> Declared<'_> {
    Declared {
        game: Some(game),
        may: May::Server,
        ..on_nothing()
    }
}

/// A declaration of a host's act on `game`: what the host `does`, said in a refusal to others.
fn host<'a>(game: &'a GameId, does: &'static str) -> Declared<'a> {
    Declared {
        may: May::Host(does),
        ..on(game)
    }
}

/// A declaration of a seat's player's act on `game`, which the player `signs`.
fn player(game: &GameId, signs: SignedAct) -> Declared<'_> {
    Declared {
        may: May::Player,
        signed: Some(signs),
        ..on(game)
    }
}

/// A declaration of a seat's act on `game` before the start, which its player `signs` at the
/// lobby's version and a `retry` key makes answer its first reply (who may take it, and what
/// must hold, for [`Act::declared`] to fill in).
fn seat_in_lobby<'a>(
    game: &'a GameId,
    signs: SignedAct,
    retry: &'a Option<KeyFor>,
) -> Declared<'a> {
    Declared {
        signed: Some(signs),
        kept_key: retry.as_ref(),
        ..on(game)
    }
}

/// A declaration on no game (a creation's), for [`Act::declared`] to fill in.
fn on_nothing<'a>() -> Declared<'a> {
    Declared {
        game: None,
        may: May::Anyone,
        signed: None,
        retry: None,
        needs: [None; 3],
        kept_key: None,
        taker: None,
        reply: Reply::Outcome,
    }
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
    /// A lobby's act: a seat taken, given back or changed, the lobby closed, a share revealed.
    Lobby(crate::app::lobby_done::LobbyDone),
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
