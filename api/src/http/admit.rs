//! The per-client limits' gate ([`crate::http::quota`]), before any handler runs: over a
//! limit, 429 with `Retry-After`, counted by kind in the metrics, and nothing recorded.

use std::time::{Duration, Instant};

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::middleware::Next;
use actix_web::{ResponseError, web};

use crate::app::state::AppState;
use crate::error::ApiError;
use crate::http::caller::{bearer, game_of};
use crate::http::edge::Edge;
use crate::http::perform::REPLAYED;
use crate::http::quota::{Allowance, Client, Kind, Quotas};

/// How long a refusal takes: a client that ignores `Retry-After` and sends again as soon as it
/// is answered costs the server a few requests a second, not as many as it can send.
pub(crate) const SLOW_REFUSAL: Duration = Duration::from_millis(250);

/// The per-client limits, before anything else runs: 429 with `Retry-After` over a limit.
pub(crate) async fn limit<B: MessageBody>(
    req: ServiceRequest,
    next: Next<B>,
) -> Result<ServiceResponse<EitherBody<B>>, actix_web::Error> {
    let Some(state) = req.app_data::<web::Data<AppState>>().cloned() else {
        return next
            .call(req)
            .await
            .map(ServiceResponse::map_into_left_body);
    };
    let Some(edge) = req.app_data::<web::Data<Edge>>().cloned() else {
        return next
            .call(req)
            .await
            .map(ServiceResponse::map_into_left_body);
    };
    let quotas = &edge.quotas;
    // The client is looked for only in a request that is counted.
    let counted = Kind::of(req.method(), req.path()).and_then(|kind| {
        Some((
            kind,
            Client::of(req.request(), &quotas.limits.trusted_proxies)?,
        ))
    });
    let Some((kind, client)) = counted else {
        return next
            .call(req)
            .await
            .map(ServiceResponse::map_into_left_body);
    };
    // A creation answered with its kept reply, or refused at the lobby cap, makes no game: it
    // is given back ([`create`]), and the reply says so.
    let creation = kind == Kind::Create && *req.method() == Method::POST && req.path() == "/games";
    let mut allowance = if quotas.limits.off {
        None
    } else {
        match quotas.take(kind, client) {
            Ok(allowance) => allowance,
            Err((wait, allowance)) => {
                let what = format!(
                    "{client} sent more {} requests than its limit ({}): try again after \
                     Retry-After",
                    kind.name(),
                    allowance.rate
                );
                let mut res = refuse(&state, req, kind, wait, what).await?;
                told(res.headers_mut(), Some(allowance));
                return Ok(res);
            }
        }
    };
    if kind == Kind::Join
        && !quotas.limits.off
        && let Some(wait) = joined_too_often(&state, quotas, client).await
    {
        let what = format!(
            "{client} took more seats than its limit ({}) through this service's processes: try \
             again after Retry-After",
            quotas.limits.joins
        );
        let mut res = refuse(&state, req, kind, wait, what).await?;
        told(
            res.headers_mut(),
            allowance.map(|a| Allowance { remaining: 0, ..a }),
        );
        return Ok(res);
    }
    let mut res = admitted(req, next, (&state, quotas), (kind, client, creation)).await?;
    if creation && res.headers().contains_key(REPLAYED) {
        allowance = allowance.map(|a| Allowance {
            remaining: a.remaining + 1,
            ..a
        });
    }
    // A 429 of a limit decided further in (a seat's talk, the lobby cap) says its own wait: an
    // allowance of this kind still left would contradict it.
    if res.status() != actix_web::http::StatusCode::TOO_MANY_REQUESTS {
        told(res.headers_mut(), allowance);
    }
    Ok(res)
}

/// How long `client` must wait before it takes another seat, if it took as many as its join
/// limit allows in the limit's period through every process on the database (each seat is
/// recorded with its taker in the store): the moment enough of them leave the period. The
/// process's own bucket holds meanwhile if the store cannot be read.
async fn joined_too_often(state: &AppState, quotas: &Quotas, client: Client) -> Option<Duration> {
    let rate = quotas.limits.joins;
    let now = chrono::Utc::now();
    let since = now - chrono::Duration::from_std(rate.per).ok()?;
    crate::app::joins::wait(&state.store, &client.to_string(), (rate.count, since), now).await
}

