//! Bots at the table: what a bot does when the game waits for one ([`next_move`]), and the
//! driver that makes sure it happens exactly once, whichever process does it, whatever failed
//! in between.
//!
//! After every act the seam lets the bots answer (`crate::app::seam`, step 7), so a reply holds
//! their answers. When that fails — the database went away, the process was killed, another
//! process won a race — the store still says the game waits for a bot (`bot_awaited`, written
//! with every append), and the driver's sweep (`crate::app::driver`) finds it and plays it. Two processes may both
//! try: a bot's move is a pure function of the game and its version, and the store's expected
//! version lets exactly one of them record it.

use saboteur_domain::Event;

use crate::app::table::Table;

/// What the bots do next, if the game waits for one: a bot's vote on a pending undo request
/// (docs/rules.md §12), or the awaited bot's command.
pub(crate) fn next_move(table: &Table) -> Option<Vec<Event>> {
    let history = table.history();
    if let Some(request) = history.pending_undo() {
        // A request waits for its humans' votes; meanwhile nobody acts.
        let voter = table.bot_voter()?;
        return history.vote_undo(voter, request.bot_approves()).ok();
    }
    let seat = history.game().awaited()?;
    let level = table.bot(seat)?;
    let events = history.execute_bot(seat, level);
    if events.is_none() {
        tracing::warn!(game = %table.id(), seat = seat.0, "a bot found no command");
    }
    events
}
