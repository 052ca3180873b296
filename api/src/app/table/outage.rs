//! An append whose outcome is unknown (the database went away mid-append), and a seat's
//! command the store could not record (the database away, the table in memory).
//!
//! After an unknown outcome the table holds only what it knew recorded: the log folded again up
//! to the version it appended at. It checks the store before its next answer (the append may
//! be there), and until a database answers, a read is answered from it as this process last
//! knew the game, never with events the log may not hold.
//!
//! A seat's command not recorded is refused with a signature from memory
//! ([`crate::app::refusal`]), and the seat keeps its whole time again from that moment, so a
//! timeout is never recorded across such an outage (`verify --statements` names one that is).

use super::{Outage, Table};
use crate::app::ids::Version;

impl Table {
    /// The append at `expected` (the version the table held) may or may not have been recorded:
    /// the events folded for it are taken back, and the store is checked before the next
    /// answer. Should the log not fold again (it always does: the reducer is pure), the table is
    /// read again whole before its next answer instead.
    pub(in crate::app) fn unknown_outcome(&mut self, expected: Version) {
        match self.history.at(expected.0) {
            Some(history) => {
                self.history = history;
                self.check_soon();
            }
            None => self.distrust(),
        }
    }

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
