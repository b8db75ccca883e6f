//! The session server: create/attach/revive, callbacks, the shared ordering lock, and
//! forwarding input to the owner's URL. The HTTP handlers are in `routes`, the WebSocket
//! side in `socket`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::get;
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use super::clock::Clock;
use super::engine::{Engine, get_path};
use super::expiry::Shares;
use super::forward::{ForwardError, Forwarder};
use super::hub::Hub;
use super::layout::{ApiError, Binding, LogRole, WsError};
use super::limits::Limits;
use super::relay::Relay;
use super::routes::{self, api, json};
use super::serve::ServerHandle;
use crate::budget::{ClientKey, Exhausted};
use crate::check::{CheckMode, Gate};
use crate::store::sessions::{SessionRecord, SessionStore};
use crate::store::{FeedEvent, LogFeed, StoreError};

/// An owner the server knows (an agent, say). `forward` is set for owners whose input is
/// posted elsewhere; the others get their input stored and echoed only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Owner {
    pub id: String,
    pub forward: Option<Endpoints>,
}

/// Where an owner takes input, and the base of the callback URLs handed to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoints {
    pub url: String,
    pub callback_base: String,
}

impl Owner {
    /// Reads an owner definition (the protocol's config type, as JSON) through the
    /// layout's paths; `None` without an id.
    pub fn from_config<B: Binding>(config: &Value) -> Option<Self> {
        let l = B::LAYOUT;
        let text = |path| {
            get_path(config, path)
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        let forward = match (text(l.owner_forward_url), text(l.owner_callback_base)) {
            (Some(url), Some(callback_base)) => Some(Endpoints { url, callback_base }),
            _ => None,
        };
        Some(Self {
            id: text(l.owner_id)?,
            forward,
        })
    }
}

/// Everything the server is configured with, besides its store.
#[derive(Debug, Clone, Default)]
pub struct ServerConfig {
    pub owners: Vec<Owner>,
    pub limits: Limits,
    pub mode: CheckMode,
    /// Timeouts, forward caps and the optional shared token ([`super::Guard`]).
    pub guard: super::Guard,
}

/// A failure inside the server (not the client's fault).
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("the server's ordering lock was poisoned by a panic elsewhere")]
    Poisoned,
    #[error("the server built a message its protocol refuses: {0}")]
    Build(#[from] agentwire_runtime::Invalid),
    /// No session id could be generated: the create is answered 500, never with a
    /// guessable id.
    #[error("the operating system's random generator failed: {0}")]
    Random(#[from] getrandom::Error),
}

/// The session server of one protocol binding `B`.
pub struct SessionServer<B: Binding> {
    shared: Arc<Shared<B>>,
}

impl<B: Binding> Clone for SessionServer<B> {
    fn clone(&self) -> Self {
        Self {
            shared: self.shared.clone(),
        }
    }
}

impl<B: Binding> std::fmt::Debug for SessionServer<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionServer")
            .field("owners", &self.shared.owners.len())
            .field("limits", &self.shared.limits)
            .field("mode", &self.shared.mode)
            .finish()
    }
}

pub(crate) struct Shared<B: Binding> {
    owners: HashMap<String, Owner>,
    pub(crate) engine: Engine<B>,
    pub(crate) limits: Limits,
    pub(crate) mode: CheckMode,
    pub(crate) store: Arc<dyn SessionStore>,
    core: Mutex<Core<B>>,
    forwarder: Forwarder,
    pub(crate) connections: Arc<Semaphore>,
    /// Each client's share of the WebSocket connections.
    pub(crate) connection_shares: crate::budget::Budget,
    pub(crate) shutdown: CancellationToken,
    guard: super::Guard,
    forwards: super::guard::ForwardSlots,
    /// Sequence violations of the server's own output (enforced or not).
    pub(crate) violations: Arc<AtomicU64>,
    /// The store's feed of other instances' appends, until `serve` starts relaying it.
    feed: Mutex<Option<LogFeed>>,
}

