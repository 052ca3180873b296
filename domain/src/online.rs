//! Playing online: table talk, turn clocks, seats handed to bots and tokens issued again.
//!
//! What happens at the table around the game is recorded in the log like every move, so a
//! replay shows the talk and a dispute about a timeout is settled from the record. It lives
//! beside the game's state, not in it: [`History`] follows it in the order of the log, and an
//! undo or a rollback takes none of it back (time spent stays spent, words said stay said).
//!
//! The engine has no clock. The caller passes the time in (milliseconds since the Unix epoch);
//! [`History::stamp`] records it in the events of a clocked game, and every deadline is
//! reckoned from recorded times only, so an audit checks each [`Event::TurnTimedOut`] against
//! the log alone.

use serde::{Deserialize, Serialize};

use crate::event::{BotLevel, Event, HandOver};
use crate::game::Phase;
use crate::history::History;
use crate::options::Clock;
use crate::seat::Seat;
use crate::secret::Secret;
use crate::view::Audience;

pub use crate::table::recorded_time;

/// The longest message, in characters.
pub const TALK_MAX_CHARS: usize = 280;
/// The longest name a spectator may talk under, in characters.
pub const NAME_MAX_CHARS: usize = 40;
/// How many messages one speaker may post within [`TALK_WINDOW_MS`] (all spectators together
/// count as one speaker).
pub const TALK_BURST: usize = 5;
/// The window of the talk rate limit, in milliseconds.
pub const TALK_WINDOW_MS: u64 = 30_000;
/// The level of the bot that decides for a seat that ran out of time, or was abandoned, unless
/// the table's options name another ([`crate::Options::timeout_bot`]).
pub const TIMEOUT_BOT: BotLevel = BotLevel::Heuristic;

mod text;
pub use text::{check_text, forbidden_char};

/// Why talk or an act at the table was refused. Nothing is recorded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TableError {
    /// The game is over: its record is final.
    #[error("the game is over: its record is final")]
    GameOver,
    /// The game has not started.
    #[error("the game has not started")]
    NotStarted,
    /// No seat has that number.
    #[error("the game has no {0}")]
    NoSuchSeat(Seat),
    /// The text or name cannot be posted.
    #[error("{0}")]
    BadText(String),
    /// Spectators may not talk at this table.
    #[error("the host does not let spectators talk at this table")]
    SpectatorsMayNotTalk,
    /// The speaker posted too much, too fast.
    #[error("at most {TALK_BURST} messages every {} seconds: wait {} s", TALK_WINDOW_MS / 1000, retry_after_ms.div_ceil(1000))]
    TooFast {
        /// How long until the next message is allowed, in milliseconds.
        retry_after_ms: u64,
    },
    /// The sequence number is not a message's.
    #[error("event {0} is not a message")]
    NoSuchMessage(u64),
    /// The message is already hidden.
    #[error("message {0} is already hidden")]
    AlreadyHidden(u64),
    /// No decision has a deadline now (no clock, or nobody is awaited).
    #[error("no decision has a deadline now")]
    NoDeadline,
    /// The deadline has not passed.
    #[error("the deadline ({0}) has not passed")]
    NotYet(u64),
    /// The seat is already played by a bot.
    #[error("{0} is already played by a bot")]
    AlreadyBot(Seat),
    /// The seat is not played by a bot.
    #[error("{0} is not played by a bot")]
    NotBot(Seat),
    /// The bot found no command to play.
    #[error("the bot found no command for {0}")]
    NoCommand(Seat),
    /// A public key is not an Ed25519 key written as 64 lowercase hex digits.
    #[error("a public key is an Ed25519 key written as 64 lowercase hex digits")]
    BadKey,
    /// A key sent without its proof of possession in a game of record version 4 on, or with
    /// one that is not 128 lowercase hex digits (or, as the server checks, does not verify);
    /// during play from record version 7 on, one not dated (`key_proof_version`) within the
    /// seat's current token.
    #[error(
        "a key is sent with `key_proof`: its signature of the statement {{\"scheme\": \
         \"saboteur-key-v1\", \"game\", \"key\"}} (RFC 8785), 128 hex digits; during play, \
         of {{\"scheme\": \"saboteur-key-v2\", \"game\", \"key\", \"seat\", \"version\"}} \
         with that version as `key_proof_version`, no earlier than the seat's last reissued \
         token"
    )]
    BadKeyProof,
    /// A seat given to a bot in the lobby is recorded right after the deal, before any move,
    /// for a seat nobody else plays and that has no key, in a game of record version 2.
    #[error(
        "{0} cannot be recorded as a lobby bot's: that is done right after the deal, before \
         any move, for a seat without a key that no bot plays yet, in a game of record version 2"
    )]
    NotInLobby(Seat),
    /// The game has started: it can no longer be cancelled.
    #[error("the game has started: only a game nobody started can be cancelled")]
    AlreadyStarted,
    /// The host cancelled the game before its start.
    #[error("the game was cancelled before its start")]
    Cancelled,
    /// The key is another seat's (record version 7 on): one key signs for one seat.
    #[error("the key is {0}'s: one key signs for one seat")]
    KeyInUse(Seat),
}

