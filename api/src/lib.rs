//! Saboteur Server's HTTP API: REST over the engine and the event store.
//!
//! This file is wiring: the configuration, the shared state, the routes and the server. A
//! request on a game opens the game's [`table::Table`] through [`tables::Tables`] (serialising
//! requests on one game in this process, following appends made by others), decides with the
//! engine, and writes through the one command cycle, [`table::Table::commit`]; across
//! processes the store's expected version decides (a lost race is 409). Bots are played by
//! [`bots`], after each commit and by a sweep that survives errors and restarts.

#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::panic
    )
)]

pub mod audit;
mod auth;
mod body;
mod bots;
mod catalogue;
pub mod clock;
pub mod dto;
pub mod error;
mod games;
mod limits;
mod metrics;
mod online;
mod ops;
mod play;
pub mod receipt;
mod reply;
mod series;
mod stream;
mod table;
mod tables;
mod text;
pub mod transparency;
mod undo;
mod verdict;
mod webclient;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use actix_web::dev::Server;
use actix_web::{App, HttpServer, web};
use saboteur_storage::{Credential, EventStore, Notice, Role};
use utoipa::OpenApi;
use utoipa_actix_web::AppExt;

use crate::error::ApiError;

pub use crate::clock::TimeSource;
pub use crate::limits::{DEFAULT_BODY_TIMEOUT, DEFAULT_MAX_STREAMS};
pub use crate::table::RECHECK_AFTER;
pub use crate::tables::DEFAULT_CACHE_BYTES;

/// How the server runs.
#[derive(Debug, Clone)]
pub struct Config {
    /// Where to listen, e.g. `127.0.0.1:8080` (port 0 picks a free one).
    pub bind: String,
    /// `sqlite://path` or `postgres://…`.
    pub database_url: String,
    /// Accept a fixed seed at game creation (testing only).
    pub allow_fixed_seed: bool,
    /// The budget of the games held in memory, in bytes.
    pub cache_bytes: usize,
    /// The most event streams open at once in this process; beyond, 503.
    pub max_streams: usize,
    /// The longest a request body may take to arrive.
    pub body_timeout: Duration,
    /// Where the server reads the time (turn clocks, table talk): the system clock, or a
    /// manual one in tests.
    pub time: TimeSource,
    /// A file holding the signing key (64 hex digits; created when missing) instead of the
    /// key the store keeps.
    pub signing_key_file: Option<std::path::PathBuf>,
}

impl Config {
    /// The defaults for a server listening on `bind` with the store at `database_url`.
    pub fn new(bind: impl Into<String>, database_url: impl Into<String>) -> Config {
        Config {
            bind: bind.into(),
            database_url: database_url.into(),
            allow_fixed_seed: false,
            cache_bytes: DEFAULT_CACHE_BYTES,
            max_streams: limits::DEFAULT_MAX_STREAMS,
            body_timeout: limits::DEFAULT_BODY_TIMEOUT,
            time: TimeSource::system(),
            signing_key_file: None,
        }
    }
}

/// The level of the bot holding a seat's credential, if a bot holds it.
pub(crate) fn bot_level(c: &Credential) -> Option<saboteur_domain::BotLevel> {
    match c.role {
        Role::Bot(level) => Some(level),
        Role::Host | Role::Player | Role::Reserved => None,
    }
}

/// Shared by every request.
pub(crate) struct AppState {
    pub store: EventStore,
    pub config: Config,
    pub metrics: metrics::Metrics,
    pub tables: Arc<tables::Tables>,
    pub streams: limits::Gauge,
    pub presence: Arc<online::Presence>,
    /// The key receipts and log checkpoints are signed with.
    pub signer: receipt::Signer,
}

impl AppState {
    /// Follows the store's announcements for as long as the store lives: each tells the tables
    /// which game moved on; a lost stretch makes every table check the store.
    fn follow_store(self: &Arc<Self>) {
        let mut notices = self.store.subscribe();
        let tables = self.tables.clone();
        tokio::spawn(async move {
            use tokio::sync::broadcast::error::RecvError;
            loop {
                match notices.recv().await {
                    Ok(Notice::Appended(a)) => tables.heard(&a.game_id, a.last_seq),
                    Ok(Notice::Resync) | Err(RecvError::Lagged(_)) => {
                        tables.heard_nothing_for_sure()
                    }
                    Err(RecvError::Closed) => return,
                }
            }
        });
    }
}

fn json_error(err: impl std::fmt::Display) -> actix_web::Error {
    ApiError::BadRequest(err.to_string()).into()
}

