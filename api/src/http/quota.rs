//! Per-client limits: what keeps one address from denying the service to everyone else.
//!
//! Every request is counted against its client's token buckets (one per kind: creating games,
//! taking seats, other writes, reads; [`governor`]'s GCRA), its event streams open at once are
//! counted, and the lobbies it created and nobody started are capped, per client and in all.
//! Over a limit: 429 `too_many_requests` with `Retry-After`, before any handler runs, so a
//! limited request changes nothing. The client is the peer's address (an IPv6 address by its
//! /64, which one subscriber usually holds whole), or, when the peer is a proxy the operator
//! trusts, the last address in `X-Forwarded-For` that is not one. `/health`, `/metrics` and the
//! web client's files are not counted.
//!
//! The buckets and stream counts are per process: behind a load balancer spreading one client
//! over N processes, a client gets up to N times each (RELIABILITY.md). The lobbies are counted
//! in the store, per client (who made each game is recorded) and in all, so both caps hold
//! across processes; this process's creations still under way are counted on top.

use std::collections::HashMap;
use std::fmt;
use std::net::{IpAddr, Ipv6Addr};
use std::num::NonZeroU32;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use actix_web::HttpRequest;
use actix_web::http::Method;
use governor::clock::{Clock, DefaultClock};
use governor::middleware::StateInformationMiddleware;
use governor::state::keyed::DefaultKeyedStateStore;
use governor::{Quota, RateLimiter};
use ipnet::IpNet;

pub(crate) use crate::app::config::{Limits, Rate};

/// A client's token bucket of one kind, which says how much it holds after each take.
type Bucket =
    RateLimiter<Client, DefaultKeyedStateStore<Client>, DefaultClock, StateInformationMiddleware>;

/// What a client may still send of a kind, as the `RateLimit` header fields say it
/// (draft-ietf-httpapi-ratelimit-headers): the policy, how many remain, and the seconds until the
/// bucket is full again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Allowance {
    /// The kind's name, the policy's.
    pub policy: &'static str,
    /// Its rate: `count` per `per`.
    pub rate: Rate,
    /// How many more may be sent now.
    pub remaining: u32,
    /// Seconds until the bucket is full again.
    pub reset: u64,
}

impl Allowance {
    /// `RateLimit-Policy`: `"write";q=600;w=60`.
    pub fn policy_field(&self) -> String {
        format!(
            "\"{}\";q={};w={}",
            self.policy,
            self.rate.count,
            self.rate.per.as_secs().max(1)
        )
    }

    /// `RateLimit`: `"write";r=598;t=1`.
    pub fn field(&self) -> String {
        format!("\"{}\";r={};t={}", self.policy, self.remaining, self.reset)
    }
}

/// A rate as a GCRA quota: one comes back every `per / count`, never faster than a nanosecond.
fn quota(rate: Rate) -> Quota {
    let count = NonZeroU32::new(rate.count).unwrap_or(NonZeroU32::MIN);
    let every = (rate.per / count.get()).max(Duration::from_nanos(1));
    Quota::with_period(every)
        .unwrap_or_else(|| Quota::per_second(count))
        .allow_burst(count)
}

/// What a request is counted as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Create,
    Join,
    Write,
    Read,
    Stream,
    Lobby,
}

impl Kind {
    /// The label in `saboteur_limited_total`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Create => "create",
            Kind::Join => "join",
            Kind::Write => "write",
            Kind::Read => "read",
            Kind::Stream => "stream",
            Kind::Lobby => "lobby",
        }
    }

    /// The kind of a request by its method and path; `None`: not counted.
    pub(crate) fn of(method: &Method, path: &str) -> Option<Kind> {
        let parts: Vec<&str> = path.trim_end_matches('/').split('/').skip(1).collect();
        let api = matches!(
            parts.first(),
            Some(&("games" | "catalogue" | "log" | "keys"))
        );
        if !api {
            return None;
        }
        let write = !matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS);
        Some(match (write, parts.as_slice()) {
            (true, ["games"]) | (true, ["games", _, "rematch"]) => Kind::Create,
            (true, ["games", _, "seats" | "bots"]) | (true, ["games", _, "seats", _, "claim"]) => {
                Kind::Join
            }
            (true, _) => Kind::Write,
            (false, ["games", _, "events", "stream"]) => Kind::Stream,
            (false, _) => Kind::Read,
        })
    }
}

