//! Operations: health and the specification.

use actix_web::{HttpResponse, get, web};
use utoipa_actix_web::service_config::ServiceConfig;

use crate::AppState;
use crate::dto::Health;
use crate::error::ApiError;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(healthz).service(metrics);
}

/// Read the metrics
///
/// Prometheus text format: requests and latencies by route, commands by outcome, conflicts.
#[utoipa::path(
    tag = "operations",
    responses(
        (status = 200, description = "The metrics", content_type = "text/plain; version=0.0.4", body = String),
        (status = 500, description = "Internal error", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
    )
)]
#[get("/metrics")]
async fn metrics(state: web::Data<AppState>) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4")
        .body(state.metrics.render())
}

/// Check health
///
/// Answers 200 when the server and its database answer.
#[utoipa::path(
    tag = "operations",
    responses(
        (status = 200, description = "Healthy", body = Health),
        (status = 500, description = "The database does not answer", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
    )
)]
#[get("/healthz")]
async fn healthz(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    state
        .store
        .ping()
        .await
        .map_err(|e| ApiError::Internal(e.to_string()))?;
    Ok(HttpResponse::Ok().json(Health {
        status: "ok".into(),
        database: state.store.backend_name().into(),
    }))
}

/// `/openapi.json`: the specification, generated from the handlers.
pub fn openapi_json(spec: utoipa::openapi::OpenApi) -> actix_web::Resource {
    let body = spec.to_pretty_json().unwrap_or_default();
    web::resource("/openapi.json").route(web::get().to(move || {
        let body = body.clone();
        async move {
            HttpResponse::Ok()
                .content_type("application/json")
                .body(body)
        }
    }))
}
