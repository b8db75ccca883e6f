//! Cuts a byte stream into the frames of a protocol's framing (one JSON text per line, or
//! `Content-Length` frames) as chunks arrive, keeping each frame's bytes exactly as they came
//! so a proxy can forward them unchanged. Memory is bounded by the frame-size limit: a longer
//! frame is reported once and skipped as it arrives, without being stored.

use std::time::Duration;

use agentwire_runtime::framing::{ContentLengthDecoder, FramingErrorKind};
use tokio::io::{AsyncRead, AsyncReadExt};

/// One thing found in the stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// A whole frame: its body (UTF-8) and its bytes as sent, framing included.
    Frame { body: String, raw: Vec<u8> },
    /// Input that is not a usable frame, and why (the framing error's wording).
    Broken(String),
}

/// What one read of a stream gave.
#[derive(Debug)]
pub enum Chunk {
    /// This many bytes, now at the start of the buffer.
    Bytes(usize),
    /// The sender closed its side.
    End,
    /// Reading failed.
    Failed(std::io::Error),
    /// A started frame got no more bytes in time; the splitter has dropped its start.
    Stalled,
}

/// The framings a byte stream can have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// One JSON text per line.
    Lines,
    /// LSP-style `Content-Length` headers before each body.
    ContentLength,
}

/// An incremental splitter for one direction of a stream.
#[derive(Debug)]
pub struct Splitter {
    state: State,
    max: usize,
}

#[derive(Debug)]
enum State {
    Lines {
        line: Vec<u8>,
        /// Throwing away the rest of a line over the limit.
        skipping: bool,
    },
    ContentLength {
        decoder: ContentLengthDecoder,
        /// The bytes from stream offset `base` on, for cutting frames out exactly.
        raw: Vec<u8>,
        base: u64,
    },
}

impl Splitter {
    /// A splitter refusing frames over `max` bytes.
    pub fn new(framing: Framing, max: usize) -> Self {
        let state = match framing {
            Framing::Lines => State::Lines {
                line: Vec::new(),
                skipping: false,
            },
            Framing::ContentLength => State::ContentLength {
                decoder: ContentLengthDecoder::with_max_frame_size(max),
                raw: Vec::new(),
                base: 0,
            },
        };
        Self { state, max }
    }

    /// Takes the next chunk; every piece it completes goes to `out`, in order.
    pub fn push(&mut self, chunk: &[u8], out: &mut Vec<Piece>) {
        let max = self.max;
        match &mut self.state {
            State::Lines { line, skipping } => push_lines(line, skipping, max, chunk, out),
            State::ContentLength { decoder, raw, base } => {
                raw.extend_from_slice(chunk);
                decoder.push(chunk);
                next_frames(decoder, raw, base, out);
            }
        }
    }

    /// Reads the next chunk of `reader` into `buf`. While a frame is started the read has
    /// `frame_timeout`, so a sender cannot hold a half frame (and its buffer) forever;
    /// between frames it may stay quiet as long as it likes.
    pub async fn read<R: AsyncRead + Unpin>(
        &mut self,
        reader: &mut R,
        buf: &mut [u8],
        frame_timeout: Duration,
    ) -> Chunk {
        let read = if self.mid_frame() {
            match tokio::time::timeout(frame_timeout, reader.read(buf)).await {
                Ok(read) => read,
                Err(_) => {
                    self.finish();
                    return Chunk::Stalled;
                }
            }
        } else {
            reader.read(buf).await
        };
        match read {
            Ok(0) => Chunk::End,
            Ok(n) => Chunk::Bytes(n),
            Err(e) => Chunk::Failed(e),
        }
    }

    /// Whether part of a frame has arrived and the rest is still owed.
    pub fn mid_frame(&self) -> bool {
        match &self.state {
            State::Lines { line, skipping } => *skipping || !line.is_empty(),
            State::ContentLength { decoder, .. } => decoder.mid_frame(),
        }
    }

    /// The input ended (or its sender stalled past its deadline): what is left of a frame is
    /// given up, and reported when there was one. The splitter starts afresh.
    pub fn finish(&mut self) -> Option<Piece> {
        let mid = self.mid_frame();
        let broken = match &mut self.state {
            State::Lines { line, skipping } => {
                let partial = !line.iter().all(u8::is_ascii_whitespace) && !*skipping;
                line.clear();
                *skipping = false;
                partial.then(|| "input ends inside a line".to_owned())
            }
            State::ContentLength { decoder, .. } => {
                decoder.finish().err().map(|e| e.kind.to_string())
            }
        };
        if mid {
            let framing = match self.state {
                State::Lines { .. } => Framing::Lines,
                State::ContentLength { .. } => Framing::ContentLength,
            };
            *self = Self::new(framing, self.max);
        }
        broken.map(Piece::Broken)
    }
}

