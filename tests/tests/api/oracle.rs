//! The evidence keeps the secret (docs/threat-model.md, "What each public value reveals"):
//! no head a client can obtain while a game runs lets it recover a hidden value by trying
//! candidates.
//!
//! Whole games of both rulesets are played over HTTP, every seat a player's. After each move,
//! while the game runs, every audience (each seat, the host, no token) reads the events it may
//! see, and the heads of the chain at every version are collected from every receipt a client
//! can obtain: replays (`state?at=`), outcomes, refusals, and the table on the stream. After
//! the end, for each value that some audience was served hidden, the attacker tries every
//! candidate — every card or role of the catalogue, every pair of cards for a two-card pile,
//! and always the true value, taken from the audit bundle (so a leaking head could not be
//! missed) — against the heads before and after its event, given every other value of the
//! event: with the record as stored (how record version 5 chained) and as sealed without the
//! salts. Nothing may be recovered. Then, as a control that the search would find a leak, the
//! same search with the salts the revealed seed gives recovers every value.

use std::collections::{BTreeMap, BTreeSet};

use reqwest::StatusCode;
use saboteur_domain::Event;
use saboteur_verifier::hash::{GENESIS, chain_hash};
use saboteur_verifier::seal::{Sealer, commitment, hidden_paths};
use serde_json::{Value, json};

use crate::helpers::{Table, TestApp, pick, postgres_url, seed_hex, sqlite_url};

/// What the attacker gathered while the game ran.
#[derive(Default)]
struct Gathered {
    /// The chain's head at each version, from receipts.
    heads: BTreeMap<i64, String>,
    /// For each event, by audience, the event as served to that audience.
    served: BTreeMap<i64, BTreeMap<String, Value>>,
}

impl Gathered {
    fn head(&mut self, receipt: &Value, what: &str) {
        let version = receipt["version"]
            .as_i64()
            .expect("a receipt names its version");
        let head = receipt["head"].as_str().expect("a receipt names its head");
        if let Some(seen) = self.heads.insert(version, head.to_string()) {
            assert_eq!(seen, head, "{what}: two heads at version {version}");
        }
    }
}

/// The audiences: each seat by its token, the host, and nobody.
fn audiences(t: &Table) -> Vec<(String, Option<String>)> {
    let mut out: Vec<(String, Option<String>)> = t
        .tokens
        .iter()
        .enumerate()
        .map(|(i, tok)| (format!("seat {i}"), Some(tok.clone())))
        .collect();
    out.push(("host".into(), Some(t.host.clone())));
    out.push(("no token".into(), None));
    out
}

/// Reads, as every audience, the events after `after` and the heads at every version up to
/// the game's, while the game runs. Returns the version and whether the game is over (what is
/// read then is left out: everything is public once it is over).
async fn gather(app: &TestApp, t: &Table, after: i64, g: &mut Gathered) -> (i64, bool) {
    let (st, state) = app.state(&t.id, None).await;
    assert_eq!(st, StatusCode::OK, "{state}");
    let version = state["version"].as_i64().unwrap();
    if state["view"]["phase"]["name"] == "game_over" {
        return (version, true);
    }
    g.head(&state["receipt"], "a spectator's view");
    for (name, token) in audiences(t) {
        let (st, page) = app
            .events(
                &t.id,
                &format!("after={after}&limit=1000"),
                token.as_deref(),
            )
            .await;
        assert_eq!(st, StatusCode::OK, "{page}");
        for r in page["events"].as_array().unwrap() {
            let seq = r["seq"].as_i64().unwrap();
            g.served
                .entry(seq)
                .or_default()
                .insert(name.clone(), r["event"].clone());
        }
    }
    for v in after.max(1)..=version {
        let (st, replay) = app.state_at(&t.id, v).await;
        assert_eq!(st, StatusCode::OK, "{replay}");
        g.head(&replay["receipt"], "a replay");
    }
    (version, false)
}

/// Plays game `t` to its end with `pick`, gathering as it goes; a refused command now and then
/// (a path card at a cell far away) adds refusal receipts, and the stream's table its own.
async fn play(app: &TestApp, t: &Table) -> Gathered {
    let mut g = Gathered::default();
    let mut after = 0;
    for n in 0usize.. {
        let (version, over) = gather(app, t, after, &mut g).await;
        if over {
            break;
        }
        after = version;
        let (_, v) = app.state(&t.id, Some(&t.tokens[0])).await;
        let Some(seat) = v["view"]["phase"]["awaited"].as_u64() else {
            break;
        };
        let token = &t.tokens[seat as usize];
        if n.is_multiple_of(17) {
            let far = json!({"type": "play_path", "card": "tunnel_ew", "at": {"x": 40, "y": 40}, "rotated": false});
            let (st, refused) = app.command(&t.id, token, &far).await;
            assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
            g.head(&refused["receipt"], "a refusal");
        }
        let (st, m) = app.legal_moves(&t.id, token).await;
        assert_eq!(st, StatusCode::OK, "{m}");
        let moves = m["commands"].as_array().unwrap();
        let (st, out) = app.command(&t.id, token, &choose(moves, n)).await;
        assert_eq!(st, StatusCode::OK, "{out}");
        if out["awaited"].is_null() {
            // The move that ended the game: its outcome is public already.
            continue;
        }
        g.head(&out["receipt"], "an outcome");
    }
    g
}

