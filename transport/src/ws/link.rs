//! One live connection as the code that talks on it sees it: the shared checker gate and
//! the queue to the socket writer, in the order the checker saw the messages.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use agentwire_runtime::machine::{Limits, Violation};
use futures_util::{Sink, SinkExt};
use tokio::sync::{Mutex, mpsc};

use super::{Refused, Side};
use crate::check::{CheckMode, Gate};

/// A frame for the writer task.
pub(crate) enum Outgoing {
    Text(String),
    /// A keep-alive ping (server side, when the peer has been quiet).
    Ping,
    /// A close frame, with a status code when the close has a reason the peer should know.
    Close(Option<super::close::CloseReason>),
}

/// Why a message was not sent.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SendError {
    /// The checker (enforce mode) refused it; nothing went out.
    #[error("not sent, out of sequence: {0}")]
    Violation(#[from] Violation),
    /// The connection is closed.
    #[error("the connection is closed")]
    Closed,
}

/// The sending half of one connection, cheap to clone; every clone shares the connection's
/// checker, so messages from concurrent tasks are checked in the order they are queued.
pub struct Link<S: Side> {
    connection: u64,
    gate: Arc<Mutex<Gate<S::Checker>>>,
    tx: mpsc::Sender<Outgoing>,
    refusals: Arc<AtomicU64>,
}

impl<S: Side> Clone for Link<S> {
    fn clone(&self) -> Self {
        Self {
            connection: self.connection,
            gate: self.gate.clone(),
            tx: self.tx.clone(),
            refusals: self.refusals.clone(),
        }
    }
}

impl<S: Side> std::fmt::Debug for Link<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Link")
            .field("role", &S::ROLE)
            .field("connection", &self.connection)
            .finish()
    }
}

impl<S: Side> Link<S> {
    pub(crate) fn new(
        connection: u64,
        mode: CheckMode,
        max_sessions: usize,
        tx: mpsc::Sender<Outgoing>,
    ) -> Self {
        let limits = Limits {
            max_instances: max_sessions,
        };
        Self {
            connection,
            gate: Arc::new(Mutex::new(Gate::new(mode, S::checker(limits)))),
            tx,
            refusals: Arc::new(AtomicU64::new(0)),
        }
    }

    /// The connection's number, unique within one server or client process.
    pub fn connection(&self) -> u64 {
        self.connection
    }

    /// Whether the writer has stopped (peer gone or connection closed).
    pub fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }

    /// Checks `msg` as outbound and queues it. In enforce mode a violation comes back and
    /// nothing is sent; the checker's state is unchanged, so later messages still flow.
    pub async fn send(&self, msg: &S::Outbound) -> Result<(), SendError> {
        let mut gate = self.gate.lock().await;
        gate.admit(|c| {
            S::resume_outbound(c, msg);
            S::observe_outbound(c, msg)
        })?;
        // Queued while the gate is held, so the socket order is the order the checker saw.
        self.tx
            .send(Outgoing::Text(S::encode(msg)))
            .await
            .map_err(|_| SendError::Closed)
    }

    /// Checks an inbound message; `Err` in enforce mode when it is out of sequence.
    pub(crate) async fn admit_inbound(&self, msg: &S::Inbound) -> Result<(), Violation> {
        self.gate.lock().await.admit(|c| {
            S::resume_inbound(c, msg);
            S::observe_inbound(c, msg)
        })
    }

    /// Logs a refused frame and sends the protocol's answer when it has one. The answer is
    /// checked like any message, but sent even when the checker objects: a peer that sent
    /// garbage is owed an explanation more than the sequence is owed tidiness.
    pub(crate) async fn refuse(&self, refused: Refused) {
        crate::warn_throttled!(role = S::ROLE, connection = self.connection, reason = %refused, "inbound frame refused");
        let seq = self.refusals.fetch_add(1, Ordering::Relaxed);
        let Some(answer) = S::refusal_answer(&refused, self.connection, seq) else {
            return;
        };
        let mut gate = self.gate.lock().await;
        if let Err(v) = gate.admit(|c| S::observe_outbound(c, &answer)) {
            crate::warn_throttled!(role = S::ROLE, violation = %v, "error answer sent out of sequence");
        }
        let _ = self.tx.send(Outgoing::Text(S::encode(&answer))).await;
    }

    /// Asks the writer to send a close frame and stop; later sends fail with `Closed`.
    pub async fn close(&self) {
        let _ = self.tx.send(Outgoing::Close(None)).await;
    }

    /// Closes with a status code and reason (or none).
    pub(crate) async fn close_with(&self, reason: Option<super::close::CloseReason>) {
        let _ = self.tx.send(Outgoing::Close(reason)).await;
    }

    /// Queues a ping without waiting: a full queue means traffic is flowing anyway.
    pub(crate) fn ping(&self) {
        let _ = self.tx.try_send(Outgoing::Ping);
    }
}

/// Drains the outbound queue into the socket, flushing only when the queue runs dry so a
/// burst of messages shares system calls. Ends on `Close`, on a write error, or when every
/// link is gone.
pub(crate) async fn write_loop<M, W>(
    mut sink: W,
    mut rx: mpsc::Receiver<Outgoing>,
    frame: fn(Outgoing) -> M,
) where
    W: Sink<M> + Unpin,
{
    while let Some(first) = rx.recv().await {
        let mut next = Some(first);
        while let Some(item) = next.take() {
            match item {
                Outgoing::Close(_) => {
                    let _ = sink.send(frame(item)).await;
                    let _ = sink.close().await;
                    rx.close();
                    return;
                }
                other => {
                    if sink.feed(frame(other)).await.is_err() {
                        rx.close();
                        return;
                    }
                }
            }
            next = rx.try_recv().ok();
        }
        if sink.flush().await.is_err() {
            rx.close();
            return;
        }
    }
    let _ = sink.close().await;
}
