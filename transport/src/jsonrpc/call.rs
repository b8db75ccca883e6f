//! One outbound request in flight: its id, the progress the peer reports for it, its
//! response, and its cancellation.

use agentwire_runtime::Validate;
use agentwire_runtime::jsonrpc::{RequestId, RequestSet, Response};
use tokio::sync::{mpsc, oneshot};

use super::error::{CallError, SendError};
use super::peer::{Peer, Reply, Side, Waiting, lock};

/// Progress notifications buffered per call before later ones are dropped.
const PROGRESS_QUEUE: usize = 64;

/// An outbound request that was sent and waits for its answer. Dropping it stops waiting
/// (the answer, if it comes, is logged and dropped).
pub struct Pending<S: Side> {
    peer: Peer<S>,
    id: RequestId,
    method: &'static str,
    rx: Option<oneshot::Receiver<Reply>>,
    progress: Option<mpsc::Receiver<S::InNotification>>,
    token: Option<String>,
}

impl<S: Side> std::fmt::Debug for Pending<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pending")
            .field("id", &self.id)
            .field("method", &self.method)
            .field("progress_token", &self.token)
            .finish()
    }
}

impl<S: Side> Pending<S> {
    /// Records a request about to be sent, so its answer finds its way back.
    pub(super) fn register(
        peer: &Peer<S>,
        id: RequestId,
        method: &'static str,
        checked: bool,
    ) -> Result<Self, CallError> {
        let (tx, rx) = oneshot::channel();
        let mut pending = lock(&peer.inner.pending);
        let max = peer.inner.config.max_outstanding;
        if pending.len() >= max {
            return Err(CallError::TooManyOutstanding(max));
        }
        pending.insert(id.clone(), Waiting { reply: tx, checked });
        Ok(Self {
            peer: peer.clone(),
            id,
            method,
            rx: Some(rx),
            progress: None,
            token: None,
        })
    }

    /// Routes the progress notifications carrying `token` (as JSON text) to this call.
    pub(super) fn listen(&mut self, token: String) {
        let (tx, rx) = mpsc::channel(PROGRESS_QUEUE);
        lock(&self.peer.inner.progress).insert(token.clone(), tx);
        self.progress = Some(rx);
        self.token = Some(token);
    }

    /// The request's id on the wire.
    pub fn id(&self) -> &RequestId {
        &self.id
    }

    /// The request's method.
    pub fn method(&self) -> &'static str {
        self.method
    }

    /// The progress notifications the peer sends for this call, in arrival order; `None`
    /// when the request carried no progress token (or the protocol declares no progress).
    /// Taken out so another task can read them while this one awaits the result.
    pub fn take_progress(&mut self) -> Option<mpsc::Receiver<S::InNotification>> {
        self.progress.take()
    }

    /// Cancels the call as the protocol declares: sends the cancel notification; the
    /// response, if the peer still sends one, is dropped.
    pub async fn cancel(self) -> Result<(), SendError> {
        self.peer.cancel(&self.id).await
    }

    /// Waits for the response (within `Config::request_timeout`).
    pub async fn response(mut self) -> Result<Response, CallError> {
        let Some(rx) = self.rx.take() else {
            return Err(CallError::Closed);
        };
        let reply = match self.peer.inner.config.request_timeout {
            Some(limit) => match tokio::time::timeout(limit, rx).await {
                Ok(reply) => reply,
                Err(_) => return Err(CallError::Timeout(limit)),
            },
            None => rx.await,
        };
        reply.unwrap_or(Err(CallError::Closed))
    }

    /// Waits for the response and decodes and validates its typed result.
    pub async fn result(self) -> Result<<S::OutRequest as RequestSet>::Result, CallError>
    where
        S::OutRequest: RequestSet,
    {
        let method = self.method;
        let response = self.response().await?;
        match response.typed_result::<S::OutRequest>(method) {
            Ok(Ok(result)) => match result.validate() {
                Ok(()) => Ok(result),
                Err(e) => Err(CallError::InvalidResult(e.under("/result"))),
            },
            Ok(Err(rpc)) => Err(CallError::Rpc(rpc)),
            Err(invalid) => Err(CallError::InvalidResult(invalid)),
        }
    }
}

impl<S: Side> Drop for Pending<S> {
    fn drop(&mut self) {
        // However the caller stops waiting (answer, error, timeout, a dropped future), the
        // call stops counting against `max_outstanding`.
        lock(&self.peer.inner.pending).remove(&self.id);
        if let Some(token) = &self.token {
            lock(&self.peer.inner.progress).remove(token);
        }
    }
}