/// A command from a legal-moves list: in the base game every seat digs east as far as it can
/// (so rounds reach the gold, and the gold's events are attacked too); otherwise `pick`'s.
fn choose(moves: &[Value], n: usize) -> Value {
    let east = moves
        .iter()
        .filter(|m| m["type"] == "play_path")
        .max_by_key(|m| {
            (
                m["at"]["x"].as_i64().unwrap_or(0),
                -m["at"]["y"].as_i64().unwrap_or(0).abs(),
            )
        });
    match east {
        Some(m) if !n.is_multiple_of(4) => m.clone(),
        _ => pick(moves, n),
    }
}

/// The candidates for a hidden value whose truth is `truth`: every card or role of the
/// catalogue for one card or role, every ordered pair (or single card) for a pile of at most
/// two, and always the truth itself (with, for anything larger, nothing else: a leak shows on
/// the truth alone).
fn candidates(truth: &Value, cards: &[Value], roles: &[Value]) -> Vec<Value> {
    let mut out = vec![truth.clone()];
    let one = |v: &Value, pool: &[Value]| pool.contains(v);
    match truth {
        Value::String(_) if one(truth, cards) => out.extend(cards.iter().cloned()),
        Value::String(_) if one(truth, roles) => out.extend(roles.iter().cloned()),
        Value::Array(a) if a.len() == 1 && one(&a[0], cards) => {
            out.extend(cards.iter().map(|c| json!([c])));
        }
        Value::Array(a) if a.len() == 2 && a.iter().all(|c| one(c, cards)) => {
            for x in cards {
                out.extend(cards.iter().map(|y| json!([x, y])));
            }
        }
        _ => {}
    }
    out
}

/// A guess's event: the true payload with the value at `path` replaced by `guess`.
fn with(payload: &Value, path: &str, guess: &Value) -> Value {
    let mut p = payload.clone();
    *p.pointer_mut(path).unwrap() = guess.clone();
    p
}

/// What one attack found.
#[derive(Default, Debug)]
struct Tally {
    /// Hidden values tried, by audience.
    tried: BTreeMap<String, usize>,
    /// Values recovered while the game ran, by audience (must stay empty).
    recovered: BTreeMap<String, Vec<String>>,
    /// Values recovered with the revealed seed (the control).
    opened: usize,
    /// Distinct hidden values tried.
    values: usize,
    /// The event types with a hidden value tried.
    types: BTreeSet<String>,
}

