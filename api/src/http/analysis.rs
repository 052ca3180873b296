//! Post-game analysis: for each decision of a seat in a finished game, what the expert bot
//! would have chosen from that seat's view and what the choice played cost by its estimate
//! (`saboteur_domain::analysis`). Refused while the game runs, so nobody gets the expert's help
//! during play; the search runs on the audit threads, queued by the client asking.

use actix_web::http::header::ContentType;
use actix_web::{HttpMessage, HttpRequest, HttpResponse, get, web};
use saboteur_domain::Seat;
use saboteur_domain::analysis::{Analysis, AnalysisError, analyse};
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::app::seam;
use crate::app::state::AppState;
use crate::error::{ApiError, Conflict};
use crate::http::head::AskedHead;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(game_analysis);
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
struct AnalysisQuery {
    /// The seat whose decisions are analysed, from 0.
    #[param(minimum = 0, maximum = 11)]
    seat: u8,
}

/// Analyse a seat's decisions
///
/// Once the game is over: for each decision the seat made while playing (the moves that stand
/// in the record; a move undone is not one), the command played, the command the expert bot
/// would have chosen from the seat's view at that version (exactly what an expert seated there
/// chooses: the same view, seed and logic version), and the cost of the choice played by the
/// expert's own estimate over the same sampled worlds, 0 when it is the suggestion. The same
/// game always gives the same analysis. 409 `not_over` while the game runs.
#[utoipa::path(
    tag = "events",
    params(("id" = String, Path, description = "The game's id"), AnalysisQuery),
    responses(
        (status = 200, description = "The seat's decisions, analysed", body = Analysis),
        (status = 400, description = "No such seat, or a malformed query", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 409, description = "The game is not over (`not_over`): the expert's advice would help a player during play", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database cannot be reached: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
    )
)]
#[get("/games/{id}/analysis")]
async fn game_analysis(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    query: web::Query<AnalysisQuery>,
) -> Result<HttpResponse, ApiError> {
    let game = crate::http::perform::game(&id)?;
    let table = seam::open(&state, &game).await?;
    if !table.over() {
        return Err(not_over());
    }
    let players = table.players();
    if query.seat >= players {
        return Err(ApiError::BadRequest(format!(
            "seat is from 0 to {}",
            players.saturating_sub(1)
        )));
    }
    // Kept per game, seat and version: searched once however many ask, answered from memory
    // after (a finished game's record no longer changes).
    let asked = format!("{}/{}/{}", game.as_str(), query.seat, table.version());
    let kept = state.analyses.get_or_keep(&asked, Default::default);
    if let Some(json) = kept.get() {
        state.metrics.analyses.with_label_values(&["kept"]).inc();
        return Ok(analysed(json.clone()));
    }
    // HEAD is answered without the search: the same status and type, the length unknown.
    if req.extensions().get::<AskedHead>().is_some() {
        return Ok(HttpResponse::Ok()
            .content_type(ContentType::json())
            .streaming(tokio_stream::empty::<Result<web::Bytes, ApiError>>()));
    }
    let history = table.history().clone();
    drop(table);
    let seat = Seat(query.seat);
    let asker = crate::http::verdict::asker(&state, &req);
    let json = kept
        .get_or_try_init(|| async {
            state
                .metrics
                .analyses
                .with_label_values(&["searched"])
                .inc();
            let analysis = state
                .audits
                .think(&asker, move || analyse(&history, seat))
                .await?;
            match analysis {
                Ok(analysis) => serde_json::to_vec(&analysis)
                    .map(web::Bytes::from)
                    .map_err(|e| ApiError::Internal(format!("an analysis as JSON: {e}"))),
                Err(AnalysisError::NotOver) => Err(not_over()),
                Err(AnalysisError::NoSuchSeat(seat)) => {
                    Err(ApiError::BadRequest(format!("the game has no seat {seat}")))
                }
                Err(e) => Err(ApiError::Internal(format!(
                    "the analysis of a finished game failed: {e}"
                ))),
            }
        })
        .await?;
    Ok(analysed(json.clone()))
}

/// The analysis's JSON as the body of a 200.
fn analysed(json: web::Bytes) -> HttpResponse {
    HttpResponse::Ok()
        .content_type(ContentType::json())
        .body(json)
}

fn not_over() -> ApiError {
    ApiError::Conflict(
        Conflict::NotOver,
        "the game is not over: its analysis is given once it ends, so that nobody gets the \
         expert's advice during play"
            .into(),
    )
}
