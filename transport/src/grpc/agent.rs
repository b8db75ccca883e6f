//! The connecting role's engine: sends the hello, waits (bounded) for the answer, then reads
//! the accepting side's messages: one request at a time on its own task (a second one gets
//! the protocol's failure event), cancellation of the request in flight, shutdown after the
//! request finishes, heartbeats, and every other kind to the handler.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures_util::StreamExt;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tonic::{Status, Streaming};

use super::binding::{Answer, Binding, Down};
use super::{ConnectError, GrpcLimits, Link, SendError, admit_inbound, now_ms, outbound_stream};
use crate::check::{CheckMode, Gate};

/// What the generated agent binds: the protocol and the user's handler.
pub trait AgentSide: Send + Sync + 'static {
    type B: Binding;

    /// Answers one request through `reply`; runs on its own task.
    fn request(
        &self,
        request: <Self::B as Binding>::Request,
        reply: Reply<Self::B>,
    ) -> impl Future<Output = ()> + Send;

    /// The accepting side asked to wind down; the request in flight may still finish.
    fn shutdown(&self, msg: &<Self::B as Binding>::Down) -> impl Future<Output = ()> + Send;

    /// Any other kind (the handler's methods).
    fn dispatch(
        &self,
        session: &Session<Self::B>,
        msg: <Self::B as Binding>::Down,
    ) -> impl Future<Output = ()> + Send;
}

/// The connected, accepted side of a stream; clones share it.
pub struct Session<B: Binding> {
    link: Link<B::Up, B::Checker>,
    hello: Arc<B::Hello>,
    accept: Arc<B::Accept>,
    close: CancellationToken,
}

impl<B: Binding> Clone for Session<B> {
    fn clone(&self) -> Self {
        Self {
            link: self.link.clone(),
            hello: Arc::clone(&self.hello),
            accept: Arc::clone(&self.accept),
            close: self.close.clone(),
        }
    }
}

impl<B: Binding> Session<B> {
    /// The accepting side's answer to the hello.
    pub fn accept(&self) -> &B::Accept {
        &self.accept
    }

    /// The hello this side sent.
    pub fn hello(&self) -> &B::Hello {
        &self.hello
    }

    /// Whether this side declared `feature` in its hello.
    pub fn has_feature(&self, feature: &str) -> bool {
        B::features(&self.hello).iter().any(|f| f == feature)
    }

    /// Closes the stream (this half first; the accepting side then ends its own).
    pub fn close(&self) {
        self.close.cancel();
    }

    /// Sends `msg`, refused with [`SendError::FeatureNotDeclared`] when it belongs to a
    /// feature this side did not declare.
    pub async fn send(&self, msg: B::Up) -> Result<(), SendError> {
        if let Some(feature) = B::up_feature(&msg)
            && !self.has_feature(feature)
        {
            return Err(SendError::FeatureNotDeclared(feature));
        }
        self.link.send(msg, B::observe_up).await
    }
}

/// Why the request in flight has to stop, once a cancel arrived.
type CancelReason = Arc<Mutex<Option<String>>>;

fn reason_of(reason: &CancelReason) -> Option<String> {
    reason
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone()
}

/// The writer of one request's responses. Terminal events end the request; later sends
/// fail with [`SendError::Closed`].
pub struct Reply<B: Binding> {
    request_id: String,
    session: Session<B>,
    cancel: CancellationToken,
    reason: CancelReason,
    /// Shared with the engine, which ends a request the handler left open.
    finished: Arc<AtomicBool>,
}

impl<B: Binding> Reply<B> {
    pub fn request_id(&self) -> &str {
        &self.request_id
    }

    /// Fires when the accepting side cancels this request.
    pub fn cancelled(&self) -> impl Future<Output = ()> + Send + 'static {
        self.cancel.clone().cancelled_owned()
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// The cancel's reason, once cancelled.
    pub fn cancel_reason(&self) -> Option<String> {
        reason_of(&self.reason)
    }

