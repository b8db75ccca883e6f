//! `agentwire trace check`: runs recorded traffic through a protocol's decoders and its
//! generated sequence checker, and turns every problem into a one-line finding.

use std::fmt;

use agentwire_runtime::calls::Calls;
use agentwire_runtime::framing::{ContentLengthDecoder, FramingError, FramingErrorKind};
use agentwire_runtime::machine::Violation;
use agentwire_runtime::registry::{Checker, Decoded, Protocol, TransportKind};
use agentwire_runtime::{FieldError, Invalid, Rule};
use serde_json::{Value, json};

use crate::merge::{Shape, merge};

mod repair;
mod status;

/// Whether `role` sends messages in `p` (its decoder knows the role).
pub fn has_role(p: &dyn Protocol, role: &str) -> bool {
    p.decode(role, &json!({})).is_some()
}

/// Where in a file a finding points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum At {
    /// A line of a JSON Lines file (1-based).
    Line(usize),
    /// A frame of a `Content-Length` capture (1-based).
    Frame(usize),
    /// A byte offset of a `Content-Length` capture, for input that is not a whole frame.
    Byte(u64),
    /// The end of the stream.
    End,
}

impl fmt::Display for At {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            At::Line(n) => write!(f, "line {n}"),
            At::Frame(n) => write!(f, "frame {n}"),
            At::Byte(n) => write!(f, "byte {n}"),
            At::End => f.write_str("end of stream"),
        }
    }
}

/// One problem: `FILE:WHERE: WHAT` when printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub file: String,
    pub at: At,
    pub text: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.at, self.text)
    }
}

/// The two ways a capture can be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    JsonLines,
    ContentLength,
}

impl Format {
    /// Framed if the first bytes (after any leading whitespace) are a `Content-Length` or
    /// `Content-Type` header name, in any case; JSON Lines otherwise.
    pub fn detect(bytes: &[u8]) -> Format {
        let start = bytes
            .iter()
            .position(|b| !b.is_ascii_whitespace())
            .unwrap_or(bytes.len());
        let head = &bytes[start..];
        let framed = [&b"content-length"[..], b"content-type"]
            .iter()
            .any(|name| head.len() >= name.len() && head[..name.len()].eq_ignore_ascii_case(name));
        if framed {
            Format::ContentLength
        } else {
            Format::JsonLines
        }
    }
}

/// One side of a connection, captured on its own (`--from ROLE FILE`).
#[derive(Debug, Clone)]
pub struct Capture {
    pub role: String,
    pub file: String,
    pub bytes: Vec<u8>,
}

/// What a check saw, for the summary line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Messages given to the sequence checker (an invalid one counts when it could be read
    /// as its kind; see `repair`).
    pub messages: usize,
    /// Sequence instances started (each correlation key's machine run).
    pub instances: usize,
}

/// How a check treats the directions it sees.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Sides {
    /// The trace holds every direction.
    #[default]
    Both,
    /// The trace is a capture of some directions only (`--one-sided`): a violation that a
    /// message of an absent sender could have prevented is no finding, and the check goes on
    /// from a fresh checker as if those messages had come.
    OneSided,
}

/// Runs messages through a checker, remembering where each came from so violations can be
/// pointed back at a file position.
struct Run<'p> {
    protocol: &'p dyn Protocol,
    /// `None` only for a protocol without a machine, which the command refuses up front.
    checker: Option<Box<dyn Checker>>,
    /// File and position of every message observed so far, in order.
    origins: Vec<(usize, At)>,
    /// Index in `origins` of the current checker's message 0 (moved on each restart).
    base: usize,
    /// The senders a one-sided capture holds; `None` when every direction is recorded.
    present: Option<Vec<String>>,
    stats: Stats,
}

impl<'p> Run<'p> {
    fn new(protocol: &'p dyn Protocol, present: Option<Vec<String>>) -> Self {
        Self {
            protocol,
            checker: protocol.checker(),
            origins: Vec::new(),
            base: 0,
            present,
            stats: Stats::default(),
        }
    }

    /// Whether a message of a sender the capture does not hold could have satisfied `v`.
    fn excused(&self, v: &Violation) -> bool {
        use agentwire_runtime::machine::Problem;
        let Some(present) = &self.present else {
            return false;
        };
        matches!(v.problem, Problem::Unexpected | Problem::Unfinished)
            && v.expected.iter().any(|k| {
                let role = k.split('.').next().unwrap_or_default();
                !present.iter().any(|p| p == role)
            })
    }

    fn step(&mut self, msg: &Decoded) -> Result<(), Violation> {
        let Some(checker) = self.checker.as_mut() else {
            return Ok(());
        };
        let before = checker.live_instances();
        let result = checker.observe(msg);
        self.stats.instances += checker.live_instances().saturating_sub(before);
        result
    }

