//! The OpenAPI description of Saboteur Server's HTTP API.
//!
//! The paths are collected from the handlers of the `api` crate as they are registered
//! (utoipa-actix-web); this crate holds what is not a handler: the document's header, the
//! bearer security scheme, the problem details type, and the committed `openapi.json` that
//! clients generate from (a golden test in `api` fails when the two drift apart).

use serde::{Deserialize, Serialize};
use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};
use utoipa::{Modify, OpenApi, ToSchema};

/// The committed specification.
pub const COMMITTED: &str = include_str!("../openapi.json");

/// The media type of errors (RFC 9457).
pub const PROBLEM_JSON: &str = "application/problem+json";

/// An error, as RFC 9457 problem details.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({
    "type": "https://saboteur.invalid/problems/rule-violation",
    "title": "The command breaks a rule",
    "status": 422,
    "detail": "tunnel_ns at (3, 0) does not match the edges of its neighbours",
    "code": "edges_mismatch"
}))]
pub struct Problem {
    /// A URI naming the kind of problem.
    #[serde(rename = "type")]
    pub kind: String,
    /// A short summary of the kind of problem.
    pub title: String,
    /// The HTTP status.
    pub status: u16,
    /// What went wrong, in plain words.
    pub detail: String,
    /// A stable code: for 422 a rule-violation code of docs/scenarios.md, or
    /// `idempotency_key_reused`; otherwise one of `bad_request`, `unauthorized`, `forbidden`,
    /// `not_found`, `method_not_allowed`, `conflict`, `precondition_failed`, `busy` (503: too
    /// many event streams), `unavailable` (503: the database cannot be reached), `internal`.
    pub code: String,
}

struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(Http::new(HttpAuthScheme::Bearer)),
        );
    }
}

/// The document's header: title, description, the bearer scheme and shared schemas.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Saboteur Server",
        description = "Play, watch, replay and audit games of Saboteur over HTTP. Every action is an \
immutable event; a game's state is its events replayed. Commands use the wire format of \
docs/scenarios.md. Players authenticate with the bearer token they got when joining; the host with \
the token they got when creating the game. Errors are RFC 9457 problem details with a stable \
`code`.",
        license(name = "MIT")
    ),
    modifiers(&BearerAuth),
    components(schemas(Problem)),
    tags(
        (name = "games", description = "Create, list and join games"),
        (name = "play", description = "What a seat sees, may do, and does"),
        (name = "events", description = "The event log, redacted for the caller"),
        (name = "operations", description = "Health and documentation"),
    )
)]
pub struct ApiDoc;
