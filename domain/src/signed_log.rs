//! Which acts of a log a player signed, and with which key: every act of a seat with a key
//! (`Event::SeatKeyRegistered`) must carry the player's signature ([`crate::signature`]), and
//! nothing else may. The signatures themselves are checked by the API's audit.

use crate::event::Event;
use crate::history::opens_batch;
use crate::seat::Seat;
use crate::signature::{SeatSignature, SignedAct, fingerprint};

/// One signed act of a log, for checking its signature.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedEntry {
    /// The event that records the act (its sequence number, from 1).
    pub seq: u64,
    /// The seat that acted.
    pub seat: Seat,
    /// The seat's key when it acted.
    pub key: String,
    /// What was signed.
    pub act: SignedAct,
    /// The game's version before the act's batch.
    pub base: u64,
    /// The recorded signature.
    pub signature: SeatSignature,
}

/// The act an event records for its seat, if it is one a player signs: the seat and the act.
/// `index` is the event's place in `log` (from 0); an undo completed by the last vote is the
/// vote's, a bot's command or vote nobody's.
fn own_act(log: &[Event], index: usize, handed: &[bool]) -> Option<(Seat, SignedAct)> {
    let by_bot = |seat: &Seat| handed.get(seat.index()).copied().unwrap_or(false);
    match &log[index] {
        Event::CommandAccepted {
            seat, bot: None, ..
        } if opens_batch(log, index) => Some((*seat, SignedAct::Command)),
        Event::UndoRequested { seat, .. } => Some((*seat, SignedAct::Undo)),
        Event::Undone { by: Some(seat), .. } if opens_batch(log, index) => {
            Some((*seat, SignedAct::Undo))
        }
        Event::UndoApproved { seat, .. } if !by_bot(seat) => Some((*seat, SignedAct::Approve)),
        Event::UndoDeclined { seat, .. } if !by_bot(seat) => Some((*seat, SignedAct::Decline)),
        Event::TalkPosted {
            seat: Some(seat), ..
        } => Some((*seat, SignedAct::Talk)),
        Event::SeatReclaimed { seat, .. } => Some((*seat, SignedAct::Reclaim)),
        Event::SeatKeyRegistered { seat, .. } => Some((*seat, SignedAct::Key)),
        _ => None,
    }
}

/// Where a log's signatures break the rules of signing, named like an audit's discrepancy:
/// `(seq, what)`.
pub type SigningError = (u64, String);

/// Every signed act of a log with the key that must have signed it, after checking that each
/// act of a seat with a key carries a signature, that nothing else does, that no signature was
/// made at a version after its act or is recorded twice. A seat's key is the last one
/// [`Event::SeatKeyRegistered`] recorded for it; a reissued token drops it
/// ([`Event::TokenReissued`]). Registering a new key over an old one is signed by the old one.
pub fn signed_acts(log: &[Event]) -> Result<Vec<SignedEntry>, SigningError> {
    let players = match log.first() {
        Some(Event::GameCreated { players, .. }) => usize::from(*players),
        _ => return Err((1, "the log does not start with game_created".into())),
    };
    let mut keys: Vec<Option<String>> = vec![None; players];
    let mut handed = vec![false; players];
    let mut base = 0u64;
    let mut seen = std::collections::BTreeSet::new();
    let mut entries = Vec::new();
    for (index, event) in log.iter().enumerate() {
        let seq = index as u64 + 1;
        if index == 0 || opens_batch(log, index) {
            base = index as u64;
        }
        let signature = event.signature();
        match (own_act(log, index, &handed), signature) {
            (Some((seat, act)), signature) => {
                let key = keys.get(seat.index()).cloned().flatten();
                match (key, signature) {
                    (Some(key), Some(signature)) => {
                        if signature.version > base {
                            return Err((
                                seq,
                                format!(
                                    "{seat}'s {} was signed at version {}, after the version \
                                     {base} it was recorded at",
                                    act.as_str(),
                                    signature.version
                                ),
                            ));
                        }
                        if !seen.insert(signature.signature.clone()) {
                            return Err((
                                seq,
                                format!(
                                    "{seat}'s signature of event {seq} was already used: an act \
                                     recorded twice"
                                ),
                            ));
                        }
                        entries.push(SignedEntry {
                            seq,
                            seat,
                            key,
                            act,
                            base,
                            signature: signature.clone(),
                        });
                    }
                    (Some(key), None) => {
                        return Err((
                            seq,
                            format!(
                                "{seat}'s {} is not signed, yet the seat's key is {}: the \
                                 player did not make it",
                                act.as_str(),
                                fingerprint(&key)
                            ),
                        ));
                    }
                    (None, Some(_)) => {
                        return Err((
                            seq,
                            format!(
                                "{seat}'s {} is signed, yet the seat has no key",
                                act.as_str()
                            ),
                        ));
                    }
                    (None, None) => {}
                }
            }
            (None, Some(_)) => {
                return Err((
                    seq,
                    format!("`{}` carries a signature nobody makes", event.kind()),
                ));
            }
            (None, None) => {}
        }
        match event {
            Event::SeatKeyRegistered { seat, key, .. } => {
                if let Some(k) = keys.get_mut(seat.index()) {
                    *k = Some(key.clone());
                }
            }
            Event::TokenReissued { seat } => {
                if let Some(k) = keys.get_mut(seat.index()) {
                    *k = None;
                }
            }
            Event::SeatHandedToBot { seat, .. } => {
                if let Some(h) = handed.get_mut(seat.index()) {
                    *h = true;
                }
            }
            Event::SeatReclaimed { seat, .. } => {
                if let Some(h) = handed.get_mut(seat.index()) {
                    *h = false;
                }
            }
            _ => {}
        }
    }
    Ok(entries)
}
