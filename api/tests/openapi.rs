//! The committed `openapi/openapi.json` is the spec the handlers generate: an API change shows
//! in review. After a deliberate change: `UPDATE_OPENAPI=1 cargo test -p saboteur-api --test openapi`.

#[test]
fn the_committed_spec_matches_the_handlers() {
    let generated = saboteur_api::spec()
        .to_pretty_json()
        .expect("the spec serialises")
        + "\n";
    if std::env::var_os("UPDATE_OPENAPI").is_some() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../openapi/openapi.json");
        std::fs::write(path, &generated).expect("write openapi.json");
        return;
    }
    assert!(
        generated == saboteur_openapi::COMMITTED,
        "openapi/openapi.json differs from the handlers' spec: run UPDATE_OPENAPI=1 cargo test -p saboteur-api --test openapi"
    );
}

#[test]
fn every_operation_has_a_summary_and_problem_responses() {
    let spec: serde_json::Value =
        serde_json::from_str(&saboteur_api::spec().to_json().unwrap()).unwrap();
    let paths = spec["paths"].as_object().expect("paths");
    assert!(paths.len() >= 9, "{:?}", paths.keys());
    for (path, ops) in paths {
        for (method, op) in ops.as_object().unwrap() {
            assert!(
                op["summary"].as_str().is_some_and(|s| !s.is_empty()),
                "{method} {path} has no summary"
            );
            let responses = op["responses"].as_object().unwrap();
            let errors: Vec<_> = responses
                .keys()
                .filter(|c| c.starts_with('4') || c.starts_with('5'))
                .collect();
            assert!(!errors.is_empty(), "{method} {path} documents no error");
            for code in errors {
                assert!(
                    responses[code]["content"]["application/problem+json"].is_object(),
                    "{method} {path} {code} is not problem+json"
                );
            }
        }
    }
    assert!(spec["components"]["securitySchemes"]["bearer"].is_object());
}

