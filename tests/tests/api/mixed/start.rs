//! How a game begins: created with random settings (ruleset, players and bots, clock,
//! spectator talk), or as a rematch whose players claim their seats with their tokens; then
//! started, with every player's stream open.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use reqwest::{Method, StatusCode};
use saboteur_api::TimeSource;
use serde_json::{Value, json};

use super::dice::Rng;
use super::game::{Mixed, Player, signing_key};

/// A seat's token and the key its acts are signed with, if any.
type Seated = (String, Option<ed25519_dalek::SigningKey>);
use crate::helpers::{TestApp, seed_hex};
use crate::players::{Kept, Stream};

impl Mixed {
    /// A rematch: its players claim their seats with their tokens, and it starts.
    pub async fn rematch(mut self) -> Mixed {
        // Now and then with an `Idempotency-Key`, sometimes sent again: the first reply.
        let key = if self.rng.chance(50) {
            vec![("Idempotency-Key", format!("rematch-{}", self.rng.next()))]
        } else {
            Vec::new()
        };
        let ex = self.post("/rematch", Some(&self.host), None, &key).await;
        self.check(ex.status == StatusCode::CREATED, || {
            format!("a rematch: {ex:?}")
        });
        if !key.is_empty() && self.rng.chance(50) {
            let again = self.post("/rematch", Some(&self.host), None, &key).await;
            self.check((again.status, &again.body) == (ex.status, &ex.body), || {
                format!("a rematch retried with its key: {again:?}, first {ex:?}")
            });
        }
        let id = ex.body["game_id"].as_str().unwrap().to_string();
        let host = ex.body["host_token"].as_str().unwrap().to_string();
        let mut tokens = Vec::new();
        for (seat, player) in self.seats.iter().enumerate() {
            let Some(p) = player else {
                tokens.push(None);
                continue;
            };
            let path = format!("/games/{id}/seats/{seat}/claim");
            // Now and then with a key (and a share) for the rematch.
            let (key, body) = if self.rng.chance(50) {
                let (key, public) = signing_key(&mut self.rng);
                let share = seed_hex(self.rng.next());
                let proof = super::game::key_proof(&key, &id);
                (
                    Some(key),
                    Some(json!({"public_key": public, "key_proof": proof, "entropy": share})),
                )
            } else {
                (None, None)
            };
            let app = &self.app;
            let ex = app
                .exchange(Method::POST, &path, Some(&p.token), body.as_ref(), &[])
                .await;
            self.check(ex.status == StatusCode::CREATED, || {
                format!("a claim: {ex:?}")
            });
            if let Some(body) = &body {
                self.check(ex.body["commitment"]["entropy"] == body["entropy"], || {
                    format!("a claim's share: {ex:?}")
                });
            }
            tokens.push(Some((
                ex.body["player_token"].as_str().unwrap().to_string(),
                key,
            )));
        }
        let mut settings = self.settings.clone();
        settings["rematch_of"] = json!(self.id);
        let (app, time, rng) = (self.app.clone(), self.time.clone(), self.rng.clone());
        Mixed::started(
            app,
            time,
            rng,
            (id, host, tokens, Vec::new()),
            settings,
            self.spectator_talk,
        )
        .await
    }

    /// Starts a seated game and opens every player's stream; seats that committed to their
    /// shares (`shares`, by seat) reveal them once the host's start closed the lobby.
    async fn started(
        app: Arc<TestApp>,
        time: TimeSource,
        rng: Rng,
        (id, host, tokens, shares): (String, String, Vec<Option<Seated>>, Vec<Option<String>>),
        settings: Value,
        spectator_talk: bool,
    ) -> Mixed {
        let mut seats = Vec::new();
        for token in tokens {
            seats.push(match token {
                None => None,
                Some((token, key)) => Some(Player {
                    stream: Stream::open(&app, &id, &token).await,
                    token,
                    read: None,
                    key,
                }),
            });
        }
        let mut game = Mixed {
            app,
            time,
            rng,
            id,
            host,
            settings,
            spectator_talk,
            seats,
            revoked: Vec::new(),
            kept: Kept::default(),
            messages: Vec::new(),
            hidden: BTreeSet::new(),
            boundaries: Vec::new(),
            keyed: Vec::new(),
            pending_undo: false,
            acts: 0,
            tally: BTreeMap::new(),
            recent: Vec::new(),
            checking: std::time::Duration::ZERO,
            last_signed: std::sync::Mutex::new(None),
        };
        if shares.iter().any(Option::is_some) {
            let early = game.post("/start", Some(&game.host), None, &[]).await;
            game.check(
                early.status == StatusCode::CONFLICT && early.body["code"] == "shares_unrevealed",
                || format!("a start before the lobby closed for the shares: {early:?}"),
            );
            let closed = game.post("/close", Some(&game.host), None, &[]).await;
            game.reveal(&shares, &closed).await;
        } else {
            let ex = game.post("/start", Some(&game.host), None, &[]).await;
            game.check(ex.status == StatusCode::OK, || format!("the start: {ex:?}"));
            game.keep("the start", &ex);
        }
        game
    }

