//! What keeps one client from holding the server: body size and time, a cap on open event
//! streams, and errors that are problem details whatever produced them (a wrong method gets
//! 405 with `Allow`, an unknown file under `/docs` a problem+json 404).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{Service, ServiceRequest, ServiceResponse};
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use saboteur_openapi::PROBLEM_JSON;

use crate::error::ApiError;

/// The largest request body, in bytes.
pub const BODY_LIMIT: usize = 64 * 1024;

/// A count of things open at once, each held by a [`Permit`].
#[derive(Debug, Default, Clone)]
pub(crate) struct Gauge(Arc<AtomicUsize>);

/// One of a [`Gauge`]'s count, given back when dropped.
#[derive(Debug)]
pub(crate) struct Permit(Arc<AtomicUsize>);

impl Gauge {
    /// A permit, unless `max` are out already.
    pub fn take(&self, max: usize) -> Option<Permit> {
        self.0
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < max).then_some(n + 1)
            })
            .ok()
            .map(|_| Permit(self.0.clone()))
    }

    /// How many are out.
    pub fn count(&self) -> usize {
        self.0.load(Ordering::Acquire)
    }
}

impl Drop for Permit {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The methods of every path the server has, to answer a wrong method with 405 and `Allow`:
/// HEAD wherever GET is ([`crate::http::head`]).
pub(crate) struct Methods(Vec<(Vec<String>, String)>);

impl Methods {
    /// The paths of the specification, plus the ones outside it.
    pub fn of(spec: &utoipa::openapi::OpenApi) -> Methods {
        let mut routes = Vec::new();
        for (path, item) in &spec.paths.paths {
            let ops = [
                ("GET", item.get.is_some()),
                ("HEAD", item.get.is_some()),
                ("PUT", item.put.is_some()),
                ("POST", item.post.is_some()),
                ("DELETE", item.delete.is_some()),
                ("PATCH", item.patch.is_some()),
            ];
            let allow: Vec<&str> = ops
                .iter()
                .filter(|(_, has)| *has)
                .map(|(m, _)| *m)
                .collect();
            routes.push((segments(path), allow.join(", ")));
        }
        routes.push((segments("/openapi.json"), "GET, HEAD".to_string()));
        Methods(routes)
    }

    /// The methods `path` allows, if it is a path of the server's.
    pub fn allowed(&self, path: &str) -> Option<String> {
        let asked = segments(path);
        self.0
            .iter()
            .find(|(pattern, _)| {
                pattern.len() == asked.len()
                    && pattern
                        .iter()
                        .zip(&asked)
                        .all(|(p, a)| p.starts_with('{') || p == a)
            })
            .map(|(_, allow)| allow.clone())
    }
}

fn segments(path: &str) -> Vec<String> {
    path.trim_end_matches('/')
        .split('/')
        .map(str::to_string)
        .collect()
}

/// Middleware: an error response that is not problem details already (from actix-web itself
/// or from the docs page) becomes one, with the same status.
pub(crate) fn problem_for_every_error<S, B>(
    req: ServiceRequest,
    srv: &S,
) -> impl std::future::Future<Output = Result<ServiceResponse<EitherBody<B>>, actix_web::Error>>
+ use<S, B>
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let call = srv.call(req);
    async move { Ok(as_problem(call.await?)) }
}

fn as_problem<B: MessageBody>(res: ServiceResponse<B>) -> ServiceResponse<EitherBody<B>> {
    let status = res.status();
    let is_problem = res
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with(PROBLEM_JSON));
    if status.as_u16() < 400 || is_problem {
        return res.map_into_left_body();
    }
    let error = match status {
        StatusCode::NOT_FOUND => ApiError::NotFound("no such resource: see /docs/".into()),
        StatusCode::METHOD_NOT_ALLOWED => {
            let allow = res
                .headers()
                .get("allow")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("GET");
            ApiError::MethodNotAllowed(with_head(allow))
        }
        s if s.is_server_error() => ApiError::Internal(format!("status {s}")),
        s => ApiError::BadRequest(format!(
            "the request was refused ({})",
            s.canonical_reason().unwrap_or("error")
        )),
    };
    let response: HttpResponse = error.error_response();
    let (req, _) = res.into_parts();
    ServiceResponse::new(req, response).map_into_right_body()
}

/// An `Allow` list with HEAD wherever GET is ([`crate::http::head`] answers it).
fn with_head(allow: &str) -> String {
    let methods: Vec<&str> = allow.split(',').map(str::trim).collect();
    if !methods.contains(&"GET") || methods.contains(&"HEAD") {
        return allow.to_string();
    }
    methods
        .iter()
        .flat_map(|m| {
            if *m == "GET" {
                vec!["GET", "HEAD"]
            } else {
                vec![*m]
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The most items a page of events or of the transparency log holds.
pub const MOST_PER_PAGE: u32 = 1000;

/// A page's bounds from its query: `after` (0 or more; 0 when absent) and `limit` (1 to
/// [`MOST_PER_PAGE`]; 200 when absent). `counted` says what `after` counts, for the error.
pub(crate) fn page(
    after: Option<i64>,
    limit: Option<u32>,
    counted: &str,
) -> Result<(i64, u32), ApiError> {
    let limit = limit.unwrap_or(200);
    if !(1..=MOST_PER_PAGE).contains(&limit) {
        return Err(ApiError::BadRequest(format!(
            "limit is between 1 and {MOST_PER_PAGE}"
        )));
    }
    let after = after.unwrap_or(0);
    if after < 0 {
        return Err(ApiError::BadRequest(format!(
            "after is {counted}, 0 or more"
        )));
    }
    Ok((after, limit))
}
