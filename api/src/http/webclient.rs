//! The web client: plain ES modules in `api/web/`, embedded in the binary (nothing is
//! fetched at run time). `/` is the lobby, `/play/{id}` the table, `/replay/{id}` the replay
//! viewer and `/audit/{id}` the audit view: each is the same page, which routes on its path.

use actix_web::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use actix_web::{HttpResponse, web};
use rust_embed::RustEmbed;

#[derive(RustEmbed)]
#[folder = "web/"]
struct Assets;

/// Registers the pages and `/assets/…`.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/", web::get().to(page))
        .route("/play/{id}", web::get().to(page))
        .route("/replay/{id}", web::get().to(page))
        .route("/audit/{id}", web::get().to(page))
        .route("/assets/{path:.*}", web::get().to(asset));
}

/// The content type of a file, by its extension.
pub fn content_type(path: &str) -> &'static str {
    match path.rsplit('.').next().unwrap_or_default() {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "svg" => "image/svg+xml",
        "json" => "application/json",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "txt" | "md" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

fn not_found() -> HttpResponse {
    HttpResponse::NotFound()
        .content_type("text/plain; charset=utf-8")
        .body("not found")
}

async fn page() -> HttpResponse {
    match Assets::get("index.html") {
        Some(file) => HttpResponse::Ok()
            .content_type(content_type("index.html"))
            .insert_header((CACHE_CONTROL, "no-cache"))
            .body(file.data.into_owned()),
        None => not_found(),
    }
}

async fn asset(path: web::Path<String>) -> HttpResponse {
    let path = path.into_inner();
    if path == "index.html" || path.split('/').any(|p| p == "..") {
        return not_found();
    }
    match Assets::get(&path) {
        Some(file) => HttpResponse::Ok()
            .insert_header((CONTENT_TYPE, content_type(&path)))
            .insert_header((CACHE_CONTROL, "no-cache"))
            .insert_header(("x-content-type-options", "nosniff"))
            .body(file.data.into_owned()),
        None => not_found(),
    }
}
