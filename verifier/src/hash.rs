//! The tamper-evident chain: each event's hash covers the previous hash and the event's
//! canonical bytes, so changing any stored event breaks every hash after it.

use sha2::{Digest, Sha256};

/// The previous hash of a game's first event: 64 zeros.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// The canonical bytes of an event's payload: compact JSON with object keys sorted.
/// (`serde_json::Value` keeps its objects in a sorted map as long as serde_json's
/// `preserve_order` feature stays off, which this workspace never turns on.)
pub fn canonical_json(payload: &serde_json::Value) -> Vec<u8> {
    // Writing a JSON value to memory cannot fail.
    serde_json::to_vec(payload).unwrap_or_default()
}

fn field(h: &mut Sha256, bytes: &[u8]) {
    h.update((bytes.len() as u64).to_be_bytes());
    h.update(bytes);
}

/// SHA-256 over the previous hash and the event's canonical bytes (game, seq, type, schema
/// version, payload), each field length-prefixed. Hex, lowercase.
pub fn chain_hash(
    prev_hash: &str,
    game_id: &str,
    seq: i64,
    event_type: &str,
    schema_version: i32,
    payload: &serde_json::Value,
) -> String {
    let mut h = Sha256::new();
    field(&mut h, prev_hash.as_bytes());
    field(&mut h, game_id.as_bytes());
    h.update(seq.to_be_bytes());
    field(&mut h, event_type.as_bytes());
    h.update(schema_version.to_be_bytes());
    field(&mut h, &canonical_json(payload));
    hex::encode(h.finalize())
}

/// The published commitment to a seed: hex SHA-256 of its bytes.
pub fn seed_commitment(seed: &[u8]) -> String {
    hex::encode(Sha256::digest(seed))
}

/// The hash of a transparency log entry: SHA-256 over the previous entry's hash (GENESIS for
/// the first), its place in the log, the game's id, its final version and the hash of its last
/// event, each field length-prefixed as in [`chain_hash`]. Hex, lowercase.
pub fn log_entry_hash(
    prev_hash: &str,
    seq: i64,
    game_id: &str,
    version: i64,
    head: &str,
) -> String {
    hex::encode(entry_fields(prev_hash, seq, game_id, version, head).finalize())
}

/// The hash of a transparency log entry that binds its time: [`log_entry_hash`]'s fields and
/// then the time it was logged, in milliseconds since the Unix epoch. Every entry the store
/// writes now is hashed so; a rewritten `logged_at` breaks the chain from that entry on.
pub fn log_entry_hash_at(
    prev_hash: &str,
    seq: i64,
    game_id: &str,
    version: i64,
    head: &str,
    logged_at_ms: i64,
) -> String {
    let mut h = entry_fields(prev_hash, seq, game_id, version, head);
    h.update(logged_at_ms.to_be_bytes());
    hex::encode(h.finalize())
}

/// An entry's fields hashed in order, each length-prefixed as in [`chain_hash`].
fn entry_fields(prev_hash: &str, seq: i64, game_id: &str, version: i64, head: &str) -> Sha256 {
    let mut h = Sha256::new();
    field(&mut h, prev_hash.as_bytes());
    h.update(seq.to_be_bytes());
    field(&mut h, game_id.as_bytes());
    h.update(version.to_be_bytes());
    field(&mut h, head.as_bytes());
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_covers_every_field() {
        let p = serde_json::json!({"b": 1, "a": [1, 2]});
        let base = chain_hash(GENESIS, "g", 1, "t", 1, &p);
        assert_eq!(base.len(), 64);
        assert_ne!(base, chain_hash(GENESIS, "g", 2, "t", 1, &p));
        assert_ne!(base, chain_hash(GENESIS, "h", 1, "t", 1, &p));
        assert_ne!(base, chain_hash(GENESIS, "g", 1, "u", 1, &p));
        assert_ne!(base, chain_hash(GENESIS, "g", 1, "t", 2, &p));
        assert_ne!(base, chain_hash(&base, "g", 1, "t", 1, &p));
        assert_ne!(
            base,
            chain_hash(GENESIS, "g", 1, "t", 1, &serde_json::json!({"b": 2}))
        );
        // Key order does not matter: the bytes are canonical.
        let q: serde_json::Value = serde_json::from_str(r#"{"a":[1,2],"b":1}"#).unwrap();
        assert_eq!(base, chain_hash(GENESIS, "g", 1, "t", 1, &q));
        assert_eq!(
            seed_commitment(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
