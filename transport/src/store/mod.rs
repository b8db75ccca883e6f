//! State a protocol side owns, behind small store traits named by what they hold, with
//! SQLite defaults that survive a restart (rusqlite, bundled SQLite: no system library
//! needed): [`sessions`] (sessions with an owner and a deleted flag, and each one's ordered
//! log of JSON values) and [`keyed`] (key -> value mappings and keyed states).

pub mod keyed;
pub mod sessions;

use std::path::Path;
use std::sync::Mutex;

use rusqlite::Connection;

/// Why a store could not answer.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("store: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// Another backend's failure, as text.
    #[error("store: {0}")]
    Backend(String),
    #[error("store: the lock was poisoned by a panic elsewhere")]
    Poisoned,
    #[error("store: unreadable data: {0}")]
    Corrupt(String),
}

/// Opens (or creates) the SQLite database at `path` the way every default store wants it:
/// write-ahead logging, so readers never block the writer, and `synchronous = NORMAL`,
/// which keeps committed data across a process crash (not across power loss) at a fraction
/// of the cost of a full sync per message.
pub fn open_sqlite(path: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open(path)?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    Ok(conn)
}

/// An in-memory database with the same settings (for tests and throwaway peers).
pub fn open_sqlite_in_memory() -> rusqlite::Result<Connection> {
    let conn = Connection::open_in_memory()?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    Ok(conn)
}

/// Opens the database of a default store (a file, or memory when `path` is `None`) and
/// creates its tables; `schema` is idempotent (`CREATE ... IF NOT EXISTS`), so reopening the
/// same file after a restart keeps what was there.
pub(crate) fn open_store(path: Option<&Path>, schema: &str) -> rusqlite::Result<Mutex<Connection>> {
    let conn = match path {
        Some(path) => open_sqlite(path)?,
        None => open_sqlite_in_memory()?,
    };
    conn.execute_batch(schema)?;
    Ok(Mutex::new(conn))
}
