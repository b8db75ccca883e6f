//! The seam between the transport and a JSON-RPC engine: one [`SessionPipe`] per session,
//! messages in and messages out, with the client request each outgoing message relates to.

use agentwire_runtime::jsonrpc::RequestId;

pub use crate::jsonrpc::Delivered;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// What runs behind the server: given each new session's pipe, it answers the session's
/// messages (typically by spawning a JSON-RPC engine task that owns the pipe).
pub trait Service: Send + Sync + 'static {
    /// A client's `initialize` request opened a session. The `initialize` request is the
    /// first message on `pipe.inbound`. Must not block: spawn the work.
    fn open(&self, pipe: SessionPipe);
}

impl<F: Fn(SessionPipe) + Send + Sync + 'static> Service for F {
    fn open(&self, pipe: SessionPipe) {
        self(pipe)
    }
}

/// One session as the engine sees it.
#[derive(Debug)]
pub struct SessionPipe {
    /// The session's id, as sent in the profile's session header.
    pub id: String,
    /// The client's messages, one JSON-RPC message each, in arrival order, with the
    /// extensions of the HTTP request that carried it (where a layer in front of the
    /// endpoint, such as an OAuth resource server, leaves the caller's identity). Ends when
    /// the session ends (DELETE, idle expiry, server shutdown).
    pub inbound: mpsc::Receiver<Delivered>,
    /// The engine's messages to the client. Dropping every clone ends the session.
    pub outbound: mpsc::Sender<Outgoing>,
    /// Cancelled when the session ends, whoever ends it.
    pub ended: CancellationToken,
    /// For one message served on its own, outside any session (a protocol whose messages
    /// name their version: `Profile::version_source`), the version it named, which the
    /// transport checked against the profile's; the pipe then carries that one message and
    /// ends once it is answered. `None` for a session, whose engine learns its version from
    /// the opening request.
    pub version: Option<String>,
}

impl SessionPipe {
    /// Connects this session to an engine driven by a pair of message channels (such as
    /// `jsonrpc`'s message link): the client's messages go into `incoming`, the engine's come
    /// out of `outgoing`, turned into [`Outgoing`] by `convert`. When either side ends, so
    /// does the other: the session ending drops `incoming` (ending the engine's connection),
    /// and `outgoing` closing ends the session.
    pub fn bridge<T: Send + 'static>(
        self,
        incoming: mpsc::Sender<Delivered>,
        mut outgoing: mpsc::Receiver<T>,
        convert: impl Fn(T) -> Outgoing + Send + 'static,
    ) {
        let SessionPipe {
            mut inbound,
            outbound,
            ended,
            ..
        } = self;
        let ended_too = ended.clone();
        tokio::spawn(async move {
            loop {
                // A message queued before the session ended still goes in (the one message
                // of a session served alone, say).
                let msg = tokio::select! {
                    biased;
                    m = inbound.recv() => m,
                    () = ended.cancelled() => None,
                };
                let Some(m) = msg else { break };
                if incoming.send(m).await.is_err() {
                    break;
                }
            }
        });
        tokio::spawn(async move {
            loop {
                let msg = tokio::select! {
                    m = outgoing.recv() => m,
                    () = ended_too.cancelled() => None,
                };
                // Converted before the send, so that no borrow of `convert` is held across it.
                let Some(out) = msg.map(&convert) else { break };
                if outbound.send(out).await.is_err() {
                    break;
                }
            }
        });
    }
}

/// One message from the engine to the client.
#[derive(Debug, Clone, PartialEq)]
pub struct Outgoing {
    /// A single JSON-RPC message (request, notification or response), as JSON text.
    pub json: String,
    /// The client request this message belongs to (progress of a `tools/call`, a sampling
    /// request made while serving it): it then travels on that request's POST stream while
    /// it is open. A response is routed by its own id; leave this `None` for it.
    pub related: Option<RequestId>,
}

impl Outgoing {
    /// A message not tied to any client request (it goes on the GET stream).
    pub fn unrelated(json: impl Into<String>) -> Self {
        Self {
            json: json.into(),
            related: None,
        }
    }

    /// A message sent while serving the client request `id`.
    pub fn related_to(json: impl Into<String>, id: RequestId) -> Self {
        Self {
            json: json.into(),
            related: Some(id),
        }
    }
}
