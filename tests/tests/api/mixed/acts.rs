//! Every act but a command: talk and hiding it, undo requests and votes, rollbacks, seats
//! handed to bots and taken back, new tokens, the manual clock, views, replays and event pages,
//! and revoked tokens trying anything.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use super::dice::words;
use super::game::{Look, Mixed, SignedSent};
use crate::helpers::Exchange;
use crate::players::{Stream, events_after, kind};

impl Mixed {
    /// Talk by a player, a spectator, or (refused) the host.
    pub async fn talk(&mut self, look: &Look) {
        let text = words(&mut self.rng);
        let many = StatusCode::TOO_MANY_REQUESTS;
        let (who, token, body, allowed) = match self.rng.below(10) {
            0..=5 => {
                let s = self.any_human();
                let body = json!({ "text": text });
                (format!("seat {s}"), Some(self.token(s)), body, many)
            }
            6..=8 => {
                let body = json!({ "text": text, "name": "kibitzer" });
                let allowed = if self.spectator_talk {
                    many
                } else {
                    StatusCode::FORBIDDEN
                };
                ("a spectator".into(), None, body, allowed)
            }
            _ => {
                let body = json!({ "text": text });
                let host = Some(self.host.clone());
                ("the host".into(), host, body, StatusCode::FORBIDDEN)
            }
        };
        self.note(format!("{who} says {text:?}"));
        let ex = self.post("/talk", token.as_deref(), Some(&body), &[]).await;
        self.count("talk", ex.status);
        if ex.status == StatusCode::OK {
            self.keep("talk", &ex);
            self.messages
                .push(ex.body["events"][0]["seq"].as_i64().unwrap());
        } else {
            self.refused("talk", &ex, &[allowed], look.version).await;
        }
    }

    /// The host hides a message (once: a second time is the documented conflict); a player
    /// may not; event 1 is not a message.
    /// The host (or a player) tries to cancel the started game: refused, 409 `already_started`
    /// (403 for a player), and nothing recorded.
    pub async fn cancel(&mut self, look: &Look) {
        let by_player = self.rng.chance(20);
        let token = if by_player {
            let seat = self.any_human();
            self.token(seat)
        } else {
            self.host.clone()
        };
        let ex = self.post("/cancel", Some(&token), None, &[]).await;
        self.count("cancel", ex.status);
        let code = ex.body["code"].clone();
        let status = if by_player {
            [StatusCode::FORBIDDEN]
        } else {
            self.check(code == "already_started", || {
                format!("cancelling a started game: {ex:?}")
            });
            [StatusCode::CONFLICT]
        };
        self.refused("cancelling a started game", &ex, &status, look.version)
            .await;
    }

    pub async fn hide(&mut self, look: &Look) {
        let Some(&seq) = self.messages.get(self.rng.index(self.messages.len())) else {
            let ex = self.post("/talk/1/hide", Some(&self.host), None, &[]).await;
            self.count("hide", ex.status);
            let status = [StatusCode::NOT_FOUND];
            return self
                .refused("hiding event 1", &ex, &status, look.version)
                .await;
        };
        let by_player = self.rng.chance(10);
        let token = if by_player {
            let seat = self.any_human();
            self.token(seat)
        } else {
            self.host.clone()
        };
        self.note(format!("message {seq} hidden (by a player: {by_player})"));
        let tail = format!("/talk/{seq}/hide");
        let ex = self.post(&tail, Some(&token), None, &[]).await;
        self.count("hide", ex.status);
        if by_player {
            let status = [StatusCode::FORBIDDEN];
            self.refused("a player hiding", &ex, &status, look.version)
                .await;
        } else if self.hidden.contains(&seq) {
            let status = [StatusCode::CONFLICT];
            self.refused("hiding twice", &ex, &status, look.version)
                .await;
        } else {
            self.check(ex.status == StatusCode::OK, || format!("hiding: {ex:?}"));
            self.keep("hiding", &ex);
            self.hidden.insert(seq);
        }
    }

    /// A player asks to take back their last command. 409 is the rules' answer when they have
    /// none, someone acted since, or a request is pending: not a race.
    pub async fn undo(&mut self, look: &Look) {
        let seat = self.any_human();
        let token = self.token(seat);
        self.note(format!("seat {seat} asks to undo"));
        let ex = self.post("/undo", Some(&token), None, &[]).await;
        self.count("undo", ex.status);
        match ex.status {
            StatusCode::OK | StatusCode::ACCEPTED => self.keep("an undo request", &ex),
            _ => {
                let status = [StatusCode::CONFLICT];
                self.refused("an undo request", &ex, &status, look.version)
                    .await;
            }
        }
    }

