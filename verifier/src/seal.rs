//! Sealing: the form of an event the hash chain covers in a game of record version 6 on
//! ([`SEALED_RECORD_VERSION`]), where every value some audience may not see is replaced by a
//! hiding commitment.
//!
//! A head (the chain's hash at a version) is served to everyone in receipts. Were it computed
//! over the event as stored, a hidden field with few possible values (a card drawn, a role, the
//! goal a map showed) could be found by hashing each candidate until the head matched. So the
//! chain hashes the event's **sealed form** instead: the event as a spectator sees it
//! (`redact(event, Spectator)`), with each value the spectator does not see replaced by
//! `{"commitment": C}`, where
//!
//! - `C = SHA-256(len‖"saboteur commitment v1" ‖ len‖salt ‖ len‖canonical JSON of the value)`,
//! - `salt = HMAC-SHA-256(key, seq as 8 bytes big-endian ‖ the value's JSON pointer)`,
//! - `key = SHA-256(len‖"saboteur seal key v1" ‖ len‖game id ‖ the server's 32-byte seed)`.
//!
//! The server's seed is committed to at creation (`seed_commitment`) and revealed only once the
//! game is over, so nobody else can compute a salt before the end: each commitment hides its
//! value (a 256-bit unknown salt) and binds it (SHA-256). After the end the audit bundle reveals
//! the seed, and anyone recomputes every salt, commitment and hash from the record. A seat is
//! given the salts of the values it sees ([`Sealer::openings`]), so it can check its own cards
//! against the chain while the game runs.
//!
//! Where a value is hidden is decided by comparing the event as stored with the spectator's
//! redaction of it, node by node: whatever differs is sealed whole. A new hidden field therefore
//! needs nothing here: `redact` hiding it is what seals it.

use hmac::{Hmac, Mac};
use saboteur_domain::{Audience, Event, Seed, redact};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::hash::canonical_json;

pub use saboteur_domain::options::SEALED_RECORD_VERSION;

/// Whether a game of `record_version` seals its events in the chain.
pub fn seals(record_version: u8) -> bool {
    record_version >= SEALED_RECORD_VERSION
}

/// The key of one game's salts, derived from its id and the server's seed.
#[derive(Clone)]
pub struct Sealer {
    key: [u8; 32],
}

impl std::fmt::Debug for Sealer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Sealer(..)")
    }
}

/// A hidden value's commitment and, for an audience that sees the value, its salt: what lets a
/// seat check a value it was shown against the chain before the game's seed is revealed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct CommitmentOpening {
    /// Where the value stands in the event: an RFC 6901 JSON pointer (`/hands/2`).
    pub path: String,
    /// The commitment the chain hashes in its place (64 hex digits).
    pub commitment: String,
    /// The salt (64 hex digits), for an audience that sees the value; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub salt: Option<String>,
}

fn field(h: &mut Sha256, bytes: &[u8]) {
    h.update((bytes.len() as u64).to_be_bytes());
    h.update(bytes);
}

/// The commitment to `value` under `salt`: hex SHA-256 of the domain's name, the salt and the
/// value's canonical JSON, each length-prefixed.
pub fn commitment(salt: &[u8; 32], value: &Value) -> String {
    let mut h = Sha256::new();
    field(&mut h, b"saboteur commitment v1");
    field(&mut h, salt);
    field(&mut h, &canonical_json(value));
    hex::encode(h.finalize())
}

impl Sealer {
    /// The sealer of game `game_id`, whose server seed (the one `game_created` records and
    /// `seed_commitment` commits to) is `seed`.
    pub fn new(game_id: &str, seed: &Seed) -> Sealer {
        let mut h = Sha256::new();
        field(&mut h, b"saboteur seal key v1");
        field(&mut h, game_id.as_bytes());
        h.update(seed.0);
        Sealer {
            key: h.finalize().into(),
        }
    }

    /// The sealer of a game whose log starts with `created`, when its record version seals its
    /// events and its seed is known; `None` for an older record (its chain hashes each event as
    /// stored) or a first event that is no creation.
    pub fn for_game(game_id: &str, created: &Event) -> Option<Sealer> {
        match created {
            Event::GameCreated {
                seed,
                record_version,
                ..
            } if seals(*record_version) => seed.known().map(|s| Sealer::new(game_id, s)),
            _ => None,
        }
    }

    /// The salt of the value at `path` (a JSON pointer) in event `seq`.
    pub fn salt(&self, seq: i64, path: &str) -> [u8; 32] {
        // HMAC takes a key of any length: a 32-byte key cannot be refused.
        let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(&self.key) else {
            return [0; 32];
        };
        mac.update(&seq.to_be_bytes());
        mac.update(path.as_bytes());
        mac.finalize().into_bytes().into()
    }

