//! The fault suite: the release-shaped binary under the failures a deployment meets — killed
//! with SIGKILL under load and while creating games, told to stop with its streams open, its
//! database stopped and started again, two processes serving one database, hostile and slow
//! clients. Every test is bounded in time. PostgreSQL tests start their own throwaway cluster
//! when `DATABASE_URL` is unset.

mod flood;
mod harness;
mod hostile;
mod in_flight;
mod kill;
mod measure;
mod outage;
mod processes;
mod read_only;
mod reads;
mod stalled;
mod stopping;
mod thinking;
