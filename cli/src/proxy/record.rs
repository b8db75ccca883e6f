//! The trace lines a proxy writes: `{"from": ROLE, "message": ...}` per message, as
//! `agentwire trace check` reads them, streamed to a file one line at a time (each line is
//! flushed, so a proxy that is killed leaves a trace that ends at its last message).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use serde_json::Value;

/// The trace line for a message `from` sent on `stream` (none: the trace's only one), whose text is `body` (kept as it came: a body
/// that is not JSON makes a line `trace check` reports as not JSON). Line ends inside the
/// body, which JSON allows only between tokens, become spaces so the line stays one line.
pub fn message_line(stream: Option<&str>, from: &str, body: &str) -> Vec<u8> {
    let mut line = Vec::with_capacity(body.len() + from.len() + 40);
    line.push(b'{');
    if let Some(name) = stream {
        line.extend_from_slice(b"\"stream\":");
        line.extend_from_slice(Value::from(name).to_string().as_bytes());
        line.push(b',');
    }
    line.extend_from_slice(b"\"from\":");
    line.extend_from_slice(Value::from(from).to_string().as_bytes());
    line.extend_from_slice(b",\"message\":");
    line.extend(
        body.bytes()
            .map(|b| if b == b'\n' || b == b'\r' { b' ' } else { b }),
    );
    line.extend_from_slice(b"}\n");
    line
}

/// The trace line for input `from` sent that is no frame (its framing error), which
/// `trace check` reports as a framing finding.
pub fn broken_line(stream: Option<&str>, from: &str, why: &str) -> Vec<u8> {
    let mut line = serde_json::json!({"from": from, "framing": why});
    if let Some(name) = stream {
        line["stream"] = name.into();
    }
    let mut line = line.to_string();
    line.push('\n');
    line.into_bytes()
}

/// The trace line of an HTTP exchange `from` made (`{"method", "path", "status", "body"}`).
pub fn http_line(stream: Option<&str>, from: &str, exchange: &Value) -> Vec<u8> {
    let mut line = serde_json::json!({"from": from, "http": exchange});
    if let Some(name) = stream {
        line["stream"] = name.into();
    }
    let mut line = line.to_string();
    line.push('\n');
    line.into_bytes()
}

/// The trace line that ends the named `stream`, after which `trace check` reports what it
/// left mid-flow.
pub fn end_line(stream: &str) -> Vec<u8> {
    let mut line = serde_json::json!({"stream": stream, "end": true}).to_string();
    line.push('\n');
    line.into_bytes()
}

/// Where trace lines go.
pub struct Recorder {
    out: BufWriter<File>,
    /// A write failed: the recording stops there (and says so once), the relay goes on.
    failed: bool,
}

impl Recorder {
    /// Creates (or truncates) `path`.
    pub fn create(path: &Path) -> std::io::Result<Self> {
        Ok(Self {
            out: BufWriter::new(File::create(path)?),
            failed: false,
        })
    }

    /// Appends one line and flushes it.
    pub fn write(&mut self, line: &[u8]) {
        if self.failed {
            return;
        }
        if let Err(e) = self.out.write_all(line).and_then(|()| self.out.flush()) {
            eprintln!("agentwire proxy: recording stopped: {e}");
            self.failed = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_hold_the_body_as_sent() {
        assert_eq!(
            message_line(None, "client", "{\"id\":1,\n \"x\":\"a\\nb\"}"),
            b"{\"from\":\"client\",\"message\":{\"id\":1,  \"x\":\"a\\nb\"}}\n"
        );
        assert_eq!(
            message_line(Some("2"), "server", "{}"),
            b"{\"stream\":\"2\",\"from\":\"server\",\"message\":{}}\n"
        );
        let line = broken_line(Some("3"), "server", "line longer than 4 bytes");
        let v: Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(v["framing"], "line longer than 4 bytes");
        assert_eq!(v["stream"], "3");
        let end: Value = serde_json::from_slice(&end_line("3")).unwrap();
        assert_eq!(end, serde_json::json!({"stream": "3", "end": true}));
    }
}
