//! LSP-style `Content-Length` framing (as LSP-like protocols speak it over stdio): an incremental decoder with
//! a frame-size limit and typed errors, and the matching encoder.
//!
//! A frame is a block of `Name: value` header lines, an empty line, then exactly
//! `Content-Length` bytes of body. Header names are compared without regard to case, lines may
//! end in `\r\n` or a bare `\n`, and empty lines between frames are skipped. `Content-Type` is
//! optional; when it names a charset, that charset must be UTF-8 (`utf-8`, or `utf8` as LSP
//! still accepts). Every other header is ignored.
//!
//! The decoder never panics on any input. An oversize `Content-Length` is refused as soon as
//! the header block has been read, before any room for the body is reserved; the body is then
//! skipped as it arrives, so the frames after it are still decoded. An error that loses the
//! frame boundary (a header block without a usable `Content-Length`, a malformed or endless
//! header block) makes the decoder skip ahead to the next `Content-Length` or `Content-Type`
//! header it finds: after the whole block when every line of it was a header (so a second,
//! conflicting `Content-Length` is not taken for the next frame's), from the byte after the
//! block's start when a line was not (the block may be a body's tail running into a header).

/// The frame-size limit a new decoder starts with: 16 MiB.
pub const DEFAULT_MAX_FRAME_SIZE: usize = 16 * 1024 * 1024;

/// The longest header block a decoder accepts, so garbage without an empty line cannot make it
/// buffer without bound.
pub const MAX_HEADER_SIZE: usize = 16 * 1024;

/// One decoded frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// Byte offset of the frame's first header byte in the stream.
    pub offset: u64,
    /// The body, checked to be UTF-8.
    pub body: String,
}

/// What went wrong with the input, and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("byte {offset}: {kind}")]
pub struct FramingError {
    /// Byte offset in the stream of the header block (or stray input) the error is about.
    pub offset: u64,
    pub kind: FramingErrorKind,
}

/// The ways a framed stream can be broken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FramingErrorKind {
    /// A header block without `Content-Length`. The decoder skips to the next frame.
    #[error("header block has no Content-Length")]
    MissingContentLength,
    /// `Content-Length` is not a decimal number, does not fit in 64 bits, or is given twice
    /// with different values. The decoder skips to the next frame.
    #[error("bad Content-Length: {0}")]
    BadContentLength(String),
    /// `Content-Length` is above the decoder's limit. The body is skipped unread.
    #[error("Content-Length {length} exceeds the limit of {max} bytes")]
    Oversize { length: u64, max: usize },
    /// The body is not valid UTF-8. The frame is dropped.
    #[error("frame body is not UTF-8 (first bad byte at body offset {valid_up_to})")]
    NonUtf8 { valid_up_to: usize },
    /// `Content-Type` names a charset other than UTF-8. The frame is dropped.
    #[error("unsupported charset `{0}` (only utf-8 is supported)")]
    UnsupportedCharset(String),
    /// A header line that is not `Name: value` with a token name and printable ASCII. The
    /// decoder skips to the next frame.
    #[error("malformed header line `{0}`")]
    BadHeader(String),
    /// No empty line within the first `max` bytes of a header block. The decoder skips to the
    /// next frame.
    #[error("header block longer than {max} bytes")]
    HeaderTooLong { max: usize },
    /// A newline-delimited message longer than `max` bytes. The rest of the line is skipped
    /// unread.
    #[error("line longer than {max} bytes")]
    LineTooLong { max: usize },
    /// The input ended inside a header block (from `finish`).
    #[error("input ends inside a header block")]
    TruncatedHeader,
    /// The input ended inside a body (from `finish`).
    #[error("input ends inside a frame body ({got} of {expected} bytes)")]
    TruncatedBody { expected: u64, got: u64 },
    /// The input ended inside the body of an oversize frame being skipped (from `finish`):
    /// everything after that frame's header, frames included, was taken as its body.
    #[error(
        "input ends inside the skipped body of the oversize frame ({got} of its {length} \
         bytes): whatever followed its header, frames included, was taken as that body"
    )]
    TruncatedSkip { length: u64, got: u64 },
}

