//! A table's seats: who calls with a token, who holds a seat, and the lobby's writes of seats
//! and keys (each through the store, kept in the table once the store took it).

use saboteur_domain::Seat;
use saboteur_storage::{
    Credential, EventStore, GameStatus, LobbyAt, ReadStore, SeatTaker, StoreError,
};

use super::Table;
use crate::app::auth::{Caller, identify};
use crate::error::{ApiError, Conflict};

/// What a lobby write asks of the lobby: to be at the version its act was signed at, if it
/// was, and open when `open`.
fn signed_in_lobby(signed_at: Option<u64>, open: bool) -> LobbyAt {
    LobbyAt {
        version: signed_at.map(|v| i64::try_from(v).unwrap_or(i64::MAX)),
        open,
    }
}

impl Table {
    /// Who is calling with `token`. A token this table does not know is looked up once more
    /// in the store (it may have been issued through another process) before it is refused
    /// (401).
    pub(in crate::app) async fn caller(
        &mut self,
        store: &ReadStore,
        token: Option<&str>,
    ) -> Result<Caller, ApiError> {
        let Some(token) = token else {
            return Ok(Caller::Anonymous);
        };
        if let Some(who) = identify(token, &self.credentials) {
            return Ok(who);
        }
        self.reload_credentials(store).await?;
        identify(token, &self.credentials)
            .ok_or_else(|| ApiError::Unauthorized("this token does not belong to this game".into()))
    }

    /// Reads the game's credentials again from the store (a seat was taken or claimed through
    /// another process, or a write here was refused by the store), and in the lobby whether it
    /// was closed for the committed shares (through another process too).
    pub(in crate::app) async fn reload_credentials(
        &mut self,
        store: &ReadStore,
    ) -> Result<(), ApiError> {
        self.credentials = store.credentials(&self.id).await?;
        if self.record.status == GameStatus::Lobby {
            let game = store.get_game(&self.id).await?;
            self.record.reveal_by = game.reveal_by;
            self.record.lobby_version = game.lobby_version;
        }
        Ok(())
    }

    /// Why the store refused a lobby write made as `at` asked, read again from the store: 409
    /// once the game left the lobby, or was closed for the committed shares (a write only to an
    /// open lobby); 412 when a signed act names a lobby version that no longer holds.
    async fn lobby_moved(&mut self, store: &ReadStore, at: LobbyAt) -> ApiError {
        let game = match store.get_game(&self.id).await {
            Ok(game) => game,
            Err(e) => return e.into(),
        };
        if let Err(e) = self.reload_credentials(store).await {
            return e;
        }
        if game.status != GameStatus::Lobby {
            ApiError::Conflict(Conflict::Started, "the game is no longer a lobby".into())
        } else if at.open && game.reveal_by.is_some() {
            ApiError::Conflict(
                Conflict::LobbyClosed,
                "the host closed the lobby for the players' shares: no seat is taken or given \
                 back until the start"
                    .into(),
            )
        } else {
            ApiError::PreconditionFailed(format!(
                "the act was signed at lobby version {}; the lobby is at {} now (the game's \
                 `lobby_version`): read the game and sign again",
                at.version.unwrap_or_default(),
                game.lobby_version
            ))
        }
    }

    /// A lobby write's outcome: why the store refused it, if it did.
    async fn lobby_written(
        &mut self,
        store: &EventStore,
        at: LobbyAt,
        written: Result<(), StoreError>,
    ) -> Result<(), ApiError> {
        match written {
            Ok(()) => Ok(()),
            Err(StoreError::LobbyChanged) => Err(self.lobby_moved(&store.reader(), at).await),
            Err(e) => Err(e.into()),
        }
    }

    /// Closes the lobby for the committed shares, due by `reveal_by` (milliseconds since the
    /// Unix epoch); closed already through another process, it keeps that one's time.
    pub(in crate::app) async fn close(
        &mut self,
        store: &EventStore,
        reveal_by: i64,
    ) -> Result<(), ApiError> {
        store.close_lobby(&self.id, reveal_by).await?;
        self.reload_credentials(&store.reader()).await?;
        if self.record.reveal_by.is_none() {
            return Err(ApiError::Conflict(
                crate::error::Conflict::Started,
                "the game is no longer a lobby".into(),
            ));
        }
        Ok(())
    }

    /// Stores the share `seat` revealed (checked against its commitment by the caller).
    pub(in crate::app) async fn reveal(
        &mut self,
        store: &EventStore,
        seat: Seat,
        entropy: &str,
    ) -> Result<(), ApiError> {
        let stored = store.reveal_share(&self.id, seat, entropy).await;
        match stored {
            // Revealed meanwhile through another process (the commitment binds one share).
            Err(StoreError::NotFound) => self.reload_credentials(&store.reader()).await,
            stored => {
                self.lobby_written(store, LobbyAt::default(), stored)
                    .await?;
                self.reload_credentials(&store.reader()).await
            }
        }
    }

    /// Whether `token_hash` still holds `seat` (a stream checks this before each event it
    /// sends: a token issued again ends the old token's streams).
    pub fn holds(&self, seat: Seat, token_hash: &str) -> bool {
        self.credentials
            .iter()
            .any(|c| c.seat == Some(seat) && c.token_hash.as_deref() == Some(token_hash))
    }

    /// The credential holding `seat`, if anyone holds it.
    pub fn holder(&self, seat: Seat) -> Option<&Credential> {
        self.credentials.iter().find(|c| c.seat == Some(seat))
    }

