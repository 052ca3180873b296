//! What every request shares: the configuration, the store, the games held in memory, the
//! signing key, the metrics and the live connections.

use std::sync::Arc;
use std::time::Duration;

use saboteur_storage::{EventStore, Notice, ReadStore};

pub use crate::app::config::Config;
use crate::app::presence::Presence;
use crate::app::tables::Tables;
use crate::kept::Kept;
use crate::metrics::Metrics;
use crate::receipt::Signer;

/// How long a read keeps trying while neither the store nor the read-only store can be reached
/// ([`AppState::patiently`]).
pub(crate) const READ_PATIENCE: Duration = Duration::from_secs(5);

/// Shared by every request.
pub(crate) struct AppState {
    /// The store's writer: the application's alone (`app/`), so a handler cannot write the
    /// store however it is written; every act goes through the seam (`seam::act`).
    pub(in crate::app) writer: EventStore,
    /// The store, to read: what handlers get.
    pub store: ReadStore,
    /// Where listings and finished games' audits are read first, when the server was given a
    /// read-only store (`Config::read_database_url`, a standby). See [`AppState::reading_or_kept`].
    pub reads: Option<ReadStore>,
    pub config: Config,
    pub metrics: Metrics,
    pub tables: Arc<Tables>,
    pub presence: Arc<Presence>,
    /// The key receipts and log checkpoints are signed with.
    pub signer: Signer,
    /// The finished games' audit bundles served last (64), answered again while no database can
    /// be reached.
    pub bundles: Kept<(
        saboteur_verifier::audit::AuditBundle,
        saboteur_storage::Version,
    )>,
    /// The listing's pages served last (32), by query, answered again while no database can be
    /// reached.
    pub pages: Kept<crate::dto::GameList>,
    /// Finished games' analyses (`GET /games/{id}/analysis`), by game, seat and version: the
    /// last 256 asked for, each searched once however many ask (a finished game's record no
    /// longer changes), its JSON once computed.
    pub analyses: Kept<std::sync::Arc<tokio::sync::OnceCell<actix_web::web::Bytes>>>,
    /// The threads the bots' searches run on, shared fairly between the games' makers.
    pub thinkers: crate::app::thinkers::Thinkers,
    /// The threads the audits' replays run on (seconds each for a long game of experts),
    /// shared fairly between the clients asking: apart from the bots', so an audit never holds
    /// a bot's move back.
    pub audits: crate::app::thinkers::Thinkers,
    /// The games whose bots answer a person's command after its reply: the driver plays each
    /// through the seam at once (`Driver::spawn`); the store's bot flag keeps the duty should
    /// this process stop first (the sweep takes it up).
    pub(in crate::app) bots_due: tokio::sync::mpsc::UnboundedSender<saboteur_storage::GameId>,
    /// The experts' moves thought over before their table was taken to play them (the
    /// driver's, so the table answers reads while an expert thinks), by game, version and
    /// head: the last 256.
    pub(in crate::app) thoughts: Kept<saboteur_domain::Command>,
    /// The games whose bots the driver is playing now (each by one task at a time).
    pub(in crate::app) answering:
        std::sync::Mutex<std::collections::HashSet<saboteur_storage::GameId>>,
    /// `true` once the server is told to stop ([`AppState::close_streams`]): the event streams
    /// end at once, so that their clients reconnect (with `Last-Event-ID`) to a process that
    /// goes on, instead of hearing nothing until the shutdown's grace runs out.
    pub closing: tokio::sync::watch::Receiver<bool>,
    closer: tokio::sync::watch::Sender<bool>,
}

/// Returns once the server is told to stop ([`AppState::closing`]).
pub(crate) async fn stopping(closing: &mut tokio::sync::watch::Receiver<bool>) {
    // (The channel closes only with the state, which every stream holds.)
    let _ = closing.wait_for(|stop| *stop).await;
}

/// Where the driver takes the games sent on [`AppState::bots_due`] from.
pub(crate) type BotsQueue = tokio::sync::mpsc::UnboundedReceiver<saboteur_storage::GameId>;

impl AppState {
    /// The shared state of a server on `store`, signing with `signer`, and the queue of the
    /// games its driver plays the bots of (`Driver::spawn`).
    pub(crate) fn new(
        store: EventStore,
        reads: Option<EventStore>,
        config: Config,
        signer: Signer,
    ) -> std::io::Result<(AppState, BotsQueue)> {
        let (bots_due, queue) = tokio::sync::mpsc::unbounded_channel();
        let (closer, closing) = tokio::sync::watch::channel(false);
        let reads = reads.as_ref().map(EventStore::reader);
        let state = AppState {
            closer,
            closing,
            bots_due,
            thoughts: Kept::new(256),
            answering: std::sync::Mutex::default(),
            tables: Arc::new(Tables::new(
                store.reader(),
                reads.clone(),
                config.cache_bytes,
                config.time.clone(),
            )),
            reads,
            store: store.reader(),
            writer: store,
            metrics: Metrics::new()
                .map_err(|e| std::io::Error::other(format!("cannot set up the metrics: {e}")))?,
            presence: Arc::new(Presence::new()),
            signer,
            bundles: Kept::new(64),
            pages: Kept::new(32),
            analyses: Kept::new(256),
            thinkers: crate::app::thinkers::Thinkers::new(config.thinker_threads)?,
            audits: crate::app::thinkers::Thinkers::new(config.thinker_threads)?,
            config,
        };
        Ok((state, queue))
    }