/// Where the decoder is in the stream.
#[derive(Debug, Clone, PartialEq, Eq)]
enum State {
    /// At the start of a header block (or of the blank lines before one).
    Header,
    /// A header block has been read; waiting for `len` body bytes.
    Body {
        frame_offset: u64,
        len: usize,
        charset: Option<String>,
    },
    /// Throwing away the body of an oversize frame (its header at `frame_offset`, `length`
    /// declared), `remaining` bytes still to come.
    Skip {
        frame_offset: u64,
        length: u64,
        remaining: u64,
    },
    /// The frame boundary is lost: throwing input away up to the next header name that can
    /// start a frame.
    Resync,
}

/// An incremental, synchronous decoder: `push` bytes as they arrive, then call `next_frame`
/// until it returns `Ok(None)`; call `finish` when the input has ended.
#[derive(Debug, Clone)]
pub struct ContentLengthDecoder {
    buf: Vec<u8>,
    /// Start of the unread part of `buf`.
    pos: usize,
    /// Stream offset of `buf[0]`.
    base: u64,
    max_frame_size: usize,
    state: State,
}

impl Default for ContentLengthDecoder {
    fn default() -> Self {
        Self::new()
    }
}

impl ContentLengthDecoder {
    /// A decoder with the default frame-size limit.
    pub fn new() -> Self {
        Self::with_max_frame_size(DEFAULT_MAX_FRAME_SIZE)
    }

    /// A decoder that refuses bodies longer than `max` bytes.
    pub fn with_max_frame_size(max: usize) -> Self {
        Self {
            buf: Vec::new(),
            pos: 0,
            base: 0,
            max_frame_size: max,
            state: State::Header,
        }
    }

    /// The frame-size limit.
    pub fn max_frame_size(&self) -> usize {
        self.max_frame_size
    }

