//! A tokio-util codec for LSP-style `Content-Length` framing, built on the runtime's
//! incremental [`ContentLengthDecoder`] so both share one set of framing rules, and
//! [`FrameCodec`], the codec of whichever framing a protocol declares.

use std::io;

use agentwire_runtime::framing::{ContentLengthDecoder, DEFAULT_MAX_FRAME_SIZE, FramingError};
use bytes::{BufMut, BytesMut};
use tokio_util::codec::{Decoder, Encoder};

/// Frames JSON texts with `Content-Length` headers.
///
/// A framing error is an *item* (`Err` inside `Some`), not a codec error: tokio-util ends a
/// stream after a codec error, while a broken frame here must cost only that frame. The codec
/// error type is reserved for I/O failures.
#[derive(Debug, Clone)]
pub struct ContentLengthCodec {
    decoder: ContentLengthDecoder,
}

impl Default for ContentLengthCodec {
    fn default() -> Self {
        Self::new(DEFAULT_MAX_FRAME_SIZE)
    }
}

impl ContentLengthCodec {
    /// A codec that refuses bodies longer than `max_frame_size` bytes (before reserving room
    /// for them) and skips them so the next frame still decodes.
    pub fn new(max_frame_size: usize) -> Self {
        Self {
            decoder: ContentLengthDecoder::with_max_frame_size(max_frame_size),
        }
    }

    pub fn max_frame_size(&self) -> usize {
        self.decoder.max_frame_size()
    }

    /// Whether part of a frame has arrived and the rest is still owed.
    pub fn mid_frame(&self) -> bool {
        self.decoder.mid_frame()
    }
}

impl Decoder for ContentLengthCodec {
    type Item = Result<String, FramingError>;
    type Error = io::Error;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Self::Item>, io::Error> {
        // The runtime decoder keeps its own buffer (and drops skipped oversize bodies without
        // storing them), so everything read so far is handed over.
        if !src.is_empty() {
            self.decoder.push(src);
            src.clear();
        }
        match self.decoder.next_frame() {
            Ok(Some(frame)) => Ok(Some(Ok(frame.body))),
            Ok(None) => Ok(None),
            Err(e) => Ok(Some(Err(e))),
        }
    }

    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<Self::Item>, io::Error> {
        if let Some(item) = self.decode(src)? {
            return Ok(Some(item));
        }
        // Report a stream cut inside a frame once, then end.
        let end = self.decoder.finish();
        self.decoder = ContentLengthDecoder::with_max_frame_size(self.decoder.max_frame_size());
        match end {
            Ok(()) => Ok(None),
            Err(e) => Ok(Some(Err(e))),
        }
    }
}

impl Encoder<String> for ContentLengthCodec {
    type Error = io::Error;

    fn encode(&mut self, body: String, dst: &mut BytesMut) -> Result<(), io::Error> {
        let header = format!("Content-Length: {}\r\n\r\n", body.len());
        dst.reserve(header.len() + body.len());
        dst.put_slice(header.as_bytes());
        dst.put_slice(body.as_bytes());
        Ok(())
    }
}

/// How JSON-RPC messages are delimited on a byte stream (`transport.framing` of a JSON-RPC
/// protocol).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// LSP-style `Content-Length` headers before each body.
    ContentLength,
    /// One JSON text per line.
    Newline,
}

/// The codec of a [`Framing`], chosen at run time.
#[derive(Debug, Clone)]
pub enum FrameCodec {
    ContentLength(ContentLengthCodec),
    Newline(super::newline::NewlineCodec),
}

impl FrameCodec {
    pub fn new(framing: Framing, max_frame_size: usize) -> Self {
        match framing {
            Framing::ContentLength => Self::ContentLength(ContentLengthCodec::new(max_frame_size)),
            Framing::Newline => Self::Newline(super::newline::NewlineCodec::new(max_frame_size)),
        }
    }

    /// Whether part of a frame has arrived and the rest is still owed.
    pub fn mid_frame(&self) -> bool {
        match self {
            Self::ContentLength(c) => c.mid_frame(),
            Self::Newline(c) => c.mid_frame(),
        }
    }
}

impl Decoder for FrameCodec {
    type Item = Result<String, FramingError>;
    type Error = io::Error;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Self::Item>, io::Error> {
        match self {
            Self::ContentLength(c) => c.decode(src),
            Self::Newline(c) => c.decode(src),
        }
    }

    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<Self::Item>, io::Error> {
        match self {
            Self::ContentLength(c) => c.decode_eof(src),
            Self::Newline(c) => c.decode_eof(src),
        }
    }
}

impl Encoder<String> for FrameCodec {
    type Error = io::Error;

    fn encode(&mut self, body: String, dst: &mut BytesMut) -> Result<(), io::Error> {
        match self {
            Self::ContentLength(c) => c.encode(body, dst),
            Self::Newline(c) => c.encode(body, dst),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentwire_runtime::framing::FramingErrorKind;

    fn decode_all(
        codec: &mut ContentLengthCodec,
        input: &[u8],
    ) -> Vec<Result<String, FramingError>> {
        let mut buf = BytesMut::from(input);
        let mut out = Vec::new();
        while let Some(item) = codec.decode(&mut buf).unwrap() {
            out.push(item);
        }
        while let Some(item) = codec.decode_eof(&mut buf).unwrap() {
            out.push(item);
        }
        out
    }

    #[test]
    fn round_trips_and_splits_across_reads() {
        let mut codec = ContentLengthCodec::default();
        let mut wire = BytesMut::new();
        codec.encode("{\"a\":1}".to_owned(), &mut wire).unwrap();
        codec.encode("{\"b\":\"é\"}".to_owned(), &mut wire).unwrap();
        let mut got = Vec::new();
        let mut buf = BytesMut::new();
        for b in wire.iter() {
            buf.put_u8(*b);
            while let Some(item) = codec.decode(&mut buf).unwrap() {
                got.push(item.unwrap());
            }
        }
        assert_eq!(
            got,
            vec!["{\"a\":1}".to_owned(), "{\"b\":\"é\"}".to_owned()]
        );
    }

    #[test]
    fn oversize_frame_is_an_item_and_the_next_frame_survives() {
        let mut codec = ContentLengthCodec::new(8);
        let items = decode_all(
            &mut codec,
            b"Content-Length: 4294967296\r\n\r\nxxxxContent-Length: 2\r\n\r\n{}",
        );
        assert!(matches!(
            &items[0],
            Err(FramingError {
                kind: FramingErrorKind::Oversize {
                    length: 4294967296,
                    max: 8
                },
                ..
            })
        ));
        // The rest of the input went into the oversize body: the end of input says so.
        assert_eq!(items.len(), 2, "{items:?}");
        assert!(matches!(
            &items[1],
            Err(FramingError {
                kind: FramingErrorKind::TruncatedSkip { got: 27, .. },
                ..
            })
        ));

        let mut codec = ContentLengthCodec::new(8);
        let items = decode_all(
            &mut codec,
            b"Content-Length: 9\r\n\r\n123456789Content-Length: 2\r\n\r\n{}",
        );
        assert!(items[0].is_err());
        assert_eq!(items[1].as_deref(), Ok("{}"));
    }

    #[test]
    fn cut_stream_reports_truncation_once() {
        let mut codec = ContentLengthCodec::default();
        let items = decode_all(&mut codec, b"Content-Length: 10\r\n\r\n{}");
        assert_eq!(items.len(), 1);
        assert!(matches!(
            &items[0],
            Err(FramingError {
                kind: FramingErrorKind::TruncatedBody { .. },
                ..
            })
        ));
    }
}
