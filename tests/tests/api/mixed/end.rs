//! The end of a game: when it runs too long the players' seats go to bots, which finish it; then
//! views for everyone, every seat's stream at the last event, the audit of the log, and every
//! receipt served checked against the record.

use reqwest::StatusCode;
use serde_json::json;

use super::game::{Look, Mixed};

impl Mixed {
    /// Too many acts: the players' seats go to bots, which finish the game.
    pub async fn abandon(&mut self, look: &Look) {
        for seat in self.humans() {
            if look.handed[seat] {
                continue;
            }
            let body = json!({ "level": "heuristic" });
            let tail = format!("/seats/{seat}/handover");
            let ex = self.post(&tail, Some(&self.host), Some(&body), &[]).await;
            self.check(ex.status == StatusCode::OK, || {
                format!("hand over {seat}: {ex:?}")
            });
            self.keep("a handover", &ex);
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
        if let Err(wrong) = saboteur_api::audit::verify(&bundle) {
            // The events before the one named, to see what was recorded there.
            let seq: usize = (wrong.strip_prefix("event "))
                .and_then(|r| r.split(':').next())
                .and_then(|n| n.parse().ok())
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
        let receipts = saboteur_api::audit::read_receipts(&self.kept.bodies).expect("receipts");
        let started = std::time::Instant::now();
        let checked = saboteur_api::audit::check_receipts(&bundle, &receipts);
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
