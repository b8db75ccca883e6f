//! Separate budgets for a gateway's streams before and after the hello, so streams that
//! never say hello can never take a registered peer's place, nor keep a new peer out: when
//! the budget of streams waiting for their hello is full, a new stream displaces the one that
//! has waited longest (which a peer that says hello at once never is for long).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::CancellationToken;
use tonic::Status;

/// Default number of streams open at once that have not said hello yet.
pub const DEFAULT_MAX_UNREGISTERED: usize = 64;

/// Default time a new stream has to send its hello.
pub const DEFAULT_REGISTER_TIMEOUT: Duration = Duration::from_secs(10);

/// One waiting stream as the budget sees it.
#[derive(Debug)]
struct Waiting {
    id: u64,
    displace: CancellationToken,
}

/// The two budgets of one gateway; cheap to clone.
#[derive(Debug, Clone)]
pub struct StreamBudget {
    registered: Arc<Semaphore>,
    waiting: Arc<Mutex<VecDeque<Waiting>>>,
    next_id: Arc<AtomicU64>,
    /// Woken whenever a stream leaves either budget, so [`StreamBudget::emptied`] waits
    /// without polling.
    left: Arc<Notify>,
    max_registered: usize,
    max_unregistered: usize,
}

/// A stream admitted but not registered: it holds a waiting place until it registers, ends,
/// or is displaced by a newer stream.
#[derive(Debug)]
pub struct Unregistered {
    id: u64,
    displace: CancellationToken,
    budget: StreamBudget,
}

/// A registered stream's slot, freed when dropped.
#[derive(Debug)]
pub struct Registered {
    slot: Option<OwnedSemaphorePermit>,
    left: Arc<Notify>,
}

impl StreamBudget {
    /// `max_registered` registered streams and `max_unregistered` waiting ones, at most.
    pub fn new(max_registered: usize, max_unregistered: usize) -> Self {
        let max_registered = max_registered.clamp(1, Semaphore::MAX_PERMITS);
        Self {
            registered: Arc::new(Semaphore::new(max_registered)),
            waiting: Arc::new(Mutex::new(VecDeque::new())),
            next_id: Arc::new(AtomicU64::new(0)),
            left: Arc::new(Notify::new()),
            max_registered,
            max_unregistered: max_unregistered.max(1),
        }
    }

    /// Admits a new stream; when `max_unregistered` streams are already waiting, the one
    /// that has waited longest is told to make room (its `displaced` future resolves).
    pub fn open(&self) -> Unregistered {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let displace = CancellationToken::new();
        let mut waiting = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
        while waiting.len() >= self.max_unregistered {
            let Some(oldest) = waiting.pop_front() else {
                break;
            };
            oldest.displace.cancel();
        }
        waiting.push_back(Waiting {
            id,
            displace: displace.clone(),
        });
        Unregistered {
            id,
            displace,
            budget: self.clone(),
        }
    }

    /// Registered streams live now.
    pub fn registered(&self) -> usize {
        self.max_registered - self.registered.available_permits()
    }

    /// Streams waiting for their hello now.
    pub fn waiting(&self) -> usize {
        self.waiting.lock().map_or(0, |w| w.len())
    }

    /// Resolves once no stream is left in either budget (at once when none is).
    pub async fn emptied(&self) {
        loop {
            // Registered before the count is read, so a stream leaving in between still
            // wakes this waiter.
            let left = self.left.notified();
            let mut left = std::pin::pin!(left);
            left.as_mut().enable();
            if self.registered() + self.waiting() == 0 {
                return;
            }
            left.await;
        }
    }
}

impl Unregistered {
    /// Whether a newer stream displaced this one.
    pub fn is_displaced(&self) -> bool {
        self.displace.is_cancelled()
    }

    /// Resolves when a newer stream displaces this one.
    pub async fn displaced(&self) {
        self.displace.cancelled().await;
    }

    /// The status a displaced stream ends with.
    pub fn displaced_status(&self) -> Status {
        Status::resource_exhausted(format!(
            "displaced: {} newer streams are waiting to say hello",
            self.budget.max_unregistered
        ))
    }

    /// Moves the stream into the registered budget (freeing its waiting place);
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
        Ok(Registered {
            slot: Some(slot),
            left: self.budget.left.clone(),
        })
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        // The slot is released first, so a woken waiter counts it as free.
        drop(self.slot.take());
        self.left.notify_waiters();
    }
}

impl Drop for Unregistered {
    fn drop(&mut self) {
        let mut waiting = self
            .budget
            .waiting
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        waiting.retain(|w| w.id != self.id);
        drop(waiting);
        self.budget.left.notify_waiters();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waiting_streams_never_take_a_registered_slot_nor_keep_a_new_one_out() {
        let budget = StreamBudget::new(2, 3);
        let waiting: Vec<_> = (0..4).map(|_| budget.open()).collect();
        // The fourth displaced the first.
        assert!(waiting[0].is_displaced());
        assert!(!waiting[1].is_displaced());
        assert_eq!(
            waiting[0].displaced_status().code(),
            tonic::Code::ResourceExhausted
        );
        assert_eq!(budget.waiting(), 3);
        let mut it = waiting.into_iter().skip(1);
        let a = it.next().unwrap().register().unwrap();
        assert_eq!((budget.registered(), budget.waiting()), (1, 2));
        let _b = it.next().unwrap().register().unwrap();
        let full = it.next().unwrap().register().unwrap_err();
        assert!(full.message().contains("registered streams"));
        assert_eq!(budget.waiting(), 0);
        drop(a);
        let again = budget.open();
        assert!(again.register().is_ok());
    }

    #[tokio::test]
    async fn emptied_wakes_when_the_last_stream_leaves() {
        let budget = StreamBudget::new(2, 2);
        budget.emptied().await;
        let waiting = budget.open();
        let registered = budget.open().register().unwrap();
        let watcher = budget.clone();
        let mut emptied = tokio::spawn(async move { watcher.emptied().await });
        drop(waiting);
        tokio::task::yield_now().await;
        assert!(!emptied.is_finished(), "a registered stream is left");
        drop(registered);
        tokio::time::timeout(Duration::from_secs(5), &mut emptied)
            .await
            .expect("woken without polling")
            .unwrap();
    }
}