impl TableError {
    /// Every stable code an act at the table may be refused with, in the order of the
    /// variants.
    pub const CODES: &'static [&'static str] = &[
        "game_over",
        "not_started",
        "no_such_seat",
        "bad_text",
        "spectators_may_not_talk",
        "too_many_requests",
        "no_such_message",
        "already_hidden",
        "no_deadline",
        "deadline_not_passed",
        "already_bot",
        "not_bot",
        "no_command",
        "bad_key",
        "bad_key_proof",
        "not_in_lobby",
        "already_started",
        "cancelled",
        "key_in_use",
    ];

    /// The stable code of the refusal (one of [`TableError::CODES`]).
    pub fn code(&self) -> &'static str {
        match self {
            TableError::GameOver => "game_over",
            TableError::NotStarted => "not_started",
            TableError::NoSuchSeat(_) => "no_such_seat",
            TableError::BadText(_) => "bad_text",
            TableError::SpectatorsMayNotTalk => "spectators_may_not_talk",
            TableError::TooFast { .. } => "too_many_requests",
            TableError::NoSuchMessage(_) => "no_such_message",
            TableError::AlreadyHidden(_) => "already_hidden",
            TableError::NoDeadline => "no_deadline",
            TableError::NotYet(_) => "deadline_not_passed",
            TableError::AlreadyBot(_) => "already_bot",
            TableError::NotBot(_) => "not_bot",
            TableError::NoCommand(_) => "no_command",
            TableError::BadKey => "bad_key",
            TableError::BadKeyProof => "bad_key_proof",
            TableError::NotInLobby(_) => "not_in_lobby",
            TableError::AlreadyStarted => "already_started",
            TableError::Cancelled => "cancelled",
            TableError::KeyInUse(_) => "key_in_use",
        }
    }
}

/// The deadline of the awaited decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Deadline {
    /// The awaited seat.
    pub seat: Seat,
    /// When its time runs out, in milliseconds since the Unix epoch.
    pub at: u64,
}

impl History {
    fn table_open(&self) -> Result<(), TableError> {
        if *self.game().phase() == Phase::GameOver {
            return Err(TableError::GameOver);
        }
        Ok(())
    }

    fn seat_of_game(&self, seat: Seat) -> Result<(), TableError> {
        if seat.index() >= self.game().n() {
            return Err(TableError::NoSuchSeat(seat));
        }
        Ok(())
    }

    /// The time to record for something happening at `now`: never earlier than a time already
    /// recorded, so the log's times never go backwards (server clocks may disagree a little).
    pub fn recorded_now(&self, now: u64) -> u64 {
        now.max(self.table.last_at)
    }

    /// Records the time `now` in a batch about to be appended, if the game has a clock: in
    /// each accepted command, each undo and the start (round 1 dealt) that has no time yet (a
    /// timeout's decision keeps the timeout's). Games without a clock record no times in them.
    pub fn stamp(&self, events: &mut [Event], now: u64) {
        if self.table.options.clock.is_none() {
            return;
        }
        let t = self.recorded_now(now);
        for e in events {
            match e {
                Event::CommandAccepted { at, .. }
                | Event::Undone { at, .. }
                | Event::RoundStarted { round: 1, at, .. } => {
                    at.get_or_insert(t);
                }
                _ => {}
            }
        }
    }

