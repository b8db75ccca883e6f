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

    /// Whether any connection is attached to the session.
    pub fn has_subscribers(&self, session_id: &str) -> bool {
        self.sessions.contains_key(session_id)
    }

    /// The sessions with a connection attached.
    pub fn attached(&self) -> Vec<String> {
        self.sessions.keys().cloned().collect()
    }

    /// Queues `msg` for every subscriber of the session; returns how many got it.
    pub fn broadcast(&mut self, session_id: &str, msg: &T) -> usize {
        let Some(subs) = self.sessions.get_mut(session_id) else {
            return 0;
        };
        subs.retain(|(id, tx)| match tx.try_send(msg.clone()) {
            Ok(()) => true,
            Err(_) => {
                crate::warn_throttled!(
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_subscriber_is_dropped_and_the_others_still_get_the_message() {
        let mut hub = Hub::new();
        let (slow_tx, mut slow_rx) = mpsc::channel(1);
        let (fast_tx, mut fast_rx) = mpsc::channel(8);
        hub.attach("s", slow_tx);
        let fast = hub.attach("s", fast_tx);
        assert_eq!(hub.broadcast("s", &1), 2);
        assert_eq!(hub.broadcast("s", &2), 1, "the slow queue is full");
        assert_eq!(slow_rx.try_recv(), Ok(1));
        // Its sender is gone: the connection sees its queue end.
        assert!(matches!(
            slow_rx.try_recv(),
            Err(mpsc::error::TryRecvError::Disconnected)
        ));
        assert_eq!((fast_rx.try_recv(), fast_rx.try_recv()), (Ok(1), Ok(2)));
        hub.detach("s", fast);
        assert_eq!(hub.broadcast("s", &3), 0);
        assert_eq!(hub.broadcast("other", &3), 0);
    }
}
