//! PostgreSQL backends for the store traits (feature `postgres`), for several server
//! instances on one database: [`PgSessionStore`] (sessions, logs, and a feed of what any
//! instance appended, by LISTEN/NOTIFY) and [`PgKeyedStore`] (mappings and keyed states).
//! Opening a store applies the schema's migrations under an advisory lock, so instances
//! starting at once apply each one exactly once. No TLS: the URL names a server reached over
//! a trusted network (or a local socket).

mod conn;
mod feed;
mod keyed;
mod sessions;

pub use keyed::PgKeyedStore;
pub use sessions::PgSessionStore;

use conn::PgConn;

use super::StoreError;

/// The key of the advisory lock migrations run under (any fixed number; "agentwir" in ASCII).
const MIGRATION_LOCK: i64 = 0x6167_656e_7477_6972;

/// The notification channel appends are announced on; the payload is `seq:session_id`.
pub(crate) const CHANNEL: &str = "agentwire_log";

/// The schema, one migration per entry, in order; an applied migration is never edited,
/// a change is a new entry.
const MIGRATIONS: &[(&str, &str)] = &[
    (
        "0001_stores",
        "CREATE TABLE agentwire_sessions (
        session_id TEXT PRIMARY KEY,
        owner      TEXT NOT NULL,
        deleted    BOOLEAN NOT NULL DEFAULT false,
        created_at TEXT NOT NULL,
        -- The seq of the session's last log entry: appends take this row's lock, so one
        -- session's entries commit in seq order, with no gaps, whichever instance writes.
        last_seq   BIGINT NOT NULL DEFAULT 0
    );
    CREATE TABLE agentwire_session_log (
        session_id TEXT NOT NULL REFERENCES agentwire_sessions (session_id),
        seq        BIGINT NOT NULL,
        value      TEXT NOT NULL,
        PRIMARY KEY (session_id, seq)
    );
    CREATE TABLE agentwire_mappings (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    CREATE TABLE agentwire_keyed_states (
        ord   BIGSERIAL NOT NULL,
        key   TEXT PRIMARY KEY,
        grp   TEXT NOT NULL,
        state TEXT NOT NULL
    );
    CREATE INDEX agentwire_keyed_states_group ON agentwire_keyed_states (grp, state, ord);",
    ),
    (
        // When each session last saw activity, by the database's clock (milliseconds since
        // the epoch): what idle sessions expire by. Rows already there get the upgrade's time.
        "0002_session_activity",
        "ALTER TABLE agentwire_sessions ADD COLUMN active_at BIGINT NOT NULL
             DEFAULT (extract(epoch FROM clock_timestamp()) * 1000)::bigint;",
    ),
];

/// Applies the migrations not yet applied, all in one transaction under the advisory lock:
/// a second instance waits for the first, then finds nothing left to do.
fn migrate(conn: &PgConn) -> Result<(), StoreError> {
    let mut script = String::from(
        "CREATE TABLE IF NOT EXISTS agentwire_migrations (
             name       TEXT PRIMARY KEY,
             applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
         );",
    );
    for (name, sql) in MIGRATIONS {
        // Each step runs only when its row is missing, checked after the lock is held.
        script.push_str(&format!(
            "DO $migration$ BEGIN
                 IF NOT EXISTS (SELECT 1 FROM agentwire_migrations WHERE name = '{name}') THEN
                     {sql}
                     INSERT INTO agentwire_migrations (name) VALUES ('{name}');
                 END IF;
             END $migration$;"
        ));
    }
    conn.batch_locked(MIGRATION_LOCK, script)
}

/// Opens a connection to `url` and brings the schema up to date.
fn open(url: &str) -> Result<PgConn, StoreError> {
    let io = conn::IoThread::start()?;
    let conn = PgConn::open(io, url)?;
    migrate(&conn)?;
    Ok(conn)
}
