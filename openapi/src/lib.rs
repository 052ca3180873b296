//! The OpenAPI description of Saboteur Server's HTTP API.
//!
//! The paths are collected from the handlers of the `api` crate as they are registered
//! (utoipa-actix-web); this crate holds what is not a handler: the document's header, the
//! bearer security scheme, the problem details type, and the committed `openapi.json` that
//! clients generate from (a golden test in `api` fails when the two drift apart).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};
use utoipa::{Modify, OpenApi, ToSchema};

mod headers;

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
    /// A stable code: for 422 a rule-violation code of docs/scenarios.md (or
    /// `idempotency_key_reused`); otherwise a code of the HTTP layer (`not_found`,
    /// `precondition_failed`, `too_many_requests`, `too_large`, `unavailable`, …).
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
`code`. Every GET also answers HEAD: the same status and headers, without the body. Receipts, \
signed by the server (keep them): `GET /games/{id}/state` (a `StateView`) and every reply carrying \
an `Outcome` (commands, start, undo requests and votes, rollback, talk and hiding it, hand-over and \
reclaim) carry a `receipt` of kind `view` or `outcome`; creating a game, joining, claiming a \
rematch's seat and a key changed before the start carry a `commitment` receipt of the seed \
commitment; a refusal (4xx) of a request on a game made with a token or a seat's signature carries a \
`refusal` receipt. The other replies carry none: seating a bot, a new token, `GET /games/{id}`, \
legal moves, event pages, the stream and listings show what the receipts of the views and \
outcomes around them and the audit bundle already cover.",
        license(name = "MIT")
    ),
    modifiers(&BearerAuth),
    components(schemas(Problem, StreamMessage)),
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
pub const API_VERSION: &str = "0.20.0";

/// The response header that states [`API_VERSION`].
pub const API_VERSION_HEADER: &str = "Api-Version";

/// One message of `GET /games/{id}/events/stream` (Server-Sent Events, `text/event-stream`),
/// field by field. Messages are separated by a blank line; lines starting with `:` are
/// keep-alive comments (one every 5 s) and carry nothing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({
    "id": "12",
    "event": "card_drawn",
    "data": "{\"seq\":12,\"event\":{\"type\":\"card_drawn\",\"seat\":0,\"card\":null}}"
}))]
pub struct StreamMessage {
    /// The event's sequence number, in decimal. Send the last one received back in the
    /// `Last-Event-ID` header to resume after a dropped connection.
    pub id: String,
    /// The event's `type` (`card_drawn`, `path_played`, …; `newer` for an event wrapped for a
    /// client that declared an older `Api-Version`), for SSE libraries that dispatch on it.
    pub event: String,
    /// A `StreamRecord` as JSON text (`{"seq": n, "event": {…}}`, and `"table": {…}` on the
    /// last event of each batch of a stream opened with `?table=true`): parse it with the
    /// `StreamRecord` schema.
    #[schema(content_media_type = "application/json")]
    pub data: String,
}

/// The schema of every stable problem code the server answers with today (the values
/// `Problem.code` may take). New codes may be added in a minor version: a client compares
/// against these and treats any other value as a code it does not know.
pub const PROBLEM_CODE: &str = "ProblemCode";

/// Finishes the document the handlers produced, for generated clients, and returns it as JSON
/// (some of what it says, like `contentSchema`, has no place in utoipa's types):
/// - the API's version, and the license's SPDX identifier;
/// - no inline copies: a schema that repeats a component (a hidden card inside `Secret_Card`,
///   a command inside `Secret_Command`) refers to it with `$ref`;
/// - every variant of a union tagged by `type` (`Command`, `Event`) is a component of its
///   own, named after its tag (`CommandPlayPath`, `EventCardDrawn`), and the union carries a
///   `discriminator`;
/// - `Problem.code` is open (a string), and [`PROBLEM_CODE`] lists `codes`, the codes the
///   server emits;
/// - the stream's messages are described by [`StreamMessage`], whose `data` is a
///   `StreamRecord` (an `EventRecord`, and the caller's table when asked for);
/// - every response declares `Api-Version`; every 429 and 503 declares `Retry-After`; every
///   reply carrying an `Outcome` declares its `ETag`; every operation that serves events takes
///   the client's `Api-Version` (events of newer types wrapped as `NewerEvent`);
/// - a `title` on every component schema (its name) and on the variants of the unions left.
pub fn finish(spec: utoipa::openapi::OpenApi, codes: &[&str]) -> serde_json::Value {
    let mut doc = serde_json::to_value(&spec).expect("a utoipa document serialises to JSON");
    doc["info"]["version"] = API_VERSION.into();
    // OpenAPI 3.1 names a license by its SPDX identifier; strict validators require it.
    doc["info"]["license"]["identifier"] = "MIT".into();
    refer_to_components(&mut doc);
    inline_nullable_references(&mut doc);
    flatten_nullable_unions(&mut doc);
    mark_unsigned(&mut doc);
    name_tagged_variants(&mut doc);
    open_problem_codes(&mut doc, codes);
    describe_stream(&mut doc);
    limit_every_client(&mut doc);
    answer_any_failure(&mut doc);
    headers::declare_headers(&mut doc, API_VERSION_HEADER);
    headers::declare_client_version(&mut doc, API_VERSION_HEADER, API_VERSION);
    title_schemas(&mut doc);
    doc
}

