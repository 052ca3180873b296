//! The operations endpoints: health, the spec, the interactive docs.

use reqwest::StatusCode;

use crate::helpers::TestApp;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn operations_endpoints() {
    let app = TestApp::sqlite().await;
    let (st, h) = app.health().await;
    assert_eq!((st, h["status"].as_str()), (StatusCode::OK, Some("ok")));
    let (st, spec) = app.openapi().await;
    assert_eq!(st, StatusCode::OK);
    assert!(spec["paths"]["/games/{id}/commands"]["post"].is_object());
    let (st, page) = app.docs().await;
    assert_eq!(st, StatusCode::OK);
    assert!(page.contains("swagger"));
}

/// Every response states the API's version, the one the served spec declares: successes,
/// problems, the web client's pages.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_response_states_the_api_version() {
    let app = TestApp::sqlite().await;
    let (_, spec) = app.openapi().await;
    let version = spec["info"]["version"].as_str().unwrap().to_string();
    assert_eq!(version, saboteur_openapi::API_VERSION);
    let client = reqwest::Client::new();
    for (path, status) in [
        ("/healthz", StatusCode::OK),
        ("/games/not-a-game", StatusCode::NOT_FOUND),
        ("/no/such/path", StatusCode::NOT_FOUND),
        ("/", StatusCode::OK),
    ] {
        let res = client
            .get(format!("{}{path}", app.base))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), status, "{path}");
        assert_eq!(
            res.headers()
                .get("api-version")
                .map(|v| v.to_str().unwrap()),
            Some(version.as_str()),
            "{path}"
        );
    }
}