    /// After the host closed the lobby (`closed`): the committed seats reveal their
    /// shares in a random order, the last one starting the game; now and then a start comes
    /// too early, a wrong share is sent, or one seat withholds its share and the host starts
    /// without it once the time is up.
    async fn reveal(&mut self, shares: &[Option<String>], closed: &crate::helpers::Exchange) {
        let committed: Vec<usize> = (0..shares.len()).filter(|s| shares[*s].is_some()).collect();
        self.check(
            closed.status == StatusCode::OK && closed.body["waiting"] == json!(committed),
            || format!("the lobby closed for the shares of {committed:?}: {closed:?}"),
        );
        if self.rng.chance(30) {
            let early = self.post("/start", Some(&self.host), None, &[]).await;
            self.check(
                early.status == StatusCode::CONFLICT && early.body["code"] == "shares_unrevealed",
                || format!("a start before the shares: {early:?}"),
            );
        }
        let path = |seat: usize| format!("/games/{}/seats/{seat}/share", self.id);
        let token = |game: &Mixed, seat: usize| game.seats[seat].as_ref().map(|p| p.token.clone());
        let mut order = committed.clone();
        for i in (1..order.len()).rev() {
            order.swap(i, self.rng.index(i + 1));
        }
        if self.rng.chance(30) {
            let wrong = json!({ "entropy": seed_hex(self.rng.next()) });
            let seat = order[0];
            let ex = self
                .app
                .exchange(
                    Method::PUT,
                    &path(seat),
                    token(self, seat).as_deref(),
                    Some(&wrong),
                    &[],
                )
                .await;
            self.check(ex.status == StatusCode::BAD_REQUEST, || {
                format!("a share that does not open the commitment: {ex:?}")
            });
        }
        let withheld = self
            .rng
            .chance(20)
            .then(|| order[self.rng.index(order.len())]);
        let revealing: Vec<usize> = order.into_iter().filter(|s| Some(*s) != withheld).collect();
        for (n, seat) in revealing.iter().enumerate() {
            let body = json!({ "entropy": shares[*seat] });
            let ex = self
                .app
                .exchange(
                    Method::PUT,
                    &path(*seat),
                    token(self, *seat).as_deref(),
                    Some(&body),
                    &[],
                )
                .await;
            let last = withheld.is_none() && n + 1 == revealing.len();
            self.check(
                ex.status == StatusCode::OK
                    && ex.body["started"] == json!(last)
                    && ex.body["commitment"]["entropy"] == body["entropy"],
                || format!("{seat}'s share revealed: {ex:?}"),
            );
        }
        if withheld.is_some() {
            self.time.advance(30_001);
            let ex = self.post("/start", Some(&self.host), None, &[]).await;
            self.check(ex.status == StatusCode::OK, || {
                format!("the start without a withheld share: {ex:?}")
            });
            self.keep("the start", &ex);
        }
    }

