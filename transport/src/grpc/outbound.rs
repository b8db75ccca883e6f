//! The outbound half of a stream as tonic wants it: queued messages in order, ending at the
//! first error status or when the stream's close token fires (shutdown), even while handles
//! that could still write to it are alive.

use std::pin::Pin;

use futures_util::Stream;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tonic::Status;

/// A boxed, sendable stream of messages or a final status.
pub type BoxStream<M> = Pin<Box<dyn Stream<Item = Result<M, Status>> + Send + 'static>>;

struct State<M> {
    rx: mpsc::Receiver<Result<M, Status>>,
    close: CancellationToken,
    done: bool,
}

/// Drains `rx` until an `Err` (sent last), the channel's end, or `close`; on `close`, what
/// was queued before it is still delivered, so a farewell message is not lost.
pub fn outbound_stream<M: Send + 'static>(
    rx: mpsc::Receiver<Result<M, Status>>,
    close: CancellationToken,
) -> BoxStream<M> {
    let state = State {
        rx,
        close,
        done: false,
    };
    Box::pin(futures_util::stream::unfold(state, |mut st| async move {
        if st.done {
            return None;
        }
        let item = tokio::select! {
            biased;
            item = st.rx.recv() => item,
            () = st.close.cancelled() => st.rx.try_recv().ok(),
        };
        let item = item?;
        st.done = item.is_err();
        Some((item, st))
    }))
}