    /// The sealed form of event `seq`, `event` as decoded from `payload` as stored: what the
    /// chain hashes.
    pub fn sealed(&self, seq: i64, event: &Event, payload: &Value) -> Value {
        let public = public_form(event);
        let mut path = String::new();
        seal_node(payload, &public, &mut path, &mut |p, v| {
            commitment(&self.salt(seq, p), v)
        })
    }

    /// Every value of event `seq` sealed in the chain, with its commitment, and its salt where
    /// `audience` sees the value (once the game is over, the seed is revealed and every salt
    /// with it: openings are for the game under way).
    pub fn openings(
        &self,
        seq: i64,
        event: &Event,
        payload: &Value,
        audience: Audience,
    ) -> Vec<CommitmentOpening> {
        let public = public_form(event);
        let shown = serde_json::to_value(redact(event, audience, false)).unwrap_or(Value::Null);
        let mut out = Vec::new();
        let mut path = String::new();
        seal_node(payload, &public, &mut path, &mut |p, v| {
            let salt = self.salt(seq, p);
            let c = commitment(&salt, v);
            let seen = pointer(&shown, p) == Some(v);
            out.push(CommitmentOpening {
                path: p.to_string(),
                commitment: c.clone(),
                salt: seen.then(|| hex::encode(salt)),
            });
            c
        });
        out
    }
}

/// The JSON pointers at which `served` (an event as some audience is served it) hides a value
/// of `full` (the event as stored): each node that differs, whole, as sealing finds them.
pub fn hidden_paths(full: &Value, served: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut path = String::new();
    seal_node(full, served, &mut path, &mut |p, _| {
        out.push(p.to_string());
        String::new()
    });
    out
}

/// The event as a spectator sees it while the game runs, as JSON.
fn public_form(event: &Event) -> Value {
    serde_json::to_value(redact(event, Audience::Spectator, false)).unwrap_or(Value::Null)
}

/// The node at `path` (a JSON pointer) of `value`.
fn pointer<'a>(value: &'a Value, path: &str) -> Option<&'a Value> {
    value.pointer(path)
}

/// `full` with every node that differs from `public` replaced by `{"commitment": …}` (the
/// commitment `commit` makes of the full node at its path); objects with the same keys and
/// arrays of the same length are compared member by member.
fn seal_node(
    full: &Value,
    public: &Value,
    path: &mut String,
    commit: &mut dyn FnMut(&str, &Value) -> String,
) -> Value {
    if full == public {
        return full.clone();
    }
    match (full, public) {
        (Value::Object(f), Value::Object(p))
            if f.len() == p.len() && f.keys().all(|k| p.contains_key(k)) =>
        {
            let mut out = Map::with_capacity(f.len());
            for (k, fv) in f {
                let len = path.len();
                path.push('/');
                path.push_str(&k.replace('~', "~0").replace('/', "~1"));
                let pv = p.get(k).unwrap_or(&Value::Null);
                out.insert(k.clone(), seal_node(fv, pv, path, commit));
                path.truncate(len);
            }
            Value::Object(out)
        }
        (Value::Array(f), Value::Array(p)) if f.len() == p.len() => {
            let mut out = Vec::with_capacity(f.len());
            for (i, (fv, pv)) in f.iter().zip(p).enumerate() {
                let len = path.len();
                path.push('/');
                path.push_str(&i.to_string());
                out.push(seal_node(fv, pv, path, commit));
                path.truncate(len);
            }
            Value::Array(out)
        }
        _ => {
            let mut m = Map::with_capacity(1);
            m.insert("commitment".into(), Value::String(commit(path, full)));
            Value::Object(m)
        }
    }
}

/// The chain's hash of event `seq`: over its sealed form when `sealer` is given (a game of
/// record version 6 on), over the payload as stored otherwise.
pub fn event_hash(
    prev: &str,
    game_id: &str,
    seq: i64,
    event_type: &str,
    schema_version: i32,
    payload: &Value,
    sealed: Option<(&Sealer, &Event)>,
) -> String {
    match sealed {
        Some((sealer, event)) => crate::hash::chain_hash(
            prev,
            game_id,
            seq,
            event_type,
            schema_version,
            &sealer.sealed(seq, event, payload),
        ),
        None => crate::hash::chain_hash(prev, game_id, seq, event_type, schema_version, payload),
    }
}

/// A game's log hashed event by event as the store chains it: sealed from the first event on
/// when the game's record version seals ([`Sealer::for_game`]), as stored otherwise.
#[derive(Debug, Clone)]
pub struct Chain {
    game_id: String,
    sealer: Option<Sealer>,
}

impl Chain {
    /// The chain of game `game_id`, to be fed from its first event.
    pub fn new(game_id: &str) -> Chain {
        Chain {
            game_id: game_id.to_string(),
            sealer: None,
        }
    }

