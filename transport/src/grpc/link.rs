//! The checked outbound side of one stream, shared by every handle that may write to it.

use std::sync::Arc;

use agentwire_runtime::Validate;
use agentwire_runtime::machine::Violation;
use tokio::sync::{Mutex, mpsc};
use tonic::Status;

use super::SendError;
use crate::check::Gate;

/// Writes messages to one stream after validating them and showing them to the stream's
/// checker. The checker is shared with the inbound side, so it sees both directions in
/// wire order: the lock is held until the message is queued.
pub struct Link<M, C> {
    tx: mpsc::Sender<Result<M, Status>>,
    gate: Arc<Mutex<Gate<C>>>,
}

impl<M, C> Clone for Link<M, C> {
    fn clone(&self) -> Self {
        Self {
            tx: self.tx.clone(),
            gate: Arc::clone(&self.gate),
        }
    }
}

impl<M: Validate, C> Link<M, C> {
    pub fn new(tx: mpsc::Sender<Result<M, Status>>, gate: Arc<Mutex<Gate<C>>>) -> Self {
        Self { tx, gate }
    }

    /// The checker gate, for the inbound side of the same stream.
    pub fn gate(&self) -> &Mutex<Gate<C>> {
        &self.gate
    }

    /// Validates, checks (per the gate's mode) and queues `msg`.
    pub async fn send(
        &self,
        msg: M,
        observe: impl FnOnce(&mut C, &M) -> Result<(), Violation>,
    ) -> Result<(), SendError> {
        msg.validate()?;
        let mut gate = self.gate.lock().await;
        gate.admit(|c| observe(c, &msg))?;
        self.tx.send(Ok(msg)).await.map_err(|_| SendError::Closed)
    }

    /// Queues `msg` without showing it to the checker: for the protocol's own error
    /// answers to input the checker already refused.
    pub async fn send_unchecked(&self, msg: M) -> Result<(), SendError> {
        self.tx.send(Ok(msg)).await.map_err(|_| SendError::Closed)
    }

    /// Ends the stream with `status` after what is already queued.
    pub async fn fail(&self, status: Status) {
        // A closed stream has no one left to tell.
        let _ = self.tx.send(Err(status)).await;
    }

    pub fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }
}