/// State changed under one lock so that the store, the per-session checkers and every
/// broadcast see events in the same order.
pub(crate) struct Core<B: Binding> {
    mode: CheckMode,
    /// The server's own view of each session it has touched: HTTP exchanges and broadcasts
    /// (sent once, whoever is attached). One checker per session, primed as if one
    /// connection were attached, which is what a broadcast assumes.
    checkers: HashMap<String, Gate<B::Checker>>,
    violations: Arc<AtomicU64>,
    clock: Clock,
    pub(crate) hub: Hub<Value>,
    /// Set for a store several instances share: broadcasts then follow the store's order
    /// (see `relay`); without it they go straight to the hub.
    pub(crate) relay: Option<Relay>,
    /// Each client's share of the live sessions, held by the sessions created here.
    shares: Shares,
}

/// An input to post to the owner's URL once the lock is released.
pub(crate) struct ForwardJob {
    url: String,
    payload: Value,
}

impl<B: Binding> Core<B> {
    /// Drops what the server keeps for a session that is no longer live (it expired).
    pub(crate) fn forget(&mut self, session_id: &str) {
        self.checkers.remove(session_id);
        self.shares.release(session_id);
    }

    fn fresh_gate(&self) -> Gate<B::Checker> {
        Gate::new(self.mode, B::new_checker(64))
    }

    /// The session's checker, primed from the stored record the first time.
    fn gate(&mut self, engine: &Engine<B>, rec: &SessionRecord) -> &mut Gate<B::Checker> {
        let mode = self.mode;
        self.checkers
            .entry(rec.session_id.clone())
            .or_insert_with(|| {
                let mut g = Gate::new(mode, B::new_checker(64));
                let _ = g.admit(|c| {
                    Engine::<B>::prime(c, &rec.session_id, &rec.owner);
                    engine.prime_connection(c, &rec.session_id, &rec.owner);
                    Ok(())
                });
                g
            })
    }

    /// Feeds an outbound message the server already committed to; a violation here is a
    /// server bug, reported loudly (and counted) but not undoable.
    fn note_out(&mut self, engine: &Engine<B>, rec: &SessionRecord, msg: &Value) {
        let violations = self.violations.clone();
        if let Err(v) = self
            .gate(engine, rec)
            .admit(|c| Engine::<B>::observe_out(c, msg))
        {
            violations.fetch_add(1, Ordering::Relaxed);
            tracing::error!(violation = %v, "server broke the protocol's sequence rules");
        }
    }
}

impl<B: Binding> SessionServer<B> {
    pub fn new(config: ServerConfig, store: Arc<dyn SessionStore>) -> Self {
        let limits = config.limits;
        let violations = Arc::new(AtomicU64::new(0));
        let mut core = Core {
            mode: config.mode,
            checkers: HashMap::new(),
            violations: violations.clone(),
            clock: Clock::new(),
            hub: Hub::new(),
            relay: None,
            shares: Shares::new(limits.max_sessions_per_client),
        };
        let feed = store.feed();
        if feed.is_some() {
            core.relay = Some(Relay::default());
        }
        let shared = Shared {
            owners: config
                .owners
                .into_iter()
                .map(|o| (o.id.clone(), o))
                .collect(),
            engine: Engine::new(),
            limits,
            mode: config.mode,
            store,
            core: Mutex::new(core),
            forwarder: Forwarder::new(limits.forward_timeout),
            connections: Arc::new(Semaphore::new(limits.max_connections)),
            connection_shares: crate::budget::Budget::new(
                usize::MAX,
                limits.max_connections_per_client,
            ),
            shutdown: CancellationToken::new(),
            forwards: super::guard::ForwardSlots::new(&config.guard),
            guard: config.guard,
            violations,
            feed: Mutex::new(feed),
        };
        Self {
            shared: Arc::new(shared),
        }
    }

    /// In enforce mode, how many times the server's own output broke the protocol's
    /// sequence rules (0 unless the store was changed behind its back, or a bug); warn mode
    /// logs them instead, off mode does not look.
    pub fn violations(&self) -> u64 {
        self.shared.violations.load(Ordering::Relaxed)
    }

    /// The store the server writes to.
    pub fn store(&self) -> Arc<dyn SessionStore> {
        self.shared.store.clone()
    }

