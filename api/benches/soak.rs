//! Soak: continuous play against the server binary for half an hour (a benchmark, not a test),
//! sampling the server process every 10 s: its resident memory, the cache's estimated bytes,
//! the games it holds, the event streams open, and the p99 of the commands of the last 10 s.
//!
//! Each client plays games one after another: base and Saboteur 2, 3 to 7 seats, one or two
//! seats played through HTTP and the others by bots. Each player follows its game on an event
//! stream and reconnects halfway with `Last-Event-ID`; every third game has a spectator whose
//! stream comes and goes; players talk; finished games are replayed and audited. The server's
//! memory must stay within its cache budget plus a flat overhead: the slope of its resident
//! memory after the warm-up is printed, with the samples as CSV and a plot (SVG).
//!
//! `cargo bench -p saboteur-api --bench soak` — `DATABASE_URL`, or a throwaway PostgreSQL with
//! durable writes. `SOAK_SECONDS` (default 1800), `SOAK_WARMUP` (seconds left out of the slope,
//! default 300), `SOAK_CLIENTS` (default 16), `SOAK_CACHE_BYTES` (the server's
//! `--cache-bytes`, default 64 MiB), `SOAK_OUT` (where the CSV and the SVG go, default
//! `target/soak`).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use reqwest::Client;
use serde_json::{Value, json};

mod binary;

fn env<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// What the clients share: the stop flag, the latencies of the current 10 s, counts.
#[derive(Default)]
struct Shared {
    stop: AtomicBool,
    latencies: Mutex<Vec<Duration>>,
    commands: AtomicU64,
    games: AtomicU64,
    errors: AtomicU64,
}

/// A small deterministic generator per client.
struct Dice(u64);

impl Dice {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n.max(1)
    }
}

async fn json_of(r: reqwest::RequestBuilder) -> Option<(u16, Value)> {
    let r = r.send().await.ok()?;
    let status = r.status().as_u16();
    Some((status, r.json().await.unwrap_or(Value::Null)))
}

/// Follows a game's stream until it ends or `until` passes; the last sequence number seen.
async fn follow(c: Client, url: String, token: Option<String>, after: i64, until: Instant) -> i64 {
    let mut rb = c.get(url).header("Last-Event-ID", after.to_string());
    if let Some(t) = token {
        rb = rb.bearer_auth(t);
    }
    let Ok(mut r) = rb.send().await else {
        return after;
    };
    let mut last = after;
    loop {
        let left = until.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, r.chunk()).await {
            Ok(Ok(Some(chunk))) => {
                for line in String::from_utf8_lossy(&chunk).lines() {
                    if let Some(id) = line.strip_prefix("id:") {
                        last = id.trim().parse().unwrap_or(last);
                    }
                }
            }
            _ => return last,
        }
    }
}

