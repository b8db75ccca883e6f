//! Sessions and their conversation logs: each session has an id, an owner, a deleted flag
//! and a creation time; its log is an ordered list of JSON values (whatever the protocol
//! records per entry). Behind [`SessionStore`], with SQLite as the default.

use std::path::Path;
use std::sync::{Mutex, MutexGuard};

use rusqlite::{Connection, OptionalExtension, params};
use serde_json::Value;

use super::StoreError;

/// A session as a server remembers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRecord {
    pub session_id: String,
    /// Who the session belongs to (an agent id, a user id, ...).
    pub owner: String,
    /// A deleted session is refused until its owner revives it.
    pub deleted: bool,
    /// RFC 3339 time of the first creation; a revival keeps it.
    pub created_at: String,
}

/// One entry of a session's log.
#[derive(Debug, Clone, PartialEq)]
pub struct LogEntry {
    /// Position in the store, increasing in append order.
    pub seq: i64,
    pub value: Value,
}

/// Sessions and their logs. Calls are short and synchronous: a server makes them while
/// holding its own ordering lock, so a store never sees two writes for one session at once.
/// A backend other than SQLite (PostgreSQL, say) implements the same six calls; the
/// conversation log only needs an append-ordered sequence per session.
pub trait SessionStore: Send + Sync + 'static {
    fn session(&self, session_id: &str) -> Result<Option<SessionRecord>, StoreError>;
    /// Inserts the session or replaces the stored record (create, revive).
    fn put_session(&self, record: &SessionRecord) -> Result<(), StoreError>;
    /// Marks the session deleted; `false` when there was no live session with that id.
    fn delete_session(&self, session_id: &str) -> Result<bool, StoreError>;
    fn live_sessions(&self) -> Result<usize, StoreError>;
    /// Appends `value` to the session's log; returns its position.
    fn append(&self, session_id: &str, value: &Value) -> Result<i64, StoreError>;
    /// The session's log in append order.
    fn log(&self, session_id: &str) -> Result<Vec<LogEntry>, StoreError>;

    /// Stores `record` unless a session with its id exists (live or deleted); `false` when
    /// one did. With several instances on one store this must be atomic: it is what makes
    /// exactly one of racing creates win.
    fn insert_new(&self, record: &SessionRecord) -> Result<bool, StoreError> {
        if self.session(&record.session_id)?.is_some() {
            return Ok(false);
        }
        self.put_session(record)?;
        Ok(true)
    }

    /// Makes a deleted session of `owner` live again (keeping its creation time); `false`
    /// when it is not, or no longer, a deleted session of `owner`. Atomic like
    /// [`SessionStore::insert_new`].
    fn revive(&self, session_id: &str, owner: &str) -> Result<bool, StoreError> {
        match self.session(session_id)? {
            Some(rec) if rec.deleted && rec.owner == owner => {
                self.put_session(&SessionRecord {
                    deleted: false,
                    ..rec
                })?;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// The session's log entries with a position after `after`, in append order.
    fn log_after(&self, session_id: &str, after: i64) -> Result<Vec<LogEntry>, StoreError> {
        let mut log = self.log(session_id)?;
        log.retain(|e| e.seq > after);
        Ok(log)
    }

    /// The position of the session's last log entry (0 when it has none).
    fn last_seq(&self, session_id: &str) -> Result<i64, StoreError> {
        Ok(self.log(session_id)?.last().map_or(0, |e| e.seq))
    }

    /// Records activity on these sessions now (a server calls it for the sessions it has
    /// connections attached to, so that they do not expire while in use). Creating, reviving
    /// and appending record activity themselves.
    fn touch(&self, session_ids: &[String]) -> Result<(), StoreError>;

    /// Marks deleted every live session with no activity for `idle` (by the store's own
    /// clock), and returns their ids: the expiry that keeps the live count from growing
    /// forever. Their logs stay; their owner may revive them.
    fn expire_idle(&self, idle: std::time::Duration) -> Result<Vec<String>, StoreError>;

    /// What other processes append to this store, for a store several server instances
    /// share; `None` (the default) for a store only this process writes. A store with a
    /// feed numbers each session's entries 1, 2, 3, ... with no gaps, so that a reader can
    /// tell a missed entry from a late one.
    fn feed(&self) -> Option<super::LogFeed> {
        None
    }
}

/// The default store: one SQLite database (a file survives a restart).
#[derive(Debug)]
pub struct SqliteSessionStore {
    conn: Mutex<Connection>,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS sessions (
    session_id TEXT PRIMARY KEY,
    owner      TEXT NOT NULL,
    deleted    INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    active_at  INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS session_log (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(session_id),
    value      TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS session_log_session ON session_log(session_id, seq);
";

/// Now, in milliseconds since the Unix epoch, by SQLite's clock (every version has
/// `julianday`).
const NOW_MS: &str = "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)";

impl SqliteSessionStore {
    /// Opens (or creates) the database file at `path`.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        Self::upgraded(super::open_store(Some(path), SCHEMA)?)
    }

    /// A store that lives only as long as the process.
    pub fn in_memory() -> Result<Self, StoreError> {
        Self::upgraded(super::open_store(None, SCHEMA)?)
    }

    /// Adds what a file written by an older version lacks: the activity time (sessions
    /// stored before it get the upgrade's time, so none expires at once).
    fn upgraded(conn: Mutex<Connection>) -> Result<Self, StoreError> {
        let store = Self { conn };
        {
            let conn = store.conn()?;
            let has: i64 = conn.query_row(
                "SELECT COUNT(*) FROM pragma_table_info('sessions') WHERE name = 'active_at'",
                [],
                |r| r.get(0),
            )?;
            if has == 0 {
                conn.execute_batch(
                    "ALTER TABLE sessions ADD COLUMN active_at INTEGER NOT NULL DEFAULT 0",
                )?;
            }
            conn.execute(
                &format!("UPDATE sessions SET active_at = {NOW_MS} WHERE active_at = 0"),
                [],
            )?;
        }
        Ok(store)
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
                "SELECT session_id, owner, deleted, created_at FROM sessions WHERE session_id = ?1",
                params![session_id],
                |r| {
                    Ok(SessionRecord {
                        session_id: r.get(0)?,
                        owner: r.get(1)?,
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
            &format!(
                "INSERT INTO sessions (session_id, owner, deleted, created_at, active_at)
                 VALUES (?1, ?2, ?3, ?4, {NOW_MS})
                 ON CONFLICT(session_id) DO UPDATE SET owner = excluded.owner,
                     deleted = excluded.deleted, created_at = excluded.created_at,
                     active_at = excluded.active_at"
            ),
            params![
                record.session_id,
                record.owner,
                i64::from(record.deleted),
                record.created_at
            ],
        )?;
        Ok(())
    }

    fn delete_session(&self, session_id: &str) -> Result<bool, StoreError> {
        let n = self.conn()?.execute(
            "UPDATE sessions SET deleted = 1 WHERE session_id = ?1 AND deleted = 0",
            params![session_id],
        )?;
        Ok(n > 0)
    }

    fn live_sessions(&self) -> Result<usize, StoreError> {
        let n: i64 =
            self.conn()?
                .query_row("SELECT COUNT(*) FROM sessions WHERE deleted = 0", [], |r| {
                    r.get(0)
                })?;
        Ok(usize::try_from(n).unwrap_or(usize::MAX))
    }

    fn append(&self, session_id: &str, value: &Value) -> Result<i64, StoreError> {
        let conn = self.conn()?;
        conn.execute(
            "INSERT INTO session_log (session_id, value) VALUES (?1, ?2)",
            params![session_id, value.to_string()],
        )?;
        let seq = conn.last_insert_rowid();
        conn.execute(
            &format!("UPDATE sessions SET active_at = {NOW_MS} WHERE session_id = ?1"),
            params![session_id],
        )?;
        Ok(seq)
    }

    fn log(&self, session_id: &str) -> Result<Vec<LogEntry>, StoreError> {
        self.log_after(session_id, 0)
    }

    fn insert_new(&self, record: &SessionRecord) -> Result<bool, StoreError> {
        let n = self.conn()?.execute(
            &format!(
                "INSERT INTO sessions (session_id, owner, deleted, created_at, active_at)
                 VALUES (?1, ?2, ?3, ?4, {NOW_MS}) ON CONFLICT(session_id) DO NOTHING"
            ),
            params![
                record.session_id,
                record.owner,
                i64::from(record.deleted),
                record.created_at
            ],
        )?;
        Ok(n == 1)
    }

    fn revive(&self, session_id: &str, owner: &str) -> Result<bool, StoreError> {
        let n = self.conn()?.execute(
            &format!(
                "UPDATE sessions SET deleted = 0, active_at = {NOW_MS}
                 WHERE session_id = ?1 AND owner = ?2 AND deleted = 1"
            ),
            params![session_id, owner],
        )?;
        Ok(n == 1)
    }

    fn touch(&self, session_ids: &[String]) -> Result<(), StoreError> {
        let conn = self.conn()?;
        let sql = format!("UPDATE sessions SET active_at = {NOW_MS} WHERE session_id = ?1");
        let mut stmt = conn.prepare_cached(&sql)?;
        for id in session_ids {
            stmt.execute(params![id])?;
        }
        Ok(())
    }

    fn expire_idle(&self, idle: std::time::Duration) -> Result<Vec<String>, StoreError> {
        let idle_ms = i64::try_from(idle.as_millis()).unwrap_or(i64::MAX);
        let conn = self.conn()?;
        let mut stmt = conn.prepare(&format!(
            "UPDATE sessions SET deleted = 1
             WHERE deleted = 0 AND active_at <= {NOW_MS} - ?1 RETURNING session_id"
        ))?;
        let ids = stmt.query_map(params![idle_ms], |r| r.get::<_, String>(0))?;
        Ok(ids.collect::<Result<_, _>>()?)
    }

    fn log_after(&self, session_id: &str, after: i64) -> Result<Vec<LogEntry>, StoreError> {
        let conn = self.conn()?;
        let mut stmt = conn.prepare(
            "SELECT seq, value FROM session_log WHERE session_id = ?1 AND seq > ?2 ORDER BY seq",
        )?;
        let rows = stmt.query_map(params![session_id, after], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (seq, text) = row?;
            out.push(LogEntry {
                seq,
                value: parse_entry(seq, &text)?,
            });
        }
        Ok(out)
    }

    fn last_seq(&self, session_id: &str) -> Result<i64, StoreError> {
        let seq: Option<i64> = self.conn()?.query_row(
            "SELECT MAX(seq) FROM session_log WHERE session_id = ?1",
            params![session_id],
            |r| r.get(0),
        )?;
        Ok(seq.unwrap_or(0))
    }
}

/// Reads one stored log entry back.
pub(crate) fn parse_entry(seq: i64, text: &str) -> Result<Value, StoreError> {
    serde_json::from_str(text).map_err(|e| StoreError::Corrupt(format!("log entry {seq}: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_and_log_survive_reopening_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sessions.sqlite");
        {
            let store = SqliteSessionStore::open(&path).unwrap();
            store
                .put_session(&SessionRecord {
                    session_id: "S-1".into(),
                    owner: "a".into(),
                    deleted: false,
                    created_at: "2026-01-01T00:00:00.000Z".into(),
                })
                .unwrap();
            store
                .append("S-1", &serde_json::json!({"role": "user", "text": "hi"}))
                .unwrap();
            assert!(store.delete_session("S-1").unwrap());
            assert!(!store.delete_session("S-1").unwrap());
        }
        let store = SqliteSessionStore::open(&path).unwrap();
        let rec = store.session("S-1").unwrap().unwrap();
        assert!(rec.deleted);
        assert_eq!(rec.owner, "a");
        assert_eq!(store.live_sessions().unwrap(), 0);
        let log = store.log("S-1").unwrap();
        assert_eq!(log.len(), 1);
        assert_eq!(log[0].value["text"], "hi");
    }
}
