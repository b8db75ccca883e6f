//! [`SessionStore`] on PostgreSQL: sessions and their logs shared by every instance, each
//! append announced on the notification channel so every instance can relay it.

use serde_json::Value;
use tokio::sync::broadcast;
use tokio_postgres::Row;

use super::conn::PgConn;
use crate::store::sessions::{LogEntry, SessionRecord, SessionStore, parse_entry};
use crate::store::{FeedEvent, LogFeed, StoreError};

/// Sessions and logs in a PostgreSQL database, safe for several instances at once.
#[derive(Debug)]
pub struct PgSessionStore {
    conn: PgConn,
    feed: broadcast::Sender<FeedEvent>,
}

/// How many feed events a slow reader may fall behind before it is told to resync.
const FEED_CAPACITY: usize = 4096;

/// Now, by the database's clock, as `active_at` counts it.
macro_rules! now_ms {
    () => {
        "(extract(epoch FROM clock_timestamp()) * 1000)::bigint"
    };
}

const SESSION: &str = "SELECT session_id, owner, deleted, created_at FROM agentwire_sessions
     WHERE session_id = $1";
// `active_at` takes its default (now) on insert; an update sets it.
const PUT: &str = "INSERT INTO agentwire_sessions (session_id, owner, deleted, created_at)
     VALUES ($1, $2, $3, $4)
     ON CONFLICT (session_id) DO UPDATE SET owner = excluded.owner,
         deleted = excluded.deleted, created_at = excluded.created_at,
         active_at = excluded.active_at";
const INSERT_NEW: &str = "INSERT INTO agentwire_sessions (session_id, owner, deleted, created_at)
     VALUES ($1, $2, $3, $4) ON CONFLICT (session_id) DO NOTHING RETURNING 1";
const REVIVE: &str = concat!(
    "UPDATE agentwire_sessions SET deleted = false, active_at = ",
    now_ms!(),
    " WHERE session_id = $1 AND owner = $2 AND deleted RETURNING 1"
);
const DELETE: &str = "UPDATE agentwire_sessions SET deleted = true
     WHERE session_id = $1 AND NOT deleted RETURNING 1";
const TOUCH: &str = concat!(
    "UPDATE agentwire_sessions SET active_at = ",
    now_ms!(),
    " WHERE session_id = ANY($1)"
);
const EXPIRE: &str = concat!(
    "UPDATE agentwire_sessions SET deleted = true WHERE NOT deleted AND active_at <= ",
    now_ms!(),
    " - $1 RETURNING session_id"
);
const LIVE: &str = "SELECT COUNT(*) FROM agentwire_sessions WHERE NOT deleted";
/// One statement, so one transaction: take the session row's lock and its next seq, store
/// the entry, and announce it (delivered when the transaction commits).
const APPEND: &str = "WITH s AS (
         UPDATE agentwire_sessions SET last_seq = last_seq + 1,
             active_at = (extract(epoch FROM clock_timestamp()) * 1000)::bigint
         WHERE session_id = $1 RETURNING last_seq
     ), e AS (
         INSERT INTO agentwire_session_log (session_id, seq, value)
         SELECT $1, last_seq, $2 FROM s RETURNING seq
     )
     SELECT seq, pg_notify('agentwire_log', seq::text || ':' || $1) FROM e";
const LOG_AFTER: &str = "SELECT seq, value FROM agentwire_session_log
     WHERE session_id = $1 AND seq > $2 ORDER BY seq";
const LAST_SEQ: &str = "SELECT last_seq FROM agentwire_sessions WHERE session_id = $1";

impl PgSessionStore {
    /// Connects to the database at `url` (`postgres://user@host:port/db`), applies the
    /// schema's migrations, and starts listening for other instances' appends.
    pub fn connect(url: &str) -> Result<Self, StoreError> {
        let conn = super::open(url)?;
        let (feed, _) = broadcast::channel(FEED_CAPACITY);
        conn.io()
            .handle()
            .spawn(super::feed::listen(url.to_owned(), feed.clone()));
        Ok(Self { conn, feed })
    }

    fn rows(&self, sql: &'static str, params: Params) -> Result<Vec<Row>, StoreError> {
        self.conn.query(sql, params)
    }
}

