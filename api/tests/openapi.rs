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
