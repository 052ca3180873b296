//! The seeded randomness a game is driven by: the generator, a draw by weight (which act comes
//! next) and the random words a client sends.

/// splitmix64: small, seeded, the same everywhere.
#[derive(Clone)]
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next() % n }
    }

    pub fn index(&mut self, len: usize) -> usize {
        self.below(len as u64) as usize
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    /// One of `choices`, each as likely as its weight; `otherwise` when every weight is 0.
    pub fn weighted<T: Copy>(&mut self, choices: &[(u64, T)], otherwise: T) -> T {
        let mut roll = self.below(choices.iter().map(|(w, _)| w).sum());
        for &(w, choice) in choices {
            if roll < w {
                return choice;
            }
            roll -= w;
        }
        otherwise
    }
}

/// A random text a client may send.
pub fn words(rng: &mut Rng) -> String {
    const WORDS: [&str; 8] = [
        "dig", "east", "saboteur", "lamp", "gold", "trust", "me", "¡olé!",
    ];
    (0..1 + rng.below(5))
        .map(|_| WORDS[rng.index(WORDS.len())])
        .collect::<Vec<_>>()
        .join(" ")
}
