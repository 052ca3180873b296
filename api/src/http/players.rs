//! A player's stream: one connection announcing, for every game where the player's key holds a
//! seat, what asks for the player — the game started, the seat awaited, an undo to vote on, the
//! game over — so that one bot plays many games at once. There are no accounts: the player
//! proves the key by signing a challenge the server signed (any server process on the database
//! checks it with the published keys). What it announces is public (a seat's key is in the
//! record); the signature keeps strangers from holding streams in a player's name.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix_web::{HttpRequest, HttpResponse, get, post, web};
use ed25519_dalek::{Signature, VerifyingKey};
use saboteur_domain::Seat;
use saboteur_storage::{GameStatus, Notice};
use serde::{Deserialize, Serialize};
use tokio::sync::{broadcast, mpsc};
use tokio_stream::wrappers::ReceiverStream;
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::app::ids::GameId;
use crate::app::seam;
use crate::app::signing::{self, verifying_key};
use crate::app::state::{AppState, stopping};
use crate::error::ApiError;
use crate::http::body::Json;
use crate::http::stream::read_again;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(ask_challenge).service(player_stream);
}

/// How long a challenge may be answered.
const CHALLENGE_SECONDS: i64 = 60;

/// The most games one player's stream follows (the oldest first).
const MOST_GAMES: u32 = 200;

/// How often a quiet stream sends a comment; every third one it also looks for new games.
const KEEP_ALIVE: Duration = Duration::from_secs(5);

/// A player's public key, asking for a challenge.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ChallengeRequest {
    /// The player's Ed25519 public key, 64 hex digits (as registered with its seats).
    #[schema(pattern = "^[0-9a-fA-F]{64}$")]
    pub public_key: String,
}

/// A challenge for a player's key, signed by the server.
#[derive(Debug, Serialize, ToSchema)]
pub struct PlayerChallenge {
    /// Send it back in `Player-Challenge`.
    pub challenge: String,
    /// The exact text to sign with the player's key (Ed25519, over its UTF-8 bytes), sent in
    /// `Player-Signature` as 128 hex digits: `saboteur-player-stream`, the public key and the
    /// challenge, on three lines.
    pub statement: String,
    /// Seconds the challenge may be answered in.
    pub expires_in: u32,
}

/// What a player's stream announces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PlayerNoticeKind {
    /// The game started (announced once; a game under way when the stream opens too).
    Started,
    /// The game awaits the seat's decision at `version`: read its legal moves and play
    /// (`If-Match` that version). Announced once per decision.
    YourTurn,
    /// Another seat asks to take back its move: the seat may approve or decline; `about` is the
    /// undo's event, what a signed vote names.
    UndoVote,
    /// The game is over.
    Ended,
    /// The host cancelled the game before its start.
    Cancelled,
}

/// One message of a player's stream (`data`; its `event` is the `kind`).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PlayerNotice {
    /// What asks for the player.
    pub kind: PlayerNoticeKind,
    /// The game.
    pub game_id: String,
    /// The seat the player's key holds there.
    pub seat: u8,
    /// The game's version when it was seen.
    pub version: i64,
    /// For `undo_vote`: the event of the undo request.
    #[schema(required = true)]
    pub about: Option<u64>,
}

/// The text a player signs for `challenge`.
fn statement(public_key: &str, challenge: &str) -> String {
    format!("saboteur-player-stream\n{public_key}\n{challenge}")
}

/// What the server signs in a challenge.
fn server_statement(public_key: &str, expires: i64, nonce: &str) -> Vec<u8> {
    format!("saboteur-player-challenge\n{public_key}\n{expires}\n{nonce}").into_bytes()
}

fn public_key_of(text: &str) -> Result<(String, VerifyingKey), ApiError> {
    let key = text.to_ascii_lowercase();
    verifying_key(&key).map(|v| (key, v)).ok_or_else(|| {
        ApiError::BadRequest("public_key is an Ed25519 public key, 64 hex digits".into())
    })
}

