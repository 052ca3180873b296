//! The seeds of bots' decisions: pinned by our own construction, so that recorded decisions
//! re-run across library upgrades.

use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};

use crate::random::Seed;

/// The seed of a bot's decision at a game version: ChaCha20 keyed by the game's seed on
/// stream 3000, at a position set by the version. A function of the game, so every server
/// process choosing for the same bot at the same version chooses the same command.
pub fn decision_seed(game_seed: &Seed, version: u64) -> u64 {
    let mut rng = ChaCha20Rng::from_seed(game_seed.0);
    rng.set_stream(3000);
    rng.set_word_pos(u128::from(version) * 2);
    rng.next_u64()
}

/// The generator a bot draws from for one decision: ChaCha20 keyed by `seed` (as
/// [`Seed::from_u64`]) on stream 2000. Pinned by our own construction, not a library's
/// `seed_from_u64`, so recorded decisions re-run across library upgrades.
pub fn decision_rng(seed: u64) -> ChaCha20Rng {
    let mut rng = ChaCha20Rng::from_seed(Seed::from_u64(seed).0);
    rng.set_stream(2000);
    rng
}
