//! Which acts of a log a player signed, and with which key: every act of a seat with a key
//! (`Event::SeatKeyRegistered`) must carry the player's signature ([`crate::signature`]), and
//! nothing else may. The signatures themselves are checked by the API's audit.

use crate::event::{Event, consequences};
use crate::history::opens_batch;
use crate::seat::Seat;
use crate::signature::{SeatSignature, SignedAct, SigningScheme, fingerprint};

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
    /// What the player signed: the game's statement by its record version.
    pub scheme: SigningScheme,
    /// The event the act is about ([`crate::about::About::of`]), named by the statement of
    /// record version 5 on.
    pub about: Option<u64>,
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
        // A command or an undo inside another's batch (a timeout's, the votes' undo), a bot's
        // vote, the server's own message: nobody's signature.
        Event::CommandAccepted { .. }
        | Event::Undone { .. }
        | Event::UndoApproved { .. }
        | Event::UndoDeclined { .. }
        | Event::TalkPosted { .. } => None,
        // The server's bookkeeping and the host's acts (the host signs nothing a seat does).
        Event::GameCreated { .. }
        | Event::SeedMixed { .. }
        | Event::RoundStarted { .. }
        | Event::TalkHidden { .. }
        | Event::TurnTimedOut { .. }
        | Event::SeatHandedToBot { .. }
        | Event::TokenReissued { .. }
        | Event::GameCancelled {}
        | consequences!() => None,
    }
}

/// Who signs for each seat as a log goes: the seat's key (the last one registered, dropped by a
/// reissued token) and whether the record gives it to a bot (handed over, or a lobby's bot).
struct Signers {
    keys: Vec<Option<String>>,
    handed: Vec<bool>,
}

impl Signers {
    fn new(players: usize) -> Signers {
        Signers {
            keys: vec![None; players],
            handed: vec![false; players],
        }
    }

    /// The key that signs for `seat` now.
    fn key(&self, seat: Seat) -> Option<String> {
        self.keys.get(seat.index()).cloned().flatten()
    }

