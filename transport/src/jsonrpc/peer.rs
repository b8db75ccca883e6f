//! One JSON-RPC 2.0 connection over any byte stream: a reader task that decodes, validates,
//! sequence-checks and dispatches inbound messages, and a writer task fed by a bounded queue.
//!
//! Outbound messages are sequence-checked and queued under one lock, so the checker sees them
//! in exactly the order they reach the wire. That lock is never held across an `.await`.

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use agentwire_runtime::jsonrpc::{
    CancelAnswer, Conventions, Message, MethodSet, Outcome, RequestId, RequestSet, Response,
    RpcError, codes, params_member,
};
use agentwire_runtime::machine::Violation;
use agentwire_runtime::{Invalid, Rule, Validate};
use std::panic::AssertUnwindSafe;

use futures_util::FutureExt;
use serde_json::value::RawValue;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{Semaphore, mpsc, oneshot};
use tokio::task::{AbortHandle, JoinHandle, JoinSet};
use tokio_util::codec::{FramedRead, FramedWrite};

use super::deadline::ReadDeadline;
use tokio_util::sync::CancellationToken;

use super::call::Pending;
use super::codec::{FrameCodec, Framing};
use super::error::{CallError, SendError};
use super::link::{Delivered, Inbox, Messages, Outgoing, write_loop};
use super::{Config, probe};
use crate::check::Gate;

/// What one side of a JSON-RPC protocol sends and receives, and how its sequence checker
/// sees each direction. Generated skeletons implement it once per role.
pub trait Side: Send + Sync + 'static {
    /// Requests this side answers.
    type InRequest: MethodSet + Send + Sync + 'static;
    /// Notifications this side receives (cloned to the caller a progress notification is for).
    type InNotification: MethodSet + Clone + Send + Sync + 'static;
    /// Requests this side sends (`NoMethods` when it sends none).
    type OutRequest: MethodSet + Send + Sync + 'static;
    /// Notifications this side sends.
    type OutNotification: MethodSet + Send + Sync + 'static;
    /// The protocol's generated sequence checker (`Default`: a fresh one).
    type Checker: Send + Default + 'static;

    /// This side's role and its peer's, as the spec names them (for "`x` is sent by the
    /// server, not the client").
    const ROLE: &'static str;
    const PEER: &'static str;
    /// How messages are delimited on a byte stream.
    const FRAMING: Framing = Framing::ContentLength;
    /// How the protocol cancels requests and reports their progress.
    const CONVENTIONS: Conventions = Conventions::NONE;

    fn observe_inbound(checker: &mut Self::Checker, msg: &Inbound<Self>) -> Result<(), Violation>;
    fn observe_outbound(checker: &mut Self::Checker, msg: &Outbound<Self>)
    -> Result<(), Violation>;

    /// Ends the stream: what is left mid-flow (an unanswered request, a running chat).
    fn finish(checker: Self::Checker) -> Result<(), Vec<Violation>>;
}

/// A message the side `S` receives.
pub type Inbound<S> = Message<<S as Side>::InRequest, <S as Side>::InNotification>;
/// A message the side `S` sends.
pub type Outbound<S> = Message<<S as Side>::OutRequest, <S as Side>::OutNotification>;

/// What answering a request produces: the encoded result, or the error to send back.
pub type Answer = Result<Box<RawValue>, RpcError>;

/// The behaviour behind a connection: answers inbound requests and takes inbound
/// notifications. Generated skeletons implement it over a typed handler trait.
pub trait Dispatch<S: Side>: Send + Sync + 'static {
    /// Answers one request: the encoded result, or the error to send back. Runs in its own
    /// task, so a long request (a streamed chat) does not hold up the connection; the task is
    /// aborted when the peer cancels the request (see [`Conventions`]).
    fn request(
        &self,
        call: Incoming<S>,
        request: S::InRequest,
    ) -> impl Future<Output = Answer> + Send + 'static;

    /// Takes one notification. Notifications run one at a time in arrival order (their order
    /// matters, e.g. `initialized` before anything else), so this should return promptly and
    /// hand long work to a task.
    fn notification(
        &self,
        peer: Peer<S>,
        notification: S::InNotification,
    ) -> impl Future<Output = ()> + Send + 'static;
}

