//! Players' signatures: a seat may register an Ed25519 public key (`seat_key_registered`);
//! from then on every act of that seat is recorded with the player's signature over the game,
//! the seat, the version it was chosen at, the act and the request's body: since record
//! version 5 one canonical JSON statement that also names the event the act is about
//! ([`act_statement`]), in versions 3 and 4 the same statement without it
//! ([`signing_statement`]), before them six lines with the body's exact bytes
//! ([`signing_message`]); [`SigningScheme`] says which a game takes. Which acts of a log must
//! carry one is [`crate::signed_log`]; the signatures themselves are checked by the verifier
//! (`saboteur-verifier`), since the engine verifies no signature.

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
    /// The Ed25519 signature of what the game's [`SigningScheme`] signs (the canonical
    /// statement of the act, or the six lines of `saboteur-act-v1`), 128 lowercase hex digits.
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
    /// Naming one's seat anew before the start.
    Name,
    /// Moving to another free seat before the start.
    Sit,
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
            SignedAct::Name => "name",
            SignedAct::Sit => "sit",
        }
    }

    /// Whether the act is about an earlier event, which the statement of record version 5 on
    /// names ([`act_statement`]'s `about`): an undo (the command it takes back), an approval or
    /// a decline (the request voted on), a reclaim (the hand-over it ends).
    pub fn names_an_event(self) -> bool {
        match self {
            SignedAct::Undo | SignedAct::Approve | SignedAct::Decline | SignedAct::Reclaim => true,
            SignedAct::Command
            | SignedAct::Talk
            | SignedAct::Leave
            | SignedAct::Key
            | SignedAct::Name
            | SignedAct::Sit => false,
        }
    }

    /// Whether the act may write to the lobby before the start (a leave, a new name, a new
    /// key, another seat), where nothing is recorded: it is then signed at the lobby's version
    /// rather than the game's.
    pub fn writes_the_lobby(self) -> bool {
        match self {
            SignedAct::Leave | SignedAct::Name | SignedAct::Key | SignedAct::Sit => true,
            SignedAct::Command
            | SignedAct::Undo
            | SignedAct::Approve
            | SignedAct::Decline
            | SignedAct::Talk
            | SignedAct::Reclaim => false,
        }
    }
}

/// The statement a player signs, by the game's record version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SigningScheme {
    /// Record versions 1 and 2: [`signing_message`], the body's bytes exactly as sent.
    ActV1,
    /// Record versions 3 and 4: [`signing_statement`], the RFC 8785 (JCS) canonical JSON of
    /// the act, so a client signs the model it sends, whatever bytes its library writes.
    ActV2,
    /// Record version 5 on: [`act_statement`], the same statement naming the event the act is
    /// about, so a signed undo, vote or reclaim says by itself what it authorised.
    ActV3,
}

impl SigningScheme {
    /// The scheme a game of `record_version` takes.
    pub fn of_record(record_version: u8) -> SigningScheme {
        if record_version >= ACT_V3_RECORD_VERSION {
            SigningScheme::ActV3
        } else if record_version >= 3 {
            SigningScheme::ActV2
        } else {
            SigningScheme::ActV1
        }
    }

    /// The scheme's name, as the statement (or the message's first line) writes it.
    pub fn name(self) -> &'static str {
        match self {
            SigningScheme::ActV1 => "saboteur-act-v1",
            SigningScheme::ActV2 => "saboteur-act-v2",
            SigningScheme::ActV3 => "saboteur-act-v3",
        }
    }

    /// The bytes a player signs under this scheme, for an act `about` the event it names
    /// ([`SignedAct::names_an_event`]; `None` for the others, and ignored before
    /// [`SigningScheme::ActV3`]); `None` when the scheme signs a statement and a non-empty
    /// `body` is not JSON (nothing could sign it).
    pub fn signed_bytes(
        self,
        game: &str,
        seat: Seat,
        version: u64,
        act: SignedAct,
        body: &str,
        about: Option<u64>,
    ) -> Option<Vec<u8>> {
        match self {
            SigningScheme::ActV1 => Some(signing_message(game, seat, version, act, body)),
            SigningScheme::ActV2 => signing_statement(game, seat, version, act, body),
            SigningScheme::ActV3 => act_statement(game, seat, version, act, body, about),
        }
    }
}

/// The first record version whose players sign [`act_statement`] ([`SigningScheme::ActV3`]).
pub const ACT_V3_RECORD_VERSION: u8 = 5;

