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
