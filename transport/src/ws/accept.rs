//! The WebSocket server's accept loop: every connection gets one deadline for its whole
//! HTTP upgrade (a peer trickling its request header a byte at a time is dropped when it
//! passes), and connections still in their handshake draw from a budget of their own, so
//! they can neither exhaust file descriptors nor take an upgraded peer's slot.
//!
//! axum's own `serve` has neither: it reads headers for as long as the peer keeps the socket
//! open, and the server's connection cap only counts upgraded connections.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

/// Default deadline for a connection's HTTP upgrade, from accept to the `101` answer.
pub const DEFAULT_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Default cap on connections still in their HTTP upgrade; one more is closed on accept.
pub const DEFAULT_MAX_HANDSHAKES: usize = 256;

/// How the accept loop treats connections before they are WebSockets.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Handshakes {
    pub timeout: Duration,
    pub max: usize,
}

/// Accepts until `shutdown`, serving each connection's upgrade request with `app`.
pub(crate) async fn accept_loop(
    listener: TcpListener,
    app: Router,
    handshakes: Handshakes,
    shutdown: CancellationToken,
) -> std::io::Result<()> {
    let budget = Arc::new(Semaphore::new(
        handshakes.max.clamp(1, Semaphore::MAX_PERMITS),
    ));
    let service = TowerToHyperService::new(app);
    loop {
        let (stream, peer) = tokio::select! {
            () = shutdown.cancelled() => return Ok(()),
            accepted = listener.accept() => match accepted {
                Ok(pair) => pair,
                // Out of descriptors and the like: back off briefly instead of spinning.
                Err(e) => {
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let Ok(permit) = budget.clone().try_acquire_owned() else {
            tracing::warn!(%peer, "connection dropped: too many handshakes in progress");
            drop(stream);
            continue;
        };
        let _ = stream.set_nodelay(true);
        let service = service.clone();
        let stop = shutdown.clone();
        tokio::spawn(async move {
            let conn = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .with_upgrades();
            // The connection future ends once the upgrade is handed over (or the peer goes):
            // the deadline covers the handshake only, never the WebSocket after it.
            tokio::select! {
                () = stop.cancelled() => {}
                done = tokio::time::timeout(handshakes.timeout, conn) => {
                    if done.is_err() {
                        tracing::debug!(%peer, "connection dropped: handshake timed out");
                    }
                }
            }
            drop(permit);
        });
    }
}
