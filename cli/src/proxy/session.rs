//! One proxied session's record and check: each message becomes a trace line, written to the
//! recording and run through the same line checker `trace check` uses, so the findings
//! printed live are the ones `trace check` prints on the recording, in the same words. A
//! network proxy names each line's stream (a session or a connection, see `check::lines`),
//! so concurrent sessions are checked apart, and ends a stream when its session ends.

use std::io::{LineWriter, Write};
use std::sync::{Mutex, MutexGuard};

use agentwire_runtime::registry::Protocol;

use super::record::{Recorder, broken_line, end_line, http_line, message_line};
use crate::check::{Finding, LineChecker, Stats};
use crate::report::{OutputFormat, Progress, Report};

/// Findings kept for the `--report` file; past this many only their number grows.
pub const MAX_KEPT: usize = 10_000;

/// Standard error that never refuses a write: a closed terminal must not stop the checking
/// (the findings still decide what `--enforce` forwards).
struct Lossy<W>(W);

impl<W: Write> Write for Lossy<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let _ = self.0.write_all(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        let _ = self.0.flush();
        Ok(())
    }
}

/// What a whole session found, for the summary and the report file.
#[derive(Debug, Default)]
pub struct Outcome {
    /// What each stream saw.
    pub stats: Vec<Stats>,
    /// The first `MAX_KEPT` findings.
    pub kept: Vec<Finding>,
    /// Every finding, kept or not.
    pub total: u64,
}

struct State {
    lines: LineChecker<'static>,
    recorder: Option<Recorder>,
    err: Lossy<LineWriter<Box<dyn Write + Send>>>,
    outcome: Outcome,
}

/// A session shared by the relay's directions; each message is checked whole, in the order
/// the proxy saw them.
pub struct Session {
    /// `None` once finished: a message still arriving from a connection closing late is
    /// neither recorded nor checked.
    state: Mutex<Option<State>>,
}

impl Session {
    /// A session checking against `protocol`, naming `file` in its findings (the recording's
    /// path), writing the recording to `recorder` and the findings to `err` as they come.
    pub fn new(
        protocol: &'static dyn Protocol,
        file: &str,
        recorder: Option<Recorder>,
        err: Box<dyn Write + Send>,
    ) -> Self {
        let state = State {
            lines: LineChecker::new(protocol, file),
            recorder,
            // Each finding leaves in one write, so the server's own standard error (the
            // same terminal) cannot cut it.
            err: Lossy(LineWriter::new(err)),
            outcome: Outcome::default(),
        };
        Self {
            state: Mutex::new(Some(state)),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Option<State>> {
        // A panic elsewhere cannot leave the checker half-updated (it runs under the lock).
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records and checks a message `from` sent on `stream` (`None`: the only one); returns
    /// its findings.
    pub fn message(&self, stream: Option<&str>, from: &str, body: &str) -> Vec<Finding> {
        self.line(&message_line(stream, from, body))
    }

    /// Records and checks input `from` sent on `stream` that was no frame; returns its
    /// finding.
    pub fn broken(&self, stream: Option<&str>, from: &str, why: &str) -> Vec<Finding> {
        self.line(&broken_line(stream, from, why))
    }

    /// Records and checks an HTTP exchange `from` made on `stream`; returns its findings.
    pub fn exchange(
        &self,
        stream: Option<&str>,
        from: &str,
        exchange: &serde_json::Value,
    ) -> Vec<Finding> {
        self.line(&http_line(stream, from, exchange))
    }

    /// Reports `finding`, which is about no recorded line (a replay's deviation): printed
    /// and counted as the others are.
    pub fn note(&self, finding: Finding) {
        let mut guard = self.lock();
        let Some(state) = &mut *guard else { return };
        let mut report =
            Report::new(&mut state.err, OutputFormat::Text, None, Progress::Off).keeping();
        report.push(finding);
        let found = report.take_kept();
        keep(&mut state.outcome, &found);
    }

    /// Ends the named `stream` (its session or connection is over): what it left mid-flow
    /// is reported now, and its checker let go.
    pub fn end(&self, stream: &str) -> Vec<Finding> {
        self.line(&end_line(stream))
    }

    fn line(&self, line: &[u8]) -> Vec<Finding> {
        let mut guard = self.lock();
        let Some(state) = &mut *guard else {
            return Vec::new();
        };
        if let Some(r) = &mut state.recorder {
            r.write(line);
        }
        let mut report =
            Report::new(&mut state.err, OutputFormat::Text, None, Progress::Off).keeping();
        state.lines.line(line, &mut report);
        let found = report.take_kept();
        keep(&mut state.outcome, &found);
        found
    }

    /// Ends the session: instances left mid-flow are findings too. Shared sessions (the
    /// network proxies' connections hold one) end here; a second call finds nothing.
    pub fn finish(&self) -> Outcome {
        let Some(mut state) = self.lock().take() else {
            return Outcome::default();
        };
        let mut report =
            Report::new(&mut state.err, OutputFormat::Text, None, Progress::Off).keeping();
        let stats = state.lines.finish(&mut report);
        let found = report.take_kept();
        keep(&mut state.outcome, &found);
        state.outcome.stats = stats;
        state.outcome
    }
}

fn keep(outcome: &mut Outcome, found: &[Finding]) {
    outcome.total += found.len() as u64;
    let room = MAX_KEPT.saturating_sub(outcome.kept.len());
    outcome.kept.extend(found.iter().take(room).cloned());
}
