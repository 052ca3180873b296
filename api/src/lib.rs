//! Saboteur Server's HTTP API: REST over the engine and the event store.
//!
//! This file is wiring: the modules, the routes and the server. Handlers (`http/`) parse a
//! request and hand it to the application layer (`app/`), where every act that writes a game
//! goes through one seam, `app::seam::act`; across processes the store's expected version
//! decides (a lost race is 409). The shared state and the configuration are the application's (`app/state.rs`,
//! `app/config.rs`).

#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::panic
    )
)]

mod app;
pub mod audit;
pub mod dto;
pub mod error;
mod http;
mod kept;
mod metrics;
pub mod receipt;
mod signing;
pub mod transparency;

use std::net::SocketAddr;
use std::sync::Arc;

use actix_web::dev::Server;
use actix_web::{App, HttpServer, web};
use saboteur_storage::EventStore;
use utoipa::OpenApi;
use utoipa_actix_web::AppExt;

use crate::app::state::AppState;
use crate::error::ApiError;

pub use crate::app::clock::TimeSource;
pub use crate::app::config::Config;
pub use crate::app::config::{DEFAULT_BODY_TIMEOUT, DEFAULT_MAX_STREAMS, Limits, Rate};
pub use crate::app::presence::{BEAT as PRESENCE_BEAT, EXPIRY as PRESENCE_EXPIRY};
pub use crate::app::table::RECHECK_AFTER;
pub use crate::app::tables::DEFAULT_CACHE_BYTES;
pub use crate::app::thinkers::default_threads as default_thinker_threads;
pub use crate::app::thinkers::lower_this_thread;
pub use crate::signing::{rotate_signing_key, signing_key};

fn json_error(err: impl std::fmt::Display) -> actix_web::Error {
    ApiError::BadRequest(err.to_string()).into()
}

/// Every documented route.
fn routes(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    http::configure(cfg);
}

/// The whole application: routes, extractor limits and errors, the spec and the docs page.
fn app(
    state: web::Data<AppState>,
    edge: web::Data<http::edge::Edge>,
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
        .wrap(actix_web::middleware::from_fn(http::admit::limit))
        .wrap_fn(http::head::head_as_get)
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
        .wrap_fn(http::limits::problem_for_every_error)
        .wrap(actix_web::middleware::DefaultHeaders::new().add((
            saboteur_openapi::API_VERSION_HEADER,
            saboteur_openapi::API_VERSION,
        )))
        .app_data(state)
        .app_data(edge)
        .app_data(web::QueryConfig::default().error_handler(|e, _| json_error(e)))
        .app_data(web::PathConfig::default().error_handler(|e, _| json_error(e)))
        .into_utoipa_app()
        .openapi(saboteur_openapi::ApiDoc::openapi())
        .configure(routes)
        .split_for_parts();
    let methods = Arc::new(http::limits::Methods::of(&api));
    let spec = finish(api);
    app.configure(http::webclient::configure)
        .service(http::ops::openapi_json(spec_text(&spec)))
        .service(web::redirect("/docs", "/docs/"))
        .service(
            utoipa_swagger_ui::SwaggerUi::new("/docs/{_:.*}")
                .external_url_unchecked("/openapi.json", spec),
        )
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

/// The spec as text: pretty JSON, as committed in `openapi/openapi.json` and served.
pub fn spec_text(spec: &serde_json::Value) -> String {
    // A JSON value always prints: its alternate form is `to_string_pretty`'s, without a
    // failure to hide.
    format!("{spec:#}")
}

/// The OpenAPI specification of the API, as served at `/openapi.json`.
pub fn spec() -> serde_json::Value {
    let (_, api) = App::new()
        .into_utoipa_app()
        .openapi(saboteur_openapi::ApiDoc::openapi())
        .configure(routes)
        .split_for_parts();
    finish(api)
}

/// The spec as clients generate from it (`saboteur_openapi::finish`), with the problem codes
/// the server emits, and the receipt a refusal carries.
fn finish(api: utoipa::openapi::OpenApi) -> serde_json::Value {
    let codes = error::all_codes();
    let mut api = api;
    // The stream's `data`: no operation returns it as a body, so it is named here.
    api.components
        .get_or_insert_with(Default::default)
        .schemas
        .insert(
            "StreamRecord".into(),
            <dto::StreamRecord as utoipa::PartialSchema>::schema(),
        );
    let mut spec = saboteur_openapi::finish(api, &codes);
    if let Some(properties) = spec
        .pointer_mut("/components/schemas/Problem/properties")
        .and_then(serde_json::Value::as_object_mut)
    {
        properties.insert(
            "receipt".into(),
            serde_json::json!({
                "$ref": "#/components/schemas/Receipt",
                "description": "The server's signed receipt of a refusal (kind `refusal`): on \
                    every 4xx but 401 and 404 answering a player's or the host's write, the \
                    version and time at which it was refused. Its `view_hash` covers this \
                    problem without `receipt`."
            }),
        );
    }
    spec
}

/// Waits until the process is told to stop (SIGTERM, SIGINT): the signals on which actix-web
/// stops gracefully, listened to here instead (`HttpServer::shutdown_signal`).
async fn stop_asked() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        ) {
            (Ok(mut term), Ok(mut int)) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = int.recv() => {}
                }
            }
            _ => std::future::pending().await,
        }
    }
    #[cfg(not(unix))]
    if tokio::signal::ctrl_c().await.is_err() {
        std::future::pending::<()>().await;
    }
}

/// Connects the store (applying migrations), binds and returns the running server with the
/// address it listens on. Shuts down gracefully on SIGINT/SIGTERM: the event streams end at
/// once (their clients reconnect elsewhere with `Last-Event-ID`), other requests in flight
/// have 10 s to finish.
pub async fn start(config: Config) -> std::io::Result<(Server, SocketAddr)> {
    let store = EventStore::connect(&config.database_url)
        .await
        .map_err(|e| std::io::Error::other(format!("cannot open the store: {e}")))?;
    let reads = match &config.read_database_url {
        Some(url) => Some(
            EventStore::connect_read_only(url)
                .await
                .map_err(|e| std::io::Error::other(format!("cannot open the read store: {e}")))?,
        ),
        None => None,
    };
    let signer = signing_key(&store, config.signing_key_file.as_deref()).await?;
    let (state, bots) = AppState::new(store, reads, config.clone(), signer)?;
    let state = Arc::new(state);
    state.follow_store();
    state.beat_presence();
    app::driver::Driver::spawn(state.clone(), bots);
    let stopping = state.clone();
    let state = web::Data::from(state);
    let edge = Arc::new(http::edge::Edge::new(config.limits.clone()));
    http::edge::Edge::spawn_sweep(edge.clone());
    let edge = web::Data::from(edge);
    let server = HttpServer::new(move || app(state.clone(), edge.clone()))
        .client_request_timeout(config.body_timeout)
        // The server's one listener of the stop signals: the event streams end first, then the
        // graceful stop begins.
        .shutdown_signal(async move {
            stop_asked().await;
            stopping.close_streams();
        })
        .bind(&config.bind)?;
    let addr = server
        .addrs()
        .first()
        .copied()
        .ok_or_else(|| std::io::Error::other("the server listens nowhere"))?;
    Ok((server.shutdown_timeout(10).run(), addr))
}
