//! What a player count deals: the dwarf cards and the hand size (§2, §9.1).

use super::card::{Role, Ruleset};

/// The dwarf cards dealt for a player count (§2, §9.1): one more than the players in the base
/// game (all eleven with ten players), all fifteen in `saboteur2`.
pub fn role_set(ruleset: Ruleset, players: usize) -> Option<Vec<Role>> {
    let (saboteurs, diggers) = match (ruleset, players) {
        (Ruleset::Base, 3) => (1, 3),
        (Ruleset::Base, 4) => (1, 4),
        (Ruleset::Base, 5) => (2, 4),
        (Ruleset::Base, 6) => (2, 5),
        (Ruleset::Base, 7) => (3, 5),
        (Ruleset::Base, 8) => (3, 6),
        (Ruleset::Base, 9) => (3, 7),
        (Ruleset::Base, 10) => (4, 7),
        (Ruleset::Saboteur2, 2..=12) => {
            let mut roles = Vec::with_capacity(15);
            roles.extend([Role::GreenDigger; 4]);
            roles.extend([Role::BlueDigger; 4]);
            roles.push(Role::Boss);
            roles.extend([Role::Geologist; 2]);
            roles.push(Role::Profiteer);
            roles.extend([Role::Saboteur; 3]);
            return Some(roles);
        }
        _ => return None,
    };
    let mut roles = vec![Role::GoldDigger; diggers];
    roles.extend(std::iter::repeat_n(Role::Saboteur, saboteurs));
    Some(roles)
}

/// Cards in each hand at the start of a round (§2, §9.1).
pub fn hand_size(ruleset: Ruleset, players: usize) -> usize {
    match (ruleset, players) {
        (Ruleset::Saboteur2, _) => 6,
        (Ruleset::Base, 0..=5) => 6,
        (Ruleset::Base, 6 | 7) => 5,
        (Ruleset::Base, _) => 4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn role_sets_leave_one_card_over_in_the_base_game() {
        for players in 3..=9 {
            assert_eq!(role_set(Ruleset::Base, players).unwrap().len(), players + 1);
        }
        assert_eq!(role_set(Ruleset::Base, 10).unwrap().len(), 11);
        assert!(role_set(Ruleset::Base, 2).is_none());
        assert_eq!(role_set(Ruleset::Saboteur2, 12).unwrap().len(), 15);
    }
}
