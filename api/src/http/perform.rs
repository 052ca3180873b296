//! What every handler shares: the bearer token and the game id of a request, and handing an
//! act to the seam with the response for what it did.

use actix_web::http::header::ContentType;
use actix_web::{HttpRequest, HttpResponse, ResponseError};

use crate::app::act::{Act, Done, KeyFor, Request, Signed};
use crate::app::ids::{self, GameId};
use crate::app::lobby_done::Sent;
use crate::app::seam;
use crate::app::state::AppState;
use crate::dto::{EventRecord, Outcome};
use crate::error::ApiError;
use crate::http::body::RawBody;

/// The bearer token of a request, if it has an `Authorization` header.
pub(crate) fn bearer(req: &HttpRequest) -> Result<Option<String>, ApiError> {
    let Some(header) = req.headers().get("authorization") else {
        return Ok(None);
    };
    header
        .to_str()
        .ok()
        .and_then(|h| h.strip_prefix("Bearer "))
        .map(|t| Some(t.trim().to_string()))
        .ok_or_else(|| ApiError::Unauthorized("use `Authorization: Bearer <token>`".into()))
}

/// The player's signature a request carries: `Seat-Signature` (128 hex digits) and
/// `Seat-Signature-Version` (the version signed at, decimal digits), both or neither, with the
/// body as sent (kept by [`crate::http::body::Json`]): the signature covers the body as JSON
/// (the canonical statement) or, in a game of record version 1 or 2, its bytes.
pub(crate) fn signed(req: &HttpRequest) -> Result<Option<Signed>, ApiError> {
    let headers = req.headers();
    let text = |name: &str| {
        headers
            .get(name)
            .map(|v| v.to_str().unwrap_or_default().trim())
    };
    let (signature, version) = match (text("seat-signature"), text("seat-signature-version")) {
        (None, None) => return Ok(None),
        (Some(s), Some(v)) => (s.to_ascii_lowercase(), v),
        _ => {
            return Err(ApiError::BadRequest(
                "send both `Seat-Signature` and `Seat-Signature-Version`, or neither".into(),
            ));
        }
    };
    if !saboteur_domain::is_signature(&signature) {
        return Err(ApiError::BadRequest(
            "`Seat-Signature` is an Ed25519 signature written as 128 hex digits".into(),
        ));
    }
    let version = version
        .parse::<u64>()
        .ok()
        .filter(|_| version.bytes().all(|b| b.is_ascii_digit()))
        .ok_or_else(|| {
            ApiError::BadRequest("`Seat-Signature-Version` is a version number".into())
        })?;
    let body = RawBody::of(req).unwrap_or_default();
    Ok(Some(Signed {
        version,
        signature,
        body,
    }))
}

/// The request's `Idempotency-Key`, if it has one: 1 to 200 visible characters (ASCII `!` to
/// `~`: no space, no tab).
pub(crate) fn idempotency_key(req: &HttpRequest) -> Result<Option<String>, ApiError> {
    let Some(h) = req.headers().get("idempotency-key") else {
        return Ok(None);
    };
    let k = h.as_bytes();
    if k.is_empty() || k.len() > 200 || !k.iter().all(|b| (b'!'..=b'~').contains(b)) {
        return Err(ApiError::BadRequest(
            "Idempotency-Key is 1 to 200 visible characters (no space, no tab)".into(),
        ));
    }
    Ok(Some(String::from_utf8_lossy(k).into_owned()))
}

/// A header of a write parsed (`parsed`), or its refusal (400) signed for the caller its token
/// names, as a refused body is ([`crate::http::body::refused`]).
pub(crate) async fn header<T>(
    req: &HttpRequest,
    parsed: Result<T, ApiError>,
) -> Result<T, ApiError> {
    match parsed {
        Ok(value) => Ok(value),
        Err(e) => Err(crate::http::body::refused(req, None, e).await),
    }
}

/// The key of an act that makes a game: `scope` names who may get its reply back, `request`
/// is what the key must come with again (its SHA-256 is kept).
pub(crate) fn key_for(
    req: &HttpRequest,
    scope: String,
    request: &str,
) -> Result<Option<KeyFor>, ApiError> {
    use sha2::Digest as _;
    Ok(idempotency_key(req)?.map(|key| KeyFor {
        scope,
        key,
        request: hex::encode(sha2::Sha256::digest(request.as_bytes())),
    }))
}