/// One game: created, seated, started, played to its end.
async fn one_game(c: &Client, base: &str, shared: &Shared, dice: &mut Dice) -> Option<()> {
    let saboteur2 = dice.below(2) == 1;
    let players = 3 + dice.below(5);
    let humans = 1 + dice.below(2);
    let ruleset = if saboteur2 { "saboteur2" } else { "base" };
    let (_, g) = json_of(c.post(format!("{base}/games")).json(&json!({
        "ruleset": ruleset, "players": players
    })))
    .await?;
    let id = g["game_id"].as_str()?.to_string();
    let host = g["host_token"].as_str()?.to_string();
    let mut tokens = Vec::new();
    for h in 0..humans {
        let (_, j) = json_of(
            c.post(format!("{base}/games/{id}/seats"))
                .json(&json!({"name": format!("player {h}")})),
        )
        .await?;
        tokens.push(j["player_token"].as_str()?.to_string());
    }
    for _ in humans..players {
        let level = if dice.below(2) == 0 {
            "heuristic"
        } else {
            "random"
        };
        json_of(
            c.post(format!("{base}/games/{id}/bots"))
                .bearer_auth(&host)
                .json(&json!({"level": level})),
        )
        .await?;
    }
    json_of(
        c.post(format!("{base}/games/{id}/start"))
            .bearer_auth(&host),
    )
    .await?;
    let stream = format!("{base}/games/{id}/events/stream");
    // Each player follows the game; every third game a spectator watches for a while.
    let long = Instant::now() + Duration::from_secs(600);
    let mut followers: Vec<_> = tokens
        .iter()
        .map(|t| tokio::spawn(follow(c.clone(), stream.clone(), Some(t.clone()), 0, long)))
        .collect();
    if dice.below(3) == 0 {
        let quick = Instant::now() + Duration::from_secs(1 + dice.below(20));
        tokio::spawn(follow(c.clone(), stream.clone(), None, 0, quick));
    }
    let mut moves = 0u64;
    let mut reconnected = false;
    loop {
        let (_, table) = json_of(
            c.get(format!("{base}/games/{id}/table"))
                .bearer_auth(&tokens[0]),
        )
        .await?;
        if table["game"]["status"] == "finished" {
            break;
        }
        let awaited = table["state"]["view"]["phase"]["awaited"].as_u64();
        let seat = awaited.and_then(|a| {
            // Seats are taken in order: the humans hold the first ones.
            (a < humans).then_some(a as usize)
        });
        let Some(seat) = seat else {
            // A bot's turn, answered by the sweep: wait a little.
            tokio::time::sleep(Duration::from_millis(20)).await;
            continue;
        };
        let (_, legal) = json_of(
            c.get(format!("{base}/games/{id}/legal-moves"))
                .bearer_auth(&tokens[seat]),
        )
        .await?;
        let list = legal["commands"].as_array()?;
        if list.is_empty() {
            tokio::time::sleep(Duration::from_millis(20)).await;
            continue;
        }
        let command = list[dice.below(list.len() as u64) as usize].clone();
        let started = Instant::now();
        let (status, _) = json_of(
            c.post(format!("{base}/games/{id}/commands"))
                .bearer_auth(&tokens[seat])
                .header("If-Match", format!("\"{}\"", legal["version"]))
                .header("Idempotency-Key", format!("{id}-{moves}"))
                .json(&command),
        )
        .await?;
        if (200..300).contains(&status) {
            shared.latencies.lock().unwrap().push(started.elapsed());
            shared.commands.fetch_add(1, Ordering::Relaxed);
        } else if status != 412 {
            shared.errors.fetch_add(1, Ordering::Relaxed);
        }
        moves += 1;
        if moves.is_multiple_of(12) {
            json_of(
                c.post(format!("{base}/games/{id}/talk"))
                    .bearer_auth(&tokens[seat])
                    .json(&json!({"text": format!("move {moves}, my friends")})),
            )
            .await?;
        }
        // Halfway through a game, the first player's stream drops and comes back.
        if moves == 20 && !reconnected {
            reconnected = true;
            if let Some(f) = followers.first_mut() {
                f.abort();
                let until = Instant::now() + Duration::from_secs(600);
                let seen = table["version"].as_i64().unwrap_or(0);
                *f = tokio::spawn(follow(
                    c.clone(),
                    stream.clone(),
                    Some(tokens[0].clone()),
                    seen,
                    until,
                ));
            }
        }
    }
    // The streams end with the game; a finished game is replayed and audited.
    for f in followers {
        let _ = tokio::time::timeout(Duration::from_secs(15), f).await;
    }
    json_of(c.get(format!("{base}/games/{id}/state?at=5&as=0"))).await?;
    json_of(c.get(format!("{base}/games/{id}/audit"))).await?;
    shared.games.fetch_add(1, Ordering::Relaxed);
    Some(())
}

