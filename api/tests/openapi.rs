//! The committed `openapi/openapi.json` is the spec the handlers generate: an API change shows
//! in review. After a deliberate change: `UPDATE_OPENAPI=1 cargo test -p saboteur-api --test openapi`.

#[test]
fn the_committed_spec_matches_the_handlers() {
    let generated = saboteur_api::spec_text(&saboteur_api::spec()) + "\n";
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
    let spec: serde_json::Value = saboteur_api::spec();
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
            // Any failure not listed by status is still a problem a generated client parses.
            assert_eq!(
                responses
                    .get("default")
                    .map(|d| &d["content"]["application/problem+json"]["schema"]["$ref"]),
                Some(&serde_json::json!("#/components/schemas/Problem")),
                "{method} {path} has no default problem response"
            );
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
    let spec: serde_json::Value = saboteur_api::spec();
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

/// The TypeScript SDK's package (its `package.json` and the root of its `package-lock.json`)
/// states the API's version, which its tests check against the spec's: `UPDATE_OPENAPI=1`
/// writes it there when the version moves (the Python SDK reads it from the spec).
#[test]
fn the_typescript_sdk_states_the_api_version() {
    let version = saboteur_openapi::API_VERSION;
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../sdk/typescript");
    let stated = |file: &str| {
        let text = std::fs::read_to_string(format!("{dir}/{file}")).expect("the SDK's package");
        let json: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        let root = json["packages"][""]["version"].as_str().map(str::to_string);
        (
            text,
            json["version"].as_str().unwrap_or_default().to_string(),
            root,
        )
    };
    for (file, roots) in [("package.json", 1), ("package-lock.json", 2)] {
        let (text, was, root) = stated(file);
        if was == version && root.as_deref().is_none_or(|r| r == version) {
            continue;
        }
        assert!(
            std::env::var_os("UPDATE_OPENAPI").is_some(),
            "sdk/typescript/{file} states version {was}, the API is {version}: run \
             UPDATE_OPENAPI=1 cargo test -p saboteur-api --test openapi"
        );
        // The first `"version"` members are the package's own (the lock's root twice).
        let from = format!("\"version\": \"{was}\"");
        let to = format!("\"version\": \"{version}\"");
        std::fs::write(format!("{dir}/{file}"), text.replacen(&from, &to, roots)).unwrap();
        let (_, now, root) = stated(file);
        assert_eq!(
            (now.as_str(), root.as_deref().unwrap_or(version)),
            (version, version)
        );
    }
}

/// What generators need: a name for every operation, a title and a description on every
/// schema, no tuple schemas.
#[test]
fn the_spec_is_ready_for_generated_clients() {
    let spec: serde_json::Value = saboteur_api::spec();
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
    let code = &spec["components"]["schemas"]["Problem"]["properties"]["code"];
    assert_eq!(code["type"], "string");
    assert!(
        code.get("enum").is_none(),
        "Problem.code is open: a client must parse codes added later"
    );
    let codes = &spec["components"]["schemas"][saboteur_openapi::PROBLEM_CODE]["enum"];
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
    let spec: serde_json::Value = saboteur_api::spec();
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
    let spec: serde_json::Value = saboteur_api::spec();
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

/// Every schema inside another (and inside the paths) that has the shape of a component.
fn inline_copies(spec: &serde_json::Value) -> Vec<String> {
    use serde_json::Value;
    let schemas = spec["components"]["schemas"].as_object().unwrap();
    let shape = |v: &Value| {
        let mut v = v.clone();
        if let Some(m) = v.as_object_mut() {
            m.remove("title");
            m.remove("description");
        }
        v
    };
    let components: Vec<(&String, Value)> = schemas
        .iter()
        .map(|(name, schema)| (name, shape(schema)))
        .filter(|(_, s)| {
            ["enum", "oneOf", "properties"]
                .iter()
                .any(|k| s.get(k).is_some())
        })
        .collect();
    fn walk(
        at: String,
        node: &Value,
        root: bool,
        components: &[(&String, Value)],
        shape: &dyn Fn(&Value) -> Value,
        found: &mut Vec<String>,
    ) {
        if !root && node.is_object() {
            let s = shape(node);
            if let Some((name, _)) = components.iter().find(|(_, c)| *c == s) {
                found.push(format!("{at} copies {name}"));
            }
        }
        match node {
            Value::Object(m) => m
                .iter()
                .for_each(|(k, v)| walk(format!("{at}/{k}"), v, false, components, shape, found)),
            Value::Array(items) => items
                .iter()
                .enumerate()
                .for_each(|(i, v)| walk(format!("{at}/{i}"), v, false, components, shape, found)),
            _ => {}
        }
    }
    let mut found = Vec::new();
    for (name, schema) in schemas {
        walk(name.clone(), schema, true, &components, &shape, &mut found);
    }
    walk(
        "paths".into(),
        &spec["paths"],
        true,
        &components,
        &shape,
        &mut found,
    );
    found
}

/// Hidden values refer to the real schema: a card in a hand is a `Card`, a command inside
/// `command_accepted` a `Command`, for every generator.
#[test]
fn no_schema_is_copied_inline() {
    let spec = saboteur_api::spec();
    assert_eq!(inline_copies(&spec), Vec::<String>::new());
    let schemas = &spec["components"]["schemas"];
    assert_eq!(
        schemas["EventCommandAccepted"]["properties"]["command"]["oneOf"][0]["$ref"],
        "#/components/schemas/Command"
    );
    assert!(schemas.get("Secret_Command").is_none());
    assert_eq!(
        schemas["Pile_Card"]["oneOf"][0]["items"]["$ref"],
        "#/components/schemas/Card"
    );
    // The check finds a copy when there is one.
    let mut copied = spec.clone();
    copied["components"]["schemas"]["EventCardDrawn"]["properties"]["card"]["oneOf"][0] =
        schemas["Card"].clone();
    assert_eq!(
        inline_copies(&copied),
        ["EventCardDrawn/properties/card/oneOf/0 copies Card"]
    );
}

/// Every variant of `Command` and `Event` is a named schema, and the union's discriminator maps
/// each `type` to it.
#[test]
fn every_variant_is_a_named_schema_with_a_discriminator() {
    let spec = saboteur_api::spec();
    let schemas = &spec["components"]["schemas"];
    for union in ["Command", "Event"] {
        let variants = schemas[union]["oneOf"].as_array().unwrap();
        let mapping = schemas[union]["discriminator"]["mapping"]
            .as_object()
            .unwrap();
        assert_eq!(schemas[union]["discriminator"]["propertyName"], "type");
        assert_eq!(variants.len(), mapping.len(), "{union}");
        assert!(variants.len() >= 6, "{union}");
        for variant in variants {
            let location = variant["$ref"].as_str().expect("a variant is a $ref");
            let name = location.rsplit('/').next().unwrap();
            let tag = schemas[name]["properties"]["type"]["enum"][0]
                .as_str()
                .unwrap();
            assert_eq!(mapping[tag], location, "{union} {tag}");
            assert!(name.starts_with(union), "{name}");
        }
    }
    assert!(schemas["EventCardDrawn"].is_object() && schemas["CommandPlayPath"].is_object());
}

/// Every response says what it carries: a content type for each body (a 204 has none),
/// `Api-Version` on every one, `Retry-After` on every 429 and 503, `ETag` on every `Outcome`;
/// the stream is `text/event-stream`, each message a `StreamMessage` whose data is an
/// `EventRecord`.
#[test]
fn every_response_declares_its_content_and_headers() {
    let spec = saboteur_api::spec();
    let mut responses = 0;
    for (path, ops) in spec["paths"].as_object().unwrap() {
        for (method, op) in ops.as_object().unwrap() {
            for (status, response) in op["responses"].as_object().unwrap() {
                responses += 1;
                let content = response["content"].as_object();
                if status == "204" {
                    assert!(content.is_none(), "{method} {path} {status} has a body");
                } else {
                    assert!(
                        content.is_some_and(|c| !c.is_empty()),
                        "{method} {path} {status} declares no content type"
                    );
                }
                let headers = &response["headers"];
                assert!(
                    headers[saboteur_openapi::API_VERSION_HEADER].is_object(),
                    "{method} {path} {status} does not declare Api-Version"
                );
                if status == "429" || status == "503" {
                    assert!(
                        headers["Retry-After"].is_object(),
                        "{method} {path} {status} does not declare Retry-After"
                    );
                }
                if response["content"]["application/json"]["schema"]["$ref"]
                    == "#/components/schemas/Outcome"
                {
                    assert!(
                        headers["ETag"].is_object(),
                        "{method} {path} {status} does not declare ETag"
                    );
                }
            }
        }
    }
    assert!(responses > 100, "{responses}");
    let stream = &spec["paths"]["/games/{id}/events/stream"]["get"]["responses"]["200"];
    assert_eq!(
        stream["content"]["text/event-stream"]["schema"]["$ref"],
        "#/components/schemas/StreamMessage"
    );
    assert_eq!(
        spec["components"]["schemas"]["StreamMessage"]["properties"]["data"]["contentSchema"]["$ref"],
        "#/components/schemas/StreamRecord"
    );
}

/// Every code a client can meet is explained where a client developer reads: the rule
/// violations in docs/scenarios.md, the rest in docs/clients.md.
#[test]
fn every_code_is_documented() {
    let docs = [
        concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/clients.md"),
        concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/scenarios.md"),
    ]
    .map(|path| std::fs::read_to_string(path).expect("the client docs"))
    .join("\n");
    let missing: Vec<&str> = saboteur_api::error::all_codes()
        .into_iter()
        .filter(|code| !docs.contains(&format!("`{code}`")))
        .collect();
    assert!(missing.is_empty(), "codes no doc explains: {missing:?}");
}

/// An operation that takes an `Idempotency-Key` documents what a bad one answers (400) and one
/// sent with another request (422 `idempotency_key_reused`).
#[test]
fn a_keyed_operation_documents_its_key_refusals() {
    let spec: serde_json::Value = saboteur_api::spec();
    for (path, ops) in spec["paths"].as_object().unwrap() {
        for (method, op) in ops.as_object().unwrap() {
            let keyed = op["parameters"]
                .as_array()
                .is_some_and(|ps| ps.iter().any(|p| p["name"] == "Idempotency-Key"));
            if keyed {
                for status in ["400", "422"] {
                    assert!(
                        op["responses"].get(status).is_some(),
                        "{method} {path} takes an Idempotency-Key but documents no {status}"
                    );
                }
            }
        }
    }
}
