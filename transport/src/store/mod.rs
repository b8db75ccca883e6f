//! State a protocol side owns, behind small store traits named by what they hold, with
//! SQLite defaults that survive a restart (rusqlite, bundled SQLite: no system library
//! needed): [`sessions`] (sessions with an owner and a deleted flag, and each one's ordered
//! log of JSON values) and [`keyed`] (key -> value mappings and keyed states). With the
//! `postgres` feature, [`postgres`] backs both on one database several server instances
//! share; [`open_session_store`] and [`open_keyed_store`] pick the backend from the
//! configured location (a `postgres://` URL or a file path).

pub mod keyed;
#[cfg(feature = "postgres")]
pub mod postgres;
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

/// What a shared store's [`sessions::SessionStore::feed`] reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FeedEvent {
    /// Some instance appended entry `seq` to the session's log.
    Appended { session_id: String, seq: i64 },
    /// Entries may have been missed (the listener reconnected or fell behind): a reader
    /// catches up from the log, from the last entry it has.
    Resync,
}

/// A subscription to a shared store's appends.
#[derive(Debug)]
pub struct LogFeed {
    rx: tokio::sync::broadcast::Receiver<FeedEvent>,
}

impl LogFeed {
    pub fn new(rx: tokio::sync::broadcast::Receiver<FeedEvent>) -> Self {
        Self { rx }
    }

    /// The next event; a reader that fell behind gets [`FeedEvent::Resync`] for what it
    /// missed. `None` once the store is gone.
    pub async fn next(&mut self) -> Option<FeedEvent> {
        use tokio::sync::broadcast::error::RecvError;
        match self.rx.recv().await {
            Ok(event) => Some(event),
            Err(RecvError::Lagged(_)) => Some(FeedEvent::Resync),
            Err(RecvError::Closed) => None,
        }
    }
}

/// Where a store lives, as configured: a `postgres://` (or `postgresql://`) URL, or a path
/// to a SQLite file.
pub fn is_postgres_url(location: &str) -> bool {
    location.starts_with("postgres://") || location.starts_with("postgresql://")
}

/// Opens the session store `location` names: a PostgreSQL database for a `postgres://` URL
/// (with the `postgres` feature), otherwise the SQLite file at that path.
pub fn open_session_store(
    location: &str,
) -> Result<std::sync::Arc<dyn sessions::SessionStore>, StoreError> {
    if is_postgres_url(location) {
        #[cfg(feature = "postgres")]
        return Ok(std::sync::Arc::new(postgres::PgSessionStore::connect(
            location,
        )?));
        #[cfg(not(feature = "postgres"))]
        return Err(no_postgres());
    }
    Ok(std::sync::Arc::new(sessions::SqliteSessionStore::open(
        Path::new(location),
    )?))
}

/// Opens the keyed store `location` names, like [`open_session_store`].
pub fn open_keyed_store(location: &str) -> Result<std::sync::Arc<dyn KeyedStore>, StoreError> {
    if is_postgres_url(location) {
        #[cfg(feature = "postgres")]
        return Ok(std::sync::Arc::new(postgres::PgKeyedStore::connect(
            location,
        )?));
        #[cfg(not(feature = "postgres"))]
        return Err(no_postgres());
    }
    Ok(std::sync::Arc::new(keyed::SqliteKeyedStore::open(
        Path::new(location),
    )?))
}

/// Both keyed traits in one store, as [`open_keyed_store`] returns it.
pub trait KeyedStore: keyed::MappingStore + keyed::StateStore {}

impl<T: keyed::MappingStore + keyed::StateStore> KeyedStore for T {}

#[cfg(not(feature = "postgres"))]
fn no_postgres() -> StoreError {
    StoreError::Backend(
        "a postgres:// URL needs agentwire-transport's `postgres` feature, which this build lacks"
            .into(),
    )
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
