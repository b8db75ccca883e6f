//! Sessions that end by themselves: a per-client share of the creates (so one client cannot
//! fill the store's cap), and the expiry of sessions idle for `Limits::session_idle_timeout`
//! (so the cap counts sessions in use, not every id ever created).
//!
//! Expiry is the store's (its clock, its `active_at`), so it works across a restart and
//! across instances sharing one store; each instance marks the sessions its WebSocket
//! connections are attached to as active, so those never expire while in use.

use std::collections::HashMap;
use std::sync::Weak;
use std::time::Duration;

use crate::budget::{Budget, ClientKey, Exhausted, Lease};

use super::layout::Binding;
use super::server::{Core, ServerError, Shared};

/// The per-client share of live sessions, and the lease each session created here holds.
#[derive(Debug)]
pub(crate) struct Shares {
    budget: Budget,
    leases: HashMap<String, Lease>,
}

impl Shares {
    pub(crate) fn new(max_per_client: usize) -> Self {
        Self {
            // The global cap is the store's count (instances share it), not this one's.
            budget: Budget::new(usize::MAX, max_per_client),
            leases: HashMap::new(),
        }
    }

    /// A share for one more live session of `client`.
    pub(crate) fn take(&self, client: Option<ClientKey>) -> Result<Lease, Exhausted> {
        self.budget.try_take(client)
    }

    /// Keeps `lease` for as long as `session_id` is live.
    pub(crate) fn hold(&mut self, session_id: &str, lease: Lease) {
        self.leases.insert(session_id.to_owned(), lease);
    }

    /// The session is no longer live: its share is given back.
    pub(crate) fn release(&mut self, session_id: &str) {
        self.leases.remove(session_id);
    }
}

impl<B: Binding> Shared<B> {
    /// Marks the attached sessions active and expires the idle ones; returns how many expired.
    pub(crate) fn expire_idle(&self, core: &mut Core<B>) -> Result<usize, ServerError> {
        let store = &self.store;
        store.touch(&core.hub.attached())?;
        let expired = store.expire_idle(self.limits.session_idle_timeout)?;
        for id in &expired {
            tracing::debug!(session_id = %id, "session expired");
            core.forget(id);
        }
        Ok(expired.len())
    }
}

/// How often the sweeper looks: a few times per idle timeout, within bounds.
fn period(idle: Duration) -> Duration {
    (idle / 4).clamp(Duration::from_millis(50), Duration::from_secs(300))
}

/// Expires idle sessions until the server is gone or shut down.
pub(crate) async fn sweep<B: Binding>(shared: Weak<Shared<B>>) {
    loop {
        let (every, stop) = match shared.upgrade() {
            Some(s) => (period(s.limits.session_idle_timeout), s.shutdown.clone()),
            None => return,
        };
        tokio::select! {
            () = tokio::time::sleep(every) => {}
            () = stop.cancelled() => return,
        }
        let Some(s) = shared.upgrade() else { return };
        let swept = s.lock().and_then(|mut core| s.expire_idle(&mut core));
        if let Err(e) = swept {
            tracing::warn!(error = %e, "could not expire idle sessions");
        }
    }
}