/// An inbound request as its handler sees it: its id, the progress token it carries, a token
/// cancelled when the peer cancels it, what the transport attached to it, and the connection
/// (whose sends are tagged as related to this request, so a transport such as Streamable
/// HTTP can route them with its answer).
pub struct Incoming<S: Side> {
    pub peer: Peer<S>,
    pub id: RequestId,
    /// The request's progress token, when the protocol declares progress and it carries one.
    pub progress_token: Option<serde_json::Value>,
    /// Cancelled when the peer cancels the request or the connection ends. The handler's task
    /// is aborted too; this is for work it handed elsewhere.
    pub cancelled: CancellationToken,
    /// What the transport attached to this request ([`Delivered::extensions`]): over
    /// Streamable HTTP, the extensions of the HTTP request that carried it, such as the
    /// caller's identity an authentication layer in front of the endpoint found. Each
    /// request has its own, so credentials refreshed mid-session are seen from the next
    /// request on. Empty over a byte stream.
    pub extensions: axum::http::Extensions,
}

impl<S: Side> Clone for Incoming<S> {
    fn clone(&self) -> Self {
        Self {
            peer: self.peer.clone(),
            id: self.id.clone(),
            progress_token: self.progress_token.clone(),
            cancelled: self.cancelled.clone(),
            extensions: self.extensions.clone(),
        }
    }
}

impl<S: Side> std::fmt::Debug for Incoming<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Incoming")
            .field("id", &self.id)
            .field("progress_token", &self.progress_token)
            .finish()
    }
}

impl<S: Side> Incoming<S> {
    /// Sends a progress notification for this request: `params` (an object) with the
    /// request's token added under the protocol's token member, decoded as the side's typed
    /// notification, validated and sequence-checked. `Ok(false)` when the request carries no
    /// token (the caller did not ask for progress).
    pub async fn progress(&self, params: serde_json::Value) -> Result<bool, SendError> {
        let (Some(rule), Some(token)) = (S::CONVENTIONS.progress, &self.progress_token) else {
            return Ok(false);
        };
        let mut params = params;
        let Some(object) = params.as_object_mut() else {
            return Err(SendError::Invalid(agentwire_runtime::Invalid::one(
                agentwire_runtime::FieldError::new("/params", Rule::Type, "expected an object"),
            )));
        };
        object.insert(rule.token.to_owned(), token.clone());
        self.peer.notify_json(rule.method, params).await?;
        Ok(true)
    }
}

/// Counters of what a connection let through and what it refused.
#[derive(Debug, Default)]
struct Counters {
    received: AtomicU64,
    refused: AtomicU64,
    violations: AtomicU64,
}

/// A snapshot of a connection's counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Stats {
    /// Frames read (good or bad).
    pub received: u64,
    /// Inbound frames refused as unframeable, undecodable or invalid.
    pub refused: u64,
    /// Messages the sequence checker refused, in either direction (enforce mode only; warn
    /// mode logs instead).
    pub violations: u64,
}

pub(super) type Reply = Result<Response, CallError>;

pub(super) struct Waiting {
    pub(super) reply: oneshot::Sender<Reply>,
    pub(super) checked: bool,
}

/// An admitted inbound request on its way to its handler: its text (for the progress token),
/// its id and what the transport attached to it.
struct Call<'a> {
    text: &'a str,
    id: RequestId,
    extensions: axum::http::Extensions,
}

/// An inbound request whose handler runs.
struct Running {
    abort: AbortHandle,
    cancelled: CancellationToken,
}

pub(super) struct Inner<S: Side> {
    pub(super) config: Config,
    gate: Mutex<Gate<S::Checker>>,
    tx: mpsc::Sender<Outgoing>,
    /// Outbound requests waiting for their answers, and whether the checker saw each (raw
    /// probes bypass it, and so must their answers).
    pub(super) pending: Mutex<HashMap<RequestId, Waiting>>,
    /// Callers listening for the progress of their calls, by token (as JSON text, so `2` and
    /// `"2"` stay apart).
    pub(super) progress: Mutex<HashMap<String, mpsc::Sender<S::InNotification>>>,
    running: Mutex<HashMap<RequestId, Running>>,
    next_id: AtomicI64,
    cancel: CancellationToken,
    counters: Counters,
}

/// A handle on one connection: send notifications and requests, shut it down. Cheap to clone.
pub struct Peer<S: Side> {
    pub(super) inner: Arc<Inner<S>>,
    /// The inbound request whose handler holds this handle, if any.
    related: Option<RequestId>,
}

