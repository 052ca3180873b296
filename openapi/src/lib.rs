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
    /// `not_found`, `method_not_allowed`, `too_large` (413: a body over 64 KiB), `conflict`,
    /// `precondition_failed`, `busy` (503: too many event streams), `unavailable` (503: the
    /// database cannot be reached), `internal`.
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
`code`. Every GET also answers HEAD: the same status and headers, without the body.",
        license(name = "MIT")
    ),
    modifiers(&BearerAuth),
    components(schemas(Problem)),
    tags(
        (name = "games", description = "Create, list and join games"),
        (name = "play", description = "What a seat sees, may do, and does"),
        (name = "events", description = "The event log, redacted for the caller"),
        (name = "table", description = "Playing online: table talk, seats handed to bots and taken back, new tokens, presence"),
        (name = "audit", description = "Signing keys, receipts and the transparency log of finished games"),
        (name = "operations", description = "Health and documentation"),
    )
)]
pub struct ApiDoc;

/// The version of the HTTP API: the spec's `info.version` and every response's
/// [`API_VERSION_HEADER`]. A change to the wire format bumps it and gets a CHANGELOG entry; the
/// golden test `api/tests/openapi.rs` fails until both are done.
pub const API_VERSION: &str = "0.5.0";

/// The response header that states [`API_VERSION`].
pub const API_VERSION_HEADER: &str = "Api-Version";

/// Finishes the document the handlers produced, for generated clients: the API's version,
/// a `title` on every component schema (its name), and the closed set of problem codes as an
/// enum on `Problem.code`.
pub fn finish(spec: utoipa::openapi::OpenApi, codes: &[&str]) -> utoipa::openapi::OpenApi {
    let mut doc = match serde_json::to_value(&spec) {
        Ok(doc) => doc,
        Err(_) => return spec,
    };
    doc["info"]["version"] = API_VERSION.into();
    // OpenAPI 3.1 names a license by its SPDX identifier; strict validators require it.
    doc["info"]["license"]["identifier"] = "MIT".into();
    if let Some(schemas) = doc
        .pointer_mut("/components/schemas")
        .and_then(|s| s.as_object_mut())
    {
        for (name, schema) in schemas.iter_mut() {
            let Some(schema) = schema.as_object_mut() else {
                continue;
            };
            schema
                .entry("title")
                .or_insert_with(|| name.as_str().into());
            // The variants of a union, named after their tag (`Command` `play_path` →
            // `CommandPlayPath`), their one value (`Audience` `spectator`) or their one
            // property (`Audience` `seat`), so that generated types have names.
            for variant in schema
                .get_mut("oneOf")
                .and_then(|v| v.as_array_mut())
                .into_iter()
                .flatten()
            {
                let only_value = variant
                    .get("enum")
                    .and_then(|e| e.as_array())
                    .filter(|e| e.len() == 1)
                    .and_then(|e| e[0].as_str());
                let only_property = variant
                    .get("properties")
                    .and_then(|p| p.as_object())
                    .filter(|p| p.len() == 1)
                    .and_then(|p| p.keys().next())
                    .map(String::as_str);
                let tag = variant
                    .pointer("/properties/type/enum/0")
                    .and_then(|t| t.as_str())
                    .or(only_value)
                    .or(only_property)
                    .map(|t| format!("{name}{}", pascal(t)));
                if let (Some(tag), Some(variant)) = (tag, variant.as_object_mut()) {
                    variant.entry("title").or_insert_with(|| tag.into());
                }
            }
        }
    }
    if let Some(code) = doc.pointer_mut("/components/schemas/Problem/properties/code") {
        code["enum"] = codes.iter().map(|c| serde_json::Value::from(*c)).collect();
    }
    serde_json::from_value(doc).unwrap_or(spec)
}

/// `play_path` → `PlayPath`.
fn pascal(snake: &str) -> String {
    snake
        .split('_')
        .map(|word| {
            let mut chars = word.chars();
            chars
                .next()
                .map(|first| first.to_uppercase().chain(chars).collect::<String>())
                .unwrap_or_default()
        })
        .collect()
}
