//! `saboteur simulate`: bot-only games without a server, statistics as JSON.

use std::process::Command;

use serde_json::Value;

fn simulate(args: &[&str]) -> (i32, Value, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_saboteur"))
        .arg("simulate")
        .args(args)
        .output()
        .unwrap();
    let json = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (
        out.status.code().unwrap_or(-1),
        json,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn simulate_plays_bot_games_and_reports_win_rates_per_role_and_level() {
    const MIXED: [&str; 8] = [
        "--games",
        "12",
        "--players",
        "5",
        "--bots",
        "heuristic,random",
        "--seed",
        "3",
    ];
    let (code, out, err) = simulate(&MIXED);
    assert_eq!(code, 0, "{err}");
    let stats = &out["statistics"];
    assert_eq!(stats["games"], 12);
    assert_eq!(stats["finished_games"], 12);
    assert_eq!(stats["rounds"], 36);
    for level in ["heuristic", "random"] {
        let rate = stats["level_round_win_rate"][level].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&rate));
        assert!(stats["level_game_win_share"][level].is_number());
    }
    assert!(stats["role_round_win_rate"]["saboteur"].is_number());
    assert!(stats["role_round_win_rate"]["gold_digger"].is_number());
    assert_eq!(out["simulation"]["seating"]["per_seat"][0], "heuristic");
    // The same arguments give the same games.
    let (_, again, _) = simulate(&MIXED);
    assert_eq!(again["statistics"], out["statistics"]);

    let (code, out, err) = simulate(&[
        "--games",
        "6",
        "--players",
        "0",
        "--ruleset",
        "saboteur2",
        "--digger-bots",
        "heuristic",
        "--saboteur-bots",
        "random",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out["statistics"]["finished_games"], 6);
    assert!(out["statistics"]["level_side_round_win_rate"]["heuristic/digger_side"].is_number());
}

#[test]
fn simulate_refuses_what_cannot_be_played() {
    let (code, _, err) = simulate(&["--games", "1", "--players", "11"]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot play"), "{err}");
    let (code, _, err) = simulate(&["--bots", "genius"]);
    assert_ne!(code, 0);
    assert!(err.contains("genius"), "{err}");
    let (code, _, _) = simulate(&["--digger-bots", "heuristic"]);
    assert_ne!(code, 0, "--digger-bots needs --saboteur-bots");
}