type Params = Vec<Box<dyn tokio_postgres::types::ToSql + Send + Sync>>;

fn text(s: &str) -> Box<dyn tokio_postgres::types::ToSql + Send + Sync> {
    Box::new(s.to_owned())
}

fn get<'a, T: tokio_postgres::types::FromSql<'a>>(row: &'a Row, i: usize) -> Result<T, StoreError> {
    row.try_get(i)
        .map_err(|e| StoreError::Corrupt(format!("column {i}: {e}")))
}

impl SessionStore for PgSessionStore {
    fn session(&self, session_id: &str) -> Result<Option<SessionRecord>, StoreError> {
        let rows = self.rows(SESSION, vec![text(session_id)])?;
        let Some(r) = rows.first() else {
            return Ok(None);
        };
        Ok(Some(SessionRecord {
            session_id: get(r, 0)?,
            owner: get(r, 1)?,
            deleted: get(r, 2)?,
            created_at: get(r, 3)?,
        }))
    }

    fn put_session(&self, record: &SessionRecord) -> Result<(), StoreError> {
        self.rows(PUT, record_params(record))?;
        Ok(())
    }

    fn delete_session(&self, session_id: &str) -> Result<bool, StoreError> {
        Ok(!self.rows(DELETE, vec![text(session_id)])?.is_empty())
    }

    fn live_sessions(&self) -> Result<usize, StoreError> {
        let rows = self.rows(LIVE, Vec::new())?;
        let n: i64 = rows.first().map(|r| get(r, 0)).transpose()?.unwrap_or(0);
        Ok(usize::try_from(n).unwrap_or(usize::MAX))
    }

    fn append(&self, session_id: &str, value: &Value) -> Result<i64, StoreError> {
        let rows = self.rows(APPEND, vec![text(session_id), Box::new(value.to_string())])?;
        match rows.first() {
            Some(r) => get(r, 0),
            None => Err(StoreError::Backend(format!(
                "postgres: no session {session_id:?} to append to"
            ))),
        }
    }

    fn log(&self, session_id: &str) -> Result<Vec<LogEntry>, StoreError> {
        self.log_after(session_id, 0)
    }

    fn insert_new(&self, record: &SessionRecord) -> Result<bool, StoreError> {
        Ok(!self.rows(INSERT_NEW, record_params(record))?.is_empty())
    }

    fn revive(&self, session_id: &str, owner: &str) -> Result<bool, StoreError> {
        Ok(!self
            .rows(REVIVE, vec![text(session_id), text(owner)])?
            .is_empty())
    }

    fn log_after(&self, session_id: &str, after: i64) -> Result<Vec<LogEntry>, StoreError> {
        let rows = self.rows(LOG_AFTER, vec![text(session_id), Box::new(after)])?;
        rows.iter()
            .map(|r| {
                let seq: i64 = get(r, 0)?;
                let value: String = get(r, 1)?;
                Ok(LogEntry {
                    seq,
                    value: parse_entry(seq, &value)?,
                })
            })
            .collect()
    }

    fn last_seq(&self, session_id: &str) -> Result<i64, StoreError> {
        let rows = self.rows(LAST_SEQ, vec![text(session_id)])?;
        Ok(rows.first().map(|r| get(r, 0)).transpose()?.unwrap_or(0))
    }

    fn touch(&self, session_ids: &[String]) -> Result<(), StoreError> {
        if session_ids.is_empty() {
            return Ok(());
        }
        self.rows(TOUCH, vec![Box::new(session_ids.to_vec())])?;
        Ok(())
    }

    fn expire_idle(&self, idle: std::time::Duration) -> Result<Vec<String>, StoreError> {
        let idle_ms = i64::try_from(idle.as_millis()).unwrap_or(i64::MAX);
        let rows = self.rows(EXPIRE, vec![Box::new(idle_ms)])?;
        rows.iter().map(|r| get(r, 0)).collect()
    }

    fn feed(&self) -> Option<LogFeed> {
        Some(LogFeed::new(self.feed.subscribe()))
    }
}

fn record_params(record: &SessionRecord) -> Params {
    vec![
        text(&record.session_id),
        text(&record.owner),
        Box::new(record.deleted),
        text(&record.created_at),
    ]
}