fn push_lines(
    line: &mut Vec<u8>,
    skipping: &mut bool,
    max: usize,
    mut chunk: &[u8],
    out: &mut Vec<Piece>,
) {
    while !chunk.is_empty() {
        let end = chunk.iter().position(|&b| b == b'\n');
        let (part, rest) = match end {
            Some(i) => (&chunk[..=i], &chunk[i + 1..]),
            None => (chunk, &[][..]),
        };
        chunk = rest;
        if !*skipping {
            // The line end does not count against the limit.
            let body_len = line.len() + part.len() - usize::from(end.is_some());
            if body_len > max {
                out.push(Piece::Broken(
                    FramingErrorKind::LineTooLong { max }.to_string(),
                ));
                line.clear();
                *skipping = true;
            } else {
                line.extend_from_slice(part);
            }
        }
        if end.is_some() && !std::mem::take(skipping) {
            out.extend(line_piece(std::mem::take(line)));
        }
    }
}

/// The piece a whole line (line end included) makes; none for a blank line.
fn line_piece(raw: Vec<u8>) -> Option<Piece> {
    let body = raw.strip_suffix(b"\n").unwrap_or(&raw);
    let body = body.strip_suffix(b"\r").unwrap_or(body);
    if body.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    Some(match std::str::from_utf8(body) {
        Ok(text) => Piece::Frame {
            body: text.to_owned(),
            raw,
        },
        Err(e) => Piece::Broken(
            FramingErrorKind::NonUtf8 {
                valid_up_to: e.valid_up_to(),
            }
            .to_string(),
        ),
    })
}

fn next_frames(
    decoder: &mut ContentLengthDecoder,
    raw: &mut Vec<u8>,
    base: &mut u64,
    out: &mut Vec<Piece>,
) {
    loop {
        match decoder.next_frame() {
            Ok(Some(frame)) => {
                let from = usize::try_from(frame.offset.saturating_sub(*base)).unwrap_or(0);
                let to = usize::try_from(decoder.offset().saturating_sub(*base)).unwrap_or(0);
                let bytes = raw
                    .get(from..to.min(raw.len()))
                    .unwrap_or_default()
                    .to_vec();
                out.push(Piece::Frame {
                    body: frame.body,
                    raw: bytes,
                });
            }
            Ok(None) => break,
            Err(e) => out.push(Piece::Broken(e.kind.to_string())),
        }
    }
    // Everything before the decoder's position is taken (or skipped): let it go.
    let done = usize::try_from(decoder.offset().saturating_sub(*base))
        .unwrap_or(usize::MAX)
        .min(raw.len());
    raw.drain(..done);
    *base += done as u64;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(framing: Framing, max: usize, chunks: &[&[u8]]) -> Vec<Piece> {
        let mut s = Splitter::new(framing, max);
        let mut out = Vec::new();
        for c in chunks {
            s.push(c, &mut out);
        }
        out.extend(s.finish());
        out
    }

    fn frame(body: &str, raw: &[u8]) -> Piece {
        Piece::Frame {
            body: body.into(),
            raw: raw.to_vec(),
        }
    }

    #[test]
    fn lines_keep_their_bytes_across_chunks() {
        let got = split(Framing::Lines, 100, &[b"{\"a\"", b":1}\r\n\n{}", b"\n"]);
        assert_eq!(
            got,
            [frame("{\"a\":1}", b"{\"a\":1}\r\n"), frame("{}", b"{}\n")]
        );
    }

    #[test]
    fn a_long_line_is_reported_once_and_skipped() {
        let got = split(Framing::Lines, 4, &[b"123", b"456", b"789\n{}\n"]);
        assert_eq!(
            got,
            [
                Piece::Broken("line longer than 4 bytes".into()),
                frame("{}", b"{}\n")
            ]
        );
        let cut = split(Framing::Lines, 4, &[b"{}\n{"]);
        assert_eq!(cut[1], Piece::Broken("input ends inside a line".into()));
    }

    #[test]
    fn content_length_frames_are_cut_exactly() {
        let a = b"Content-Length: 2\r\n\r\n{}";
        let b = b"\r\ncontent-length: 7\n\n[1,2,3]";
        let got = split(Framing::ContentLength, 100, &[&a[..5], &a[5..], b]);
        assert_eq!(
            got,
            [
                frame("{}", a),
                frame("[1,2,3]", b"content-length: 7\n\n[1,2,3]")
            ]
        );
    }

    #[test]
    fn oversize_and_broken_frames_cost_only_themselves() {
        let input = b"Content-Length: 10\r\n\r\n0123456789Content-Length: 2\r\n\r\n{}X: y\r\n\r\n";
        let got = split(Framing::ContentLength, 5, &[input]);
        assert_eq!(
            got[0],
            Piece::Broken("Content-Length 10 exceeds the limit of 5 bytes".into())
        );
        assert_eq!(got[1], frame("{}", b"Content-Length: 2\r\n\r\n{}"));
        assert_eq!(
            got[2],
            Piece::Broken("header block has no Content-Length".into())
        );
        assert_eq!(got.len(), 3);
    }
}
