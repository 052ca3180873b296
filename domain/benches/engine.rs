//! Engine benchmarks: replaying a whole 10-player game, deciding a path placement deep in a
//! large maze, and listing legal moves there.
//!
//! `cargo bench -p saboteur-domain --bench engine`

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use saboteur_domain::bot::{bot_rng, random_command, random_game};
use saboteur_domain::{
    Audience, Command, Game, Options, Ruleset, Seed, decide, legal_commands, view,
};

/// The position with the largest maze over a few random games in which the player to move
/// still has a path placement; the placement farthest from the start.
fn large_maze(ruleset: Ruleset, players: u8) -> (Game, Command) {
    let mut best: Option<(usize, Game, Command)> = None;
    for seed in 0..20 {
        let seed = Seed::from_u64(seed);
        let log = random_game(ruleset, Options::default(), players, seed);
        let mut game = Game::replay(&log[..1]).expect("created");
        let mut rng = bot_rng(seed);
        for e in &log[1..] {
            game.apply(e);
            let Some(seat) = game.awaited() else { continue };
            let path = legal_commands(&game, seat)
                .into_iter()
                .filter(|c| matches!(c, Command::PlayPath { .. }))
                .max_by_key(|c| match c {
                    Command::PlayPath { at, .. } => at.x.abs() + at.y.abs(),
                    _ => 0,
                });
            if let Some(cmd) = path
                && best
                    .as_ref()
                    .is_none_or(|(n, _, _)| game.board().len() > *n)
            {
                best = Some((game.board().len(), game.clone(), cmd));
            }
            let _ = random_command(&view(&game, Audience::Seat(seat)), &mut rng);
        }
    }
    let (_, game, cmd) = best.expect("a path placement in round 1");
    (game, cmd)
}

fn bench_ruleset(c: &mut Criterion, name: &str, ruleset: Ruleset, players: u8, maze_players: u8) {
    let log = random_game(ruleset, Options::default(), players, Seed::from_u64(1));
    let mut g = c.benchmark_group(format!("{name}/replay"));
    g.throughput(Throughput::Elements(log.len() as u64));
    g.bench_function(format!("{players}_players_{}_events", log.len()), |b| {
        b.iter(|| Game::replay(std::hint::black_box(&log)))
    });
    g.finish();

    let (game, cmd) = large_maze(ruleset, maze_players);
    let seat = game.awaited().expect("a player to move");
    let mut g = c.benchmark_group(format!("{name}/maze_of_{}_cards", game.board().len()));
    g.bench_function("decide_path_placement", |b| {
        b.iter(|| decide(std::hint::black_box(&game), seat, &cmd))
    });
    g.bench_function("legal_moves", |b| {
        b.iter(|| legal_commands(std::hint::black_box(&game), seat))
    });
    g.finish();
}

fn benches(c: &mut Criterion) {
    bench_ruleset(c, "base", Ruleset::Base, 10, 3);
    bench_ruleset(c, "saboteur2", Ruleset::Saboteur2, 12, 12);
}

criterion_group!(engine, benches);
criterion_main!(engine);