    /// The create and callback routes and the WebSocket, ready to merge into a bigger
    /// router. Its address unknown, the origin policy's defaults check it as a server bound
    /// to loopback.
    pub fn router(&self) -> Router {
        self.router_at(None)
    }

    /// The router of a server bound at `addr`: every route behind the origin policy.
    fn router_at(&self, addr: Option<std::net::SocketAddr>) -> Router {
        let l = B::LAYOUT;
        // A shared token (off by default) protects every route: the create, which adds state,
        // as much as the callback and the WebSocket.
        let guarded = Router::new()
            .route(
                &routes::axum_path(l.create.path),
                routes::method_router(l.create.method, routes::create::<B>),
            )
            .route(
                &routes::axum_path(l.callback.path),
                routes::method_router(l.callback.method, routes::callback::<B>),
            )
            .route(l.websocket, get(routes::ws::<B>));
        let shared = self.shared.clone();
        let unauthorized: super::guard::Unauthorized = Arc::new(move || {
            let m = "a valid token is required";
            shared.api(StatusCode::UNAUTHORIZED, ApiError::InvalidRequest, m)
        });
        let guarded = super::guard::with_token(guarded, &self.shared.guard, unauthorized);
        let router = guarded
            // Bodies are read with our own limit so an oversized one gets the protocol's 413.
            .layer(DefaultBodyLimit::disable())
            .with_state(self.shared.clone());
        let max_body = self.shared.limits.max_body_bytes;
        let router = super::guard::wrap_bodies(router, &self.shared.guard, max_body);
        let shared = self.shared.clone();
        let refuse: crate::origin::Refuse =
            Arc::new(move |rule| shared.api(StatusCode::FORBIDDEN, ApiError::InvalidRequest, rule));
        self.shared.guard.sites(addr).layer(router, refuse)
    }

    /// Serves on `listener` until the returned handle is shut down; shutdown also closes
    /// every WebSocket with 1001 (going away).
    pub fn serve(&self, listener: TcpListener) -> std::io::Result<ServerHandle> {
        let shutdown = self.shared.shutdown.clone();
        let feed = self.shared.feed.lock().ok().and_then(|mut f| f.take());
        if let Some(feed) = feed {
            tokio::spawn(relay_feed(self.shared.clone(), feed));
        }
        tokio::spawn(super::expiry::sweep(Arc::downgrade(&self.shared)));
        let router = self.router_at(Some(listener.local_addr()?));
        super::serve::serve_router_checked(listener, router, shutdown, &self.shared.guard)
    }
}

