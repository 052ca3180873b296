//! Signed receipts: what the server answered, to whom, at which point of the game's chain,
//! signed with the server's Ed25519 key. Usable offline (`saboteur verify --receipts`,
//! `saboteur-verify --receipts`).
//!
//! - A **receipt** names the game, the version and the chain's head there (the hash of the
//!   event at that version), the time, the audience, and `view_hash`: hex SHA-256 of the RFC 8785
//!   (JCS) canonical JSON of the body served, with its `receipt` field removed.
//! - The **signature** is Ed25519 over the JCS of the receipt without its `signature` field,
//!   128 hex digits; the key is named by `key_id`, the first 16 hex digits of SHA-256 of the
//!   public key. Public keys are 64 hex digits (`GET /keys`, and in every audit bundle).
//!
//! A receipt binds the server: once the game's record is public (the audit bundle), anyone can
//! recompute the body served at that version for that audience and check its hash, and check
//! the head against the bundle's chain. A record rewritten after a receipt was kept no longer
//! matches the receipt.

use ed25519_dalek::{Signature, VerifyingKey};
use saboteur_domain::Audience;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// What a receipt is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ReceiptKind {
    /// A view of the game (`GET /games/{id}/state`): `version` is the version viewed.
    View,
    /// The outcome of a write: the events from `first` to `version`, as the caller saw them.
    Outcome,
    /// A refusal of a player's or the host's write (a 4xx): `version` is the game's version
    /// when it was refused, `served_at` when, and `view_hash` covers the problem served
    /// (without its `receipt`).
    Refusal,
    /// The seed committed to when the game was created or a seat taken
    /// ([`crate::body::SeedCommitment`], which `view_hash` covers): `version` is the game's then.
    Commitment,
}

/// Whom a served body was computed for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ReceiptAudience {
    /// A player: `seat` names the seat.
    Seat,
    /// Anyone without a player's token (a spectator, or the host).
    Spectator,
    /// Everyone: the game was over and everything was public.
    Everyone,
}

/// The server's signed statement of what it served.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct Receipt {
    /// What it is for: a view, a write's outcome, a refusal, or a seed commitment.
    pub kind: ReceiptKind,
    /// The game's id.
    pub game_id: String,
    /// The version the body is of (for an outcome: the version after its events).
    pub version: i64,
    /// For an outcome: the sequence number of its first event.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first: Option<i64>,
    /// The hash of the game's event at `version`: the head of its hash chain there.
    pub head: String,
    /// When it was served (RFC 3339, the server's clock).
    pub served_at: String,
    /// Whom the body was computed for.
    pub audience: ReceiptAudience,
    /// The seat, for the audience `seat`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat: Option<u8>,
    /// Hex SHA-256 of the JCS (RFC 8785) form of the body served, its `receipt` removed.
    pub view_hash: String,
    /// For a refusal: hex SHA-256 of what was refused — the message the player signed, for a
    /// signed act; else the request's body exactly as sent. Absent for other kinds, a request
    /// without a body, and refusals signed before API 0.8.0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_hash: Option<String>,
    /// The signing key's id (`GET /keys`).
    pub key_id: String,
    /// Ed25519 over the JCS form of this receipt without `signature`, 128 hex digits. Always
    /// sent (a receipt read without one proves nothing).
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub signature: String,
}

/// A signing key as published: receipts signed with it stay checkable after it is retired.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct PublishedKey {
    /// The first 16 hex digits of SHA-256 of the public key.
    pub id: String,
    /// The Ed25519 public key, 64 hex digits.
    pub public_key: String,
    /// When the server first used it (RFC 3339).
    pub created_at: String,
    /// When another key replaced it (RFC 3339); absent for the key in use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retired_at: Option<String>,
    /// The previous key's Ed25519 signature (128 hex digits) of the JCS (RFC 8785) form of
    /// `{"kind": "key_endorsement", "previous": <its id>, "id": …, "public_key": …}`
    /// ([`endorsement_bytes`]): a client that kept the first key follows every rotation from
    /// it. Absent for the first key only: a later key without one breaks the chain
    /// ([`broken_chain`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endorsement: Option<String>,
}

/// The bytes a key's predecessor signs to endorse it: the JCS form of
/// `{"kind": "key_endorsement", "previous", "id", "public_key"}`.
pub fn endorsement_bytes(previous: &str, id: &str, public_key: &str) -> Vec<u8> {
    jcs(&serde_json::json!({
        "kind": "key_endorsement",
        "previous": previous,
        "id": id,
        "public_key": public_key,
    }))
}

