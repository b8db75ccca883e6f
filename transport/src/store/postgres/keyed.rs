//! [`MappingStore`] and [`StateStore`] on PostgreSQL, shared by every instance.

use tokio_postgres::Row;

use super::conn::PgConn;
use crate::store::StoreError;
use crate::store::keyed::{MappingStore, StateStore};

/// Mappings and keyed states in a PostgreSQL database.
#[derive(Debug)]
pub struct PgKeyedStore {
    conn: PgConn,
}

const GET: &str = "SELECT value FROM agentwire_mappings WHERE key = $1";
const PUT: &str = "INSERT INTO agentwire_mappings (key, value) VALUES ($1, $2)
     ON CONFLICT (key) DO UPDATE SET value = excluded.value";
/// A replaced state keeps its `ord`: `keys_in` lists keys in the order first set.
const SET_STATE: &str = "INSERT INTO agentwire_keyed_states (key, grp, state) VALUES ($1, $2, $3)
     ON CONFLICT (key) DO UPDATE SET grp = excluded.grp, state = excluded.state";
const ADVANCE: &str = "UPDATE agentwire_keyed_states SET state = $3
     WHERE key = $1 AND state = $2 RETURNING 1";
const STATE: &str = "SELECT state FROM agentwire_keyed_states WHERE key = $1";
const KEYS_IN: &str = "SELECT key FROM agentwire_keyed_states
     WHERE grp = $1 AND state = $2 ORDER BY ord";

type Param = Box<dyn tokio_postgres::types::ToSql + Send + Sync>;

fn texts(values: &[&str]) -> Vec<Param> {
    values
        .iter()
        .map(|v| Box::new((*v).to_owned()) as Param)
        .collect()
}

fn first_text(rows: &[Row]) -> Result<Option<String>, StoreError> {
    rows.first()
        .map(|r| r.try_get(0))
        .transpose()
        .map_err(|e| StoreError::Corrupt(e.to_string()))
}

impl PgKeyedStore {
    /// Connects to the database at `url` and applies the schema's migrations.
    pub fn connect(url: &str) -> Result<Self, StoreError> {
        Ok(Self {
            conn: super::open(url)?,
        })
    }
}

impl MappingStore for PgKeyedStore {
    fn get(&self, key: &str) -> Result<Option<String>, StoreError> {
        first_text(&self.conn.query(GET, texts(&[key]))?)
    }

    fn put(&self, key: &str, value: &str) -> Result<(), StoreError> {
        self.conn.query(PUT, texts(&[key, value]))?;
        Ok(())
    }
}

impl StateStore for PgKeyedStore {
    fn set_state(&self, group: &str, key: &str, state: &str) -> Result<(), StoreError> {
        self.conn.query(SET_STATE, texts(&[key, group, state]))?;
        Ok(())
    }

    fn advance(&self, key: &str, from: &str, to: &str) -> Result<bool, StoreError> {
        Ok(!self
            .conn
            .query(ADVANCE, texts(&[key, from, to]))?
            .is_empty())
    }

    fn state(&self, key: &str) -> Result<Option<String>, StoreError> {
        first_text(&self.conn.query(STATE, texts(&[key]))?)
    }

    fn keys_in(&self, group: &str, state: &str) -> Result<Vec<String>, StoreError> {
        let rows = self.conn.query(KEYS_IN, texts(&[group, state]))?;
        rows.iter()
            .map(|r| r.try_get(0).map_err(|e| StoreError::Corrupt(e.to_string())))
            .collect()
    }
}