/// A schema with its own words (`title`, `description`) left out, for comparing shapes.
fn shape(schema: &Value) -> Value {
    let mut shape = schema.clone();
    if let Some(map) = shape.as_object_mut() {
        map.remove("title");
        map.remove("description");
    }
    shape
}

/// Whether a component is a type of its own that generators name: an enum, a union, an
/// object's properties. A constrained primitive (a string with a pattern, like `Seed`) is not:
/// generators type it as the primitive wherever it appears, so repeating it inline is not a copy.
fn recognisable(shape: &Value) -> bool {
    ["enum", "oneOf", "anyOf", "allOf", "properties"]
        .iter()
        .any(|k| shape.get(k).is_some())
}

/// Replaces every inline copy of a component schema, anywhere in the document but the
/// component itself, with a `$ref` to it (keeping the copy's own description when it differs).
fn refer_to_components(doc: &mut Value) {
    let Some(schemas) = doc
        .pointer("/components/schemas")
        .and_then(Value::as_object)
    else {
        return;
    };
    let known: Vec<(String, Value, Option<Value>)> = schemas
        .iter()
        .map(|(name, schema)| {
            (
                name.clone(),
                shape(schema),
                schema.get("description").cloned(),
            )
        })
        .filter(|(_, shape, _)| recognisable(shape))
        .collect();
    fn walk(node: &mut Value, known: &[(String, Value, Option<Value>)], skip: Option<&str>) {
        if node.is_object() && skip.is_none() {
            let node_shape = shape(node);
            if let Some((name, _, description)) = known.iter().find(|(_, s, _)| *s == node_shape) {
                let mut reference = serde_json::Map::new();
                reference.insert("$ref".into(), format!("#/components/schemas/{name}").into());
                if let Some(own) = node
                    .get("description")
                    .filter(|d| Some(*d) != description.as_ref())
                {
                    reference.insert("description".into(), own.clone());
                }
                *node = Value::Object(reference);
                return;
            }
        }
        match node {
            Value::Object(map) => map.values_mut().for_each(|v| walk(v, known, None)),
            Value::Array(items) => items.iter_mut().for_each(|v| walk(v, known, None)),
            _ => {}
        }
    }
    if let Some(schemas) = doc
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    {
        for (name, schema) in schemas.iter_mut() {
            // The component itself is not a copy of itself; what is inside it may be.
            walk(schema, &known, Some(name));
        }
    }
    if let Some(paths) = doc.get_mut("paths") {
        walk(paths, &known, None);
    }
}

/// A component that only says "this other schema, or null" (`Secret_Command`: a `Command` or
/// `null`) is written where it is used instead, as `oneOf: [{$ref}, {type: null}]`, and
/// dropped: generators type such a property as a nullable reference to the real type, where a
/// component of its own became a wrapper type (or, in openapi-generator's Go, did not compile).
fn inline_nullable_references(doc: &mut Value) {
    let Some(schemas) = doc
        .pointer("/components/schemas")
        .and_then(Value::as_object)
    else {
        return;
    };
    let wrappers: Vec<(String, Value)> = schemas
        .iter()
        .filter_map(|(name, schema)| {
            match schema.get("oneOf").and_then(Value::as_array)?.as_slice() {
                [reference, null]
                    if reference.get("$ref").is_some()
                        && null.get("type").and_then(Value::as_str) == Some("null") =>
                {
                    Some((
                        format!("#/components/schemas/{name}"),
                        reference["$ref"].clone(),
                    ))
                }
                _ => None,
            }
        })
        .collect();
    fn walk(node: &mut Value, wrappers: &[(String, Value)]) {
        if let Some(target) = node
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| wrappers.iter().find(|(w, _)| w == r))
            .map(|(_, target)| target.clone())
        {
            let mut inline = serde_json::json!({
                "oneOf": [{ "$ref": target }, { "type": "null" }],
            });
            if let Some(description) = node.get("description") {
                inline["description"] = description.clone();
            }
            *node = inline;
            return;
        }
        match node {
            Value::Object(map) => map.values_mut().for_each(|v| walk(v, wrappers)),
            Value::Array(items) => items.iter_mut().for_each(|v| walk(v, wrappers)),
            _ => {}
        }
    }
    walk(doc, &wrappers);
    if let Some(schemas) = doc
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    {
        for (location, _) in &wrappers {
            let name = location.trim_start_matches("#/components/schemas/");
            schemas.remove(name);
        }
    }
}

