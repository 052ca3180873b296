//! The web client: plain ES modules in `api/web/`, embedded in the binary (nothing is
//! fetched at run time). `/` is the lobby, `/play/{id}` the table, `/replay/{id}` the replay
//! viewer, `/audit/{id}` the audit view and `/rules` the rules in short: each is the same
//! page, which routes on its path (`app.js`).

use std::collections::HashMap;
use std::io::Write as _;
use std::sync::{Mutex, OnceLock};

use actix_web::http::header::{
    ACCEPT_ENCODING, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_TYPE, ETAG, IF_NONE_MATCH, VARY,
};
use actix_web::{HttpRequest, HttpResponse, web};
use flate2::Compression;
use flate2::write::GzEncoder;
use rust_embed::{EmbeddedFile, RustEmbed};

#[derive(RustEmbed)]
#[folder = "web/"]
struct Assets;

/// Registers the pages and `/assets/…`.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/", web::get().to(page))
        .route("/play/{id}", web::get().to(page))
        .route("/replay/{id}", web::get().to(page))
        .route("/audit/{id}", web::get().to(page))
        .route("/rules", web::get().to(page))
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

/// The file's entity tag: the first 16 bytes of its SHA-256, quoted.
fn etag(file: &EmbeddedFile) -> String {
    format!("\"{}\"", hex::encode(&file.metadata.sha256_hash()[..16]))
}

/// Whether the request's `If-None-Match` names `tag` (or is `*`).
fn not_modified(req: &HttpRequest, tag: &str) -> bool {
    req.headers()
        .get_all(IF_NONE_MATCH)
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|t| t.trim().trim_start_matches("W/"))
        .any(|t| t == tag || t == "*")
}

/// Whether the client takes gzip (`Accept-Encoding`, a `q` of 0 refusing it).
fn takes_gzip(req: &HttpRequest) -> bool {
    req.headers()
        .get_all(ACCEPT_ENCODING)
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|item| {
            let mut parts = item.split(';').map(str::trim);
            let coding = parts.next().unwrap_or_default();
            let refused = parts.any(|p| p.replace(' ', "") == "q=0" || p == "q=0.0");
            (coding.eq_ignore_ascii_case("gzip") || coding == "*") && !refused
        })
}

/// The gzip form of an embedded file, made once per file and kept.
fn gzipped(path: &str, data: &[u8]) -> std::sync::Arc<Vec<u8>> {
    static CACHE: OnceLock<Mutex<HashMap<String, std::sync::Arc<Vec<u8>>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Mutex::default);
    if let Some(done) = cache.lock().ok().and_then(|c| c.get(path).cloned()) {
        return done;
    }
    let mut encoder = GzEncoder::new(Vec::new(), Compression::best());
    // Writing into a Vec cannot fail.
    let packed = encoder
        .write_all(data)
        .and_then(|()| encoder.finish())
        .unwrap_or_default();
    let packed = std::sync::Arc::new(packed);
    if let Ok(mut c) = cache.lock() {
        c.insert(path.to_string(), packed.clone());
    }
    packed
}

/// An embedded file: `304` when the client holds it (`If-None-Match`), gzip when the client
/// takes it and it is text, with its `ETag`; `no-cache` makes the browser ask again each time,
/// which costs a `304` and no body while the file is unchanged.
fn serve(req: &HttpRequest, path: &str, file: EmbeddedFile) -> HttpResponse {
    let tag = etag(&file);
    let kind = content_type(path);
    if not_modified(req, &tag) {
        return HttpResponse::NotModified()
            .insert_header((ETAG, tag))
            .insert_header((CACHE_CONTROL, "no-cache"))
            .insert_header((VARY, "Accept-Encoding"))
            .finish();
    }
    let mut response = HttpResponse::Ok();
    response
        .insert_header((CONTENT_TYPE, kind))
        .insert_header((ETAG, tag))
        .insert_header((CACHE_CONTROL, "no-cache"))
        .insert_header((VARY, "Accept-Encoding"))
        .insert_header(("x-content-type-options", "nosniff"));
    let text = kind.starts_with("text/")
        || kind.starts_with("application/json")
        || kind == "image/svg+xml";
    if text && takes_gzip(req) {
        response.insert_header((CONTENT_ENCODING, "gzip"));
        return response.body(gzipped(path, &file.data).as_ref().clone());
    }
    response.body(file.data.into_owned())
}

async fn page(req: HttpRequest) -> HttpResponse {
    match Assets::get("index.html") {
        Some(file) => serve(&req, "index.html", file),
        None => not_found(),
    }
}

async fn asset(req: HttpRequest, path: web::Path<String>) -> HttpResponse {
    let path = path.into_inner();
    if path == "index.html" || path.split('/').any(|p| p == "..") {
        return not_found();
    }
    match Assets::get(&path) {
        Some(file) => serve(&req, &path, file),
        None => not_found(),
    }
}
