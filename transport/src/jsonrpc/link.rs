//! What a connection reads from and writes to: a framed byte stream, or whole messages handed
//! over by another transport (Streamable HTTP), behind the same engine.

use agentwire_runtime::framing::FramingError;
use agentwire_runtime::jsonrpc::RequestId;
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

/// One inbound item: an I/O error ends the connection, a framing error costs one frame.
pub(super) type InItem = std::io::Result<Result<String, FramingError>>;

/// Where a connection's inbound messages come from.
pub(super) trait Inbox: Send + 'static {
    /// The next item; `None` at the end of input.
    fn next(&mut self) -> impl std::future::Future<Output = Option<InItem>> + Send;
    /// Whether part of a frame has arrived and the rest is still owed (for the read deadline).
    fn mid_frame(&self) -> bool;
}

impl<R: AsyncRead + Send + Unpin + 'static> Inbox for FramedRead<R, FrameCodec> {
    async fn next(&mut self) -> Option<InItem> {
        StreamExt::next(self).await
    }

    fn mid_frame(&self) -> bool {
        self.decoder().mid_frame()
    }
}

impl Inbox for mpsc::Receiver<String> {
    async fn next(&mut self) -> Option<InItem> {
        self.recv().await.map(|text| Ok(Ok(text)))
    }

    fn mid_frame(&self) -> bool {
        false
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
