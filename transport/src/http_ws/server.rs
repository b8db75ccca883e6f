//! The agent server: session create/attach/revive, callback injection, the shared ordering
//! lock, and forwarding to `inputUrl`. The WebSocket side is in `socket`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use axum::Router;
use axum::body::Body;
use axum::extract::{DefaultBodyLimit, Path, State, WebSocketUpgrade};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use super::clock::Clock;
use super::forward::{ForwardError, Forwarder};
use super::hub::Hub;
use super::limits::Limits;
use super::serve::ServerHandle;
use super::socket;
use super::wire::{ApiError, CreateRequest, Wire, WsError};
use crate::check::{CheckMode, Gate};
use crate::store::external_agents::{LogRole, SessionRecord, SessionStore, StoreError};

/// An agent the server knows. `external` is set for agents of type `external`; the others
/// (type `chat`) get their user messages stored and echoed but not forwarded, since running
/// an in-process model is not this protocol's business.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentEntry {
    pub agent_id: String,
    pub external: Option<ExternalEndpoints>,
}

/// Where an external agent takes input, and the base of the callback URLs handed to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExternalEndpoints {
    pub input_url: String,
    pub callback_base_url: String,
}

/// Everything the agent server is configured with, besides its store.
#[derive(Debug, Clone, Default)]
pub struct AgentServerConfig {
    pub agents: Vec<AgentEntry>,
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
}

/// The agent server of one protocol binding `W`.
pub struct AgentServer<W: Wire> {
    shared: Arc<Shared<W>>,
}

impl<W: Wire> Clone for AgentServer<W> {
    fn clone(&self) -> Self {
        Self {
            shared: self.shared.clone(),
        }
    }
}

impl<W: Wire> std::fmt::Debug for AgentServer<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentServer")
            .field("agents", &self.shared.agents.len())
            .field("limits", &self.shared.limits)
            .field("mode", &self.shared.mode)
            .finish()
    }
}

pub(crate) struct Shared<W: Wire> {
    agents: HashMap<String, AgentEntry>,
    pub(crate) limits: Limits,
    pub(crate) mode: CheckMode,
    store: Arc<dyn SessionStore>,
    core: Mutex<Core<W>>,
    forwarder: Forwarder,
    connections: Arc<Semaphore>,
    pub(crate) shutdown: CancellationToken,
    guard: super::Guard,
    forwards: super::guard::ForwardSlots,
    /// Sequence violations of the server's own output (enforced or not).
    pub(crate) violations: Arc<AtomicU64>,
}

/// State changed under one lock so that the store, the per-session checkers and every
/// broadcast see events in the same order.
pub(crate) struct Core<W: Wire> {
    mode: CheckMode,
    /// The server's own view of each session it has touched: HTTP exchanges and broadcasts
    /// (sent once, whoever is attached). One checker per session because the protocol's
    /// connection machine follows a single session; each is primed as if one connection
    /// were attached, which is what a broadcast assumes.
    checkers: HashMap<String, Gate<W::Checker>>,
    violations: Arc<AtomicU64>,
    clock: Clock,
    generated: u64,
    pub(crate) hub: Hub<W::Outbound>,
}

/// A user message to post to `inputUrl` once the lock is released.
pub(crate) struct ForwardJob<W: Wire> {
    url: String,
    payload: W::Payload,
}

impl<W: Wire> Core<W> {
    fn fresh_gate(&self) -> Gate<W::Checker> {
        Gate::new(self.mode, W::new_checker(64))
    }

    /// The session's checker, primed from the stored record the first time.
    fn gate(&mut self, rec: &SessionRecord) -> &mut Gate<W::Checker> {
        let mode = self.mode;
        self.checkers
            .entry(rec.session_id.clone())
            .or_insert_with(|| {
                let mut g = Gate::new(mode, W::new_checker(64));
                let _ = g.admit(|c| {
                    W::prime(c, &rec.session_id, &rec.agent_id);
                    W::prime_connection(c, &rec.session_id, &rec.agent_id);
                    Ok(())
                });
                g
            })
    }

    /// Feeds an outbound message the server already committed to; a violation here is a
    /// server bug, reported loudly (and counted) but not undoable.
    fn note_out(&mut self, rec: &SessionRecord, msg: &W::Outbound) {
        let violations = self.violations.clone();
        if let Err(v) = self.gate(rec).admit(|c| W::observe_out(c, msg)) {
            violations.fetch_add(1, Ordering::Relaxed);
            tracing::error!(violation = %v, "agent server broke the protocol's sequence rules");
        }
    }
}