    /// Follows one event of the log.
    fn observe(&mut self, event: &Event) {
        match event {
            Event::SeatKeyRegistered { seat, key, .. } => {
                if let Some(k) = self.keys.get_mut(seat.index()) {
                    *k = Some(key.clone());
                }
            }
            Event::TokenReissued { seat } => {
                if let Some(k) = self.keys.get_mut(seat.index()) {
                    *k = None;
                }
            }
            Event::SeatHandedToBot { seat, .. } | Event::SeatReclaimed { seat, .. } => {
                if let Some(h) = self.handed.get_mut(seat.index()) {
                    *h = matches!(event, Event::SeatHandedToBot { .. });
                }
            }
            // Nothing else changes who signs for a seat.
            Event::GameCreated { .. }
            | Event::SeedMixed { .. }
            | Event::RoundStarted { .. }
            | Event::CommandAccepted { .. }
            | Event::UndoRequested { .. }
            | Event::UndoApproved { .. }
            | Event::UndoDeclined { .. }
            | Event::Undone { .. }
            | Event::TalkPosted { .. }
            | Event::TalkHidden { .. }
            | Event::TurnTimedOut { .. }
            | Event::GameCancelled {}
            | consequences!() => {}
        }
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
    let (players, bound, scheme) = match log.first() {
        Some(Event::GameCreated {
            players,
            record_version,
            ..
        }) => (
            usize::from(*players),
            *record_version >= 2,
            SigningScheme::of_record(*record_version),
        ),
        _ => return Err((1, "the log does not start with game_created".into())),
    };
    // The version after the last event that changed what a seat decides on, before the act's
    // batch: under record version 2 a signature holds from there on only
    // ([`crate::History::decision_version`]), as the server accepts it.
    let mut decided = 1u64;
    let mut floor = 1u64;
    let mut signers = Signers::new(players);
    let mut about = crate::about::About::new(players);
    let mut base = 0u64;
    let mut seen = std::collections::BTreeSet::new();
    let mut entries = Vec::new();
    for (index, event) in log.iter().enumerate() {
        let seq = index as u64 + 1;
        if index == 0 || opens_batch(log, index) {
            base = index as u64;
            floor = decided;
        }
        if event.changes_decisions() {
            decided = seq;
        }
        let signature = event.signature();
        match (own_act(log, index, &signers.handed), signature) {
            (Some((seat, act)), signature) => {
                let key = signers.key(seat);
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
                        if bound && signature.version < floor {
                            return Err((
                                seq,
                                format!(
                                    "{seat}'s {} was signed at version {}, before the decision \
                                     it was recorded at (version {floor} on): a signature made \
                                     for another moment, spent again",
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
                            scheme,
                            about: about.of(event, seat, act),
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
        signers.observe(event);
        about.observe(seq, event);
    }
    Ok(entries)
}

/// Every act of `seat` in `log` that the player holding `keys` (every key they held for the
/// seat: one, or several when they changed it) did not sign, as `(seq, what)`: an act of the
/// seat signed with another key or not signed at all, another key registered for the seat, a
/// command labelled as a bot's while the record gave the seat to no bot. Acts made while the
/// record gave the seat to a bot (handed over in the open) are not the player's and are left
/// out. What a player shows with their own kept keys (`saboteur verify --player-key`): a key
/// swapped in the lobby, or replaced after a token reissue, names every act made with it.
/// (Whether each signature verifies is [`signed_acts`]' and the API audit's business.)
pub fn not_signed_by(log: &[Event], seat: Seat, keys: &[&str]) -> Vec<(u64, String)> {
    let players = match log.first() {
        Some(Event::GameCreated { players, .. }) => usize::from(*players),
        _ => return vec![(1, "the log does not start with game_created".into())],
    };
    let mine = keys
        .iter()
        .map(|k| fingerprint(k))
        .collect::<Vec<_>>()
        .join(", ");
    let is_mine = |k: &str| keys.contains(&k);
    let mut signers = Signers::new(players);
    let mut named = Vec::new();
    for (index, event) in log.iter().enumerate() {
        let seq = index as u64 + 1;
        let by_bot = signers.handed.get(seat.index()).copied().unwrap_or(false);
        match (event, own_act(log, index, &signers.handed)) {
            // The player's own key registered (at the start, or again): theirs.
            (Event::SeatKeyRegistered { key: new, .. }, Some((s, _))) if s == seat && is_mine(new) => {
            }
            (Event::SeatKeyRegistered { key: new, .. }, Some((s, _))) if s == seat => named.push((
                seq,
                format!(
                    "the record registers key {} for {seat}, not yours ({mine})",
                    fingerprint(new)
                ),
            )),
            (_, Some((s, act))) if s == seat => match signers.key(seat) {
                Some(k) if is_mine(&k) => {}
                Some(k) => named.push((
                    seq,
                    format!(
                        "{seat}'s {} is signed by key {}, not yours ({mine})",
                        act.as_str(),
                        fingerprint(&k)
                    ),
                )),
                None => named.push((
                    seq,
                    format!(
                        "{seat}'s {} is not signed: not made with your key ({mine})",
                        act.as_str()
                    ),
                )),
            },
            (
                Event::CommandAccepted {
                    seat: s,
                    bot: Some(_),
                    ..
                },
                None,
            ) if *s == seat && !by_bot && opens_batch(log, index) => named.push((
                seq,
                format!("{seat}'s command is labelled as a bot's while the record gave the seat to no bot"),
            )),
            _ => {}
        }
        signers.observe(event);
    }
    named
}

/// A key the record registers for a seat, with its holder's proof of possession.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyProof {
    /// The event that registers the key (its sequence number, from 1).
    pub seq: u64,
    /// The seat the key signs for.
    pub seat: Seat,
    /// The key, 64 lowercase hex digits.
    pub key: String,
    /// The holder's signature of [`crate::key_proof_statement`], or of
    /// [`crate::key_proof_statement_at`] when `at` is given, 128 hex digits.
    pub proof: String,
    /// The version the proof names, for a key registered during play (record version 7 on).
    pub at: Option<u64>,
}

/// How a key registered without its proof of possession is named.
pub(crate) fn unproved_key(seat: Seat, key: &str) -> String {
    format!(
        "{seat}'s key {} is registered without its holder's proof of possession: nothing shows \
         the player took the seat with it",
        fingerprint(key)
    )
}

/// How a key whose proof names the wrong moment is named (record version 7 on): an undated
/// proof after the seat's token was reissued, one dated before the reissue (`since`), or
/// after the version it was recorded at (`seq` - 1).
pub(crate) fn proof_out_of_time(
    (seat, key): (Seat, &str),
    at: Option<u64>,
    (since, seq): (u64, u64),
) -> String {
    let key = fingerprint(key);
    match at {
        None => format!(
            "{seat}'s key {key} is registered after the seat's token was reissued at version \
             {since} with a proof that names no moment: a proof made before the reissue, spent \
             again"
        ),
        Some(at) if at < since => format!(
            "{seat}'s key {key} is registered with a proof made at version {at}, before the \
             seat's token was reissued at version {since}: a proof made before the reissue, spent \
             again"
        ),
        Some(at) => format!(
            "{seat}'s key {key} is registered at version {} with a proof dated version {at}, \
             which had not happened yet",
            seq - 1
        ),
    }
}

/// Every key a log registers with the proof its holder signed, for checking: in a game of
/// record version 4 on every [`Event::SeatKeyRegistered`] must carry one (a key seated
/// without it is named), and before that none may. Whether each proof verifies is the
/// verifier's business (the engine does no signature checks).
pub fn key_proofs(log: &[Event]) -> Result<Vec<KeyProof>, SigningError> {
    let record_version = match log.first() {
        Some(Event::GameCreated { record_version, .. }) => *record_version,
        _ => return Err((1, "the log does not start with game_created".into())),
    };
    let required = crate::options::proves_keys(record_version);
    let mut proofs = Vec::new();
    for (index, event) in log.iter().enumerate() {
        let seq = index as u64 + 1;
        let Event::SeatKeyRegistered {
            seat,
            key,
            proof,
            at,
            ..
        } = event
        else {
            continue;
        };
        if at.is_some() && !crate::options::dates_key_proofs(record_version) {
            return Err((
                seq,
                "a key's proof is dated in a game whose record version dates none".into(),
            ));
        }
        match (proof, required) {
            (Some(proof), true) => proofs.push(KeyProof {
                seq,
                seat: *seat,
                key: key.clone(),
                proof: proof.clone(),
                at: *at,
            }),
            (None, true) => return Err((seq, unproved_key(*seat, key))),
            (Some(_), false) => {
                return Err((
                    seq,
                    "a key carries a proof in a game whose record version has none".into(),
                ));
            }
            (None, false) => {}
        }
    }
    Ok(proofs)
}
