//! Who a request is and which game it names, read from the request alone (for the gates that
//! answer before a handler runs).

/// The game a request's path names (`/games/{id}/…`).
pub(crate) fn game_of(path: &str) -> Option<&str> {
    path.strip_prefix("/games/")?
        .split('/')
        .next()
        .filter(|id| !id.is_empty())
}

/// The bearer token a request carries.
pub(crate) fn bearer(req: &actix_web::HttpRequest) -> Option<&str> {
    req.headers()
        .get("authorization")?
        .to_str()
        .ok()?
        .strip_prefix("Bearer ")
        .map(str::trim)
}