    /// Sends one event (a terminal one ends the request).
    pub async fn event(&mut self, event: B::Event) -> Result<(), SendError> {
        if self.finished.load(Ordering::SeqCst) {
            return Err(SendError::Closed);
        }
        if let Some(feature) = B::event_feature(&event)
            && !self.session.has_feature(feature)
        {
            return Err(SendError::FeatureNotDeclared(feature));
        }
        let r = B::response(self.request_id.clone(), event);
        let terminal = B::is_terminal(&r);
        let msg = B::wrap_response(r);
        // Marked before the send: once the terminal event is out the other side may send
        // its next request at once, and the reading loop must not find this one in flight
        // (it would answer "busy"). A failed send takes the mark back.
        if terminal {
            self.finished.store(true, Ordering::SeqCst);
        }
        let sent = self.session.link.send(msg, B::observe_up).await;
        if terminal && sent.is_err() {
            self.finished.store(false, Ordering::SeqCst);
        }
        sent
    }

    /// Sends a terminal event: taking `self` makes the request end once.
    pub async fn finish(mut self, event: B::Event) -> Result<(), SendError> {
        self.event(event).await
    }

    /// Ends the request as cancelled, echoing the cancel's reason.
    pub async fn cancel_done(self) -> Result<(), SendError> {
        let reason = self.cancel_reason().unwrap_or_default();
        match B::cancelled(reason) {
            Some(event) => self.finish(event).await,
            None => Err(SendError::Closed),
        }
    }
}

/// Ends a request the handler left open, so every request gets exactly one terminal event.
struct ReplyGuard<B: Binding> {
    request_id: String,
    link: Link<B::Up, B::Checker>,
    cancel: CancellationToken,
    reason: CancelReason,
    finished: Arc<AtomicBool>,
}

impl<B: Binding> ReplyGuard<B> {
    async fn finish(self, handler_failed: bool) {
        if self.finished.load(Ordering::SeqCst) {
            return;
        }
        let cancelled = self
            .cancel
            .is_cancelled()
            .then(|| B::cancelled(reason_of(&self.reason).unwrap_or_default()))
            .flatten();
        let event = match cancelled {
            Some(event) => event,
            None if handler_failed => B::failure("the agent failed while answering".to_owned()),
            None => B::failure("the agent ended the request without an answer".to_owned()),
        };
        let r = B::wrap_response(B::response(self.request_id, event));
        let _ = self.link.send(r, B::observe_up).await;
    }
}

/// How the connecting engine runs.
#[derive(Debug, Clone)]
pub struct AgentOptions {
    pub mode: CheckMode,
    pub limits: GrpcLimits,
}

/// The task that reads the stream of a connected agent.
pub struct AgentTask {
    task: JoinHandle<Result<(), Status>>,
}

impl AgentTask {
    /// Waits until the stream is over: `Ok` when it ended cleanly (after a shutdown or a
    /// close), the accepting side's status otherwise.
    pub async fn wait(self) -> Result<(), Status> {
        match self.task.await {
            Ok(r) => r,
            Err(e) => Err(Status::internal(format!("agent task failed: {e}"))),
        }
    }
}

/// The client's outbound messages as tonic's client wants them.
pub type UpStream<M> = std::pin::Pin<Box<dyn futures_util::Stream<Item = M> + Send + 'static>>;

/// Sends `hello` on a stream opened by `open` (the rpc call of the generated client), waits
/// at most `limits.idle_timeout` for the answer and, once accepted, serves `side` on a task.
pub async fn connect<S, F, Fut>(
    hello: <S::B as Binding>::Hello,
    options: AgentOptions,
    side: S,
    open: F,
) -> Result<(Session<S::B>, AgentTask), ConnectError<<S::B as Binding>::Refuse>>
where
    S: AgentSide,
    F: FnOnce(UpStream<<S::B as Binding>::Up>) -> Fut,
    Fut: Future<Output = Result<Streaming<<S::B as Binding>::Down>, Status>>,
{
    let (tx, rx) = tokio::sync::mpsc::channel(options.limits.outbound_buffer.max(1));
    let close = CancellationToken::new();
    let gate = Gate::new(options.mode, S::B::checker());
    let link = Link::new(tx, Arc::new(tokio::sync::Mutex::new(gate)));
    link.send(S::B::wrap_hello(hello.clone()), S::B::observe_up)
        .await?;
    // The client half carries no status items: it ends at the first one.
    let outbound = outbound_stream(rx, close.clone())
        .take_while(|r| std::future::ready(r.is_ok()))
        .filter_map(|r| std::future::ready(r.ok()));
    let mut inbound = open(Box::pin(outbound))
        .await
        .map_err(ConnectError::Status)?;
    let answer = match first_answer::<S::B>(&mut inbound, &link, &options.limits).await {
        Ok(answer) => answer,
        Err(e) => {
            close.cancel();
            return Err(e);
        }
    };
    let session = Session {
        link,
        hello: Arc::new(hello),
        accept: Arc::new(answer),
        close,
    };
    let run = Run {
        session: session.clone(),
        side: Arc::new(side),
        in_flight: None,
        draining: false,
    };
    let task = tokio::spawn(run.run(inbound, options.limits.heartbeat_interval));
    Ok((session, AgentTask { task }))
}

