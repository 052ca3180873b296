//! A player's commands: legal moves read now or earlier, a command chosen from them and sent
//! with or without `If-Match` and an `Idempotency-Key`, keyed commands sent again at once or
//! many acts later, and a key used again for another command.

use reqwest::StatusCode;
use serde_json::Value;

use super::game::{Keyed, Look, Mixed};
use crate::helpers::pick;
use crate::players::{events_after, kind, kinds, signed_part};

/// The events after which `If-Match` must still hold: nothing a seat decides on changed.
const QUIET: [&str; 3] = ["talk_posted", "talk_hidden", "token_reissued"];

impl Mixed {
    /// A player's legal moves now, remembered as their last read.
    async fn read(&mut self, seat: usize, look: &Look) -> (i64, Vec<Value>) {
        let token = self.token(seat);
        let ex = self.get("/legal-moves", Some(&token)).await;
        self.check(ex.status == StatusCode::OK, || {
            format!("legal moves: {ex:?}")
        });
        let read = (
            ex.body["version"].as_i64().unwrap(),
            ex.body["commands"].as_array().unwrap().clone(),
        );
        self.check(read.0 == look.version, || {
            format!("legal moves at {} after a view at {}", read.0, look.version)
        });
        if let Some(p) = self.seats[seat].as_mut() {
            p.read = Some(read.clone());
        }
        read
    }

    /// A player (the awaited one, mostly) reads their legal moves and thinks it over: a later
    /// command may be chosen from this read.
    pub async fn think(&mut self, look: &Look) {
        let seat = match look.awaited {
            Some(a) if self.seats[a].is_some() && self.rng.chance(85) => a,
            _ => self.any_human(),
        };
        let (v, commands) = self.read(seat, look).await;
        self.note(format!(
            "seat {seat} reads {} legal moves at {v}",
            commands.len()
        ));
    }

    /// A player's command, chosen from legal moves read now or earlier, with or without
    /// `If-Match` and an `Idempotency-Key`. What it may be answered follows from what was
    /// recorded since the read.
    pub async fn command(&mut self, look: &Look) {
        let seat = match look.awaited {
            Some(a) if self.seats[a].is_some() && self.rng.chance(85) => a,
            _ => self.any_human(),
        };
        let stale = self.seats[seat].as_ref().and_then(|p| p.read.clone());
        let (v, commands) = match stale {
            Some(read) if !read.1.is_empty() && self.rng.chance(40) => read,
            _ => self.read(seat, look).await,
        };
        if commands.is_empty() {
            return self.note(format!("seat {seat} has no legal move at {v}"));
        }
        let command = pick(&commands, self.rng.index(1000));
        let if_match = self.rng.chance(50).then_some(v);
        let key = self
            .rng
            .chance(50)
            .then(|| format!("k{:x}", self.rng.next()));
        let since: Vec<String> = if v == look.version {
            Vec::new()
        } else {
            let events = events_after(&self.app, &self.id, v, None).await;
            events.iter().map(|e| kind(e).to_string()).collect()
        };
        let quiet = since.iter().all(|k| QUIET.contains(&k.as_str()));
        let moved = since
            .iter()
            .any(|k| k == "command_accepted" || k == "undone");
        self.note(format!(
            "seat {seat} sends {command} read at {v} (now {}; since: {since:?}), If-Match \
             {if_match:?}, key {key:?}",
            look.version
        ));
        let mut headers = Vec::new();
        if let Some(v) = if_match {
            headers.push(("If-Match", format!("\"{v}\"")));
        }
        if let Some(k) = &key {
            headers.push(("Idempotency-Key", k.clone()));
        }
        let token = self.token(seat);
        let ex = self
            .post("/commands", Some(&token), Some(&command), &headers)
            .await;
        self.count("command", ex.status);
        match ex.status {
            StatusCode::OK => {
                self.check(!(if_match.is_some() && moved), || {
                    format!("If-Match \"{v}\" held although {since:?} was recorded since")
                });
                self.keep("a command", &ex);
            }
            StatusCode::PRECONDITION_FAILED => {
                self.check(if_match.is_some() && !quiet, || {
                    format!("If-Match \"{v}\" failed with only {since:?} recorded since: {ex:?}")
                });
                let status = [ex.status];
                self.refused("a stale command", &ex, &status, look.version)
                    .await;
            }
            _ => {
                self.check(!quiet, || {
                    format!("a command legal at {v}, only {since:?} recorded since: {ex:?}")
                });
                let status = [StatusCode::UNPROCESSABLE_ENTITY];
                self.refused("a command", &ex, &status, look.version).await;
            }
        }
        if let Some(key) = key {
            let keyed = Keyed {
                seat,
                key,
                command,
                if_match,
                first: ex,
            };
            if self.rng.chance(35) {
                self.resend(&keyed, "at once").await;
            }
            if keyed.first.status == StatusCode::OK {
                self.keyed.push(keyed);
            }
        }
    }