/// Says the client's allowance of the request's kind in `RateLimit-Policy` and `RateLimit`.
fn told(headers: &mut actix_web::http::header::HeaderMap, allowance: Option<Allowance>) {
    use actix_web::http::header::{HeaderName, HeaderValue};
    let Some(allowance) = allowance else { return };
    for (name, value) in [
        ("ratelimit-policy", allowance.policy_field()),
        ("ratelimit", allowance.field()),
    ] {
        if let Ok(value) = HeaderValue::from_str(&value) {
            headers.insert(HeaderName::from_static(name), value);
        }
    }
}

/// A request within its client's rates: counted while it is answered, then answered (a game's
/// creation, `creation`, by [`create`]).
async fn admitted<B: MessageBody>(
    req: ServiceRequest,
    next: Next<B>,
    (state, quotas): (&AppState, &Quotas),
    (kind, client, creation): (Kind, Client, bool),
) -> Result<ServiceResponse<EitherBody<B>>, actix_web::Error> {
    // A client's requests answered at once are counted (streams have their own count): one
    // client's slow or expensive requests cannot hold every worker.
    let _answering = if kind == Kind::Stream || quotas.limits.off {
        None
    } else {
        match quotas.request(client) {
            Some(permit) => Some(permit),
            None => {
                let what = format!(
                    "{client} has {} requests being answered at once, its limit: send the next \
                     when one is answered",
                    quotas.limits.in_flight
                );
                return refuse(state, req, kind, Duration::from_secs(1), what).await;
            }
        }
    };
    if creation {
        return create(req, next, (state, quotas), client).await;
    }
    next.call(req)
        .await
        .map(ServiceResponse::map_into_left_body)
}

/// A refusal by a per-client limit, after [`SLOW_REFUSAL`]: 429 with `Retry-After` (the wait,
/// at least a second), counted by kind.
async fn refuse<B: MessageBody>(
    state: &AppState,
    req: ServiceRequest,
    kind: Kind,
    wait: Duration,
    what: String,
) -> Result<ServiceResponse<EitherBody<B>>, actix_web::Error> {
    tokio::time::sleep(SLOW_REFUSAL).await;
    state
        .metrics
        .limited
        .with_label_values(&[kind.name()])
        .inc();
    let err = ApiError::TooManyRequests {
        detail: what,
        retry_after: wait.as_secs_f64().ceil().max(1.0) as u64,
    };
    // A seat's or the host's request for a game is refused with a receipt they can show.
    let err = match (game_of(req.path()), bearer(req.request())) {
        (Some(game), Some(token)) => {
            crate::app::refusal::refused_before(state, (game, Some(token)), None, err).await
        }
        _ => err,
    };
    Ok(req
        .into_response(err.error_response())
        .map_into_right_body())
}

/// Whether `client`'s games nobody started are at its cap: when the oldest frees its place,
/// and how many there are. Counted in this process, and in the store for every process.
async fn lobbies_full(
    state: &AppState,
    quotas: &Quotas,
    client: Client,
) -> Option<(Duration, usize)> {
    let limits = &quotas.limits;
    let expiry = limits.lobby_expiry;
    let wait = Duration::from_secs(60);
    let since = chrono::Utc::now() - chrono::Duration::from_std(expiry).unwrap_or_default();
    let mine = quotas
        .lobbies
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&client)
        .cloned()
        .unwrap_or_default();
    let mut open = 0;
    let mut started = Vec::new();
    for (game, at) in &mine {
        if at.elapsed() >= expiry {
            continue;
        }
        // Still a lobby? Asked of the store only for a client at its cap.
        let lobby = match game {
            Some(id) if mine.len() >= limits.lobbies_per_client => state
                .store
                .get_game(id)
                .await
                .map(|g| g.status == saboteur_storage::GameStatus::Lobby)
                .unwrap_or(true),
            _ => true,
        };
        if lobby {
            open += 1;
        } else if let Some(id) = game {
            started.push(id.clone());
        }
    }
    if !started.is_empty() {
        let mut lobbies = quotas.lobbies.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(games) = lobbies.get_mut(&client) {
            games.retain(|(g, _)| g.as_ref().is_none_or(|g| !started.contains(g)));
        }
    }
    // Other processes' lobbies of this client are counted in the store (with this
    // process's recorded ones), and this process's creations under way on top.
    let under_way = mine
        .iter()
        .filter(|(g, at)| g.is_none() && at.elapsed() < expiry)
        .count();
    // The oldest lobby frees its place when it expires, unless one is started or cancelled
    // before: that is when to try again.
    let mut frees = wait;
    match state.store.client_lobbies(&client.to_string(), since).await {
        Ok(made) => {
            open = open.max(made.len() + under_way);
            if let Some(oldest) = made.first() {
                let expires = *oldest + chrono::Duration::from_std(expiry).unwrap_or_default();
                let left = (expires - chrono::Utc::now()).to_std().unwrap_or_default();
                frees = left.max(Duration::from_secs(1));
            }
        }
        Err(e) => tracing::debug!("a client's lobbies not counted: {e}"),
    }
    (open >= limits.lobbies_per_client).then_some((frees, open))
}

