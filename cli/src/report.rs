//! Where findings go as they are found: one line each on the output (text or JSON), flushed
//! soon enough that a reader sees them while the check runs, up to an optional limit, with a
//! progress line on standard error when it is a terminal and the input is long.

use std::io::Write;
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use crate::check::finding::{At, Detail, Finding};

/// How findings and the summary are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum OutputFormat {
    /// `FILE:WHERE: WHAT` per finding; `ok: ...` on success, the count on standard error
    /// otherwise.
    #[default]
    Text,
    /// One JSON object per line: each finding, then one summary object.
    Json,
}

/// What a whole run checked, for the summary.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    pub protocol: String,
    pub messages: usize,
    pub streams: usize,
    pub instances: usize,
    pub one_sided: bool,
    /// For a protocol with versions: each version as the streams spoke it (`2`, `2 (not
    /// named by the stream)`, `3 (undeclared, not checked)`) and how many streams did, in
    /// the order first seen.
    pub versions: Vec<(String, usize)>,
}

impl Summary {
    pub fn sentence(&self) -> String {
        let versions: Vec<String> = self
            .versions
            .iter()
            .map(|(v, n)| format!("version {v}: {n} stream(s)"))
            .collect();
        format!(
            "{} message(s) in {} stream(s), {} sequence instance(s), protocol {}{}{}",
            self.messages,
            self.streams,
            self.instances,
            self.protocol,
            if versions.is_empty() {
                String::new()
            } else {
                format!(" ({})", versions.join(", "))
            },
            if self.one_sided { " (one-sided)" } else { "" }
        )
    }

    /// Counts one stream checked as `version`.
    pub fn add_version(&mut self, version: &crate::check::version::StreamVersion) {
        use crate::check::version::StreamVersion;
        let shown = match version {
            StreamVersion::Named(v) => (*v).to_owned(),
            StreamVersion::Assumed(v) => format!("{v} (not named by the stream)"),
            StreamVersion::Undeclared(v) => format!("{v} (undeclared, not checked)"),
        };
        match self.versions.iter_mut().find(|(v, _)| *v == shown) {
            Some((_, n)) => *n += 1,
            None => self.versions.push((shown, 1)),
        }
    }
}

/// A pending output is flushed at most this long after it was written.
const FLUSH_EVERY: Duration = Duration::from_millis(100);
/// Progress appears only on inputs that take longer than this.
const PROGRESS_AFTER: Duration = Duration::from_secs(1);
/// How often the progress line is redrawn.
const PROGRESS_EVERY: Duration = Duration::from_millis(250);
/// How often a progress line is written when standard error is not a terminal.
const PROGRESS_LINE_EVERY: Duration = Duration::from_secs(1);

/// How progress is shown on standard error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    Off,
    /// One line, redrawn in place (standard error is a terminal).
    Redraw,
    /// A line now and then (`--progress` with standard error not a terminal: a log).
    Lines,
}

/// The sink every finding of a run goes through.
pub struct Report<'w> {
    out: &'w mut dyn Write,
    format: OutputFormat,
    max: Option<u64>,
    found: u64,
    /// The output refused a write (`| head` closed it): nobody reads the rest.
    closed: bool,
    unflushed: bool,
    last_flush: Instant,
    started: Instant,
    /// When progress was last shown; `None` when it is not shown.
    progress: Option<Instant>,
    style: Progress,
    progress_shown: bool,
    ticks: u32,
    /// Findings handed back to the caller as well (`keeping`), for a proxy that acts on them.
    kept: Option<Vec<Finding>>,
}

impl<'w> Report<'w> {
    pub fn new(
        out: &'w mut dyn Write,
        format: OutputFormat,
        max: Option<u64>,
        style: Progress,
    ) -> Self {
        let now = Instant::now();
        Self {
            out,
            format,
            max,
            found: 0,
            closed: false,
            unflushed: false,
            last_flush: now,
            started: now,
            progress: (style != Progress::Off).then_some(now),
            style,
            progress_shown: false,
            ticks: 0,
            kept: None,
        }
    }

    /// Also keeps each finding written, for `take_kept`.
    pub fn keeping(mut self) -> Self {
        self.kept = Some(Vec::new());
        self
    }

