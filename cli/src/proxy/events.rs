//! Cuts a Server-Sent Events stream into its events as chunks arrive, keeping each event's
//! bytes exactly as they came (a blank line ends an event), so the HTTP proxy can check each
//! JSON-RPC message a stream carries and forward the event unchanged. An event over the size
//! limit is reported once and skipped as it arrives, without being stored.

use agentwire_transport::streamable_http::sse;

/// One thing found in the stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cut {
    /// A whole event, blank line included, and its `data` (`None`: a comment or an event
    /// without data, such as a keep-alive).
    Event { raw: Vec<u8>, data: Option<String> },
    /// An event grew past the limit; the rest of it is skipped.
    TooLarge(usize),
}

/// An incremental cutter for one SSE stream.
#[derive(Debug)]
pub struct Events {
    raw: Vec<u8>,
    max: usize,
    /// Line ends seen in a row (carriage returns aside): two end an event.
    ends: u8,
    skipping: bool,
}

impl Events {
    /// A cutter refusing events over `max` bytes.
    pub fn new(max: usize) -> Self {
        Self {
            raw: Vec::new(),
            max,
            ends: 0,
            skipping: false,
        }
    }

    /// Whether part of an event has arrived and the rest is still owed.
    pub fn mid_event(&self) -> bool {
        self.skipping || self.raw.iter().any(|b| !b.is_ascii_whitespace())
    }

    /// Takes the next chunk; every event it completes goes to `out`, in order.
    pub fn push(&mut self, chunk: &[u8], out: &mut Vec<Cut>) {
        for &b in chunk {
            match b {
                b'\n' => self.ends += 1,
                b'\r' => {}
                _ => self.ends = 0,
            }
            if !self.skipping {
                self.raw.push(b);
                if self.raw.len() > self.max {
                    self.raw = Vec::new();
                    self.skipping = true;
                    out.push(Cut::TooLarge(self.max));
                }
            }
            if self.ends >= 2 {
                self.ends = 0;
                let raw = std::mem::take(&mut self.raw);
                if !std::mem::take(&mut self.skipping) {
                    out.push(Cut::Event {
                        data: data(&raw, self.max),
                        raw,
                    });
                }
            }
        }
    }
}

/// The `data` of one whole event, as the transport's own SSE parser reads it.
fn data(raw: &[u8], max: usize) -> Option<String> {
    let mut parser = sse::Parser::new(max.saturating_add(2));
    let mut out = Vec::new();
    parser.feed(raw, &mut out).ok()?;
    out.pop().map(|e| e.data)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cut(max: usize, chunks: &[&[u8]]) -> Vec<Cut> {
        let mut e = Events::new(max);
        let mut out = Vec::new();
        for c in chunks {
            e.push(c, &mut out);
        }
        out
    }

    #[test]
    fn events_keep_their_bytes_across_chunks() {
        let got = cut(
            100,
            &[
                b": ping\n\nevent: message\r\nda",
                b"ta: {\"a\":1}\r\n\r\nid: 1\ndata:\n\n",
            ],
        );
        assert_eq!(
            got,
            [
                Cut::Event {
                    raw: b": ping\n\n".to_vec(),
                    data: None
                },
                Cut::Event {
                    raw: b"event: message\r\ndata: {\"a\":1}\r\n\r\n".to_vec(),
                    data: Some("{\"a\":1}".into())
                },
                Cut::Event {
                    raw: b"id: 1\ndata:\n\n".to_vec(),
                    data: Some(String::new())
                },
            ]
        );
    }

    #[test]
    fn a_large_event_is_reported_once_and_skipped() {
        let mut e = Events::new(10);
        let mut out = Vec::new();
        e.push(b"data: 0123", &mut out);
        assert!(e.mid_event());
        e.push(b"456789\ndata: x\n\ndata: 1\n\n", &mut out);
        assert_eq!(out[0], Cut::TooLarge(10));
        assert_eq!(
            out[1],
            Cut::Event {
                raw: b"data: 1\n\n".to_vec(),
                data: Some("1".into())
            }
        );
        assert_eq!(out.len(), 2);
        assert!(!e.mid_event());
    }
}