/// A game's creation: refused while the client's lobbies, or all lobbies, are at their cap;
/// a lobby made is counted for its client (in this process here; in the store by the
/// creation's own transaction, which records its maker). A retry of a creation whose reply is kept (its
/// `Idempotency-Key` known for this client) makes no lobby: it is let through to its reply.
async fn create<B: MessageBody>(
    req: ServiceRequest,
    next: Next<B>,
    (state, quotas): (&AppState, &Quotas),
    client: Client,
) -> Result<ServiceResponse<EitherBody<B>>, actix_web::Error> {
    if let Some(key) = req
        .headers()
        .get("idempotency-key")
        .and_then(|k| k.to_str().ok())
    {
        let scope = format!("create {client}");
        let since = chrono::Utc::now() - saboteur_storage::KEPT_FOR;
        if let Ok(Some(_)) = state.store.kept_reply(&scope, key, since).await {
            quotas.give_back(client);
            return next
                .call(req)
                .await
                .map(ServiceResponse::map_into_left_body);
        }
    }
    let limits = &quotas.limits;
    let expiry = limits.lobby_expiry;
    let wait = Duration::from_secs(60);
    let since = chrono::Utc::now() - chrono::Duration::from_std(expiry).unwrap_or_default();
    if !limits.off
        && let Some((frees, open)) = lobbies_full(state, quotas, client).await
    {
        let what = format!(
            "{client} has {open} games nobody started (at most {}): start one, or cancel one \
             (POST /games/{{id}}/cancel with its host token); otherwise the oldest frees its \
             place when it expires, after Retry-After",
            limits.lobbies_per_client
        );
        quotas.give_back(client);
        let mut res = refuse(state, req, Kind::Lobby, frees, what).await?;
        let cap = Allowance {
            policy: "lobby",
            rate: crate::app::config::Rate {
                count: u32::try_from(limits.lobbies_per_client).unwrap_or(u32::MAX),
                per: expiry,
            },
            remaining: 0,
            reset: frees.as_secs().max(1),
        };
        told(res.headers_mut(), Some(cap));
        return Ok(res);
    }
    match state.store.count_lobbies(since).await {
        Ok(n) if n >= limits.lobbies as u64 => {
            let what = format!(
                "{n} games wait for players (at most {}): join one, or try again after \
                 Retry-After",
                limits.lobbies
            );
            quotas.give_back(client);
            return refuse(state, req, Kind::Lobby, wait, what).await;
        }
        Ok(_) => {}
        // The creation will meet the same store and answer for it.
        Err(e) => tracing::debug!("lobbies not counted: {e}"),
    }
    // Counted while it runs, so that a client's creations at once cannot pass the cap together.
    let mark = Instant::now();
    if !limits.off {
        let mut lobbies = quotas.lobbies.lock().unwrap_or_else(|e| e.into_inner());
        lobbies.entry(client).or_default().push((None, mark));
    }
    let res = next.call(req).await;
    if !limits.off {
        let made = res
            .as_ref()
            .ok()
            .filter(|r| r.status().is_success() && !r.headers().contains_key(REPLAYED))
            .and_then(|r| r.headers().get("location"))
            .and_then(|l| l.to_str().ok())
            .and_then(|l| l.strip_prefix("/games/"))
            .and_then(|id| saboteur_storage::GameId::parse(id).ok());
        let mut lobbies = quotas.lobbies.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(games) = lobbies.get_mut(&client) {
            match made {
                Some(id) => {
                    if let Some(entry) = games.iter_mut().find(|(g, t)| g.is_none() && *t == mark) {
                        entry.0 = Some(id);
                    }
                }
                None => games.retain(|(g, t)| g.is_some() || *t != mark),
            }
        }
    }
    res.map(ServiceResponse::map_into_left_body)
}