/// The members every canonical statement of an act holds, under `scheme`: the act's name, the
/// game, the seat, the version and the body parsed as JSON (`null` for an empty one); `None`
/// when a non-empty `body` is not JSON.
fn statement_members(
    scheme: SigningScheme,
    (game, seat, version): (&str, Seat, u64),
    act: SignedAct,
    body: &str,
) -> Option<serde_json::Map<String, serde_json::Value>> {
    let body = if body.trim().is_empty() {
        serde_json::Value::Null
    } else {
        serde_json::from_str(body).ok()?
    };
    let members = [
        ("scheme", scheme.name().into()),
        ("act", act.as_str().into()),
        ("game", game.into()),
        ("seat", seat.0.into()),
        ("version", version.into()),
        ("body", body),
    ];
    Some(
        members
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    )
}

/// The statement a player signs for an act in a game of record version 5 on: the RFC 8785
/// (JCS) canonical JSON of `{"scheme": "saboteur-act-v3", "act", "game", "seat", "version",
/// "body", "about"}`. `body` is the request's body parsed as JSON (`null` for an act sent
/// without one: undo, approve, decline, reclaim, leave); `about` is the number of the event the
/// act is about, `null` for an act about none: for an undo the seat's `command_accepted` it
/// takes back, for an approval or a decline the `undo_requested` voted on, for a reclaim the
/// seat's `seat_handed_to_bot` it ends (the table's status lists each:
/// [`crate::SeatStatus::undoable`], [`crate::TableStatus::undo_request`],
/// [`crate::SeatStatus::handed_at`]). `None` when a non-empty `body` is not JSON.
pub fn act_statement(
    game: &str,
    seat: Seat,
    version: u64,
    act: SignedAct,
    body: &str,
    about: Option<u64>,
) -> Option<Vec<u8>> {
    let mut statement = statement_members(SigningScheme::ActV3, (game, seat, version), act, body)?;
    statement.insert("about".into(), serde_json::json!(about));
    serde_json_canonicalizer::to_vec(&statement).ok()
}

/// The statement a player signs for an act in a game of record version 3 or 4: the RFC 8785
/// (JCS) canonical JSON of `{"scheme": "saboteur-act-v2", "act", "game", "seat", "version",
/// "body"}`, where `body` is the request's body parsed as JSON (`null` for an act sent without
/// one: undo, approve, decline, reclaim, leave). The version binds those acts to what they
/// are about: at one version a seat has one command to take back, one request to vote on, one
/// hand-over to reclaim. `None` when a non-empty `body` is not JSON.
pub fn signing_statement(
    game: &str,
    seat: Seat,
    version: u64,
    act: SignedAct,
    body: &str,
) -> Option<Vec<u8>> {
    let statement = statement_members(SigningScheme::ActV2, (game, seat, version), act, body)?;
    serde_json_canonicalizer::to_vec(&statement).ok()
}

/// The scheme of a key's proof of possession ([`key_proof_statement`]).
pub const KEY_PROOF_SCHEME: &str = "saboteur-key-v1";

/// What the holder of a key signs to take a seat with it, or register it for their seat, in a
/// game of record version 4 on (its proof of possession): the RFC 8785 (JCS) canonical JSON of
/// `{"scheme": "saboteur-key-v1", "game", "key"}`, the key as 64 lowercase hex digits. The
/// record keeps it with the key (`seat_key_registered`'s `proof`), so a key in the record was
/// put there by whoever holds it, for this game: nobody can seat a player's key without them.
/// The seat is not named: a joining player does not know it yet, and the record binds key and
/// seat (every act the key signs names its seat).
pub fn key_proof_statement(game: &str, key: &str) -> Vec<u8> {
    let statement = serde_json::json!({
        "scheme": KEY_PROOF_SCHEME,
        "game": game,
        "key": key.to_ascii_lowercase(),
    });
    // A JSON object of three strings always canonicalises.
    serde_json_canonicalizer::to_vec(&statement).unwrap_or_default()
}

/// The scheme of a key's proof of possession made during play ([`key_proof_statement_at`]).
pub const KEY_PROOF_AT_SCHEME: &str = "saboteur-key-v2";

/// What the holder of a key signs to register it for their seat during play, in a game of
/// record version 7 on ([`crate::options::DATED_KEY_PROOF_RECORD_VERSION`]): the RFC 8785
/// (JCS) canonical JSON of `{"scheme": "saboteur-key-v2", "game", "key", "seat", "version"}`,
/// the key as 64 lowercase hex digits, `version` the game's version the holder made it at
/// (recorded as the event's `at`). It holds only for that seat, and only from the seat's last
/// reissued token on: a proof read from the record cannot put its key back after a reissue, nor
/// on another seat. Keys sent in the lobby are proved by [`key_proof_statement`].
pub fn key_proof_statement_at(game: &str, key: &str, seat: Seat, version: u64) -> Vec<u8> {
    let statement = serde_json::json!({
        "scheme": KEY_PROOF_AT_SCHEME,
        "game": game,
        "key": key.to_ascii_lowercase(),
        "seat": seat.0,
        "version": version,
    });
    // A JSON object of strings and numbers always canonicalises.
    serde_json_canonicalizer::to_vec(&statement).unwrap_or_default()
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
