//! The end of a game: when it runs too long the players' seats go to bots, which finish it; then
//! views for everyone, every seat's stream at the last event, the audit of the log, and every
//! receipt served checked against the record.

use reqwest::StatusCode;
use serde_json::json;

use saboteur_domain::Event;

use super::game::{Look, Mixed};

impl Mixed {
    /// Any changed byte of a recorded signature, or of the body it signs, is caught: one
    /// signed act of the log at random, one byte changed.
    fn tamper_with_a_signature(&mut self, bundle: &saboteur_verifier::audit::AuditBundle) {
        let log: Vec<Event> = (bundle.events.iter())
            .map(|e| serde_json::from_value(e.payload.clone()).expect("an event"))
            .collect();
        let signed: Vec<usize> = (0..log.len())
            .filter(|i| log[*i].signature().is_some())
            .collect();
        *self.tally.entry("signatures".into()).or_default() += signed.len();
        if signed.is_empty() {
            return;
        }
        let at = signed[self.rng.index(signed.len())];
        let mut changed = log.clone();
        let mut s = log[at].signature().cloned().expect("a signature");
        let (field, text) = if self.rng.chance(50) && !s.body.is_empty() {
            ("body", &mut s.body)
        } else {
            ("signature", &mut s.signature)
        };
        let mut bytes = std::mem::take(text).into_bytes();
        let i = self.rng.index(bytes.len());
        // Another character of the same kind (a hex digit for a hex digit).
        bytes[i] = match bytes[i] {
            b'0' => b'1',
            b @ b'1'..=b'9' => b - 1,
            b'a'..=b'f' => b'0',
            b'"' => b'\'',
            b => b ^ 1,
        };
        *text = String::from_utf8_lossy(&bytes).into_owned();
        let seat = log[at].actor().or(match &log[at] {
            Event::CommandAccepted { seat, .. }
            | Event::UndoRequested { seat, .. }
            | Event::UndoApproved { seat, .. }
            | Event::UndoDeclined { seat, .. }
            | Event::Undone { by: Some(seat), .. } => Some(*seat),
            _ => None,
        });
        self.check(
            Event::sign(
                std::slice::from_mut(&mut changed[at]),
                seat.expect("a seat"),
                s,
            ),
            || format!("event {} could not be signed again", at + 1),
        );
        let caught = saboteur_verifier::audit::check_signatures(&self.id, &changed);
        self.check(caught.is_err(), || {
            format!(
                "a changed byte of event {}'s {field} was not caught",
                at + 1
            )
        });
    }

    /// Too many acts: the players' seats go to bots, which finish the game.
    pub async fn abandon(&mut self, look: &Look) {
        for seat in self.humans() {
            if look.handed[seat] {
                continue;
            }
            let body = json!({ "level": "heuristic" });
            let tail = format!("/seats/{seat}/handover");
            let ex = self.post(&tail, Some(&self.host), Some(&body), &[]).await;
            // The seats handed before may have played the game to its end: then the handover is
            // refused, with a signed refusal, because the record is final.
            let ended = ex.status == StatusCode::CONFLICT && ex.body["code"] == "game_over";
            self.check(ex.status == StatusCode::OK || ended, || {
                format!("hand over {seat}: {ex:?}")
            });
            self.keep("a handover", &ex);
            if ended {
                let over = self.look().await.over;
                self.check(over, || {
                    format!("hand over {seat}: refused as over, yet the game goes on: {ex:?}")
                });
                break;
            }
        }
        self.note("every seat handed to bots".into());
        for _ in 0..100 {
            if self.look().await.over {
                return;
            }
            // A bot could not act within a request: the server's sweep plays it.
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        self.fail("every seat is played by a bot, yet the game does not end".into());
    }

    /// The end: views for everyone, every stream at the last event, every receipt checked.
    pub async fn finish(&mut self) {
        let end = self.version().await;
        let mut tokens = vec![None, Some(self.host.clone())];
        tokens.extend(self.humans().into_iter().map(|s| Some(self.token(s))));
        for token in tokens {
            let ex = self.get("/state", token.as_deref()).await;
            self.check(ex.body["view"]["phase"]["name"] == "game_over", || {
                format!("the end: {ex:?}")
            });
            self.keep("the last view", &ex);
        }
        for seat in self.humans() {
            let player = self.seats[seat].as_mut().expect("a player");
            let seen = player.stream.reach(end).await;
            self.check(seen.last() == end, || {
                format!("seat {seat}'s stream stopped at {seen:?}; the game ended at {end}")
            });
        }
        let bundle = crate::players::bundle(&self.app, &self.id).await;
        if let Err(wrong) = saboteur_verifier::audit::verify(&bundle) {
            // The events before the one named, to see what was recorded there.
            let seq = wrong
                .seq()
                .and_then(|s| usize::try_from(s).ok())
                .unwrap_or(bundle.events.len());
            let around: Vec<String> = bundle.events
                [seq.saturating_sub(8)..seq.min(bundle.events.len())]
                .iter()
                .map(|e| format!("{} {}", e.seq, e.payload))
                .collect();
            self.fail(format!(
                "the audit: {wrong}; the log up to it:\n  {}",
                around.join("\n  ")
            ));
        }
        self.tamper_with_a_signature(&bundle);
        let receipts =
            saboteur_verifier::audit::read_receipts(&self.kept.bodies).expect("receipts");
        let started = std::time::Instant::now();
        let checked = saboteur_verifier::audit::check_receipts(&bundle, &receipts);
        self.checking = started.elapsed();
        let n = self.kept.len() as u64;
        self.check(
            n > 0
                && checked
                    .as_ref()
                    .is_ok_and(|c| c.receipts == n && c.bodies == n),
            || format!("{n} receipts against the record: {checked:?}"),
        );
    }
}