    /// Ends every event stream of this process, now and from now on: the server is stopping.
    pub(crate) fn close_streams(&self) {
        self.closer.send_replace(true);
    }

    /// Reads with `read` from the read-only store, or from the store when the read-only store
    /// cannot be reached or `complete` finds its answer behind the store (a standby that has not
    /// replayed it yet); with no read-only store, from the store. Each answer read is kept in
    /// `kept` for `asked`. While the store cannot be reached (a read found it so within the last
    /// second, or this one does), the answer kept for `asked` is given at once, as stale as it is;
    /// with none kept and a read-only store, the read is tried again for [`READ_PATIENCE`] before
    /// it answers 503.
    pub(crate) async fn reading_or_kept<T, F, Fut>(
        &self,
        kept: &Kept<T>,
        asked: &str,
        read: F,
        complete: impl Fn(&T) -> bool,
    ) -> Result<T, crate::error::ApiError>
    where
        T: Clone,
        F: Fn(ReadStore) -> Fut,
        Fut: std::future::Future<Output = Result<T, crate::error::ApiError>>,
    {
        let (read, complete) = (&read, &complete);
        self.patiently(move || async move {
            if self.tables.store_away()
                && let Some(answer) = kept.get(asked)
            {
                return Ok(answer);
            }
            match self.reading_once(read, complete).await {
                Err(crate::error::ApiError::Unreachable(why)) => {
                    self.tables.note_store_away();
                    kept.get(asked)
                        .ok_or(crate::error::ApiError::Unreachable(why))
                }
                answer => {
                    if let Ok(answer) = &answer {
                        kept.keep(asked, answer);
                    }
                    answer
                }
            }
        })
        .await
    }

    /// Runs the read `read` again while it answers that no database can be reached, for at
    /// most [`READ_PATIENCE`], when the server has a read-only store: a primary that Patroni
    /// demotes restarts read-only and cuts every connection, the standby's through HAProxy's
    /// read port included, for a moment; a read then waits rather than fail. Without a
    /// read-only store the first answer is the answer (a request that needs the database
    /// answers 503 within the pool's wait).
    pub(crate) async fn patiently<T, Fut>(
        &self,
        read: impl Fn() -> Fut,
    ) -> Result<T, crate::error::ApiError>
    where
        Fut: std::future::Future<Output = Result<T, crate::error::ApiError>>,
    {
        let started = std::time::Instant::now();
        loop {
            match read().await {
                Err(crate::error::ApiError::Unreachable(_))
                    if self.reads.is_some() && started.elapsed() < READ_PATIENCE =>
                {
                    tokio::time::sleep(Duration::from_millis(250)).await;
                }
                answer => return answer,
            }
        }
    }

    async fn reading_once<T, F, Fut>(
        &self,
        read: &F,
        complete: &impl Fn(&T) -> bool,
    ) -> Result<T, crate::error::ApiError>
    where
        F: Fn(ReadStore) -> Fut,
        Fut: std::future::Future<Output = Result<T, crate::error::ApiError>>,
    {
        if let Some(reads) = &self.reads {
            match read(reads.clone()).await {
                Ok(answer) if complete(&answer) => return Ok(answer),
                Ok(_) => self
                    .metrics
                    .read_fallbacks
                    .with_label_values(&["behind"])
                    .inc(),
                Err(e) => {
                    tracing::debug!(error = %e, "the read-only store did not answer");
                    self.metrics
                        .read_fallbacks
                        .with_label_values(&["error"])
                        .inc();
                }
            }
        }
        read(self.store.clone()).await
    }

    /// Records this process's streams and reads the other processes' every
    /// [`crate::app::presence::BEAT`], for as long as the server runs.
    pub(crate) fn beat_presence(self: &Arc<Self>) {
        let state = Arc::downgrade(self);
        tokio::spawn(async move {
            let mut beats = tokio::time::interval(crate::app::presence::BEAT);
            beats.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                beats.tick().await;
                let Some(state) = state.upgrade() else { return };
                if let Err(e) = state.presence.beat(&state.writer).await {
                    tracing::debug!(error = %e, "presence not shared this beat");
                }
            }
        });
    }

    /// Follows the store's announcements for as long as the store lives: each tells the tables
    /// which game moved on; a lost stretch makes every table check the store.
    pub(crate) fn follow_store(self: &Arc<Self>) {
        let mut notices = self.store.subscribe();
        let tables = self.tables.clone();
        tokio::spawn(async move {
            use tokio::sync::broadcast::error::RecvError;
            loop {
                match notices.recv().await {
                    Ok(Notice::Appended(a)) => tables.heard(&a.game_id, a.last_seq),
                    Ok(Notice::Resync) | Err(RecvError::Lagged(_)) => {
                        tables.heard_nothing_for_sure()
                    }
                    Err(RecvError::Closed) => return,
                }
            }
        });
    }
}