/// Ask for a challenge
///
/// A challenge for the player's key, to sign (`statement`) and send with
/// `GET /players/{public_key}/stream` within `expires_in` seconds.
#[utoipa::path(
    tag = "table",
    request_body = ChallengeRequest,
    responses(
        (status = 200, description = "The challenge", body = PlayerChallenge),
        (status = 400, description = "Not a public key", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 413, description = "The body is over 64 KiB (`too_large`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
    )
)]
#[post("/players/challenge")]
async fn ask_challenge(
    state: web::Data<AppState>,
    body: Json<ChallengeRequest>,
) -> Result<HttpResponse, ApiError> {
    let (key, _) = public_key_of(&body.public_key)?;
    let expires = chrono::Utc::now().timestamp() + CHALLENGE_SECONDS;
    let mut nonce = [0u8; 16];
    getrandom::fill(&mut nonce).map_err(|e| ApiError::Internal(format!("no randomness: {e}")))?;
    let nonce = hex::encode(nonce);
    let signature = state
        .signer
        .sign_bytes(&server_statement(&key, expires, &nonce));
    let challenge = format!("{expires}.{nonce}.{}.{signature}", state.signer.id());
    Ok(HttpResponse::Ok().json(PlayerChallenge {
        statement: statement(&key, &challenge),
        challenge,
        expires_in: u32::try_from(CHALLENGE_SECONDS).unwrap_or(60),
    }))
}

/// Checks the challenge the player answered and its signature with `key`.
async fn check_answer(
    state: &AppState,
    (key, public): (&str, &VerifyingKey),
    req: &HttpRequest,
) -> Result<(), ApiError> {
    let refused = |detail: String| signing::refused("bad_signature", detail);
    let header = |name: &str| req.headers().get(name).and_then(|v| v.to_str().ok());
    let (Some(challenge), Some(signature)) =
        (header("player-challenge"), header("player-signature"))
    else {
        return Err(signing::refused(
            "signature_required",
            "send Player-Challenge (from POST /players/challenge) and Player-Signature (the \
             key's signature of its statement)"
                .into(),
        ));
    };
    let parts: Vec<&str> = challenge.split('.').collect();
    let [expires, nonce, key_id, server_signature] = parts[..] else {
        return Err(refused(
            "Player-Challenge is not a challenge of this server".into(),
        ));
    };
    let expires: i64 = expires
        .parse()
        .map_err(|_| refused("Player-Challenge is not a challenge of this server".into()))?;
    if expires < chrono::Utc::now().timestamp() {
        return Err(refused(
            "the challenge expired: ask POST /players/challenge for another".into(),
        ));
    }
    let signed = server_statement(key, expires, nonce);
    let mine = [state.signer.published()];
    let known = if key_id == state.signer.id() {
        mine.to_vec()
    } else {
        crate::transparency::published_keys(&state.store).await?
    };
    saboteur_verifier::receipt::check_bytes(&known, key_id, &signed, server_signature).map_err(
        |e| {
            refused(format!(
                "the challenge is not this server's, or not for this key: {e}"
            ))
        },
    )?;
    let signature = hex::decode(signature)
        .ok()
        .and_then(|b| <[u8; 64]>::try_from(b).ok())
        .ok_or_else(|| refused("Player-Signature is 128 hex digits".into()))?;
    public
        .verify_strict(
            statement(key, challenge).as_bytes(),
            &Signature::from_bytes(&signature),
        )
        .map_err(|_| refused("Player-Signature is not the key's signature of the statement".into()))
}