/// Follows the keys' chain, oldest first: every key after the first must be endorsed by the
/// key published just before it. The first broken link, named: a key published without an
/// endorsement is one nobody vouched for (a key put in place of a deleted one), as is a key
/// whose endorsement the key before it did not sign.
pub fn broken_chain(keys: &[PublishedKey]) -> Option<String> {
    for pair in keys.windows(2) {
        let [previous, key] = pair else { continue };
        let Some(endorsement) = &key.endorsement else {
            return Some(format!(
                "key {} is published without an endorsement by key {}, the key before it: \
                 nobody vouched for it, and the server's keys may have been changed",
                key.id, previous.id
            ));
        };
        if !endorsed_by(previous, key, endorsement) {
            return Some(format!(
                "key {} is published as endorsed by key {}, and that key did not sign it: the \
                 server's keys were changed",
                key.id, previous.id
            ));
        }
    }
    None
}

/// `trusted`, grown by every key of `offered` that a trusted key endorsed ([`endorsement_bytes`]),
/// and by the keys those endorsed in turn: a client that kept one key follows each rotation
/// after it (as a checkpoint lists them) without reading `GET /keys` again.
pub fn follow_endorsements(trusted: &mut Vec<PublishedKey>, offered: &[PublishedKey]) {
    loop {
        let before = trusted.len();
        for key in offered {
            if trusted.iter().any(|t| t.id == key.id) {
                continue;
            }
            let Some(endorsement) = &key.endorsement else {
                continue;
            };
            let endorsed = trusted
                .iter()
                .any(|previous| endorsed_by(previous, key, endorsement));
            if endorsed && key_id_of(&key.public_key).as_deref() == Some(key.id.as_str()) {
                trusted.push(key.clone());
            }
        }
        if trusted.len() == before {
            return;
        }
    }
}

/// Whether `endorsement` is `previous`'s signature of `key` ([`endorsement_bytes`]).
fn endorsed_by(previous: &PublishedKey, key: &PublishedKey, endorsement: &str) -> bool {
    let bytes = endorsement_bytes(&previous.id, &key.id, &key.public_key);
    check_bytes(
        std::slice::from_ref(previous),
        &previous.id,
        &bytes,
        endorsement,
    )
    .is_ok()
}

/// A public key's id (as [`key_id`]), from its 64 hex digits.
fn key_id_of(public_key: &str) -> Option<String> {
    let bytes: [u8; 32] = hex::decode(public_key).ok()?.try_into().ok()?;
    Some(key_id(&bytes))
}

/// The JCS (RFC 8785) bytes of a JSON value.
pub fn jcs(value: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    if plain(value) && write_canonical(&mut out, value).is_ok() {
        out
    } else {
        canonicalised(value)
    }
}

/// The JCS bytes of a JSON value by the general canonicaliser (numbers formatted as ECMAScript
/// does, keys sorted by UTF-16 code units).
pub fn canonicalised(value: &Value) -> Vec<u8> {
    // A `Value` always serialises (its numbers are finite).
    serde_json_canonicalizer::to_vec(value).unwrap_or_default()
}

/// Whether [`write_canonical`] writes `value` in its JCS form: every number is an integer,
/// every key is ASCII and every object's keys come in ascending order (byte order is then
/// UTF-16 order). Strings are escaped alike by serde_json and JCS: `"`, `\\`, the short escapes
/// and `\u00xx` in lowercase for other control characters, everything else as UTF-8. The
/// bodies the server signs hold only integers and ASCII keys, so they take this path; anything
/// else goes through [`canonicalised`].
fn plain(value: &Value) -> bool {
    match value {
        Value::Number(n) => n.is_i64() || n.is_u64(),
        Value::Array(items) => items.iter().all(plain),
        Value::Object(map) => {
            let mut previous: Option<&str> = None;
            map.iter().all(|(k, v)| {
                let ordered = k.is_ascii() && previous.is_none_or(|p| p < k.as_str());
                previous = Some(k);
                ordered && plain(v)
            })
        }
        Value::Null | Value::Bool(_) | Value::String(_) => true,
    }
}

/// The largest integer JCS writes digit for digit (2^53): beyond it, a number is written as the
/// ECMAScript double nearest to it.
const EXACT: u64 = 1 << 53;