    fn observe(
        &mut self,
        files: &[String],
        file: usize,
        at: At,
        msg: &Decoded,
        out: &mut Vec<Finding>,
    ) {
        self.origins.push((file, at));
        self.stats.messages += 1;
        let mut result = self.step(msg);
        if let Err(v) = &result
            && self.excused(v)
        {
            // The absent side's replies would have moved the instance on: start afresh with
            // this message as the first. If a fresh start cannot take it either, those replies
            // are still to come: keep the waiting checker and leave this message unjudged.
            let waiting = std::mem::replace(&mut self.checker, self.protocol.checker());
            let base = std::mem::replace(&mut self.base, self.origins.len() - 1);
            let instances = self.stats.instances;
            result = self.step(msg);
            if result.is_err() {
                self.checker = waiting;
                self.base = base;
                self.stats.instances = instances;
                result = Ok(());
            }
        }
        if let Err(v) = result
            && !self.excused(&v)
        {
            // The checker counts every message it is given, so its index is ours.
            let (file, at) = v
                .index
                .and_then(|i| self.origins.get(self.base + i).copied())
                .unwrap_or((file, at));
            out.push(Finding {
                file: files[file].clone(),
                at,
                text: violation_text(&v),
            });
        }
    }

    /// Ends the stream; `aborted` when a gRPC status other than OK ended it, so instances
    /// left mid-flow are answered by that status.
    fn finish(mut self, stream: &str, out: &mut Vec<Finding>, aborted: bool) -> Stats {
        if let Some(Err(end)) = self.checker.take().map(|c| c.finish())
            && !aborted
        {
            out.extend(end.iter().filter(|v| !self.excused(v)).map(|v| Finding {
                file: stream.to_owned(),
                at: At::End,
                text: violation_text(v),
            }));
        }
        self.stats
    }
}

/// A violation's own wording, without the `message N: ` or `end of stream: ` it starts with.
fn violation_text(v: &Violation) -> String {
    let text = v.to_string();
    let prefix = match v.index {
        Some(i) => format!("message {i}: "),
        None => "end of stream: ".to_owned(),
    };
    match text.strip_prefix(&prefix) {
        Some(rest) => rest.to_owned(),
        None => text,
    }
}

/// A JSON error of a one-line document, without serde's `line 1`.
fn json_error_on_line(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    match text.strip_suffix(&suffix) {
        Some(what) => format!("invalid JSON: {what} at column {}", e.column()),
        None => format!("invalid JSON: {text}"),
    }
}

/// The non-empty lines of a JSON Lines file, numbered from 1, without their line ends.
fn lines(bytes: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    bytes
        .split(|&b| b == b'\n')
        .enumerate()
        .map(|(i, line)| (i + 1, line.strip_suffix(b"\r").unwrap_or(line)))
        .filter(|(_, line)| !line.iter().all(u8::is_ascii_whitespace))
}

fn invalid_findings(file: &str, at: At, invalid: &Invalid, strip: &str) -> Vec<Finding> {
    invalid
        .errors
        .iter()
        .map(|e| {
            let pointer = e.pointer.strip_prefix(strip).unwrap_or(&e.pointer);
            let shown = FieldError::new(pointer, e.rule.clone(), e.message.clone());
            Finding {
                file: file.to_owned(),
                at,
                text: shown.to_string(),
            }
        })
        .collect()
}

/// The senders named by a trace's lines (for a one-sided capture), in first-seen order.
fn senders(bytes: &[u8]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (_, line) in lines(bytes) {
        let from = serde_json::from_slice::<Value>(line)
            .ok()
            .and_then(|v| v.get("from").and_then(Value::as_str).map(str::to_owned));
        if let Some(from) = from.filter(|f| !out.contains(f)) {
            out.push(from);
        }
    }
    out
}

