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
    Message, MethodSet, Outcome, RequestId, RequestSet, Response, RpcError, codes,
};
use agentwire_runtime::machine::Violation;
use agentwire_runtime::{Invalid, Rule, Validate};
use std::panic::AssertUnwindSafe;

use futures_util::{FutureExt, SinkExt, StreamExt};
use serde_json::value::RawValue;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::{Semaphore, mpsc, oneshot};
use tokio::task::{JoinHandle, JoinSet};
use tokio_util::codec::{FramedRead, FramedWrite};

use super::deadline::ReadDeadline;
use tokio_util::sync::CancellationToken;

use super::codec::ContentLengthCodec;
use super::error::{CallError, SendError};
use super::{Config, probe};
use crate::check::Gate;

/// What one side of a JSON-RPC protocol sends and receives, and how its sequence checker
/// sees each direction. Generated skeletons implement it once per role.
pub trait Side: Send + Sync + 'static {
    /// Requests this side answers.
    type InRequest: MethodSet + Send + 'static;
    /// Notifications this side receives.
    type InNotification: MethodSet + Send + 'static;
    /// Requests this side sends (`NoMethods` when it sends none).
    type OutRequest: MethodSet + Send + 'static;
    /// Notifications this side sends.
    type OutNotification: MethodSet + Send + 'static;
    /// The protocol's generated sequence checker (`Default`: a fresh one).
    type Checker: Send + Default + 'static;

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
    /// task, so a long request (a streamed chat) does not hold up the connection.
    fn request(
        &self,
        peer: Peer<S>,
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

type Reply = Result<Response, CallError>;

/// Removes a request from the pending map when its caller stops waiting, however that happens
/// (answer, error, timeout, or the caller's future being dropped), so abandoned calls do not
/// use up `max_outstanding`.
struct Forget<'a, S: Side> {
    inner: &'a Inner<S>,
    id: RequestId,
}

impl<S: Side> Drop for Forget<'_, S> {
    fn drop(&mut self) {
        lock(&self.inner.pending).remove(&self.id);
    }
}

struct Waiting {
    reply: oneshot::Sender<Reply>,
    checked: bool,
}

struct Inner<S: Side> {
    config: Config,
    gate: Mutex<Gate<S::Checker>>,
    tx: mpsc::Sender<String>,
    /// Outbound requests waiting for their answers, and whether the checker saw each (raw
    /// probes bypass it, and so must their answers).
    pending: Mutex<HashMap<RequestId, Waiting>>,
    next_id: AtomicI64,
    cancel: CancellationToken,
    counters: Counters,
}

/// A handle on one connection: send notifications and requests, shut it down. Cheap to clone.
pub struct Peer<S: Side> {
    inner: Arc<Inner<S>>,
}