impl<S: Side> Clone for Peer<S> {
    fn clone(&self) -> Self {
        Self {
            inner: Arc::clone(&self.inner),
            related: self.related.clone(),
        }
    }
}

impl<S: Side> std::fmt::Debug for Peer<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Peer")
            .field("closed", &self.is_closed())
            .field("stats", &self.stats())
            .finish()
    }
}

/// The tasks that drive a connection; `join` waits until they have stopped.
#[derive(Debug)]
pub struct Connection {
    reader: JoinHandle<()>,
    /// `None` when the caller takes the outgoing messages itself ([`Peer::spawn_messages`]).
    writer: Option<JoinHandle<std::io::Result<()>>>,
}

impl Connection {
    /// Waits for the connection to end (the peer hung up, or `Peer::shutdown`). Returns the
    /// writer's I/O error, if writing failed.
    pub async fn join(self) -> std::io::Result<()> {
        let _ = self.reader.await;
        match self.writer {
            None => Ok(()),
            Some(writer) => match writer.await {
                Ok(r) => r,
                Err(e) => Err(std::io::Error::other(e)),
            },
        }
    }
}

/// The ends of a connection driven by messages rather than a byte stream: push each inbound
/// message into `incoming` (dropping it ends the connection), take each outbound message
/// from `outgoing`.
#[derive(Debug)]
pub struct MessageLink {
    pub incoming: mpsc::Sender<Delivered>,
    pub outgoing: mpsc::Receiver<Outgoing>,
}

pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic elsewhere while holding the lock must not take the connection down with it.
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl<S: Side> Peer<S> {
    fn new(
        cancel: CancellationToken,
        checker: S::Checker,
        config: Config,
    ) -> (Self, mpsc::Receiver<Outgoing>) {
        let (tx, rx) = mpsc::channel(config.queue.max(1));
        let peer = Peer {
            inner: Arc::new(Inner {
                gate: Mutex::new(Gate::new(config.mode, checker)),
                config,
                tx,
                pending: Mutex::new(HashMap::new()),
                progress: Mutex::new(HashMap::new()),
                running: Mutex::new(HashMap::new()),
                next_id: AtomicI64::new(1),
                cancel,
                counters: Counters::default(),
            }),
            related: None,
        };
        (peer, rx)
    }

    /// Starts a connection over `reader`/`writer` with its own shutdown token, framed as the
    /// protocol declares ([`Side::FRAMING`]).
    pub fn spawn<R, W, D>(
        reader: R,
        writer: W,
        checker: S::Checker,
        config: Config,
        dispatch: D,
    ) -> (Peer<S>, Connection)
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
        D: Dispatch<S>,
    {
        Self::spawn_under(
            CancellationToken::new(),
            reader,
            writer,
            checker,
            config,
            dispatch,
        )
    }

    /// Starts a connection that also ends when `cancel` is cancelled (a server passes a child
    /// of its own shutdown token).
    pub fn spawn_under<R, W, D>(
        cancel: CancellationToken,
        reader: R,
        writer: W,
        checker: S::Checker,
        config: Config,
        dispatch: D,
    ) -> (Peer<S>, Connection)
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
        D: Dispatch<S>,
    {
        Self::spawn_framed(
            S::FRAMING,
            cancel,
            reader,
            writer,
            checker,
            config,
            dispatch,
        )
    }

    /// [`Peer::spawn_under`] with an explicit framing.
    pub fn spawn_framed<R, W, D>(
        framing: Framing,
        cancel: CancellationToken,
        reader: R,
        writer: W,
        checker: S::Checker,
        config: Config,
        dispatch: D,
    ) -> (Peer<S>, Connection)
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
        D: Dispatch<S>,
    {
        let inbox = FramedRead::new(reader, FrameCodec::new(framing, config.max_frame_size));
        Self::spawn_inbox(framing, cancel, inbox, writer, checker, config, dispatch)
    }

    /// [`Peer::spawn_framed`] reading from an inbox already made (one whose first messages
    /// were read before the connection knew its version, and are replayed).
    pub(super) fn spawn_inbox<I, W, D>(
        framing: Framing,
        cancel: CancellationToken,
        inbox: I,
        writer: W,
        checker: S::Checker,
        config: Config,
        dispatch: D,
    ) -> (Peer<S>, Connection)
    where
        I: Inbox,
        W: AsyncWrite + Send + Unpin + 'static,
        D: Dispatch<S>,
    {
        let max_frame = config.max_frame_size;
        let (peer, rx) = Self::new(cancel, checker, config);
        let writer = tokio::spawn(write_loop(
            FramedWrite::new(writer, FrameCodec::new(framing, max_frame)),
            rx,
            peer.inner.cancel.clone(),
        ));
        let reader = tokio::spawn(peer.clone().read_loop(inbox, dispatch));
        let connection = Connection {
            reader,
            writer: Some(writer),
        };
        (peer, connection)
    }

    /// Starts a connection driven by whole messages instead of a byte stream (an HTTP
    /// transport): the same validation, sequence checking, dispatch, cancellation and
    /// correlation, with the framing left to the caller. Each inbound text is one JSON-RPC
    /// message; each outbound one is tagged with the request it answers or belongs to.
    pub fn spawn_messages<D: Dispatch<S>>(
        cancel: CancellationToken,
        checker: S::Checker,
        config: Config,
        dispatch: D,
    ) -> (Peer<S>, MessageLink, Connection) {
        let (in_tx, in_rx) = mpsc::channel::<Delivered>(config.queue.max(1));
        let (peer, out_rx) = Self::new(cancel, checker, config);
        let reader = tokio::spawn(peer.clone().read_loop(Messages::new(in_rx), dispatch));
        let link = MessageLink {
            incoming: in_tx,
            outgoing: out_rx,
        };
        let connection = Connection {
            reader,
            writer: None,
        };
        (peer, link, connection)
    }

    /// This handle, with its sends tagged as related to the inbound request `id`.
    pub fn related_to(&self, id: RequestId) -> Self {
        Self {
            inner: Arc::clone(&self.inner),
            related: Some(id),
        }
    }

    /// The inbound request this handle's sends belong to, if any.
    pub fn related(&self) -> Option<&RequestId> {
        self.related.as_ref()
    }

    /// Stops the connection: no more reads, queued frames are flushed, the writer is closed,
    /// running request handlers are cancelled and outstanding calls fail with `Closed`.
    pub fn shutdown(&self) {
        self.inner.cancel.cancel();
    }

    pub fn is_closed(&self) -> bool {
        self.inner.cancel.is_cancelled()
    }

    /// Resolves once the connection is shutting down or gone.
    pub async fn closed(&self) {
        self.inner.cancel.cancelled().await;
    }

    pub fn config(&self) -> &Config {
        &self.inner.config
    }

    pub fn stats(&self) -> Stats {
        let c = &self.inner.counters;
        Stats {
            received: c.received.load(Ordering::Relaxed),
            refused: c.refused.load(Ordering::Relaxed),
            violations: c.violations.load(Ordering::Relaxed),
        }
    }

    /// Validates, sequence-checks and sends a notification.
    pub async fn notify(&self, notification: S::OutNotification) -> Result<(), SendError> {
        notification
            .validate()
            .map_err(|e| SendError::Invalid(e.under("/params")))?;
        self.send_checked(Message::Notification(notification), None)
            .await
    }

    /// Sends the notification `method` with `params` given as JSON: decoded as this side's
    /// typed notification first, so it is held to the spec like any other.
    pub async fn notify_json(
        &self,
        method: &str,
        params: serde_json::Value,
    ) -> Result<(), SendError> {
        let raw = serde_json::value::to_raw_value(&params)
            .map_err(|e| SendError::Invalid(invalid("/params", Rule::Type, e.to_string())))?;
        let notification = match S::OutNotification::decode_params(method, Some(&raw)) {
            Some(Ok(n)) => n,
            Some(Err(e)) => return Err(SendError::Invalid(e.under("/params"))),
            None => {
                let why = format!("this side sends no `{method}` notification");
                return Err(SendError::Invalid(invalid(
                    "/method",
                    Rule::UnknownKind,
                    why,
                )));
            }
        };
        self.notify(notification).await
    }

    /// Validates, sequence-checks and sends a request; the returned [`Pending`] has its id,
    /// its progress and its response, and can cancel it.
    pub async fn start(&self, request: S::OutRequest) -> Result<Pending<S>, CallError> {
        request
            .validate()
            .map_err(|e| SendError::Invalid(e.under("/params")))?;
        let method = request.method();
        let msg = Message::Request {
            id: self.next_id(),
            request,
        };
        let Message::Request { id, .. } = &msg else {
            unreachable!("built as a request above")
        };
        let text = msg.to_json();
        let mut pending = Pending::register(self, id.clone(), method, true)?;
        if let Some(rule) = S::CONVENTIONS.progress
            && let Some(token) = params_member(&text, rule.request_token)
        {
            pending.listen(token.to_string());
        }
        self.send_text_checked(&msg, text, None).await?;
        Ok(pending)
    }

    /// Sends a request and waits for its response (not yet decoded: see [`Peer::call`]).
    pub async fn request(&self, request: S::OutRequest) -> Result<Response, CallError> {
        self.start(request).await?.response().await
    }

    /// Sends a request and decodes, validates and returns its typed result.
    pub async fn call(
        &self,
        request: S::OutRequest,
    ) -> Result<<S::OutRequest as RequestSet>::Result, CallError>
    where
        S::OutRequest: RequestSet,
    {
        self.start(request).await?.result().await
    }

    /// Sends a request the protocol may not define, unvalidated and unchecked, and waits for
    /// its response: for probing a peer's error handling, not for normal traffic.
    pub async fn request_raw(
        &self,
        method: &str,
        params: Option<serde_json::Value>,
    ) -> Result<Response, CallError> {
        let id = self.next_id();
        let pending = Pending::register(self, id.clone(), "", false)?;
        let mut msg = serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method});
        if let Some(params) = params {
            msg["params"] = params;
        }
        self.send_frame(msg.to_string()).await?;
        pending.response().await
    }

    /// Cancels the outbound request `id` as the protocol declares ([`Conventions`]): sends
    /// its cancel notification and stops waiting for the answer.
    pub async fn cancel(&self, id: &RequestId) -> Result<(), SendError> {
        let Some(rule) = S::CONVENTIONS.cancel else {
            let why = "the protocol declares no cancellation";
            return Err(SendError::Invalid(invalid("", Rule::UnknownKind, why)));
        };
        if let Some(w) = lock(&self.inner.pending).remove(id) {
            let _ = w.reply.send(Err(CallError::Cancelled));
        }
        let params = serde_json::json!({ rule.id: id });
        self.notify_json(rule.method, params).await
    }

    /// Sends `body` as one frame as it is, unchecked (for probing a peer with broken input).
    pub async fn send_frame(&self, body: String) -> Result<(), SendError> {
        let permit = self
            .inner
            .tx
            .reserve()
            .await
            .map_err(|_| SendError::Closed)?;
        permit.send(Outgoing {
            text: body,
            related: self.related.clone(),
            answers: None,
        });
        Ok(())
    }

    fn next_id(&self) -> RequestId {
        RequestId::Number(self.inner.next_id.fetch_add(1, Ordering::Relaxed))
    }

    async fn send_checked(
        &self,
        msg: Outbound<S>,
        answers: Option<RequestId>,
    ) -> Result<(), SendError> {
        let text = msg.to_json();
        self.send_text_checked(&msg, text, answers).await
    }

    /// Sequence-checks and queues a message; the check and the queueing happen under one lock
    /// so the checker's order is the wire order.
    async fn send_text_checked(
        &self,
        msg: &Outbound<S>,
        text: String,
        answers: Option<RequestId>,
    ) -> Result<(), SendError> {
        let permit = self
            .inner
            .tx
            .reserve()
            .await
            .map_err(|_| SendError::Closed)?;
        let mut gate = lock(&self.inner.gate);
        if let Err(v) = gate.admit(|c| S::observe_outbound(c, msg)) {
            self.inner
                .counters
                .violations
                .fetch_add(1, Ordering::Relaxed);
            return Err(SendError::Violation(v));
        }
        permit.send(Outgoing {
            text,
            related: answers.clone().or_else(|| self.related.clone()),
            answers,
        });
        Ok(())
    }

    /// Answers an inbound request that the checker admitted.
    async fn respond(&self, id: RequestId, outcome: Answer) {
        let outcome = match outcome {
            Ok(raw) => Outcome::Result(raw),
            Err(e) => Outcome::Error(e),
        };
        let msg = Message::Response(Response {
            id: Some(id.clone()),
            outcome,
        });
        match self.send_checked(msg, Some(id.clone())).await {
            Ok(()) => {}
            // Our own checker refuses the answer: the caller still gets one (-32603 with the
            // violation), or it would wait for as long as the connection lives.
            Err(SendError::Violation(v)) => {
                crate::error_throttled!(violation = %v, "answer out of sequence, sent as an error");
                let error = violation_error(codes::INTERNAL_ERROR, &v);
                self.refuse(Some(id), error).await;
            }
            Err(e) => crate::error_throttled!(error = %e, "response not sent"),
        }
    }

    /// Answers a refused inbound message. The checker never saw what this answers, so the
    /// answer bypasses it too.
    async fn refuse(&self, id: Option<RequestId>, error: RpcError) {
        let msg: Outbound<S> = Message::Response(Response {
            id: id.clone(),
            outcome: Outcome::Error(error),
        });
        let sent = match self.inner.tx.reserve().await {
            Ok(permit) => {
                permit.send(Outgoing {
                    text: msg.to_json(),
                    related: id.clone(),
                    answers: id,
                });
                true
            }
            Err(_) => false,
        };
        if !sent {
            tracing::debug!("error answer not sent: connection closed");
        }
    }

    async fn read_loop<I: Inbox, D: Dispatch<S>>(self, mut inbox: I, dispatch: D) {
        let dispatch = Arc::new(dispatch);
        let in_flight = Arc::new(Semaphore::new(self.inner.config.max_in_flight.max(1)));
        let mut tasks = JoinSet::new();
        let cancel = self.inner.cancel.clone();
        let config = &self.inner.config;
        let mut deadline = ReadDeadline::new(config.frame_timeout, config.idle_timeout);
        loop {
            let item = tokio::select! {
                _ = cancel.cancelled() => break,
                Some(_) = tasks.join_next(), if !tasks.is_empty() => continue,
                item = inbox.next() => item,
                () = deadline.tick() => match deadline.judge(inbox.mid_frame()) {
                    Some(expired) => {
                        crate::warn_throttled!(?expired, "closing a connection too slow to read from");
                        break;
                    }
                    None => continue,
                },
            };
            deadline.progressed();
            let text = match item {
                None => break,
                Some(Err(e)) => {
                    tracing::debug!(error = %e, "read failed");
                    break;
                }
                Some(Ok(Err(framing))) => {
                    self.inner.counters.received.fetch_add(1, Ordering::Relaxed);
                    self.inner.counters.refused.fetch_add(1, Ordering::Relaxed);
                    crate::warn_throttled!(error = %framing, "bad frame");
                    // The frame's content is lost, so there is no id to answer; JSON-RPC
                    // answers what it cannot read with a parse error and a null id.
                    let error = RpcError {
                        code: codes::PARSE_ERROR,
                        message: framing.to_string(),
                        data: None,
                    };
                    self.refuse(None, error).await;
                    continue;
                }
                Some(Ok(Ok(text))) => text,
            };
            self.inner.counters.received.fetch_add(1, Ordering::Relaxed);
            let extensions = inbox.extensions();
            let Some(msg) = self.admit_inbound(&text).await else {
                continue;
            };
            match msg {
                Message::Request { id, request } => {
                    let call = Call {
                        text: &text,
                        id,
                        extensions,
                    };
                    self.start_handler(&dispatch, &in_flight, &mut tasks, call, request)
                        .await;
                }
                Message::Notification(n) => {
                    self.conventions(&text, &n).await;
                    let work = dispatch.notification(self.clone(), n);
                    if AssertUnwindSafe(work).catch_unwind().await.is_err() {
                        crate::error_throttled!("notification handler panicked");
                    }
                }
                Message::Response(response) => self.deliver(response),
            }
        }
        cancel.cancel();
        tasks.abort_all();
        lock(&self.inner.running).clear();
        self.finish_checker();
        // Outstanding calls end with `Closed` when their reply senders drop.
        lock(&self.inner.pending).clear();
        lock(&self.inner.progress).clear();
    }

    /// Runs the handler of one admitted request in its own task, registered so a cancel
    /// notification can abort it.
    async fn start_handler<D: Dispatch<S>>(
        &self,
        dispatch: &Arc<D>,
        in_flight: &Arc<Semaphore>,
        tasks: &mut JoinSet<()>,
        call: Call<'_>,
        request: S::InRequest,
    ) {
        let Call {
            text,
            id,
            extensions,
        } = call;
        if lock(&self.inner.running).contains_key(&id) {
            let error = RpcError {
                code: codes::INVALID_REQUEST,
                message: format!("request id {id} is already in flight"),
                data: None,
            };
            return self.refuse(Some(id), error).await;
        }
        // Over the limit the request is answered at once rather than waited for: waiting
        // would stop the reader, and a running request may itself be waiting for a
        // notification behind it (a tool approval).
        let Ok(permit) = Arc::clone(in_flight).try_acquire_owned() else {
            let busy = RpcError {
                code: SERVER_BUSY,
                message: format!(
                    "more than {} requests in flight",
                    self.inner.config.max_in_flight
                ),
                data: None,
            };
            return self.respond(id, Err(busy)).await;
        };
        let cancelled = self.inner.cancel.child_token();
        let call = Incoming {
            peer: self.related_to(id.clone()),
            id: id.clone(),
            progress_token: S::CONVENTIONS
                .progress
                .and_then(|rule| params_member(text, rule.request_token)),
            cancelled: cancelled.clone(),
            extensions,
        };
        let work = dispatch.request(call, request);
        let peer = self.related_to(id.clone());
        // Held across the spawn so the task cannot remove its entry before it is inserted.
        let mut running = lock(&self.inner.running);
        let task_id = id.clone();
        let abort = tasks.spawn(async move {
            // A panicking handler costs its own request (answered -32603), not the
            // connection or the caller's wait.
            let outcome = AssertUnwindSafe(work)
                .catch_unwind()
                .await
                .unwrap_or_else(|_| Err(handler_panicked()));
            lock(&peer.inner.running).remove(&task_id);
            peer.respond(task_id, outcome).await;
            drop(permit);
        });
        running.insert(id, Running { abort, cancelled });
    }

    /// Applies the protocol's request conventions to an admitted notification: a cancel
    /// aborts the handler it names, a progress notification reaches the caller listening.
    async fn conventions(&self, text: &str, n: &S::InNotification) {
        let method = n.method();
        let conventions: Conventions = S::CONVENTIONS;
        if let Some(rule) = conventions.cancel
            && rule.method == method
        {
            let id = params_member(text, &[rule.id])
                .and_then(|v| serde_json::from_value::<RequestId>(v).ok());
            let running = id
                .as_ref()
                .and_then(|id| lock(&self.inner.running).remove(id));
            if let (Some(id), Some(running)) = (id, running) {
                running.cancelled.cancel();
                running.abort.abort();
                if let CancelAnswer::Error(code) = rule.answer {
                    let error = RpcError {
                        code,
                        message: "request cancelled".to_owned(),
                        data: None,
                    };
                    self.related_to(id.clone()).respond(id, Err(error)).await;
                }
            }
        }
        if let Some(rule) = conventions.progress
            && rule.method == method
            && let Some(token) = params_member(text, &[rule.token])
        {
            let listener = lock(&self.inner.progress).get(&token.to_string()).cloned();
            if let Some(tx) = listener {
                // A caller not draining its progress loses updates rather than stalling reads.
                let _ = tx.try_send(n.clone());
            }
        }
    }

    /// Reports what the connection left mid-flow. Only logged: the peer is gone, there is
    /// nobody to answer.
    fn finish_checker(&self) {
        let _ = lock(&self.inner.gate).admit(|checker| {
            if let Err(unfinished) = S::finish(std::mem::take(checker)) {
                for v in unfinished {
                    crate::warn_throttled!(violation = %v, "connection ended mid-flow");
                }
            }
            Ok(())
        });
    }

    /// Decodes, validates and sequence-checks one inbound text. Anything refused is answered
    /// (requests, unreadable input) or logged and dropped (notifications, responses).
    async fn admit_inbound(&self, text: &str) -> Option<Inbound<S>> {
        let decoded = Inbound::<S>::from_json(text).and_then(|m| m.validate().map(|()| m));
        let msg = match decoded {
            Ok(m) => m,
            Err(invalid) => {
                let invalid = name_wrong_side::<S>(invalid);
                self.inner.counters.refused.fetch_add(1, Ordering::Relaxed);
                self.refuse_invalid(text, &invalid).await;
                return None;
            }
        };
        if let Message::Response(r) = &msg
            && self.is_unchecked_answer(r)
        {
            return Some(msg);
        }
        let admitted = lock(&self.inner.gate).admit(|c| S::observe_inbound(c, &msg));
        let Err(violation) = admitted else {
            return Some(msg);
        };
        self.inner
            .counters
            .violations
            .fetch_add(1, Ordering::Relaxed);
        crate::warn_throttled!(%violation, "inbound message out of sequence, refused");
        match msg {
            Message::Request { id, .. } => {
                // The machine's own code for the failed check, else the configured one.
                let code = violation.code().unwrap_or(self.inner.config.violation_code);
                let error = violation_error(code, &violation);
                self.refuse(Some(id), error).await;
            }
            Message::Notification(_) => {}
            Message::Response(r) => {
                if let Some(w) =
                    r.id.as_ref()
                        .and_then(|id| lock(&self.inner.pending).remove(id))
                {
                    let _ = w.reply.send(Err(CallError::Violation(violation)));
                }
            }
        }
        None
    }

    /// Answers, drops or fails what could not be admitted, by what it reads as. A message
    /// the probe cannot read (not JSON) is answered with a null id; one it can read is a
    /// request, a notification or a response whatever was wrong inside it (nesting too deep
    /// is a syntax error, yet the request's id is there to answer).
    async fn refuse_invalid(&self, text: &str, invalid: &Invalid) {
        let shape = probe::probe(text);
        if shape.is_notification() {
            crate::warn_throttled!(error = %invalid, "invalid notification dropped");
            return;
        }
        if shape.is_response() {
            crate::warn_throttled!(error = %invalid, "invalid response dropped");
            if let Some(w) = shape
                .id
                .as_ref()
                .and_then(|id| lock(&self.inner.pending).remove(id))
            {
                let _ = w.reply.send(Err(CallError::InvalidResult(invalid.clone())));
            }
            return;
        }
        crate::warn_throttled!(error = %invalid, "invalid message answered with an error");
        self.refuse(shape.id, RpcError::for_invalid(invalid)).await;
    }

    /// Whether `r` answers a raw probe, whose request the checker never saw.
    fn is_unchecked_answer(&self, r: &Response) -> bool {
        let pending = lock(&self.inner.pending);
        r.id.as_ref()
            .and_then(|id| pending.get(id))
            .is_some_and(|w| !w.checked)
    }

    fn deliver(&self, response: Response) {
        let waiting = response
            .id
            .as_ref()
            .and_then(|id| lock(&self.inner.pending).remove(id));
        match waiting {
            Some(w) => {
                let _ = w.reply.send(Ok(response));
            }
            None => {
                crate::warn_throttled!(id = ?response.id, "response to no outstanding request dropped")
            }
        }
    }
}