/// Follow every game of a player's key
///
/// Server-Sent Events announcing, for every game not over where the key holds a seat (up to
/// 200, oldest first), what asks for the player: `started`, `your_turn` (the seat awaited at
/// `version`), `undo_vote`, `ended`, `cancelled`; each message's `event` is the notice's `kind`
/// and its `data` a `PlayerNotice`. On opening, the games' present state is announced (a seat
/// awaited, a vote wanted), so a client that lost the connection asks for a new challenge and
/// opens the stream again. Games whose seats the key takes later are found within 15 s (at
/// once when one of them changes). A comment every 5 s keeps the connection alive. The
/// response ends when the server stops (a rolling restart): open it again, on any process.
#[utoipa::path(
    tag = "table",
    params(
        ("public_key" = String, Path, description = "The player's Ed25519 public key, 64 hex digits"),
        ("Player-Challenge" = String, Header, description = "A challenge from `POST /players/challenge`, within its time"),
        ("Player-Signature" = String, Header, description = "The key's Ed25519 signature of the challenge's `statement`, 128 hex digits"),
    ),
    responses(
        (status = 200, description = "Server-Sent Events: `event` is the notice's kind, `data` a `PlayerNotice` as JSON; a comment line every 5 s", body = PlayerNotice, content_type = "text/event-stream"),
        (status = 400, description = "Not a public key", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 401, description = "No challenge or signature (`signature_required`), or one that proves nothing: expired, not this server's, not for this key, not the key's signature (`bad_signature`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 503, description = "Too many streams are open, or the database cannot be reached: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
    )
)]
#[get("/players/{public_key}/stream")]
async fn player_stream(
    state: web::Data<AppState>,
    edge: web::Data<crate::http::edge::Edge>,
    key: web::Path<String>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let (key, public) = public_key_of(&key)?;
    check_answer(&state, (&key, &public), &req).await?;
    let (permit, mine) = crate::http::stream::stream_permits(&state, &edge, &req)?;
    let notices = state.store.subscribe();
    let (tx, rx) = mpsc::channel(64);
    let watch = Watch {
        state: state.clone().into_inner(),
        key,
        games: BTreeMap::new(),
        said: HashMap::new(),
        looked: Instant::now(),
        // A few seconds back: another process's clock stamped the game's last change.
        opened: chrono::Utc::now() - chrono::Duration::seconds(5),
        done: Default::default(),
        unread: Unread::default(),
    };
    tokio::spawn(async move {
        let _held = (permit, mine);
        watch.feed(notices, tx).await;
    });
    Ok(HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header(("Cache-Control", "no-cache"))
        .streaming(ReceiverStream::new(rx)))
}

type Frames = mpsc::Sender<Result<web::Bytes, std::io::Error>>;

/// What a stream announced of one seat.
#[derive(Debug, Default)]
struct Said {
    started: bool,
    turn: Option<i64>,
    vote: Option<u64>,
}

/// One player's stream: its key, the seats it follows and what it announced of each.
struct Watch {
    state: Arc<AppState>,
    key: String,
    games: BTreeMap<GameId, Vec<Seat>>,
    said: HashMap<(GameId, Seat), Said>,
    /// When the key's games were last looked up.
    looked: Instant,
    /// When the stream opened: games that ended or were cancelled since are announced even
    /// when the stream had not found them yet.
    opened: chrono::DateTime<chrono::Utc>,
    /// The games announced as ended or cancelled: followed no more.
    done: std::collections::HashSet<GameId>,
    /// What could not be read (the database away, no connection free): read again soon.
    unread: Unread,
}

/// What a player's stream could not read, to read again after
/// [`read_again`](crate::http::stream::read_again)'s pause: the news it woke for is not left
/// unsent until the next change or the 15 s look.
#[derive(Debug, Default)]
struct Unread {
    /// The key's games could not be looked up.
    lookup: bool,
    /// Games whose table could not be read.
    games: std::collections::BTreeSet<GameId>,
    /// Rounds in a row that left something unread.
    failed: u32,
    /// When to read again.
    at: Option<tokio::time::Instant>,
}

impl Unread {
    fn any(&self) -> bool {
        self.lookup || !self.games.is_empty()
    }

    /// Sets the next reading after a round (or a first failure): none when all was read.
    fn schedule(&mut self) {
        if !self.any() {
            self.failed = 0;
            self.at = None;
        } else if self.at.is_none() {
            self.failed = self.failed.saturating_add(1);
            self.at = Some(tokio::time::Instant::now() + read_again(self.failed));
        }
    }
}

