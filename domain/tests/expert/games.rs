//! Whole games of bots for the expert's tests: the levels at each seat, the tables' sizes, the
//! legality test's games checked command by command, and logs relabelled as another version.

use saboteur_domain::bot::expert::Tuning;
use saboteur_domain::bot::{BotLevel, bot_game};
use saboteur_domain::{Event, Game, Options, Ruleset, Seat, audit, legal_commands};

/// The environment variable `name` read as a number, `default` when unset or not one.
pub(crate) fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Levels by seat and game: an expert at every other seat, heuristic and random bots between.
pub(crate) fn mixed(seed: u64, seat: Seat) -> BotLevel {
    match (seed + u64::from(seat.0)) % 4 {
        0 | 2 => BotLevel::Expert,
        1 => BotLevel::Heuristic,
        _ => BotLevel::Random,
    }
}

/// The players at a table of `ruleset` for the game of `seed`: every size the ruleset allows.
pub(crate) fn players(ruleset: Ruleset, seed: u64) -> u8 {
    match ruleset {
        Ruleset::Base => 3 + (seed % 8) as u8,
        Ruleset::Saboteur2 => 2 + (seed % 11) as u8,
    }
}

/// The legality test's games of `ruleset` whose index is `part` modulo `parts` (the games are
/// split so the test threads share them).
pub(crate) fn legal_and_audited(ruleset: Ruleset, part: u64, parts: u64) {
    for seed in (0..env("SABOTEUR_EXPERT_GAMES", 10)).filter(|s| s % parts == part) {
        let seed = 7_000 + seed;
        let n = players(ruleset, seed);
        // A table recorded as a server records it: every command listed among the legal
        // ones where it was issued, and the log passes the audit, which decides every
        // command again and chooses every expert move again from its view and seed.
        let log = bot_game(
            ruleset,
            Options::default(),
            n,
            saboteur_domain::Seed::from_u64(seed),
            |_, s| mixed(seed, s),
        );
        assert!(
            matches!(log.last(), Some(Event::GameEnded { .. })),
            "seed {seed}"
        );
        let mut game = Game::replay(&log[..1]).unwrap();
        for e in &log[1..] {
            if let Event::CommandAccepted {
                seat,
                command,
                bot: Some(b),
                ..
            } = e
            {
                let cmd = command.known().expect("the omniscient log");
                assert!(
                    legal_commands(&game, *seat).contains(&cmd.canonical()),
                    "{ruleset:?} seed {seed}: {} issued an unlisted {cmd:?}",
                    b.level
                );
            }
            game.apply(e);
        }
        let report = audit(&log).unwrap_or_else(|d| panic!("seed {seed}: {d}"));
        let experts = log
            .iter()
            .filter(|e| {
                matches!(e, Event::CommandAccepted { bot: Some(b), .. } if b.level == BotLevel::Expert)
            })
            .count();
        assert!(experts > 0, "seed {seed}: experts played");
        let commands = log
            .iter()
            .filter(|e| matches!(e, Event::CommandAccepted { .. }))
            .count() as u64;
        assert_eq!(report.bot_moves_checked, commands, "seed {seed}");
    }
}

/// The expert's moves recorded with `version`, in place of the version that chose them.
pub(crate) fn relabelled(log: &[Event], version: u32) -> Vec<Event> {
    log.iter()
        .cloned()
        .map(|mut e| {
            if let Event::CommandAccepted { bot: Some(b), .. } = &mut e
                && b.level == BotLevel::Expert
            {
                b.version = version;
            }
            e
        })
        .collect()
}

/// Whether versions `a` and `b` of the expert choose alike in `ruleset`: the same budget and
/// margin, and in Saboteur 2 the same estimate of a rollout cut short.
pub(crate) fn same_logic(a: Tuning, b: Tuning, ruleset: Ruleset) -> bool {
    a.budget(ruleset) == b.budget(ruleset)
        && a.margin == b.margin
        && (ruleset == Ruleset::Base || a.payout_estimate == b.payout_estimate)
}