    /// Bytes pushed but not yet consumed.
    pub fn buffered(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// Stream offset of the next unread byte.
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Whether part of a frame has been read (a header, some body, a skipped body, or
    /// garbage being resynchronised past): the reader owes more input to finish it.
    pub fn mid_frame(&self) -> bool {
        let rest = &self.buf[self.pos..];
        match self.state {
            State::Header => !rest.iter().all(u8::is_ascii_whitespace),
            State::Resync => !rest.is_empty(),
            State::Body { .. } | State::Skip { .. } => true,
        }
    }

    /// Appends input. Bytes of a body being skipped are dropped here without being stored.
    pub fn push(&mut self, mut bytes: &[u8]) {
        if let State::Skip { remaining, .. } = &mut self.state
            && self.pos == self.buf.len()
        {
            let n = usize::try_from(*remaining)
                .unwrap_or(usize::MAX)
                .min(bytes.len());
            *remaining -= n as u64;
            self.base += n as u64;
            bytes = &bytes[n..];
            if *remaining == 0 {
                self.state = State::Header;
            }
        }
        if self.pos > 0 {
            self.buf.drain(..self.pos);
            self.base += self.pos as u64;
            self.pos = 0;
        }
        self.buf.extend_from_slice(bytes);
    }

    /// The next complete frame, `Ok(None)` when more input is needed, or the next error. After
    /// an error, calling again goes on with the rest of the input.
    pub fn next_frame(&mut self) -> Result<Option<Frame>, FramingError> {
        loop {
            match &self.state {
                State::Skip {
                    frame_offset,
                    length,
                    remaining,
                } => {
                    let avail = self.buf.len() - self.pos;
                    let n = usize::try_from(*remaining).unwrap_or(usize::MAX).min(avail);
                    self.pos += n;
                    let left = *remaining - n as u64;
                    if left > 0 {
                        self.state = State::Skip {
                            frame_offset: *frame_offset,
                            length: *length,
                            remaining: left,
                        };
                        return Ok(None);
                    }
                    self.state = State::Header;
                }
                State::Resync => {
                    if !self.resync() {
                        return Ok(None);
                    }
                }
                State::Body {
                    frame_offset,
                    len,
                    charset,
                } => {
                    let (frame_offset, len) = (*frame_offset, *len);
                    if self.buf.len() - self.pos < len {
                        return Ok(None);
                    }
                    let charset = charset.clone();
                    let body = &self.buf[self.pos..self.pos + len];
                    self.pos += len;
                    self.state = State::Header;
                    let fail = |kind| FramingError {
                        offset: frame_offset,
                        kind,
                    };
                    if let Some(cs) = charset {
                        return Err(fail(FramingErrorKind::UnsupportedCharset(cs)));
                    }
                    return match std::str::from_utf8(body) {
                        Ok(text) => Ok(Some(Frame {
                            offset: frame_offset,
                            body: text.to_owned(),
                        })),
                        Err(e) => Err(fail(FramingErrorKind::NonUtf8 {
                            valid_up_to: e.valid_up_to(),
                        })),
                    };
                }
                State::Header => {
                    if !self.read_header()? {
                        return Ok(None);
                    }
                }
            }
        }
    }

    /// Declares the end of input: `Err` if it stopped inside a frame, the skipped body of an
    /// oversize frame included (what followed its header was swallowed as that body, so the
    /// reader is told). Bytes thrown away while resynchronising are not an error again.
    pub fn finish(&self) -> Result<(), FramingError> {
        let rest = &self.buf[self.pos..];
        match &self.state {
            State::Header if rest.iter().all(u8::is_ascii_whitespace) => Ok(()),
            State::Header => Err(FramingError {
                offset: self.offset(),
                kind: FramingErrorKind::TruncatedHeader,
            }),
            State::Body {
                frame_offset, len, ..
            } => Err(FramingError {
                offset: *frame_offset,
                kind: FramingErrorKind::TruncatedBody {
                    expected: *len as u64,
                    got: rest.len() as u64,
                },
            }),
            State::Skip {
                frame_offset,
                length,
                remaining,
            } => Err(FramingError {
                offset: *frame_offset,
                kind: FramingErrorKind::TruncatedSkip {
                    length: *length,
                    got: length - remaining,
                },
            }),
            State::Resync => Ok(()),
        }
    }

    /// Reads one header block if it is complete. `Ok(false)`: more input is needed; `Ok(true)`:
    /// the state moved on (to a body, or past blank lines).
    fn read_header(&mut self) -> Result<bool, FramingError> {
        // Blank lines between frames are tolerated.
        while let Some(&b) = self.buf.get(self.pos) {
            match b {
                b'\n' => self.pos += 1,
                b'\r' if self.buf.get(self.pos + 1) == Some(&b'\n') => self.pos += 2,
                b'\r' if self.pos + 1 == self.buf.len() => return Ok(false),
                _ => break,
            }
        }
        let start = self.pos;
        let offset = self.offset();
        let avail = &self.buf[start..];
        if avail.is_empty() {
            return Ok(false);
        }
        let window = &avail[..avail.len().min(MAX_HEADER_SIZE)];
        let Some(block_len) = header_block_len(window) else {
            if avail.len() >= MAX_HEADER_SIZE {
                return Err(self.lose_sync(
                    offset,
                    FramingErrorKind::HeaderTooLong {
                        max: MAX_HEADER_SIZE,
                    },
                ));
            }
            return Ok(false);
        };
        match parse_headers(&avail[..block_len]) {
            Err(kind @ FramingErrorKind::BadContentLength(_)) => {
                // Every line was a header: the block is a frame's, with a length that cannot
                // be used. Resynchronise after the whole block, so none of its lines (a second
                // `Content-Length`) is taken for the next frame's header.
                self.pos = start + block_len;
                self.state = State::Resync;
                Err(FramingError { offset, kind })
            }
            Err(kind) => {
                // The block may be the tail of a body whose length was wrong; a frame can
                // start anywhere after its first byte.
                Err(self.lose_sync(offset, kind))
            }
            Ok(headers) => {
                self.pos = start + block_len;
                let Some(length) = headers.length else {
                    self.state = State::Resync;
                    return Err(FramingError {
                        offset,
                        kind: FramingErrorKind::MissingContentLength,
                    });
                };
                match usize::try_from(length) {
                    Ok(len) if len <= self.max_frame_size => {
                        self.state = State::Body {
                            frame_offset: offset,
                            len,
                            charset: headers.bad_charset,
                        };
                        Ok(true)
                    }
                    _ => {
                        self.state = State::Skip {
                            frame_offset: offset,
                            length,
                            remaining: length,
                        };
                        Err(FramingError {
                            offset,
                            kind: FramingErrorKind::Oversize {
                                length,
                                max: self.max_frame_size,
                            },
                        })
                    }
                }
            }
        }
    }

    /// Gives up on the frame at `offset`: resynchronise from the byte after it.
    fn lose_sync(&mut self, offset: u64, kind: FramingErrorKind) -> FramingError {
        self.pos += 1;
        self.state = State::Resync;
        FramingError { offset, kind }
    }

    /// Throws input away up to the next `Content-Length` or `Content-Type` (any case). Returns
    /// whether one was found; if not, keeps only a tail that may be the start of one.
    fn resync(&mut self) -> bool {
        const NEEDLES: [&[u8]; 2] = [b"content-length", b"content-type"];
        let rest = &self.buf[self.pos..];
        let found = (0..rest.len()).find(|&i| {
            NEEDLES
                .iter()
                .any(|n| rest.len() - i >= n.len() && rest[i..i + n.len()].eq_ignore_ascii_case(n))
        });
        match found {
            Some(i) => {
                self.pos += i;
                self.state = State::Header;
                true
            }
            None => {
                let keep = NEEDLES.iter().map(|n| n.len() - 1).max().unwrap_or(0);
                self.pos += rest.len().saturating_sub(keep);
                false
            }
        }
    }
}

/// The headers a frame cares about.
#[derive(Debug, Default)]
struct Headers {
    length: Option<u64>,
    /// A charset other than UTF-8, if `Content-Type` named one.
    bad_charset: Option<String>,
}

/// Length of the header block at the start of `bytes`, up to and including its empty line.
fn header_block_len(bytes: &[u8]) -> Option<usize> {
    let mut line_start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'\n' {
            let line = &bytes[line_start..i];
            if line.is_empty() || line == b"\r" {
                return Some(i + 1);
            }
            line_start = i + 1;
        }
    }
    None
}

fn parse_headers(block: &[u8]) -> Result<Headers, FramingErrorKind> {
    let mut headers = Headers::default();
    for raw in block.split(|&b| b == b'\n') {
        let line = raw.strip_suffix(b"\r").unwrap_or(raw);
        if line.is_empty() {
            continue;
        }
        let bad = || FramingErrorKind::BadHeader(shown(line));
        let colon = line.iter().position(|&b| b == b':').ok_or_else(bad)?;
        let (name, value) = (&line[..colon], &line[colon + 1..]);
        if name.is_empty() || !name.iter().all(|&b| is_token(b)) {
            return Err(bad());
        }
        if !value
            .iter()
            .all(|&b| b == b'\t' || (b' '..=b'~').contains(&b))
        {
            return Err(bad());
        }
        // Checked to be ASCII just above.
        let value = String::from_utf8_lossy(value);
        let value = value.trim_matches([' ', '\t']);
        if name.eq_ignore_ascii_case(b"content-length") {
            let length = parse_length(value)?;
            if let Some(first) = headers.length
                && first != length
            {
                return Err(FramingErrorKind::BadContentLength(format!(
                    "given twice, as {first} and {length}"
                )));
            }
            headers.length = Some(length);
        } else if name.eq_ignore_ascii_case(b"content-type") {
            headers.bad_charset = unsupported_charset(value);
        }
    }
    Ok(headers)
}

fn parse_length(value: &str) -> Result<u64, FramingErrorKind> {
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return Err(FramingErrorKind::BadContentLength(format!(
            "`{value}` is not a decimal number"
        )));
    }
    value.parse::<u64>().map_err(|_| {
        FramingErrorKind::BadContentLength(format!("`{value}` does not fit in 64 bits"))
    })
}

