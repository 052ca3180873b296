//! What the flooded server's answers say: a refusal by a limit, the allowance left, the lobbies
//! listed and the refusals counted in `/metrics`.

use reqwest::{Client, StatusCode};
use serde_json::Value;

use crate::harness::{Remote, send};

/// A refusal by a per-client limit: 429 problem+json, its code, a wait.
pub(super) fn limited(what: &str, reply: &(StatusCode, Value, reqwest::header::HeaderMap)) {
    let (st, body, headers) = reply;
    assert_eq!(*st, StatusCode::TOO_MANY_REQUESTS, "{what}: {body}");
    assert_eq!(body["code"], "too_many_requests", "{what}: {body}");
    let wait: u64 = headers
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{what}: no Retry-After"));
    assert!(wait >= 1, "{what}: Retry-After {wait}");
}

/// A reply's `RateLimit` field (`"policy";r=N;t=S`) read as (policy, remaining), after
/// checking its `RateLimit-Policy` names the same policy with `q` and `w`.
pub(super) fn allowance(headers: &reqwest::header::HeaderMap, policy: &str, q: u32, w: u64) -> u64 {
    let field = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_else(|| panic!("no {name}: {headers:?}"))
            .to_string()
    };
    assert_eq!(
        field("ratelimit-policy"),
        format!("\"{policy}\";q={q};w={w}")
    );
    let said = field("ratelimit");
    let rest = said
        .strip_prefix(&format!("\"{policy}\";r="))
        .unwrap_or_else(|| panic!("RateLimit: {said}"));
    let (remaining, reset) = rest.split_once(";t=").unwrap();
    assert!(reset.parse::<u64>().unwrap() <= w, "{said}");
    remaining.parse().unwrap()
}

/// The games listed as lobbies.
pub(super) async fn lobbies(c: &Client, s: &Remote) -> Vec<String> {
    let mut ids = Vec::new();
    let mut next = Some("/games?status=lobby&limit=100".to_string());
    while let Some(path) = next {
        let (st, page, _) = send(c.get(s.url(&path))).await.expect("list");
        assert_eq!(st, StatusCode::OK, "{page}");
        for g in page["games"].as_array().unwrap() {
            ids.push(g["id"].as_str().unwrap().to_string());
        }
        next = page["next_cursor"]
            .as_str()
            .map(|c| format!("/games?status=lobby&limit=100&cursor={c}"));
    }
    ids
}

/// The count of requests refused by kind, from `/metrics`.
pub(super) async fn refused(c: &Client, s: &Remote, kind: &str) -> u64 {
    let text = c
        .get(s.url("/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let line = format!("saboteur_limited_total{{kind=\"{kind}\"}} ");
    text.lines()
        .find_map(|l| l.strip_prefix(&line))
        .map_or(0, |n| n.trim().parse().unwrap())
}