/// Who a client is, for counting: an IPv4 address, or an IPv6 address's /64.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Client(IpAddr);

impl fmt::Display for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            IpAddr::V6(a) => write!(f, "{a}/64"),
            a => write!(f, "{a}"),
        }
    }
}

impl Client {
    pub(crate) fn of_address(address: IpAddr) -> Client {
        match address {
            IpAddr::V6(a) => match a.to_ipv4_mapped() {
                Some(v4) => Client(IpAddr::V4(v4)),
                None => {
                    let s = a.segments();
                    Client(IpAddr::V6(Ipv6Addr::new(
                        s[0], s[1], s[2], s[3], 0, 0, 0, 0,
                    )))
                }
            },
            a => Client(a),
        }
    }

    /// The client of a request: its peer, or behind a trusted proxy, the last address of
    /// `X-Forwarded-For` that is not a trusted proxy's (a client can write anything at the
    /// header's start; only what the trusted proxies appended is believed).
    pub fn of(req: &HttpRequest, trusted: &[IpNet]) -> Option<Client> {
        let peer = req.peer_addr()?.ip();
        let trusts = |a: &IpAddr| trusted.iter().any(|n| n.contains(a));
        if !trusts(&peer) {
            return Some(Client::of_address(peer));
        }
        let mut forwarded: Vec<IpAddr> = Vec::new();
        for line in req.headers().get_all("x-forwarded-for") {
            let Ok(text) = line.to_str() else {
                return Some(Client::of_address(peer));
            };
            for part in text.split(',') {
                match part.trim().parse::<IpAddr>() {
                    Ok(a) => forwarded.push(a),
                    // A hop we cannot read: nothing before it can be believed.
                    Err(_) => forwarded.clear(),
                }
            }
        }
        let client = forwarded
            .into_iter()
            .rev()
            .find(|a| !trusts(a))
            .unwrap_or(peer);
        Some(Client::of_address(client))
    }
}

/// A lobby a client created: the game (`None` while its creation runs), and when.
pub(crate) type Lobby = (Option<saboteur_storage::GameId>, Instant);

/// The per-client state of one process.
pub(crate) struct Quotas {
    pub(crate) limits: Limits,
    creates: Bucket,
    joins: Bucket,
    writes: Bucket,
    reads: Bucket,
    /// Streams open, by client.
    streams: Arc<Mutex<HashMap<Client, usize>>>,
    /// Requests being answered, by client (streams apart).
    in_flight: Arc<Mutex<HashMap<Client, usize>>>,
    /// Lobbies created here, by client: the game (`None` while its creation runs) and when.
    pub(crate) lobbies: Mutex<HashMap<Client, Vec<Lobby>>>,
    /// Creations given back, by client ([`Quotas::give_back`]): spent again before the
    /// bucket, never past the bucket's size together with what it holds.
    credits: Mutex<HashMap<Client, u32>>,
}

/// One of a client's open streams or requests being answered, given back when dropped.
pub(crate) struct ClientPermit {
    client: Client,
    open: Arc<Mutex<HashMap<Client, usize>>>,
}

/// One of `client`'s count in `open`, unless it holds `max` already (`None` for no maximum).
fn hold(
    open: &Arc<Mutex<HashMap<Client, usize>>>,
    client: Client,
    max: Option<usize>,
) -> Option<ClientPermit> {
    let mut counts = open.lock().unwrap_or_else(|e| e.into_inner());
    let n = counts.entry(client).or_default();
    if max.is_some_and(|max| *n >= max) {
        return None;
    }
    *n += 1;
    Some(ClientPermit {
        client,
        open: open.clone(),
    })
}

impl Drop for ClientPermit {
    fn drop(&mut self) {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = open.get_mut(&self.client) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                open.remove(&self.client);
            }
        }
    }
}