/// Every documented route.
fn routes(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    games::configure(cfg);
    play::configure(cfg);
    undo::configure(cfg);
    online::configure(cfg);
    series::configure(cfg);
    audit::configure(cfg);
    stream::configure(cfg);
    ops::configure(cfg);
    catalogue::configure(cfg);
    verdict::configure(cfg);
    transparency::configure(cfg);
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
        .wrap_fn(limits::problem_for_every_error)
        .wrap(actix_web::middleware::DefaultHeaders::new().add((
            saboteur_openapi::API_VERSION_HEADER,
            saboteur_openapi::API_VERSION,
        )))
        .app_data(state)
        .app_data(web::QueryConfig::default().error_handler(|e, _| json_error(e)))
        .app_data(web::PathConfig::default().error_handler(|e, _| json_error(e)))
        .into_utoipa_app()
        .openapi(saboteur_openapi::ApiDoc::openapi())
        .configure(routes)
        .split_for_parts();
    let spec = finish(api);
    let methods = Arc::new(limits::Methods::of(&spec));
    app.configure(webclient::configure)
        .service(ops::openapi_json(spec.clone()))
        .service(web::redirect("/docs", "/docs/"))
        .service(utoipa_swagger_ui::SwaggerUi::new("/docs/{_:.*}").url("/openapi.json", spec))
        .default_service(web::to(move |req: actix_web::HttpRequest| {
            let allowed = methods.allowed(req.path());
            async move {
                Err::<actix_web::HttpResponse, _>(match allowed {
                    Some(allow) => ApiError::MethodNotAllowed(allow),
                    None => ApiError::NotFound("no such endpoint: see /docs/".into()),
                })
            }
        }))
}

/// The OpenAPI specification of the API, as served at `/openapi.json`.
pub fn spec() -> utoipa::openapi::OpenApi {
    let (_, api) = App::new()
        .into_utoipa_app()
        .openapi(saboteur_openapi::ApiDoc::openapi())
        .configure(routes)
        .split_for_parts();
    finish(api)
}

/// The spec as clients generate from it: versioned, every schema titled, the problem codes
/// listed (`saboteur_openapi::finish`).
fn finish(api: utoipa::openapi::OpenApi) -> utoipa::openapi::OpenApi {
    let codes: Vec<&str> = saboteur_domain::Violation::ALL
        .iter()
        .map(|v| v.code())
        .chain(error::API_CODES.iter().copied())
        .collect();
    saboteur_openapi::finish(api, &codes)
}

/// Connects the store (applying migrations), binds and returns the running server with the
/// address it listens on. Shuts down gracefully on SIGINT/SIGTERM.
pub async fn start(config: Config) -> std::io::Result<(Server, SocketAddr)> {
    let store = EventStore::connect(&config.database_url)
        .await
        .map_err(|e| std::io::Error::other(format!("cannot open the store: {e}")))?;
    let signer = signing_key(&store, config.signing_key_file.as_deref()).await?;
    let state = Arc::new(AppState {
        tables: Arc::new(tables::Tables::new(
            store.clone(),
            config.cache_bytes,
            config.time.clone(),
        )),
        store,
        config: config.clone(),
        metrics: metrics::Metrics::new()
            .map_err(|e| std::io::Error::other(format!("cannot set up the metrics: {e}")))?,
        streams: limits::Gauge::default(),
        presence: Arc::default(),
        signer,
    });
    state.follow_store();
    bots::Driver::spawn(state.clone());
    let state = web::Data::from(state);
    let server = HttpServer::new(move || app(state.clone()))
        .client_request_timeout(config.body_timeout)
        .bind(&config.bind)?;
    let addr = server
        .addrs()
        .first()
        .copied()
        .ok_or_else(|| std::io::Error::other("the server listens nowhere"))?;
    Ok((server.shutdown_timeout(10).run(), addr))
}

/// The key this process signs with: the file's when one is given (recorded as the active key
/// if it is not), otherwise the store's active key, made on the first start. Processes
/// starting together on one database end up with one key: the store decides.
pub async fn signing_key(
    store: &EventStore,
    file: Option<&std::path::Path>,
) -> std::io::Result<receipt::Signer> {
    let err = |e: saboteur_storage::StoreError| {
        std::io::Error::other(format!("cannot read the signing keys: {e}"))
    };
    match file {
        Some(path) => {
            let signer = receipt::Signer::from_file(path)?;
            let active = store.active_server_key().await.map_err(err)?;
            if active.map(|k| k.id).as_deref() != Some(signer.id()) {
                store
                    .rotate_server_key(signer.new_key(false))
                    .await
                    .map_err(err)?;
            }
            Ok(signer)
        }
        None => {
            let candidate = receipt::Signer::generate()?;
            let key = store
                .ensure_server_key(candidate.new_key(true))
                .await
                .map_err(err)?;
            receipt::Signer::from_stored(&key)
        }
    }
}

/// Retires the active signing key and makes a new one (kept by the store); the old keys stay
/// published. Running servers sign with the key they started with until they restart.
pub async fn rotate_signing_key(store: &EventStore) -> std::io::Result<receipt::PublishedKey> {
    let signer = receipt::Signer::generate()?;
    let key = store
        .rotate_server_key(signer.new_key(true))
        .await
        .map_err(|e| std::io::Error::other(format!("cannot rotate the signing key: {e}")))?;
    Ok(receipt::PublishedKey::from(&key))
}