/// Runs the attack on what `g` gathered, with the record in `bundle` (after the end).
fn attack(app_catalogue: &Value, ruleset: &str, bundle: &Value, g: &Gathered) -> Tally {
    let rules = app_catalogue["rulesets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ruleset"] == ruleset)
        .unwrap();
    let cards: Vec<Value> = rules["cards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["card"].clone())
        .collect();
    let roles: Vec<Value> = rules["roles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["role"].clone())
        .collect();
    let id = bundle["game_id"].as_str().unwrap();
    let events = bundle["events"].as_array().unwrap();
    let created: Event = serde_json::from_value(events[0]["payload"].clone()).unwrap();
    let sealer = Sealer::for_game(id, &created).expect("a new game seals its chain");
    let mut tally = Tally::default();
    for (seq, by_audience) in &g.served {
        let prev = match seq {
            1 => Some(GENESIS.to_string()),
            _ => g.heads.get(&(seq - 1)).cloned(),
        };
        let (Some(prev), Some(head)) = (prev, g.heads.get(seq)) else {
            continue;
        };
        let e = &events[*seq as usize - 1];
        let (kind, schema, payload) = (
            e["event_type"].as_str().unwrap(),
            e["schema_version"].as_i64().unwrap() as i32,
            &e["payload"],
        );
        let mut who: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (audience, served) in by_audience {
            for p in hidden_paths(payload, served) {
                who.entry(p).or_default().push(audience.clone());
            }
        }
        let event: Event = serde_json::from_value(payload.clone()).unwrap();
        let sealed = sealer.sealed(*seq, &event, payload);
        for (path, audiences) in who {
            let truth = payload.pointer(&path).unwrap();
            tally.values += 1;
            tally.types.insert(kind.to_string());
            let salt = sealer.salt(*seq, &path);
            let mut found_open = false;
            for guess in candidates(truth, &cards, &roles) {
                // As record version 5 chained: the event as stored, the guess in place.
                let stored =
                    chain_hash(&prev, id, *seq, kind, schema, &with(payload, &path, &guess));
                // Sealed, with the salt unknown: the best an attacker can do is a salt of zeros.
                let unsalted = chain_hash(
                    &prev,
                    id,
                    *seq,
                    kind,
                    schema,
                    &with(
                        &sealed,
                        &path,
                        &json!({"commitment": commitment(&[0; 32], &guess)}),
                    ),
                );
                if stored == *head || unsalted == *head {
                    for a in &audiences {
                        tally
                            .recovered
                            .entry(a.clone())
                            .or_default()
                            .push(format!("event {seq} {kind} {path} = {guess}"));
                    }
                }
                // The control: with the seed revealed, the salt is known.
                let opened = chain_hash(
                    &prev,
                    id,
                    *seq,
                    kind,
                    schema,
                    &with(
                        &sealed,
                        &path,
                        &json!({"commitment": commitment(&salt, &guess)}),
                    ),
                );
                if opened == *head {
                    assert_eq!(
                        &guess, truth,
                        "event {seq} {path}: a guess other than the truth opens"
                    );
                    found_open = true;
                }
            }
            assert!(
                found_open,
                "event {seq} {kind} {path}: the control did not open the truth"
            );
            tally.opened += 1;
            for a in audiences {
                *tally.tried.entry(a).or_default() += 1;
            }
        }
    }
    tally
}

/// A started game of `players` seats, `people` of them players' and the rest heuristic bots
/// (which dig for the gold, so rounds end in every way).
async fn table(app: &TestApp, ruleset: &str, (people, players): (u8, u8), seed: u64) -> Table {
    let settings = json!({ "ruleset": ruleset, "players": players, "seed": seed_hex(seed) });
    let (st, g) = app.create_game(&settings).await;
    assert_eq!(st, StatusCode::CREATED, "{g}");
    let id = g["game_id"].as_str().unwrap().to_string();
    let host = g["host_token"].as_str().unwrap().to_string();
    let mut tokens = Vec::new();
    for i in 0..people {
        let (st, j) = app.join(&id, &format!("p{i}")).await;
        assert_eq!((st, &j["seat"]), (StatusCode::CREATED, &json!(i)), "{j}");
        tokens.push(j["player_token"].as_str().unwrap().to_string());
    }
    for _ in people..players {
        let (st, b) = app
            .add_bot(&id, Some(&host), &json!({"level": "heuristic"}))
            .await;
        assert_eq!(st, StatusCode::CREATED, "{b}");
    }
    let (st, started) = app.start(&id, Some(&host)).await;
    assert_eq!(st, StatusCode::OK, "{started}");
    Table { id, host, tokens }
}

async fn hunt(app: &TestApp, ruleset: &str, seats: (u8, u8), seed: u64) -> Tally {
    let players = seats.0;
    let t = table(app, ruleset, seats, seed).await;
    let g = play(app, &t).await;
    let (st, bundle) = app.audit(&t.id).await;
    assert_eq!(st, StatusCode::OK, "the game is over: {bundle}");
    let (st, catalogue) = app.get_json("/catalogue", None).await;
    assert_eq!(st, StatusCode::OK);
    let tally = attack(&catalogue, ruleset, &bundle, &g);
    assert!(
        tally.recovered.is_empty(),
        "{ruleset} with {players} players: hidden values recovered from the heads while the game ran: {:?}",
        tally.recovered
    );
    // Every audience was served hidden values and had them tried.
    assert_eq!(
        tally.tried.len(),
        usize::from(players) + 2,
        "{:?}",
        tally.tried
    );
    assert_eq!(tally.opened, tally.values);
    tally
}

async fn heads_hide_every_hidden_value(app: &TestApp) {
    let mut types = BTreeSet::new();
    let mut values = 0;
    for (ruleset, seats, seed) in [("base", (2, 4), 13), ("saboteur2", (6, 10), 12)] {
        let tally = hunt(app, ruleset, seats, seed).await;
        let players = seats.1;
        eprintln!(
            "{ruleset} at {players}: {} values, {:?}",
            tally.values, tally.types
        );
        values += tally.values;
        types.extend(tally.types);
    }
    // Every event type that carries a value some audience may not see was attacked.
    for kind in [
        "game_created",
        "round_started",
        "card_drawn",
        "passed",
        "command_accepted",
        "map_used",
        "gold_drawn",
        "gold_offered",
        "gold_kept",
        "saboteurs_paid",
        "discarded_to_remove",
        "hats_swapped",
        "inspected",
    ] {
        assert!(types.contains(kind), "no {kind} was attacked: {types:?}");
    }
    assert!(values > 500, "only {values} hidden values were tried");
}

#[tokio::test]
async fn sqlite_heads_hide_every_hidden_value() {
    let dir = tempfile::tempdir().unwrap();
    let app = TestApp::spawn(sqlite_url(&dir, "oracle.db"), Some(dir)).await;
    heads_hide_every_hidden_value(&app).await;
}

#[tokio::test]
async fn postgres_heads_hide_every_hidden_value() {
    let app = TestApp::spawn(postgres_url().await, None).await;
    heads_hide_every_hidden_value(&app).await;
}