    /// A player votes on the pending request. 409 when none is pending, or they asked or
    /// voted already.
    pub async fn vote(&mut self, look: &Look) {
        let seat = self.any_human();
        let token = self.token(seat);
        let how = if self.rng.chance(60) {
            "approve"
        } else {
            "decline"
        };
        self.note(format!("seat {seat} votes: {how}"));
        let ex = self
            .post(&format!("/undo/{how}"), Some(&token), None, &[])
            .await;
        self.count(how, ex.status);
        match ex.status {
            StatusCode::OK | StatusCode::ACCEPTED => self.keep("a vote", &ex),
            _ => {
                let status = [StatusCode::CONFLICT];
                self.refused("a vote", &ex, &status, look.version).await;
            }
        }
    }

    /// The host rolls back: to a version just before a batch it saw (accepted), or to any
    /// (400 when it is not one).
    pub async fn rollback(&mut self, look: &Look) {
        let known: Vec<i64> = self
            .boundaries
            .iter()
            .copied()
            .filter(|v| (2..look.version).contains(v))
            .collect();
        let to = match known.get(self.rng.index(known.len())) {
            Some(v) if self.rng.chance(80) => *v,
            _ => 2 + self.rng.below(look.version as u64) as i64,
        };
        let body = json!({ "to_version": to, "reason": words(&mut self.rng) });
        self.note(format!("the host rolls back to {to} from {}", look.version));
        let ex = self
            .post("/rollback", Some(&self.host), Some(&body), &[])
            .await;
        self.count("rollback", ex.status);
        if ex.status == StatusCode::OK {
            self.keep("a rollback", &ex);
        } else {
            self.check(!known.contains(&to), || {
                format!("a rollback to {to}, just before a batch: {ex:?}")
            });
            let status = [StatusCode::BAD_REQUEST];
            self.refused("a rollback", &ex, &status, look.version).await;
        }
    }

    /// The host hands a seat to a bot (a conflict when a bot plays it already); a player may
    /// not.
    pub async fn hand_over(&mut self, look: &Look) {
        let seat = self.rng.index(self.seats.len());
        let level = if self.rng.chance(50) {
            "random"
        } else {
            "heuristic"
        };
        let by_player = self.seats[seat].is_some() && self.rng.chance(10);
        let token = if by_player {
            self.token(seat)
        } else {
            self.host.clone()
        };
        self.note(format!(
            "seat {seat} handed to a {level} bot (by its player: {by_player})"
        ));
        let body = json!({ "level": level });
        let tail = format!("/seats/{seat}/handover");
        let ex = self.post(&tail, Some(&token), Some(&body), &[]).await;
        self.count("hand over", ex.status);
        let (what, status) = if by_player {
            ("a player handing over", StatusCode::FORBIDDEN)
        } else if self.seats[seat].is_none() || look.handed[seat] {
            ("handing over a bot's seat", StatusCode::CONFLICT)
        } else {
            ("handing over", StatusCode::OK)
        };
        if status == StatusCode::OK {
            self.check(ex.status == status, || format!("{what} {seat}: {ex:?}"));
            self.keep(what, &ex);
        } else {
            self.refused(what, &ex, &[status], look.version).await;
        }
    }

    /// A player takes their seat back from the bot (a conflict when no bot plays it);
    /// another seat's token may not.
    pub async fn reclaim(&mut self, look: &Look) {
        let handed: Vec<usize> = (self.humans().into_iter())
            .filter(|s| look.handed[*s])
            .collect();
        let seat = match handed.get(self.rng.index(handed.len())) {
            Some(s) if self.rng.chance(90) => *s,
            _ => self.any_human(),
        };
        let other = self.any_human();
        let other = (other != seat && self.rng.chance(10)).then_some(other);
        let token = self.token(other.unwrap_or(seat));
        self.note(format!("seat {seat} reclaimed (by seat {other:?})"));
        let tail = format!("/seats/{seat}/reclaim");
        let ex = self.post(&tail, Some(&token), None, &[]).await;
        self.count("reclaim", ex.status);
        let (what, status) = if other.is_some() {
            ("another seat reclaiming", StatusCode::FORBIDDEN)
        } else if !look.handed[seat] {
            ("reclaiming a seat no bot plays", StatusCode::CONFLICT)
        } else {
            ("reclaiming", StatusCode::OK)
        };
        if status == StatusCode::OK {
            self.check(ex.status == status, || format!("{what} {seat}: {ex:?}"));
            self.keep(what, &ex);
        } else {
            self.refused(what, &ex, &[status], look.version).await;
        }
    }

