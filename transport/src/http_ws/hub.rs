//! Which WebSocket connections are attached to which session, for broadcasts.

use std::collections::HashMap;

use tokio::sync::mpsc;

/// Subscribers per session. A subscriber whose queue is full is dropped: its connection
/// sees its queue close and ends, instead of the server buffering without bound.
#[derive(Debug)]
pub struct Hub<T> {
    next_id: u64,
    sessions: HashMap<String, Vec<(u64, mpsc::Sender<T>)>>,
}

impl<T: Clone> Hub<T> {
    pub fn new() -> Self {
        Self {
            next_id: 0,
            sessions: HashMap::new(),
        }
    }

    /// Adds a subscriber; the id detaches it later.
    pub fn attach(&mut self, session_id: &str, tx: mpsc::Sender<T>) -> u64 {
        self.next_id += 1;
        let id = self.next_id;
        self.sessions
            .entry(session_id.to_owned())
            .or_default()
            .push((id, tx));
        id
    }

    pub fn detach(&mut self, session_id: &str, id: u64) {
        if let Some(subs) = self.sessions.get_mut(session_id) {
            subs.retain(|(i, _)| *i != id);
            if subs.is_empty() {
                self.sessions.remove(session_id);
            }
        }
    }

    /// Queues `msg` for every subscriber of the session; returns how many got it.
    pub fn broadcast(&mut self, session_id: &str, msg: &T) -> usize {
        let Some(subs) = self.sessions.get_mut(session_id) else {
            return 0;
        };
        subs.retain(|(id, tx)| match tx.try_send(msg.clone()) {
            Ok(()) => true,
            Err(_) => {
                tracing::warn!(
                    session_id,
                    subscriber = id,
                    "client too slow or gone; detached"
                );
                false
            }
        });
        let n = subs.len();
        if n == 0 {
            self.sessions.remove(session_id);
        }
        n
    }
}

impl<T: Clone> Default for Hub<T> {
    fn default() -> Self {
        Self::new()
    }
}
