//! Live sessions: creation with an unguessable id, lookup, idle expiry, and the routing task
//! that sends each of the engine's messages to the right stream (the POST of the request it
//! answers or relates to, else the GET stream).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use agentwire_runtime::jsonrpc::RequestId;
use tokio::sync::mpsc;
use tokio::task::AbortHandle;
use tokio_util::sync::CancellationToken;

use super::config::Limits;
use super::message::{Kind, classify, error_answer};
use super::sealing::Sealing;
use super::service::{Delivered, Outgoing, Service, SessionPipe};
use crate::budget::{Budget, ClientKey, Exhausted, Lease};

/// Messages one POST stream may have queued before the router waits for its client.
const POST_QUEUE: usize = 64;

/// Messages the engine may have queued for the transport.
const ENGINE_QUEUE: usize = 256;

/// The error code of the answer the transport makes up for a request the engine left
/// unanswered for `Limits::answer_timeout`: an implementation-defined server error, the code
/// the common JSON-RPC SDKs give a request that timed out, so a client treats it as its own
/// timeout.
pub const TIMED_OUT: i64 = -32001;

/// One live session.
#[derive(Debug)]
pub(crate) struct Session {
    pub id: String,
    /// To the engine. Cloned per POST, so that a slow engine holds only that POST.
    pub inbound: mpsc::Sender<Delivered>,
    pub ended: CancellationToken,
    /// `Limits::answer_timeout`.
    answer_timeout: Duration,
    /// Seals the state the engine's answers carry (`ServerConfig::sealer`).
    sealing: Option<Sealing>,
    state: Mutex<State>,
    /// The session's place in the server's budget, given back when it ends.
    lease: Mutex<Option<Lease>>,
}

#[derive(Debug)]
struct State {
    /// The POSTs waiting for messages, by the id of the request each carried.
    pending: HashMap<RequestId, Pending>,
    /// The number of the next registration (tells a reused request id from the old one).
    next_serial: u64,
    /// The GET stream (number 0); `None` while a connection holds it.
    standalone: Option<Parked>,
    /// POST streams whose connection went away before their response, by stream number,
    /// waiting for a GET with `Last-Event-ID` to resume them.
    parked: HashMap<u64, Parked>,
    /// The number of the next POST stream.
    next_stream: u64,
    /// Streams and requests in progress: a session with any is not idle.
    busy: usize,
    last_seen: Instant,
}

/// A request waiting for its answer, with the task that answers it when the engine stays
/// silent for too long (stopped when the entry goes).
#[derive(Debug)]
struct Pending {
    tx: mpsc::Sender<String>,
    serial: u64,
    /// The request's method (what state sealed in its answer is bound to).
    method: String,
    /// When the engine last sent something for this request (or it came in).
    last: tokio::time::Instant,
    deadline: AbortHandle,
}

impl Drop for Pending {
    fn drop(&mut self) {
        self.deadline.abort();
    }
}

/// An SSE stream no connection is reading: its queue, and the events already written to a
/// connection that may have lost them, for replay after `Last-Event-ID`.
#[derive(Debug)]
pub(crate) struct Parked {
    pub rx: mpsc::Receiver<String>,
    /// The last events written, oldest first, by sequence number.
    pub sent: std::collections::VecDeque<(u64, String)>,
    /// The sequence number of the next event.
    pub next: u64,
}

impl Parked {
    pub fn new(rx: mpsc::Receiver<String>) -> Self {
        Self {
            rx,
            sent: std::collections::VecDeque::new(),
            next: 1,
        }
    }
}

/// Why a session cannot be opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OpenError {
    /// `Limits::max_sessions` are live, or the client holds its share of them.
    Full(Exhausted),
    /// The operating system gave no random bytes for the id.
    NoRandomness,
}

/// Why a request id cannot be registered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Register {
    Duplicate,
    TooMany,
}