    /// The host issues a seat a new token: the old one's stream ends, having delivered
    /// nothing from the reissue on; a new stream follows with the new token.
    pub async fn reissue(&mut self, look: &Look) {
        let seat = self.rng.index(self.seats.len());
        self.note(format!("the host issues seat {seat} a new token"));
        let tail = format!("/seats/{seat}/token");
        let Some(player) = self.seats[seat].as_mut() else {
            let ex = self.post(&tail, Some(&self.host), None, &[]).await;
            self.count("reissue", ex.status);
            let status = [StatusCode::CONFLICT];
            return self
                .refused("a bot's token", &ex, &status, look.version)
                .await;
        };
        let seen = player.stream.reach(look.version).await;
        self.check(seen.last() == look.version && !seen.ended, || {
            format!(
                "seat {seat}'s stream before the reissue: {seen:?}, the game at {}",
                look.version
            )
        });
        let ex = self.post(&tail, Some(&self.host), None, &[]).await;
        self.count("reissue", ex.status);
        self.check(ex.status == StatusCode::OK, || {
            format!("a new token: {ex:?}")
        });
        let new = ex.body["player_token"].as_str().unwrap().to_string();
        let reissued = events_after(&self.app, &self.id, look.version, None)
            .await
            .iter()
            .find(|e| kind(e) == "token_reissued" && e["event"]["seat"] == seat)
            .and_then(|e| e["seq"].as_i64());
        let Some(reissued) = reissued else {
            self.fail(format!(
                "no token_reissued for seat {seat} after {}",
                look.version
            ))
        };
        let stream = Stream::open(&self.app, &self.id, &new).await;
        let player = self.seats[seat].as_mut().expect("a player");
        let mut old = std::mem::replace(&mut player.stream, stream);
        let old_token = std::mem::replace(&mut player.token, new.clone());
        // A new token drops the seat's key: its holder now and then registers one.
        player.key = None;
        if self.rng.chance(50) {
            self.new_key_after_reissue(seat, &new, reissued).await;
        }
        let got = old.end().await;
        let leaked: Vec<i64> = got
            .seqs
            .iter()
            .copied()
            .filter(|s| *s >= reissued)
            .collect();
        self.check(got.ended && leaked.is_empty(), || {
            format!(
                "seat {seat}'s token was reissued at event {reissued}: the old token's stream {} \
                 and delivered {leaked:?} from then on",
                if got.ended { "ended" } else { "did not end" }
            )
        });
        self.revoked.push((seat, old_token, reissued));
    }

    /// The manual clock passes the awaited seat's deadline; a view records the timeout.
    pub async fn time_out(&mut self, look: &Look) {
        let Some(deadline) = look.deadline else {
            return;
        };
        let at = deadline + self.rng.below(3_000);
        self.time.set(at);
        self.note(format!(
            "the clock passes the deadline {deadline}: now {at}"
        ));
        let again = self.look().await;
        let events = events_after(&self.app, &self.id, look.version, None).await;
        let timed_out = events.iter().any(|e| kind(e) == "turn_timed_out");
        self.count("time out", StatusCode::OK);
        self.check(again.version > look.version && timed_out, || {
            format!("the deadline {deadline} passed at {at}, yet no timeout was recorded")
        });
    }

    /// Time passes on the manual clock, short of the deadline.
    pub fn wait(&mut self, look: &Look) {
        let now = self.time.now_ms();
        let room = look.deadline.map_or(30_000, |d| d.saturating_sub(now + 1));
        let step = self.rng.below(room.min(20_000));
        self.time.set(now + step);
        self.note(format!("{step} ms pass"));
    }

