//! Prometheus metrics: requests, latencies, commands, conflicts.

use prometheus::{
    Encoder, HistogramOpts, HistogramVec, IntCounterVec, Opts, Registry, TextEncoder,
};

/// The server's metrics.
pub(crate) struct Metrics {
    registry: Registry,
    requests: IntCounterVec,
    latency: HistogramVec,
    pub commands: IntCounterVec,
    pub conflicts: IntCounterVec,
    /// Requests refused by the per-client limits, by kind (`crate::http::quota`).
    pub limited: IntCounterVec,
    /// Reads meant for the read-only store served by the store instead, by why: `behind` (the
    /// standby had not replayed what was asked yet) or `error` (it could not be reached).
    pub read_fallbacks: IntCounterVec,
    /// Analyses answered, by how: `searched` (the expert's search ran) or `kept` (from memory).
    pub analyses: IntCounterVec,
}

impl Metrics {
    pub fn new() -> prometheus::Result<Metrics> {
        let registry = Registry::new();
        let requests = IntCounterVec::new(
            Opts::new(
                "saboteur_http_requests_total",
                "HTTP requests by route, method and status",
            ),
            &["route", "method", "status"],
        )?;
        let latency = HistogramVec::new(
            HistogramOpts::new(
                "saboteur_http_request_duration_seconds",
                "HTTP request latency by route",
            )
            .buckets(vec![
                0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
            ]),
            &["route", "method"],
        )?;
        let commands = IntCounterVec::new(
            Opts::new(
                "saboteur_commands_total",
                "Commands by outcome: accepted, rejected (a rule), retried (idempotent)",
            ),
            &["outcome"],
        )?;
        let conflicts = IntCounterVec::new(
            Opts::new(
                "saboteur_conflicts_total",
                "Appends that lost a race (409) or were stale (412)",
            ),
            &["kind"],
        )?;
        let limited = IntCounterVec::new(
            Opts::new(
                "saboteur_limited_total",
                "Requests refused by a per-client limit (429), by kind: create, join, write, \
                 read, stream, lobby",
            ),
            &["kind"],
        )?;
        let read_fallbacks = IntCounterVec::new(
            Opts::new(
                "saboteur_read_fallbacks_total",
                "Reads meant for the read-only store served by the store, by why: behind, error",
            ),
            &["why"],
        )?;
        let analyses = IntCounterVec::new(
            Opts::new(
                "saboteur_analyses_total",
                "Post-game analyses answered, by how: searched (the expert's search ran) or kept",
            ),
            &["how"],
        )?;
        for m in [
            Box::new(requests.clone()) as Box<dyn prometheus::core::Collector>,
            Box::new(latency.clone()),
            Box::new(commands.clone()),
            Box::new(conflicts.clone()),
            Box::new(limited.clone()),
            Box::new(read_fallbacks.clone()),
            Box::new(analyses.clone()),
        ] {
            registry.register(m)?;
        }
        Ok(Metrics {
            registry,
            requests,
            latency,
            commands,
            conflicts,
            limited,
            read_fallbacks,
            analyses,
        })
    }

    pub fn observe(&self, route: &str, method: &str, status: u16, seconds: f64) {
        self.requests
            .with_label_values(&[route, method, &status.to_string()])
            .inc();
        self.latency
            .with_label_values(&[route, method])
            .observe(seconds);
    }

    /// The counters, then `gauges` (name, help, value) read at the time of asking.
    pub fn render(&self, gauges: &[(&str, &str, f64)]) -> String {
        let mut out = Vec::new();
        let _ = TextEncoder::new().encode(&self.registry.gather(), &mut out);
        let mut text = String::from_utf8(out).unwrap_or_default();
        for (name, help, value) in gauges {
            text.push_str(&format!(
                "# HELP {name} {help}\n# TYPE {name} gauge\n{name} {value}\n"
            ));
        }
        text
    }
}
