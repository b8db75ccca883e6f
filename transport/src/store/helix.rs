//! The Helix side's own state in helix_zed: which Zed thread (acp_thread_id) each Helix
//! session is bound to, and where each interaction stands (waiting, complete, error).
//!
//! Zed keeps no session mapping; Helix must send the thread id back on every follow-up, so
//! losing this state on a restart would fork every conversation. Hence a store that
//! survives restarts.

use std::path::Path;
use std::sync::Mutex;

use rusqlite::{Connection, OptionalExtension, params};

/// Where a Helix interaction (one user request and the reply to it) stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interaction {
    /// Sent; message_completed has not arrived.
    Waiting,
    /// message_completed arrived with its request_id.
    Complete,
    /// The turn cannot complete (e.g. the connection ended first).
    Error,
}

impl Interaction {
    /// The protocol's name for the state.
    pub fn as_str(self) -> &'static str {
        match self {
            Interaction::Waiting => "waiting",
            Interaction::Complete => "complete",
            Interaction::Error => "error",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        match s {
            "waiting" => Some(Interaction::Waiting),
            "complete" => Some(Interaction::Complete),
            "error" => Some(Interaction::Error),
            _ => None,
        }
    }
}

/// A store operation failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("helix store: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("helix store: unknown interaction state {0:?} on disk")]
    Corrupt(String),
    #[error("helix store: a previous user of the store panicked")]
    Poisoned,
}

/// What can go wrong for a Helix agent (the generated `HelixAgent` of helix_zed).
#[derive(Debug, thiserror::Error)]
pub enum HelixError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Send(#[from] crate::ws::SendError),
    /// Zed sent a frame the skeleton refused (dropped; the connection goes on).
    #[error("frame from zed refused: {0}")]
    Refused(#[from] crate::ws::Refused),
}

/// The Helix side's state. Implementations must be safe to share between tasks.
pub trait HelixStore: Send + Sync + 'static {
    /// The thread bound to `session`, if Zed has created one.
    fn thread(&self, session: &str) -> Result<Option<String>, StoreError>;
    /// Binds `session` to `thread` (from context_created). A later binding replaces it.
    fn bind_thread(&self, session: &str, thread: &str) -> Result<(), StoreError>;
    /// Records a new interaction of `session` as waiting.
    fn begin(&self, session: &str, request_id: &str) -> Result<(), StoreError>;
    /// Moves a waiting interaction to `complete` or `error`; one that already left
    /// `waiting` is not touched (a late event cannot reopen or flip it). Returns whether
    /// it changed.
    fn finish(&self, request_id: &str, state: Interaction) -> Result<bool, StoreError>;
    /// The state of one interaction.
    fn interaction(&self, request_id: &str) -> Result<Option<Interaction>, StoreError>;
    /// Request ids of the interactions of `session` still waiting.
    fn waiting(&self, session: &str) -> Result<Vec<String>, StoreError>;
}

/// The SQLite default.
#[derive(Debug)]
pub struct SqliteHelixStore {
    conn: Mutex<Connection>,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS helix_sessions (
    session_id    TEXT PRIMARY KEY,
    acp_thread_id TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS helix_interactions (
    request_id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    state      TEXT NOT NULL CHECK (state IN ('waiting', 'complete', 'error'))
);
CREATE INDEX IF NOT EXISTS helix_interactions_session ON helix_interactions (session_id, state);
";

impl SqliteHelixStore {
    /// Opens (or creates) the store in the SQLite file at `path`.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        Ok(Self {
            conn: super::open_store(Some(path), SCHEMA)?,
        })
    }

    /// A store that lives only as long as this value.
    pub fn in_memory() -> Result<Self, StoreError> {
        Ok(Self {
            conn: super::open_store(None, SCHEMA)?,
        })
    }

    fn with<T>(
        &self,
        f: impl FnOnce(&Connection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let conn = self.conn.lock().map_err(|_| StoreError::Poisoned)?;
        f(&conn)
    }
}