    /// A replay or a page of events for a random audience.
    pub async fn view(&mut self, look: &Look) {
        let token = self.anyone();
        if self.rng.chance(50) {
            let at = 1 + self.rng.below(look.version as u64);
            let ex = self.get(&format!("/state?at={at}"), token.as_deref()).await;
            self.count("replay", ex.status);
            self.check(ex.status == StatusCode::OK, || {
                format!("a replay at {at}: {ex:?}")
            });
            self.keep("a replay", &ex);
        } else if self.rng.chance(50) {
            self.read_table(look, token).await;
        } else {
            let after = self.rng.below(look.version as u64);
            let tail = format!("/events?after={after}&limit=50");
            let ex = self.get(&tail, token.as_deref()).await;
            self.count("events", ex.status);
            self.check(ex.status == StatusCode::OK, || format!("events: {ex:?}"));
        }
    }

    /// The table read at once is what the five reads it stands for answer at its version: the
    /// game, the view (everyone's once the game is over), the legal moves (a player's only),
    /// presence and the page of events; its view carries a receipt like any other.
    async fn read_table(&mut self, look: &Look, token: Option<String>) {
        let after = self.rng.below(look.version as u64 + 1);
        let tail = format!("/table?after={after}&limit=50");
        let t = self.get(&tail, token.as_deref()).await;
        self.count("table", t.status);
        self.check(t.status == StatusCode::OK, || format!("the table: {t:?}"));
        let version = t.body["version"].as_i64().unwrap_or(-1);
        let token = token.as_deref();
        let game = self.get("", None).await;
        let state = self.get(&format!("/state?at={version}"), token).await;
        let legal = self.get("/legal-moves", token).await;
        let presence = self.get("/presence", None).await;
        let page = self
            .get(&format!("/events?after={after}&limit=50"), token)
            .await;
        // A bot's answer or a sweep may land between the reads: compared only when none did.
        if self.version().await != version {
            self.count("table moved on", StatusCode::OK);
            return;
        }
        let same = |what: &str, one: &Value, other: &Value| {
            self.check(one == other, || {
                format!("the table's {what} at {version}: {one} but alone: {other}")
            });
        };
        same("game", &t.body["game"], &game.body);
        same("view", &t.body["state"]["view"], &state.body["view"]);
        same(
            "table status",
            &t.body["state"]["table"],
            &state.body["table"],
        );
        same("presence", &t.body["presence"], &presence.body);
        same("events", &t.body["events"], &page.body);
        let player = legal.status == StatusCode::OK;
        let expected = if player {
            legal.body.clone()
        } else {
            Value::Null
        };
        same("legal moves", &t.body["legal"], &expected);
        let view = Exchange {
            body: t.body["state"].clone(),
            ..t.clone()
        };
        self.keep("a table's view", &view);
    }

    /// A revoked token tries anything: refused (401), nothing changes.
    pub async fn probe_revoked(&mut self, look: &Look) {
        let (seat, token, _) = self.revoked[self.rng.index(self.revoked.len())].clone();
        let command = json!({ "type": "pass" });
        let talk = json!({ "text": "still me" });
        let t = Some(token.as_str());
        let (what, ex) = match self.rng.below(7) {
            0 => ("state", self.get("/state", t).await),
            1 => ("legal moves", self.get("/legal-moves", t).await),
            2 => ("events", self.get("/events?after=0", t).await),
            3 => (
                "a command",
                self.post("/commands", t, Some(&command), &[]).await,
            ),
            4 => ("talk", self.post("/talk", t, Some(&talk), &[]).await),
            5 => ("undo", self.post("/undo", t, None, &[]).await),
            _ => {
                // Only the status: a stream that opened would never end.
                let r = self.app.events_stream(&self.id, t, None).await;
                let refused = Exchange {
                    status: r.status(),
                    content_type: (r.headers().get("content-type"))
                        .and_then(|v| v.to_str().ok())
                        .unwrap_or_default()
                        .to_string(),
                    body: Value::Null,
                };
                let body = if refused.status.is_success() {
                    Value::Null
                } else {
                    r.json().await.unwrap_or_default()
                };
                ("a stream", Exchange { body, ..refused })
            }
        };
        self.note(format!("seat {seat}'s revoked token asks for {what}"));
        self.count("revoked", ex.status);
        let what = format!("{what} with a revoked token");
        let status = [StatusCode::UNAUTHORIZED];
        self.refused(&what, &ex, &status, look.version).await;
    }

