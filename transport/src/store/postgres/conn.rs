//! One PostgreSQL connection behind the stores' synchronous calls: the connection's I/O runs
//! on a small runtime of its own (one thread), so a call made from inside any async server
//! (or none) waits for its answer without needing, or blocking, the caller's runtime. A
//! lost connection is reopened on the next call; prepared statements are kept per
//! connection.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::runtime::Handle;
use tokio_postgres::types::ToSql;
use tokio_postgres::{Client, NoTls, Row, Statement};

use crate::store::StoreError;

/// The runtime the connections of one store (and its listener) run on; it stops when the
/// last handle is dropped.
#[derive(Debug)]
pub(crate) struct IoThread {
    handle: Handle,
    _stop: tokio::sync::oneshot::Sender<()>,
}

impl IoThread {
    pub(crate) fn start() -> Result<Arc<Self>, StoreError> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| StoreError::Backend(format!("postgres: no I/O runtime: {e}")))?;
        let handle = rt.handle().clone();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        std::thread::Builder::new()
            .name("agentwire-postgres".into())
            .spawn(move || {
                let _ = rt.block_on(stopped);
            })
            .map_err(|e| StoreError::Backend(format!("postgres: no I/O thread: {e}")))?;
        Ok(Arc::new(Self {
            handle,
            _stop: stop,
        }))
    }

    pub(crate) fn handle(&self) -> &Handle {
        &self.handle
    }

    /// Runs `fut` on the I/O runtime and waits for its result from any thread.
    pub(crate) fn run<T: Send + 'static>(
        &self,
        fut: impl Future<Output = T> + Send + 'static,
    ) -> Result<T, StoreError> {
        // A plain channel, not the task's join handle: waiting on a join handle from inside
        // another runtime's task would draw on (and could exhaust) that task's budget.
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        self.handle.spawn(async move {
            let _ = tx.send(fut.await);
        });
        rx.recv()
            .map_err(|_| StoreError::Backend("postgres: the I/O thread stopped".into()))
    }
}

/// Opens one connection on `io`; its driver task ends when the client is dropped.
pub(crate) async fn connect(url: &str) -> Result<Client, tokio_postgres::Error> {
    let (client, connection) = tokio_postgres::connect(url, NoTls).await?;
    tokio::spawn(async move {
        if let Err(e) = connection.await {
            tracing::warn!(error = %e, "postgres connection ended");
        }
    });
    Ok(client)
}

struct Live {
    client: Arc<Client>,
    statements: HashMap<&'static str, Statement>,
}

/// A connection that reopens itself, with its prepared statements.
pub(crate) struct PgConn {
    io: Arc<IoThread>,
    url: String,
    live: Mutex<Option<Live>>,
}

impl std::fmt::Debug for PgConn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgConn").finish_non_exhaustive()
    }
}

pub(crate) fn pg_error(e: &tokio_postgres::Error) -> StoreError {
    // The server's own message (with its SQLSTATE) says more than the client's summary.
    match e.as_db_error() {
        Some(db) => {
            StoreError::Backend(format!("postgres: {} ({})", db.message(), db.code().code()))
        }
        None => StoreError::Backend(format!("postgres: {e}")),
    }
}

impl PgConn {
    pub(crate) fn open(io: Arc<IoThread>, url: &str) -> Result<Self, StoreError> {
        let conn = Self {
            io,
            url: url.to_owned(),
            live: Mutex::new(None),
        };
        conn.client()?;
        Ok(conn)
    }

    pub(crate) fn io(&self) -> &Arc<IoThread> {
        &self.io
    }

    /// The open client, reconnecting first when the last one was lost.
    fn client(&self) -> Result<Arc<Client>, StoreError> {
        let mut live = self.live.lock().map_err(|_| StoreError::Poisoned)?;
        if let Some(l) = live.as_ref()
            && !l.client.is_closed()
        {
            return Ok(l.client.clone());
        }
        let url = self.url.clone();
        let client = self
            .io
            .run(async move { connect(&url).await })?
            .map_err(|e| pg_error(&e))?;
        let client = Arc::new(client);
        *live = Some(Live {
            client: client.clone(),
            statements: HashMap::new(),
        });
        Ok(client)
    }

    /// The statement for `sql`, prepared once per connection.
    fn statement(&self, client: &Arc<Client>, sql: &'static str) -> Result<Statement, StoreError> {
        let mut live = self.live.lock().map_err(|_| StoreError::Poisoned)?;
        if let Some(l) = live.as_ref()
            && Arc::ptr_eq(&l.client, client)
            && let Some(st) = l.statements.get(sql)
        {
            return Ok(st.clone());
        }
        drop(live);
        let c = client.clone();
        let st = self
            .io
            .run(async move { c.prepare(sql).await })?
            .map_err(|e| pg_error(&e))?;
        live = self.live.lock().map_err(|_| StoreError::Poisoned)?;
        if let Some(l) = live.as_mut()
            && Arc::ptr_eq(&l.client, client)
        {
            l.statements.insert(sql, st.clone());
        }
        Ok(st)
    }

    /// Runs one statement (a single statement is its own transaction) and returns its rows.
    pub(crate) fn query(
        &self,
        sql: &'static str,
        params: Vec<Box<dyn ToSql + Send + Sync>>,
    ) -> Result<Vec<Row>, StoreError> {
        let client = self.client()?;
        let st = self.statement(&client, sql)?;
        let rows = self.io.run(async move {
            let refs: Vec<&(dyn ToSql + Sync)> =
                params.iter().map(|p| &**p as &(dyn ToSql + Sync)).collect();
            client.query(&st, &refs).await
        })?;
        rows.map_err(|e| pg_error(&e))
    }

    /// Runs `sql` (several statements) in one transaction under a transaction-level advisory
    /// lock, so that instances starting at once apply it one after the other.
    pub(crate) fn batch_locked(&self, lock_key: i64, sql: String) -> Result<(), StoreError> {
        let client = self.client()?;
        let r = self.io.run(async move {
            let script = format!("BEGIN; SELECT pg_advisory_xact_lock({lock_key}); {sql}; COMMIT;");
            let r = client.batch_execute(&script).await;
            if r.is_err() {
                // A failed script leaves the transaction open on this connection.
                let _ = client.batch_execute("ROLLBACK").await;
            }
            r
        })?;
        r.map_err(|e| pg_error(&e))
    }
}
