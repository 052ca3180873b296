//! What the HTTP layer holds for itself, beside the application's state: each client's
//! buckets, streams and lobbies ([`Quotas`]) and the event streams open in this process.

use std::sync::Arc;
use std::time::Duration;

use crate::app::config::Limits;
use crate::http::limits::Gauge;
use crate::http::quota::Quotas;

/// How often what clients leave behind (idle buckets, expired lobbies) is given back.
const SWEEP_EVERY: Duration = Duration::from_secs(60);

/// The HTTP layer's own shared state.
pub(crate) struct Edge {
    /// Each client's buckets, streams and lobbies.
    pub quotas: Quotas,
    /// The event streams open in this process.
    pub streams: Gauge,
}

impl Edge {
    /// The edge of a server with these per-client limits.
    pub fn new(limits: Limits) -> Edge {
        Edge {
            quotas: Quotas::new(limits),
            streams: Gauge::default(),
        }
    }

    /// Gives back, once a minute on the current runtime, what clients left behind.
    pub fn spawn_sweep(edge: Arc<Edge>) {
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(SWEEP_EVERY);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                edge.quotas.sweep();
            }
        });
    }
}