fn json(status: StatusCode, body: String) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

fn api<W: Wire>(status: StatusCode, code: ApiError, message: &str) -> Response {
    json(status, W::api_error(code, message))
}

fn internal(e: &ServerError) -> Response {
    tracing::error!(error = %e, "agent server failure");
    (StatusCode::INTERNAL_SERVER_ERROR, "internal error").into_response()
}

impl<W: Wire> AgentServer<W> {
    pub fn new(config: AgentServerConfig, store: Arc<dyn SessionStore>) -> Self {
        let limits = config.limits;
        let violations = Arc::new(AtomicU64::new(0));
        let core = Core {
            mode: config.mode,
            checkers: HashMap::new(),
            violations: violations.clone(),
            clock: Clock::new(),
            generated: 0,
            hub: Hub::new(),
        };
        let shared = Shared {
            agents: config
                .agents
                .into_iter()
                .map(|a| (a.agent_id.clone(), a))
                .collect(),
            limits,
            mode: config.mode,
            store,
            core: Mutex::new(core),
            forwarder: Forwarder::new(limits.forward_timeout),
            connections: Arc::new(Semaphore::new(limits.max_connections)),
            shutdown: CancellationToken::new(),
            forwards: super::guard::ForwardSlots::new(&config.guard),
            guard: config.guard,
            violations,
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

    /// The three endpoints of the protocol, ready to merge into a bigger router.
    pub fn router(&self) -> Router {
        let router = Router::new()
            .route("/api/plugins/sessions/operations/create", post(create::<W>))
            .route(
                "/external/sessions/{session_id}/messages",
                post(inject::<W>),
            )
            .route("/ws", get(ws::<W>))
            // Bodies are read with our own limit so an oversized one gets the protocol's 413.
            .layer(DefaultBodyLimit::disable())
            .with_state(self.shared.clone());
        super::guard::wrap(
            router,
            &self.shared.guard,
            self.shared.limits.max_body_bytes,
        )
    }

    /// Serves on `listener` until the returned handle is shut down; shutdown also closes
    /// every WebSocket with 1001 (going away).
    pub fn serve(&self, listener: TcpListener) -> std::io::Result<ServerHandle> {
        let shutdown = self.shared.shutdown.clone();
        super::serve::serve_router_guarded(listener, self.router(), shutdown, &self.shared.guard)
    }
}

impl<W: Wire> Shared<W> {
    pub(crate) fn lock(&self) -> Result<MutexGuard<'_, Core<W>>, ServerError> {
        self.core.lock().map_err(|_| ServerError::Poisoned)
    }

    /// The live session a hello names, or `None` when it is unknown or deleted.
    pub(crate) fn live_session(
        &self,
        session_id: &str,
    ) -> Result<Option<SessionRecord>, ServerError> {
        Ok(self.store.session(session_id)?.filter(|r| !r.deleted))
    }

    fn create(&self, req: CreateRequest) -> Result<Response, ServerError> {
        let mut core = self.lock()?;
        let session_id = match req.session_id {
            Some(id) => id,
            None => {
                core.generated += 1;
                super::guard::random_session_id()
            }
        };
        if !self.agents.contains_key(&req.agent_id) {
            // No session comes of it: checked on a throwaway checker, not remembered.
            let _ = core
                .fresh_gate()
                .admit(|c| W::observe_create(c, &req.agent_id, &session_id, 404));
            return Ok(api::<W>(
                StatusCode::NOT_FOUND,
                ApiError::AgentNotFound,
                &format!("no agent has the id {:?}", req.agent_id),
            ));
        }
        let existing = self.store.session(&session_id)?;
        let (status, record) = match existing {
            Some(rec) if rec.agent_id != req.agent_id => {
                let _ = core
                    .gate(&rec)
                    .admit(|c| W::observe_create(c, &req.agent_id, &session_id, 409));
                return Ok(api::<W>(
                    StatusCode::CONFLICT,
                    ApiError::SessionAgentMismatch,
                    &format!("session {session_id:?} belongs to another agent"),
                ));
            }
            Some(rec) => (StatusCode::OK, rec),
            None => {
                let created_at = core.clock.now();
                let rec = SessionRecord {
                    session_id: session_id.clone(),
                    agent_id: req.agent_id.clone(),
                    deleted: true,
                    created_at,
                };
                (StatusCode::CREATED, rec)
            }
        };
        // `deleted` here means "not live yet": a new session or one to revive.
        if record.deleted && self.store.live_sessions()? >= self.limits.max_sessions {
            return Ok(api::<W>(
                StatusCode::SERVICE_UNAVAILABLE,
                ApiError::InvalidRequest,
                "the server holds its maximum number of live sessions",
            ));
        }
        let observe =
            |c: &mut W::Checker| W::observe_create(c, &req.agent_id, &session_id, status.as_u16());
        let checked = if status == StatusCode::CREATED {
            let mut gate = core.fresh_gate();
            let r = gate.admit(observe);
            if r.is_ok() {
                let _ = gate.admit(|c| {
                    W::prime_connection(c, &session_id, &req.agent_id);
                    Ok(())
                });
                core.checkers.insert(session_id.clone(), gate);
            }
            r
        } else {
            core.gate(&record).admit(observe)
        };
        if let Err(v) = checked {
            return Ok(api::<W>(
                StatusCode::BAD_REQUEST,
                ApiError::InvalidRequest,
                &format!("refused by the sequence checker: {v}"),
            ));
        }
        if record.deleted {
            self.store.put_session(&SessionRecord {
                deleted: false,
                ..record.clone()
            })?;
        }
        Ok(json(
            status,
            W::create_reply(&record.session_id, &record.agent_id, &record.created_at),
        ))
    }

    fn inject(&self, session_id: &str, text: &str) -> Result<Response, ServerError> {
        let mut core = self.lock()?;
        let rec = self.store.session(session_id)?;
        let Some(rec) = rec.filter(|r| !r.deleted) else {
            let _ = core
                .fresh_gate()
                .admit(|c| W::observe_inject(c, session_id, text, 404));
            return Ok(api::<W>(
                StatusCode::NOT_FOUND,
                ApiError::SessionNotFound,
                &format!("no live session has the id {session_id:?}"),
            ));
        };
        if let Err(v) = core
            .gate(&rec)
            .admit(|c| W::observe_inject(c, session_id, text, 200))
        {
            return Ok(api::<W>(
                StatusCode::BAD_REQUEST,
                ApiError::InvalidRequest,
                &format!("refused by the sequence checker: {v}"),
            ));
        }
        let created_at = core.clock.now();
        self.store
            .append(&rec.session_id, LogRole::Assistant, text, &created_at)?;
        let msg = W::chat_message(&rec.session_id, LogRole::Assistant, text, &created_at);
        core.note_out(&rec, &msg);
        core.hub.broadcast(&rec.session_id, &msg);
        Ok(json(StatusCode::OK, W::ok_reply()))
    }

    /// Stores and broadcasts a user message; returns the forward to make, if the session's
    /// agent is external.
    pub(crate) fn user_message(
        &self,
        rec: &SessionRecord,
        text: &str,
    ) -> Result<Result<Option<ForwardJob<W>>, WsError>, ServerError> {
        let mut core = self.lock()?;
        let Some(live) = self.live_session(&rec.session_id)? else {
            return Ok(Err(WsError::SessionNotFound));
        };
        let created_at = core.clock.now();
        self.store
            .append(&live.session_id, LogRole::User, text, &created_at)?;
        let msg = W::chat_message(&live.session_id, LogRole::User, text, &created_at);
        core.note_out(&live, &msg);
        core.hub.broadcast(&live.session_id, &msg);
        let job = self
            .agents
            .get(&live.agent_id)
            .and_then(|a| a.external.as_ref())
            .map(|ext| {
                let callback = format!(
                    "{}/external/sessions/{}/messages",
                    ext.callback_base_url.trim_end_matches('/'),
                    live.session_id
                );
                ForwardJob {
                    url: ext.input_url.clone(),
                    payload: W::payload(
                        &live.session_id,
                        &live.agent_id,
                        &callback,
                        text,
                        &created_at,
                    ),
                }
            });
        Ok(Ok(job))
    }

    /// Posts one user message to `inputUrl`; a failure becomes an error line of the session.
    pub(crate) async fn forward(self: Arc<Self>, rec: SessionRecord, job: ForwardJob<W>) {
        // A shutdown cuts a forward short: it is recorded as failed now rather than left to
        // land in the store after the server is gone.
        let result = match self.forwards.try_start(&rec.session_id) {
            // Shed: recorded as a failed forward (an error line), no connection opened.
            Err(shed) => Err(ForwardError::Unreachable(shed.to_string())),
            Ok(_slot) => tokio::select! {
                r = self.forwarder.post_json(&job.url, W::encode_payload(&job.payload)) => r,
                () = self.shutdown.cancelled() => {
                    Err(ForwardError::Unreachable("the agent server shut down first".into()))
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
                .gate(&rec)
                .admit(|c| W::observe_forward(c, &job.payload, status))
            {
                self.violations.fetch_add(1, Ordering::Relaxed);
                tracing::error!(violation = %v, "forward broke the protocol's sequence rules");
            }
            if let Err(e) = &result {
                tracing::warn!(session_id, error = %e, "forward to inputUrl failed");
                let text = format!("Forwarding to the external agent failed: {e}");
                let created_at = core.clock.now();
                self.store
                    .append(session_id, LogRole::Error, &text, &created_at)?;
                let msg = W::chat_message(session_id, LogRole::Error, &text, &created_at);
                core.note_out(&rec, &msg);
                core.hub.broadcast(session_id, &msg);
            }
            Ok(())
        })();
        if let Err(e) = outcome {
            tracing::error!(session_id, error = %e, "could not record a forward's outcome");
        }
    }
}

/// Reads a request body as text: 413 past the size limit, 400 when it is not UTF-8.
async fn read_text<W: Wire>(limits: &Limits, body: Body) -> Result<String, Response> {
    let bytes = axum::body::to_bytes(body, limits.max_body_bytes)
        .await
        .map_err(|_| {
            api::<W>(
                StatusCode::PAYLOAD_TOO_LARGE,
                ApiError::PayloadTooLarge,
                &format!(
                    "the body exceeds {} bytes (or was cut off)",
                    limits.max_body_bytes
                ),
            )
        })?;
    String::from_utf8(bytes.into()).map_err(|_| {
        api::<W>(
            StatusCode::BAD_REQUEST,
            ApiError::InvalidRequest,
            "the body is not UTF-8",
        )
    })
}

async fn create<W: Wire>(State(s): State<Arc<Shared<W>>>, body: Body) -> Response {
    let text = match read_text::<W>(&s.limits, body).await {
        Ok(t) => t,
        Err(r) => return r,
    };
    let req = match W::decode_create(&text) {
        Ok(r) => r,
        Err(inv) => {
            let code = if inv
                .errors
                .iter()
                .any(|e| e.pointer.starts_with("/sessionId"))
            {
                ApiError::InvalidSessionId
            } else {
                ApiError::InvalidRequest
            };
            return api::<W>(StatusCode::BAD_REQUEST, code, &inv.to_string());
        }
    };
    s.create(req).unwrap_or_else(|e| internal(&e))
}

async fn inject<W: Wire>(
    State(s): State<Arc<Shared<W>>>,
    raw_id: Result<Path<String>, axum::extract::rejection::PathRejection>,
    body: Body,
) -> Response {
    // A segment that does not percent-decode to UTF-8 is a bad id too, answered in the
    // protocol's error form rather than axum's plain-text rejection.
    let Ok(Path(raw_id)) = raw_id else {
        return api::<W>(
            StatusCode::BAD_REQUEST,
            ApiError::InvalidSessionId,
            "the session id in the path is not valid percent-encoded UTF-8",
        );
    };
    let session_id = match W::session_id(&raw_id) {
        Ok(id) => id,
        Err(inv) => {
            return api::<W>(
                StatusCode::BAD_REQUEST,
                ApiError::InvalidSessionId,
                &inv.to_string(),
            );
        }
    };
    let text = match read_text::<W>(&s.limits, body).await {
        Ok(t) => t,
        Err(r) => return r,
    };
    if text.trim().is_empty() {
        return api::<W>(
            StatusCode::BAD_REQUEST,
            ApiError::EmptyMessage,
            "the message is blank",
        );
    }
    s.inject(&session_id, &text)
        .unwrap_or_else(|e| internal(&e))
}

async fn ws<W: Wire>(State(s): State<Arc<Shared<W>>>, upgrade: WebSocketUpgrade) -> Response {
    if s.shutdown.is_cancelled() {
        return (StatusCode::SERVICE_UNAVAILABLE, "shutting down").into_response();
    }
    let Ok(permit) = s.connections.clone().try_acquire_owned() else {
        return (StatusCode::SERVICE_UNAVAILABLE, "too many connections").into_response();
    };
    let hard_cap = s.limits.max_frame_bytes.saturating_mul(4);
    upgrade
        .max_message_size(hard_cap)
        .max_frame_size(hard_cap)
        .on_upgrade(move |socket| socket::run(s, socket, permit))
}