/// The charset named by a `Content-Type` value, if it is one this decoder cannot read.
fn unsupported_charset(content_type: &str) -> Option<String> {
    for param in content_type.split(';').skip(1) {
        let Some((key, value)) = param.split_once('=') else {
            continue;
        };
        if !key.trim().eq_ignore_ascii_case("charset") {
            continue;
        }
        let value = value.trim().trim_matches('"');
        if value.eq_ignore_ascii_case("utf-8") || value.eq_ignore_ascii_case("utf8") {
            return None;
        }
        return Some(value.to_owned());
    }
    None
}

/// RFC 9110 token characters, the only ones a header name may use.
fn is_token(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// A header line as an error shows it: escaped, and cut after 60 bytes.
fn shown(line: &[u8]) -> String {
    let cut = &line[..line.len().min(60)];
    let mut text = cut.escape_ascii().to_string();
    if cut.len() < line.len() {
        text.push_str("...");
    }
    text
}

/// Frames `body`: a `Content-Length` header, an empty line, the body.
pub fn encode(body: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len() + 32);
    encode_into(body, &mut out);
    out
}

/// Appends the frame of `body` to `out`.
pub fn encode_into(body: &str, out: &mut Vec<u8>) {
    out.extend_from_slice(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes());
    out.extend_from_slice(body.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Everything the decoder yields for `input` pushed in one piece, then `finish`.
    fn decode_all(input: &[u8], max: usize) -> Vec<Result<Frame, FramingError>> {
        let mut dec = ContentLengthDecoder::with_max_frame_size(max);
        dec.push(input);
        drain(&mut dec)
    }

    fn drain(dec: &mut ContentLengthDecoder) -> Vec<Result<Frame, FramingError>> {
        let mut out = Vec::new();
        loop {
            match dec.next_frame() {
                Ok(Some(f)) => out.push(Ok(f)),
                Ok(None) => break,
                Err(e) => out.push(Err(e)),
            }
        }
        if let Err(e) = dec.finish() {
            out.push(Err(e));
        }
        out
    }

    fn bodies(results: &[Result<Frame, FramingError>]) -> Vec<String> {
        results
            .iter()
            .filter_map(|r| r.as_ref().ok().map(|f| f.body.clone()))
            .collect()
    }

    fn kinds(results: &[Result<Frame, FramingError>]) -> Vec<FramingErrorKind> {
        results
            .iter()
            .filter_map(|r| r.as_ref().err().map(|e| e.kind.clone()))
            .collect()
    }

    #[test]
    fn decodes_consecutive_frames() {
        let mut input = encode(r#"{"a":1}"#);
        encode_into("{}", &mut input);
        let out = decode_all(&input, DEFAULT_MAX_FRAME_SIZE);
        assert_eq!(
            out,
            vec![
                Ok(Frame {
                    offset: 0,
                    body: r#"{"a":1}"#.into()
                }),
                Ok(Frame {
                    offset: 28,
                    body: "{}".into()
                }),
            ]
        );
    }

    #[test]
    fn header_names_ignore_case_and_content_type_is_read() {
        let input = b"content-type: application/vscode-jsonrpc; charset=UTF8\r\nCONTENT-LENGTH:  2 \r\n\r\n[]";
        assert_eq!(bodies(&decode_all(input, 100)), vec!["[]".to_owned()]);
        let input = b"Content-Length: 2\nX-Other: whatever\n\n[]";
        assert_eq!(bodies(&decode_all(input, 100)), vec!["[]".to_owned()]);
    }

    #[test]
    fn partial_input_waits_for_more() {
        let input = encode("hello");
        let mut dec = ContentLengthDecoder::new();
        for (i, b) in input.iter().enumerate() {
            assert_eq!(dec.next_frame(), Ok(None), "after {i} bytes");
            dec.push(std::slice::from_ref(b));
        }
        assert_eq!(dec.next_frame().unwrap().unwrap().body, "hello");
        assert_eq!(dec.next_frame(), Ok(None));
        assert_eq!(dec.finish(), Ok(()));
    }

    #[test]
    fn oversize_is_refused_before_the_body_and_skipped() {
        let mut input = b"Content-Length: 10\r\n\r\n0123456789".to_vec();
        encode_into("ok", &mut input);
        let out = decode_all(&input, 5);
        assert_eq!(
            out[0],
            Err(FramingError {
                offset: 0,
                kind: FramingErrorKind::Oversize { length: 10, max: 5 }
            })
        );
        assert_eq!(bodies(&out), vec!["ok".to_owned()]);
    }

    #[test]
    fn oversize_body_arriving_later_is_never_buffered() {
        let mut dec = ContentLengthDecoder::with_max_frame_size(4);
        dec.push(b"Content-Length: 1000000\r\n\r\n");
        assert!(matches!(
            dec.next_frame(),
            Err(FramingError {
                kind: FramingErrorKind::Oversize { .. },
                ..
            })
        ));
        for _ in 0..1000 {
            dec.push(&[b'x'; 1000]);
            assert_eq!(dec.buffered(), 0);
            assert_eq!(dec.next_frame(), Ok(None));
        }
        dec.push(&encode("{}"));
        assert_eq!(dec.next_frame().unwrap().unwrap().body, "{}");
    }

    #[test]
    fn huge_declared_length_does_not_allocate() {
        let out = decode_all(b"Content-Length: 18446744073709551615\r\n\r\n", 16);
        assert_eq!(
            kinds(&out),
            vec![
                FramingErrorKind::Oversize {
                    length: u64::MAX,
                    max: 16
                },
                FramingErrorKind::TruncatedSkip {
                    length: u64::MAX,
                    got: 0
                }
            ]
        );
    }

    #[test]
    fn a_frame_swallowed_by_an_oversize_body_is_reported_at_the_end() {
        let mut input = b"Content-Length: 40\r\n\r\n".to_vec();
        encode_into(r#"{"a":1}"#, &mut input);
        let out = decode_all(&input, 16);
        assert_eq!(
            kinds(&out),
            vec![
                FramingErrorKind::Oversize {
                    length: 40,
                    max: 16
                },
                FramingErrorKind::TruncatedSkip {
                    length: 40,
                    got: 28
                }
            ]
        );
        assert_eq!(out[1].as_ref().unwrap_err().offset, 0);
    }

    #[test]
    fn missing_and_bad_lengths_resynchronise() {
        let mut input = b"Content-Type: application/json\r\n\r\n{}".to_vec();
        encode_into("1", &mut input);
        input.extend_from_slice(b"Content-Length: 1x\r\n\r\n{}");
        encode_into("2", &mut input);
        input.extend_from_slice(b"Content-Length: 99999999999999999999999\r\n\r\n");
        encode_into("3", &mut input);
        let out = decode_all(&input, 100);
        assert_eq!(bodies(&out), vec!["1", "2", "3"]);
        let kinds = kinds(&out);
        assert_eq!(kinds[0], FramingErrorKind::MissingContentLength);
        assert_eq!(
            kinds[1],
            FramingErrorKind::BadContentLength("`1x` is not a decimal number".into())
        );
        assert!(
            matches!(&kinds[2], FramingErrorKind::BadContentLength(m) if m.contains("64 bits"))
        );
        assert_eq!(kinds.len(), 3);
    }

    #[test]
    fn conflicting_lengths_are_bad() {
        let out = decode_all(b"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}", 100);
        assert!(
            matches!(&kinds(&out)[0], FramingErrorKind::BadContentLength(m) if m.contains("twice"))
        );
        let out = decode_all(b"Content-Length: 2\r\ncontent-length: 2\r\n\r\n{}", 100);
        assert_eq!(bodies(&out), vec!["{}"]);
    }

    #[test]
    fn a_bad_header_block_loses_nothing_after_it() {
        for block in [
            &b"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}"[..],
            b"Content-Length: 3\r\nContent-Length: 2\r\n\r\n{}",
            b"Content-Length: 1x\r\nContent-Length: 2\r\n\r\n{}",
        ] {
            let mut input = block.to_vec();
            encode_into("{\"a\":1}", &mut input);
            encode_into("[2]", &mut input);
            let out = decode_all(&input, 100);
            assert_eq!(bodies(&out), vec!["{\"a\":1}", "[2]"], "after {block:?}");
            assert!(matches!(
                kinds(&out)[..],
                [FramingErrorKind::BadContentLength(_)]
            ));
        }
    }

    #[test]
    fn wrong_length_costs_the_frame_not_the_stream() {
        // The first body is longer than announced: its tail runs into the next header.
        let mut input = b"Content-Length: 3\r\n\r\n{\"a\":1}".to_vec();
        encode_into("{}", &mut input);
        let out = decode_all(&input, 100);
        assert_eq!(out[0].as_ref().unwrap().body, "{\"a");
        assert!(matches!(kinds(&out)[0], FramingErrorKind::BadHeader(_)));
        assert_eq!(bodies(&out).last().unwrap(), "{}");
    }

    #[test]
    fn non_utf8_and_foreign_charsets_drop_the_frame() {
        let mut input = b"Content-Length: 2\r\n\r\n\xff\xfe".to_vec();
        input.extend_from_slice(
            b"Content-Length: 2\r\nContent-Type: text/json; charset=\"latin1\"\r\n\r\n{}",
        );
        encode_into("ok", &mut input);
        let out = decode_all(&input, 100);
        assert_eq!(
            kinds(&out),
            vec![
                FramingErrorKind::NonUtf8 { valid_up_to: 0 },
                FramingErrorKind::UnsupportedCharset("latin1".into())
            ]
        );
        assert_eq!(bodies(&out), vec!["ok"]);
    }

    #[test]
    fn endless_header_block_is_refused() {
        let input = vec![b'a'; MAX_HEADER_SIZE + 10];
        let out = decode_all(&input, 100);
        assert_eq!(
            kinds(&out),
            vec![FramingErrorKind::HeaderTooLong {
                max: MAX_HEADER_SIZE
            }]
        );
    }

    #[test]
    fn truncation_is_reported_by_finish() {
        let out = decode_all(b"Content-Length: 10\r\n\r\n{}", 100);
        assert_eq!(
            kinds(&out),
            vec![FramingErrorKind::TruncatedBody {
                expected: 10,
                got: 2
            }]
        );
        let out = decode_all(b"Content-Len", 100);
        assert_eq!(kinds(&out), vec![FramingErrorKind::TruncatedHeader]);
        assert!(decode_all(b"\r\n\r\n", 100).is_empty());
    }

    #[test]
    fn errors_display_offset_and_cause() {
        let err = decode_all(b"{}\r\n\r\n", 100).remove(0).unwrap_err();
        assert_eq!(err.to_string(), "byte 0: malformed header line `{}`");
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(
            input in proptest::collection::vec(any::<u8>(), 0..512),
            cut in 0usize..512,
            max in 0usize..64,
        ) {
            let mut dec = ContentLengthDecoder::with_max_frame_size(max);
            let cut = cut.min(input.len());
            dec.push(&input[..cut]);
            let mut steps = 0;
            while dec.next_frame() != Ok(None) {
                steps += 1;
                prop_assert!(steps <= input.len() + 1);
            }
            dec.push(&input[cut..]);
            while dec.next_frame() != Ok(None) {
                steps += 1;
                prop_assert!(steps <= 2 * input.len() + 2);
            }
            let _ = dec.finish();
        }

        #[test]
        fn header_like_garbage_never_panics(
            parts in proptest::collection::vec(
                prop_oneof![
                    Just(b"Content-Length: ".to_vec()),
                    Just(b"content-type: x; charset=utf-16\r\n".to_vec()),
                    Just(b"\r\n".to_vec()),
                    Just(b"\n".to_vec()),
                    Just(b"\r".to_vec()),
                    "[0-9]{1,25}".prop_map(String::into_bytes),
                    proptest::collection::vec(any::<u8>(), 0..8),
                ],
                0..24,
            ),
        ) {
            let input = parts.concat();
            let _ = decode_all(&input, 32);
        }

        #[test]
        fn encoded_frames_round_trip_in_any_chunks(
            bodies_in in proptest::collection::vec(".{0,40}", 0..6),
            chunk in 1usize..17,
        ) {
            let mut input = Vec::new();
            for b in &bodies_in {
                encode_into(b, &mut input);
            }
            let mut dec = ContentLengthDecoder::new();
            let mut got = Vec::new();
            for piece in input.chunks(chunk) {
                dec.push(piece);
                while let Some(f) = dec.next_frame().unwrap() {
                    got.push(f.body);
                }
            }
            prop_assert_eq!(dec.finish(), Ok(()));
            prop_assert_eq!(got, bodies_in);
        }
    }
}
