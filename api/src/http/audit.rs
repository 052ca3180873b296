//! The audit bundle's endpoint (the bundle and its checks are in `crate::audit`).

use actix_web::{HttpResponse, get, web};
use utoipa_actix_web::service_config::ServiceConfig;

use crate::app::state::AppState;
use crate::audit::{AuditBundle, bundle_from_reads};
use crate::error::ApiError;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(audit_bundle);
}

/// Download the audit bundle
///
/// A finished game's whole record: every event unredacted, the revealed seed and its
/// commitment. Check it offline with `saboteur verify --file BUNDLE`.
#[utoipa::path(
    tag = "events",
    params(("id" = String, Path, description = "The game's id")),
    responses(
        (status = 200, description = "The bundle", body = AuditBundle),
        (status = 404, description = "No such game", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database cannot be reached, or too many streams are open: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
        (status = 409, description = "The game is not over: its secrets are still secret", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
    )
)]
#[get("/games/{id}/audit")]
async fn audit_bundle(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let bundle = bundle_from_reads(&state, &crate::http::perform::game(&id)?).await?;
    Ok(HttpResponse::Ok()
        .insert_header((
            "Content-Disposition",
            format!("attachment; filename=\"saboteur-{id}.json\""),
        ))
        .json(bundle))
}
