//! Players' signatures: a seat may register an Ed25519 public key (`seat_key_registered`);
//! from then on every act of that seat is recorded with the player's signature over the game,
//! the seat, the version it was chosen at, the act and the request's exact body
//! ([`signing_message`]). The engine checks that each act of a keyed seat carries one and
//! lists them ([`signed_acts`]); the signatures themselves are checked where the keys are
//! verified (the API's audit), since the engine does no cryptography.

use serde::{Deserialize, Serialize};

use crate::event::Event;
use crate::history::opens_batch;
use crate::seat::Seat;

/// A player's signature of one act, as recorded with the act's event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct SeatSignature {
    /// The version the player signed at: the game's version when the act was chosen.
    pub version: u64,
    /// The request's body exactly as sent and signed (empty for an act without a body).
    pub body: String,
    /// The Ed25519 signature of the signed message (`saboteur-act-v1`, the game, the seat, the
    /// version, the act and the body, one per line), 128 lowercase hex digits.
    pub signature: String,
}

/// What a player signs: the kinds of act a seat's key covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum SignedAct {
    /// A command (`POST /games/{id}/commands`).
    Command,
    /// A request to take back one's last command.
    Undo,
    /// An approval of the pending undo request.
    Approve,
    /// Declining the pending undo request.
    Decline,
    /// A message at the table.
    Talk,
    /// Taking one's seat back from a bot.
    Reclaim,
    /// Giving one's seat back before the start.
    Leave,
    /// Registering another key for the seat.
    Key,
}

impl SignedAct {
    /// The act's name in the signed message.
    pub fn as_str(self) -> &'static str {
        match self {
            SignedAct::Command => "command",
            SignedAct::Undo => "undo",
            SignedAct::Approve => "approve",
            SignedAct::Decline => "decline",
            SignedAct::Talk => "talk",
            SignedAct::Reclaim => "reclaim",
            SignedAct::Leave => "leave",
            SignedAct::Key => "key",
        }
    }
}

/// The bytes a player signs for an act: six lines joined by `\n` — `saboteur-act-v1`, the
/// game's id, the seat number, the version, the act's name ([`SignedAct::as_str`]) and the
/// request's body exactly as sent (which may itself hold line breaks; it comes last).
pub fn signing_message(
    game: &str,
    seat: Seat,
    version: u64,
    act: SignedAct,
    body: &str,
) -> Vec<u8> {
    format!(
        "saboteur-act-v1\n{game}\n{}\n{version}\n{}\n{body}",
        seat.0,
        act.as_str()
    )
    .into_bytes()
}

/// Whether `key` is an Ed25519 public key as the wire writes it: 64 lowercase hex digits.
pub fn is_public_key(key: &str) -> bool {
    key.len() == 64
        && key
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Whether `signature` is written as a signature: 128 lowercase hex digits.
pub fn is_signature(signature: &str) -> bool {
    signature.len() == 128
        && signature
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

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

/// A key's fingerprint as people compare it: the first 16 hex digits of the SHA-256 of the
/// key's 32 bytes, in groups of four (`3f2a 9c01 7be4 0d55`). A key that is not 64 hex digits
/// is shown as it is.
pub fn fingerprint(key: &str) -> String {
    use sha2::{Digest, Sha256};
    if !is_public_key(key) {
        return key.to_string();
    }
    let bytes: Vec<u8> = (0..32)
        .filter_map(|i| u8::from_str_radix(&key[2 * i..2 * i + 2], 16).ok())
        .collect();
    let hash = Sha256::digest(&bytes);
    let hex: String = hash.iter().take(8).map(|b| format!("{b:02x}")).collect();
    hex.as_bytes()
        .chunks(4)
        .map(|c| String::from_utf8_lossy(c).into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}