impl Session {
    /// Registers a POST waiting for the answer to request `id`, answered by the transport
    /// when the engine stays silent on it for `answer_timeout`.
    pub fn register(
        self: &Arc<Self>,
        id: &RequestId,
        method: &str,
        max: usize,
    ) -> Result<mpsc::Receiver<String>, Register> {
        let mut st = self.lock();
        // Entries whose stream was dropped unanswered (evicted while parked) are dead.
        st.pending.retain(|_, p| !p.tx.is_closed());
        if st.pending.contains_key(id) {
            return Err(Register::Duplicate);
        }
        if st.pending.len() >= max {
            return Err(Register::TooMany);
        }
        let (tx, rx) = mpsc::channel(POST_QUEUE);
        st.next_serial += 1;
        let serial = st.next_serial;
        let timer = answer_deadline(Arc::downgrade(self), id.clone(), serial);
        let entry = Pending {
            tx,
            serial,
            method: method.to_owned(),
            last: tokio::time::Instant::now(),
            deadline: tokio::spawn(timer).abort_handle(),
        };
        st.pending.insert(id.clone(), entry);
        Ok(rx)
    }

    /// Forgets the POST of request `id` once its queue's receiver is gone (its client went
    /// away before the answer); an entry still open belongs to a later request reusing the id.
    pub fn unregister(&self, id: &RequestId) {
        let mut st = self.lock();
        if st.pending.get(id).is_some_and(|p| p.tx.is_closed()) {
            st.pending.remove(id);
        }
    }

    /// The queue of request `id`'s POST, the engine having just said something about it
    /// (which puts its answer deadline back).
    fn heard(&self, id: &RequestId) -> Option<mpsc::Sender<String>> {
        let mut st = self.lock();
        let p = st.pending.get_mut(id)?;
        p.last = tokio::time::Instant::now();
        Some(p.tx.clone())
    }

    /// A new POST stream's number (the GET stream is 0).
    pub fn new_stream(&self) -> u64 {
        let mut st = self.lock();
        st.next_stream += 1;
        st.next_stream
    }

    /// Takes stream `key` to read it (0: the GET stream): `None` when a connection already
    /// reads it, or no such stream waits.
    pub fn take_stream(&self, key: u64) -> Option<Parked> {
        let mut st = self.lock();
        if key == 0 {
            st.standalone.take()
        } else {
            st.parked.remove(&key)
        }
    }

    /// Parks stream `key` when its connection goes away; at most `max` POST streams wait,
    /// the oldest giving way.
    pub fn park(&self, key: u64, parked: Parked, max: usize) {
        let mut st = self.lock();
        if key == 0 {
            st.standalone = Some(parked);
            return;
        }
        while st.parked.len() >= max.max(1) {
            let Some(oldest) = st.parked.keys().min().copied() else {
                break;
            };
            st.parked.remove(&oldest);
        }
        st.parked.insert(key, parked);
    }

    /// Marks the session in use until the returned guard drops.
    pub fn busy(self: &Arc<Self>) -> Busy {
        let mut st = self.lock();
        st.busy += 1;
        st.last_seen = Instant::now();
        Busy(self.clone())
    }