    /// The deadline of the awaited decision: none without a clock, before the start, at the
    /// end, or while a bot plays the awaited seat.
    pub fn deadline(&self) -> Option<Deadline> {
        let clock = self.table.options.clock?;
        let since = self.table.since?;
        let seat = self.game().awaited()?;
        if self.table.handed(seat).is_some() {
            return None;
        }
        let left = match clock {
            Clock::PerDecision { seconds } => u64::from(seconds) * 1000,
            Clock::Bank { .. } => self.table.bank.get(seat.index()).copied().unwrap_or(0),
        };
        Some(Deadline {
            seat,
            at: since + left,
        })
    }

    /// The awaited decision's deadline had its time begun again at `from` (ms since the epoch;
    /// no earlier than the decision's own start): the seat's whole time from then. A seat
    /// whose command the server could not record (its store away) has it again from the
    /// refusal, and the verifier holds a timeout to it.
    pub fn deadline_from(&self, from: u64) -> Option<Deadline> {
        let deadline = self.deadline()?;
        let since = self.table.since?;
        Some(Deadline {
            seat: deadline.seat,
            at: from.max(since) + deadline.at.saturating_sub(since),
        })
    }

    /// Whether the awaited decision's deadline has passed at `now`.
    pub fn overdue(&self, now: u64) -> bool {
        self.deadline()
            .is_some_and(|d| self.recorded_now(now) >= d.at)
    }

    /// The awaited seat ran out of time at `now`: [`Event::TurnTimedOut`], the seat handed to
    /// the bot if it has now timed out as often in a row as the table allows, and the
    /// timeout bot's command for it (recorded with its [`crate::BotMove`], so the audit
    /// chooses it again).
    pub fn time_out(&self, now: u64) -> Result<Vec<Event>, TableError> {
        self.time_out_by(now, |h, seat, level| h.execute_bot(seat, level))
    }

    /// As [`History::time_out`], the seat's command and its events given by `decide(self,
    /// seat, level)` (the audit: the bot of the version that recorded the decision).
    pub fn time_out_by(
        &self,
        now: u64,
        decide: impl FnOnce(&History, Seat, BotLevel) -> Option<Vec<Event>>,
    ) -> Result<Vec<Event>, TableError> {
        let deadline = self.deadline().ok_or(TableError::NoDeadline)?;
        let at = self.recorded_now(now);
        if at < deadline.at {
            return Err(TableError::NotYet(deadline.at));
        }
        let seat = deadline.seat;
        let mut events = vec![Event::TurnTimedOut {
            seat,
            deadline: deadline.at,
            at,
        }];
        let timeouts = self.table.timeouts.get(seat.index()).copied().unwrap_or(0);
        if self
            .table
            .options
            .abandon_after
            .is_some_and(|n| timeouts.saturating_add(1) >= n)
        {
            events.push(Event::SeatHandedToBot {
                seat,
                level: self.table.options.timeout_bot(),
                reason: HandOver::Abandoned,
            });
        }
        let mut decided = decide(self, seat, self.table.options.timeout_bot())
            .ok_or(TableError::NoCommand(seat))?;
        self.stamp(&mut decided, at);
        events.extend(decided);
        Ok(events)
    }

    /// A message posted by a seat's player, or by a spectator under a name, at `now`. Checked:
    /// the text (and name), whether spectators may talk, and the rate limit.
    pub fn talk(
        &self,
        seat: Option<Seat>,
        name: Option<&str>,
        text: &str,
        now: u64,
    ) -> Result<Vec<Event>, TableError> {
        self.table_open()?;
        let name = match seat {
            Some(s) => {
                self.seat_of_game(s)?;
                None
            }
            None => {
                if !self.table.options.spectator_talk {
                    return Err(TableError::SpectatorsMayNotTalk);
                }
                let name = name.unwrap_or_default();
                check_text("name", name, NAME_MAX_CHARS).map_err(TableError::BadText)?;
                Some(name.trim().to_string())
            }
        };
        check_text("message", text, TALK_MAX_CHARS).map_err(TableError::BadText)?;
        let at = self.recorded_now(now);
        let recent: Vec<u64> = self
            .table
            .talk
            .iter()
            .filter(|(who, t)| *who == seat && t + TALK_WINDOW_MS > at)
            .map(|(_, t)| *t)
            .collect();
        if recent.len() >= TALK_BURST {
            let oldest = recent.iter().min().copied().unwrap_or(at);
            return Err(TableError::TooFast {
                retry_after_ms: (oldest + TALK_WINDOW_MS).saturating_sub(at).max(1),
            });
        }
        Ok(vec![Event::TalkPosted {
            seat,
            name,
            text: Secret::Known(text.to_string()),
            at,
            signature: None,
        }])
    }

