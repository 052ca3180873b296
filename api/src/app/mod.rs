//! The application layer: the games held in memory and the one seam every act that writes a
//! game goes through ([`seam::act`]). It knows nothing of HTTP: handlers (`crate::http`) parse
//! a request into an [`act::Act`], call the seam and turn its [`act::Done`] into a response.

pub(crate) mod act;
pub(crate) mod auth;
pub(crate) mod bots;
pub(crate) mod check;
pub(crate) mod clock;
pub(crate) mod config;
pub(crate) mod decision;
pub(crate) mod declared;
pub(crate) mod driver;
pub(crate) mod games;
pub(crate) mod heads;
pub(crate) mod ids;
pub(crate) mod joins;
pub(crate) mod lobby;
pub(crate) mod lobby_done;
pub(crate) mod lobby_replies;
pub(crate) mod presence;
pub(crate) mod refusal;
pub(crate) mod reply;
pub(crate) mod retry;
pub(crate) mod seam;
pub(crate) mod sent;
pub(crate) mod shares;
pub(crate) mod signing;
pub(crate) mod state;
pub(crate) mod table;
pub(crate) mod tables;
pub(crate) mod text;
pub(crate) mod thinkers;
