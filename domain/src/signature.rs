//! Players' signatures: a seat may register an Ed25519 public key (`seat_key_registered`);
//! from then on every act of that seat is recorded with the player's signature over the game,
//! the seat, the version it was chosen at, the act and the request's exact body
//! ([`signing_message`]). Which acts of a log must carry one is [`crate::signed_log`]; the
//! signatures themselves are checked where the keys are verified (the API's audit), since the
//! engine does no cryptography.

use serde::{Deserialize, Serialize};

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