    /// A new game with random settings, seated and started.
    pub async fn create(app: Arc<TestApp>, time: TimeSource, mut rng: Rng) -> Mixed {
        let ruleset = if rng.chance(50) { "base" } else { "saboteur2" };
        let players = 3 + rng.index(5);
        let mut options = json!({ "spectator_talk": rng.chance(50) });
        let clock = rng.below(3);
        if clock > 0 {
            options["clock"] = if clock == 1 {
                json!({ "kind": "per_decision", "seconds": 5 + rng.below(116) })
            } else {
                json!({
                    "kind": "bank",
                    "seconds": 30 + rng.below(571),
                    "increment_seconds": 5 + rng.below(16),
                })
            };
            if rng.chance(50) {
                options["abandon_after"] = json!(1 + rng.below(3));
            }
        }
        // Now and then every seat a player's: only then do undo requests wait for votes.
        let all = rng.chance(20);
        let mut humans: Vec<bool> = (0..players).map(|_| all || rng.chance(50)).collect();
        humans[rng.index(players)] = true;
        let settings = json!({
            "ruleset": ruleset,
            "players": players,
            "first_player": rng.index(players),
            "seed": seed_hex(rng.next()),
            "options": options,
        });
        // Now and then with an `Idempotency-Key`, sometimes sent again: the first reply.
        let (st, g) = if rng.chance(50) {
            let key = [("Idempotency-Key", format!("create-{}", rng.next()))];
            let first = app
                .exchange(Method::POST, "/games", None, Some(&settings), &key)
                .await;
            if rng.chance(70) {
                let again = app
                    .exchange(Method::POST, "/games", None, Some(&settings), &key)
                    .await;
                assert_eq!(
                    (again.status, &again.body),
                    (first.status, &first.body),
                    "a creation retried with its key"
                );
            }
            (first.status, first.body)
        } else {
            app.create_game(&settings).await
        };
        assert_eq!(st, StatusCode::CREATED, "{settings} → {g}");
        let id = g["game_id"].as_str().unwrap().to_string();
        let host = g["host_token"].as_str().unwrap().to_string();
        let mut tokens = Vec::new();
        let mut shares = Vec::new();
        for (seat, human) in humans.iter().enumerate() {
            if *human {
                let (token, key, share) = human_seated(&app, &mut rng, (&id, seat, players)).await;
                tokens.push(Some((token, key)));
                shares.push(share);
            } else {
                let level = if rng.chance(50) {
                    "random"
                } else {
                    "heuristic"
                };
                let bot = json!({ "level": level });
                let path = format!("/games/{id}/bots");
                let (st, b) =
                    lobby_act(&app, &mut rng, Method::POST, &path, Some(&host), &bot).await;
                assert_eq!(st, StatusCode::CREATED, "{b}");
                tokens.push(None);
                shares.push(None);
            }
        }
        let mut described = settings;
        described["humans"] = json!(humans);
        let talk = options["spectator_talk"] == true;
        Mixed::started(app, time, rng, (id, host, tokens, shares), described, talk).await
    }
}

/// Seat `seat` of game `id` (of `players` seats) taken by a player, now and then with a key, a
/// share or its commitment, after a passer-by took and gave it back, as "Guest" then named, or
/// moving to the last seat and back. Its token, key and share not yet revealed.
async fn human_seated(
    app: &TestApp,
    rng: &mut Rng,
    (id, seat, players): (&str, usize, usize),
) -> (String, Option<ed25519_dalek::SigningKey>, Option<String>) {
    let mut share = None;
    // Now and then with a key: the seat's acts are then signed.
    let key = rng.chance(50).then(|| signing_key(rng));
    // Now and then with a share in the seed: the start mixes it in.
    let path = format!("/games/{id}/seats");
    // Now and then someone takes the seat and gives it back first.
    if rng.chance(10) {
        let body = json!({ "name": "passer-by" });
        let (st, j) = lobby_act(app, rng, Method::POST, &path, None, &body).await;
        assert_eq!(
            (st, j["seat"].as_u64()),
            (StatusCode::CREATED, Some(seat as u64)),
            "{j}"
        );
        let token = j["player_token"].as_str().unwrap().to_string();
        let gone = format!("/games/{id}/seats/{seat}");
        let (st, j) = lobby_act(app, rng, Method::DELETE, &gone, Some(&token), &Value::Null).await;
        assert_eq!(st, StatusCode::NO_CONTENT, "a seat given back: {j}");
    }
    // Now and then seated as "Guest" (an invite), then named by its player (a keyed
    // seat's name signed at the lobby's version).
    let renamed = rng.chance(30);
    let first_name = if renamed {
        "Guest".to_string()
    } else {
        format!("p{seat}")
    };
    let mut body = json!({ "name": first_name });
    if let Some((k, public)) = &key {
        body["public_key"] = json!(public);
        body["key_proof"] = json!(super::game::key_proof(k, id));
    }
    // Now and then the commitment to a share instead, revealed after the start.
    if rng.chance(30) {
        let secret = saboteur_domain::Seed::from_u64(rng.next());
        body["share_commitment"] = json!(secret.share_commitment().to_hex());
        share = Some(secret.to_hex());
    } else if key.is_none() && rng.chance(50) {
        body["entropy"] = json!(seed_hex(rng.next()));
    }
    let (st, j) = lobby_act(app, rng, Method::POST, &path, None, &body).await;
    if body.get("entropy").is_some() {
        assert_eq!(j["commitment"]["entropy"], body["entropy"], "{j}");
    }
    assert_eq!(st, StatusCode::CREATED, "{j}");
    assert_eq!(j["seat"].as_u64(), Some(seat as u64), "{j}");
    assert_eq!(j["receipt"]["kind"], "commitment", "{j}");
    let token = j["player_token"].as_str().unwrap().to_string();
    let signer = key.as_ref().map(|(k, _)| (k, id));
    if renamed {
        let path = format!("/games/{id}/seats/{seat}/name");
        let name = json!({ "name": format!(" p{seat} ") });
        let act = (Method::PUT, "name", seat);
        let (st, n) = signed_lobby_act(app, rng, act, (&path, &token), &name, signer).await;
        assert_eq!(
            (st, n),
            (
                StatusCode::OK,
                json!({ "seat": seat, "name": format!("p{seat}") })
            ),
            "a seat named anew, the name trimmed"
        );
    }
    // Now and then its player moves to the last seat (free yet) and back.
    let last = players - 1;
    if seat < last && rng.chance(20) {
        for (from, to) in [(seat, last), (last, seat)] {
            let path = format!("/games/{id}/seats/{from}/move");
            let act = (Method::POST, "sit", from);
            let body = json!({ "to": to });
            let (st, m) = signed_lobby_act(app, rng, act, (&path, &token), &body, signer).await;
            assert_eq!(st, StatusCode::CREATED, "a move to a free seat: {m}");
            assert_eq!(
                (m["seat"].as_u64(), m["from"].as_u64()),
                (Some(to as u64), Some(from as u64))
            );
            assert_eq!(m["commitment"]["public_key"], j["commitment"]["public_key"]);
        }
    }
    (token, key.map(|(k, _)| k), share)
}