/// Writes a [`plain`] value in its JCS form.
fn write_canonical(out: &mut impl std::io::Write, value: &Value) -> std::io::Result<()> {
    match value {
        Value::Number(n) => {
            let exact = n.as_u64().is_some_and(|u| u <= EXACT)
                || n.as_i64().is_some_and(|i| i.unsigned_abs() <= EXACT);
            match (exact, n.as_f64()) {
                (true, _) | (false, None) => serde_json::to_writer(out, n)?,
                // Below 10^21 (every 64-bit integer is), ECMAScript writes the shortest digits
                // that round-trip, without an exponent, as Rust's `Display` for f64 does.
                (false, Some(f)) => write!(out, "{f}")?,
            }
        }
        Value::Array(items) => {
            out.write_all(b"[")?;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.write_all(b",")?;
                }
                write_canonical(out, item)?;
            }
            out.write_all(b"]")?;
        }
        Value::Object(map) => write_object(out, map, None)?,
        Value::Null | Value::Bool(_) | Value::String(_) => serde_json::to_writer(out, value)?,
    }
    Ok(())
}

/// Writes a [`plain`] object in its JCS form, leaving out the key `skip`.
fn write_object(
    out: &mut impl std::io::Write,
    map: &serde_json::Map<String, Value>,
    skip: Option<&str>,
) -> std::io::Result<()> {
    out.write_all(b"{")?;
    let mut first = true;
    for (key, value) in map.iter().filter(|(k, _)| Some(k.as_str()) != skip) {
        if !first {
            out.write_all(b",")?;
        }
        first = false;
        serde_json::to_writer(&mut *out, key)?;
        out.write_all(b":")?;
        write_canonical(out, value)?;
    }
    out.write_all(b"}")
}

/// SHA-256 fed by a writer, so a body is hashed as it is written out.
struct Hashing(Sha256);

impl std::io::Write for Hashing {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `view_hash` of a served body: hex SHA-256 of its JCS form without its `receipt` field.
/// A body whose compact form is canonical (every number an integer, every key ASCII, each
/// object's keys in ascending order) is written straight into the hash, its top-level
/// `receipt` skipped, with no copy and no second pass.
pub fn view_hash(body: &Value) -> String {
    let Value::Object(map) = body else {
        return hex::encode(Sha256::digest(jcs(body)));
    };
    if !plain(body) {
        let mut body = body.clone();
        if let Some(o) = body.as_object_mut() {
            o.remove("receipt");
        }
        return hex::encode(Sha256::digest(canonicalised(&body)));
    }
    let mut out = Hashing(Sha256::new());
    if write_object(&mut out, map, Some("receipt")).is_err() {
        // Writing into a hash cannot fail; should it, the general path gives the same hash.
        let mut body = body.clone();
        if let Some(o) = body.as_object_mut() {
            o.remove("receipt");
        }
        return hex::encode(Sha256::digest(canonicalised(&body)));
    }
    hex::encode(out.0.finalize())
}

/// A key's id: the first 16 hex digits of SHA-256 of its public key.
pub fn key_id(public_key: &[u8; 32]) -> String {
    hex::encode(Sha256::digest(public_key))
        .chars()
        .take(16)
        .collect()
}

impl Receipt {
    /// The bytes the signature covers: the JCS form of the receipt without `signature`.
    pub fn signed_bytes(&self) -> Vec<u8> {
        let mut v = serde_json::to_value(self).unwrap_or_default();
        if let Some(o) = v.as_object_mut() {
            o.remove("signature");
        }
        jcs(&v)
    }

    /// Whom it names, in words: "seat 2", "a spectator", "everyone".
    pub fn audience_words(&self) -> String {
        match (self.audience, self.seat) {
            (ReceiptAudience::Seat, Some(s)) => format!("seat {s}"),
            (ReceiptAudience::Seat, None) => "a seat".into(),
            (ReceiptAudience::Spectator, _) => "a spectator".into(),
            (ReceiptAudience::Everyone, _) => "everyone".into(),
        }
    }