    /// The host cancels the game before its start ([`Event::GameCancelled`]): refused once it
    /// started, and once cancelled.
    pub fn cancel(&self) -> Result<Vec<Event>, TableError> {
        match self.game().phase() {
            Phase::NotStarted => Ok(vec![Event::GameCancelled {}]),
            Phase::Cancelled => Err(TableError::Cancelled),
            Phase::Playing
            | Phase::ChoosingGold { .. }
            | Phase::Stealing { .. }
            | Phase::RoundOver
            | Phase::GameOver => Err(TableError::AlreadyStarted),
        }
    }

    /// The host hides a message (event `message`); it stays in the log.
    pub fn hide_talk(&self, message: u64) -> Result<Vec<Event>, TableError> {
        self.table_open()?;
        if !self.table.messages.contains(&message) {
            return Err(TableError::NoSuchMessage(message));
        }
        if self.table.hidden.contains(&message) {
            return Err(TableError::AlreadyHidden(message));
        }
        Ok(vec![Event::TalkHidden { message }])
    }

    /// The host hands a seat to a bot of `level` until its player takes it back.
    pub fn hand_to_bot(&self, seat: Seat, level: BotLevel) -> Result<Vec<Event>, TableError> {
        self.table_open()?;
        self.seat_of_game(seat)?;
        if *self.game().phase() == Phase::NotStarted {
            return Err(TableError::NotStarted);
        }
        if self.table.handed(seat).is_some() {
            return Err(TableError::AlreadyBot(seat));
        }
        Ok(vec![Event::SeatHandedToBot {
            seat,
            level,
            reason: HandOver::Host,
        }])
    }

    /// The seats given to bots in the lobby, recorded once the game is dealt and before its
    /// first move (record version 2): one [`Event::SeatHandedToBot`] with
    /// [`HandOver::Lobby`] a seat, in the order given. From then on the record says which seats
    /// are bots', so a bot's command for any other seat is a discrepancy
    /// ([`crate::audit()`]).
    pub fn seat_lobby_bots(&self, bots: &[(Seat, BotLevel)]) -> Result<Vec<Event>, TableError> {
        let moved = self
            .log()
            .iter()
            .any(|e| matches!(e, Event::CommandAccepted { .. }));
        let mut events = Vec::with_capacity(bots.len());
        for (i, &(seat, level)) in bots.iter().enumerate() {
            self.seat_of_game(seat)?;
            let twice = bots[..i].iter().any(|(s, _)| *s == seat);
            if self.table.record_version < 2
                || *self.game().phase() == Phase::NotStarted
                || moved
                || self.table.handed(seat).is_some()
                || self
                    .table
                    .keys
                    .get(seat.index())
                    .is_some_and(Option::is_some)
                || twice
            {
                return Err(TableError::NotInLobby(seat));
            }
            events.push(Event::SeatHandedToBot {
                seat,
                level,
                reason: HandOver::Lobby,
            });
        }
        Ok(events)
    }

    /// Whether the game's record version binds bots and signatures (version 2 and later):
    /// every bot seat recorded, bot seeds derived, signatures bound to their decision.
    pub fn records_bots(&self) -> bool {
        self.table.record_version >= 2
    }

    /// The game's record version ([`crate::options::RECORD_VERSION`]).
    pub fn record_version(&self) -> u8 {
        self.table.record_version
    }

    /// What the game's players sign ([`crate::SigningScheme::of_record`]).
    pub fn signing_scheme(&self) -> crate::SigningScheme {
        crate::SigningScheme::of_record(self.table.record_version)
    }

    /// A seat's player takes the seat back from the bot.
    pub fn reclaim_seat(&self, seat: Seat) -> Result<Vec<Event>, TableError> {
        self.table_open()?;
        self.seat_of_game(seat)?;
        if self.table.handed(seat).is_none() {
            return Err(TableError::NotBot(seat));
        }
        Ok(vec![Event::SeatReclaimed {
            seat,
            signature: None,
        }])
    }

    /// The host issues a new token for a seat (the token itself is never recorded).
    pub fn reissue_token(&self, seat: Seat) -> Result<Vec<Event>, TableError> {
        self.table_open()?;
        self.seat_of_game(seat)?;
        Ok(vec![Event::TokenReissued { seat }])
    }

