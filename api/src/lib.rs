//! Saboteur Server's HTTP API: REST over the engine and the event store.
//!
//! Every game has an in-memory entry (its history and credentials) behind an async mutex:
//! commands on one game are serialised in this process, and across processes the store's
//! expected version decides (a lost race is 409). A command costs one append.

pub mod audit;
pub mod dto;
pub mod error;
mod games;
mod metrics;
mod ops;
mod play;
mod stream;
mod undo;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex as StdMutex};

use actix_web::dev::Server;
use actix_web::{App, HttpRequest, HttpServer, web};
use saboteur_domain::{Audience, Event, History, Seat};
use saboteur_storage::{Credential, EventStore, GameRecord};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use tokio::sync::Mutex;
use utoipa::OpenApi;
use utoipa_actix_web::AppExt;

use crate::error::ApiError;

/// How the server runs.
#[derive(Debug, Clone)]
pub struct Config {
    /// Where to listen, e.g. `127.0.0.1:8080` (port 0 picks a free one).
    pub bind: String,
    /// `sqlite://path` or `postgres://…`.
    pub database_url: String,
    /// Accept a fixed seed at game creation (testing only).
    pub allow_fixed_seed: bool,
}

/// A game held in memory: its log folded through the engine, and who may act.
pub(crate) struct Entry {
    pub record: GameRecord,
    pub history: History,
    pub last_hash: String,
    pub credentials: Vec<Credential>,
}

impl Entry {
    pub fn version(&self) -> i64 {
        self.history.version() as i64
    }

    pub fn players(&self) -> u8 {
        self.history.game().players
    }

    /// The bot playing `seat`, if a bot holds it.
    pub fn bot(&self, seat: Seat) -> Option<saboteur_domain::BotLevel> {
        self.credentials
            .iter()
            .find(|c| c.seat == Some(i32::from(seat.0)))
            .and_then(bot_level)
    }
}

/// The credential role of a bot seat: `bot:<level>`.
pub(crate) fn bot_role(level: saboteur_domain::BotLevel) -> String {
    format!("bot:{level}")
}

/// The level of a bot seat's credential.
pub(crate) fn bot_level(c: &Credential) -> Option<saboteur_domain::BotLevel> {
    c.role.strip_prefix("bot:")?.parse().ok()
}

/// Shared by every request.
pub(crate) struct AppState {
    pub store: EventStore,
    pub config: Config,
    pub metrics: metrics::Metrics,
    games: StdMutex<HashMap<String, Arc<Mutex<Entry>>>>,
}

/// The most games kept in memory; beyond it, an arbitrary idle one is dropped and reloaded
/// from the store when needed.
const CACHE_LIMIT: usize = 10_000;

impl AppState {
    /// The game's entry, loaded from the store on first use.
    pub async fn entry(&self, id: &str) -> Result<Arc<Mutex<Entry>>, ApiError> {
        if uuid::Uuid::parse_str(id).is_err() {
            return Err(ApiError::NotFound(format!(
                "no game {id:?}: game ids are UUIDs"
            )));
        }
        if let Some(e) = self.games.lock().expect("cache lock").get(id) {
            return Ok(e.clone());
        }
        let entry = self.cache(id, Arc::new(Mutex::new(self.load(id).await?)));
        // A game read back from the store may be waiting on a bot whose move was never
        // recorded (the server stopped, or lost a race, between two appends): play it now.
        {
            let mut e = entry.lock().await;
            if e.record.status == "active" {
                play::play_bots(self, &mut e).await;
            }
        }
        Ok(entry)
    }

    /// Keeps a loaded entry, unless another request cached the game first (then that one).
    fn cache(&self, id: &str, entry: Arc<Mutex<Entry>>) -> Arc<Mutex<Entry>> {
        let mut games = self.games.lock().expect("cache lock");
        if games.len() >= CACHE_LIMIT
            && let Some(victim) = games
                .iter()
                .find(|(_, e)| Arc::strong_count(e) == 1)
                .map(|(k, _)| k.clone())
        {
            games.remove(&victim);
        }
        games.entry(id.to_string()).or_insert(entry).clone()
    }

    /// Reads a game back from the store.
    pub async fn load(&self, id: &str) -> Result<Entry, ApiError> {
        let record = self.store.get_game(id).await?;
        let history = self.store.load_history(id).await?;
        let credentials = self.store.credentials(id).await?;
        Ok(Entry {
            last_hash: record.last_hash.clone(),
            record,
            history,
            credentials,
        })
    }

    /// Drops a cached game (after a lost race, so the next request reloads it).
    pub fn forget(&self, id: &str) {
        self.games.lock().expect("cache lock").remove(id);
    }
}

/// Who is calling, as far as one game is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Caller {
    /// No token.
    Anonymous,
    /// The host's token.
    Host,
    /// A player's token.
    Player(Seat),
}

impl Caller {
    /// The caller's seat: only a player's token acts for a seat.
    pub fn seat(self) -> Result<Seat, ApiError> {
        match self {
            Caller::Player(s) => Ok(s),
            Caller::Host => Err(ApiError::Forbidden(
                "the host is not a player: use a player's token".into(),
            )),
            Caller::Anonymous => Err(ApiError::Unauthorized("a player's token is needed".into())),
        }
    }

    /// Only the host's token may `what`.
    pub fn host(self, what: &str) -> Result<(), ApiError> {
        match self {
            Caller::Host => Ok(()),
            Caller::Anonymous => Err(ApiError::Unauthorized("the host's token is needed".into())),
            Caller::Player(_) => Err(ApiError::Forbidden(format!("only the host {what}"))),
        }
    }

