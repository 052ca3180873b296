//! A table found ahead of the store, or on another log (writes lost in a database failover):
//! read again whole, and counted, so that an event stream that showed events of an earlier
//! count ends rather than go on from another game than the one it showed.

use saboteur_storage::ReadStore;

use super::Table;
use crate::error::ApiError;

impl Table {
    /// Reads the game again whole because the store's log is not the one this table holds
    /// (`why`, logged), and counts it in [`Table::rewinds`].
    pub(super) async fn rewind(&mut self, store: &ReadStore, why: &str) -> Result<(), ApiError> {
        tracing::warn!(game = %self.id, "{why}: reading the game again");
        self.load_again(store).await?;
        self.rewinds += 1;
        Ok(())
    }

    /// How many times this table was found ahead of the store, or on another log, and read
    /// again.
    pub fn rewinds(&self) -> u64 {
        self.rewinds
    }

    /// A copy of the game read for one read ([`crate::app::tables::Reading`]) counts the
    /// rewinds of the game's table, `rewinds`, as its own: a stream reading it does not take
    /// it for another log.
    pub(in crate::app) fn counting(mut self, rewinds: u64) -> Table {
        self.rewinds = rewinds;
        self
    }
}