impl Watch {
    /// Looks up the key's games again; new ones are checked.
    async fn refresh(&mut self, tx: &Frames) -> Result<(), ()> {
        self.looked = Instant::now();
        // Games that ended since the last looks (a minute covers the 15 s between them): a
        // stream open for hours does not list every game it saw end.
        let since = self
            .opened
            .max(chrono::Utc::now() - chrono::Duration::seconds(60));
        let found = self
            .state
            .store
            .seats_of_key(&self.key, since, MOST_GAMES)
            .await;
        let Ok(seats) = found else {
            self.unread.lookup = true;
            return Ok(());
        };
        self.unread.lookup = false;
        let mut fresh = Vec::new();
        for (game, seat) in seats {
            if self.done.contains(&game) {
                continue;
            }
            let seats = self.games.entry(game.clone()).or_default();
            if !seats.contains(&seat) {
                seats.push(seat);
                fresh.push(game);
            }
        }
        fresh.dedup();
        for game in fresh {
            self.check(&game, tx).await?;
        }
        Ok(())
    }

    /// Announces what the game now asks of the key's seats; forgets a game once over.
    async fn check(&mut self, game: &GameId, tx: &Frames) -> Result<(), ()> {
        let Some(seats) = self.games.get(game).cloned() else {
            return Ok(());
        };
        let Ok(table) = seam::open(&self.state, game).await else {
            self.unread.games.insert(game.clone());
            return Ok(());
        };
        self.unread.games.remove(game);
        let status = if table.over() {
            GameStatus::Finished
        } else {
            table.record().status
        };
        let version = table.version().stored();
        let history = table.history();
        let mut notices = Vec::new();
        for seat in seats {
            // The key may have been changed for the seat since, or dropped with a new token:
            // once the game started, the record says which key the seat has.
            let holds = table.credentials().iter().any(|c| {
                c.seat == Some(seat) && c.public_key.as_deref() == Some(self.key.as_str())
            }) && (matches!(status, GameStatus::Lobby | GameStatus::Cancelled)
                || history.seat_key(seat) == Some(self.key.as_str()));
            if !holds {
                continue;
            }
            let said = self.said.entry((game.clone(), seat)).or_default();
            let notice = |kind, about| PlayerNotice {
                kind,
                game_id: game.to_string(),
                seat: seat.0,
                version,
                about,
            };
            match status {
                GameStatus::Lobby => {}
                GameStatus::Finished => notices.push(notice(PlayerNoticeKind::Ended, None)),
                GameStatus::Cancelled => notices.push(notice(PlayerNoticeKind::Cancelled, None)),
                GameStatus::Active => {
                    if !said.started {
                        said.started = true;
                        notices.push(notice(PlayerNoticeKind::Started, None));
                    }
                    let decision = table.decision_version().stored();
                    let awaited = history.game().awaited() == Some(seat);
                    if awaited && table.bot(seat).is_none() && said.turn != Some(decision) {
                        said.turn = Some(decision);
                        notices.push(PlayerNotice {
                            version: decision,
                            ..notice(PlayerNoticeKind::YourTurn, None)
                        });
                    }
                    let vote = history.pending_undo().filter(|u| {
                        u.seat != seat && !u.approvals.contains(&seat) && table.bot(seat).is_none()
                    });
                    if let Some(undo) = vote
                        && said.vote != Some(undo.event)
                    {
                        said.vote = Some(undo.event);
                        notices.push(notice(PlayerNoticeKind::UndoVote, Some(undo.event)));
                    }
                }
            }
        }
        drop(table);
        if matches!(status, GameStatus::Finished | GameStatus::Cancelled) {
            self.games.remove(game);
            self.said.retain(|(g, _), _| g != game);
            self.done.insert(game.clone());
        }
        for n in notices {
            let data = serde_json::to_string(&n).map_err(|_| ())?;
            let kind = serde_json::to_value(n.kind).map_err(|_| ())?;
            let frame = format!("event: {}\ndata: {data}\n\n", kind.as_str().unwrap_or(""));
            tx.send(Ok(web::Bytes::from(frame))).await.map_err(|_| ())?;
        }
        Ok(())
    }