impl<B: Binding> Shared<B> {
    pub(crate) fn lock(&self) -> Result<MutexGuard<'_, Core<B>>, ServerError> {
        self.core.lock().map_err(|_| ServerError::Poisoned)
    }

    /// The live session a hello names, or `None` when it is unknown or deleted.
    pub(crate) fn live_session(
        &self,
        session_id: &str,
    ) -> Result<Option<SessionRecord>, ServerError> {
        Ok(self.store.session(session_id)?.filter(|r| !r.deleted))
    }

    pub(crate) fn api(&self, status: StatusCode, code: ApiError, message: &str) -> Response {
        api(&self.engine, status, code, message)
    }

    /// Creates, attaches to or revives a session (`session` already trimmed and valid) for
    /// `client` (`None`: its address is unknown).
    pub(crate) fn create(
        &self,
        owner: &str,
        session: Option<String>,
        client: Option<ClientKey>,
    ) -> Result<Response, ServerError> {
        let mut core = self.lock()?;
        // Generated ids are random (128 bits): a callback needs only the id, so it must not
        // be guessable.
        let session_id = match session {
            Some(id) => id,
            None => super::guard::random_session_id()?,
        };
        if !self.owners.contains_key(owner) {
            // No session comes of it: checked on a throwaway checker, not remembered.
            let _ = core
                .fresh_gate()
                .admit(|c| Engine::<B>::observe_create(c, owner, &session_id, 404));
            let m = format!("no owner has the id {owner:?}");
            return Ok(self.api(StatusCode::NOT_FOUND, ApiError::OwnerNotFound, &m));
        }
        // Another instance on the same store may create or revive the id between this
        // read and this write: the store's atomic insert/revive says who won, and the loser
        // reads again (and then attaches, or gets 409).
        for _ in 0..CREATE_ATTEMPTS {
            if let Some(reply) = self.try_create(&mut core, owner, &session_id, client)? {
                return Ok(reply);
            }
        }
        let m = "the session kept changing under concurrent creates; try again";
        Ok(self.api(StatusCode::SERVICE_UNAVAILABLE, ApiError::InvalidRequest, m))
    }

    /// One attempt at [`Shared::create`]; `None` when another instance won a race for the
    /// id in the meantime.
    fn try_create(
        &self,
        core: &mut Core<B>,
        owner: &str,
        session_id: &str,
        client: Option<ClientKey>,
    ) -> Result<Option<Response>, ServerError> {
        let (status, record) = match self.store.session(session_id)? {
            Some(rec) if rec.owner != owner => {
                let _ = core
                    .gate(&self.engine, &rec)
                    .admit(|c| Engine::<B>::observe_create(c, owner, session_id, 409));
                let m = format!("session {session_id:?} belongs to another owner");
                let reply = self.api(StatusCode::CONFLICT, ApiError::SessionOwnerMismatch, &m);
                return Ok(Some(reply));
            }
            Some(rec) => (StatusCode::OK, rec),
            None => {
                let created_at = core.clock.now();
                let rec = SessionRecord {
                    session_id: session_id.to_owned(),
                    owner: owner.to_owned(),
                    deleted: true,
                    created_at,
                };
                (StatusCode::CREATED, rec)
            }
        };
        // `deleted` here means "not live yet": a new session or one to revive, which takes
        // a share of the client's and a place under the cap.
        let lease = if record.deleted {
            match self.make_room(core, client)? {
                Ok(lease) => Some(lease),
                Err(reply) => return Ok(Some(reply)),
            }
        } else {
            None
        };
        let fresh = match self.check_create(core, &record, status) {
            Ok(fresh) => fresh,
            Err(v) => {
                let m = format!("refused by the sequence checker: {v}");
                let reply = self.api(StatusCode::BAD_REQUEST, ApiError::InvalidRequest, &m);
                return Ok(Some(reply));
            }
        };
        if record.deleted {
            let won = if status == StatusCode::CREATED {
                self.store.insert_new(&SessionRecord {
                    deleted: false,
                    ..record.clone()
                })?
            } else {
                self.store.revive(session_id, owner)?
            };
            if !won {
                return Ok(None);
            }
        }
        if let Some(gate) = fresh {
            core.checkers.insert(session_id.to_owned(), gate);
        }
        if let Some(lease) = lease {
            core.shares.hold(session_id, lease);
        }
        let reply =
            self.engine
                .create_reply(&record.session_id, &record.owner, &record.created_at)?;
        Ok(Some(json(status, &reply)))
    }

    /// A share of `client`'s and a place under the cap for one more live session (idle
    /// sessions are expired first when the store is full), or the refusal: 429 past the
    /// client's share, 503 past the cap.
    fn make_room(
        &self,
        core: &mut Core<B>,
        client: Option<ClientKey>,
    ) -> Result<Result<crate::budget::Lease, Response>, ServerError> {
        let lease = match core.shares.take(client) {
            Ok(lease) => lease,
            Err(Exhausted::Client(n)) | Err(Exhausted::Total(n)) => {
                let m = format!("this client already has {n} live sessions");
                let reply = self.api(StatusCode::TOO_MANY_REQUESTS, ApiError::InvalidRequest, &m);
                return Ok(Err(reply));
            }
        };
        let max = self.limits.max_sessions;
        if self.store.live_sessions()? >= max
            && (self.expire_idle(core)? == 0 || self.store.live_sessions()? >= max)
        {
            let m = "the server holds its maximum number of live sessions";
            let reply = self.api(StatusCode::SERVICE_UNAVAILABLE, ApiError::InvalidRequest, m);
            return Ok(Err(reply));
        }
        Ok(Ok(lease))
    }

    /// Runs a successful create answer through the session's checker; a new session gets
    /// a fresh checker, returned to be kept once the session is stored.
    fn check_create(
        &self,
        core: &mut Core<B>,
        record: &SessionRecord,
        status: StatusCode,
    ) -> Result<Option<Gate<B::Checker>>, agentwire_runtime::machine::Violation> {
        let (owner, session) = (&record.owner, &record.session_id);
        let observe =
            |c: &mut B::Checker| Engine::<B>::observe_create(c, owner, session, status.as_u16());
        if status != StatusCode::CREATED {
            return core
                .gate(&self.engine, record)
                .admit(observe)
                .map(|()| None);
        }
        let mut gate = core.fresh_gate();
        gate.admit(observe)?;
        let _ = gate.admit(|c| {
            self.engine.prime_connection(c, session, owner);
            Ok(())
        });
        Ok(Some(gate))
    }

    /// Appends a callback's text as a reply and broadcasts it.
    pub(crate) fn callback(&self, session_id: &str, text: &str) -> Result<Response, ServerError> {
        let mut core = self.lock()?;
        let Some(rec) = self.live_session(session_id)? else {
            let _ = core
                .fresh_gate()
                .admit(|c| Engine::<B>::observe_callback(c, session_id, text, 404));
            let m = format!("no live session has the id {session_id:?}");
            return Ok(self.api(StatusCode::NOT_FOUND, ApiError::SessionNotFound, &m));
        };
        if let Err(v) = core
            .gate(&self.engine, &rec)
            .admit(|c| Engine::<B>::observe_callback(c, session_id, text, 200))
        {
            let m = format!("refused by the sequence checker: {v}");
            return Ok(self.api(StatusCode::BAD_REQUEST, ApiError::InvalidRequest, &m));
        }
        self.append(&mut core, &rec, LogRole::Assistant, text)?;
        Ok(json(StatusCode::OK, &self.engine.callback_reply()?))
    }

    /// Stores, checks and broadcasts one conversation entry; returns its time.
    fn append(
        &self,
        core: &mut Core<B>,
        rec: &SessionRecord,
        role: LogRole,
        text: &str,
    ) -> Result<String, ServerError> {
        let created_at = core.clock.now();
        let msg = self
            .engine
            .broadcast(&rec.session_id, role.word(), text, &created_at)?;
        let seq = self.store.append(&rec.session_id, &msg)?;
        core.note_out(&self.engine, rec, &msg);
        let Core { hub, relay, .. } = core;
        match relay {
            Some(relay) => relay.appended_here(&*self.store, hub, &rec.session_id, seq, &msg)?,
            None => {
                hub.broadcast(&rec.session_id, &msg);
            }
        }
        Ok(created_at)
    }

    /// Stores and broadcasts a user input; returns the forward to make, if the session's
    /// owner takes input elsewhere.
    pub(crate) fn input(
        &self,
        rec: &SessionRecord,
        text: &str,
    ) -> Result<Result<Option<ForwardJob>, WsError>, ServerError> {
        let mut core = self.lock()?;
        let Some(live) = self.live_session(&rec.session_id)? else {
            return Ok(Err(WsError::SessionNotFound));
        };
        let created_at = self.append(&mut core, &live, LogRole::User, text)?;
        let Some(ext) = self
            .owners
            .get(&live.owner)
            .and_then(|o| o.forward.as_ref())
        else {
            return Ok(Ok(None));
        };
        let callback = self
            .engine
            .callback_url(&ext.callback_base, &live.session_id);
        let payload =
            self.engine
                .payload(&live.session_id, &live.owner, &callback, text, &created_at)?;
        Ok(Ok(Some(ForwardJob {
            url: ext.url.clone(),
            payload,
        })))
    }

    /// Posts one input to the owner's URL; a failure becomes an error entry of the session.
    pub(crate) async fn forward(self: Arc<Self>, rec: SessionRecord, job: ForwardJob) {
        // A shutdown cuts a forward short: it is recorded as failed now rather than left to
        // land in the store after the server is gone.
        let method = B::LAYOUT.forward.method;
        let result = match self.forwards.try_start(&rec.session_id) {
            // Shed: recorded as a failed forward (an error line), no connection opened.
            Err(shed) => Err(ForwardError::Unreachable(shed.to_string())),
            Ok(_slot) => tokio::select! {
                r = self.forwarder.send_json(method, &job.url, job.payload.to_string()) => r,
                () = self.shutdown.cancelled() => {
                    Err(ForwardError::Unreachable("the server shut down first".into()))
                }
            },
        };
        let status = match &result {
            Ok(s) => Some(*s),
            Err(e) => e.status(),
        };
        let session_id = rec.session_id.as_str();
        let outcome = (|| -> Result<(), ServerError> {
            let mut core = self.lock()?;
            if let Err(v) = core
                .gate(&self.engine, &rec)
                .admit(|c| Engine::<B>::observe_forward(c, &job.payload, status))
            {
                self.violations.fetch_add(1, Ordering::Relaxed);
                tracing::error!(violation = %v, "forward broke the protocol's sequence rules");
            }
            if let Err(e) = &result {
                crate::warn_throttled!(session_id, error = %e, "forward failed");
                let text = format!("Forwarding failed: {e}");
                self.append(&mut core, &rec, LogRole::Error, &text)?;
            }
            Ok(())
        })();
        if let Err(e) = outcome {
            tracing::error!(session_id, error = %e, "could not record a forward's outcome");
        }
    }
}