    /// Stores a seat's credential and keeps it, with the client that took it (`taker`, counted
    /// against its join limit in the seat's transaction: 429 past it, with the wait until one
    /// more is allowed); when another process seated someone there first, the table reads the
    /// seats again and the caller gets 409.
    pub(in crate::app) async fn seat(
        &mut self,
        store: &EventStore,
        credential: Credential,
        taker: Option<SeatTaker<'_>>,
    ) -> Result<(), ApiError> {
        match store.add_credential_by(&credential, taker).await {
            Err(StoreError::OverLimit) => {
                let now = chrono::Utc::now();
                let wait = match taker.and_then(|t| Some((t.client, t.at_most?))) {
                    Some((client, limit)) => {
                        crate::app::joins::wait(&store.reader(), client, limit, now).await
                    }
                    None => None,
                };
                Err(ApiError::TooManyRequests {
                    detail: "this client took as many seats as its join limit allows, through \
                             this service's processes: try again after Retry-After"
                        .into(),
                    retry_after: wait.map_or(1, |w| w.as_secs_f64().ceil().max(1.0) as u64),
                })
            }
            Ok(()) => {
                // Kept as written (the lobby's version is read again before the next answer):
                // no read between the seat taken and its reply.
                self.credentials.push(credential);
                Ok(())
            }
            Err(StoreError::LobbyChanged) => {
                Err(self.lobby_moved(&store.reader(), LobbyAt::OPEN).await)
            }
            Err(StoreError::Exists) => {
                self.reload_credentials(&store.reader()).await?;
                Err(ApiError::Conflict(
                    Conflict::SeatTaken,
                    "that seat was just taken: try again".into(),
                ))
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Records the public key of `seat`'s player before the start; `signed_at`: the lobby
    /// version the act was signed at, if it was (written only while the lobby is at it).
    pub(in crate::app) async fn set_key(
        &mut self,
        store: &EventStore,
        seat: Seat,
        key: &crate::app::act::SentKey,
        signed_at: Option<u64>,
    ) -> Result<(), ApiError> {
        let at = signed_in_lobby(signed_at, false);
        let written = store
            .set_public_key(&self.id, seat, (&key.key, key.proof.as_deref()), at)
            .await;
        self.lobby_written(store, at, written).await?;
        self.reload_credentials(&store.reader()).await
    }

    /// Names `seat`'s player anew before the start (`signed_at` as [`Table::set_key`]'s).
    pub(in crate::app) async fn rename(
        &mut self,
        store: &EventStore,
        seat: Seat,
        name: &str,
        signed_at: Option<u64>,
    ) -> Result<(), ApiError> {
        let at = signed_in_lobby(signed_at, false);
        let written = store.rename_seat(&self.id, seat, name, at).await;
        self.lobby_written(store, at, written).await?;
        self.reload_credentials(&store.reader()).await
    }

    /// Moves `from`'s player (with the token this table knows for it) to the free seat `to`
    /// before the start, while the lobby is open (`signed_at` as [`Table::set_key`]'s): 400
    /// for a seat the game does not have, 409 `seat_taken` for one held, as this table or the
    /// store knows it.
    pub(in crate::app) async fn sit(
        &mut self,
        store: &EventStore,
        (from, to): (Seat, Seat),
        signed_at: Option<u64>,
    ) -> Result<(), ApiError> {
        if to.0 >= self.players() {
            return Err(ApiError::BadRequest(format!(
                "the game has seats 0 to {}",
                self.players().saturating_sub(1)
            )));
        }
        if from == to {
            return Err(ApiError::BadRequest(format!(
                "{from} is the seat moved from"
            )));
        }
        let taken = || {
            ApiError::Conflict(
                crate::error::Conflict::SeatTaken,
                format!("seat {} is taken", to.0),
            )
        };
        if self.holder(to).is_some() {
            return Err(taken());
        }
        let Some(token) = self.holder(from).and_then(|c| c.token_hash.clone()) else {
            return Err(ApiError::NotFound(format!("no player holds {from}")));
        };
        let at = signed_in_lobby(signed_at, true);
        let written = store.move_seat(&self.id, (from, to), &token, at).await;
        let moved = self.lobby_written(store, at, written).await;
        self.reload_credentials(&store.reader()).await?;
        match moved {
            // Taken through another process since this table read its seats.
            Err(ApiError::NotFound(_)) if self.holder(to).is_some() => Err(taken()),
            moved => moved,
        }
    }

    /// Gives `seat` back before the start, while the lobby is open: its credential is removed
    /// (`signed_at` as [`Table::set_key`]'s).
    pub(in crate::app) async fn unseat(
        &mut self,
        store: &EventStore,
        seat: Seat,
        signed_at: Option<u64>,
    ) -> Result<(), ApiError> {
        if self.holder(seat).is_none() {
            return Err(ApiError::NotFound("that seat is free".into()));
        }
        let at = signed_in_lobby(signed_at, true);
        let written = store.remove_seat(&self.id, seat, at).await;
        self.lobby_written(store, at, written).await?;
        self.credentials.retain(|c| c.seat != Some(seat));
        Ok(())
    }

    /// The game as listed (its winners, once finished, as the game holds them).
    pub fn summary(&self) -> crate::dto::GameSummary {
        let winners = self
            .history()
            .game()
            .winners()
            .iter()
            .map(|s| s.0)
            .collect();
        crate::dto::summary(&self.record, &self.credentials, Some(winners))
    }
}
