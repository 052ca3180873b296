//! The HTTP handlers: each parses a request, hands an act to the seam
//! (`crate::app::seam::act`, through `perform`) or reads a table, and turns the answer into a
//! response. No handler writes to the store or a table's state. This file only wires them.

pub(crate) mod admit;
pub(crate) mod analysis;
pub(crate) mod audit;
pub(crate) mod body;
pub(crate) mod caller;
pub(crate) mod catalogue;
pub(crate) mod edge;
pub(crate) mod games;
pub(crate) mod head;
pub(crate) mod limits;
pub(crate) mod online;
pub(crate) mod ops;
pub(crate) mod perform;
pub(crate) mod play;
pub(crate) mod players;
pub(crate) mod quota;
pub(crate) mod series;
pub(crate) mod shares;
pub(crate) mod stream;
pub(crate) mod transparency;
pub(crate) mod undo;
pub(crate) mod verdict;
pub(crate) mod webclient;

use utoipa_actix_web::service_config::ServiceConfig;

/// Every documented route.
pub(crate) fn configure(cfg: &mut ServiceConfig) {
    games::configure(cfg);
    play::configure(cfg);
    undo::configure(cfg);
    online::configure(cfg);
    series::configure(cfg);
    shares::configure(cfg);
    audit::configure(cfg);
    stream::configure(cfg);
    players::configure(cfg);
    ops::configure(cfg);
    catalogue::configure(cfg);
    verdict::configure(cfg);
    analysis::configure(cfg);
    transparency::configure(cfg);
}