/// The spec with only what travels on the wire: paths, methods, parameters, bodies, status
/// codes, headers and schemas, without the words (descriptions, summaries, titles, examples).
fn wire_form(v: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match v {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| {
                    !matches!(
                        k.as_str(),
                        "description" | "summary" | "title" | "example" | "examples" | "tags"
                    )
                })
                .map(|(k, v)| (k.clone(), wire_form(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(wire_form).collect()),
        other => other.clone(),
    }
}

/// `openapi/wire-versions.txt`: one line per API version, `VERSION SHA256` of the wire form of
/// its spec. A change to the wire format fails here until the version is bumped (and the
/// CHANGELOG says what changed); `UPDATE_OPENAPI=1` then records the new version's line.
#[test]
fn a_change_to_the_wire_format_bumps_the_api_version() {
    use sha2::{Digest, Sha256};
    let spec: serde_json::Value =
        serde_json::from_str(&saboteur_api::spec().to_json().unwrap()).unwrap();
    let version = saboteur_openapi::API_VERSION;
    assert_eq!(spec["info"]["version"], version);
    let mut wire = wire_form(&spec);
    wire["info"] = serde_json::Value::Null;
    let hash = hex::encode(Sha256::digest(wire.to_string()));
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../openapi/wire-versions.txt");
    let recorded = std::fs::read_to_string(path).unwrap_or_default();
    let last = recorded.lines().rfind(|l| !l.starts_with('#'));
    let (last_version, last_hash) = last
        .and_then(|l| l.split_once(' '))
        .unwrap_or(("none", "none"));
    if last_version == version {
        assert_eq!(
            last_hash, hash,
            "the wire format changed under API version {version}: bump \
             saboteur_openapi::API_VERSION, say what changed in CHANGELOG.md, then run \
             UPDATE_OPENAPI=1 cargo test -p saboteur-api --test openapi"
        );
    } else if std::env::var_os("UPDATE_OPENAPI").is_some() {
        std::fs::write(path, format!("{recorded}{version} {hash}\n")).unwrap();
    } else {
        panic!(
            "API version {version} has no line in openapi/wire-versions.txt: run \
             UPDATE_OPENAPI=1 cargo test -p saboteur-api --test openapi"
        );
    }
    let changelog =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../CHANGELOG.md"))
            .expect("CHANGELOG.md");
    assert!(
        changelog.contains(&format!("## {version}")),
        "CHANGELOG.md has no entry for API version {version}"
    );
}

/// What generators need: a name for every operation, a title and a description on every
/// schema, no tuple schemas.
#[test]
fn the_spec_is_ready_for_generated_clients() {
    let spec: serde_json::Value =
        serde_json::from_str(&saboteur_api::spec().to_json().unwrap()).unwrap();
    let mut ids = std::collections::BTreeSet::new();
    for (path, ops) in spec["paths"].as_object().unwrap() {
        for (method, op) in ops.as_object().unwrap() {
            let id = op["operationId"].as_str();
            assert!(id.is_some(), "{method} {path} has no operationId");
            assert!(ids.insert(id), "operationId {id:?} is used twice");
        }
    }
    for (name, schema) in spec["components"]["schemas"].as_object().unwrap() {
        assert_eq!(schema["title"], name.as_str(), "{name} has no title");
        assert!(
            schema["description"]
                .as_str()
                .is_some_and(|d| !d.is_empty()),
            "{name} has no description"
        );
    }
    let text = spec.to_string();
    assert!(!text.contains("prefixItems"), "a tuple schema is left");
    assert!(!text.contains("\"items\":false"), "a tuple schema is left");
    let codes = &spec["components"]["schemas"]["Problem"]["properties"]["code"]["enum"];
    let mut listed: Vec<&str> = codes
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    let mut emitted = saboteur_api::error::all_codes();
    listed.sort_unstable();
    emitted.sort_unstable();
    assert_eq!(
        listed, emitted,
        "the spec lists exactly the codes the server gives"
    );
    assert!(listed.contains(&"edges_mismatch") && listed.contains(&"nothing_to_undo"));
}

/// A body over the limit is 413 `too_large`: every operation that takes a body says so.
#[test]
fn every_operation_with_a_body_documents_413() {
    let spec: serde_json::Value =
        serde_json::from_str(&saboteur_api::spec().to_json().unwrap()).unwrap();
    let mut bodies = 0;
    for (path, ops) in spec["paths"].as_object().unwrap() {
        for (method, op) in ops.as_object().unwrap() {
            if op.get("requestBody").is_none() {
                continue;
            }
            bodies += 1;
            assert!(
                op["responses"]["413"]["content"]["application/problem+json"].is_object(),
                "{method} {path} takes a body but documents no 413"
            );
        }
    }
    assert!(bodies >= 8, "{bodies} operations take a body");
}

/// The operations whose handler sends `header`, found in the handlers' source: each occurrence
/// of `("Header",` belongs to the route attribute (`#[get("…")]`, …) above it.
fn routes_sending(header: &str) -> Vec<(String, String)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/http");
    let mut routes = Vec::new();
    for file in std::fs::read_dir(dir).unwrap() {
        let text = std::fs::read_to_string(file.unwrap().path()).unwrap();
        for (at, _) in text.match_indices(&format!("\"{header}\",")) {
            let before = &text[..at];
            let route = ["get", "post", "put", "delete", "patch"]
                .iter()
                .filter_map(|m| before.rfind(&format!("#[{m}(\"")).map(|i| (i, *m)))
                .max();
            let Some((i, method)) = route else { continue };
            let path = before[i + method.len() + 4..].split('"').next().unwrap();
            routes.push((method.to_string(), path.to_string()));
        }
    }
    routes.sort();
    routes.dedup();
    routes
}

/// Every 201 declares the `Location` it sends, and every response the server sends a `Link`
/// on declares it.
#[test]
fn every_201_declares_location_and_every_link_is_declared() {
    let spec: serde_json::Value =
        serde_json::from_str(&saboteur_api::spec().to_json().unwrap()).unwrap();
    let declares = |response: &serde_json::Value, name: &str| {
        response["headers"]
            .as_object()
            .is_some_and(|h| h.keys().any(|k| k.eq_ignore_ascii_case(name)))
    };
    let mut created = 0;
    for (path, ops) in spec["paths"].as_object().unwrap() {
        for (method, op) in ops.as_object().unwrap() {
            if let Some(response) = op["responses"].get("201") {
                created += 1;
                assert!(
                    declares(response, "Location"),
                    "{method} {path} answers 201 without declaring Location"
                );
            }
        }
    }
    assert!(created >= 5, "{created} operations answer 201");
    let linked = routes_sending("Link");
    for route in [("get", "/games"), ("get", "/games/{id}/events")] {
        assert!(
            linked.contains(&(route.0.into(), route.1.into())),
            "{route:?} sends Link, and the search did not find it: {linked:?}"
        );
    }
    for (method, path) in linked {
        let response = &spec["paths"][&path][&method]["responses"]["200"];
        assert!(
            declares(response, "Link"),
            "{method} {path} sends Link without declaring it"
        );
    }
}
