//! The audit verdict on a finished game: the server runs the same check as
//! `saboteur verify --file` over the game's bundle, for clients that cannot run the binary, and
//! checks receipts against it as `saboteur verify --receipts` does.

use actix_web::{HttpRequest, HttpResponse, get, post, web};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::app::state::AppState;
use crate::audit::{
    AuditCheck, ReceiptProblem, ReceiptsChecked, Verified, bundle_from_reads, check_receipts,
    read_receipts, verify,
};
use crate::error::ApiError;
use crate::http::body::Json;
use crate::receipt::PublishedKey;
use crate::transparency::LogRecord;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(audit_verdict).service(receipts_verdict);
}

/// The outcome of checking a finished game's audit bundle.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct AuditVerdict {
    /// Whether every check passed.
    pub ok: bool,
    /// What the checks showed, when they passed.
    #[schema(required = true)]
    pub report: Option<Verified>,
    /// The first discrepancy, when a check failed.
    #[schema(required = true)]
    pub discrepancy: Option<String>,
    /// Which check failed (a stable code), when one did.
    #[schema(required = true)]
    pub failed_check: Option<AuditCheck>,
    /// The revealed seed, 64 hex digits.
    pub seed: String,
    /// Hex SHA-256 of the seed, published when the game was created.
    pub seed_commitment: String,
    /// How many events the bundle holds.
    pub events: usize,
    /// The server's signing keys, as the bundle publishes them.
    pub keys: Vec<PublishedKey>,
    /// The game's entry in the transparency log, once it is logged.
    #[schema(required = true)]
    pub log_entry: Option<LogRecord>,
}

/// What receipts showed against a finished game's record.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ReceiptsVerdict {
    /// Whether every receipt agrees with the record.
    pub ok: bool,
    /// What was checked, when every receipt agreed.
    #[schema(required = true)]
    pub checked: Option<ReceiptsChecked>,
    /// The first receipt the record contradicts: the record changed after it was served.
    #[schema(required = true)]
    pub contradiction: Option<String>,
    /// The first receipt refused: it proves nothing (a bad signature, an unknown key, another
    /// game, a body that is not the one it signed).
    #[schema(required = true)]
    pub refused: Option<String>,
}

/// The share an audit's replay (or a game's analysis) runs in: the client asking
/// ([`crate::app::thinkers`]), so one client asking for many waits behind its own.
pub(crate) fn asker(state: &AppState, req: &HttpRequest) -> String {
    crate::http::games::maker(state, req).unwrap_or_else(|| "unknown client".into())
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
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let id = crate::http::perform::game(&id)?;
    let bundle = bundle_from_reads(&state, &id).await?;
    let checked = state
        .audits
        .think(&asker(&state, &req), move || {
            let result = verify(&bundle);
            (bundle, result)
        })
        .await?;
    let (bundle, result) = checked;
    let (ok, report, discrepancy, failed_check) = match result {
        Ok(r) => (true, Some(r), None, None),
        Err(d) => (false, None, Some(d.to_string()), Some(d.check())),
    };
    Ok(HttpResponse::Ok().json(AuditVerdict {
        ok,
        report,
        discrepancy,
        failed_check,
        seed: bundle.seed,
        seed_commitment: bundle.seed_commitment,
        events: bundle.events.len(),
        keys: bundle.keys,
        log_entry: bundle.log_entry,
    }))
}

/// Check receipts against a finished game's record
///
/// Checks receipts kept from this server (a JSON array of receipts, or of the bodies served
/// with them) against the game's audit bundle, as `saboteur verify --receipts` does: each
/// signed by a published key, its head on the game's chain at its version, its `view_hash`
/// that of the body recomputed from the record. Names the first receipt refused or
/// contradicted. The body is at most 64 KiB: send receipts without their bodies.
#[utoipa::path(
    tag = "audit",
    params(("id" = String, Path, description = "The game's id")),
    request_body(content = Vec<crate::receipt::Receipt>, description = "Receipts, in the order they were kept (a body served with its receipt is accepted in place of the receipt, and checked against it)"),
    responses(
        (status = 200, description = "The verdict", body = ReceiptsVerdict),
        (status = 400, description = "Not a list of receipts", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 413, description = "The body is over 64 KiB (`too_large`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 409, description = "The game is not over: its secrets are still secret", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database cannot be reached: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
    )
)]
#[post("/games/{id}/audit/receipts")]
async fn receipts_verdict(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    body: Json<Vec<serde_json::Value>>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let id = crate::http::perform::game(&id)?;
    let receipts = read_receipts(&body.into_inner()).map_err(ApiError::BadRequest)?;
    let bundle = bundle_from_reads(&state, &id).await?;
    let result = state
        .audits
        .think(&asker(&state, &req), move || {
            check_receipts(&bundle, &receipts)
        })
        .await?;
    Ok(HttpResponse::Ok().json(match result {
        Ok(checked) => ReceiptsVerdict {
            ok: true,
            checked: Some(checked),
            contradiction: None,
            refused: None,
        },
        Err(ReceiptProblem::Contradiction(c)) => ReceiptsVerdict {
            ok: false,
            checked: None,
            contradiction: Some(c),
            refused: None,
        },
        Err(ReceiptProblem::Refused(r)) => ReceiptsVerdict {
            ok: false,
            checked: None,
            contradiction: None,
            refused: Some(r),
        },
    }))
}