/// The code answering a request beyond `Config::max_in_flight`: the first of JSON-RPC's
/// implementation-defined server errors.
pub const SERVER_BUSY: i64 = -32000;

fn handler_panicked() -> RpcError {
    crate::error_throttled!("request handler panicked");
    RpcError {
        code: codes::INTERNAL_ERROR,
        message: "the request handler failed".to_owned(),
        data: None,
    }
}

/// The error a request refused by the sequence checker gets: the configured code, the
/// violation as the message, and its parts as `data` so a client can act on them.
fn violation_error(code: i64, v: &Violation) -> RpcError {
    RpcError {
        code,
        message: v.to_string(),
        data: Some(serde_json::json!({
            "machine": v.machine,
            "key": v.key,
            "state": v.state,
            "got": v.got,
            "expected": v.expected,
        })),
    }
}

fn invalid(pointer: &str, rule: Rule, message: impl Into<String>) -> Invalid {
    Invalid::one(agentwire_runtime::FieldError::new(pointer, rule, message))
}

/// A method only this side sends, received from its peer, is named as such (rule
/// `wrong_side`, answered with -32601) rather than as an unknown method.
fn name_wrong_side<S: Side>(invalid: Invalid) -> Invalid {
    let [e] = invalid.errors.as_slice() else {
        return invalid;
    };
    if e.rule != Rule::UnknownKind || e.pointer != "/method" {
        return invalid;
    }
    let method = e.kind.as_deref();
    let ours = |m: &str| {
        let sent = S::OutRequest::METHODS
            .iter()
            .chain(S::OutNotification::METHODS);
        sent.copied().any(|x| x == m)
    };
    match method.filter(|m| ours(m)) {
        Some(m) => Invalid::one(agentwire_runtime::side::named(
            "/method",
            m,
            S::ROLE,
            S::PEER,
        )),
        None => invalid,
    }
}
