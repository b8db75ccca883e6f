//! The external_agents agent server's own state: sessions (agent id, deleted flag) and each
//! session's conversation log, behind [`SessionStore`], with a SQLite default.

use std::path::Path;
use std::sync::{Mutex, MutexGuard};

use rusqlite::{Connection, OptionalExtension, params};

/// A session as the agent server remembers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRecord {
    pub session_id: String,
    pub agent_id: String,
    /// A deleted session answers callbacks with 404 until a create for its agent revives it.
    pub deleted: bool,
    /// RFC 3339 time of the first creation; a revival keeps it.
    pub created_at: String,
}

/// Who a conversation line comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogRole {
    User,
    Assistant,
    /// A line the server injected itself, e.g. a failed forward.
    Error,
}

impl LogRole {
    pub fn as_str(self) -> &'static str {
        match self {
            LogRole::User => "user",
            LogRole::Assistant => "assistant",
            LogRole::Error => "error",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        match s {
            "user" => Some(LogRole::User),
            "assistant" => Some(LogRole::Assistant),
            "error" => Some(LogRole::Error),
            _ => None,
        }
    }
}

/// One line of a session's conversation log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogEntry {
    /// Position in the store, increasing in append order.
    pub seq: i64,
    pub role: LogRole,
    pub text: String,
    pub created_at: String,
}

/// Why the store could not answer.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("session store: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("session store: the lock was poisoned by a panic elsewhere")]
    Poisoned,
    #[error("session store: row {seq} has an unknown role {role:?}")]
    BadRole { seq: i64, role: String },
}

/// The agent server's sessions and conversation logs. Calls are short and synchronous: the
/// server makes them while holding its own ordering lock, so a store never sees two writes
/// for one session at once.
pub trait SessionStore: Send + Sync + 'static {
    fn session(&self, session_id: &str) -> Result<Option<SessionRecord>, StoreError>;
    /// Inserts the session or replaces the stored record (create, revive).
    fn put_session(&self, record: &SessionRecord) -> Result<(), StoreError>;
    /// Marks the session deleted; `false` when there was no live session with that id.
    fn delete_session(&self, session_id: &str) -> Result<bool, StoreError>;
    fn live_sessions(&self) -> Result<usize, StoreError>;
    fn append(
        &self,
        session_id: &str,
        role: LogRole,
        text: &str,
        created_at: &str,
    ) -> Result<i64, StoreError>;
    /// The session's log in append order.
    fn log(&self, session_id: &str) -> Result<Vec<LogEntry>, StoreError>;
}

/// The default store: one SQLite database (a file survives a restart).
#[derive(Debug)]
pub struct SqliteSessionStore {
    conn: Mutex<Connection>,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS ea_sessions (
    session_id TEXT PRIMARY KEY,
    agent_id   TEXT NOT NULL,
    deleted    INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS ea_log (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES ea_sessions(session_id),
    role       TEXT NOT NULL,
    text       TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS ea_log_session ON ea_log(session_id, seq);
";

impl SqliteSessionStore {
    /// Opens (or creates) the database file at `path`.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        Ok(Self {
            conn: super::open_store(Some(path), SCHEMA)?,
        })
    }

    /// A store that lives only as long as the process.
    pub fn in_memory() -> Result<Self, StoreError> {
        Ok(Self {
            conn: super::open_store(None, SCHEMA)?,
        })
    }

    fn conn(&self) -> Result<MutexGuard<'_, Connection>, StoreError> {
        self.conn.lock().map_err(|_| StoreError::Poisoned)
    }
}

impl SessionStore for SqliteSessionStore {
    fn session(&self, session_id: &str) -> Result<Option<SessionRecord>, StoreError> {
        let conn = self.conn()?;
        let row = conn
            .query_row(
                "SELECT session_id, agent_id, deleted, created_at FROM ea_sessions WHERE session_id = ?1",
                params![session_id],
                |r| {
                    Ok(SessionRecord {
                        session_id: r.get(0)?,
                        agent_id: r.get(1)?,
                        deleted: r.get::<_, i64>(2)? != 0,
                        created_at: r.get(3)?,
                    })
                },
            )
            .optional()?;
        Ok(row)
    }

    fn put_session(&self, record: &SessionRecord) -> Result<(), StoreError> {
        self.conn()?.execute(
            "INSERT INTO ea_sessions (session_id, agent_id, deleted, created_at) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT(session_id) DO UPDATE SET agent_id = excluded.agent_id,
                 deleted = excluded.deleted, created_at = excluded.created_at",
            params![
                record.session_id,
                record.agent_id,
                i64::from(record.deleted),
                record.created_at
            ],
        )?;
        Ok(())
    }

    fn delete_session(&self, session_id: &str) -> Result<bool, StoreError> {
        let n = self.conn()?.execute(
            "UPDATE ea_sessions SET deleted = 1 WHERE session_id = ?1 AND deleted = 0",
            params![session_id],
        )?;
        Ok(n > 0)
    }

    fn live_sessions(&self) -> Result<usize, StoreError> {
        let n: i64 = self.conn()?.query_row(
            "SELECT COUNT(*) FROM ea_sessions WHERE deleted = 0",
            [],
            |r| r.get(0),
        )?;
        Ok(usize::try_from(n).unwrap_or(usize::MAX))
    }

    fn append(
        &self,
        session_id: &str,
        role: LogRole,
        text: &str,
        created_at: &str,
    ) -> Result<i64, StoreError> {
        let conn = self.conn()?;
        conn.execute(
            "INSERT INTO ea_log (session_id, role, text, created_at) VALUES (?1, ?2, ?3, ?4)",
            params![session_id, role.as_str(), text, created_at],
        )?;
        Ok(conn.last_insert_rowid())
    }

    fn log(&self, session_id: &str) -> Result<Vec<LogEntry>, StoreError> {
        let conn = self.conn()?;
        let mut stmt = conn.prepare(
            "SELECT seq, role, text, created_at FROM ea_log WHERE session_id = ?1 ORDER BY seq",
        )?;
        let rows = stmt.query_map(params![session_id], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (seq, role, text, created_at) = row?;
            let role = LogRole::parse(&role).ok_or(StoreError::BadRole { seq, role })?;
            out.push(LogEntry {
                seq,
                role,
                text,
                created_at,
            });
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_and_log_survive_reopening_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ea.sqlite");
        {
            let store = SqliteSessionStore::open(&path).unwrap();
            store
                .put_session(&SessionRecord {
                    session_id: "S-1".into(),
                    agent_id: "a".into(),
                    deleted: false,
                    created_at: "2026-01-01T00:00:00.000Z".into(),
                })
                .unwrap();
            store
                .append("S-1", LogRole::User, "hi", "2026-01-01T00:00:00.001Z")
                .unwrap();
            assert!(store.delete_session("S-1").unwrap());
            assert!(!store.delete_session("S-1").unwrap());
        }
        let store = SqliteSessionStore::open(&path).unwrap();
        let rec = store.session("S-1").unwrap().unwrap();
        assert!(rec.deleted);
        assert_eq!(rec.agent_id, "a");
        assert_eq!(store.live_sessions().unwrap(), 0);
        let log = store.log("S-1").unwrap();
        assert_eq!(log.len(), 1);
        assert_eq!((log[0].role, log[0].text.as_str()), (LogRole::User, "hi"));
    }
}
