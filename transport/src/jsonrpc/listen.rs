//! A TCP accept loop for JSON-RPC servers: one [`Peer`] per connection, a cap on live
//! connections and a per-client share of it, and a shutdown that stops accepting and closes
//! every connection.

use std::net::SocketAddr;
use std::sync::Arc;

use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio::task::{JoinHandle, JoinSet};
use tokio_util::sync::CancellationToken;

use super::Config;
use super::peer::{Dispatch, Peer, Side};
use crate::budget::{Budget, ClientKey};

/// A running TCP server. Dropping the handle leaves the server running; call `shutdown`.
#[derive(Debug)]
pub struct TcpServer {
    addr: SocketAddr,
    cancel: CancellationToken,
    slots: Arc<Semaphore>,
    max_connections: usize,
    task: JoinHandle<()>,
}

impl TcpServer {
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Connections open now. A connection counts until its task has ended, so every
    /// buffer it held (a half-read frame included) is freed once it no longer counts.
    pub fn live_connections(&self) -> usize {
        self.max_connections - self.slots.available_permits()
    }

    /// A token that shuts the server down when cancelled.
    pub fn shutdown_token(&self) -> CancellationToken {
        self.cancel.clone()
    }

    /// Stops accepting, closes every connection and waits until all are gone.
    pub async fn shutdown(self) {
        self.cancel.cancel();
        let _ = self.task.await;
    }
}

/// Serves every connection `listener` accepts, at most `max_connections` at once (one more
/// is accepted and closed at once, so its client sees an end of stream rather than a hang).
/// `make` builds the checker and behaviour of each new connection.
pub fn serve_tcp<S, D, F>(
    listener: TcpListener,
    config: Config,
    max_connections: usize,
    make: F,
) -> std::io::Result<TcpServer>
where
    S: Side,
    D: Dispatch<S>,
    F: Fn() -> (S::Checker, D) + Send + 'static,
{
    let addr = listener.local_addr()?;
    let cancel = CancellationToken::new();
    let max_connections = max_connections.clamp(1, Semaphore::MAX_PERMITS);
    let slots = Arc::new(Semaphore::new(max_connections));
    let task = tokio::spawn(accept_loop(
        listener,
        config,
        (slots.clone(), max_connections),
        make,
        cancel.clone(),
    ));
    Ok(TcpServer {
        addr,
        cancel,
        slots,
        max_connections,
        task,
    })
}

async fn accept_loop<S, D, F>(
    listener: TcpListener,
    config: Config,
    (slots, max_connections): (Arc<Semaphore>, usize),
    make: F,
    cancel: CancellationToken,
) where
    S: Side,
    D: Dispatch<S>,
    F: Fn() -> (S::Checker, D) + Send + 'static,
{
    let mut live = JoinSet::new();
    let shares = Budget::new(usize::MAX, config.max_connections_per_client);
    loop {
        let accepted = tokio::select! {
            _ = cancel.cancelled() => break,
            Some(_) = live.join_next(), if !live.is_empty() => continue,
            a = listener.accept() => a,
        };
        let (stream, remote) = match accepted {
            Ok(a) => a,
            Err(e) => {
                // Per-connection accept errors (a reset before accept, fd exhaustion) must
                // not end the server.
                crate::warn_throttled!(error = %e, "accept failed");
                continue;
            }
        };
        let Ok(share) = shares.try_take(Some(ClientKey::of(remote.ip()))) else {
            crate::warn_throttled!(%remote, "client's connection share reached, closing");
            drop(stream);
            continue;
        };
        let Ok(slot) = Arc::clone(&slots).try_acquire_owned() else {
            crate::warn_throttled!(%remote, max_connections, "connection limit reached, closing");
            drop(stream);
            continue;
        };
        let _ = stream.set_nodelay(true);
        let (reader, writer) = stream.into_split();
        // A web page's POST to this port must not reach the framing (see `sniff`).
        let reader = super::sniff::RefuseHttp::new(reader);
        let (checker, dispatch) = make();
        let (_peer, connection): (Peer<S>, _) = Peer::spawn_under(
            cancel.child_token(),
            reader,
            writer,
            checker,
            config.clone(),
            dispatch,
        );
        live.spawn(async move {
            if let Err(e) = connection.join().await {
                tracing::debug!(%remote, error = %e, "connection ended with an error");
            }
            drop((slot, share));
        });
    }
    // The child tokens are cancelled with `cancel`; wait for every connection to close.
    while live.join_next().await.is_some() {}
}
