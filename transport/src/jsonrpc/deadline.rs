//! Read deadlines of one JSON-RPC connection: a frame whose first byte has arrived must be
//! complete within `frame_timeout`, and a connection with no complete frame for
//! `idle_timeout` is closed. A peer trickling a huge declared body a byte at a time, or
//! holding a socket open with a partial frame, so costs its connection after a bounded time.
//!
//! One ticker per connection; a complete frame only sets a flag, so traffic pays nothing.

use std::time::Duration;

use tokio::time::{Instant, Interval, MissedTickBehavior};

/// Default time a started frame has to arrive completely.
pub const DEFAULT_FRAME_TIMEOUT: Duration = Duration::from_secs(30);

/// Why a connection was closed for being slow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Expired {
    /// A frame stayed incomplete for longer than `frame_timeout`.
    Frame,
    /// No complete frame for `idle_timeout`.
    Idle,
}

pub(crate) struct ReadDeadline {
    ticker: Option<Interval>,
    period: Duration,
    frame_timeout: bool,
    idle: Option<Duration>,
    progressed: bool,
    stalled_ticks: u32,
    quiet_ticks: u32,
}

impl ReadDeadline {
    /// Ticks every `frame_timeout` (or `idle_timeout` when only that is set): a frame is given
    /// between one and two periods, the idle timeout is rounded up to whole periods.
    pub(crate) fn new(frame_timeout: Option<Duration>, idle_timeout: Option<Duration>) -> Self {
        let period = frame_timeout
            .or(idle_timeout)
            .map(|p| p.max(Duration::from_millis(1)));
        let ticker = period.map(|p| {
            let mut ticker = tokio::time::interval_at(Instant::now() + p, p);
            ticker.set_missed_tick_behavior(MissedTickBehavior::Delay);
            ticker
        });
        Self {
            ticker,
            period: period.unwrap_or(Duration::MAX),
            frame_timeout: frame_timeout.is_some(),
            idle: idle_timeout,
            progressed: false,
            stalled_ticks: 0,
            quiet_ticks: 0,
        }
    }

    /// A complete frame arrived.
    pub(crate) fn progressed(&mut self) {
        self.progressed = true;
    }

    /// Waits for the next tick (forever without deadlines).
    pub(crate) async fn tick(&mut self) {
        match &mut self.ticker {
            Some(ticker) => {
                ticker.tick().await;
            }
            None => std::future::pending().await,
        }
    }

    /// Judges the period that just ended; `mid_frame`: part of a frame is buffered or being
    /// skipped.
    pub(crate) fn judge(&mut self, mid_frame: bool) -> Option<Expired> {
        if std::mem::take(&mut self.progressed) {
            self.stalled_ticks = 0;
            self.quiet_ticks = 0;
            return None;
        }
        self.quiet_ticks = self.quiet_ticks.saturating_add(1);
        self.stalled_ticks = if mid_frame {
            self.stalled_ticks.saturating_add(1)
        } else {
            0
        };
        if self.frame_timeout && self.stalled_ticks >= 2 {
            return Some(Expired::Frame);
        }
        match self.idle {
            Some(idle) if self.period.saturating_mul(self.quiet_ticks) >= idle => {
                Some(Expired::Idle)
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_stalled_frame_expires_on_the_second_quiet_tick() {
        let mut d = ReadDeadline::new(Some(Duration::from_secs(1)), None);
        assert_eq!(d.judge(true), None);
        assert_eq!(d.judge(true), Some(Expired::Frame));
        let mut d = ReadDeadline::new(Some(Duration::from_secs(1)), None);
        assert_eq!(d.judge(true), None);
        d.progressed();
        assert_eq!(d.judge(true), None);
        assert_eq!(d.judge(false), None);
        assert_eq!(d.judge(false), None);
    }

    #[tokio::test]
    async fn idle_counts_whole_periods_without_a_frame() {
        let mut d = ReadDeadline::new(Some(Duration::from_secs(1)), Some(Duration::from_secs(3)));
        assert_eq!(d.judge(false), None);
        assert_eq!(d.judge(false), None);
        d.progressed();
        assert_eq!(d.judge(false), None);
        assert_eq!(d.judge(false), None);
        assert_eq!(d.judge(false), None);
        assert_eq!(d.judge(false), Some(Expired::Idle));
    }
}