/// The API version the request's client says it was generated from (`Api-Version`), if it
/// says one: every event of a type a later version introduced is served to it wrapped
/// (`NewerEvent`, [`saboteur_verifier::newer`]), so its parser meets only types it knows.
pub(crate) fn declared_version(req: &HttpRequest) -> Result<Option<semver::Version>, ApiError> {
    let Some(h) = req.headers().get(saboteur_openapi::API_VERSION_HEADER) else {
        return Ok(None);
    };
    let text = h.to_str().map_err(|_| {
        ApiError::BadRequest("Api-Version is MAJOR.MINOR.PATCH, in visible ASCII".into())
    })?;
    saboteur_verifier::newer::declared(text)
        .map(Some)
        .map_err(ApiError::BadRequest)
}

/// An outcome's events as served to a client that declared `declared` ([`declared_version`]).
pub(crate) fn for_client(mut out: Outcome, declared: Option<&semver::Version>) -> Outcome {
    out.events = EventRecord::all_for_client(out.events, declared);
    out
}

/// The header (`Idempotency-Replayed: true`) that marks a reply given again to a retried
/// `Idempotency-Key`.
pub(crate) const REPLAYED: &str = "idempotency-replayed";

/// A game id from a path.
pub(crate) fn game(id: &str) -> Result<GameId, ApiError> {
    ids::game_id(id)
}

/// Hands `act` to the seam with the request's token and answers with what it did.
pub(crate) async fn perform(
    state: &AppState,
    req: &HttpRequest,
    act: Act,
) -> Result<HttpResponse, ApiError> {
    let game = act.game().cloned();
    let declared = declared_version(req)?;
    let body = RawBody::of(req);
    let request = Request::new(bearer(req)?, act)
        .signed(signed(req)?)
        .body(body.as_deref());
    let done = seam::act(state, request).await?;
    Ok(respond(done, game.as_ref(), declared.as_ref()))
}

/// A 201 naming the seat of `game` it took in `Location` (every act that seats has a game).
fn seated(game: Option<&GameId>, seat: u8) -> actix_web::HttpResponseBuilder {
    let mut response = HttpResponse::Created();
    if let Some(game) = game {
        response.insert_header(("Location", format!("/games/{}/seats/{seat}", game.as_str())));
    }
    response
}

/// The response for what an act on `game` (none for a creation) did. Every 201 names what it
/// made in `Location`: the game, or the seat. An outcome's events are served as the client's
/// declared version reads them ([`for_client`]).
fn respond(done: Done, game: Option<&GameId>, declared: Option<&semver::Version>) -> HttpResponse {
    match done {
        Done::Created(created) => HttpResponse::Created()
            .insert_header(("Location", format!("/games/{}", created.game_id)))
            .json(created),
        Done::Lobby(reply) => match reply.sent() {
            Ok(Sent::Seated(seat, body)) => seated(game, seat)
                .content_type(ContentType::json())
                .body(body),
            Ok(Sent::Ok(body)) => HttpResponse::Ok()
                .content_type(ContentType::json())
                .body(body),
            Ok(Sent::NoContent) => HttpResponse::NoContent().finish(),
            Err(e) => e.error_response(),
        },
        Done::Recorded(out) => HttpResponse::Ok()
            .insert_header(("ETag", format!("\"{}\"", out.version)))
            .json(for_client(out, declared)),
        Done::Awaiting(out) => HttpResponse::Accepted()
            .insert_header(("ETag", format!("\"{}\"", out.version)))
            .json(for_client(out, declared)),
        Done::NewToken(token) => HttpResponse::Ok().json(token),
        Done::Nothing => HttpResponse::NoContent().finish(),
        Done::Replayed(done) => {
            let mut response = respond(*done, game, declared);
            response.headers_mut().insert(
                actix_web::http::header::HeaderName::from_static(REPLAYED),
                actix_web::http::header::HeaderValue::from_static("true"),
            );
            response
        }
    }
}
