//! What a connection reads from and writes to: a framed byte stream, or whole messages handed
//! over by another transport (Streamable HTTP), behind the same engine.

use agentwire_runtime::framing::FramingError;
use agentwire_runtime::jsonrpc::RequestId;
use axum::http::Extensions;
use futures_util::{SinkExt, StreamExt};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;
use tokio_util::codec::{FramedRead, FramedWrite};
use tokio_util::sync::CancellationToken;

use super::codec::FrameCodec;

/// One outbound JSON-RPC message, with what a message-based transport needs to route it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outgoing {
    /// The JSON text.
    pub text: String,
    /// The inbound request this message belongs to: the one it answers, or the one whose
    /// handler sent it (a progress notification, a request back to the caller). `None` for
    /// messages sent outside any handler.
    pub related: Option<RequestId>,
    /// The inbound request this message is the response to (the last message of `related`).
    pub answers: Option<RequestId>,
}

/// One inbound message handed over whole by a message transport, with what that transport
/// knows of how it arrived: over Streamable HTTP, the HTTP request's extensions as the layers
/// in front of the endpoint left them (an authentication layer's caller identity, say). The
/// connection hands them to the handler of the request the message carries
/// ([`super::Incoming::extensions`]), so each request is seen with its own.
#[derive(Debug, Clone, Default)]
pub struct Delivered {
    /// One JSON-RPC message, as JSON text.
    pub text: String,
    /// What the transport attached to it (empty when it attaches nothing).
    pub extensions: Extensions,
}

impl From<String> for Delivered {
    fn from(text: String) -> Self {
        Self {
            text,
            extensions: Extensions::new(),
        }
    }
}

/// One inbound item: an I/O error ends the connection, a framing error costs one frame.
pub(super) type InItem = std::io::Result<Result<String, FramingError>>;

/// Where a connection's inbound messages come from.
pub(super) trait Inbox: Send + 'static {
    /// The next item; `None` at the end of input.
    fn next(&mut self) -> impl std::future::Future<Output = Option<InItem>> + Send;
    /// Whether part of a frame has arrived and the rest is still owed (for the read deadline).
    fn mid_frame(&self) -> bool;
    /// What the transport attached to the item `next` returned last (a byte stream attaches
    /// nothing).
    fn extensions(&mut self) -> Extensions {
        Extensions::new()
    }
}

impl<R: AsyncRead + Send + Unpin + 'static> Inbox for FramedRead<R, FrameCodec> {
    async fn next(&mut self) -> Option<InItem> {
        StreamExt::next(self).await
    }

    fn mid_frame(&self) -> bool {
        self.decoder().mid_frame()
    }
}

/// The inbox of a connection driven by whole messages: each message's extensions are kept
/// until the connection asks for them.
pub(super) struct Messages {
    rx: mpsc::Receiver<Delivered>,
    last: Extensions,
}

impl Messages {
    pub(super) fn new(rx: mpsc::Receiver<Delivered>) -> Self {
        Self {
            rx,
            last: Extensions::new(),
        }
    }
}

impl Inbox for Messages {
    async fn next(&mut self) -> Option<InItem> {
        let delivered = self.rx.recv().await?;
        self.last = delivered.extensions;
        Some(Ok(Ok(delivered.text)))
    }

    fn mid_frame(&self) -> bool {
        false
    }

    fn extensions(&mut self) -> Extensions {
        std::mem::take(&mut self.last)
    }
}

pub(super) async fn write_loop<W: AsyncWrite + Unpin>(
    mut sink: FramedWrite<W, FrameCodec>,
    mut rx: mpsc::Receiver<Outgoing>,
    cancel: CancellationToken,
) -> std::io::Result<()> {
    let result = loop {
        let frame = tokio::select! {
            biased;
            frame = rx.recv() => frame,
            _ = cancel.cancelled() => break Ok(()),
        };
        let Some(frame) = frame else { break Ok(()) };
        if let Err(e) = write_batch(&mut sink, &mut rx, frame).await {
            break Err(e);
        }
    };
    cancel.cancel();
    // Frames queued before the shutdown (the answer to `shutdown`, say) still go out.
    rx.close();
    if result.is_ok() {
        while let Some(frame) = rx.recv().await {
            sink.feed(frame.text).await?;
        }
        sink.flush().await?;
    }
    let _ = sink.get_mut().shutdown().await;
    result
}

/// Writes `first` and whatever else is already queued, then flushes once.
async fn write_batch<W: AsyncWrite + Unpin>(
    sink: &mut FramedWrite<W, FrameCodec>,
    rx: &mut mpsc::Receiver<Outgoing>,
    first: Outgoing,
) -> std::io::Result<()> {
    sink.feed(first.text).await?;
    while let Ok(more) = rx.try_recv() {
        sink.feed(more.text).await?;
    }
    sink.flush().await
}
