//! The words an act is declared in ([`crate::app::act::Act::declared`]): who may take it, what
//! a player signs, its retry keys and what a retried act records first, what must hold before
//! it is decided, and how its reply is shaped. The seam reads every step's facts from here.

use saboteur_domain::{Command, Event, Seat};

use crate::app::ids::{GameId, Version};
use crate::app::sent::KeyFor;

/// Who may take an act (step 2), as [`Act::declared`] says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum May {
    /// The server itself: a timeout, a bot due.
    Server,
    /// Anyone, with no token of the game: a creation, a seat taken.
    Anyone,
    /// Whoever holds the previous game's token for the seat (checked when decided).
    Claimant,
    /// The host alone, who does what is said ("seats bots").
    Host(&'static str),
    /// A seat's player, for their own seat (the token's).
    Player,
    /// The named seat's own player, who does what is said ("names it").
    OwnSeat(Seat, &'static str),
    /// The named seat's own player, or the host (a seat given back before the start).
    SeatOrHost(Seat),
    /// A player (who sends no name) or a spectator (who may send one), never the host: talk.
    PlayerOrSpectator {
        /// Whether the act names its speaker.
        named: bool,
    },
}

/// What the seam knows of an act before deciding it, declared once per act
/// ([`Act::declared`]): who may take it and what is signed (step 2), its retry keys and what a
/// retry's batch must start with (step 3), what must hold before it is decided (step 4) and
/// its reply's shape (step 8) are read from here; its decision is its own code
/// (`decision.rs`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Declared<'a> {
    /// The game the act is on; `None` for a creation.
    pub game: Option<&'a GameId>,
    /// Who may take it.
    pub may: May,
    /// The act a seat's player signs for it, if a player may take it.
    pub signed: Option<saboteur_domain::SignedAct>,
    /// The `Idempotency-Key` that makes a retry of a seat's act answer its first reply, kept
    /// with the batch it recorded (step 3), and what that batch starts with.
    pub retry: Option<Retry<'a>>,
    /// The `Idempotency-Key` of a lobby's act, whose first reply is kept apart from the log.
    pub kept_key: Option<&'a KeyFor>,
    /// The client that takes a seat by it, counted against its join limit.
    pub taker: Option<&'a str>,
    /// What must hold before it is decided (step 4), in the order checked.
    pub needs: [Option<Need<'a>>; 3],
    /// How the reply to a batch it recorded is shaped (step 8).
    pub reply: Reply,
}

/// What must hold before an act is decided (step 4), checked by `check.rs` in the order an
/// act declares: the first that fails is the refusal.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Need<'a> {
    /// A seat's command: chosen at a version its `If-Match` lists, if it lists any (412), in a
    /// game started (409 `not_started`).
    Current(Option<&'a [Version]>),
    /// A game started: table talk opens with the deal (409 `not_started`).
    Dealt,
    /// A free seat in the lobby (409 `started`, `seats_full`).
    FreeSeat,
    /// The game still in its lobby, else 409 `started` with these words.
    Lobby(&'static str),
    /// The lobby not closed for the players' shares (409 `lobby_closed`).
    Open,
    /// The named seat is one of the game's (404).
    Seat(Seat),
    /// The named seat is one of the game's and somebody holds it (404).
    Held(Seat),
    /// Every seat taken, a rematch's reserved seats apart (409 `seats_open`).
    Full,
    /// The named seat is one of the game's and no bot plays it (409 `bot_seat`).
    NoBot(Seat),
    /// The named seat is held by a person, who has a token (404, 409 `bot_seat`).
    Person(Seat),
}

/// An act's needs, in order, as [`Declared::needs`] holds them: more than it has room for
/// does not compile.
pub(crate) fn needs<const N: usize>(list: [Need<'_>; N]) -> [Option<Need<'_>>; 3] {
    const { assert!(N <= 3, "Declared::needs holds at most three needs") };
    let mut all = [None; 3];
    for (slot, need) in all.iter_mut().zip(list) {
        *slot = Some(need);
    }
    all
}

/// A seat's act sent with an `Idempotency-Key` kept with the batch it recorded (step 3).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Retry<'a> {
    /// The key as sent.
    pub key: &'a str,
    /// What the act records first: a retry whose key's batch starts otherwise was another act.
    pub records: Records<'a>,
}

impl<'a> Retry<'a> {
    /// The retry an act declares when it was sent with `key`.
    pub(crate) fn on(key: &'a Option<String>, records: Records<'a>) -> Option<Retry<'a>> {
        key.as_deref().map(|key| Retry { key, records })
    }
}

/// The first event a retried act records (`retry.rs` checks a key's batch against it).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Records<'a> {
    /// This command accepted.
    Command(&'a Command),
    /// An undo asked for (or, with nobody to vote, done at once).
    Undo,
    /// A vote for the pending undo (`true`) or against it.
    Vote(bool),
    /// This message (its words as trimmed).
    Talk(&'a str),
    /// This seat taken back.
    Reclaim(Seat),
    /// This key (hex, any case) registered for this seat.
    Key(Seat, &'a str),
}

impl Records<'_> {
    /// Whether `first`, the first event of the batch a key recorded, is what the act records:
    /// the same command, message or seat (the key is the seat's own, so the seat is the same).
    pub fn first_of(&self, first: &Event) -> bool {
        use saboteur_domain::Secret::Known;
        match (*self, first) {
            (
                Records::Command(c),
                Event::CommandAccepted {
                    command: Known(f), ..
                },
            ) => f == c,
            (Records::Undo, e) => matches!(
                e,
                Event::UndoRequested { .. } | Event::Undone { by: Some(_), .. }
            ),
            (Records::Vote(approve), Event::UndoApproved { .. }) => approve,
            (Records::Vote(approve), Event::UndoDeclined { .. }) => !approve,
            (Records::Talk(text), Event::TalkPosted { text: Known(f), .. }) => {
                f.trim() == text.trim()
            }
            (Records::Reclaim(seat), Event::SeatReclaimed { seat: f, .. }) => *f == seat,
            (
                Records::Key(seat, key),
                Event::SeatKeyRegistered {
                    seat: f, key: k, ..
                },
            ) => *f == seat && k.eq_ignore_ascii_case(key),
            _ => false,
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