/// A seat's lobby act by its player (`act`: the method, the act's name as signed and the seat),
/// signed when the seat has a key (`signer`: the key and the game) at the lobby's version; now
/// and then first signed at the version before it, which is refused (412) and changes nothing.
/// The reply to the one taken.
async fn signed_lobby_act(
    app: &TestApp,
    rng: &mut Rng,
    (method, act, seat): (Method, &str, usize),
    (path, token): (&str, &str),
    body: &Value,
    signer: Option<(&ed25519_dalek::SigningKey, &str)>,
) -> (StatusCode, Value) {
    let Some((key, id)) = signer else {
        return lobby_act(app, rng, method, path, Some(token), body).await;
    };
    let game = format!("/games/{id}");
    let read = || async { app.exchange(Method::GET, &game, None, None, &[]).await.body };
    let before = read().await;
    let at = before["lobby_version"]
        .as_i64()
        .expect("the lobby's version");
    let seat = u8::try_from(seat).expect("a seat");
    let sign = |version: i64| super::game::lobby_signed(key, (id, seat), (act, body), version);
    if rng.chance(30) {
        let stale = app
            .exchange(method.clone(), path, Some(token), Some(body), &sign(at - 1))
            .await;
        assert_eq!(
            (stale.status, &stale.body["code"]),
            (
                StatusCode::PRECONDITION_FAILED,
                &json!("precondition_failed")
            ),
            "a {act} signed at a lobby version gone by: {stale:?}"
        );
        assert_eq!(read().await, before, "a refused lobby act changes nothing");
    }
    let ex = app
        .exchange(method, path, Some(token), Some(body), &sign(at))
        .await;
    (ex.status, ex.body)
}

/// A lobby act (a seat taken, named, moved from or given back, a bot seated): now and then with an
/// `Idempotency-Key`, and then now and then sent again, which must answer exactly the first
/// reply (marked as given again) and change nothing more: a retried join that took another
/// seat shows as the next seat's join landing elsewhere, or the start refused.
async fn lobby_act(
    app: &TestApp,
    rng: &mut Rng,
    method: Method,
    path: &str,
    token: Option<&str>,
    body: &Value,
) -> (StatusCode, Value) {
    let key: Vec<(&str, String)> = if rng.chance(50) {
        vec![("Idempotency-Key", format!("lobby-{}", rng.next()))]
    } else {
        Vec::new()
    };
    let body = (!body.is_null()).then_some(body);
    let first = app.exchange(method.clone(), path, token, body, &key).await;
    if !key.is_empty() && rng.chance(70) {
        let again = app.exchange(method, path, token, body, &key).await;
        assert_eq!(
            (again.status, &again.body),
            (first.status, &first.body),
            "a lobby act retried with its key: {path}"
        );
    }
    (first.status, first.body)
}