/// How many times a create reads again after losing a race to another instance.
const CREATE_ATTEMPTS: usize = 4;

impl<B: Binding> Shared<B> {
    /// Attaches a connection's queue to a session's broadcasts; returns the subscriber id.
    pub(crate) fn attach(
        &self,
        session_id: &str,
        tx: tokio::sync::mpsc::Sender<Value>,
    ) -> Result<u64, ServerError> {
        let mut core = self.lock()?;
        let Core { hub, relay, .. } = &mut *core;
        if let Some(relay) = relay {
            relay.follow(&*self.store, session_id)?;
        }
        Ok(hub.attach(session_id, tx))
    }

    /// Detaches a subscriber (and stops relaying a session nobody here follows).
    pub(crate) fn detach(&self, session_id: &str, id: u64) {
        if let Ok(mut core) = self.lock() {
            let Core { hub, relay, .. } = &mut *core;
            hub.detach(session_id, id);
            if let Some(relay) = relay {
                relay.unfollow_idle(hub, session_id);
            }
        }
    }

    /// Relays one feed event to the local connections.
    fn on_feed(&self, event: FeedEvent) -> Result<(), ServerError> {
        let mut core = self.lock()?;
        let Core { hub, relay, .. } = &mut *core;
        let Some(relay) = relay else {
            return Ok(());
        };
        let store = &*self.store;
        match event {
            FeedEvent::Appended { session_id, seq } => {
                relay.appended_elsewhere(store, hub, &session_id, seq)?;
            }
            FeedEvent::Resync => relay.resync(store, hub)?,
        }
        Ok(())
    }
}

/// Relays the store's feed (other instances' appends) until shutdown.
async fn relay_feed<B: Binding>(shared: Arc<Shared<B>>, mut feed: LogFeed) {
    loop {
        let event = tokio::select! {
            () = shared.shutdown.cancelled() => return,
            event = feed.next() => event,
        };
        let Some(event) = event else { return };
        if let Err(e) = shared.on_feed(event) {
            tracing::error!(error = %e, "could not relay another instance's entries");
        }
    }
}

impl<B: Binding> Shared<B> {
    /// Reports a server failure in the API's own error body: 503 when the store cannot
    /// answer (a database that is down or unreachable: the client may try again later),
    /// 500 for anything else.
    pub(crate) fn or_failure(&self, r: Result<Response, ServerError>) -> Response {
        r.unwrap_or_else(|e| {
            crate::error_throttled!(error = %e, "session server failure");
            let (status, m) = match e {
                ServerError::Store(_) => (
                    StatusCode::SERVICE_UNAVAILABLE,
                    "the session store is unavailable; try again later",
                ),
                _ => (StatusCode::INTERNAL_SERVER_ERROR, "internal error"),
            };
            self.api(status, ApiError::InvalidRequest, m)
        })
    }
}
