//! Cross-instance broadcasts, for a store several instances share (one with a feed): each
//! session a local connection follows has a cursor, the seq of the last entry relayed to
//! its connections. Entries go out strictly in seq order: an entry past the cursor's next
//! one (appended here after entries of another instance whose notifications have not
//! arrived yet, or announced while the listener was away) first pulls the missing ones
//! from the log, and an entry at or before the cursor was already sent. So each connection
//! gets every entry once, in the store's order, whichever instance stored it.

use std::collections::HashMap;

use serde_json::Value;

use super::hub::Hub;
use crate::store::StoreError;
use crate::store::sessions::SessionStore;

#[derive(Debug, Default)]
pub(crate) struct Relay {
    cursors: HashMap<String, i64>,
}

impl Relay {
    /// Starts following a session a local connection attached to, from its current end
    /// (a connection gets what is appended after its hello).
    pub(crate) fn follow(
        &mut self,
        store: &dyn SessionStore,
        session_id: &str,
    ) -> Result<(), StoreError> {
        if !self.cursors.contains_key(session_id) {
            let last = store.last_seq(session_id)?;
            self.cursors.insert(session_id.to_owned(), last);
        }
        Ok(())
    }

    /// Stops following a session no local connection is attached to any more.
    pub(crate) fn unfollow_idle(&mut self, hub: &Hub<Value>, session_id: &str) {
        if !hub.has_subscribers(session_id) {
            self.cursors.remove(session_id);
        }
    }

    /// Relays entry `seq` (`msg`), just stored by this instance.
    pub(crate) fn appended_here(
        &mut self,
        store: &dyn SessionStore,
        hub: &mut Hub<Value>,
        session_id: &str,
        seq: i64,
        msg: &Value,
    ) -> Result<(), StoreError> {
        let Some(&cursor) = self.cursors.get(session_id) else {
            return Ok(());
        };
        if seq == cursor + 1 {
            hub.broadcast(session_id, msg);
            self.cursors.insert(session_id.to_owned(), seq);
            self.unfollow_idle(hub, session_id);
            Ok(())
        } else {
            self.catch_up(store, hub, session_id, seq)
        }
    }

    /// Relays what another instance stored, up to `seq` (a feed event).
    pub(crate) fn appended_elsewhere(
        &mut self,
        store: &dyn SessionStore,
        hub: &mut Hub<Value>,
        session_id: &str,
        seq: i64,
    ) -> Result<(), StoreError> {
        self.catch_up(store, hub, session_id, seq)
    }

    /// Catches every followed session up from the log (after the listener was away).
    pub(crate) fn resync(
        &mut self,
        store: &dyn SessionStore,
        hub: &mut Hub<Value>,
    ) -> Result<(), StoreError> {
        let sessions: Vec<String> = self.cursors.keys().cloned().collect();
        for session_id in sessions {
            self.catch_up(store, hub, &session_id, i64::MAX)?;
        }
        Ok(())
    }

    /// Sends the followed session's entries after its cursor, when `seq` is past it.
    fn catch_up(
        &mut self,
        store: &dyn SessionStore,
        hub: &mut Hub<Value>,
        session_id: &str,
        seq: i64,
    ) -> Result<(), StoreError> {
        let Some(&cursor) = self.cursors.get(session_id) else {
            return Ok(());
        };
        if seq <= cursor {
            return Ok(());
        }
        let mut last = cursor;
        for entry in store.log_after(session_id, cursor)? {
            hub.broadcast(session_id, &entry.value);
            last = entry.seq;
        }
        self.cursors.insert(session_id.to_owned(), last);
        self.unfollow_idle(hub, session_id);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use tokio::sync::mpsc;

    use super::*;
    use crate::store::sessions::{SessionRecord, SqliteSessionStore};

    fn store_with_session() -> SqliteSessionStore {
        let store = SqliteSessionStore::in_memory().unwrap();
        store
            .put_session(&SessionRecord {
                session_id: "s".into(),
                owner: "o".into(),
                deleted: false,
                created_at: "t".into(),
            })
            .unwrap();
        store
    }

    fn drain(rx: &mut mpsc::Receiver<Value>) -> Vec<Value> {
        std::iter::from_fn(|| rx.try_recv().ok()).collect()
    }

    #[test]
    fn entries_go_out_once_and_in_store_order_whoever_stored_them() {
        let store = store_with_session();
        store.append("s", &json!("before hello")).unwrap();
        let (mut hub, mut relay) = (Hub::new(), Relay::default());
        let (tx, mut rx) = mpsc::channel(64);
        hub.attach("s", tx);
        relay.follow(&store, "s").unwrap();
        // Another instance stores 2 entries; before their notifications arrive this one
        // stores a third: the first two go out first, read from the log.
        store.append("s", &json!(1)).unwrap();
        store.append("s", &json!(2)).unwrap();
        let seq = store.append("s", &json!(3)).unwrap();
        relay
            .appended_here(&store, &mut hub, "s", seq, &json!(3))
            .unwrap();
        // The late notifications (and a resync) send nothing again.
        relay
            .appended_elsewhere(&store, &mut hub, "s", seq - 1)
            .unwrap();
        relay.resync(&store, &mut hub).unwrap();
        let seq = store.append("s", &json!(4)).unwrap();
        relay
            .appended_elsewhere(&store, &mut hub, "s", seq)
            .unwrap();
        assert_eq!(drain(&mut rx), [json!(1), json!(2), json!(3), json!(4)]);
    }

    #[test]
    fn a_session_nobody_here_follows_is_not_read() {
        let store = store_with_session();
        let (mut hub, mut relay) = (Hub::new(), Relay::default());
        let (tx, rx) = mpsc::channel(64);
        let id = hub.attach("s", tx);
        relay.follow(&store, "s").unwrap();
        hub.detach("s", id);
        relay.unfollow_idle(&hub, "s");
        drop(rx);
        let seq = store.append("s", &json!(1)).unwrap();
        relay
            .appended_elsewhere(&store, &mut hub, "s", seq)
            .unwrap();
        assert!(relay.cursors.is_empty());
    }
}
