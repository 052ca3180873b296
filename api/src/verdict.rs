//! The audit verdict on a finished game: the server runs the same check as
//! `saboteur verify --file` over the game's bundle, for clients that cannot run the binary.

use actix_web::{HttpResponse, get, web};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::AppState;
use crate::audit::{Verified, bundle_from_store, verify};
use crate::error::ApiError;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(audit_verdict);
}

/// The outcome of checking a finished game's audit bundle.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct AuditVerdict {
    /// Whether every check passed.
    pub ok: bool,
    /// What the checks showed, when they passed.
    pub report: Option<Verified>,
    /// The first discrepancy, when a check failed.
    pub discrepancy: Option<String>,
    /// The revealed seed, 64 hex digits.
    pub seed: String,
    /// Hex SHA-256 of the seed, published when the game was created.
    pub seed_commitment: String,
    /// How many events the bundle holds.
    pub events: usize,
}

/// Check a finished game's record
///
/// Builds the game's audit bundle and checks it as `saboteur verify --file` does: the seed
/// against its commitment, the hash chain, every deal and command decided again. A failed
/// check is not an error of the request: it is reported as the first discrepancy.
#[utoipa::path(
    tag = "events",
    params(("id" = String, Path, description = "The game's id")),
    responses(
        (status = 200, description = "The verdict", body = AuditVerdict),
        (status = 404, description = "No such game", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 409, description = "The game is not over: its secrets are still secret", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database cannot be reached: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
    )
)]
#[get("/games/{id}/audit/verdict")]
async fn audit_verdict(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    if uuid::Uuid::parse_str(&id).is_err() {
        return Err(ApiError::NotFound(format!(
            "no game {id:?}: game ids are UUIDs"
        )));
    }
    let bundle = bundle_from_store(&state.store, &id).await?;
    let checked = web::block(move || {
        let result = verify(&bundle);
        (bundle, result)
    })
    .await
    .map_err(|e| ApiError::Internal(e.to_string()))?;
    let (bundle, result) = checked;
    let (ok, report, discrepancy) = match result {
        Ok(r) => (true, Some(r), None),
        Err(d) => (false, None, Some(d)),
    };
    Ok(HttpResponse::Ok().json(AuditVerdict {
        ok,
        report,
        discrepancy,
        seed: bundle.seed,
        seed_commitment: bundle.seed_commitment,
        events: bundle.events.len(),
    }))
}
