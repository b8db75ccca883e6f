//! `agentwire trace check`: runs recorded traffic through a protocol's decoders and its
//! generated sequence checker, and turns every problem into a one-line finding.

use std::io::BufRead;

use agentwire_runtime::calls::Calls;
use agentwire_runtime::framing::{ContentLengthDecoder, FramingError, FramingErrorKind};
use agentwire_runtime::machine::Violation;
use agentwire_runtime::registry::{Checker, Decoded, Protocol, TransportKind};
use agentwire_runtime::{FieldError, Invalid, Rule};
use serde_json::{Value, json};

use crate::merge::{Shape, merge};
use crate::report::Report;

pub use finding::{At, Detail, Finding};
pub use lines::LineChecker;

pub mod finding;
mod lines;
mod refused;
mod repair;
mod status;
pub mod version;

/// Whether `role` sends messages in `p` (its decoder knows the role).
pub fn has_role(p: &dyn Protocol, role: &str) -> bool {
    p.decode(role, &json!({})).is_some()
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
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    /// Messages given to the sequence checker (an invalid one counts when it could be read
    /// as its kind; see `repair`).
    pub messages: usize,
    /// Sequence instances started (each correlation key's machine run).
    pub instances: usize,
    /// The version the stream was checked as, for a protocol with versions.
    pub version: Option<version::StreamVersion>,
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

/// Runs messages through a checker. Its memory does not grow with the messages or the
/// findings: a violation always names the message just observed, whose place the caller gives.
struct Run<'p> {
    /// The protocol messages are decoded and checked as: for a protocol with versions, the
    /// stream's version (the newest until the stream names one).
    protocol: &'p dyn Protocol,
    /// How the stream's version is learnt; `None` for a protocol of one version.
    pick: Option<version::Pick>,
    /// `None` only for a protocol without a machine, which the command refuses up front.
    checker: Option<Box<dyn Checker>>,
    /// The senders a one-sided capture holds; `None` when every direction is recorded.
    present: Option<Vec<String>>,
    stats: Stats,
    /// JSON-RPC requests seen so far, so that a response's result is typed by its request.
    calls: Calls,
    /// Requests refused before the sequence check saw them, whose answers it does not see.
    refused: refused::Refused,
}

impl<'p> Run<'p> {
    fn new(protocol: &'p dyn Protocol, present: Option<Vec<String>>) -> Self {
        let (pick, protocol) = match version::Pick::new(protocol) {
            Some((pick, newest)) => (Some(pick), newest),
            None => (None, protocol),
        };
        Self {
            protocol,
            pick,
            checker: protocol.checker(),
            present,
            calls: Calls::new(),
            stats: Stats::default(),
            refused: refused::Refused::default(),
        }
    }

