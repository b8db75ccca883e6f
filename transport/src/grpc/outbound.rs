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

#[cfg(test)]
mod tests {
    use futures_util::StreamExt;

    use super::*;

    #[tokio::test]
    async fn ends_after_an_error_status_and_drains_on_close() {
        let (tx, rx) = mpsc::channel(8);
        tx.send(Ok(1)).await.unwrap();
        tx.send(Err(Status::invalid_argument("bad"))).await.unwrap();
        tx.send(Ok(2)).await.unwrap();
        let items: Vec<_> = outbound_stream(rx, CancellationToken::new())
            .collect()
            .await;
        assert_eq!(items.len(), 2);
        assert!(items[1].is_err());

        let (tx, rx) = mpsc::channel(8);
        let close = CancellationToken::new();
        tx.send(Ok(7)).await.unwrap();
        close.cancel();
        // `tx` is still alive: the stream ends because of the token, after what was queued.
        let items: Vec<_> = outbound_stream(rx, close).collect().await;
        assert_eq!(items.len(), 1);
        drop(tx);
    }
}