impl<S: Side> Clone for Peer<S> {
    fn clone(&self) -> Self {
        Self {
            inner: Arc::clone(&self.inner),
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

/// The two tasks that drive a connection; `join` waits until both have stopped.
#[derive(Debug)]
pub struct Connection {
    reader: JoinHandle<()>,
    writer: JoinHandle<std::io::Result<()>>,
}

impl Connection {
    /// Waits for the connection to end (the peer hung up, or `Peer::shutdown`). Returns the
    /// writer's I/O error, if writing failed.
    pub async fn join(self) -> std::io::Result<()> {
        let _ = self.reader.await;
        match self.writer.await {
            Ok(r) => r,
            Err(e) => Err(std::io::Error::other(e)),
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic elsewhere while holding the lock must not take the connection down with it.
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl<S: Side> Peer<S> {
    /// Starts a connection over `reader`/`writer` with its own shutdown token.
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
        let (tx, rx) = mpsc::channel(config.queue.max(1));
        let max_frame = config.max_frame_size;
        let peer = Peer {
            inner: Arc::new(Inner {
                gate: Mutex::new(Gate::new(config.mode, checker)),
                config,
                tx,
                pending: Mutex::new(HashMap::new()),
                next_id: AtomicI64::new(1),
                cancel,
                counters: Counters::default(),
            }),
        };
        let writer = tokio::spawn(write_loop(
            FramedWrite::new(writer, ContentLengthCodec::new(max_frame)),
            rx,
            peer.inner.cancel.clone(),
        ));
        let reader = tokio::spawn(peer.clone().read_loop(
            FramedRead::new(reader, ContentLengthCodec::new(max_frame)),
            dispatch,
        ));
        (peer, Connection { reader, writer })
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
        self.send_checked(Message::Notification(notification)).await
    }

    /// Validates, sequence-checks and sends a request, then waits for its response (not yet
    /// decoded: see [`Peer::call`] for the typed form).
    pub async fn request(&self, request: S::OutRequest) -> Result<Response, CallError> {
        request
            .validate()
            .map_err(|e| SendError::Invalid(e.under("/params")))?;
        let (id, rx) = self.register(true)?;
        let _forget = Forget {
            inner: &self.inner,
            id: id.clone(),
        };
        let sent = self
            .send_checked(Message::Request {
                id: id.clone(),
                request,
            })
            .await;
        self.await_reply(sent, rx).await
    }

    /// Sends a request and decodes, validates and returns its typed result.
    pub async fn call(
        &self,
        request: S::OutRequest,
    ) -> Result<<S::OutRequest as RequestSet>::Result, CallError>
    where
        S::OutRequest: RequestSet,
    {
        let method = request.method();
        let response = self.request(request).await?;
        match response.typed_result::<S::OutRequest>(method) {
            Ok(Ok(result)) => match result.validate() {
                Ok(()) => Ok(result),
                Err(e) => Err(CallError::InvalidResult(e.under("/result"))),
            },
            Ok(Err(rpc)) => Err(CallError::Rpc(rpc)),
            Err(invalid) => Err(CallError::InvalidResult(invalid)),
        }
    }

    /// Sends a request the protocol may not define, unvalidated and unchecked, and waits for
    /// its response: for probing a peer's error handling, not for normal traffic.
    pub async fn request_raw(
        &self,
        method: &str,
        params: Option<serde_json::Value>,
    ) -> Result<Response, CallError> {
        let (id, rx) = self.register(false)?;
        let _forget = Forget {
            inner: &self.inner,
            id: id.clone(),
        };
        let mut msg = serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method});
        if let Some(params) = params {
            msg["params"] = params;
        }
        let sent = self.send_frame(msg.to_string()).await;
        self.await_reply(sent, rx).await
    }

    /// Sends `body` as one frame as it is, unchecked (for probing a peer with broken input).
    pub async fn send_frame(&self, body: String) -> Result<(), SendError> {
        let permit = self
            .inner
            .tx
            .reserve()
            .await
            .map_err(|_| SendError::Closed)?;
        permit.send(body);
        Ok(())
    }

    fn register(&self, checked: bool) -> Result<(RequestId, oneshot::Receiver<Reply>), CallError> {
        let id = RequestId::Number(self.inner.next_id.fetch_add(1, Ordering::Relaxed));
        let (tx, rx) = oneshot::channel();
        let mut pending = lock(&self.inner.pending);
        if pending.len() >= self.inner.config.max_outstanding {
            return Err(CallError::TooManyOutstanding(
                self.inner.config.max_outstanding,
            ));
        }
        pending.insert(id.clone(), Waiting { reply: tx, checked });
        Ok((id, rx))
    }

    async fn await_reply(
        &self,
        sent: Result<(), SendError>,
        rx: oneshot::Receiver<Reply>,
    ) -> Result<Response, CallError> {
        sent?;
        let reply = match self.inner.config.request_timeout {
            Some(limit) => match tokio::time::timeout(limit, rx).await {
                Ok(reply) => reply,
                Err(_) => return Err(CallError::Timeout(limit)),
            },
            None => rx.await,
        };
        reply.unwrap_or(Err(CallError::Closed))
    }

    /// Sequence-checks and queues a message; the check and the queueing happen under one lock
    /// so the checker's order is the wire order.
    async fn send_checked(&self, msg: Outbound<S>) -> Result<(), SendError> {
        let text = msg.to_json();
        let permit = self
            .inner
            .tx
            .reserve()
            .await
            .map_err(|_| SendError::Closed)?;
        let mut gate = lock(&self.inner.gate);
        if let Err(v) = gate.admit(|c| S::observe_outbound(c, &msg)) {
            self.inner
                .counters
                .violations
                .fetch_add(1, Ordering::Relaxed);
            return Err(SendError::Violation(v));
        }
        permit.send(text);
        Ok(())
    }

    /// Answers an inbound request that the checker admitted.
    async fn respond(&self, id: RequestId, outcome: Answer) {
        let outcome = match outcome {
            Ok(raw) => Outcome::Result(raw),
            Err(e) => Outcome::Error(e),
        };
        let msg = Message::Response(Response {
            id: Some(id),
            outcome,
        });
        if let Err(e) = self.send_checked(msg).await {
            tracing::error!(error = %e, "response not sent");
        }
    }

    /// Answers a refused inbound message. The checker never saw what this answers, so the
    /// answer bypasses it too.
    async fn refuse(&self, id: Option<RequestId>, error: RpcError) {
        let msg: Outbound<S> = Message::Response(Response {
            id,
            outcome: Outcome::Error(error),
        });
        if self.send_frame(msg.to_json()).await.is_err() {
            tracing::debug!("error answer not sent: connection closed");
        }
    }

    async fn read_loop<R, D>(self, mut frames: FramedRead<R, ContentLengthCodec>, dispatch: D)
    where
        R: AsyncRead + Send + Unpin + 'static,
        D: Dispatch<S>,
    {
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
                item = frames.next() => item,
                () = deadline.tick() => match deadline.judge(frames.decoder().mid_frame()) {
                    Some(expired) => {
                        tracing::warn!(?expired, "closing a connection too slow to read from");
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
                    tracing::warn!(error = %framing, "bad frame");
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
            let Some(msg) = self.admit_inbound(&text).await else {
                continue;
            };
            match msg {
                Message::Request { id, request } => {
                    // Over the limit the request is answered at once rather than waited for:
                    // waiting would stop the reader, and a running request may itself be
                    // waiting for a notification behind it (a tool approval).
                    let Ok(permit) = Arc::clone(&in_flight).try_acquire_owned() else {
                        let busy = RpcError {
                            code: SERVER_BUSY,
                            message: format!(
                                "more than {} requests in flight",
                                self.inner.config.max_in_flight
                            ),
                            data: None,
                        };
                        self.respond(id, Err(busy)).await;
                        continue;
                    };
                    let peer = self.clone();
                    let work = dispatch.request(self.clone(), request);
                    tasks.spawn(async move {
                        // A panicking handler costs its own request (answered -32603), not
                        // the connection or the caller's wait.
                        let outcome = AssertUnwindSafe(work)
                            .catch_unwind()
                            .await
                            .unwrap_or_else(|_| Err(handler_panicked()));
                        peer.respond(id, outcome).await;
                        drop(permit);
                    });
                }
                Message::Notification(n) => {
                    let work = dispatch.notification(self.clone(), n);
                    if AssertUnwindSafe(work).catch_unwind().await.is_err() {
                        tracing::error!("notification handler panicked");
                    }
                }
                Message::Response(response) => self.deliver(response),
            }
        }
        cancel.cancel();
        tasks.abort_all();
        self.finish_checker();
        // Outstanding calls end with `Closed` when their reply senders drop.
        lock(&self.inner.pending).clear();
    }

    /// Reports what the connection left mid-flow. Only logged: the peer is gone, there is
    /// nobody to answer.
    fn finish_checker(&self) {
        let _ = lock(&self.inner.gate).admit(|checker| {
            if let Err(unfinished) = S::finish(std::mem::take(checker)) {
                for v in unfinished {
                    tracing::warn!(violation = %v, "connection ended mid-flow");
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
        tracing::warn!(%violation, "inbound message out of sequence, refused");
        match msg {
            Message::Request { id, .. } => {
                let error = violation_error(self.inner.config.violation_code, &violation);
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

    async fn refuse_invalid(&self, text: &str, invalid: &Invalid) {
        let shape = probe::probe(text);
        let syntax = invalid
            .errors
            .first()
            .is_some_and(|e| e.rule == Rule::Syntax);
        if !syntax && shape.is_notification() {
            tracing::warn!(error = %invalid, "invalid notification dropped");
            return;
        }
        if !syntax && shape.is_response() {
            tracing::warn!(error = %invalid, "invalid response dropped");
            if let Some(w) = shape
                .id
                .as_ref()
                .and_then(|id| lock(&self.inner.pending).remove(id))
            {
                let _ = w.reply.send(Err(CallError::InvalidResult(invalid.clone())));
            }
            return;
        }
        tracing::warn!(error = %invalid, "invalid message answered with an error");
        let id = if syntax { None } else { shape.id };
        self.refuse(id, RpcError::for_invalid(invalid)).await;
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
            None => tracing::warn!(id = ?response.id, "response to no outstanding request dropped"),
        }
    }
}

/// The code answering a request beyond `Config::max_in_flight`: the first of JSON-RPC's
/// implementation-defined server errors.
pub const SERVER_BUSY: i64 = -32000;

fn handler_panicked() -> RpcError {
    tracing::error!("request handler panicked");
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

async fn write_loop<W: AsyncWrite + Unpin>(
    mut sink: FramedWrite<W, ContentLengthCodec>,
    mut rx: mpsc::Receiver<String>,
    cancel: CancellationToken,
) -> std::io::Result<()> {
    let result = loop {
        let frame = tokio::select! {
            biased;
            frame = rx.recv() => frame,
            _ = cancel.cancelled() => break Ok(()),
        };
        let Some(frame) = frame else { break Ok(()) };
        if let Err(e) = write_batch(&mut sink, &mut rx, frame).await {
            break Err(e);
        }
    };
    cancel.cancel();
    // Frames queued before the shutdown (the answer to `shutdown`, say) still go out.
    rx.close();
    if result.is_ok() {
        while let Some(frame) = rx.recv().await {
            sink.feed(frame).await?;
        }
        sink.flush().await?;
    }
    let _ = sink.get_mut().shutdown().await;
    result
}

/// Writes `first` and whatever else is already queued, then flushes once.
async fn write_batch<W: AsyncWrite + Unpin>(
    sink: &mut FramedWrite<W, ContentLengthCodec>,
    rx: &mut mpsc::Receiver<String>,
    first: String,
) -> std::io::Result<()> {
    sink.feed(first).await?;
    while let Ok(more) = rx.try_recv() {
        sink.feed(more).await?;
    }
    sink.flush().await
}