/// A union of `null` and another union that holds `null` (an optional hidden value:
/// `Option<Secret<SeatSignature>>`) is written as one union, `oneOf: [{$ref}, {type: null}]`,
/// with the inner one's description: generators read a nested union as a type of its own (in
/// openapi-generator's Rust, one that did not compile).
fn flatten_nullable_unions(doc: &mut Value) {
    let is_null = |v: &Value| v.get("type").and_then(Value::as_str) == Some("null");
    match doc {
        Value::Object(map) => {
            let nested = map
                .get("oneOf")
                .and_then(Value::as_array)
                .and_then(|items| match items.as_slice() {
                    [a, b] if is_null(a) && b.get("oneOf").is_some() => Some(b.clone()),
                    [a, b] if is_null(b) && a.get("oneOf").is_some() => Some(a.clone()),
                    _ => None,
                });
            if let Some(inner) = nested
                && inner["oneOf"]
                    .as_array()
                    .is_some_and(|i| i.iter().any(is_null))
            {
                map.insert("oneOf".into(), inner["oneOf"].clone());
                if let (None, Some(d)) = (map.get("description"), inner.get("description")) {
                    map.insert("description".into(), d.clone());
                }
            }
            map.values_mut().for_each(flatten_nullable_unions);
        }
        Value::Array(items) => items.iter_mut().for_each(flatten_nullable_unions),
        _ => {}
    }
}

/// Integers that cannot be negative and may pass 2^63 (a bot's 64-bit seed) are marked
/// `x-unsigned`, so that generators type them as unsigned 64-bit integers (Go's `uint64`).
fn mark_unsigned(doc: &mut Value) {
    match doc {
        Value::Object(map) => {
            let unsigned = map.get("type").and_then(Value::as_str) == Some("integer")
                && map.get("format").and_then(Value::as_str) == Some("int64")
                && map.get("minimum").and_then(Value::as_u64) == Some(0);
            if unsigned {
                map.insert("x-unsigned".into(), true.into());
            }
            map.values_mut().for_each(mark_unsigned);
        }
        Value::Array(items) => items.iter_mut().for_each(mark_unsigned),
        _ => {}
    }
}

/// The value of a variant's `type` tag, when it is an object tagged by one.
fn tag_of(variant: &Value) -> Option<&str> {
    let values = variant.pointer("/properties/type/enum")?.as_array()?;
    match values.as_slice() {
        [only] => only.as_str(),
        _ => None,
    }
}

/// Moves each variant of every union tagged by `type` into a component of its own,
/// `{Union}{Tag}`, and gives the union a discriminator mapping each tag to it.
fn name_tagged_variants(doc: &mut Value) {
    let Some(schemas) = doc
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    let mut named = Vec::new();
    for (name, schema) in schemas.iter_mut() {
        let Some(variants) = schema.get_mut("oneOf").and_then(Value::as_array_mut) else {
            continue;
        };
        let tags: Option<Vec<String>> = variants
            .iter()
            .map(|v| tag_of(v).map(str::to_owned))
            .collect();
        let Some(tags) = tags.filter(|t| !t.is_empty()) else {
            continue;
        };
        let mut mapping = serde_json::Map::new();
        for (variant, tag) in variants.iter_mut().zip(&tags) {
            let component = format!("{name}{}", pascal(tag));
            let location = format!("#/components/schemas/{component}");
            mapping.insert(tag.clone(), location.clone().into());
            let mut body = std::mem::replace(variant, serde_json::json!({ "$ref": location }));
            body["title"] = component.clone().into();
            named.push((component, body));
        }
        schema["discriminator"] = serde_json::json!({ "propertyName": "type", "mapping": mapping });
    }
    for (component, body) in named {
        let clash = schemas.insert(component.clone(), body);
        assert!(
            clash.is_none(),
            "the variant {component} clashes with a schema of that name"
        );
    }
}