    /// The chain of game `game_id` whose first event is `created`, to be fed from any event.
    pub fn after(game_id: &str, created: &Event) -> Chain {
        Chain {
            game_id: game_id.to_string(),
            sealer: Sealer::for_game(game_id, created),
        }
    }

    /// The hash of event `seq` after `prev`. Event 1 decides whether the game seals (a log
    /// that does not start with a readable creation does not); a sealed game's events must each
    /// decode, and an error says why one does not.
    pub fn hash(
        &mut self,
        prev: &str,
        seq: i64,
        event_type: &str,
        schema_version: i32,
        payload: &Value,
    ) -> Result<String, String> {
        let decode = || {
            u16::try_from(schema_version)
                .map_err(|_| "bad schema version".to_string())
                .and_then(|v| Event::decode(v, payload).map_err(|e| e.to_string()))
        };
        if seq == 1 {
            self.sealer = decode()
                .ok()
                .and_then(|created| Sealer::for_game(&self.game_id, &created));
        }
        let event = match &self.sealer {
            Some(_) => Some(decode()?),
            None => None,
        };
        Ok(event_hash(
            prev,
            &self.game_id,
            seq,
            event_type,
            schema_version,
            payload,
            self.sealer.as_ref().zip(event.as_ref()),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use saboteur_domain::{Card, Pile, Seat, Secret};

    fn sealer() -> Sealer {
        Sealer::new("g", &Seed::from_u64(7))
    }

    #[test]
    fn a_hidden_card_is_sealed_and_the_public_fields_stay_as_they_are() {
        let drawn = Event::CardDrawn {
            seat: Seat(2),
            card: Secret::Known(Card::Map),
        };
        let payload = serde_json::to_value(&drawn).unwrap();
        let sealed = sealer().sealed(26, &drawn, &payload);
        assert_eq!(sealed["seat"], 2);
        assert_eq!(sealed["type"], "card_drawn");
        let c = sealed["card"]["commitment"].as_str().unwrap();
        assert_eq!(c, commitment(&sealer().salt(26, "/card"), &payload["card"]));
        assert!(!sealed.to_string().contains("map"), "{sealed}");
        // Another card, another seq, another game or another seed: another commitment.
        let other = Event::CardDrawn {
            seat: Seat(2),
            card: Secret::Known(Card::TunnelEw),
        };
        let other_payload = serde_json::to_value(&other).unwrap();
        assert_ne!(sealer().sealed(26, &other, &other_payload), sealed);
        assert_ne!(sealer().sealed(27, &drawn, &payload), sealed);
        assert_ne!(
            Sealer::new("h", &Seed::from_u64(7)).sealed(26, &drawn, &payload),
            sealed
        );
        assert_ne!(
            Sealer::new("g", &Seed::from_u64(8)).sealed(26, &drawn, &payload),
            sealed
        );
    }

    #[test]
    fn each_seats_hand_is_sealed_apart_and_opened_to_that_seat_only() {
        let passed = Event::Passed {
            seat: Seat(1),
            discarded: Pile::Known(vec![Card::Map, Card::TunnelEw]),
        };
        let payload = serde_json::to_value(&passed).unwrap();
        let s = sealer();
        let mine = s.openings(9, &passed, &payload, Audience::Seat(Seat(1)));
        assert_eq!(mine.len(), 1);
        assert_eq!(mine[0].path, "/discarded");
        let salt = hex::decode(mine[0].salt.as_deref().unwrap()).unwrap();
        let salt: [u8; 32] = salt.try_into().unwrap();
        assert_eq!(commitment(&salt, &payload["discarded"]), mine[0].commitment);
        assert_eq!(
            s.sealed(9, &passed, &payload)["discarded"]["commitment"],
            mine[0].commitment.as_str()
        );
        let theirs = s.openings(9, &passed, &payload, Audience::Seat(Seat(0)));
        assert_eq!(theirs.len(), 1);
        assert_eq!(theirs[0].salt, None);
        assert_eq!(theirs[0].commitment, mine[0].commitment);
    }

    #[test]
    fn a_public_event_is_hashed_as_it_is() {
        let e = Event::TalkHidden { message: 3 };
        let payload = serde_json::to_value(&e).unwrap();
        assert_eq!(sealer().sealed(4, &e, &payload), payload);
        assert!(
            sealer()
                .openings(4, &e, &payload, Audience::Spectator)
                .is_empty()
        );
    }

    #[test]
    fn json_pointers_escape_their_keys() {
        let full = serde_json::json!({"a/b": {"~c": 1}});
        let public = serde_json::json!({"a/b": {"~c": null}});
        let mut seen = Vec::new();
        let mut path = String::new();
        seal_node(&full, &public, &mut path, &mut |p, _| {
            seen.push(p.to_string());
            String::new()
        });
        assert_eq!(seen, ["/a~1b/~0c"]);
        assert_eq!(full.pointer(&seen[0]), Some(&Value::from(1)));
    }
}