impl Quotas {
    pub fn new(limits: Limits) -> Quotas {
        Quotas {
            creates: RateLimiter::keyed(quota(limits.creates)).with_middleware(),
            joins: RateLimiter::keyed(quota(limits.joins)).with_middleware(),
            writes: RateLimiter::keyed(quota(limits.writes)).with_middleware(),
            reads: RateLimiter::keyed(quota(limits.reads)).with_middleware(),
            streams: Arc::default(),
            in_flight: Arc::default(),
            lobbies: Mutex::default(),
            credits: Mutex::default(),
            limits,
        }
    }

    /// The limits this process applies.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Takes one from the client's bucket of `kind`: what remains, or how long to wait and
    /// the rate it went past (`None` for a kind counted elsewhere).
    pub(crate) fn take(
        &self,
        kind: Kind,
        client: Client,
    ) -> Result<Option<Allowance>, (Duration, Allowance)> {
        let (limiter, rate, policy) = match kind {
            Kind::Create => (&self.creates, self.limits.creates, "create"),
            Kind::Join => (&self.joins, self.limits.joins, "join"),
            Kind::Write => (&self.writes, self.limits.writes, "write"),
            Kind::Read | Kind::Stream => (&self.reads, self.limits.reads, "read"),
            Kind::Lobby => return Ok(None),
        };
        // One comes back every `per / count`: the bucket is full again once the missing ones
        // have.
        let every = rate.per.as_secs_f64() / f64::from(rate.count.max(1));
        let reset = |remaining: u32| {
            (f64::from(rate.count.saturating_sub(remaining)) * every).ceil() as u64
        };
        // What was given back of this kind (creations only), within the bucket's size.
        let mut credits = self.credits.lock().unwrap_or_else(|e| e.into_inner());
        let mut credit = |bucket: u32| match credits.get_mut(&client) {
            Some(held) if kind == Kind::Create => {
                *held = (*held).min(rate.count.saturating_sub(bucket));
                *held
            }
            _ => 0,
        };
        match limiter.check_key(&client) {
            Ok(snapshot) => {
                let remaining = snapshot.remaining_burst_capacity();
                let remaining = remaining + credit(remaining);
                Ok(Some(Allowance {
                    policy,
                    rate,
                    remaining,
                    reset: reset(remaining),
                }))
            }
            Err(_) if credit(0) > 0 => {
                let left = credit(0) - 1;
                credits.insert(client, left);
                Ok(Some(Allowance {
                    policy,
                    rate,
                    remaining: left,
                    reset: reset(left),
                }))
            }
            Err(not_until) => {
                let wait = not_until.wait_time_from(limiter.clock().now());
                Err((
                    wait,
                    Allowance {
                        policy,
                        rate,
                        remaining: 0,
                        reset: reset(0),
                    },
                ))
            }
        }
    }

    /// Gives back the creation `client` just spent: it made no game (answered with a kept
    /// reply, or refused at the lobby cap), so it is spent again before the bucket.
    pub(crate) fn give_back(&self, client: Client) {
        let mut credits = self.credits.lock().unwrap_or_else(|e| e.into_inner());
        let held = credits.entry(client).or_default();
        *held = held.saturating_add(1).min(self.limits.creates.count);
    }

    /// A stream for `client`, unless it holds as many as it may.
    pub fn stream(&self, client: Client) -> Option<ClientPermit> {
        let max = (!self.limits.off).then_some(self.limits.streams);
        hold(&self.streams, client, max)
    }

    /// A request of `client` being answered, unless as many as it may are
    /// ([`Limits::in_flight`]); held until the answer is made. (With the limits off, requests
    /// are not counted at all: the caller asks for no permit.)
    pub fn request(&self, client: Client) -> Option<ClientPermit> {
        hold(&self.in_flight, client, Some(self.limits.in_flight))
    }

