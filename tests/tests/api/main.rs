//! End-to-end: the real server on port 0, real HTTP, a real database (SQLite and PostgreSQL).
//! `helpers` starts servers and holds one client method per endpoint; each other module tests
//! one part of the API.

mod helpers;
mod players;

mod analysis;
mod bots;
mod contract;
mod errors;
mod events;
mod mixed;
mod names;
mod newer;
mod online;
mod ops;
mod oracle;
mod play;
mod player_stream;
mod retries;
mod seams;
mod sits;
mod spec;
mod undo;
