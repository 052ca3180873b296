//! The headers the spec declares on every response (see [`declare_headers`]).

use serde_json::Value;

/// Declares the headers every response carries (`Api-Version`), those of waiting
/// (`Retry-After` on 429 and 503), the client's allowance on every counted request
/// (`RateLimit-Policy` and `RateLimit`, draft-ietf-httpapi-ratelimit-headers; not on the health
/// checks and metrics, which are not counted) and the version of a recorded act (`ETag` on a
/// reply carrying an `Outcome`).
pub(crate) fn declare_headers(doc: &mut Value, version_header: &str) {
    let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for (operation, counted) in paths
        .iter_mut()
        .filter_map(|(path, ops)| {
            let counted = !matches!(path.as_str(), "/healthz" | "/healthz/write" | "/metrics");
            Some((ops.as_object_mut()?, counted))
        })
        .flat_map(|(ops, counted)| ops.values_mut().map(move |op| (op, counted)))
    {
        let Some(responses) = operation
            .get_mut("responses")
            .and_then(Value::as_object_mut)
        else {
            continue;
        };
        for (status, response) in responses.iter_mut() {
            let outcome = response
                .pointer("/content/application~1json/schema/$ref")
                .and_then(Value::as_str)
                == Some("#/components/schemas/Outcome");
            let headers = response
                .as_object_mut()
                .map(|r| r.entry("headers").or_insert_with(|| serde_json::json!({})));
            let Some(headers) = headers.and_then(Value::as_object_mut) else {
                continue;
            };
            headers.entry(version_header).or_insert_with(|| {
                serde_json::json!({
                    "description": "The API's version (`info.version`)",
                    "schema": { "type": "string" },
                })
            });
            if status == "429" || status == "503" {
                headers.entry("Retry-After").or_insert_with(|| {
                    serde_json::json!({
                        "description": "Seconds to wait before trying again",
                        "schema": { "type": "string" },
                    })
                });
            }
            if counted {
                headers.entry("RateLimit-Policy").or_insert_with(|| {
                    serde_json::json!({
                        "description": "The limit this request counts against, per client: `\"write\";q=600;w=60` (600 per 60 s; policies `create`, `join`, `write`, `read`). Absent when the server runs without per-client limits",
                        "schema": { "type": "string" },
                    })
                });
                headers.entry("RateLimit").or_insert_with(|| {
                    serde_json::json!({
                        "description": "What is left of it: `\"write\";r=598;t=4` (598 more may be sent now; the allowance is whole again in 4 s). `r=0` on the 429 it refuses",
                        "schema": { "type": "string" },
                    })
                });
            }
            if outcome {
                headers.entry("ETag").or_insert_with(|| {
                    serde_json::json!({
                        "description": "The game's version after the act, quoted: send it as `If-Match`",
                        "schema": { "type": "string" },
                    })
                });
            }
        }
    }
}

/// Declares the optional request header `header` (`Api-Version`, `version` its example) on every operation whose
/// answer carries events: those whose response schemas reach `EventRecord` or `StreamRecord`.
/// A client that sends the version it was generated from is served events of newer types
/// wrapped as `NewerEvent`, which it can parse.
pub(crate) fn declare_client_version(doc: &mut Value, header: &str, version: &str) {
    let schemas = doc
        .pointer("/components/schemas")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let mut carrying: std::collections::BTreeSet<String> =
        ["EventRecord", "StreamRecord"].map(String::from).into();
    loop {
        let before = carrying.len();
        for (name, schema) in &schemas {
            if !carrying.contains(name) && refers_to(schema, &carrying) {
                carrying.insert(name.clone());
            }
        }
        if carrying.len() == before {
            break;
        }
    }
    for operation in operations(doc) {
        let carries = operation
            .get("responses")
            .is_some_and(|r| refers_to(r, &carrying));
        if !carries {
            continue;
        }
        let parameters = operation
            .entry("parameters")
            .or_insert_with(|| serde_json::json!([]));
        if let Some(parameters) = parameters.as_array_mut() {
            parameters.push(serde_json::json!({
                "name": header,
                "in": "header",
                "required": false,
                "description": "The API version your client was generated from (the spec's `info.version`). Events of types a later version introduced are then served wrapped as `NewerEvent`, which your client can parse, instead of as types it has no model for. Without it, every event is served as it is.",
                "schema": {
                    "type": "string",
                    "pattern": "^(0|[1-9][0-9]{0,8})\\.(0|[1-9][0-9]{0,8})\\.(0|[1-9][0-9]{0,8})$",
                    "example": version,
                },
            }));
        }
    }
}

/// Whether `value` holds a `$ref` to one of `names`' component schemas.
fn refers_to(value: &Value, names: &std::collections::BTreeSet<String>) -> bool {
    match value {
        Value::Object(map) => map.iter().any(|(key, v)| {
            (key == "$ref"
                && v.as_str()
                    .and_then(|r| r.strip_prefix("#/components/schemas/"))
                    .is_some_and(|n| names.contains(n)))
                || refers_to(v, names)
        }),
        Value::Array(items) => items.iter().any(|v| refers_to(v, names)),
        _ => false,
    }
}

/// Every operation of the document's paths (each method of each path), as an object.
pub(crate) fn operations(
    doc: &mut Value,
) -> impl Iterator<Item = &mut serde_json::Map<String, Value>> {
    doc.get_mut("paths")
        .and_then(Value::as_object_mut)
        .into_iter()
        .flat_map(|paths| paths.values_mut())
        .filter_map(Value::as_object_mut)
        .flat_map(|ops| ops.values_mut())
        .filter_map(Value::as_object_mut)
}