/// The accept, or why there is none. A side that never answers must not hang the caller.
async fn first_answer<B: Binding>(
    inbound: &mut Streaming<B::Down>,
    link: &Link<B::Up, B::Checker>,
    limits: &GrpcLimits,
) -> Result<B::Accept, ConnectError<B::Refuse>> {
    let wait = limits.idle_timeout.unwrap_or(Duration::from_secs(90));
    let first = match tokio::time::timeout(wait, inbound.message()).await {
        Ok(Ok(Some(m))) => m,
        Ok(Ok(None)) => return Err(ConnectError::Unexpected("the stream ended".to_owned())),
        Ok(Err(status)) => return Err(ConnectError::Status(status)),
        Err(_) => {
            return Err(ConnectError::Status(Status::deadline_exceeded(format!(
                "no answer to the registration within {} ms",
                wait.as_millis()
            ))));
        }
    };
    if let Err(status) =
        admit_inbound(B::INVALID_STATUS, link.gate(), &first, B::observe_down).await
    {
        return Err(ConnectError::Unexpected(status.message().to_owned()));
    }
    match B::classify_answer(first) {
        Answer::Accepted(a) => Ok(a),
        Answer::Refused(r) => Err(ConnectError::Rejected(r)),
        Answer::Other(m) => Err(ConnectError::Unexpected(format!("{m:?}"))),
    }
}

/// The request in flight on the connecting side.
struct InFlight {
    request_id: String,
    cancel: CancellationToken,
    reason: CancelReason,
    /// Set once its terminal event is queued: from then on the other side may send the
    /// next request, even while the handler's task is still winding down.
    finished: Arc<AtomicBool>,
    task: JoinHandle<()>,
}

impl InFlight {
    fn answered(&self) -> bool {
        self.finished.load(Ordering::SeqCst) || self.task.is_finished()
    }
}

/// The reading loop's state.
struct Run<S: AgentSide> {
    session: Session<S::B>,
    side: Arc<S>,
    in_flight: Option<InFlight>,
    draining: bool,
}

/// Resolves when the request in flight finished (never when there is none).
async fn wait_finished(in_flight: &mut Option<InFlight>) {
    match in_flight.as_mut() {
        Some(f) => {
            let _ = (&mut f.task).await;
        }
        None => std::future::pending().await,
    }
}

impl<S: AgentSide> Run<S> {
    /// Reads the accepting side's messages and sends heartbeats until the stream ends.
    async fn run(
        mut self,
        mut inbound: Streaming<<S::B as Binding>::Down>,
        heartbeat_every: Duration,
    ) -> Result<(), Status> {
        let mut beat = tokio::time::interval(heartbeat_every.max(Duration::from_millis(10)));
        beat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        // The first tick is immediate; the accept just proved the stream alive.
        beat.tick().await;
        let close = self.session.close.clone();
        let result = loop {
            if self
                .in_flight
                .as_ref()
                .is_some_and(|f| f.task.is_finished())
            {
                self.in_flight = None;
            }
            if self.draining && self.in_flight.as_ref().is_none_or(InFlight::answered) {
                tracing::debug!("shut down with no request in flight: closing");
                break Ok(());
            }
            let msg = tokio::select! {
                biased;
                () = close.cancelled() => break Ok(()),
                _ = beat.tick() => {
                    self.heartbeat().await;
                    continue;
                }
                () = wait_finished(&mut self.in_flight) => continue,
                r = inbound.message() => match r {
                    Ok(Some(m)) => m,
                    Ok(None) => {
                        tracing::debug!("the accepting side ended the stream");
                        break Ok(());
                    }
                    Err(status) => break Err(status),
                },
            };
            self.take(msg).await;
        };
        if let Some(f) = self.in_flight.take() {
            // Releases a handler that waits for cancellation; its sends fail from now on.
            f.cancel.cancel();
            f.task.abort();
        }
        close.cancel();
        // Dropping the response half would reset the whole stream and could discard what
        // this side queued last (its final event); wait, bounded, for the other side to end
        // the stream after reading our end.
        let flushed = async { while let Ok(Some(_)) = inbound.message().await {} };
        if tokio::time::timeout(Duration::from_secs(5), flushed)
            .await
            .is_err()
        {
            tracing::debug!("the accepting side did not end the stream after ours; dropping it");
        }
        result
    }