    /// Checks the signature against the published keys; the error says why it proves nothing.
    pub fn check_signature(&self, keys: &[PublishedKey]) -> Result<(), String> {
        check_bytes(keys, &self.key_id, &self.signed_bytes(), &self.signature)
    }
}

/// The audience fields of a receipt for a body computed for `audience`.
pub fn audience_of(audience: Audience) -> (ReceiptAudience, Option<u8>) {
    match audience {
        Audience::Seat(s) => (ReceiptAudience::Seat, Some(s.0)),
        Audience::Spectator => (ReceiptAudience::Spectator, None),
        Audience::Omniscient => (ReceiptAudience::Everyone, None),
    }
}

/// The audience a receipt names.
pub fn audience_from(receipt: &Receipt) -> Option<Audience> {
    match (receipt.audience, receipt.seat) {
        (ReceiptAudience::Seat, Some(s)) => Some(Audience::Seat(saboteur_domain::Seat(s))),
        (ReceiptAudience::Seat, None) => None,
        (ReceiptAudience::Spectator, _) => Some(Audience::Spectator),
        (ReceiptAudience::Everyone, _) => Some(Audience::Omniscient),
    }
}

/// Checks a signature (128 hex digits) over `bytes` by the published key `key_id`; the error
/// says why it proves nothing.
pub fn check_bytes(
    keys: &[PublishedKey],
    key_id: &str,
    bytes: &[u8],
    signature: &str,
) -> Result<(), String> {
    let key = keys
        .iter()
        .find(|k| k.id == key_id)
        .ok_or_else(|| format!("it names key {key_id}, which is not published"))?;
    let public: [u8; 32] = hex::decode(&key.public_key)
        .ok()
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| format!("key {key_id} is not 64 hex digits"))?;
    if self::key_id(&public) != key.id {
        return Err(format!(
            "key {key_id}: its id does not match its public key"
        ));
    }
    let public = VerifyingKey::from_bytes(&public)
        .map_err(|_| format!("key {key_id} is not an Ed25519 public key"))?;
    let signature: [u8; 64] = hex::decode(signature)
        .ok()
        .and_then(|b| b.try_into().ok())
        .ok_or("its signature is not 128 hex digits")?;
    public
        .verify_strict(bytes, &Signature::from_bytes(&signature))
        .map_err(|_| format!("its signature is not key {key_id}'s"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hash of the body without `receipt`, by the general canonicaliser only.
    fn reference_hash(body: &Value) -> String {
        let mut body = body.clone();
        if let Some(o) = body.as_object_mut() {
            o.remove("receipt");
        }
        hex::encode(Sha256::digest(canonicalised(&body)))
    }

    #[test]
    fn the_direct_hash_is_the_canonical_hash_of_served_bodies() {
        use saboteur_domain::{Audience, History, Options, Ruleset, Seat, Seed};
        let mut checked = 0;
        for (seed, ruleset, players) in [
            (1, Ruleset::Base, 3),
            (2, Ruleset::Base, 10),
            (3, Ruleset::Saboteur2, 12),
        ] {
            let log = saboteur_domain::bot::random_game(
                ruleset,
                Options::default(),
                players,
                Seed::from_u64(seed),
            );
            let history = History::replay(log.clone()).unwrap();
            for version in (1..=history.version()).step_by(25) {
                let game = history.state_at(version).unwrap();
                for audience in [
                    Audience::Seat(Seat(0)),
                    Audience::Spectator,
                    Audience::Omniscient,
                ] {
                    let body = serde_json::json!({
                        "version": version,
                        "view": saboteur_domain::view(&game, audience),
                        "events": log.get(..version as usize),
                        "receipt": {"signature": "x"},
                    });
                    assert!(plain(&body), "a served body takes the direct path");
                    assert_eq!(view_hash(&body), reference_hash(&body));
                    checked += 1;
                }
            }
        }
        assert!(checked > 30);
    }

    #[test]
    fn bodies_the_direct_path_cannot_write_go_through_the_canonicaliser() {
        let tricky = serde_json::json!({
            "b": "quote \" backslash \\ controls \u{1} \u{1f} \n \t \u{7f} é \u{2028} 😀",
            "a": [1, -2, 3.5, 1e21, 0.1],
            "é": {"z": null, "y": true},
            "receipt": "dropped",
        });
        assert!(!plain(&tricky));
        assert_eq!(view_hash(&tricky), reference_hash(&tricky));
        let strings = serde_json::json!({"s": "\u{0}\u{8}\u{c}\u{b}\"\\/é😀\u{2029}", "n": -7});
        assert!(plain(&strings));
        assert_eq!(jcs(&strings), canonicalised(&strings));
        assert_eq!(view_hash(&strings), reference_hash(&strings));
    }

    #[test]
    fn the_view_hash_ignores_key_order_and_the_receipt() {
        let a = serde_json::json!({"version": 1, "view": {"x": 1, "y": [1, 2]}});
        let b: Value =
            serde_json::from_str(r#"{"view":{"y":[1,2],"x":1},"receipt":{"k":1},"version":1}"#)
                .unwrap();
        assert_eq!(view_hash(&a), view_hash(&b));
        assert_ne!(view_hash(&a), view_hash(&serde_json::json!({"version": 2})));
    }
}
