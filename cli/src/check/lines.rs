//! A JSON Lines trace checked one line at a time, as the lines come: `trace check` reads a
//! file through it and `agentwire proxy` the lines it records, so both report the same
//! findings in the same words. A line may name the stream it belongs to
//! (`"stream": NAME`, which the network proxies write, one stream per session or
//! connection): each named stream is checked on its own, so two sessions interleaved in one
//! recording do not read as one (a line that is no JSON belongs to the stream it starts
//! with), and `{"stream": NAME, "end": true}` ends one, reporting
//! what it left mid-flow and letting its checker go (memory follows the open streams).

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use agentwire_runtime::Rule;
use agentwire_runtime::registry::Protocol;
use serde_json::Value;

use super::{At, Finding, Run, Stats, check_line, content, strip_bom};
use crate::report::Report;

/// One stream of a trace: its checker and the name its findings carry.
struct Stream<'p> {
    /// `FILE`, or `FILE#NAME` for a named stream.
    label: String,
    run: Run<'p>,
    /// The line and code of the gRPC status that ended the stream, once one has.
    ended: Option<(usize, &'static str)>,
}

impl<'p> Stream<'p> {
    fn new(protocol: &'p dyn Protocol, label: String) -> Self {
        Self {
            label,
            run: Run::new(protocol, None),
            ended: None,
        }
    }

    fn finish(self, out: &mut Report<'_>) -> Stats {
        let aborted = self.ended.is_some_and(|(_, code)| code != "OK");
        self.run.finish(&self.label, out, aborted)
    }
}

/// See the module doc.
pub struct LineChecker<'p> {
    protocol: &'p dyn Protocol,
    file: String,
    /// The stream of the lines that name none.
    main: Stream<'p>,
    /// Whether any line went to `main`.
    main_used: bool,
    /// The named streams still open, with the order they opened in.
    named: HashMap<String, (u64, Stream<'p>)>,
    opened: u64,
    /// What the named streams already ended saw.
    done: Vec<Stats>,
    /// Lines taken so far (blank ones included), so the next one's number.
    n: usize,
}

/// The stream a line names first (`{"stream":"NAME",...`), read without parsing the rest.
fn leading_stream(line: &[u8]) -> Option<String> {
    let rest = line.strip_prefix(b"{\"stream\":")?;
    serde_json::Deserializer::from_slice(rest)
        .into_iter::<String>()
        .next()?
        .ok()
}

impl<'p> LineChecker<'p> {
    /// A checker for a fresh trace whose findings name `file`.
    pub fn new(protocol: &'p dyn Protocol, file: &str) -> Self {
        Self {
            protocol,
            file: file.to_owned(),
            main: Stream::new(protocol, file.to_owned()),
            main_used: false,
            named: HashMap::new(),
            opened: 0,
            done: Vec::new(),
            n: 0,
        }
    }

    /// Checks the next line (with or without its line end); a blank line is skipped.
    pub fn line(&mut self, line: &[u8], out: &mut Report<'_>) {
        self.n += 1;
        let protocol = self.protocol;
        let line = if self.n == 1 { strip_bom(line) } else { line };
        let Some(line) = content(line) else { return };
        let mut entry: serde_json::Result<Value> = serde_json::from_slice(line);
        let name = match entry.as_mut().ok().and_then(Value::as_object_mut) {
            Some(o) => match o.remove("stream") {
                None => None,
                Some(Value::String(s)) => {
                    let end = o.get("end") == Some(&Value::Bool(true)) && !o.contains_key("from");
                    Some((s, end))
                }
                Some(_) => {
                    let e = agentwire_runtime::FieldError::new(
                        "/stream",
                        Rule::Type,
                        "expected a string".to_owned(),
                    );
                    return out.push(Finding::field(&self.file, At::Line(self.n), &e));
                }
            },
            // A line that is no JSON still names its stream when it starts with it (the
            // proxy records a body that is no JSON as it came, after its stream).
            None => entry
                .is_err()
                .then(|| leading_stream(line))
                .flatten()
                .map(|s| (s, false)),
        };
        let stream = match name {
            None => {
                self.main_used = true;
                &mut self.main
            }
            Some((name, true)) => {
                if let Some((_, s)) = self.named.remove(&name) {
                    self.done.push(s.finish(out));
                }
                return;
            }
            Some((name, false)) => match self.named.entry(name) {
                Entry::Occupied(o) => &mut o.into_mut().1,
                Entry::Vacant(v) => {
                    let label = format!("{}#{}", self.file, v.key());
                    self.opened += 1;
                    &mut v.insert((self.opened, Stream::new(protocol, label))).1
                }
            },
        };
        let at = (stream.label.as_str(), self.n);
        check_line(
            protocol,
            &mut stream.run,
            at,
            (line, entry),
            &mut stream.ended,
            out,
        );
    }

    /// Ends every stream, reporting instances left mid-flow (the named streams in the order
    /// they opened); what each stream saw, one `Stats` per stream.
    pub fn finish(mut self, out: &mut Report<'_>) -> Vec<Stats> {
        let mut all = Vec::new();
        if self.main_used || (self.opened == 0) {
            all.push(self.main.finish(out));
        }
        all.append(&mut self.done);
        let mut open: Vec<(u64, Stream<'p>)> = self.named.into_values().collect();
        open.sort_by_key(|(order, _)| *order);
        all.extend(open.into_iter().map(|(_, s)| s.finish(out)));
        all
    }

    /// What the streams saw so far, without ending them (a check stopped early).
    pub fn stats(&self) -> Vec<Stats> {
        let mut all = vec![self.main.run.stats.clone()];
        all.extend(self.done.iter().cloned());
        all.extend(self.named.values().map(|(_, s)| s.run.stats.clone()));
        all
    }
}
