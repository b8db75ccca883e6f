//! The origin policy's counterpart for JSON-RPC over TCP: a connection that opens with an
//! HTTP request line is closed before a byte of it reaches the framing.
//!
//! A web page can post a `text/plain` body to any port. Sent to a JSON-RPC TCP server, the
//! HTTP header block is refused as a bad frame, but the framing then resynchronises on the
//! body, which the page controls: a whole `Content-Length` frame or JSON line in it would be
//! served (cross-protocol request forgery). JSON-RPC streams open with `{` or `Content-`, no
//! HTTP method, so the first bytes tell the two apart.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use tokio::io::{AsyncRead, ReadBuf};

/// The request methods a browser sends, with their space; the longest is 8 bytes.
const METHODS: [&[u8]; 9] = [
    b"GET ",
    b"POST ",
    b"PUT ",
    b"HEAD ",
    b"DELETE ",
    b"OPTIONS ",
    b"PATCH ",
    b"CONNECT ",
    b"TRACE ",
];

/// Bytes read before the verdict.
const HEAD: usize = 8;

/// A reader that fails with [`io::ErrorKind::InvalidData`] when the stream opens with an
/// HTTP request line, and otherwise passes every byte through unchanged.
#[derive(Debug)]
pub(crate) struct RefuseHttp<R> {
    inner: R,
    head: [u8; HEAD],
    len: usize,
    state: State,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Reading the first bytes; nothing handed on yet.
    Judging,
    /// Not HTTP: handing on `head[from..len]`, then the rest of the stream.
    Passing { from: usize },
    /// HTTP: every read fails.
    Refused,
}

impl<R> RefuseHttp<R> {
    pub(crate) fn new(inner: R) -> Self {
        Self {
            inner,
            head: [0; HEAD],
            len: 0,
            state: State::Judging,
        }
    }
}

/// What the first bytes say: `Some(true)` an HTTP request, `Some(false)` not one, `None`
/// not yet known.
fn judge(head: &[u8]) -> Option<bool> {
    if METHODS.iter().any(|m| head.starts_with(m)) {
        return Some(true);
    }
    if METHODS.iter().any(|m| m.starts_with(head)) {
        return None;
    }
    Some(false)
}

fn refused() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        "an HTTP request on a JSON-RPC port (a web page's cross-protocol request?): closed",
    )
}

impl<R: AsyncRead + Unpin> AsyncRead for RefuseHttp<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        loop {
            match this.state {
                State::Refused => return Poll::Ready(Err(refused())),
                State::Judging => {
                    let mut head = ReadBuf::new(&mut this.head[this.len..]);
                    ready!(Pin::new(&mut this.inner).poll_read(cx, &mut head))?;
                    let n = head.filled().len();
                    this.len += n;
                    this.state = match (n, judge(&this.head[..this.len])) {
                        (_, Some(true)) => {
                            crate::warn_throttled!("HTTP request on a JSON-RPC port: closed");
                            State::Refused
                        }
                        // The end of the stream, or a verdict: hand on what was read.
                        (0, _) | (_, Some(false)) => State::Passing { from: 0 },
                        (_, None) => State::Judging,
                    };
                }
                State::Passing { from } if from < this.len => {
                    let k = (this.len - from).min(buf.remaining());
                    buf.put_slice(&this.head[from..from + k]);
                    this.state = State::Passing { from: from + k };
                    return Poll::Ready(Ok(()));
                }
                State::Passing { .. } => return Pin::new(&mut this.inner).poll_read(cx, buf),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    async fn read_all(input: &'static [u8]) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        RefuseHttp::new(input).read_to_end(&mut out).await?;
        Ok(out)
    }

    #[tokio::test]
    async fn http_is_refused_and_json_rpc_passes_unchanged() {
        for http in [
            &b"POST / HTTP/1.1\r\nHost: x\r\n\r\n"[..],
            b"GET /ws HTTP/1.1\r\n",
            b"OPTIONS * HTTP/1.1\r\n",
        ] {
            let e = read_all(http).await.unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        }
        for json in [
            &b"Content-Length: 2\r\n\r\n{}"[..],
            b"{\"jsonrpc\":\"2.0\"}\n",
            b"",
            b"G",
            b"POS",
            b"GETTING",
        ] {
            assert_eq!(read_all(json).await.unwrap(), json);
        }
    }
}
