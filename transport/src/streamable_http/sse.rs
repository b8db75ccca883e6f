//! Server-Sent Events framing: writing one JSON-RPC message as an event (server side), and an
//! incremental parser with a size cap for the events a server sends (client side).
//!
//! Only the fields the transport uses are interpreted: `data` (joined with newlines when repeated), `id`
//! `event` and `retry` (kept by the parser); comments (keep-alives) are skipped.

use bytes::Bytes;

/// A comment line that keeps an idle stream's connection (and any proxy) from timing out.
pub const KEEP_ALIVE: &[u8] = b": keepalive\n\n";

/// One event carrying `json`, which must hold no newline: a JSON text serialised by serde
/// never does, and the server re-serialises anything else before framing it. `id` must hold
/// no newline either (the server's ids are digits and a slash).
pub fn event(id: Option<&str>, json: &str) -> Bytes {
    named_event("message", id, json)
}

/// [`event`] of type `name` (a name without a newline, such as `error`).
pub fn named_event(name: &str, id: Option<&str>, json: &str) -> Bytes {
    let mut out = Vec::with_capacity(json.len() + name.len() + 40);
    out.extend_from_slice(b"event: ");
    out.extend_from_slice(name.as_bytes());
    out.push(b'\n');
    if let Some(id) = id {
        out.extend_from_slice(b"id: ");
        out.extend_from_slice(id.as_bytes());
        out.push(b'\n');
    }
    out.extend_from_slice(b"data: ");
    out.extend_from_slice(json.as_bytes());
    out.extend_from_slice(b"\n\n");
    Bytes::from(out)
}

/// The priming event a stream opens with (2025-11-25): an id to resume from and empty data,
/// with the reconnection delay the client must wait, in milliseconds, when given.
pub fn priming(id: &str, retry: Option<u64>) -> Bytes {
    let retry = retry.map(|ms| format!("retry: {ms}\n")).unwrap_or_default();
    Bytes::from(format!("id: {id}\n{retry}data: \n\n"))
}

/// One event as the client sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// The `event` field; `message` when absent.
    pub name: String,
    pub data: String,
    pub id: Option<String>,
}

/// An event or a line grew past the parser's cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooLarge(pub usize);

/// Incremental SSE parser: feed it chunks as they arrive, take complete events out.
#[derive(Debug)]
pub struct Parser {
    max: usize,
    line: Vec<u8>,
    name: Option<String>,
    data: Option<String>,
    id: Option<String>,
    /// Bytes buffered in the pending event, so that many small `data` lines cannot grow it
    /// past `max` either.
    pending: usize,
    retry: Option<u64>,
}

impl Parser {
    /// A parser refusing any event (or line) over `max` bytes.
    pub fn new(max: usize) -> Self {
        Self {
            max,
            line: Vec::new(),
            name: None,
            data: None,
            id: None,
            pending: 0,
            retry: None,
        }
    }

    /// The last reconnection delay the server asked for, in milliseconds.
    pub fn retry(&self) -> Option<u64> {
        self.retry
    }

    /// Parses `chunk`, appending every event it completes to `out`.
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<Event>) -> Result<(), TooLarge> {
        for &b in chunk {
            if b == b'\n' {
                let mut line = std::mem::take(&mut self.line);
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                self.line_done(&line, out);
            } else {
                self.line.push(b);
                if self.line.len() + self.pending > self.max {
                    return Err(TooLarge(self.max));
                }
            }
        }
        Ok(())
    }

    fn line_done(&mut self, line: &[u8], out: &mut Vec<Event>) {
        if line.is_empty() {
            self.pending = 0;
            let name = self.name.take();
            let id = self.id.take();
            // An event without data is a priming or keep-alive event: nothing to deliver.
            if let Some(data) = self.data.take() {
                out.push(Event {
                    name: name.unwrap_or_else(|| "message".to_owned()),
                    data,
                    id,
                });
            }
            return;
        }
        if line.first() == Some(&b':') {
            return;
        }
        self.pending += line.len();
        let text = String::from_utf8_lossy(line);
        let (field, value) = match text.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (text.as_ref(), ""),
        };
        match field {
            "data" => match &mut self.data {
                Some(d) => {
                    d.push('\n');
                    d.push_str(value);
                }
                None => self.data = Some(value.to_owned()),
            },
            "event" => self.name = Some(value.to_owned()),
            "id" if !value.contains('\0') => self.id = Some(value.to_owned()),
            "retry" => self.retry = value.parse().ok().or(self.retry),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_in_pieces() {
        let mut wire = Vec::new();
        wire.extend_from_slice(KEEP_ALIVE);
        wire.extend_from_slice(b"id: 7\nretry: 10\ndata:\n\n");
        wire.extend_from_slice(&event(None, r#"{"a":1}"#));
        wire.extend_from_slice(b"data: x\r\ndata: y\r\n\r\n");
        let mut p = Parser::new(100);
        let mut out = Vec::new();
        for piece in wire.chunks(3) {
            p.feed(piece, &mut out).unwrap();
        }
        assert_eq!(out.len(), 3, "{out:?}");
        assert_eq!(out[0].data, "");
        assert_eq!(out[0].id.as_deref(), Some("7"));
        assert_eq!(out[1].data, r#"{"a":1}"#);
        assert_eq!(out[2].data, "x\ny");
        assert_eq!(p.retry(), Some(10));
    }

    #[test]
    fn caps_events() {
        let mut p = Parser::new(10);
        let mut out = Vec::new();
        assert_eq!(p.feed(b"data: 0123456789", &mut out), Err(TooLarge(10)));
        let mut p = Parser::new(10);
        assert!(p.feed(b"data: 01\ndata: 23\ndata: 45\n", &mut out).is_err());
    }
}
