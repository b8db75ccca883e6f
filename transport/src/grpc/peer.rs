//! The accepting side's handle on one registered peer: its hello, the checked link to it,
//! the request in flight and where that request's responses go.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::binding::Binding;
use super::{Link, SendError};

/// Responses of one request queued for its reader; a full queue pauses reading of that
/// peer's stream only.
const RESPONSE_BUFFER: usize = 64;

/// The request in flight on a stream and where its responses go.
type Pending<R> = Option<(String, mpsc::Sender<R>)>;

struct Shared<B: Binding> {
    hello: B::Hello,
    link: Link<B::Down, B::Checker>,
    pending: Mutex<Pending<B::Response>>,
    close: CancellationToken,
}

/// A handle on one connected peer: what the accepting side may send it. Clones share the
/// stream; every send is feature-gated, validated and checked (per the mode) before it is
/// queued.
pub struct Peer<B: Binding> {
    shared: Arc<Shared<B>>,
}

impl<B: Binding> Clone for Peer<B> {
    fn clone(&self) -> Self {
        Self {
            shared: Arc::clone(&self.shared),
        }
    }
}

impl<B: Binding> std::fmt::Debug for Peer<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Peer").field("id", &self.peer_id()).finish()
    }
}

impl<B: Binding> Peer<B> {
    pub(crate) fn new(
        hello: B::Hello,
        link: Link<B::Down, B::Checker>,
        close: CancellationToken,
    ) -> Self {
        let shared = Shared {
            hello,
            link,
            pending: Mutex::new(None),
            close,
        };
        Self {
            shared: Arc::new(shared),
        }
    }

    /// The id the peer registered with.
    pub fn peer_id(&self) -> &str {
        B::peer_id(&self.shared.hello)
    }

    /// The hello the peer sent.
    pub fn hello(&self) -> &B::Hello {
        &self.shared.hello
    }

    /// Whether the peer declared `feature` in its hello.
    pub fn has_feature(&self, feature: &str) -> bool {
        B::features(&self.shared.hello).iter().any(|f| f == feature)
    }

    fn pending(&self) -> MutexGuard<'_, Pending<B::Response>> {
        // Every update is one assignment, so the value is whole whatever panicked.
        self.shared
            .pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The request in flight, if any.
    pub fn busy_with(&self) -> Option<String> {
        self.pending().as_ref().map(|(id, _)| id.clone())
    }

    /// Sends `msg`, refused with [`SendError::FeatureNotDeclared`] when it belongs to a
    /// feature the peer did not declare (in every check mode).
    pub async fn send(&self, msg: B::Down) -> Result<(), SendError> {
        if let Some(feature) = B::down_feature(&msg)
            && !self.has_feature(feature)
        {
            return Err(SendError::FeatureNotDeclared(feature));
        }
        self.shared.link.send(msg, B::observe_down).await
    }

    /// Sends a request and returns its responses. A peer takes one request at a time: while
    /// one is in flight this is refused with [`SendError::Busy`].
    pub async fn request(&self, request: B::Request) -> Result<ResponseStream<B>, SendError> {
        let request_id = B::request_id(&request).to_owned();
        let (tx, rx) = mpsc::channel(RESPONSE_BUFFER);
        {
            let mut pending = self.pending();
            if let Some((busy, _)) = pending.as_ref() {
                return Err(SendError::Busy(busy.clone()));
            }
            // Registered before the send, so the first response cannot arrive unrouted.
            *pending = Some((request_id.clone(), tx));
        }
        if let Err(e) = self.send(B::wrap_request(request)).await {
            *self.pending() = None;
            return Err(e);
        }
        Ok(ResponseStream { request_id, rx })
    }

    /// Ends the peer's stream now (status OK), after what is already queued.
    pub fn close(&self) {
        self.shared.close.cancel();
    }

    /// Forgets the request in flight (the stream ended); returns its id.
    pub(crate) fn abandon(&self) -> Option<String> {
        self.pending().take().map(|(id, _)| id)
    }

    /// Hands a response to the reader of its request.
    pub(crate) async fn route(&self, response: B::Response) {
        let terminal = B::is_terminal(&response);
        let target = {
            let mut pending = self.pending();
            match pending.as_ref() {
                Some((id, tx)) if id == B::response_id(&response) => {
                    let tx = tx.clone();
                    if terminal {
                        *pending = None;
                    }
                    Some(tx)
                }
                // Only reachable when the checker is off or warns: a response for no request
                // in flight has no reader.
                _ => None,
            }
        };
        match target {
            Some(tx) => {
                if tx.send(response).await.is_err() {
                    tracing::debug!("response dropped: its reader is gone");
                }
            }
            None => crate::warn_throttled!(
                request_id = %B::response_id(&response),
                "response for no request in flight dropped"
            ),
        }
    }
}

/// One request's responses, in order, ending after its terminal one (or early, without
/// one, when the stream broke).
pub struct ResponseStream<B: Binding> {
    request_id: String,
    rx: mpsc::Receiver<B::Response>,
}

impl<B: Binding> std::fmt::Debug for ResponseStream<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResponseStream")
            .field("request_id", &self.request_id)
            .finish()
    }
}

impl<B: Binding> ResponseStream<B> {
    pub fn request_id(&self) -> &str {
        &self.request_id
    }

    /// The next response; `None` after the terminal one or when the stream ended.
    pub async fn next(&mut self) -> Option<B::Response> {
        self.rx.recv().await
    }

    /// Every remaining response.
    pub async fn collect(mut self) -> Vec<B::Response> {
        let mut out = Vec::new();
        while let Some(e) = self.rx.recv().await {
            out.push(e);
        }
        out
    }
}
