//! This process's standard input and output as async streams that never hold up shutdown.
//!
//! Tokio's own `stdin()`/`stdout()` read and write on its blocking pool, and a runtime being
//! dropped waits for every blocking call under way: a server whose peer keeps its input open
//! and sends nothing (or stops reading its output) would outlive its connection until one
//! more byte moved. Here each blocking call runs on a detached thread of its own instead, so a
//! finished connection lets `main` return and the process exit, whatever the peer does.
//!
//! Standard input is read by one thread for the whole process (two readers would each get
//! part of the bytes); every [`Stdin`] handle takes from the same queue, one at a time.

use std::future::Future as _;
use std::io::{self, Read as _, Write as _};
use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context, Poll, ready};

use bytes::Bytes;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::PollSender;

/// Bytes read or written per chunk; at most [`QUEUED`] chunks wait in each direction.
const CHUNK: usize = 8 * 1024;
const QUEUED: usize = 4;

struct Queue {
    rx: mpsc::Receiver<io::Result<Bytes>>,
    /// The part of the last chunk not yet handed out.
    rest: Bytes,
}

/// This process's standard input (see the module's doc). Cheap to create.
#[derive(Clone)]
pub struct Stdin {
    queue: Arc<Mutex<Queue>>,
}

impl std::fmt::Debug for Stdin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Stdin")
    }
}

/// A handle on standard input; the reading thread starts with the first.
pub fn stdin() -> Stdin {
    static QUEUE: OnceLock<Arc<Mutex<Queue>>> = OnceLock::new();
    let queue = QUEUE.get_or_init(|| {
        let (tx, rx) = mpsc::channel(QUEUED);
        std::thread::Builder::new()
            .name("agentwire-stdin".into())
            .spawn(move || read_stdin(&tx))
            .map_err(|e| tracing::error!(error = %e, "no thread to read standard input"))
            .ok();
        // Without its thread the sender is gone, and reads see the end of input.
        Arc::new(Mutex::new(Queue {
            rx,
            rest: Bytes::new(),
        }))
    });
    Stdin {
        queue: Arc::clone(queue),
    }
}

/// The reading thread: chunks until the end of input, an error, or nobody left to take them.
fn read_stdin(tx: &mpsc::Sender<io::Result<Bytes>>) {
    let mut input = io::stdin().lock();
    loop {
        let mut buf = vec![0; CHUNK];
        let item = match input.read(&mut buf) {
            Ok(0) => return,
            Ok(n) => {
                buf.truncate(n);
                Ok(Bytes::from(buf))
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => Err(e),
        };
        let last = item.is_err();
        if tx.blocking_send(item).is_err() || last {
            return;
        }
    }
}

impl AsyncRead for Stdin {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let mut queue = self.queue.lock().unwrap_or_else(|p| p.into_inner());
        if queue.rest.is_empty() {
            match ready!(queue.rx.poll_recv(cx)) {
                None => return Poll::Ready(Ok(())),
                Some(Err(e)) => return Poll::Ready(Err(e)),
                Some(Ok(chunk)) => queue.rest = chunk,
            }
        }
        let n = buf.remaining().min(queue.rest.len());
        buf.put_slice(&queue.rest.split_to(n));
        Poll::Ready(Ok(()))
    }
}

enum Out {
    Data(Bytes),
    Flush(oneshot::Sender<io::Result<()>>),
}

/// This process's standard output (see the module's doc), written by a thread of its own.
/// Writes are queued (a few chunks at most, then the writer waits); `flush` waits until the
/// thread has written and flushed everything before it. A failed write ends the thread, and
/// every later call fails with `BrokenPipe`.
pub struct Stdout {
    tx: PollSender<Out>,
    flushed: Option<oneshot::Receiver<io::Result<()>>>,
}

impl std::fmt::Debug for Stdout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Stdout")
    }
}

/// A handle on standard output with a writing thread of its own.
pub fn stdout() -> Stdout {
    let (tx, mut rx) = mpsc::channel::<Out>(QUEUED);
    let spawned = std::thread::Builder::new()
        .name("agentwire-stdout".into())
        .spawn(move || {
            let mut out = io::stdout();
            while let Some(item) = rx.blocking_recv() {
                match item {
                    Out::Data(bytes) => {
                        if let Err(e) = out.write_all(&bytes) {
                            tracing::debug!(error = %e, "standard output failed");
                            return;
                        }
                    }
                    Out::Flush(done) => {
                        let _ = done.send(out.flush());
                    }
                }
            }
        });
    if let Err(e) = spawned {
        // The receiver went with the closure: every write fails with `BrokenPipe`.
        tracing::error!(error = %e, "no thread to write standard output");
    }
    Stdout {
        tx: PollSender::new(tx),
        flushed: None,
    }
}

fn gone() -> io::Error {
    io::Error::new(io::ErrorKind::BrokenPipe, "standard output is closed")
}

impl AsyncWrite for Stdout {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if buf.is_empty() {
            return Poll::Ready(Ok(0));
        }
        ready!(self.tx.poll_reserve(cx)).map_err(|_| gone())?;
        let n = buf.len().min(CHUNK);
        let chunk = Bytes::copy_from_slice(&buf[..n]);
        self.tx.send_item(Out::Data(chunk)).map_err(|_| gone())?;
        Poll::Ready(Ok(n))
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.flushed.is_none() {
            ready!(self.tx.poll_reserve(cx)).map_err(|_| gone())?;
            let (done, flushed) = oneshot::channel();
            self.tx.send_item(Out::Flush(done)).map_err(|_| gone())?;
            self.flushed = Some(flushed);
        }
        let Some(flushed) = self.flushed.as_mut() else {
            return Poll::Ready(Ok(()));
        };
        let result = ready!(Pin::new(flushed).poll(cx));
        self.flushed = None;
        Poll::Ready(result.unwrap_or_else(|_| Err(gone())))
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.tx.is_closed() {
            return Poll::Ready(Ok(()));
        }
        ready!(self.as_mut().poll_flush(cx))?;
        self.tx.close();
        Poll::Ready(Ok(()))
    }
}
