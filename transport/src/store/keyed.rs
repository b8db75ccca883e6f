//! Keyed state a client keeps across connections: key -> value mappings (a session's
//! thread, say) and keyed states grouped under a key (interactions of a session, each
//! `waiting`, `complete`, ...). Behind [`MappingStore`] and [`StateStore`], with one SQLite
//! database as the default for both.

use std::path::Path;
use std::sync::Mutex;

use rusqlite::{Connection, OptionalExtension, params};

use super::StoreError;

/// Key -> value mappings; a later `put` replaces the value.
pub trait MappingStore: Send + Sync + 'static {
    fn get(&self, key: &str) -> Result<Option<String>, StoreError>;
    fn put(&self, key: &str, value: &str) -> Result<(), StoreError>;
}

/// Keyed states, each belonging to a group. A backend other than SQLite implements the
/// same four calls; `advance` must be one atomic compare-and-set.
pub trait StateStore: Send + Sync + 'static {
    /// Sets `key` (in `group`) to `state`, whatever it was.
    fn set_state(&self, group: &str, key: &str, state: &str) -> Result<(), StoreError>;
    /// Moves `key` from `from` to `to`; `false` (and no change) when it is not in `from`.
    fn advance(&self, key: &str, from: &str, to: &str) -> Result<bool, StoreError>;
    fn state(&self, key: &str) -> Result<Option<String>, StoreError>;
    /// Keys of `group` in `state`, in the order they were first set.
    fn keys_in(&self, group: &str, state: &str) -> Result<Vec<String>, StoreError>;
}

/// A shared store (an `Arc`, such as [`super::open_keyed_store`] returns) is a store too.
impl<T: MappingStore + ?Sized> MappingStore for std::sync::Arc<T> {
    fn get(&self, key: &str) -> Result<Option<String>, StoreError> {
        (**self).get(key)
    }
    fn put(&self, key: &str, value: &str) -> Result<(), StoreError> {
        (**self).put(key, value)
    }
}

impl<T: StateStore + ?Sized> StateStore for std::sync::Arc<T> {
    fn set_state(&self, group: &str, key: &str, state: &str) -> Result<(), StoreError> {
        (**self).set_state(group, key, state)
    }
    fn advance(&self, key: &str, from: &str, to: &str) -> Result<bool, StoreError> {
        (**self).advance(key, from, to)
    }
    fn state(&self, key: &str) -> Result<Option<String>, StoreError> {
        (**self).state(key)
    }
    fn keys_in(&self, group: &str, state: &str) -> Result<Vec<String>, StoreError> {
        (**self).keys_in(group, state)
    }
}

/// The SQLite default for both traits.
#[derive(Debug)]
pub struct SqliteKeyedStore {
    conn: Mutex<Connection>,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS mappings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS keyed_states (
    key   TEXT PRIMARY KEY,
    grp   TEXT NOT NULL,
    state TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS keyed_states_group ON keyed_states (grp, state);
";

impl SqliteKeyedStore {
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

impl MappingStore for SqliteKeyedStore {
    fn get(&self, key: &str) -> Result<Option<String>, StoreError> {
        self.with(|c| {
            Ok(
                c.query_row("SELECT value FROM mappings WHERE key = ?1", [key], |r| {
                    r.get(0)
                })
                .optional()?,
            )
        })
    }

    fn put(&self, key: &str, value: &str) -> Result<(), StoreError> {
        self.with(|c| {
            c.execute(
                "INSERT INTO mappings (key, value) VALUES (?1, ?2)
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                params![key, value],
            )?;
            Ok(())
        })
    }
}

impl StateStore for SqliteKeyedStore {
    fn set_state(&self, group: &str, key: &str, state: &str) -> Result<(), StoreError> {
        self.with(|c| {
            c.execute(
                "INSERT INTO keyed_states (key, grp, state) VALUES (?1, ?2, ?3)
                 ON CONFLICT (key) DO UPDATE SET grp = excluded.grp, state = excluded.state",
                params![key, group, state],
            )?;
            Ok(())
        })
    }

    fn advance(&self, key: &str, from: &str, to: &str) -> Result<bool, StoreError> {
        self.with(|c| {
            let n = c.execute(
                "UPDATE keyed_states SET state = ?3 WHERE key = ?1 AND state = ?2",
                params![key, from, to],
            )?;
            Ok(n == 1)
        })
    }

    fn state(&self, key: &str) -> Result<Option<String>, StoreError> {
        self.with(|c| {
            Ok(c.query_row(
                "SELECT state FROM keyed_states WHERE key = ?1",
                [key],
                |r| r.get(0),
            )
            .optional()?)
        })
    }

    fn keys_in(&self, group: &str, state: &str) -> Result<Vec<String>, StoreError> {
        self.with(|c| {
            let mut stmt = c.prepare(
                "SELECT key FROM keyed_states WHERE grp = ?1 AND state = ?2 ORDER BY rowid",
            )?;
            let keys = stmt
                .query_map([group, state], |r| r.get(0))?
                .collect::<Result<Vec<String>, _>>()?;
            Ok(keys)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_survives_reopening_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keyed.db");
        {
            let store = SqliteKeyedStore::open(&path).unwrap();
            store.put("ses_1", "thread-a").unwrap();
            store.set_state("ses_1", "req-1", "waiting").unwrap();
            store.set_state("ses_1", "req-2", "waiting").unwrap();
            assert!(store.advance("req-1", "waiting", "complete").unwrap());
        }
        let store = SqliteKeyedStore::open(&path).unwrap();
        assert_eq!(store.get("ses_1").unwrap().as_deref(), Some("thread-a"));
        assert_eq!(store.get("ses_2").unwrap(), None);
        assert_eq!(store.state("req-1").unwrap().as_deref(), Some("complete"));
        assert_eq!(
            store.keys_in("ses_1", "waiting").unwrap(),
            vec!["req-2".to_owned()]
        );
    }

    #[test]
    fn advance_is_a_compare_and_set() {
        let store = SqliteKeyedStore::in_memory().unwrap();
        store.set_state("s", "r", "waiting").unwrap();
        assert!(store.advance("r", "waiting", "error").unwrap());
        assert!(!store.advance("r", "waiting", "complete").unwrap());
        assert_eq!(store.state("r").unwrap().as_deref(), Some("error"));
        assert!(!store.advance("unknown", "waiting", "complete").unwrap());
    }
}
