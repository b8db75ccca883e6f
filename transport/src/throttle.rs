//! Rate-limited, aggregated log lines for anything a peer can trigger: a peer that sends a
//! million bad frames, or never reads its stream, must not write a million lines.
//!
//! Each call site of [`warn_throttled!`](crate::warn_throttled) (or
//! [`info_throttled!`](crate::info_throttled)) has its own [`Throttle`]: at most [`BURST`]
//! lines per [`WINDOW`]; the rest are counted, and the next line the site writes carries
//! `suppressed = <how many were left out since the previous line>`. The limit is per site, not
//! per peer: one flooding peer also quiets the same warning of the others, which the count
//! then reports.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Lines one call site writes per [`WINDOW`] at most.
pub const BURST: u32 = 5;

/// The window [`BURST`] counts in.
pub const WINDOW: Duration = Duration::from_secs(10);

/// The state of one call site.
#[derive(Debug)]
pub struct Throttle {
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    /// When the current window started (`None` before the first line).
    window: Option<Instant>,
    /// Lines written in the current window.
    written: u32,
    /// Lines left out since the last one written.
    suppressed: u64,
}

impl Throttle {
    pub const fn new() -> Self {
        Self {
            state: Mutex::new(State {
                window: None,
                written: 0,
                suppressed: 0,
            }),
        }
    }

    /// `Some(n)` when this line may be written, `n` being how many were left out since the
    /// previous one; `None` when it is to be left out (and counted).
    pub fn admit(&self) -> Option<u64> {
        self.admit_at(Instant::now())
    }

    fn admit_at(&self, now: Instant) -> Option<u64> {
        // A panic elsewhere while holding the lock leaves consistent counters.
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let fresh = st
            .window
            .is_none_or(|start| now.saturating_duration_since(start) >= WINDOW);
        if fresh {
            st.window = Some(now);
            st.written = 0;
        }
        if st.written < BURST {
            st.written += 1;
            Some(std::mem::take(&mut st.suppressed))
        } else {
            st.suppressed += 1;
            None
        }
    }
}

impl Default for Throttle {
    fn default() -> Self {
        Self::new()
    }
}

/// `tracing::event!` at `level`, throttled per call site ([`crate::throttle`]); the line
/// carries a `suppressed` field.
#[macro_export]
macro_rules! event_throttled {
    ($level:expr, $($arg:tt)+) => {{
        static SITE: $crate::throttle::Throttle = $crate::throttle::Throttle::new();
        if let Some(suppressed) = SITE.admit() {
            $crate::tracing::event!($level, suppressed, $($arg)+);
        }
    }};
}

/// `tracing::warn!`, throttled per call site ([`crate::throttle`]).
#[macro_export]
macro_rules! warn_throttled {
    ($($arg:tt)+) => {
        $crate::event_throttled!($crate::tracing::Level::WARN, $($arg)+)
    };
}

/// `tracing::error!`, throttled per call site ([`crate::throttle`]).
#[macro_export]
macro_rules! error_throttled {
    ($($arg:tt)+) => {
        $crate::event_throttled!($crate::tracing::Level::ERROR, $($arg)+)
    };
}

/// `tracing::info!`, throttled per call site ([`crate::throttle`]).
#[macro_export]
macro_rules! info_throttled {
    ($($arg:tt)+) => {
        $crate::event_throttled!($crate::tracing::Level::INFO, $($arg)+)
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_per_window_then_the_count_of_what_was_left_out() {
        let t = Throttle::new();
        let start = Instant::now();
        for _ in 0..BURST {
            assert_eq!(t.admit_at(start), Some(0));
        }
        for _ in 0..1000 {
            assert_eq!(t.admit_at(start + Duration::from_secs(1)), None);
        }
        let next = start + WINDOW;
        assert_eq!(t.admit_at(next), Some(1000));
        assert_eq!(t.admit_at(next), Some(0));
    }
}
