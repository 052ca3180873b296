//! Checking a game's hash chain in the store.

use crate::EventStore;
use crate::error::Result;
use crate::ids::{GameId, Version};
use crate::records::ChainReport;
use saboteur_verifier::hash::GENESIS;
use saboteur_verifier::seal::Chain;

impl EventStore {
    /// Walks a game's hash chain and names the first event that does not match.
    pub async fn verify_chain(&self, game_id: &GameId) -> Result<ChainReport> {
        let game = self.row(game_id).await?;
        let mut prev = GENESIS.to_string();
        let mut count = Version::of(0);
        let mut chain = Chain::new(game_id.as_str());
        let broken = self
            .fold_events(game_id, (), |(), e| {
                count = count.plus(1);
                if e.seq != count {
                    return Err((
                        count,
                        format!("sequence number {} where {count} belongs", e.seq),
                    ));
                }
                if e.prev_hash != prev {
                    return Err((
                        e.seq,
                        "its previous hash does not match the chain".to_string(),
                    ));
                }
                let h = chain
                    .hash(
                        &prev,
                        e.seq.stored(),
                        &e.event_type,
                        e.schema_version,
                        &e.payload,
                    )
                    .map_err(|err| (e.seq, format!("it cannot be read: {err}")))?;
                if h != e.hash {
                    return Err((e.seq, "its contents do not match its hash".to_string()));
                }
                prev = h;
                Ok(())
            })
            .await?;
        Ok(match broken {
            Err((seq, reason)) => ChainReport::Broken { seq, reason },
            Ok(()) if count != game.version => ChainReport::Broken {
                seq: count.plus(1),
                reason: format!("the log has {count} events, the game says {}", game.version),
            },
            Ok(()) if prev != game.last_hash => ChainReport::Broken {
                seq: count,
                reason: "the game's last hash does not match the chain".into(),
            },
            Ok(()) => ChainReport::Intact { events: count },
        })
    }
}
