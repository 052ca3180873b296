//! A seat's command the store could not record (the database away, the table in memory): the
//! refusal is signed from memory ([`crate::app::refusal`]), and the seat keeps its whole time
//! again from that moment, so a timeout is never recorded across such an outage (`verify
//! --statements` names one that is).

use super::{Outage, Table};

impl Table {
    /// The awaited seat's command could not be recorded at `at`: from then it has its whole
    /// time again at this version.
    pub(in crate::app) fn note_outage(&mut self, at: u64) {
        self.outage = Some(Outage {
            version: self.record.version,
            at,
        });
    }

    /// Whether the awaited decision is to be timed out at `now`: its deadline passed, and, when
    /// the seat's command could not be recorded at this version, its whole time again since.
    pub(in crate::app) fn timeout_due(&self, now: u64) -> bool {
        if !self.history.overdue(now) {
            return false;
        }
        match self.outage {
            Some(o) if o.version == self.version() => self
                .history
                .deadline_from(o.at)
                .is_none_or(|d| self.history.recorded_now(now) >= d.at),
            _ => true,
        }
    }
}
