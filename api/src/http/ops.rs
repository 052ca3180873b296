//! Operations: health and the specification.

use actix_web::{HttpResponse, get, web};
use utoipa_actix_web::service_config::ServiceConfig;

use crate::app::state::AppState;
use crate::dto::Health;
use crate::error::ApiError;
use crate::http::edge::Edge;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(healthz).service(healthz_write).service(metrics);
}

/// Read the metrics
///
/// Prometheus text format: requests and latencies by route, commands by outcome, conflicts,
/// requests refused by the per-client limits by kind; and, as gauges, the games held in memory
/// and their estimated bytes, the event streams open, the clients the limits remember and the
/// process's resident memory.
#[utoipa::path(
    tag = "operations",
    responses(
        (status = 200, description = "The metrics", content_type = "text/plain; version=0.0.4", body = String),
        (status = 500, description = "Internal error", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
    )
)]
#[get("/metrics")]
async fn metrics(state: web::Data<AppState>, edge: web::Data<Edge>) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4")
        .body(state.metrics.render(&gauges(&state, &edge)))
}

/// What is held now: the memory figures an operator watches over a day.
fn gauges(state: &AppState, edge: &Edge) -> Vec<(&'static str, &'static str, f64)> {
    let (games, bytes) = state.tables.usage();
    let mut gauges = vec![
        (
            "saboteur_cached_games",
            "Games held in memory",
            games as f64,
        ),
        (
            "saboteur_cache_bytes",
            "Their estimated size in bytes (bounded by --cache-bytes)",
            bytes as f64,
        ),
        (
            "saboteur_thinking_waiting",
            "Bots' searches waiting for a thinker thread",
            state.thinkers.waiting() as f64,
        ),
        (
            "saboteur_audits_waiting",
            "Audits' replays waiting for their thread",
            state.audits.waiting() as f64,
        ),
        (
            "saboteur_streams_open",
            "Event streams open on this process",
            edge.streams.count() as f64,
        ),
        (
            "saboteur_clients_tracked",
            "Clients the per-client limits remember (forgotten once their buckets are full again)",
            edge.quotas.clients() as f64,
        ),
    ];
    // The allocator's own count (jemalloc, in the server binary): what the program holds, and
    // what the allocator keeps resident for it.
    if tikv_jemalloc_ctl::epoch::advance().is_ok()
        && let (Ok(allocated), Ok(resident)) = (
            tikv_jemalloc_ctl::stats::allocated::read(),
            tikv_jemalloc_ctl::stats::resident::read(),
        )
        && allocated > 0
    {
        gauges.push((
            "allocator_allocated_bytes",
            "Bytes the process holds allocated (jemalloc's stats.allocated)",
            allocated as f64,
        ));
        gauges.push((
            "allocator_resident_bytes",
            "Bytes the allocator keeps resident (jemalloc's stats.resident)",
            resident as f64,
        ));
    }
    if let Some(rss) = resident_bytes() {
        gauges.push((
            "process_resident_memory_bytes",
            "Resident memory of the process in bytes",
            rss as f64,
        ));
    }
    gauges
}

/// The process's resident memory (Linux: `VmRSS` of `/proc/self/status`).
pub(crate) fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// How long `/healthz` waits for the database before it says the database is unreachable.
const PING_TIMEOUT: std::time::Duration = std::time::Duration::from_millis(700);

/// Whether `store` answers within [`PING_TIMEOUT`] (`write`: and takes writes): why not.
async fn answers(store: &saboteur_storage::ReadStore, write: bool) -> Result<(), String> {
    let asked = async {
        if write {
            store.writable().await
        } else {
            store.ping().await
        }
    };
    match tokio::time::timeout(PING_TIMEOUT, asked).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => Err(format!("no answer within {} ms", PING_TIMEOUT.as_millis())),
    }
}

/// Check health: can this server answer reads
///
/// Answers 200 when the server can serve reads: its database answers, or its read-only store
/// (`--read-database-url`, a standby) does — whether the database also takes writes is
/// `writable` (and `/healthz/write`). 503 with `Retry-After` when neither answers. A load
/// balancer sends reads (GET, HEAD) to servers that answer 200 here, and writes to those that
/// answer 200 on `/healthz/write`, so reads go on through a write outage (a demoted primary, a
/// failover).
#[utoipa::path(
    tag = "operations",
    responses(
        (status = 200, description = "The server can serve reads", body = Health),
        (status = 503, description = "The database is unreachable", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
    )
)]
#[get("/healthz")]
async fn healthz(
    state: web::Data<AppState>,
    edge: web::Data<Edge>,
) -> Result<HttpResponse, ApiError> {
    let standby = async {
        match &state.reads {
            Some(reads) => answers(reads, false).await,
            None => Err("no read-only store".into()),
        }
    };
    let (writes, reads) = tokio::join!(answers(&state.store, true), standby);
    let readable = match (&writes, reads) {
        (Ok(()), _) | (_, Ok(())) => true,
        // Read-only: it answers reads.
        (Err(_), Err(_)) => answers(&state.store, false).await.is_ok(),
    };
    if !readable {
        return Err(ApiError::Unavailable(format!(
            "the database ({}) is unreachable: {}",
            state.store.backend_name(),
            writes.err().unwrap_or_default()
        )));
    }
    let (cached_games, cache_bytes) = state.tables.usage();
    Ok(HttpResponse::Ok().json(Health {
        status: "ok".into(),
        database: state.store.backend_name().into(),
        cached_games: cached_games as u64,
        cache_bytes: cache_bytes as u64,
        streams: edge.streams.count() as u64,
        writable: writes.is_ok(),
    }))
}

/// Check health: can this server record writes
///
/// Answers 200 when the database takes writes (it answers, and its transactions are not
/// read-only: PostgreSQL's `transaction_read_only` is off); 503 with `Retry-After` when it is
/// read-only (a standby, a demoted primary) or cannot be reached. A write sent meanwhile is
/// answered 503 `unavailable` with `Retry-After`.
#[utoipa::path(
    tag = "operations",
    responses(
        (status = 200, description = "The server can record writes", body = Health),
        (status = 503, description = "The database is read-only or unreachable", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
    )
)]
#[get("/healthz/write")]
async fn healthz_write(
    state: web::Data<AppState>,
    edge: web::Data<Edge>,
) -> Result<HttpResponse, ApiError> {
    answers(&state.store, true).await.map_err(|why| {
        ApiError::Unavailable(format!(
            "the database ({}) takes no writes now: {why}",
            state.store.backend_name()
        ))
    })?;
    let (cached_games, cache_bytes) = state.tables.usage();
    Ok(HttpResponse::Ok().json(Health {
        status: "ok".into(),
        database: state.store.backend_name().into(),
        cached_games: cached_games as u64,
        cache_bytes: cache_bytes as u64,
        streams: edge.streams.count() as u64,
        writable: true,
    }))
}

/// `/openapi.json`: the specification, generated from the handlers.
pub fn openapi_json(body: String) -> actix_web::Resource {
    web::resource("/openapi.json").route(web::get().to(move || {
        let body = body.clone();
        async move {
            HttpResponse::Ok()
                .content_type("application/json")
                .body(body)
        }
    }))
}