    /// A seat's player registers an Ed25519 public key (64 lowercase hex digits), with its
    /// proof of possession (128 lowercase hex digits; whether it verifies is the caller's to
    /// check, [`crate::key_proof_statement`], or from record version 7 on
    /// [`crate::key_proof_statement_at`] for the version `at` it names): from then on the
    /// seat's acts must carry the player's signature ([`crate::signature`]). From record
    /// version 7 on a key signs for one seat at a time ([`TableError::KeyInUse`]), and once the
    /// seat's token was reissued, `at` is needed, no later than this
    /// version and no earlier than the reissue ([`Self::key_proof_since`]); an undated proof
    /// (the lobby's) holds only for a seat whose token was never reissued. Before version 7
    /// none is recorded.
    pub fn register_key(
        &self,
        seat: Seat,
        key: &str,
        (proof, at): (Option<&str>, Option<u64>),
    ) -> Result<Vec<Event>, TableError> {
        self.table_open()?;
        self.seat_of_game(seat)?;
        if !crate::signature::is_public_key(key) {
            return Err(TableError::BadKey);
        }
        let record = self.table.record_version;
        let required = crate::options::proves_keys(record);
        match proof {
            Some(p) if !crate::signature::is_signature(p) => return Err(TableError::BadKeyProof),
            None if required => return Err(TableError::BadKeyProof),
            _ => {}
        }
        let dated = crate::options::dates_key_proofs(record);
        if dated && let Some(other) = self.key_holder(key).filter(|s| *s != seat) {
            return Err(TableError::KeyInUse(other));
        }
        let since = self.key_proof_since(seat);
        let at = match (dated, at) {
            (true, Some(v)) if (since..=self.version()).contains(&v) => Some(v),
            // A key sent in the lobby names no version: it holds until a token is reissued.
            (true, None) if since == 0 => None,
            (false, _) => None,
            (true, _) => return Err(TableError::BadKeyProof),
        };
        Ok(vec![Event::SeatKeyRegistered {
            seat,
            key: key.to_string(),
            signature: None,
            proof: proof.map(str::to_string),
            at,
        }])
    }

    /// The seat whose acts `key` signs now, if any.
    pub fn key_holder(&self, key: &str) -> Option<Seat> {
        let key = key.to_ascii_lowercase();
        (self
            .table
            .keys
            .iter()
            .position(|k| k.as_deref() == Some(key.as_str())))
        .and_then(|i| u8::try_from(i).ok())
        .map(Seat)
    }

    /// The earliest version a key registered for `seat` now may be proved at (record version 7
    /// on): the version of the seat's last reissued token, or 0.
    pub fn key_proof_since(&self, seat: Seat) -> u64 {
        self.table.reissued.get(seat.index()).copied().unwrap_or(0)
    }

    /// The key that signs a seat's acts, if its player registered one (and no token was
    /// issued again since).
    pub fn seat_key(&self, seat: Seat) -> Option<&str> {
        self.table.keys.get(seat.index())?.as_deref()
    }

    /// The bot a seat was handed to during play, if one plays it now.
    pub fn handed_to(&self, seat: Seat) -> Option<BotLevel> {
        self.table.handed(seat)
    }

    /// Whether a bot plays `seat` in its player's place: handed over by the host, or the seat
    /// abandoned after its timeouts (not a bot's seat from the lobby on). Its moves stand for
    /// the player, so each must be one a verifier can choose again.
    pub fn plays_for_player(&self, seat: Seat) -> bool {
        self.table.plays_for_player(seat)
    }

    /// Whether the message recorded as event `seq` was hidden by the host.
    pub fn talk_hidden(&self, seq: u64) -> bool {
        self.table.hidden.contains(&seq)
    }

    /// Event `seq` as `audience` may see it: [`crate::redact`], and a message the host hid
    /// shown without its text (except to the omniscient audience: the audit keeps it).
    pub fn shown(&self, seq: u64, event: &Event, audience: Audience) -> Event {
        let over = *self.game().phase() == Phase::GameOver;
        let mut shown = crate::view::redact(event, audience, over);
        if audience != Audience::Omniscient
            && self.talk_hidden(seq)
            && let Event::TalkPosted {
                text, signature, ..
            } = &mut shown
        {
            *text = Secret::Hidden;
            // The signed body holds the text.
            if signature.is_some() {
                *signature = Some(Secret::Hidden);
            }
        }
        shown
    }
}
