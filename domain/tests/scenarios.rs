//! The scenario runner of docs/scenarios.md: every `*.json` under `domain/tests/scenarios/`, or
//! under `$SCENARIOS_DIR` when set. Prints `PASS name` / `FAIL name: reason` per file, then
//! `N passed, N failed`; fails when any file fails or when no file is found.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use saboteur_domain::{
    Card, Cell, Command, GOAL_CELLS, Game, Role, Seat, Setup, Violation, board::goal_name, decide,
};
use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Scenario {
    name: String,
    #[allow(dead_code)]
    rules: Option<String>,
    setup: Setup,
    steps: Vec<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CommandStep {
    seat: Seat,
    command: Value,
    expect: Value,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CheckStep {
    check: Check,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HandCheck {
    seat: Seat,
    cards: Vec<Card>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CellCheck {
    x: i32,
    y: i32,
    card: Card,
    rotated: Option<bool>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Check {
    current_player: Option<Seat>,
    phase: Option<String>,
    round: Option<u8>,
    hand_sizes: Option<Vec<usize>>,
    hand: Option<HandCheck>,
    draw_pile_size: Option<usize>,
    cells: Option<Vec<CellCheck>>,
    empty_cells: Option<Vec<Cell>>,
    goals_revealed: Option<Vec<String>>,
    in_front: Option<Vec<Vec<Card>>>,
    roles: Option<Vec<Role>>,
    gold: Option<Vec<u32>>,
    round_winners: Option<Vec<Seat>>,
    game_winners: Option<Vec<Seat>>,
}

fn sorted<T: Ord + Clone>(v: &[T]) -> Vec<T> {
    let mut v = v.to_vec();
    v.sort();
    v
}

fn same<T: PartialEq + std::fmt::Debug>(key: &str, want: &T, got: &T) -> Result<(), String> {
    if want == got {
        Ok(())
    } else {
        Err(format!("check `{key}`: expected {want:?}, found {got:?}"))
    }
}

fn run_check(game: &Game, check: &Check) -> Result<(), String> {
    if let Some(want) = check.current_player {
        same("current_player", &Some(want), &game.awaited())?;
    }
    if let Some(want) = &check.phase {
        same("phase", &want.as_str(), &game.phase().name())?;
    }
    if let Some(want) = check.round {
        same("round", &want, &game.round())?;
    }
    if let Some(want) = &check.hand_sizes {
        same(
            "hand_sizes",
            want,
            &game.hands().iter().map(Vec::len).collect(),
        )?;
    }
    if let Some(h) = &check.hand {
        let got = game
            .hands()
            .get(h.seat.index())
            .ok_or("check `hand`: no such seat")?;
        same("hand", &sorted(&h.cards), &sorted(got))?;
    }
    if let Some(want) = check.draw_pile_size {
        same("draw_pile_size", &want, &game.draw_pile().len())?;
    }
    for c in check.cells.iter().flatten() {
        let cell = Cell::new(c.x, c.y);
        match game.board().get(cell) {
            Some(t)
                if !t.face_down && t.card == c.card && c.rotated.is_none_or(|r| r == t.rotated) => {
            }
            other => {
                return Err(format!(
                    "check `cells`: expected {} (rotated {:?}) at {cell}, found {other:?}",
                    c.card, c.rotated
                ));
            }
        }
    }
    for cell in check.empty_cells.iter().flatten() {
        if let Some(t) = game.board().get(*cell) {
            return Err(format!("check `empty_cells`: {cell} holds {}", t.card));
        }
    }
    if let Some(want) = &check.goals_revealed {
        let got: Vec<String> = GOAL_CELLS
            .iter()
            .filter(|c| game.board().get(**c).is_some_and(|t| !t.face_down))
            .filter_map(|c| goal_name(*c).map(str::to_string))
            .collect();
        same("goals_revealed", &sorted(want), &sorted(&got))?;
    }
    if let Some(want) = &check.in_front {
        let want: Vec<Vec<Card>> = want.iter().map(|v| sorted(v)).collect();
        let got: Vec<Vec<Card>> = game.in_front().iter().map(|v| sorted(v)).collect();
        same("in_front", &want, &got)?;
    }
    if let Some(want) = &check.roles {
        same("roles", want, &game.roles().to_vec())?;
    }
    if let Some(want) = &check.gold {
        same("gold", want, &game.gold().to_vec())?;
    }
    if let Some(want) = &check.round_winners {
        let got = game
            .results()
            .last()
            .map(|r| r.winners.clone())
            .unwrap_or_default();
        same("round_winners", &sorted(want), &sorted(&got))?;
    }
    if let Some(want) = &check.game_winners {
        same("game_winners", &sorted(want), &sorted(game.winners()))?;
    }
    Ok(())
}

enum Expect {
    Ok,
    Error(Violation),
}

fn parse_expect(v: &Value) -> Result<Expect, String> {
    if v == "ok" {
        return Ok(Expect::Ok);
    }
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct E {
        error: Violation,
    }
    serde_json::from_value::<E>(v.clone())
        .map(|e| Expect::Error(e.error))
        .map_err(|e| format!("`expect` must be \"ok\" or {{\"error\": CODE}}: {e}"))
}

fn run(path: &Path) -> Result<String, (String, String)> {
    let fallback = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| (fallback.clone(), e.to_string()))?;
    let scenario: Scenario = serde_json::from_str(&text)
        .map_err(|e| (fallback.clone(), format!("does not parse: {e}")))?;
    let name = scenario.name.clone();
    let fail = |msg: String| (name.clone(), msg);
    let mut game = scenario
        .setup
        .into_game()
        .map_err(|e| fail(format!("setup: {e}")))?;
    for (i, step) in scenario.steps.iter().enumerate() {
        let n = i + 1;
        if step.get("check").is_some() {
            let s: CheckStep =
                serde_json::from_value(step.clone()).map_err(|e| fail(format!("step {n}: {e}")))?;
            run_check(&game, &s.check).map_err(|e| fail(format!("step {n}: {e}")))?;
            continue;
        }
        let s: CommandStep =
            serde_json::from_value(step.clone()).map_err(|e| fail(format!("step {n}: {e}")))?;
        let command: Command = serde_json::from_value(s.command.clone())
            .map_err(|e| fail(format!("step {n}: command: {e}")))?;
        let expect = parse_expect(&s.expect).map_err(|e| fail(format!("step {n}: {e}")))?;
        let before = game.clone();
        let outcome = decide(&game, s.seat, &command);
        if game != before {
            return Err(fail(format!("step {n}: deciding changed the state")));
        }
        match (expect, outcome) {
            (Expect::Ok, Ok(events)) => {
                for e in &events {
                    game.apply(e);
                }
            }
            (Expect::Ok, Err(v)) => {
                return Err(fail(format!(
                    "step {n}: expected ok, got {} ({})",
                    v.code(),
                    v.detail
                )));
            }
            (Expect::Error(want), Err(v)) if v.violation == want => {}
            (Expect::Error(want), Err(v)) => {
                return Err(fail(format!(
                    "step {n}: expected {}, got {} ({})",
                    want.code(),
                    v.code(),
                    v.detail
                )));
            }
            (Expect::Error(want), Ok(_)) => {
                return Err(fail(format!(
                    "step {n}: expected {}, but it was accepted",
                    want.code()
                )));
            }
        }
    }
    Ok(name)
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let dir = std::env::var_os("SCENARIOS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios"));
    let mut files = Vec::new();
    if let Err(e) = collect(&dir, &mut files) {
        println!(
            "FAIL {}: cannot read the scenario directory: {e}",
            dir.display()
        );
        println!("0 passed, 1 failed");
        return ExitCode::FAILURE;
    }
    files.sort();
    let (mut passed, mut failed) = (0, 0);
    for file in &files {
        match run(file) {
            Ok(name) => {
                passed += 1;
                println!("PASS {name}");
            }
            Err((name, reason)) => {
                failed += 1;
                println!("FAIL {name}: {reason} [{}]", file.display());
            }
        }
    }
    println!("{passed} passed, {failed} failed");
    if files.is_empty() {
        println!("no scenario file found under {}", dir.display());
    }
    if failed > 0 || files.is_empty() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