/// Checks one JSON Lines trace (`{"from": ..., "message": ...}` per line) as its own stream.
pub fn check_trace(
    p: &dyn Protocol,
    file: &str,
    bytes: &[u8],
    sides: Sides,
) -> (Vec<Finding>, Stats) {
    let files = [file.to_owned()];
    let mut out = Vec::new();
    let present = (sides == Sides::OneSided).then(|| senders(bytes));
    let mut run = Run::new(p, present);
    let mut calls = Calls::new();
    // The line and code of the gRPC status that ended the stream, once one has.
    let mut ended: Option<(usize, &str)> = None;
    for (n, line) in lines(bytes) {
        let at = At::Line(n);
        let finding = |text: String| Finding {
            file: file.to_owned(),
            at,
            text,
        };
        let entry: Value = match serde_json::from_slice(line) {
            Ok(v) => v,
            Err(e) => {
                out.push(finding(json_error_on_line(&e)));
                continue;
            }
        };
        // A key twice is refused as the skeletons refuse it (serde_json keeps the last value).
        if let Err(invalid) = agentwire_runtime::json::unique::check(line) {
            out.extend(invalid_findings(file, at, &invalid, ""));
            continue;
        }
        let field_error = |pointer: &str, rule: Rule, message: String| {
            finding(FieldError::new(pointer, rule, message).to_string())
        };
        if !entry.is_object() {
            out.push(field_error(
                "",
                Rule::Type,
                "a trace line must be an object {\"from\": ..., \"message\": ...}".into(),
            ));
            continue;
        }
        let from = match entry.get("from") {
            Some(Value::String(s)) => s.as_str(),
            Some(_) => {
                out.push(field_error("/from", Rule::Type, "expected a string".into()));
                continue;
            }
            None => {
                out.push(field_error(
                    "/from",
                    Rule::Required,
                    "missing field `from`".into(),
                ));
                continue;
            }
        };
        if let Some((line, code)) = ended {
            out.push(finding(format!(
                "the stream already ended with status {code} at line {line}"
            )));
            continue;
        }
        if status::is_status(&entry) {
            match status::code(&entry) {
                Ok(_) if p.transport() != TransportKind::Grpc => out.push(field_error(
                    "/status",
                    Rule::UnknownKind,
                    format!(
                        "protocol {} is not gRPC; only gRPC traces record a status",
                        p.name()
                    ),
                )),
                Ok(code) => ended = Some((n, code)),
                Err((pointer, why)) => out.push(field_error(pointer, Rule::Type, why)),
            }
            continue;
        }
        match p.decode(from, &entry) {
            None => out.push(field_error(
                "/from",
                Rule::UnknownKind,
                format!("unknown sender `{from}` for protocol {}", p.name()),
            )),
            Some(Err(invalid)) => {
                out.extend(invalid_findings(file, at, &invalid, ""));
                // Reported once; the sequence goes on as if the message had arrived.
                if let Some(msg) = repair::decode_repaired(&entry, &invalid, |e| p.decode(from, e))
                {
                    run.observe(&files, 0, at, &msg, &mut out);
                }
            }
            Some(Ok(msg)) => run.observe(&files, 0, at, &msg, &mut out),
        }
        if let Some(invalid) = type_response(p, &mut calls, from, entry.get("message")) {
            out.extend(invalid_findings(file, at, &invalid.under("/message"), ""));
        }
    }
    let aborted = ended.is_some_and(|(_, code)| code != "OK");
    let stats = run.finish(file, &mut out, aborted);
    (out, stats)
}

/// Decodes a JSON-RPC response's result as the result of the request it answers (the one
/// with its id, seen earlier from the other side); `Some` names what is wrong with it.
fn type_response(
    p: &dyn Protocol,
    calls: &mut Calls,
    from: &str,
    message: Option<&Value>,
) -> Option<Invalid> {
    if p.transport() != TransportKind::JsonRpc {
        return None;
    }
    calls.observe(p, from, message?)?.err()
}

/// A decoded message of a capture, with what the merge needs.
struct Item<R> {
    at: At,
    shape: Shape,
    msg: R,
    /// The message as read, for typing a response by its request.
    message: Value,
}

