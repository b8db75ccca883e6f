//! Separate budgets for a gateway's streams before and after registration, so streams that
//! never register (they hold a slot only until `register_timeout`) can never take a
//! registered agent's slot: an agent that registers gets a slot while any is free among
//! `max_streams`, however many unregistered streams are waiting.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tonic::Status;

/// Default number of streams open at once that have not registered yet.
pub const DEFAULT_MAX_UNREGISTERED: usize = 64;

/// Default time a new stream has to send its `register` message.
pub const DEFAULT_REGISTER_TIMEOUT: Duration = Duration::from_secs(10);

/// The two budgets of one gateway; cheap to clone.
#[derive(Debug, Clone)]
pub struct StreamBudget {
    registered: Arc<Semaphore>,
    unregistered: Arc<Semaphore>,
    max_registered: usize,
    max_unregistered: usize,
}

/// A stream admitted but not registered: it holds an unregistered slot until it registers
/// or ends.
#[derive(Debug)]
pub struct Unregistered {
    _slot: OwnedSemaphorePermit,
    budget: StreamBudget,
}

/// A registered stream's slot, freed when dropped.
#[derive(Debug)]
pub struct Registered {
    _slot: OwnedSemaphorePermit,
}

impl StreamBudget {
    /// `max_registered` registered streams and `max_unregistered` waiting ones, at most.
    pub fn new(max_registered: usize, max_unregistered: usize) -> Self {
        let max_registered = max_registered.clamp(1, Semaphore::MAX_PERMITS);
        let max_unregistered = max_unregistered.clamp(1, Semaphore::MAX_PERMITS);
        Self {
            registered: Arc::new(Semaphore::new(max_registered)),
            unregistered: Arc::new(Semaphore::new(max_unregistered)),
            max_registered,
            max_unregistered,
        }
    }

    /// Admits a new stream into the unregistered budget; `RESOURCE_EXHAUSTED` when it is full.
    pub fn open(&self) -> Result<Unregistered, Status> {
        let slot = self.unregistered.clone().try_acquire_owned().map_err(|_| {
            Status::resource_exhausted(format!(
                "the limit of {} streams waiting to register is reached",
                self.max_unregistered
            ))
        })?;
        Ok(Unregistered {
            _slot: slot,
            budget: self.clone(),
        })
    }

    /// Registered streams live now.
    pub fn registered(&self) -> usize {
        self.max_registered - self.registered.available_permits()
    }

    /// Streams waiting to register now.
    pub fn waiting(&self) -> usize {
        self.max_unregistered - self.unregistered.available_permits()
    }
}

impl Unregistered {
    /// Moves the stream into the registered budget (freeing its unregistered slot);
    /// `RESOURCE_EXHAUSTED` when every registered slot is taken.
    pub fn register(self) -> Result<Registered, Status> {
        let slot = self
            .budget
            .registered
            .clone()
            .try_acquire_owned()
            .map_err(|_| {
                Status::resource_exhausted(format!(
                    "the limit of {} registered streams is reached",
                    self.budget.max_registered
                ))
            })?;
        Ok(Registered { _slot: slot })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waiting_streams_never_take_a_registered_slot() {
        let budget = StreamBudget::new(2, 3);
        let waiting: Vec<_> = (0..3).map(|_| budget.open().unwrap()).collect();
        let refused = budget.open().unwrap_err();
        assert_eq!(refused.code(), tonic::Code::ResourceExhausted);
        assert!(refused.message().contains("waiting to register"));
        // However many wait, registering still finds a slot.
        let mut it = waiting.into_iter();
        let a = it.next().unwrap().register().unwrap();
        assert_eq!((budget.registered(), budget.waiting()), (1, 2));
        let _b = it.next().unwrap().register().unwrap();
        let full = it.next().unwrap().register().unwrap_err();
        assert!(full.message().contains("registered streams"));
        assert_eq!(budget.waiting(), 0);
        drop(a);
        assert!(budget.open().unwrap().register().is_ok());
    }
}
