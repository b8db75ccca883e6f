//! Where tokens live: a [`TokenStore`] keyed by resource, with an in-memory default. Token
//! values are [`Secret`]s, whose `Debug` shows nothing, so that no log carries them.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::SystemTime;

/// A credential value: printed as `Secret(..)` whatever it holds.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The value itself, for the one place that sends it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(..)")
    }
}

/// What an authorization server granted for a resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tokens {
    pub access_token: Secret,
    pub refresh_token: Option<Secret>,
    /// When the access token expires, if the server said.
    pub expires_at: Option<SystemTime>,
    /// The granted scopes (the requested ones when the server did not say).
    pub scopes: Vec<String>,
    /// The issuer that granted them: tokens are never used with another.
    pub issuer: String,
}

/// Keeps tokens between requests (and, for a persistent store, between runs).
pub trait TokenStore: Send + Sync + 'static {
    fn load(&self, resource: &str) -> Option<Tokens>;
    fn save(&self, resource: &str, tokens: Tokens);
    fn clear(&self, resource: &str);
}

/// Tokens in memory, gone with the process.
#[derive(Debug, Default)]
pub struct MemoryTokenStore {
    tokens: Mutex<HashMap<String, Tokens>>,
}

impl MemoryTokenStore {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, Tokens>> {
        self.tokens.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl TokenStore for MemoryTokenStore {
    fn load(&self, resource: &str) -> Option<Tokens> {
        self.map().get(resource).cloned()
    }

    fn save(&self, resource: &str, tokens: Tokens) {
        self.map().insert(resource.to_owned(), tokens);
    }

    fn clear(&self, resource: &str) {
        self.map().remove(resource);
    }
}