    /// Forgets the buckets of clients that are full again and lobbies past their expiry, so
    /// that what is kept grows with the clients of the last hour, not with every client ever.
    pub fn sweep(&self) {
        for limiter in [&self.creates, &self.joins, &self.writes, &self.reads] {
            limiter.retain_recent();
            limiter.shrink_to_fit();
        }
        let expiry = self.limits.lobby_expiry;
        let mut lobbies = self.lobbies.lock().unwrap_or_else(|e| e.into_inner());
        lobbies.retain(|_, games| {
            games.retain(|(_, at)| at.elapsed() < expiry);
            !games.is_empty()
        });
        lobbies.shrink_to_fit();
        drop(lobbies);
        let mut credits = self.credits.lock().unwrap_or_else(|e| e.into_inner());
        credits.retain(|_, held| *held > 0);
        credits.shrink_to_fit();
    }

    /// How many clients the buckets remember (`saboteur_clients_tracked`).
    pub fn clients(&self) -> usize {
        [&self.creates, &self.joins, &self.writes, &self.reads]
            .iter()
            .map(|l| l.len())
            .max()
            .unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

    #[test]
    fn rates_read_and_written() {
        for text in ["60/h", "120/min", "10/s"] {
            let rate: Rate = text.parse().unwrap();
            assert_eq!(rate.to_string(), text);
        }
        for bad in ["0/s", "10", "10/day", "x/s", "-1/s"] {
            assert!(bad.parse::<Rate>().is_err(), "{bad}");
        }
    }

    #[test]
    fn requests_are_counted_by_kind() {
        let of = |m: Method, p: &str| Kind::of(&m, p);
        assert_eq!(of(Method::POST, "/games"), Some(Kind::Create));
        assert_eq!(of(Method::POST, "/games/x/rematch"), Some(Kind::Create));
        assert_eq!(of(Method::POST, "/games/x/seats"), Some(Kind::Join));
        assert_eq!(of(Method::POST, "/games/x/seats/2/claim"), Some(Kind::Join));
        assert_eq!(of(Method::POST, "/games/x/bots"), Some(Kind::Join));
        assert_eq!(of(Method::POST, "/games/x/commands"), Some(Kind::Write));
        assert_eq!(of(Method::DELETE, "/games/x/seats/1"), Some(Kind::Write));
        assert_eq!(of(Method::GET, "/games/x/table"), Some(Kind::Read));
        assert_eq!(of(Method::GET, "/games"), Some(Kind::Read));
        assert_eq!(
            of(Method::GET, "/games/x/events/stream"),
            Some(Kind::Stream)
        );
        assert_eq!(of(Method::GET, "/healthz"), None);
        assert_eq!(of(Method::GET, "/log/checkpoint"), Some(Kind::Read));
        assert_eq!(of(Method::GET, "/metrics"), None);
        assert_eq!(of(Method::GET, "/assets/bundle.js"), None);
        assert_eq!(of(Method::GET, "/play/x"), None);
    }

    #[test]
    fn the_client_is_the_peer_unless_a_trusted_proxy_names_it() {
        let trusted: Vec<IpNet> = vec!["10.0.0.0/8".parse().unwrap()];
        let client = |peer: &str, forwarded: &[&str]| {
            let mut req = TestRequest::default().peer_addr(peer.parse().unwrap());
            for f in forwarded {
                req = req.append_header(("x-forwarded-for", *f));
            }
            Client::of(&req.to_http_request(), &trusted)
                .unwrap()
                .to_string()
        };
        // An untrusted peer's header is not believed.
        assert_eq!(client("203.0.113.9:1", &["198.51.100.1"]), "203.0.113.9");
        // A trusted proxy names the client: the last address that is not a proxy's.
        assert_eq!(
            client("10.0.0.2:1", &["6.6.6.6, 198.51.100.1, 10.0.0.3"]),
            "198.51.100.1"
        );
        assert_eq!(
            client("10.0.0.2:1", &["6.6.6.6", "198.51.100.1"]),
            "198.51.100.1"
        );
        // Nothing readable after the proxies: the proxy itself.
        assert_eq!(client("10.0.0.2:1", &["6.6.6.6, junk"]), "10.0.0.2");
        assert_eq!(client("10.0.0.2:1", &[]), "10.0.0.2");
        // An IPv6 client is its /64; a v4-mapped address is the v4 one.
        assert_eq!(client("[2001:db8:1:2:3:4:5:6]:1", &[]), "2001:db8:1:2::/64");
        assert_eq!(client("[::ffff:192.0.2.7]:1", &[]), "192.0.2.7");
    }

    #[test]
    fn a_bucket_refuses_past_its_size_and_names_the_wait() {
        let limits = Limits {
            writes: "3/min".parse().unwrap(),
            ..Limits::default()
        };
        let quotas = Quotas::new(limits);
        let a = Client::of_address("192.0.2.1".parse().unwrap());
        let b = Client::of_address("192.0.2.2".parse().unwrap());
        // Each take says what remains, and when the bucket is full again (one every 20 s).
        for left in [2, 1, 0] {
            let allowance = quotas.take(Kind::Write, a).unwrap().unwrap();
            assert_eq!(allowance.remaining, left);
            assert_eq!(allowance.reset, 20 * u64::from(3 - left));
            assert_eq!(allowance.policy_field(), "\"write\";q=3;w=60");
            assert_eq!(
                allowance.field(),
                format!("\"write\";r={left};t={}", 20 * (3 - left))
            );
        }
        let (wait, allowance) = quotas.take(Kind::Write, a).unwrap_err();
        assert_eq!(allowance.rate.to_string(), "3/min");
        assert_eq!((allowance.remaining, allowance.reset), (0, 60));
        assert!(
            wait > Duration::from_secs(15) && wait <= Duration::from_secs(20),
            "{wait:?}"
        );
        // Another client, and another kind, are untouched.
        assert!(quotas.take(Kind::Write, b).is_ok());
        assert!(quotas.take(Kind::Read, a).is_ok());
    }

    #[test]
    fn a_creation_given_back_is_spent_first_and_never_past_the_size() {
        let limits = Limits {
            creates: "2/h".parse().unwrap(),
            ..Limits::default()
        };
        let quotas = Quotas::new(limits);
        let a = Client::of_address("192.0.2.1".parse().unwrap());
        let left = |q: &Quotas| q.take(Kind::Create, a).map(|r| r.unwrap().remaining);
        assert_eq!(left(&quotas), Ok(1));
        quotas.give_back(a);
        // The bucket's one, with the one given back still held.
        assert_eq!(left(&quotas), Ok(1));
        // The bucket empty: the one given back.
        assert_eq!(left(&quotas), Ok(0));
        assert!(left(&quotas).is_err());
        // Given back past the size: the bucket and the credit together hold at most its size.
        for _ in 0..5 {
            quotas.give_back(a);
        }
        assert_eq!(left(&quotas), Ok(1));
        assert_eq!(left(&quotas), Ok(0));
        assert!(left(&quotas).is_err());
        // Write requests have no credit.
        quotas.give_back(a);
        assert!(quotas.take(Kind::Write, a).is_ok());
    }

    #[test]
    fn streams_are_counted_per_client_and_given_back() {
        let quotas = Quotas::new(Limits {
            streams: 2,
            ..Limits::default()
        });
        let a = Client::of_address("192.0.2.1".parse().unwrap());
        let b = Client::of_address("192.0.2.2".parse().unwrap());
        let one = quotas.stream(a).unwrap();
        let _two = quotas.stream(a).unwrap();
        assert!(quotas.stream(a).is_none());
        assert!(quotas.stream(b).is_some());
        drop(one);
        assert!(quotas.stream(a).is_some());
    }

    #[test]
    fn requests_in_flight_are_counted_per_client_apart_from_streams() {
        let quotas = Quotas::new(Limits {
            streams: 1,
            in_flight: 2,
            ..Limits::default()
        });
        let a = Client::of_address("192.0.2.1".parse().unwrap());
        let b = Client::of_address("192.0.2.2".parse().unwrap());
        let one = quotas.request(a).unwrap();
        let _two = quotas.request(a).unwrap();
        assert!(quotas.request(a).is_none(), "a third at once is refused");
        assert!(quotas.request(b).is_some(), "another client is untouched");
        assert!(quotas.stream(a).is_some(), "streams are counted apart");
        drop(one);
        assert!(quotas.request(a).is_some(), "given back when answered");
    }
}