    /// Sends a keyed command again, with the same headers: the reply must be the first one.
    async fn resend(&mut self, k: &Keyed, when: &str) {
        let mut headers = vec![("Idempotency-Key", k.key.clone())];
        if let Some(v) = k.if_match {
            headers.push(("If-Match", format!("\"{v}\"")));
        }
        let token = self.token(k.seat);
        self.note(format!("seat {} sends {} again {when}", k.seat, k.key));
        let again = self
            .post("/commands", Some(&token), Some(&k.command), &headers)
            .await;
        self.count("retry", again.status);
        let first = &k.first.body;
        let same = again.status == k.first.status
            && if again.status == StatusCode::OK {
                ["version", "events", "awaited"]
                    .iter()
                    .all(|f| again.body[f] == first[f])
                    && signed_part(&again.body["receipt"]) == signed_part(&first["receipt"])
            } else {
                again.body["code"] == first["code"]
            };
        self.check(same, || {
            let (a, b) = (&first["events"], &again.body["events"]);
            let apart = (0..a.as_array().map_or(0, Vec::len))
                .find(|i| a[i] != b[i])
                .map_or(String::new(), |i| {
                    format!("; event {i} was {} and is now {}", a[i], b[i])
                });
            format!(
                "a retry {when} is not the first reply: first {} version {} events {:?}; the \
                 retry {} version {} events {:?}{apart}\nfirst {first}\nretry {}",
                k.first.status,
                first["version"],
                kinds(first),
                again.status,
                again.body["version"],
                kinds(&again.body),
                again.body
            )
        });
        if again.status == StatusCode::OK {
            self.keep("a retry", &again);
        }
    }

    /// An earlier keyed command sent again, many acts later.
    pub async fn retry_later(&mut self) {
        let i = self.rng.index(self.keyed.len());
        let k = self.keyed.swap_remove(i);
        self.resend(&k, "later").await;
        self.keyed.push(k);
    }

    /// A key used again for another command: refused.
    pub async fn reuse_key(&mut self, look: &Look) {
        let k = &self.keyed[self.rng.index(self.keyed.len())];
        let (seat, key, first) = (k.seat, k.key.clone(), k.command.clone());
        let (_, commands) = self.read(seat, look).await;
        let Some(other) = commands.into_iter().find(|c| *c != first) else {
            return;
        };
        self.note(format!("seat {seat} sends {other} with {key}, used before"));
        let token = self.token(seat);
        let headers = [("Idempotency-Key", key)];
        let ex = self
            .post("/commands", Some(&token), Some(&other), &headers)
            .await;
        self.count("reused key", ex.status);
        self.check(ex.body["code"] == "idempotency_key_reused", || {
            format!("a key used again for another command: {ex:?}")
        });
        let status = [StatusCode::UNPROCESSABLE_ENTITY];
        self.refused("a reused key", &ex, &status, look.version)
            .await;
    }
}