/// Reads one capture: every message that decodes, plus findings for the rest.
fn read_capture(
    p: &dyn Protocol,
    capture: &Capture,
    max_frame_size: usize,
    out: &mut Vec<Finding>,
) -> Vec<Item<Decoded>> {
    let file = capture.file.as_str();
    let mut items = Vec::new();
    let mut take = |at: At, body: &[u8], out: &mut Vec<Finding>| {
        let finding = |text: String| Finding {
            file: file.to_owned(),
            at,
            text,
        };
        let message: Value = match serde_json::from_slice(body) {
            Ok(v) => v,
            Err(e) if matches!(at, At::Line(_)) => {
                return out.push(finding(json_error_on_line(&e)));
            }
            Err(e) => return out.push(finding(format!("invalid JSON: {e}"))),
        };
        if let Err(invalid) = agentwire_runtime::json::unique::check(body) {
            return out.extend(invalid_findings(file, at, &invalid, ""));
        }
        let shape = Shape::of(&message);
        let entry = json!({"from": capture.role, "message": message});
        match p.decode(&capture.role, &entry) {
            None => out.push(finding(format!(
                "`{}` sends nothing in protocol {}",
                capture.role,
                p.name()
            ))),
            Some(Err(invalid)) => {
                out.extend(invalid_findings(file, at, &invalid, "/message"));
                let decode = |e: &Value| p.decode(&capture.role, e);
                if let Some(msg) = repair::decode_repaired(&entry, &invalid, decode) {
                    let message = entry["message"].clone();
                    items.push(Item {
                        at,
                        shape,
                        msg,
                        message,
                    });
                }
            }
            Some(Ok(msg)) => {
                let message = entry["message"].clone();
                items.push(Item {
                    at,
                    shape,
                    msg,
                    message,
                });
            }
        }
    };
    match Format::detect(&capture.bytes) {
        Format::JsonLines => {
            for (n, line) in lines(&capture.bytes) {
                take(At::Line(n), line, out);
            }
        }
        Format::ContentLength => {
            let mut decoder = ContentLengthDecoder::with_max_frame_size(max_frame_size);
            decoder.push(&capture.bytes);
            let mut frames = 0;
            let finding = |at: At, kind: FramingErrorKind| Finding {
                file: file.to_owned(),
                at,
                text: kind.to_string(),
            };
            loop {
                match decoder.next_frame() {
                    Ok(Some(frame)) => {
                        frames += 1;
                        take(At::Frame(frames), frame.body.as_bytes(), out);
                    }
                    Ok(None) => break,
                    // These cost one whole frame, whose place in the file is known.
                    Err(FramingError {
                        kind:
                            kind @ (FramingErrorKind::Oversize { .. }
                            | FramingErrorKind::NonUtf8 { .. }
                            | FramingErrorKind::UnsupportedCharset(_)),
                        ..
                    }) => {
                        frames += 1;
                        out.push(finding(At::Frame(frames), kind));
                    }
                    // Here the frame boundary was lost; only the byte offset says where.
                    Err(e) => out.push(finding(At::Byte(e.offset), e.kind)),
                }
            }
            if let Err(e) = decoder.finish() {
                out.push(finding(At::Byte(e.offset), e.kind));
            }
        }
    }
    items
}

/// Checks captures of the sides of one connection (one file per sender) as a single stream,
/// merged as `merge` describes. End-of-stream findings name the files joined by `+`.
pub fn check_captures(
    p: &dyn Protocol,
    captures: &[Capture],
    max_frame_size: usize,
    sides: Sides,
) -> (Vec<Finding>, Stats) {
    let mut out = Vec::new();
    let decoded: Vec<Vec<Item<Decoded>>> = captures
        .iter()
        .map(|c| read_capture(p, c, max_frame_size, &mut out))
        .collect();
    let shapes: Vec<Vec<Shape>> = decoded
        .iter()
        .map(|items| items.iter().map(|i| i.shape.clone()).collect())
        .collect();
    let files: Vec<String> = captures.iter().map(|c| c.file.clone()).collect();
    let present =
        (sides == Sides::OneSided).then(|| captures.iter().map(|c| c.role.clone()).collect());
    let mut run = Run::new(p, present);
    let mut calls = Calls::new();
    for (side, index) in merge(&shapes) {
        let item = &decoded[side][index];
        run.observe(&files, side, item.at, &item.msg, &mut out);
        let role = captures[side].role.as_str();
        if let Some(invalid) = type_response(p, &mut calls, role, Some(&item.message)) {
            out.extend(invalid_findings(&files[side], item.at, &invalid, ""));
        }
    }
    let stats = run.finish(&files.join("+"), &mut out, false);
    (out, stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_framing_by_the_first_header_name() {
        assert_eq!(
            Format::detect(b"Content-Length: 2\r\n\r\n{}"),
            Format::ContentLength
        );
        assert_eq!(
            Format::detect(b"\r\ncontent-type: x\r\n"),
            Format::ContentLength
        );
        assert_eq!(Format::detect(b"{\"from\": \"client\"}"), Format::JsonLines);
        assert_eq!(Format::detect(b"Content"), Format::JsonLines);
        assert_eq!(Format::detect(b""), Format::JsonLines);
    }

    #[test]
    fn json_errors_name_the_column_only() {
        let e = serde_json::from_slice::<Value>(b"{\"a\" 1}").unwrap_err();
        assert_eq!(
            json_error_on_line(&e),
            "invalid JSON: expected `:` at column 6"
        );
    }

    #[test]
    fn findings_print_file_position_and_text() {
        let f = Finding {
            file: "t.jsonl".into(),
            at: At::Line(3),
            text: "x".into(),
        };
        assert_eq!(f.to_string(), "t.jsonl:line 3: x");
        let f = Finding { at: At::End, ..f };
        assert_eq!(f.to_string(), "t.jsonl:end of stream: x");
    }

    #[test]
    fn roles_come_from_the_generated_decoder() {
        for p in agentwire_protocols::protocols() {
            if p.checker().is_none() {
                continue;
            }
            assert!(
                p.roles().iter().any(|role| has_role(*p, role)),
                "{}",
                p.name()
            );
            assert!(!has_role(*p, "no_such_role"), "{}", p.name());
        }
    }
}
