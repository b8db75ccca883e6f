//! Live streams by peer id, bounded, each entry removed when its claim is dropped.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use tonic::Status;

/// Why a peer id could not be claimed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClaimError {
    #[error("`{0}` is already connected")]
    AlreadyExists(String),
    #[error("the limit of {0} connected peers is reached")]
    Full(usize),
}

impl From<ClaimError> for Status {
    fn from(e: ClaimError) -> Self {
        match e {
            ClaimError::AlreadyExists(_) => Status::already_exists(e.to_string()),
            ClaimError::Full(_) => Status::resource_exhausted(e.to_string()),
        }
    }
}

/// A bounded map of peer id to a handle on its stream.
pub struct Registry<T> {
    inner: Arc<Mutex<HashMap<String, T>>>,
    max: usize,
}

impl<T> Clone for Registry<T> {
    fn clone(&self) -> Self {
        Self {
            inner: Arc::clone(&self.inner),
            max: self.max,
        }
    }
}

impl<T: Clone> Registry<T> {
    pub fn new(max: usize) -> Self {
        Self {
            inner: Arc::default(),
            max,
        }
    }

    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, T>> {
        // The map stays consistent whatever panicked while holding it: every update is a
        // single insert or remove.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Registers `value` under `id`; the entry lives as long as the returned claim.
    pub fn claim(&self, id: &str, value: T) -> Result<Claim<T>, ClaimError> {
        let mut map = self.map();
        if map.contains_key(id) {
            return Err(ClaimError::AlreadyExists(id.to_owned()));
        }
        if map.len() >= self.max {
            return Err(ClaimError::Full(self.max));
        }
        map.insert(id.to_owned(), value);
        Ok(Claim {
            registry: self.clone(),
            id: id.to_owned(),
        })
    }

    pub fn get(&self, id: &str) -> Option<T> {
        self.map().get(id).cloned()
    }

    /// Every registered handle, ordered by id.
    pub fn all(&self) -> Vec<T> {
        let map = self.map();
        let mut ids: Vec<&String> = map.keys().collect();
        ids.sort();
        ids.into_iter().map(|id| map[id].clone()).collect()
    }

    pub fn len(&self) -> usize {
        self.map().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Holds a registry entry; dropping it (the stream ended) frees the id.
pub struct Claim<T> {
    registry: Registry<T>,
    id: String,
}

impl<T> Drop for Claim<T> {
    fn drop(&mut self) {
        self.registry
            .inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_bounded_and_freed_with_their_claim() {
        let r: Registry<u8> = Registry::new(2);
        let a = r.claim("a", 1).unwrap();
        assert_eq!(
            r.claim("a", 2).err(),
            Some(ClaimError::AlreadyExists("a".to_owned()))
        );
        let _b = r.claim("b", 2).unwrap();
        assert_eq!(r.claim("c", 3).err(), Some(ClaimError::Full(2)));
        assert_eq!(r.all(), vec![1, 2]);
        drop(a);
        assert_eq!(r.get("a"), None);
        assert!(r.claim("c", 3).is_ok());
        assert_eq!(
            Status::from(ClaimError::Full(2)).code(),
            tonic::Code::ResourceExhausted
        );
    }
}
