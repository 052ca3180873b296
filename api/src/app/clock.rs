//! The server's time, in milliseconds since the Unix epoch: the system clock, or a manual one a
//! test sets and moves (turn clocks are then driven without sleeping).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Where the server reads the time.
#[derive(Debug, Clone, Default)]
pub struct TimeSource(Option<Arc<AtomicU64>>);

impl TimeSource {
    /// The system clock.
    pub fn system() -> TimeSource {
        TimeSource(None)
    }

    /// A clock that stands at `ms` until moved ([`TimeSource::set`], [`TimeSource::advance`]);
    /// clones share it.
    pub fn manual(ms: u64) -> TimeSource {
        TimeSource(Some(Arc::new(AtomicU64::new(ms))))
    }

    /// Now, in milliseconds since the Unix epoch.
    pub fn now_ms(&self) -> u64 {
        match &self.0 {
            Some(t) => t.load(Ordering::SeqCst),
            None => u64::try_from(chrono::Utc::now().timestamp_millis()).unwrap_or(0),
        }
    }

    /// Now, as RFC 3339 in UTC with milliseconds: the time the server signs (receipts,
    /// checkpoints).
    pub fn rfc3339(&self) -> String {
        let ms = i64::try_from(self.now_ms()).unwrap_or(i64::MAX);
        chrono::DateTime::from_timestamp_millis(ms)
            .unwrap_or_default()
            .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
    }

    /// Sets a manual clock (a system clock ignores it).
    pub fn set(&self, ms: u64) {
        if let Some(t) = &self.0 {
            t.store(ms, Ordering::SeqCst);
        }
    }

    /// Moves a manual clock on by `ms`.
    pub fn advance(&self, ms: u64) {
        if let Some(t) = &self.0 {
            t.fetch_add(ms, Ordering::SeqCst);
        }
    }
}
