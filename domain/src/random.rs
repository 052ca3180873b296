//! Seeded randomness. Every shuffle is drawn in the decision step from a ChaCha20 stream
//! derived from the game's seed and the round, and the outcome is recorded in the event;
//! the reducer never draws, so stored games replay whatever the generator library becomes.

use crate::seat::Seat;
use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A seat's share in the seed of the deals (the `seed_mixed` event): 32 bytes the player chose
/// after the server's seed was committed to, so that neither chooses the deal alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct Contribution {
    /// Whose share it is.
    pub seat: Seat,
    /// The share: 64 hex digits.
    pub entropy: Seed,
}

/// A seat's commitment to its share before anyone's share is seen (the `seed_mixed` event's
/// `committed`): the player sends [`Seed::share_commitment`] of its share when taking the seat
/// and the share itself only once the host has closed the table, so no seat, the server's own
/// included, chooses its share knowing the others'.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ShareCommitment {
    /// Whose commitment it is.
    pub seat: Seat,
    /// SHA-256 of `saboteur share commitment v1` and the share's 32 bytes: 64 hex digits.
    pub commitment: Seed,
}

/// A game's 32-byte seed, written as 64 lowercase hex digits.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Seed(pub [u8; 32]);

impl Seed {
    /// The seed for a small number (scenario files, simulations): its little-endian bytes,
    /// then zeros.
    pub fn from_u64(n: u64) -> Seed {
        let mut bytes = [0u8; 32];
        bytes[..8].copy_from_slice(&n.to_le_bytes());
        Seed(bytes)
    }

    /// The seed as 64 lowercase hex digits.
    pub fn to_hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Parses 64 hex digits.
    pub fn from_hex(s: &str) -> Option<Seed> {
        if s.len() != 64 || !s.is_ascii() {
            return None;
        }
        let mut bytes = [0u8; 32];
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).ok()?;
        }
        Some(Seed(bytes))
    }

    /// The seed mixed with the players' shares (in the order given, seat order in a game):
    /// SHA-256 of `saboteur seed mix v1`, this seed, then each share's seat (one byte) and
    /// bytes. The server commits to its seed before anyone contributes, and nobody sees it
    /// before the game ends, so neither the server nor any player chooses the result alone.
    pub fn mixed(&self, contributions: &[Contribution]) -> Seed {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        h.update(b"saboteur seed mix v1");
        h.update(self.0);
        for c in contributions {
            h.update([c.seat.0]);
            h.update(c.entropy.0);
        }
        Seed(h.finalize().into())
    }

    /// The commitment to this value as a seat's share: SHA-256 of the 28 bytes
    /// `saboteur share commitment v1` then the share's 32 bytes. The share is 32 random bytes,
    /// so the commitment says nothing of it; it binds the seat to it.
    pub fn share_commitment(&self) -> Seed {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        h.update(b"saboteur share commitment v1");
        h.update(self.0);
        Seed(h.finalize().into())
    }

    /// The generator for one round's deal: ChaCha20 keyed by the seed, on stream `round`.
    pub fn round_rng(&self, round: u8) -> ChaCha20Rng {
        let mut rng = ChaCha20Rng::from_seed(self.0);
        rng.set_stream(u64::from(round));
        rng
    }
}

impl std::fmt::Debug for Seed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Seed({})", self.to_hex())
    }
}

impl Serialize for Seed {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_hex())
    }
}

impl<'de> Deserialize<'de> for Seed {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Seed::from_hex(&s).ok_or_else(|| serde::de::Error::custom("a seed is 64 hex digits"))
    }
}

/// A uniform number below `n` (n > 0), by rejection sampling on `next_u64`.
pub fn below(rng: &mut impl Rng, n: usize) -> usize {
    let n = n as u64;
    let zone = u64::MAX - (u64::MAX % n);
    loop {
        let v = rng.next_u64();
        if v < zone {
            return (v % n) as usize;
        }
    }
}

/// Shuffles in place with Fisher–Yates over [`below`]: pinned by test vectors, independent of
/// any library's shuffle algorithm.
pub fn shuffle<T>(rng: &mut impl Rng, items: &mut [T]) {
    for i in (1..items.len()).rev() {
        let j = below(rng, i + 1);
        items.swap(i, j);
    }
}

#[cfg(feature = "openapi")]
impl utoipa::PartialSchema for Seed {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .pattern(Some("^[0-9a-f]{64}$"))
            .description(Some("A game's 32-byte seed, as 64 lowercase hex digits."))
            .into()
    }
}

#[cfg(feature = "openapi")]
impl utoipa::ToSchema for Seed {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_hex_round_trips() {
        let s = Seed::from_u64(0x0102);
        assert_eq!(&s.to_hex()[..6], "020100");
        assert_eq!(Seed::from_hex(&s.to_hex()), Some(s));
        assert_eq!(Seed::from_hex("zz"), None);
    }

    #[test]
    fn shuffle_test_vector() {
        let mut rng = Seed::from_u64(0).round_rng(1);
        let mut v: Vec<u32> = (0..10).collect();
        shuffle(&mut rng, &mut v);
        assert_eq!(v, vec![0, 2, 4, 5, 3, 7, 6, 8, 1, 9]);
    }
}
