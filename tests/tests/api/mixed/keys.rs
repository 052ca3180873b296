//! A key registered after a reissued token: proved for the seat from the reissue on (record
//! version 7), a proof made before it refused and changing nothing.

use reqwest::StatusCode;
use serde_json::json;

use super::game::Mixed;

impl Mixed {
    /// Seat `seat`'s new token's holder (`new`, issued at event `reissued`) registers a key:
    /// first with a stale proof (the lobby's, or one dated before the reissue), refused; then
    /// proved at the reissue.
    pub(super) async fn new_key_after_reissue(&mut self, seat: usize, new: &str, reissued: i64) {
        let (key, public) = super::game::signing_key(&mut self.rng);
        let path = format!("/games/{}/seats/{seat}/key", self.id);
        // Proved for this seat from the reissue on (record version 7): a proof dated
        // before the reissue, or the lobby's undated one, is refused and changes nothing.
        let at = u64::try_from(reissued).expect("a version");
        let stale = if self.rng.chance(50) {
            json!({ "public_key": public, "key_proof": super::game::key_proof(&key, &self.id) })
        } else {
            let proof = super::game::key_proof_at(&key, &self.id, seat, at - 1);
            json!({ "public_key": public, "key_proof": proof, "key_proof_version": at - 1 })
        };
        let ex = (self.app)
            .exchange(reqwest::Method::PUT, &path, Some(new), Some(&stale), &[])
            .await;
        self.count("stale key proof", ex.status);
        self.check(
            ex.status == StatusCode::BAD_REQUEST && ex.body["code"] == "bad_key_proof",
            || format!("a key proved before the reissue: {ex:?}"),
        );
        let proof = super::game::key_proof_at(&key, &self.id, seat, at);
        let body = json!({ "public_key": public, "key_proof": proof, "key_proof_version": at });
        let ex = (self.app)
            .exchange(reqwest::Method::PUT, &path, Some(new), Some(&body), &[])
            .await;
        self.count("new key", ex.status);
        self.check(
            ex.status == StatusCode::OK
                && ex.body["events"][0]["event"]["type"] == "seat_key_registered",
            || format!("a new key after a reissue: {ex:?}"),
        );
        self.keep("a new key", &ex);
        self.seats[seat].as_mut().expect("a player").key = Some(key);
    }
}