    /// Looks up the key's games again (the new ones are checked) and checks every game it
    /// followed already; with `doubt`, their tables read the store again first (announcements
    /// were missed).
    async fn look_again(&mut self, tx: &Frames, doubt: bool) -> Result<(), ()> {
        let games: Vec<GameId> = self.games.keys().cloned().collect();
        if doubt {
            for g in &games {
                self.state.tables.doubt(g.as_str());
            }
        }
        self.refresh(tx).await?;
        for g in &games {
            self.check(g, tx).await?;
        }
        Ok(())
    }

    /// Reads again what could not be read; the next pause grows while reads keep failing.
    async fn read_unread(&mut self, tx: &Frames) -> Result<(), ()> {
        if self.unread.lookup {
            self.refresh(tx).await?;
        }
        let games: Vec<GameId> = self.unread.games.iter().cloned().collect();
        for g in &games {
            self.check(g, tx).await?;
        }
        self.unread.at = None;
        Ok(())
    }

    /// Feeds the stream until its client goes away.
    async fn feed(mut self, mut notices: broadcast::Receiver<Notice>, tx: Frames) {
        if self.refresh(&tx).await.is_err() {
            return;
        }
        let mut quiet = 0u32;
        let mut closing = self.state.closing.clone();
        loop {
            let result = tokio::select! {
                _ = tx.closed() => return,
                // The server is stopping: the client reconnects to one that goes on.
                () = stopping(&mut closing) => return,
                note = notices.recv() => match note {
                    Ok(Notice::Appended(a)) => {
                        self.state.tables.heard(&a.game_id, a.last_seq);
                        if self.games.contains_key(&a.game_id) {
                            self.check(&a.game_id, &tx).await
                        } else if self.looked.elapsed() >= Duration::from_secs(1) {
                            // Perhaps a game the key took a seat in since: look (at most once
                            // a second).
                            self.refresh(&tx).await
                        } else {
                            Ok(())
                        }
                    }
                    // Announcements were missed: every game may have moved.
                    Ok(Notice::Resync) | Err(broadcast::error::RecvError::Lagged(_)) => {
                        self.look_again(&tx, true).await
                    }
                    Err(broadcast::error::RecvError::Closed) => return,
                },
                _ = tokio::time::sleep(KEEP_ALIVE) => {
                    if tx.send(Ok(web::Bytes::from_static(b": keep-alive\n\n"))).await.is_err() {
                        return;
                    }
                    quiet += 1;
                    if quiet.is_multiple_of(3) {
                        self.look_again(&tx, false).await
                    } else {
                        Ok(())
                    }
                }
                () = tokio::time::sleep_until(self.unread.at.unwrap_or_else(tokio::time::Instant::now)),
                    if self.unread.at.is_some() => self.read_unread(&tx).await,
            };
            self.unread.schedule();
            if result.is_err() {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::time::Instant;

    /// Asserts that `schedule` sets a reading `pause` from the call.
    fn assert_scheduled(unread: &mut Unread, pause: Duration) {
        let before = Instant::now();
        unread.schedule();
        let after = Instant::now();
        let at = unread.at.expect("a reading scheduled");
        assert!(
            at >= before + pause && at <= after + pause,
            "not {pause:?} from the call"
        );
    }

    #[test]
    fn what_could_not_be_read_is_read_again_soon_then_less_often() {
        let mut unread = Unread::default();
        unread.schedule();
        assert_eq!(unread.at, None, "nothing unread, nothing to read again");
        let game = GameId::new();
        unread.games.insert(game.clone());
        let pauses = [250, 500, 1000, 2000, 4000, 5000, 5000, 5000];
        for ms in pauses {
            assert_scheduled(&mut unread, Duration::from_millis(ms));
            // A second failure before the reading does not put it off.
            let at = unread.at;
            unread.lookup = true;
            unread.schedule();
            assert_eq!(unread.at, at);
            // The round ran and failed again.
            unread.at = None;
        }
        unread.games.remove(&game);
        unread.lookup = false;
        unread.schedule();
        assert_eq!(
            (unread.failed, unread.at),
            (0, None),
            "all read: back to quiet"
        );
        unread.games.insert(game);
        // A new failure starts over.
        assert_scheduled(&mut unread, Duration::from_millis(250));
    }
}
