//! The typed handle of either end of a generated JSON-RPC skeleton, and the stream of the
//! notifications a connecting end receives.
//!
//! A skeleton declares, per side, only what differs between protocols: its typed sends (one
//! method per message the side sends, [`Bound::Sends`]) and how a fresh checker is made. The
//! handle itself (the request a handler was given, closing, the raw peer) is this one type,
//! so every generated skeleton shares it instead of carrying a copy.

use std::ops::Deref;
use std::pin::Pin;
use std::task::{Context, Poll};

use agentwire_runtime::jsonrpc::RequestId;
use agentwire_runtime::machine::Limits;
use tokio::sync::mpsc;

use super::peer::{Incoming, Peer, Side};

/// What a generated skeleton binds for one side beyond its [`Side`]: the typed sends its
/// handle dereferences to, and a fresh sequence checker with given limits.
pub trait Bound: Side + Sized {
    /// One method per request or notification this side sends, over its connection.
    type Sends: From<Peer<Self>> + Clone + std::fmt::Debug + Send + Sync + 'static;

    /// A fresh sequence checker holding at most `limits`.
    fn checker(limits: Limits) -> Self::Checker;
}

/// One side's handle on a connection: its typed sends (through `Deref`), and, when it was
/// handed to a request handler, that request (`request_id`, `progress_token`, `incoming`),
/// with every send tagged as related to it.
pub struct Handle<S: Bound> {
    sends: S::Sends,
    peer: Peer<S>,
    call: Option<Incoming<S>>,
}

impl<S: Bound> Handle<S> {
    /// The handle of a whole connection, not tied to any request.
    pub fn new(peer: Peer<S>) -> Self {
        Self {
            sends: S::Sends::from(peer.clone()),
            peer,
            call: None,
        }
    }

    /// The handle given to the handler of `call`: its sends are related to that request.
    pub fn for_call(call: Incoming<S>) -> Self {
        Self {
            sends: S::Sends::from(call.peer.clone()),
            peer: call.peer.clone(),
            call: Some(call),
        }
    }

    /// The inbound request this handle was given for (its id, progress token and
    /// cancellation); `None` outside a request handler.
    pub fn incoming(&self) -> Option<&Incoming<S>> {
        self.call.as_ref()
    }

    /// The id of the inbound request this handle was given for.
    pub fn request_id(&self) -> Option<&RequestId> {
        self.call.as_ref().map(|c| &c.id)
    }

    /// The progress token of the inbound request this handle was given for, when its
    /// caller asked for progress.
    pub fn progress_token(&self) -> Option<&serde_json::Value> {
        self.call.as_ref().and_then(|c| c.progress_token.as_ref())
    }

    /// What the transport attached to the inbound request this handle was given for, by
    /// type: over Streamable HTTP, whatever a layer in front of the endpoint put in that
    /// HTTP request's extensions (an OAuth resource server's caller identity, say). `None`
    /// outside a request handler, over a byte stream, or when no layer set one. Read per
    /// request: a client whose credentials change mid-session is seen with the new ones
    /// from its next request on.
    pub fn extension<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.call.as_ref()?.extensions.get::<T>()
    }

    /// Ends the connection: queued messages are flushed, then the stream is closed.
    pub fn close(&self) {
        self.peer.shutdown();
    }

    /// The underlying connection (counters, `start` for a call's id and progress, raw
    /// frames for tests).
    pub fn peer(&self) -> &Peer<S> {
        &self.peer
    }
}

impl<S: Bound> Deref for Handle<S> {
    type Target = S::Sends;

    fn deref(&self) -> &S::Sends {
        &self.sends
    }
}

impl<S: Bound> Clone for Handle<S> {
    fn clone(&self) -> Self {
        Self {
            sends: self.sends.clone(),
            peer: self.peer.clone(),
            call: self.call.clone(),
        }
    }
}

impl<S: Bound> std::fmt::Debug for Handle<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Handle")
            .field("peer", &self.peer)
            .field("call", &self.call)
            .finish()
    }
}

/// The notifications the other side sends, validated and sequence-checked, in arrival
/// order. Reading is backpressured: while this stream is not drained, the connection stops
/// reading once `Config::queue` notifications wait. Ends when the connection ends.
#[derive(Debug)]
pub struct Notifications<N> {
    rx: mpsc::Receiver<N>,
}

impl<N> Notifications<N> {
    pub(super) fn new(rx: mpsc::Receiver<N>) -> Self {
        Self { rx }
    }

    /// The next notification; `None` once the connection has ended.
    pub async fn recv(&mut self) -> Option<N> {
        self.rx.recv().await
    }
}

impl<N> futures_util::Stream for Notifications<N> {
    type Item = N;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<N>> {
        self.rx.poll_recv(cx)
    }
}