    /// The last signed request sent again exactly (its signature and version as they were),
    /// without an idempotency key: once its act was recorded, or the game moved on past the
    /// decision it was signed at, it is refused (401 or 412, or earlier: a token since revoked,
    /// a rule) and records nothing.
    pub async fn replay_signature(&mut self, look: &Look) {
        let sent = self.last_signed.lock().ok().and_then(|l| l.clone());
        let Some(sent) = sent else {
            return self.view(look).await;
        };
        if self.rng.chance(40) {
            return self.signature_on_another_act(look, sent).await;
        }
        let signed_at = sent
            .headers
            .iter()
            .find(|(n, _)| *n == "Seat-Signature-Version")
            .and_then(|(_, v)| v.parse::<i64>().ok())
            .unwrap_or_default();
        let before = self.version().await;
        // Recorded once already, or signed before the game's last decision: never again. (As
        // the game stood before the replay: a signature whose first sending was refused may be
        // recorded now, at its own version, and its events then follow that version.)
        let moved_on = self.decided_since(signed_at).await;
        let ex = self
            .app
            .exchange(
                Method::POST,
                &sent.path,
                Some(&sent.token),
                sent.body.as_ref(),
                &sent.headers,
            )
            .await;
        self.count("replay a signature", ex.status);
        let after = self.version().await;
        self.check(after == before || ex.status.is_success(), || {
            format!("a refused replay recorded something: {ex:?}")
        });
        if ex.status.is_success() {
            // Answered with the first reply (the same idempotency key) records nothing: only a
            // second recording is a signature spent twice.
            self.check(!moved_on || after == before, || {
                format!(
                    "a signature from version {signed_at} was recorded again after the game \
                     moved on: {ex:?}"
                )
            });
            self.note(format!("replayed signature accepted: {}", sent.path));
            self.keep("a replayed signature", &ex);
        } else if moved_on {
            self.check(
                matches!(ex.status.as_u16(), 401 | 403 | 404 | 409 | 412 | 422),
                || format!("a stale signature: {ex:?}"),
            );
        }
    }

    /// Whether an event that changes what a seat decides on (anything but talk, a hidden
    /// message, a new token or a key) was recorded after `version`.
    async fn decided_since(&self, version: i64) -> bool {
        let after = events_after(&self.app, &self.id, version, None).await;
        after.iter().any(|e| {
            !matches!(
                kind(e),
                "talk_posted" | "talk_hidden" | "token_reissued" | "seat_key_registered"
            )
        })
    }

    /// The last signature sent with another act, body-less (an undo request, or a decline for
    /// a signed undo): the statement names the act, so it never verifies — 401 `bad_signature`
    /// (or a refusal decided before the signature is looked at: a revoked token, a claim's
    /// token of the previous game), and nothing recorded.
    async fn signature_on_another_act(&mut self, look: &Look, sent: SignedSent) {
        let prefix = format!("/games/{}", self.id);
        // A signature from an earlier game of the chain is another game's: not this probe's.
        let Some(act) = sent.path.strip_prefix(&prefix) else {
            return self.view(look).await;
        };
        let other = if act == "/undo" {
            "/undo/decline"
        } else {
            "/undo"
        };
        let path = format!("{prefix}{other}");
        let before = self.version().await;
        let ex = self
            .app
            .exchange(Method::POST, &path, Some(&sent.token), None, &sent.headers)
            .await;
        self.count("a signature on another act", ex.status);
        self.note(format!("the signature of {act} sent with {other}"));
        let after = self.version().await;
        self.check(!ex.status.is_success() && after == before, || {
            format!("a signature of {act} was accepted for {other}: {ex:?}")
        });
        // A 401 names the signature, or a token that is not this game's seat's any more (a
        // claim's, made with the previous game's token).
        if ex.status == StatusCode::UNAUTHORIZED {
            self.check(
                ex.body["code"] == "bad_signature" || ex.body["code"] == "unauthorized",
                || format!("a signature on another act: {ex:?}"),
            );
        }
        self.refused(
            "a signature on another act",
            &ex,
            &[
                StatusCode::UNAUTHORIZED,
                StatusCode::FORBIDDEN,
                StatusCode::NOT_FOUND,
                StatusCode::CONFLICT,
                StatusCode::PRECONDITION_FAILED,
                StatusCode::UNPROCESSABLE_ENTITY,
            ],
            look.version,
        )
        .await;
    }
}
