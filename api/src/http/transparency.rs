//! The transparency log's endpoints: the server's keys, the log of finished games and its
//! signed checkpoint (the checks of both are in `crate::transparency`).

use actix_web::{HttpResponse, get, web};
use saboteur_storage::GENESIS;
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::app::state::AppState;
use crate::error::ApiError;
use crate::transparency::{Checkpoint, KeyList, LogPage, LogRecord, published_keys, signed};

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(list_keys)
        .service(list_log)
        .service(log_checkpoint);
}

/// List the server's signing keys
///
/// Every Ed25519 key the server has signed receipts and checkpoints with, the retired ones
/// included, so that old receipts stay checkable. Public keys are 64 hex digits; a key's id is
/// the first 16 hex digits of SHA-256 of the public key.
#[utoipa::path(
    tag = "audit",
    responses(
        (status = 200, description = "The keys", body = KeyList),
        (status = 503, description = "The database cannot be reached: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
    )
)]
#[get("/keys")]
async fn list_keys(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(KeyList {
        keys: published_keys(&state.store).await?,
    }))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
struct LogQuery {
    /// Entries after this place (default 0: from the first).
    #[param(minimum = 0)]
    after: Option<i64>,
    /// Entries per page, 1–1000 (default 200).
    #[param(minimum = 1, maximum = 1000)]
    limit: Option<u32>,
}

/// List the transparency log
///
/// One entry per finished game, in the order they were logged, each chained to the one
/// before: a game rewritten after it was logged no longer matches its entry, and a rewritten
/// log no longer extends an older checkpoint.
#[utoipa::path(
    tag = "audit",
    params(LogQuery),
    responses(
        (status = 200, description = "A page of entries", body = LogPage),
        (status = 400, description = "Malformed query", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database cannot be reached: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
    )
)]
#[get("/log")]
async fn list_log(
    state: web::Data<AppState>,
    query: web::Query<LogQuery>,
) -> Result<HttpResponse, ApiError> {
    let (after, limit) = crate::http::limits::page(query.after, query.limit, "a place in the log")?;
    let entries: Vec<LogRecord> = state
        .store
        .log_entries(after, limit)
        .await?
        .into_iter()
        .map(LogRecord::from)
        .collect();
    let next_after = match entries.last() {
        Some(last) if entries.len() == limit as usize => Some(last.seq),
        _ => None,
    };
    Ok(HttpResponse::Ok().json(LogPage {
        entries,
        next_after,
    }))
}

/// Get a signed checkpoint of the log
///
/// The log's size and last hash now, signed with the server's key. Keep it: any later log
/// must hold it as a prefix (`saboteur verify --log FILE --checkpoint FILE` checks it).
#[utoipa::path(
    tag = "audit",
    responses(
        (status = 200, description = "The checkpoint", body = Checkpoint),
        (status = 503, description = "The database cannot be reached: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
    )
)]
#[get("/log/checkpoint")]
async fn log_checkpoint(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let (size, head) = match state.store.last_log_entry().await? {
        Some(e) => (e.seq, e.hash),
        None => (0, GENESIS.to_string()),
    };
    let checkpoint = Checkpoint {
        size,
        head,
        time: state.config.time.rfc3339(),
        key_id: String::new(),
        keys: published_keys(&state.store).await?,
        signature: String::new(),
    };
    let checkpoint = signed(checkpoint, &state.signer);
    Ok(HttpResponse::Ok()
        .insert_header((actix_web::http::header::CACHE_CONTROL, "no-cache"))
        .json(checkpoint))
}