    pub fn audience(self) -> Audience {
        match self {
            Caller::Player(s) => Audience::Seat(s),
            _ => Audience::Spectator,
        }
    }
}

/// Hex SHA-256 of a token: what the store keeps.
pub(crate) fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// A fresh 256-bit bearer token, as 64 hex digits.
pub(crate) fn new_token() -> Result<String, ApiError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| ApiError::Internal(format!("no randomness: {e}")))?;
    Ok(hex::encode(bytes))
}

/// The caller of a request on a game: the bearer token is hashed and compared in constant
/// time with the game's credentials. A token that is not the game's is refused (401).
pub(crate) fn caller(req: &HttpRequest, entry: &Entry) -> Result<Caller, ApiError> {
    let Some(header) = req.headers().get("authorization") else {
        return Ok(Caller::Anonymous);
    };
    let token = header
        .to_str()
        .ok()
        .and_then(|h| h.strip_prefix("Bearer "))
        .ok_or_else(|| ApiError::Unauthorized("use `Authorization: Bearer <token>`".into()))?;
    let hash = token_hash(token.trim());
    let mut found = None;
    for c in &entry.credentials {
        if bool::from(c.token_hash.as_bytes().ct_eq(hash.as_bytes())) {
            found = Some(c);
        }
    }
    match found {
        Some(c) if c.role == "host" => Ok(Caller::Host),
        Some(c) => Ok(Caller::Player(Seat(c.seat.unwrap_or_default() as u8))),
        None => Err(ApiError::Unauthorized(
            "this token does not belong to this game".into(),
        )),
    }
}

/// Events as the caller may see them, numbered.
pub(crate) fn redacted(
    events: &[Event],
    first_seq: i64,
    audience: Audience,
    game_over: bool,
) -> Vec<dto::EventRecord> {
    events
        .iter()
        .enumerate()
        .map(|(i, e)| dto::EventRecord {
            seq: first_seq + i as i64,
            event: saboteur_domain::redact(e, audience, game_over),
        })
        .collect()
}

fn json_error(err: impl std::fmt::Display) -> actix_web::Error {
    ApiError::BadRequest(err.to_string()).into()
}

/// Every documented route.
fn routes(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    games::configure(cfg);
    play::configure(cfg);
    undo::configure(cfg);
    audit::configure(cfg);
    stream::configure(cfg);
    ops::configure(cfg);
}

/// The whole application: routes, extractor limits and errors, the spec and the docs page.
fn app(
    state: web::Data<AppState>,
) -> App<
    impl actix_web::dev::ServiceFactory<
        actix_web::dev::ServiceRequest,
        Config = (),
        Response = actix_web::dev::ServiceResponse<impl actix_web::body::MessageBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    let measured = state.clone();
    let (app, api) = App::new()
        .wrap_fn(move |req, srv| {
            let started = std::time::Instant::now();
            let method = req.method().to_string();
            let metrics = measured.clone();
            let call = actix_web::dev::Service::call(srv, req);
            async move {
                let res = call.await?;
                let route = res
                    .request()
                    .match_pattern()
                    .unwrap_or_else(|| "unmatched".into());
                metrics.metrics.observe(
                    &route,
                    &method,
                    res.status().as_u16(),
                    started.elapsed().as_secs_f64(),
                );
                Ok(res)
            }
        })
        .app_data(state)
        .app_data(
            web::JsonConfig::default()
                .limit(64 * 1024)
                .error_handler(|e, _| json_error(e)),
        )
        .app_data(web::QueryConfig::default().error_handler(|e, _| json_error(e)))
        .app_data(web::PathConfig::default().error_handler(|e, _| json_error(e)))
        .into_utoipa_app()
        .openapi(saboteur_openapi::ApiDoc::openapi())
        .configure(routes)
        .split_for_parts();
    let spec = api.clone();
    app.service(ops::openapi_json(spec.clone()))
        .service(web::redirect("/docs", "/docs/"))
        .service(utoipa_swagger_ui::SwaggerUi::new("/docs/{_:.*}").url("/openapi.json", spec))
        .default_service(web::to(|| async {
            Err::<actix_web::HttpResponse, _>(ApiError::NotFound(
                "no such endpoint: see /docs/".into(),
            ))
        }))
}

/// The OpenAPI specification of the API, as served at `/openapi.json`.
pub fn spec() -> utoipa::openapi::OpenApi {
    let (_, api) = App::new()
        .into_utoipa_app()
        .openapi(saboteur_openapi::ApiDoc::openapi())
        .configure(routes)
        .split_for_parts();
    api
}

/// Connects the store (applying migrations), binds and returns the running server with the
/// address it listens on. Shuts down gracefully on SIGINT/SIGTERM.
pub async fn start(config: Config) -> std::io::Result<(Server, SocketAddr)> {
    let store = EventStore::connect(&config.database_url)
        .await
        .map_err(|e| std::io::Error::other(format!("cannot open the store: {e}")))?;
    let state = web::Data::new(AppState {
        store,
        config: config.clone(),
        metrics: metrics::Metrics::new(),
        games: StdMutex::new(HashMap::new()),
    });
    let server = HttpServer::new(move || app(state.clone())).bind(&config.bind)?;
    let addr = server.addrs()[0];
    Ok((server.shutdown_timeout(10).run(), addr))
}