async fn player(base: String, shared: Arc<Shared>, n: u64) {
    let c = Client::new();
    let mut dice = Dice(n.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    while !shared.stop.load(Ordering::Relaxed) {
        if one_game(&c, &base, &shared, &mut dice).await.is_none() {
            shared.errors.fetch_add(1, Ordering::Relaxed);
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// One sample of the server.
#[derive(Clone, Copy)]
struct Sample {
    t: f64,
    rss_mib: f64,
    /// What the program holds allocated (the allocator's count, when it gives one).
    allocated_mib: f64,
    cache_mib: f64,
    games: f64,
    streams: f64,
    p99_ms: f64,
    commands: u64,
}

fn gauge(metrics: &str, name: &str) -> f64 {
    metrics
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{name} ")))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(f64::NAN)
}

/// Least squares: the slope of `y` over `x`.
fn slope(points: &[(f64, f64)]) -> f64 {
    let n = points.len() as f64;
    let (sx, sy) = points
        .iter()
        .fold((0.0, 0.0), |(a, b), (x, y)| (a + x, b + y));
    let (mx, my) = (sx / n, sy / n);
    let (num, den) = points.iter().fold((0.0, 0.0), |(a, b), (x, y)| {
        (a + (x - mx) * (y - my), b + (x - mx) * (x - mx))
    });
    num / den
}

/// The samples drawn: resident memory and the cache's estimate (MiB, left axis), p99 (ms,
/// right axis), over time.
fn svg(samples: &[Sample], budget_mib: f64, warmup: f64) -> String {
    let (w, h, left, right, top, bottom) = (900.0, 420.0, 60.0, 60.0, 30.0, 40.0);
    let t_max = samples.last().map_or(1.0, |s| s.t).max(1.0);
    let mib_max = samples
        .iter()
        .map(|s| s.rss_mib.max(s.cache_mib))
        .fold(budget_mib, f64::max)
        * 1.1;
    let ms_max = samples.iter().map(|s| s.p99_ms).fold(1.0, f64::max) * 1.1;
    let x = |t: f64| left + (w - left - right) * t / t_max;
    let y = |v: f64, max: f64| top + (h - top - bottom) * (1.0 - v / max);
    let line = |f: &dyn Fn(&Sample) -> f64, max: f64, colour: &str| {
        let points: Vec<String> = samples
            .iter()
            .filter(|s| f(s).is_finite())
            .map(|s| format!("{:.1},{:.1}", x(s.t), y(f(s), max)))
            .collect();
        format!(
            "<polyline fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\" points=\"{}\"/>",
            points.join(" ")
        )
    };
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {w} {h}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <rect width=\"{w}\" height=\"{h}\" fill=\"white\"/>\n"
    );
    // Axes, ticks every 5 minutes and at quarters of each scale.
    out += &format!(
        "<path d=\"M{left},{top} V{} H{}\" stroke=\"#333\" fill=\"none\"/>\n",
        h - bottom,
        w - right
    );
    let mut minute = 0.0;
    while minute * 60.0 <= t_max {
        let tx = x(minute * 60.0);
        out += &format!(
            "<text x=\"{tx:.1}\" y=\"{}\" text-anchor=\"middle\">{minute:.0} min</text>\n",
            h - bottom + 16.0
        );
        minute += 5.0;
    }
    for q in 0..=4 {
        let v = mib_max * f64::from(q) / 4.0;
        let ms = ms_max * f64::from(q) / 4.0;
        out += &format!(
            "<text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{v:.0} MiB</text>\
             <text x=\"{}\" y=\"{:.1}\">{ms:.0} ms</text>\n",
            left - 4.0,
            y(v, mib_max) + 4.0,
            w - right + 4.0,
            y(ms, ms_max) + 4.0
        );
    }
    out += &format!(
        "<line x1=\"{left}\" x2=\"{}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"#999\" stroke-dasharray=\"4 4\"/>\
         <text x=\"{}\" y=\"{:.1}\" fill=\"#666\">cache budget</text>\n",
        w - right,
        left + 4.0,
        y(budget_mib, mib_max) - 4.0,
        y = y(budget_mib, mib_max)
    );
    out += &format!(
        "<line x1=\"{wx:.1}\" x2=\"{wx:.1}\" y1=\"{top}\" y2=\"{}\" stroke=\"#bbb\"/>\
         <text x=\"{:.1}\" y=\"{}\" fill=\"#666\">warm-up</text>\n",
        h - bottom,
        x(warmup) - 50.0,
        top + 12.0,
        wx = x(warmup)
    );
    out += &line(&|s| s.rss_mib, mib_max, "#c0392b");
    out += &line(&|s| s.allocated_mib, mib_max, "#af7ac5");
    out += &line(&|s| s.cache_mib, mib_max, "#2471a3");
    out += &line(&|s| s.p99_ms, ms_max, "#28b463");
    out += &format!(
        "\n<text x=\"{left}\" y=\"18\"><tspan fill=\"#c0392b\">resident memory</tspan>, \
         <tspan fill=\"#af7ac5\">allocated</tspan>, \
         <tspan fill=\"#2471a3\">cache estimate</tspan> (MiB, left); \
         <tspan fill=\"#28b463\">commands p99 per 10 s</tspan> (ms, right)</text>\n</svg>\n"
    );
    out
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let seconds: u64 = env("SOAK_SECONDS", 1800);
    let warmup: u64 = env("SOAK_WARMUP", 300);
    let clients: u64 = env("SOAK_CLIENTS", 16);
    let cache_bytes: u64 = env("SOAK_CACHE_BYTES", 64 << 20);
    let out = std::path::PathBuf::from(env(
        "SOAK_OUT",
        concat!(env!("CARGO_MANIFEST_DIR"), "/../target/soak").to_string(),
    ));
    let (_cluster, url) = binary::database();
    let (_server, base) = binary::start(&url, &["--cache-bytes", &cache_bytes.to_string()]);
    let shared = Arc::new(Shared::default());
    let players: Vec<_> = (0..clients)
        .map(|n| tokio::spawn(player(base.clone(), shared.clone(), n)))
        .collect();
    let http = Client::new();
    let started = Instant::now();
    let mut samples = Vec::new();
    let mut tick = tokio::time::interval(Duration::from_secs(10));
    tick.tick().await;
    while started.elapsed() < Duration::from_secs(seconds) {
        tick.tick().await;
        let metrics = match http.get(format!("{base}/metrics")).send().await {
            Ok(r) => r.text().await.unwrap_or_default(),
            Err(_) => String::new(),
        };
        let mut latencies = std::mem::take(&mut *shared.latencies.lock().unwrap());
        latencies.sort_unstable();
        let p99 = latencies
            .get((latencies.len() * 99 / 100).min(latencies.len().saturating_sub(1)))
            .map_or(f64::NAN, |d| d.as_secs_f64() * 1e3);
        let s = Sample {
            t: started.elapsed().as_secs_f64(),
            rss_mib: gauge(&metrics, "process_resident_memory_bytes") / 1048576.0,
            allocated_mib: gauge(&metrics, "allocator_allocated_bytes") / 1048576.0,
            cache_mib: gauge(&metrics, "saboteur_cache_bytes") / 1048576.0,
            games: gauge(&metrics, "saboteur_cached_games"),
            streams: gauge(&metrics, "saboteur_streams_open"),
            p99_ms: p99,
            commands: latencies.len() as u64,
        };
        println!(
            "t={:>5.0}s rss={:>6.1} MiB allocated={:>6.1} MiB cache={:>5.1} MiB games_held={:>5} \
             streams={:>4} commands={:>5} p99={:>6.1} ms",
            s.t, s.rss_mib, s.allocated_mib, s.cache_mib, s.games, s.streams, s.commands, s.p99_ms
        );
        samples.push(s);
    }
    shared.stop.store(true, Ordering::Relaxed);
    for p in players {
        p.abort();
    }
    let after: Vec<&Sample> = samples.iter().filter(|s| s.t >= warmup as f64).collect();
    let rss: Vec<(f64, f64)> = after.iter().map(|s| (s.t, s.rss_mib)).collect();
    let third = after.len() / 3;
    let p99_of = |part: &[&Sample]| {
        let mut v: Vec<f64> = part
            .iter()
            .map(|s| s.p99_ms)
            .filter(|v| v.is_finite())
            .collect();
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
    };
    println!(
        "{} s, {clients} clients, {} games, {} commands, {} errors; cache budget {:.0} MiB",
        seconds,
        shared.games.load(Ordering::Relaxed),
        shared.commands.load(Ordering::Relaxed),
        shared.errors.load(Ordering::Relaxed),
        cache_bytes as f64 / 1048576.0
    );
    if rss.len() >= 2 {
        println!(
            "after {warmup} s: resident memory {:.1} → {:.1} MiB (max {:.1}), slope {:.4} MiB/s; \
             median of the 10 s p99s: first third {:.1} ms, last third {:.1} ms",
            rss[0].1,
            rss[rss.len() - 1].1,
            rss.iter().map(|p| p.1).fold(0.0, f64::max),
            slope(&rss),
            p99_of(&after[..third]),
            p99_of(&after[after.len() - third..])
        );
    }
    std::fs::create_dir_all(&out).unwrap();
    let mut csv = String::from(
        "t_s,rss_mib,allocated_mib,cache_mib,games_held,streams_open,commands,p99_ms\n",
    );
    for s in &samples {
        csv += &format!(
            "{:.0},{:.1},{:.1},{:.1},{},{},{},{:.1}\n",
            s.t, s.rss_mib, s.allocated_mib, s.cache_mib, s.games, s.streams, s.commands, s.p99_ms
        );
    }
    std::fs::write(out.join("soak.csv"), csv).unwrap();
    std::fs::write(
        out.join("soak.svg"),
        svg(&samples, cache_bytes as f64 / 1048576.0, warmup as f64),
    )
    .unwrap();
    println!(
        "samples: {}/soak.csv, plot: {}/soak.svg",
        out.display(),
        out.display()
    );
}
