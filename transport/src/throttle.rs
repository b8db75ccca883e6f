//! Rate-limited, aggregated log lines for anything a peer can trigger: a peer that sends a
//! million bad frames, or never reads its stream, must not write a million lines.
//!
//! Each call site of [`warn_throttled!`](crate::warn_throttled) (or
//! [`info_throttled!`](crate::info_throttled)) has its own [`Throttle`]: at most [`BURST`]
//! lines per [`WINDOW`]; the rest are counted, and the next line the site writes carries
//! `suppressed = <how many were left out since the previous line>`. When no line comes by the
//! end of the window that left lines out (the flood stopped), the site writes one summary line
//! carrying the count instead, from one reporter thread shared by every site (started with the
//! first line ever left out), to the subscriber the left-out lines would have gone to. The
//! limit is per site, not per peer: one flooding peer also quiets the same warning of the
//! others, which the count then reports.

use std::sync::{Condvar, Mutex, Once};
use std::time::{Duration, Instant};

use tracing::Dispatch;

/// Lines one call site writes per [`WINDOW`] at most.
pub const BURST: u32 = 5;

/// The window [`BURST`] counts in.
pub const WINDOW: Duration = Duration::from_secs(10);

/// The state of one call site.
#[derive(Debug)]
pub struct Throttle {
    state: Mutex<State>,
    burst: u32,
    window: Duration,
    /// Writes the site's summary line: `suppressed` lines were left out and none came after.
    report: fn(u64),
}

#[derive(Debug)]
struct State {
    /// When the current window started (`None` before the first line).
    window: Option<Instant>,
    /// Lines written in the current window.
    written: u32,
    /// Lines left out since the last one written (or reported).
    suppressed: u64,
    /// The reporter will look at this site when its window ends.
    queued: bool,
    /// The subscriber the left-out lines were meant for (the reporter's thread has no default
    /// of its own when the application set one per thread).
    dispatch: Option<Dispatch>,
}

/// What the reporter finds at a site it was asked to look at.
#[derive(Debug)]
enum Settle {
    /// The window ended with lines left out and unreported: write the summary.
    Report(u64, Option<Dispatch>),
    /// A new window already leaves lines out: look again when it ends.
    Later(Instant),
    /// The site's own next line carried the count.
    Nothing,
}

impl Throttle {
    /// A site writing [`BURST`] lines per [`WINDOW`], `report` writing its summary line.
    pub const fn new(report: fn(u64)) -> Self {
        Self::with_window(BURST, WINDOW, report)
    }

    /// A site writing `burst` lines per `window`.
    pub const fn with_window(burst: u32, window: Duration, report: fn(u64)) -> Self {
        Self {
            state: Mutex::new(State {
                window: None,
                written: 0,
                suppressed: 0,
                queued: false,
                dispatch: None,
            }),
            burst,
            window,
            report,
        }
    }

    /// `Some(n)` when this line may be written, `n` being how many were left out since the
    /// previous one; `None` when it is to be left out (and counted, and reported at the end
    /// of the window if no line comes by then).
    pub fn admit(&'static self) -> Option<u64> {
        let (admitted, due) = self.admit_at(Instant::now());
        if let Some(due) = due {
            REPORTER.queue(self, due);
        }
        admitted
    }

    /// The answer of [`Self::admit`], and when this line is the first left out since the
    /// reporter last looked, the end of the window (when the reporter is to look).
    fn admit_at(&self, now: Instant) -> (Option<u64>, Option<Instant>) {
        let mut st = self.lock();
        let fresh = st
            .window
            .is_none_or(|start| now.saturating_duration_since(start) >= self.window);
        if fresh {
            st.window = Some(now);
            st.written = 0;
        }
        if st.written < self.burst {
            st.written += 1;
            return (Some(std::mem::take(&mut st.suppressed)), None);
        }
        st.suppressed += 1;
        if st.queued {
            return (None, None);
        }
        st.queued = true;
        st.dispatch = Some(tracing::dispatcher::get_default(Dispatch::clone));
        let start = st.window.unwrap_or(now);
        (None, Some(start + self.window))
    }

