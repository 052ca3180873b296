//! The audit bundles of finished games this process served last, kept to answer while no
//! database can be reached (a demoted primary restarting while the standby is away): a
//! finished game's record no longer changes, so a bundle served once is still the game's.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use saboteur_verifier::audit::AuditBundle;

/// How many bundles are kept (the most recently served; a bundle is some tens of KiB).
const KEPT: usize = 64;

/// The last [`KEPT`] bundles served, newest last.
#[derive(Default)]
pub(crate) struct KeptBundles(Mutex<VecDeque<(String, Arc<AuditBundle>)>>);

impl KeptBundles {
    /// Keeps `bundle`, served for game `id`, in place of any older one of that game.
    pub fn keep(&self, id: &str, bundle: &AuditBundle) {
        let mut kept = self.0.lock().unwrap_or_else(|e| e.into_inner());
        kept.retain(|(game, _)| game != id);
        if kept.len() == KEPT {
            kept.pop_front();
        }
        kept.push_back((id.to_string(), Arc::new(bundle.clone())));
    }

    /// The bundle last served for game `id`, if it is still kept.
    pub fn get(&self, id: &str) -> Option<Arc<AuditBundle>> {
        let kept = self.0.lock().unwrap_or_else(|e| e.into_inner());
        kept.iter()
            .find(|(game, _)| game == id)
            .map(|(_, b)| b.clone())
    }
}