    /// From here on the stream is checked as `vp`, with a fresh checker that first sees the
    /// handshake's `opening` request when there is one (already reported, so its findings
    /// are not reported again).
    fn switch(&mut self, vp: &'p dyn Protocol, opening: Option<&Value>) {
        self.protocol = vp;
        self.checker = vp.checker();
        self.calls = Calls::new();
        let Some(entry) = opening else { return };
        let from = entry
            .get("from")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if let Some(Ok(msg)) = vp.decode(from, entry) {
            // The instances it starts again were counted when the request first came.
            let instances = self.stats.instances;
            let _ = self.step(&msg);
            self.stats.instances = instances;
        }
        let _ = type_response(vp, &mut self.calls, from, entry.get("message"));
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

    /// Shows `msg` to the checker; whether it broke a rule (reported to `out`).
    fn observe(&mut self, file: &str, at: At, msg: &Decoded, out: &mut Report<'_>) -> bool {
        self.stats.messages += 1;
        let mut result = self.step(msg);
        if let Err(v) = &result
            && self.excused(v)
        {
            // The absent side's replies would have moved the instance on: start afresh with
            // this message as the first. If a fresh start cannot take it either, those replies
            // are still to come: keep the waiting checker and leave this message unjudged.
            let waiting = std::mem::replace(&mut self.checker, self.protocol.checker());
            let instances = self.stats.instances;
            result = self.step(msg);
            if result.is_err() {
                self.checker = waiting;
                self.stats.instances = instances;
                result = Ok(());
            }
        }
        if let Err(v) = result
            && !self.excused(&v)
        {
            out.push(Finding::violation(file, at, &v));
            return true;
        }
        false
    }

    /// Shows the checker the answer to a request the check refused: a request one machine
    /// refused may still have started an instance of another (a per-request machine), which
    /// this answer closes; what the answer breaks is the refusal's consequence, not reported.
    fn observe_answer_to_refused(&mut self, msg: &Decoded) {
        self.stats.messages += 1;
        let _consequence = self.step(msg);
    }

    /// Ends the stream; `aborted` when a gRPC status other than OK ended it, so instances
    /// left mid-flow are answered by that status.
    fn finish(mut self, stream: &str, out: &mut Report<'_>, aborted: bool) -> Stats {
        self.stats.version = self.pick.as_ref().map(|p| p.version().clone());
        if let Some(Err(end)) = self.checker.take().map(|c| c.finish())
            && !aborted
        {
            for v in end.iter().filter(|v| !self.excused(v)) {
                out.push(Finding::violation(stream, At::End, v));
            }
        }
        self.stats
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

/// The UTF-8 byte order mark some editors write first; a trace may start with it.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// `bytes` without a leading byte order mark.
pub fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(BOM).unwrap_or(bytes)
}

/// A line without its line end; `None` for a blank line, which is skipped.
fn content(line: &[u8]) -> Option<&[u8]> {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    (!line.iter().all(u8::is_ascii_whitespace)).then_some(line)
}

/// The non-empty lines of a JSON Lines file, numbered from 1, without their line ends.
fn lines(bytes: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    strip_bom(bytes)
        .split(|&b| b == b'\n')
        .enumerate()
        .filter_map(|(i, line)| Some((i + 1, content(line)?)))
}

fn invalid_findings<'a>(
    file: &'a str,
    at: At,
    invalid: &'a Invalid,
    strip: &'a str,
) -> impl Iterator<Item = Finding> + 'a {
    invalid.errors.iter().map(move |e| {
        let pointer = e.pointer.strip_prefix(strip).unwrap_or(&e.pointer);
        let shown = FieldError::new(pointer, e.rule.clone(), e.message.clone());
        Finding::field(file, at, &shown)
    })
}

/// The senders named by parsed trace lines (for a one-sided capture), in first-seen order.
fn senders<'a>(entries: impl Iterator<Item = &'a Value>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for from in entries.filter_map(|e| e.get("from")?.as_str()) {
        if !out.iter().any(|f| f == from) {
            out.push(from.to_owned());
        }
    }
    out
}

/// One JSON Lines trace to check: its name, the reader, its size when known.
pub struct Trace<'a> {
    pub name: &'a str,
    pub input: &'a mut dyn BufRead,
    pub size: Option<u64>,
}

/// Checks one JSON Lines trace (`{"from": ..., "message": ...}` per line) as its own stream
/// (or as the streams its lines name, see `lines`), reading it line by line and reporting
/// each finding as it is found; what each stream saw. Stops early when `out` wants no more
/// findings.
pub fn check_trace(
    p: &dyn Protocol,
    trace: Trace<'_>,
    out: &mut Report<'_>,
) -> std::io::Result<Vec<Stats>> {
    let file = trace.name;
    let mut lines = LineChecker::new(p, file);
    let mut buf = Vec::new();
    let mut read = 0u64;
    while !out.stopped() {
        buf.clear();
        let got = trace.input.read_until(b'\n', &mut buf)?;
        if got == 0 {
            break;
        }
        read += got as u64;
        out.tick(file, read, trace.size);
        lines.line(&buf, out);
    }
    if out.stopped() {
        return Ok(lines.stats());
    }
    Ok(lines.finish(out))
}

