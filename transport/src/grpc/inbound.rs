//! Reading the next inbound message of a stream under a time limit, a close token and an
//! optional shutdown token.

use std::time::Duration;

use tokio_util::sync::CancellationToken;
use tonic::{Status, Streaming};

/// What reading the next inbound message gave.
pub(crate) enum Next<M> {
    Message(M),
    /// The peer closed its half of the stream.
    End,
    /// The stream has to end with this status.
    Fail(Status),
    /// Nothing arrived within the time limit.
    Idle(Duration),
    /// The endpoint is shutting down.
    Stopping,
    /// This stream was closed from our side.
    Closed,
}

/// The next inbound message, waiting at most `limit`, unless the stream is closed or
/// (while `stop` is given) the endpoint stops.
pub(crate) async fn next_inbound<M>(
    inbound: &mut Streaming<M>,
    close: &CancellationToken,
    stop: Option<&CancellationToken>,
    limit: Option<Duration>,
) -> Next<M> {
    let stopping = async {
        match stop {
            Some(t) => t.cancelled().await,
            None => std::future::pending().await,
        }
    };
    let read = async {
        match limit {
            Some(limit) => tokio::time::timeout(limit, inbound.message()).await.ok(),
            None => Some(inbound.message().await),
        }
    };
    tokio::select! {
        biased;
        () = close.cancelled() => Next::Closed,
        () = stopping => Next::Stopping,
        r = read => match r {
            Some(Ok(Some(m))) => Next::Message(m),
            Some(Ok(None)) => Next::End,
            Some(Err(status)) => Next::Fail(status),
            None => Next::Idle(limit.unwrap_or_default()),
        },
    }
}

/// `UNAVAILABLE`: the peer was quiet for too long.
pub(crate) fn idle_status(limit: Duration) -> Status {
    Status::unavailable(format!("no message for {} ms", limit.as_millis()))
}