    /// Gives the session's place in the budget back (it has left the table).
    fn give_back(&self) {
        let lease = self.lease.lock().unwrap_or_else(|e| e.into_inner()).take();
        drop(lease);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A poisoned lock means a panic elsewhere; the state itself stays consistent.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A session of one message outside the table: ending it (dropping this) gives its place in
/// the budget back and ends its engine, which cancels the message's work if it is still
/// running (a client closing the answer's stream cancels its request).
#[derive(Debug)]
pub(crate) struct Alone(pub Arc<Session>);

impl Drop for Alone {
    fn drop(&mut self) {
        self.0.give_back();
        self.0.ended.cancel();
    }
}

/// Keeps its session from expiring while alive.
#[derive(Debug)]
pub(crate) struct Busy(Arc<Session>);

impl Drop for Busy {
    fn drop(&mut self) {
        let mut st = self.0.lock();
        st.busy = st.busy.saturating_sub(1);
        st.last_seen = Instant::now();
    }
}

/// The table of live sessions.
#[derive(Debug)]
pub(crate) struct Sessions {
    map: Mutex<HashMap<String, Arc<Session>>>,
    limits: Limits,
    sealing: Option<Sealing>,
    budget: Budget,
}

impl Sessions {
    /// An empty table, with a sweeper task ending idle sessions for as long as it lives.
    pub fn new(limits: Limits, sealing: Option<Sealing>) -> Arc<Self> {
        let table = Arc::new(Self {
            map: Mutex::new(HashMap::new()),
            sealing,
            budget: Budget::new(limits.max_sessions, limits.max_sessions_per_client),
            limits,
        });
        tokio::spawn(sweep(Arc::downgrade(&table)));
        table
    }

    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Session>>> {
        self.map.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn get(&self, id: &str) -> Option<Arc<Session>> {
        self.map().get(id).cloned()
    }

    /// Opens a session for `client` (`None`: unknown) and hands its pipe to `service`.
    pub fn open(
        self: &Arc<Self>,
        service: &dyn Service,
        client: Option<ClientKey>,
    ) -> Result<Arc<Session>, OpenError> {
        self.open_as(service, client, None)
    }

    /// Opens a session of one message in `version`, outside the table (no later request can
    /// name it): it holds a place in the budget like any session, and ends when the returned
    /// guard drops, once its message is answered or its client went away.
    pub fn open_alone(
        self: &Arc<Self>,
        service: &dyn Service,
        client: Option<ClientKey>,
        version: String,
    ) -> Result<Alone, OpenError> {
        self.open_as(service, client, Some(version)).map(Alone)
    }

    fn open_as(
        self: &Arc<Self>,
        service: &dyn Service,
        client: Option<ClientKey>,
        alone: Option<String>,
    ) -> Result<Arc<Session>, OpenError> {
        let lease = self.budget.try_take(client).map_err(OpenError::Full)?;
        let id = new_id().ok_or(OpenError::NoRandomness)?;
        let (in_tx, in_rx) = mpsc::channel(self.limits.max_in_flight.max(1));
        let (out_tx, out_rx) = mpsc::channel(ENGINE_QUEUE);
        let (gs_tx, gs_rx) = mpsc::channel(self.limits.max_queued.max(1));
        let session = Arc::new(Session {
            id,
            inbound: in_tx,
            ended: CancellationToken::new(),
            answer_timeout: self.limits.answer_timeout,
            sealing: self.sealing.clone(),
            state: Mutex::new(State {
                pending: HashMap::new(),
                next_serial: 0,
                standalone: Some(Parked::new(gs_rx)),
                parked: HashMap::new(),
                next_stream: 0,
                busy: 0,
                last_seen: Instant::now(),
            }),
            lease: Mutex::new(Some(lease)),
        });
        if alone.is_none() {
            self.map().insert(session.id.clone(), session.clone());
        }
        tokio::spawn(route(Arc::downgrade(self), session.clone(), out_rx, gs_tx));
        service.open(SessionPipe {
            id: session.id.clone(),
            inbound: in_rx,
            outbound: out_tx,
            ended: session.ended.clone(),
            version: alone,
        });
        Ok(session)
    }

    /// Ends session `id`; `false` when there was none.
    pub fn end(&self, id: &str) -> bool {
        let removed = self.map().remove(id);
        match removed {
            Some(s) => {
                s.give_back();
                s.ended.cancel();
                true
            }
            None => false,
        }
    }

    /// Ends every session (server shutdown).
    pub fn end_all(&self) {
        let all: Vec<_> = self.map().drain().map(|(_, s)| s).collect();
        for s in all {
            s.give_back();
            s.ended.cancel();
        }
    }

    fn expired(&self, idle: Duration) -> Vec<String> {
        let now = Instant::now();
        self.map()
            .values()
            .filter(|s| {
                let st = s.lock();
                st.busy == 0 && now.duration_since(st.last_seen) >= idle
            })
            .map(|s| s.id.clone())
            .collect()
    }
}

impl Drop for Sessions {
    /// The server is gone: end every session, so that engines see their inbound end.
    fn drop(&mut self) {
        self.end_all();
    }
}

/// 128 random bits from the operating system, as 32 hex digits (visible ASCII, as the spec
/// requires of a session id); `None` when the system has no randomness to give (a guessable
/// id would let anyone take the session over).
fn new_id() -> Option<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).ok()?;
    Some(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Ends idle sessions, checking a few times per idle period, until the table is gone.
async fn sweep(table: Weak<Sessions>) {
    loop {
        let period = match table.upgrade() {
            Some(t) => (t.limits.idle_timeout / 4)
                .clamp(Duration::from_millis(10), Duration::from_secs(30)),
            None => return,
        };
        tokio::time::sleep(period).await;
        let Some(t) = table.upgrade() else { return };
        for id in t.expired(t.limits.idle_timeout) {
            tracing::debug!(session = %id, "session expired");
            t.end(&id);
        }
    }
}

/// Moves the engine's messages to their streams until the session ends; when the engine
/// drops its sender first, that ends the session.
async fn route(
    table: Weak<Sessions>,
    session: Arc<Session>,
    mut out: mpsc::Receiver<Outgoing>,
    standalone: mpsc::Sender<String>,
) {
    loop {
        let msg = tokio::select! {
            () = session.ended.cancelled() => break,
            msg = out.recv() => match msg {
                Some(m) => m,
                None => break,
            },
        };
        deliver(&session, &standalone, msg).await;
    }
    if let Some(t) = table.upgrade() {
        t.end(&session.id);
    }
    session.ended.cancel();
    // Ends every POST stream still open, and forgets the parked ones.
    let mut st = session.lock();
    st.pending.clear();
    st.parked.clear();
}

async fn deliver(session: &Session, standalone: &mpsc::Sender<String>, msg: Outgoing) {
    let kind = match classify(&msg.json) {
        Ok(k) => k,
        Err(e) => {
            crate::warn_throttled!(session = %session.id, rule = %e.rule, "engine sent a bad message; dropped");
            return;
        }
    };
    // Never waits on a POST's queue: a client that stopped reading (or left a parked stream)
    // must not hold up the rest of the session.
    let json = match kind {
        Kind::Response { id } => {
            // The response ends its POST: the sender is dropped once it is sent.
            let pending = session.lock().pending.remove(&id);
            let (tx, json) = match (pending, &session.sealing) {
                (Some(p), Some(sealing)) => (Some(p.tx.clone()), sealing.seal(&p.method, msg.json)),
                (p, _) => (p.map(|p| p.tx.clone()), msg.json),
            };
            match tx.map(|tx| (tx.try_send(json), tx)) {
                Some((Ok(()), _)) => {}
                Some((Err(mpsc::error::TrySendError::Full(json)), tx)) => {
                    tokio::spawn(async move { tx.send(json).await });
                }
                _ => {
                    tracing::debug!(session = %session.id, %id, "response to a request whose POST is gone; dropped")
                }
            }
            return;
        }
        _ => match msg.related.and_then(|id| session.heard(&id)) {
            Some(tx) => match tx.try_send(msg.json) {
                Ok(()) => return,
                Err(e) => e.into_inner(),
            },
            None => msg.json,
        },
    };
    if let Err(e) = standalone.try_send(json) {
        crate::warn_throttled!(session = %session.id, error = %e, "GET stream queue full; message dropped");
    }
}

/// Answers request `id` (registration `serial`) with [`TIMED_OUT`] once the engine has said
/// nothing about it for the session's `answer_timeout`, freeing its in-flight slot; ends
/// quietly when the request is answered first (its entry goes, which aborts this task).
async fn answer_deadline(session: Weak<Session>, id: RequestId, serial: u64) {
    let mut due = match session.upgrade() {
        Some(s) => tokio::time::Instant::now() + s.answer_timeout,
        None => return,
    };
    loop {
        tokio::time::sleep_until(due).await;
        let Some(s) = session.upgrade() else { return };
        let timeout = s.answer_timeout;
        let tx = {
            let mut st = s.lock();
            let Some(p) = st.pending.get(&id).filter(|p| p.serial == serial) else {
                return;
            };
            if p.last + timeout > tokio::time::Instant::now() {
                due = p.last + timeout;
                continue;
            }
            // Removing the entry aborts this task at its next await: there is none below.
            st.pending.remove(&id).map(|p| p.tx.clone())
        };
        let Some(tx) = tx else { return };
        crate::warn_throttled!(session = %s.id, %id, ?timeout, "engine left a request unanswered; answered with a timeout error");
        let why = format!("no answer within {timeout:?}");
        if let Err(mpsc::error::TrySendError::Full(json)) =
            tx.try_send(error_answer(Some(&id), TIMED_OUT, &why))
        {
            // Its client reads slowly: the answer waits in line, on a task of its own.
            tokio::spawn(async move { tx.send(json).await });
        }
        return;
    }
}
