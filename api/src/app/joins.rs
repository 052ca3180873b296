//! A client's join limit across processes: the seats it took are recorded with each seat in
//! the store (`seat_takes`), counted there in the seat's own transaction
//! ([`saboteur_storage::SeatTaker`]), and the wait until it may take one more is read back
//! from them.

use std::time::Duration;

use chrono::{DateTime, Utc};
use saboteur_storage::{ReadStore, SeatTaker};

use crate::app::config::Limits;

/// The taker recorded with a seat `client` takes now: at most its join limit's count of seats
/// within the limit's period (none with the limits off).
pub(crate) fn taker<'a>(client: &'a str, limits: &Limits, now: DateTime<Utc>) -> SeatTaker<'a> {
    let at_most = (!limits.off)
        .then(|| chrono::Duration::from_std(limits.joins.per).ok())
        .flatten()
        .map(|period| (limits.joins.count, now - period));
    SeatTaker { client, at_most }
}

/// How long `client` must wait before it may take another seat, if it took `count` or more at
/// `since` or later (through every process): until enough of them are older than `since`
/// moves on. `None` when it may take one now, or the store cannot be read (the caller's own
/// limits hold meanwhile).
pub(crate) async fn wait(
    store: &ReadStore,
    client: &str,
    (count, since): (u32, DateTime<Utc>),
    now: DateTime<Utc>,
) -> Option<Duration> {
    let taken = match store.seats_taken_by(client, since).await {
        Ok(taken) => taken,
        Err(e) => {
            tracing::debug!("a client's seats not counted: {e}");
            return None;
        }
    };
    let over = taken.len().checked_sub(usize::try_from(count).ok()?)?;
    let frees = *taken.get(over)? + (now - since);
    Some(
        (frees - now)
            .to_std()
            .unwrap_or(Duration::ZERO)
            .max(Duration::from_secs(1)),
    )
}