    /// The findings written since the last call (with `keeping`; none otherwise).
    pub fn take_kept(&mut self) -> Vec<Finding> {
        self.kept.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// Writes one finding, unless the limit is reached or the output is closed.
    pub fn push(&mut self, f: Finding) {
        if self.stopped() {
            return;
        }
        self.found += 1;
        self.clear_progress();
        let written = match self.format {
            OutputFormat::Text => writeln!(self.out, "{f}"),
            OutputFormat::Json => writeln!(self.out, "{}", finding_json(&f)),
        };
        self.closed |= written.is_err();
        self.unflushed = true;
        if let Some(kept) = &mut self.kept {
            kept.push(f);
        }
        // The first finding goes out at once; later ones in batches, so a 50 MB trace full of
        // findings is not one system call per line.
        if self.found == 1 || self.last_flush.elapsed() >= FLUSH_EVERY {
            self.flush();
        }
    }

    pub fn extend(&mut self, findings: impl IntoIterator<Item = Finding>) {
        for f in findings {
            self.push(f);
        }
    }

    /// No more findings are wanted: the limit is reached or nobody reads them.
    pub fn stopped(&self) -> bool {
        self.closed || self.max.is_some_and(|m| self.found >= m)
    }

    /// Whether the `--max-findings` limit ended the run early.
    fn limited(&self) -> bool {
        self.max.is_some_and(|m| self.found >= m)
    }

    /// Called once per input line or frame: flushes findings left waiting and redraws the
    /// progress line. Cheap: the clock is read every 256 calls.
    pub fn tick(&mut self, file: &str, done: u64, total: Option<u64>) {
        self.ticks = self.ticks.wrapping_add(1);
        if !self.ticks.is_multiple_of(256) {
            return;
        }
        if self.unflushed && self.last_flush.elapsed() >= FLUSH_EVERY {
            self.flush();
        }
        let Some(last) = self.progress else {
            return;
        };
        let every = match self.style {
            Progress::Lines => PROGRESS_LINE_EVERY,
            _ => PROGRESS_EVERY,
        };
        if self.started.elapsed() < PROGRESS_AFTER || last.elapsed() < every {
            return;
        }
        self.progress = Some(Instant::now());
        let mb = |b: u64| b as f64 / 1e6;
        let of = total.map_or(String::new(), |t| format!(" of {:.1}", mb(t)));
        let line = format!(
            "{file}: {:.1}{of} MB read, {} finding(s)",
            mb(done),
            self.found
        );
        if self.style == Progress::Lines {
            eprintln!("progress: {line}");
        } else {
            eprint!("\r\x1b[K{line}");
            self.progress_shown = true;
        }
    }

    fn clear_progress(&mut self) {
        if self.progress_shown {
            eprint!("\r\x1b[K");
            self.progress_shown = false;
        }
    }

    fn flush(&mut self) {
        self.closed |= self.out.flush().is_err();
        self.unflushed = false;
        self.last_flush = Instant::now();
    }

    /// Writes the summary and returns the exit status: 0 when nothing was found, 1 otherwise.
    pub fn finish(mut self, summary: &Summary) -> u8 {
        self.clear_progress();
        let sentence = summary.sentence();
        let limited = self.limited();
        match self.format {
            OutputFormat::Text if self.found == 0 => {
                // Success says what was checked, so it cannot be mistaken for checking nothing.
                let _ = writeln!(self.out, "ok: {sentence}");
            }
            OutputFormat::Text if limited => eprintln!(
                "stopped at {} finding(s) (--max-findings) after {sentence}",
                self.found
            ),
            OutputFormat::Text => eprintln!("{} finding(s) in {sentence}", self.found),
            OutputFormat::Json => {
                let mut line = json!({
                    "type": "summary",
                    "ok": self.found == 0,
                    "findings": self.found,
                    "stopped_early": limited,
                    "messages": summary.messages,
                    "streams": summary.streams,
                    "instances": summary.instances,
                    "protocol": summary.protocol,
                    "one_sided": summary.one_sided,
                });
                // Only a protocol with versions has them (other summaries keep their shape).
                if !summary.versions.is_empty() {
                    let versions = summary.versions.iter();
                    line["versions"] = versions
                        .map(|(v, n)| json!({"version": v, "streams": n}))
                        .collect();
                }
                let _ = writeln!(self.out, "{line}");
            }
        }
        let _ = self.out.flush();
        u8::from(self.found > 0)
    }
}

/// A finding as one JSON object (the shape is documented in the command's help).
pub fn finding_json(f: &Finding) -> Value {
    let mut o = Map::new();
    o.insert("type".into(), "finding".into());
    o.insert("file".into(), f.file.clone().into());
    match f.at {
        At::Line(n) => o.insert("line".into(), n.into()),
        At::Frame(n) => o.insert("frame".into(), n.into()),
        At::Byte(n) => o.insert("byte".into(), n.into()),
        At::End => o.insert("end_of_stream".into(), true.into()),
    };
    let kind = match &f.detail {
        Detail::Json => "json",
        Detail::Framing => "framing",
        Detail::Stream => "stream",
        Detail::Version => "version",
        Detail::Field { .. } => "field",
        Detail::Sequence { .. } => "sequence",
    };
    o.insert("kind".into(), kind.into());
    o.insert("text".into(), f.text.clone().into());
    match &f.detail {
        Detail::Field {
            pointer,
            rule,
            message,
        } => {
            o.insert("pointer".into(), pointer.clone().into());
            o.insert("rule".into(), rule.clone().into());
            o.insert("message".into(), message.clone().into());
        }
        Detail::Sequence {
            machine,
            instance,
            state,
            got,
            expected,
            code,
        } => {
            o.insert("machine".into(), (*machine).into());
            o.insert("instance".into(), instance.clone().into());
            o.insert("state".into(), (*state).into());
            o.insert("got".into(), got.map_or(Value::Null, Value::from));
            o.insert("expected".into(), expected.to_vec().into());
            if let Some(code) = code {
                o.insert("code".into(), (*code).into());
            }
        }
        Detail::Json | Detail::Framing | Detail::Stream | Detail::Version => {}
    }
    Value::Object(o)
}