impl HelixStore for SqliteHelixStore {
    fn thread(&self, session: &str) -> Result<Option<String>, StoreError> {
        self.with(|c| {
            Ok(c.query_row(
                "SELECT acp_thread_id FROM helix_sessions WHERE session_id = ?1",
                [session],
                |r| r.get(0),
            )
            .optional()?)
        })
    }

    fn bind_thread(&self, session: &str, thread: &str) -> Result<(), StoreError> {
        self.with(|c| {
            c.execute(
                "INSERT INTO helix_sessions (session_id, acp_thread_id) VALUES (?1, ?2)
                 ON CONFLICT (session_id) DO UPDATE SET acp_thread_id = excluded.acp_thread_id",
                params![session, thread],
            )?;
            Ok(())
        })
    }

    fn begin(&self, session: &str, request_id: &str) -> Result<(), StoreError> {
        self.with(|c| {
            c.execute(
                "INSERT INTO helix_interactions (request_id, session_id, state)
                 VALUES (?1, ?2, 'waiting')
                 ON CONFLICT (request_id) DO UPDATE SET session_id = excluded.session_id,
                     state = 'waiting'",
                params![request_id, session],
            )?;
            Ok(())
        })
    }

    fn finish(&self, request_id: &str, state: Interaction) -> Result<bool, StoreError> {
        self.with(|c| {
            let n = c.execute(
                "UPDATE helix_interactions SET state = ?2
                 WHERE request_id = ?1 AND state = 'waiting'",
                params![request_id, state.as_str()],
            )?;
            Ok(n == 1)
        })
    }

    fn interaction(&self, request_id: &str) -> Result<Option<Interaction>, StoreError> {
        self.with(|c| {
            let state: Option<String> = c
                .query_row(
                    "SELECT state FROM helix_interactions WHERE request_id = ?1",
                    [request_id],
                    |r| r.get(0),
                )
                .optional()?;
            state
                .map(|s| Interaction::parse(&s).ok_or(StoreError::Corrupt(s)))
                .transpose()
        })
    }

    fn waiting(&self, session: &str) -> Result<Vec<String>, StoreError> {
        self.with(|c| {
            let mut stmt = c.prepare(
                "SELECT request_id FROM helix_interactions
                 WHERE session_id = ?1 AND state = 'waiting' ORDER BY rowid",
            )?;
            let ids = stmt
                .query_map([session], |r| r.get(0))?
                .collect::<Result<Vec<String>, _>>()?;
            Ok(ids)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_survives_reopening_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("helix.db");
        {
            let store = SqliteHelixStore::open(&path).unwrap();
            store.bind_thread("ses_1", "thread-a").unwrap();
            store.begin("ses_1", "req-1").unwrap();
            store.begin("ses_1", "req-2").unwrap();
            assert!(store.finish("req-1", Interaction::Complete).unwrap());
        }
        let store = SqliteHelixStore::open(&path).unwrap();
        assert_eq!(store.thread("ses_1").unwrap().as_deref(), Some("thread-a"));
        assert_eq!(store.thread("ses_2").unwrap(), None);
        assert_eq!(
            store.interaction("req-1").unwrap(),
            Some(Interaction::Complete)
        );
        assert_eq!(store.waiting("ses_1").unwrap(), vec!["req-2".to_owned()]);
    }

    #[test]
    fn a_finished_interaction_stays_finished() {
        let store = SqliteHelixStore::in_memory().unwrap();
        store.begin("s", "r").unwrap();
        assert!(store.finish("r", Interaction::Error).unwrap());
        assert!(!store.finish("r", Interaction::Complete).unwrap());
        assert_eq!(store.interaction("r").unwrap(), Some(Interaction::Error));
        assert!(!store.finish("unknown", Interaction::Complete).unwrap());
    }
}