/// `Problem.code` becomes an open string; [`PROBLEM_CODE`] lists the known values.
fn open_problem_codes(doc: &mut Value, codes: &[&str]) {
    if let Some(code) = doc.pointer_mut("/components/schemas/Problem/properties/code") {
        if let Some(code) = code.as_object_mut() {
            code.remove("enum");
        }
        let said = code["description"].as_str().unwrap_or_default().to_owned();
        code["description"] = format!(
            "{said} The codes the server answers with today are the values of `{PROBLEM_CODE}`; \
             more may be added, so treat a code you do not know like its status."
        )
        .into();
    }
    if let Some(schemas) = doc
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    {
        schemas.insert(
            PROBLEM_CODE.into(),
            serde_json::json!({
                "type": "string",
                "description": "Every stable code a problem carries today (`Problem.code`): the \
                    rule-violation codes of docs/scenarios.md and the codes of the HTTP layer. \
                    New codes may be added in a minor version.",
                "enum": codes,
            }),
        );
    }
}

/// The stream's 200 is `text/event-stream`, each message a [`StreamMessage`] whose `data` is
/// an `EventRecord` as JSON.
fn describe_stream(doc: &mut Value) {
    if let Some(data) = doc.pointer_mut("/components/schemas/StreamMessage/properties/data") {
        data["contentSchema"] = serde_json::json!({ "$ref": "#/components/schemas/StreamRecord" });
    }
}

/// Every operation answers any failure it does not document by status as a problem: a
/// `default` response, so that a generated client reads a 500 (`internal`: a fault of the
/// server, logged), a 503 (`unavailable`) or a status a later version adds as a `Problem`
/// instead of failing to parse it.
fn answer_any_failure(doc: &mut Value) {
    for operation in headers::operations(doc) {
        let Some(responses) = operation
            .get_mut("responses")
            .and_then(Value::as_object_mut)
        else {
            continue;
        };
        responses.entry("default").or_insert_with(|| {
            serde_json::json!({
                "description": "Any other failure, as a problem: 500 `internal` (a fault of the \
                    server, logged), 503 `unavailable` (the database cannot be reached: try \
                    again after `Retry-After` seconds), or a status a later version documents",
                "content": { (PROBLEM_JSON): {
                    "schema": { "$ref": "#/components/schemas/Problem" }
                } },
            })
        });
    }
}

/// Every operation of the game's API (not `/healthz` or `/metrics`) may answer 429: a client
/// over one of its per-client limits. An operation that documents its own 429 (table talk's)
/// has the limits added to its description.
fn limit_every_client(doc: &mut Value) {
    const LIMITS: &str = "Over a per-client limit (requests of this kind from this address, \
        event streams open at once, games created that nobody started): try again after \
        `Retry-After` seconds; nothing was recorded";
    let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for (path, ops) in paths.iter_mut() {
        if !["/games", "/catalogue", "/keys", "/log"]
            .iter()
            .any(|p| path == p || path.starts_with(&format!("{p}/")))
        {
            continue;
        }
        for operation in ops.as_object_mut().into_iter().flat_map(|o| o.values_mut()) {
            let Some(responses) = operation
                .get_mut("responses")
                .and_then(Value::as_object_mut)
            else {
                continue;
            };
            match responses.get_mut("429") {
                Some(own) => {
                    let text = own["description"].as_str().unwrap_or_default().to_string();
                    own["description"] = format!("{text}; or: {LIMITS}").into();
                }
                None => {
                    responses.insert(
                        "429".into(),
                        serde_json::json!({
                            "description": LIMITS,
                            "content": { (PROBLEM_JSON): {
                                "schema": { "$ref": "#/components/schemas/Problem" }
                            } },
                        }),
                    );
                }
            }
        }
    }
}

/// A `title` on every component schema (its name), and on the variants of the unions that are
/// not tagged by `type`, named after their one value (`Audience` `spectator`), their one
/// property (`Audience` `seat`) or the one value of their tag property (`Clock` `kind`
/// `per_decision`), so that generated types have names (`ClockPerDecision`, not `ClockType0`).
fn title_schemas(doc: &mut Value) {
    let Some(schemas) = doc
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    for (name, schema) in schemas.iter_mut() {
        let Some(schema) = schema.as_object_mut() else {
            continue;
        };
        schema
            .entry("title")
            .or_insert_with(|| name.as_str().into());
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
            // A variant tagged by a property of one value other than `type` (`Clock`'s `kind`).
            let tag_value = variant
                .get("properties")
                .and_then(|p| p.as_object())
                .into_iter()
                .flat_map(|p| p.values())
                .filter_map(|p| p.get("enum").and_then(|e| e.as_array()))
                .find(|e| e.len() == 1)
                .and_then(|e| e[0].as_str());
            let tag = only_value
                .or(only_property)
                .or(tag_value)
                .map(|t| format!("{name}{}", pascal(t)));
            if let (Some(tag), Some(variant)) = (tag, variant.as_object_mut()) {
                variant.entry("title").or_insert_with(|| tag.into());
            }
        }
    }
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