    /// What is owed at `now`, the reporter looking at the site.
    fn settle_at(&self, now: Instant) -> Settle {
        let mut st = self.lock();
        let end = st.window.map(|start| start + self.window);
        match end {
            Some(end) if st.suppressed > 0 && end > now => Settle::Later(end),
            _ => {
                st.queued = false;
                let dispatch = st.dispatch.take();
                match std::mem::take(&mut st.suppressed) {
                    0 => Settle::Nothing,
                    n => Settle::Report(n, dispatch),
                }
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic elsewhere while holding the lock leaves consistent counters.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The one thread writing the summary lines of every site, started with the first line
/// ever left out: it sleeps until the earliest window that left lines out ends.
struct Reporter {
    /// The sites to look at, and when.
    due: Mutex<Vec<(Instant, &'static Throttle)>>,
    wake: Condvar,
    started: Once,
}

static REPORTER: Reporter = Reporter {
    due: Mutex::new(Vec::new()),
    wake: Condvar::new(),
    started: Once::new(),
};

impl Reporter {
    fn queue(&'static self, site: &'static Throttle, at: Instant) {
        self.started.call_once(|| {
            let spawned = std::thread::Builder::new()
                .name("log-throttle".to_owned())
                .spawn(|| REPORTER.run());
            // Without the thread the counts still ride on each site's next line.
            if let Err(e) = spawned {
                tracing::warn!(error = %e, "no thread for rate-limited log summaries");
            }
        });
        self.lock().push((at, site));
        self.wake.notify_one();
    }

    fn run(&self) {
        let mut due = self.lock();
        loop {
            let now = Instant::now();
            let (ripe, waiting): (Vec<_>, Vec<_>) = due.drain(..).partition(|(at, _)| *at <= now);
            *due = waiting;
            if ripe.is_empty() {
                // A poisoned lock still holds a consistent list.
                due = match due.iter().map(|(at, _)| *at).min() {
                    None => self.wake.wait(due).unwrap_or_else(|e| e.into_inner()),
                    Some(at) => match self.wake.wait_timeout(due, at - now) {
                        Ok((g, _)) => g,
                        Err(e) => e.into_inner().0,
                    },
                };
                continue;
            }
            // Reporting outside the lock: a subscriber may take its time, or log itself.
            drop(due);
            let mut later = Vec::new();
            for (_, site) in ripe {
                match site.settle_at(now) {
                    Settle::Report(n, Some(d)) => {
                        tracing::dispatcher::with_default(&d, || (site.report)(n));
                    }
                    Settle::Report(n, None) => (site.report)(n),
                    Settle::Later(at) => later.push((at, site)),
                    Settle::Nothing => {}
                }
            }
            due = self.lock();
            due.extend(later);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(Instant, &'static Throttle)>> {
        self.due.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// `tracing::event!` at `level`, throttled per call site ([`crate::throttle`]); the line
/// carries a `suppressed` field, and a summary line reports what was left out at the end of a
/// flood.
#[macro_export]
macro_rules! event_throttled {
    ($level:expr, $($arg:tt)+) => {{
        static SITE: $crate::throttle::Throttle = $crate::throttle::Throttle::new({
            // The summary line, when the window ends on lines left out and none came after.
            fn report(suppressed: u64) {
                $crate::tracing::event!(
                    $level,
                    suppressed,
                    site = concat!(file!(), ":", line!()),
                    "rate limit: lines of this site were left out"
                );
            }
            report
        });
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

    fn silent(_: u64) {}

    #[test]
    fn a_burst_per_window_then_the_count_of_what_was_left_out() {
        let t = Throttle::new(silent);
        let start = Instant::now();
        for _ in 0..BURST {
            assert_eq!(t.admit_at(start), (Some(0), None));
        }
        let later = start + Duration::from_secs(1);
        assert_eq!(t.admit_at(later), (None, Some(start + WINDOW)));
        for _ in 1..1000 {
            assert_eq!(t.admit_at(later), (None, None));
        }
        let next = start + WINDOW;
        assert_eq!(t.admit_at(next), (Some(1000), None));
        assert_eq!(t.admit_at(next), (Some(0), None));
        // The count went out on that line: the reporter has nothing to add.
        assert!(matches!(t.settle_at(next), Settle::Nothing));
    }

    #[test]
    fn a_flood_that_stops_is_reported_when_its_window_ends() {
        let t = Throttle::with_window(1, WINDOW, silent);
        let start = Instant::now();
        assert_eq!(t.admit_at(start).0, Some(0));
        assert_eq!(t.admit_at(start).1, Some(start + WINDOW));
        assert_eq!(t.admit_at(start), (None, None));
        assert!(matches!(
            t.settle_at(start + WINDOW),
            Settle::Report(2, Some(_))
        ));
        // Reported once: the next line starts from nothing.
        assert_eq!(t.admit_at(start + WINDOW).0, Some(0));
        // A new window leaving lines out before the reporter looks: it looks again later.
        let second = start + WINDOW;
        assert_eq!(t.admit_at(second), (None, Some(second + WINDOW)));
        let third = second + WINDOW;
        assert_eq!(t.admit_at(third).0, Some(1));
        assert_eq!(t.admit_at(third), (None, None));
        assert!(matches!(t.settle_at(second + WINDOW), Settle::Later(at) if at == third + WINDOW));
        assert!(matches!(t.settle_at(third + WINDOW), Settle::Report(1, _)));
    }

    /// End to end: a site floods, then falls silent; the reporter thread writes its count to
    /// the subscriber of the flooding thread (set for that thread only) once the window ends.
    #[test]
    fn the_reporter_writes_the_count_nobody_else_would() {
        fn report(suppressed: u64) {
            tracing::warn!(suppressed, "left out");
        }
        static SITE: Throttle = Throttle::with_window(2, Duration::from_millis(100), report);
        let log = std::sync::Arc::new(Mutex::new(Vec::<u8>::new()));
        let sink = log.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_ansi(false)
            .with_writer(move || Sink(sink.clone()))
            .finish();
        let admitted = tracing::subscriber::with_default(subscriber, || {
            (0..10).filter(|_| SITE.admit().is_some()).count()
        });
        assert_eq!(admitted, 2);
        let text = || String::from_utf8_lossy(&log.lock().unwrap()).into_owned();
        let deadline = Instant::now() + Duration::from_secs(10);
        while !text().contains("suppressed=8") && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(text().contains("suppressed=8"), "{}", text());
    }

    struct Sink(std::sync::Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Sink {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
}
