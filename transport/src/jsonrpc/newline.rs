//! A tokio-util codec for newline-delimited JSON (one message per line, as stdio
//! transports of JSON-RPC protocols use), with the same cost model as the `Content-Length` codec: a line over the limit
//! is reported once and skipped without being stored, and the next line still decodes.

use std::io;

use agentwire_runtime::framing::{DEFAULT_MAX_FRAME_SIZE, FramingError, FramingErrorKind};
use bytes::{Buf, BufMut, BytesMut};
use tokio_util::codec::{Decoder, Encoder};

/// Frames JSON texts as lines. Blank lines (and a `\r` before the `\n`) are ignored. Errors are
/// items, as in [`super::ContentLengthCodec`], so a broken line costs only that line.
#[derive(Debug, Clone)]
pub struct NewlineCodec {
    max_frame_size: usize,
    /// Bytes of `src` already searched for a newline.
    scanned: usize,
    /// Throwing away the rest of an oversize line.
    skipping: bool,
    /// Stream offset of the first byte still in `src`.
    offset: u64,
}

impl Default for NewlineCodec {
    fn default() -> Self {
        Self::new(DEFAULT_MAX_FRAME_SIZE)
    }
}

impl NewlineCodec {
    pub fn new(max_frame_size: usize) -> Self {
        Self {
            max_frame_size,
            scanned: 0,
            skipping: false,
            offset: 0,
        }
    }

    /// Whether part of a line has arrived and the rest is still owed.
    pub fn mid_frame(&self) -> bool {
        self.scanned > 0 || self.skipping
    }

    fn line(&mut self, src: &mut BytesMut, end: usize) -> Option<Result<String, FramingError>> {
        let offset = self.offset;
        let line = src.split_to(end + 1);
        self.offset += line.len() as u64;
        self.scanned = 0;
        let mut body = &line[..end];
        if body.last() == Some(&b'\r') {
            body = &body[..body.len() - 1];
        }
        if body.iter().all(u8::is_ascii_whitespace) {
            return None;
        }
        Some(match std::str::from_utf8(body) {
            Ok(text) => Ok(text.to_owned()),
            Err(e) => Err(FramingError {
                offset,
                kind: FramingErrorKind::NonUtf8 {
                    valid_up_to: e.valid_up_to(),
                },
            }),
        })
    }
}

impl Decoder for NewlineCodec {
    type Item = Result<String, FramingError>;
    type Error = io::Error;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Self::Item>, io::Error> {
        loop {
            let newline = src[self.scanned..].iter().position(|b| *b == b'\n');
            if self.skipping {
                match newline {
                    Some(i) => {
                        let cut = self.scanned + i + 1;
                        self.offset += cut as u64;
                        src.advance(cut);
                        self.scanned = 0;
                        self.skipping = false;
                        continue;
                    }
                    None => {
                        self.offset += src.len() as u64;
                        src.clear();
                        self.scanned = 0;
                        return Ok(None);
                    }
                }
            }
            match newline {
                Some(i) if self.scanned + i <= self.max_frame_size => {
                    let end = self.scanned + i;
                    match self.line(src, end) {
                        Some(item) => return Ok(Some(item)),
                        None => continue,
                    }
                }
                Some(_) => {}
                None if src.len() <= self.max_frame_size => {
                    self.scanned = src.len();
                    return Ok(None);
                }
                None => {}
            }
            // Over the limit: report once, then drop the line as it streams past.
            let offset = self.offset;
            self.skipping = true;
            self.scanned = 0;
            let error = FramingError {
                offset,
                kind: FramingErrorKind::LineTooLong {
                    max: self.max_frame_size,
                },
            };
            return Ok(Some(Err(error)));
        }
    }

    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<Self::Item>, io::Error> {
        if let Some(item) = self.decode(src)? {
            return Ok(Some(item));
        }
        // A last line without its newline still counts.
        if src.is_empty() || self.skipping {
            src.clear();
            return Ok(None);
        }
        src.put_u8(b'\n');
        self.decode(src)
    }
}

impl Encoder<String> for NewlineCodec {
    type Error = io::Error;

    fn encode(&mut self, body: String, dst: &mut BytesMut) -> Result<(), io::Error> {
        // serde_json never writes a raw newline inside a JSON text; a caller's hand-made frame
        // with one would split in two on the far side, so it is refused here.
        if body.contains('\n') {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "a newline-delimited message must not contain a newline",
            ));
        }
        dst.reserve(body.len() + 1);
        dst.put_slice(body.as_bytes());
        dst.put_u8(b'\n');
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_all(codec: &mut NewlineCodec, input: &[u8]) -> Vec<Result<String, FramingError>> {
        let mut buf = BytesMut::new();
        let mut out = Vec::new();
        // One byte at a time: every split point is exercised.
        for b in input {
            buf.put_u8(*b);
            while let Some(item) = codec.decode(&mut buf).unwrap() {
                out.push(item);
            }
        }
        while let Some(item) = codec.decode_eof(&mut buf).unwrap() {
            out.push(item);
        }
        out
    }

    #[test]
    fn lines_round_trip_and_blank_lines_are_ignored() {
        let mut codec = NewlineCodec::default();
        let mut wire = BytesMut::new();
        codec.encode("{\"a\":1}".to_owned(), &mut wire).unwrap();
        wire.put_slice(b"\r\n\n");
        codec.encode("{\"b\":\"é\"}".to_owned(), &mut wire).unwrap();
        wire.put_slice(b"{\"c\":3}\r\n{\"last\":true}");
        let items = decode_all(&mut NewlineCodec::default(), &wire);
        let got: Vec<String> = items.into_iter().map(Result::unwrap).collect();
        assert_eq!(
            got,
            ["{\"a\":1}", "{\"b\":\"é\"}", "{\"c\":3}", "{\"last\":true}"]
        );
    }

    #[test]
    fn an_oversize_line_costs_that_line_only() {
        let mut codec = NewlineCodec::new(8);
        let items = decode_all(&mut codec, b"{\"x\":\"0123456789abcdef\"}\n{}\n");
        assert_eq!(items.len(), 2, "{items:?}");
        assert!(matches!(
            &items[0],
            Err(FramingError {
                kind: FramingErrorKind::LineTooLong { max: 8 },
                offset: 0
            })
        ));
        assert_eq!(items[1].as_deref(), Ok("{}"));
        // Exactly at the limit is accepted.
        let items = decode_all(&mut NewlineCodec::new(2), b"{}\n");
        assert_eq!(items[0].as_deref(), Ok("{}"));
    }

    #[test]
    fn non_utf8_lines_are_errors_and_newlines_in_bodies_are_refused() {
        let items = decode_all(&mut NewlineCodec::default(), b"\xff\xfe\n{}\n");
        assert!(matches!(
            &items[0],
            Err(FramingError {
                kind: FramingErrorKind::NonUtf8 { valid_up_to: 0 },
                ..
            })
        ));
        assert_eq!(items[1].as_deref(), Ok("{}"));
        let mut wire = BytesMut::new();
        assert!(
            NewlineCodec::default()
                .encode("{\n}".to_owned(), &mut wire)
                .is_err()
        );
    }
}