/// Checks a one-sided capture held in memory (`--one-sided`). The senders it holds must be
/// known before its first message, so every line is parsed once up front and the check
/// then runs on the parsed values: the input is read and parsed once.
pub fn check_one_sided(p: &dyn Protocol, file: &str, bytes: &[u8], out: &mut Report<'_>) -> Stats {
    let parsed: Vec<(usize, &[u8], serde_json::Result<Value>)> = lines(bytes)
        .map(|(n, line)| (n, line, serde_json::from_slice(line)))
        .collect();
    let present = senders(parsed.iter().filter_map(|(_, _, e)| e.as_ref().ok()));
    let mut run = Run::new(p, Some(present));
    let mut ended: Option<(usize, &'static str)> = None;
    let size = Some(bytes.len() as u64);
    for (n, line, entry) in parsed {
        if out.stopped() {
            return run.stats.clone();
        }
        // How far into the capture this line ends, for the progress line.
        let read = (line.as_ptr() as usize - bytes.as_ptr() as usize + line.len()) as u64;
        out.tick(file, read, size);
        check_line(p, &mut run, (file, n), (line, entry), &mut ended, out);
    }
    if out.stopped() {
        return run.stats;
    }
    let aborted = ended.is_some_and(|(_, code)| code != "OK");
    run.finish(file, out, aborted)
}

/// Checks one trace line, parsed once by the caller: its JSON, its shape, then the message
/// it carries (`line` is its text, for the duplicate-key check).
fn check_line(
    p: &dyn Protocol,
    run: &mut Run<'_>,
    (file, n): (&str, usize),
    (line, entry): (&[u8], serde_json::Result<Value>),
    ended: &mut Option<(usize, &'static str)>,
    out: &mut Report<'_>,
) {
    let at = At::Line(n);
    let field_error = |pointer: &str, rule: Rule, message: String| {
        Finding::field(file, at, &FieldError::new(pointer, rule, message))
    };
    let entry: Value = match entry {
        Ok(v) => v,
        Err(e) => return out.push(Finding::new(file, at, json_error_on_line(&e), Detail::Json)),
    };
    // A key twice is refused as the skeletons refuse it (serde_json keeps the last value).
    if let Err(invalid) = agentwire_runtime::json::unique::check(line) {
        return out.extend(invalid_findings(file, at, &invalid, ""));
    }
    if !entry.is_object() {
        return out.push(field_error(
            "",
            Rule::Type,
            "a trace line must be an object {\"from\": ..., \"message\": ...}".into(),
        ));
    }
    let from = match entry.get("from") {
        Some(Value::String(s)) => s.as_str(),
        Some(_) => return out.push(field_error("/from", Rule::Type, "expected a string".into())),
        None => {
            return out.push(field_error(
                "/from",
                Rule::Required,
                "missing field `from`".into(),
            ));
        }
    };
    if let Some((line, code)) = ended {
        let text = format!("the stream already ended with status {code} at line {line}");
        return out.push(Finding::new(file, at, text, Detail::Stream));
    }
    // A recorder's note of input that was no frame (`agentwire proxy` writes these).
    if let (Some(Value::String(why)), None) = (entry.get("framing"), entry.get("message")) {
        return out.push(Finding::new(file, at, why.clone(), Detail::Framing));
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
            Ok(code) => *ended = Some((n, code)),
            Err((pointer, why)) => out.push(field_error(pointer, Rule::Type, why)),
        }
        return;
    }
    if let Some(step) = run.pick.as_mut().map(|pick| pick.see(p, &entry)) {
        match step {
            version::Step::Go => {}
            version::Step::Skip => return,
            version::Step::Undeclared(text) => {
                // Nothing of the stream is judged by rules it does not follow, its end neither.
                run.checker = None;
                return out.push(Finding::new(file, at, text, Detail::Version));
            }
            version::Step::Switch(vp, opening) => run.switch(vp, opening.as_ref()),
        }
    }
    // The stream's version, for a protocol with versions.
    let p = run.protocol;
    // The answer to a request refused below is the refusal's consequence, not a finding; it
    // still closes what the request started.
    let answers_refused = run.refused.answers(from, &entry);
    match p.decode(from, &entry) {
        None => out.push(field_error(
            "/from",
            Rule::UnknownKind,
            format!("unknown sender `{from}` for protocol {}", p.name()),
        )),
        Some(Err(invalid)) => {
            if let Some(e) = wrong_side(p, from, &entry, &invalid) {
                // Not a broken message but a misplaced one: say whose it is, and keep it away
                // from the sequence check, where it could only cascade.
                run.refused.note(from, &entry);
                return out.push(Finding::field(file, at, &e));
            }
            out.extend(invalid_findings(file, at, &invalid, ""));
            // Reported once; the sequence goes on as if the message had arrived.
            match repair::decode_repaired(&entry, &invalid, |e| p.decode(from, e)) {
                Some(msg) if !answers_refused => {
                    if run.observe(file, at, &msg, out) {
                        run.refused.note(from, &entry);
                    }
                }
                Some(msg) => run.observe_answer_to_refused(&msg),
                None => run.refused.note(from, &entry),
            }
        }
        Some(Ok(msg)) if answers_refused => run.observe_answer_to_refused(&msg),
        // A request the sequence check refused started nothing its answer could match.
        Some(Ok(msg)) => {
            if run.observe(file, at, &msg, out) {
                run.refused.note(from, &entry);
            }
        }
    }
    if let Some(invalid) = type_response(p, &mut run.calls, from, entry.get("message")) {
        out.extend(invalid_findings(file, at, &invalid.under("/message"), ""));
    }
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

/// When `entry` failed only because its kind is one another role sends, the error that says
/// so ("`x` is sent by the server, not the client"); the wording is the runtime's, shared with
/// every generated `decode_message`.
fn wrong_side(
    p: &dyn Protocol,
    from: &str,
    entry: &Value,
    invalid: &Invalid,
) -> Option<FieldError> {
    agentwire_runtime::side::wrong_side(
        p.roles(),
        from,
        invalid,
        "/message",
        |pointer| entry.pointer(pointer)?.as_str().map(str::to_owned),
        |role| matches!(p.decode(role, entry), Some(Ok(_))),
    )
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
    out: &mut Report<'_>,
) -> Vec<Item<Decoded>> {
    let file = capture.file.as_str();
    let mut items = Vec::new();
    let mut take = |at: At, body: &[u8], out: &mut Report<'_>| {
        out.tick(file, 0, None);
        let message: Value = match serde_json::from_slice(body) {
            Ok(v) => v,
            Err(e) => {
                let text = match at {
                    At::Line(_) => json_error_on_line(&e),
                    _ => format!("invalid JSON: {e}"),
                };
                return out.push(Finding::new(file, at, text, Detail::Json));
            }
        };
        if let Err(invalid) = agentwire_runtime::json::unique::check(body) {
            return out.extend(invalid_findings(file, at, &invalid, ""));
        }
        let shape = Shape::of(&message);
        let entry = json!({"from": capture.role, "message": message});
        match p.decode(&capture.role, &entry) {
            None => {
                let text = format!("`{}` sends nothing in protocol {}", capture.role, p.name());
                out.push(Finding::new(file, at, text, Detail::Stream));
            }
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
    let bytes = strip_bom(&capture.bytes);
    match Format::detect(bytes) {
        Format::JsonLines => {
            for (n, line) in lines(bytes) {
                take(At::Line(n), line, out);
            }
        }
        Format::ContentLength => {
            let mut decoder = ContentLengthDecoder::with_max_frame_size(max_frame_size);
            decoder.push(bytes);
            let mut frames = 0;
            let finding = |at: At, kind: FramingErrorKind| {
                Finding::new(file, at, kind.to_string(), Detail::Framing)
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
    out: &mut Report<'_>,
) -> Stats {
    let decoded: Vec<Vec<Item<Decoded>>> = captures
        .iter()
        .map(|c| read_capture(p, c, max_frame_size, out))
        .collect();
    let shapes: Vec<Vec<Shape>> = decoded
        .iter()
        .map(|items| items.iter().map(|i| i.shape.clone()).collect())
        .collect();
    let files: Vec<String> = captures.iter().map(|c| c.file.clone()).collect();
    let present =
        (sides == Sides::OneSided).then(|| captures.iter().map(|c| c.role.clone()).collect());
    let mut run = Run::new(p, present);
    for (side, index) in merge(&shapes) {
        if out.stopped() {
            return run.stats.clone();
        }
        let item = &decoded[side][index];
        run.observe(&files[side], item.at, &item.msg, out);
        let role = captures[side].role.as_str();
        if let Some(invalid) = type_response(p, &mut run.calls, role, Some(&item.message)) {
            out.extend(invalid_findings(&files[side], item.at, &invalid, ""));
        }
    }
    run.finish(&files.join("+"), out, false)
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
            detail: Detail::Json,
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