    async fn heartbeat(&self) {
        if let Some(hb) = S::B::heartbeat(now_ms())
            && let Err(e) = self.session.send(hb).await
        {
            tracing::warn!(error = %e, "heartbeat not sent");
        }
    }

    /// One inbound message.
    async fn take(&mut self, msg: <S::B as Binding>::Down) {
        let busy = self
            .in_flight
            .as_ref()
            .filter(|f| !f.answered())
            .map(|f| f.request_id.clone());
        if let (Some(busy), Some(r)) = (&busy, S::B::as_request(&msg)) {
            // One request at a time, whatever the check mode: the second one gets the
            // protocol's own answer, a failure event, and the first one carries on.
            let request_id = S::B::request_id(r).to_owned();
            crate::warn_throttled!(request_id = %request_id, busy = %busy, "request refused: another one is in flight");
            let event = S::B::failure(format!("busy with request {busy}"));
            let refusal = S::B::wrap_response(S::B::response(request_id, event));
            let _ = self.session.link.send_unchecked(refusal).await;
            return;
        }
        let gate = self.session.link.gate();
        if let Err(status) =
            admit_inbound(S::B::INVALID_STATUS, gate, &msg, S::B::observe_down).await
        {
            // This side has no status to answer with: the message is dropped and logged,
            // and the stream carries on.
            crate::warn_throttled!(error = %status.message(), "message refused");
            return;
        }
        match S::B::classify_down(msg) {
            Down::Request(r) => self.start(r),
            Down::Cancel { request_id, reason } => {
                if let Some(f) = self
                    .in_flight
                    .as_ref()
                    .filter(|f| f.request_id == request_id)
                {
                    *f.reason.lock().unwrap_or_else(PoisonError::into_inner) =
                        Some(reason.unwrap_or_else(|| "cancelled".to_owned()));
                    f.cancel.cancel();
                }
            }
            Down::Shutdown(m) => {
                self.side.shutdown(&m).await;
                self.draining = true;
            }
            Down::Answer => {
                crate::warn_throttled!("handshake answer on a registered stream dropped")
            }
            Down::Other(m) => self.side.dispatch(&self.session, m).await,
            Down::Empty => crate::warn_throttled!("message without payload dropped"),
        }
    }

    /// Starts the handler on a request, on its own task.
    fn start(&mut self, request: <S::B as Binding>::Request) {
        let request_id = S::B::request_id(&request).to_owned();
        let reply = Reply {
            request_id: request_id.clone(),
            session: self.session.clone(),
            cancel: CancellationToken::new(),
            reason: CancelReason::default(),
            finished: Arc::default(),
        };
        let guard = ReplyGuard::<S::B> {
            request_id: request_id.clone(),
            link: self.session.link.clone(),
            cancel: reply.cancel.clone(),
            reason: Arc::clone(&reply.reason),
            finished: Arc::clone(&reply.finished),
        };
        let cancel = reply.cancel.clone();
        let reason = Arc::clone(&reply.reason);
        let finished = Arc::clone(&reply.finished);
        let side = Arc::clone(&self.side);
        let task = tokio::spawn(async move {
            // The handler runs as its own task so that a panic in it still ends the request
            // with a failure event.
            let ran = tokio::spawn(async move { side.request(request, reply).await }).await;
            guard.finish(ran.is_err()).await;
        });
        // A previous request whose terminal event is out may still be winding down; its
        // task runs on, detached.
        self.in_flight = Some(InFlight {
            request_id,
            cancel,
            reason,
            finished,
            task,
        });
    }
}
