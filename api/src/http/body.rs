//! Request bodies: JSON read under a deadline, so a body that never arrives cannot hold a
//! connection (actix-web's own extractors wait for as long as the client keeps it open), and
//! at most [`BODY_LIMIT`] bytes of it: beyond, 413 `too_large` (announced by `Content-Length`
//! or found while reading a body of unknown length).

use std::future::Future;
use std::pin::Pin;

use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpMessage as _, HttpRequest, web};
use serde::de::DeserializeOwned;
use tokio_stream::StreamExt;

use crate::app::config::DEFAULT_BODY_TIMEOUT;
use crate::app::state::AppState;
use crate::error::ApiError;
use crate::http::limits::BODY_LIMIT;

/// A JSON body exactly as it was sent (kept in the request's extensions by [`Json`]).
#[derive(Debug, Clone)]
pub(crate) struct RawBody(pub String);

impl RawBody {
    /// The body of `req` exactly as it was sent, if it had a JSON body.
    pub(crate) fn of(req: &actix_web::HttpRequest) -> Option<String> {
        use actix_web::HttpMessage as _;
        req.extensions().get::<RawBody>().map(|b| b.0.clone())
    }
}

/// A JSON request body (`application/json`, at most [`BODY_LIMIT`] bytes), read within the
/// server's body timeout.
pub(crate) struct Json<T>(pub T);

impl<T> std::ops::Deref for Json<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> Json<T> {
    /// The body.
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T: DeserializeOwned + 'static> FromRequest for Json<T> {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let deadline = req
            .app_data::<web::Data<AppState>>()
            .map_or(DEFAULT_BODY_TIMEOUT, |s| s.config.body_timeout);
        let json = req
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .is_some_and(|m| {
                let m = m.trim();
                m.eq_ignore_ascii_case("application/json") || m.ends_with("+json")
            });
        let announced = req
            .headers()
            .get("content-length")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok());
        let mut payload = payload.take();
        let request = req.clone();
        Box::pin(async move {
            let mut read = None;
            let body = read_json(json, announced, deadline, &mut payload, &mut read).await;
            match body {
                Ok(bytes) => {
                    let parsed = serde_json::from_slice(&bytes)
                        .map(Json)
                        .map_err(|e| ApiError::BadRequest(format!("invalid JSON body: {e}")));
                    if let Ok(text) = String::from_utf8(bytes.to_vec()) {
                        // Kept as sent: what the signature and a refusal's receipt cover.
                        request.extensions_mut().insert(RawBody(text));
                    }
                    match parsed {
                        Ok(parsed) => Ok(parsed),
                        Err(e) => Err(refused(&request, Some(&bytes), e).await),
                    }
                }
                Err(e) => Err(refused(&request, read.as_deref(), e).await),
            }
        })
    }
}

/// The body's bytes: JSON announced, at most [`BODY_LIMIT`], within `deadline`. What was read
/// whole before a refusal is left in `read`.
async fn read_json(
    json: bool,
    announced: Option<u64>,
    deadline: std::time::Duration,
    payload: &mut Payload,
    read: &mut Option<web::Bytes>,
) -> Result<web::Bytes, ApiError> {
    if !json {
        return Err(ApiError::BadRequest(
            "the body must be JSON: send `Content-Type: application/json`".into(),
        ));
    }
    let too_large = || ApiError::TooLarge(format!("the body is over {BODY_LIMIT} bytes"));
    if announced.is_some_and(|n| n > BODY_LIMIT as u64) {
        return Err(too_large());
    }
    let reading = async {
        let mut bytes = web::BytesMut::new();
        while let Some(chunk) = payload.next().await {
            let chunk =
                chunk.map_err(|e| ApiError::BadRequest(format!("cannot read the body: {e}")))?;
            if bytes.len() + chunk.len() > BODY_LIMIT {
                return Err(too_large());
            }
            bytes.extend_from_slice(&chunk);
        }
        Ok(bytes.freeze())
    };
    let bytes = tokio::time::timeout(deadline, reading)
        .await
        .map_err(|_| {
            ApiError::BadRequest(format!(
                "the body did not arrive within {} s",
                deadline.as_secs()
            ))
        })??;
    *read = Some(bytes.clone());
    Ok(bytes)
}

/// A body refused (400, 413) in a request for a game by a seat's or the host's token: signed
/// for the caller ([`crate::app::refusal::refused_before`]), with the hash of the body when it
/// was read whole.
pub(crate) async fn refused(request: &HttpRequest, body: Option<&[u8]>, e: ApiError) -> ApiError {
    use sha2::{Digest as _, Sha256};
    let Some(state) = request.app_data::<web::Data<AppState>>() else {
        return e;
    };
    let Some(game) = crate::http::caller::game_of(request.path()) else {
        return e;
    };
    let token = crate::http::caller::bearer(request);
    let hash = body.map(|b| hex::encode(Sha256::digest(b)));
    crate::app::refusal::refused_before(state, (game, token), hash, e).await
}

/// A JSON body that may be left out: a request with no `Content-Type` and no body reads as
/// `None`; anything else as [`Json`].
pub(crate) struct MaybeJson<T>(pub Option<T>);

impl<T: DeserializeOwned + 'static> FromRequest for MaybeJson<T> {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let headers = req.headers();
        let empty = !headers.contains_key("content-type")
            && !headers.contains_key("transfer-encoding")
            && headers
                .get("content-length")
                .and_then(|v| v.to_str().ok())
                .is_none_or(|v| v.trim() == "0");
        if empty {
            return Box::pin(async { Ok(MaybeJson(None)) });
        }
        let body = Json::<T>::from_request(req, payload);
        Box::pin(async move { Ok(MaybeJson(Some(body.await?.into_inner()))) })
    }
}
