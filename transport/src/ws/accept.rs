//! The accept loop of the axum servers (the WebSocket skeletons' and the HTTP + WebSocket
//! agent server's): a deadline on reading each request header, optionally one deadline for a
//! connection's whole life before it becomes a WebSocket, and a budget of its own for
//! connections that are not WebSockets yet, so that peers trickling their headers can neither
//! exhaust file descriptors nor take an upgraded peer's slot.
//!
//! axum's own `serve` has none of these: it reads a header for as long as the peer keeps
//! the socket open, and the servers' connection caps only count upgraded connections. Each
//! request gets its peer's address as axum's `ConnectInfo<SocketAddr>` (see [`crate::budget`]).

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

/// Default deadline for a WebSocket server connection's HTTP upgrade, from accept to the
/// `101` answer.
pub const DEFAULT_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Default cap on connections still in their HTTP upgrade; one more is closed on accept.
pub const DEFAULT_MAX_HANDSHAKES: usize = 256;

/// How long a shutdown lets a connection finish the request it is serving.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// How the accept loop treats connections before they are WebSockets.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Accept {
    /// Deadline for each request header (and for an idle keep-alive connection to start
    /// the next request).
    pub header_timeout: Duration,
    /// Deadline for the connection as a whole, until it is upgraded (WebSocket-only
    /// servers, whose connections have nothing else to do); `None` for HTTP servers.
    pub lifetime: Option<Duration>,
    /// Connections not upgraded yet, at most.
    pub max: usize,
}

/// Accepts until `shutdown`, serving each connection with `app`; then lets every connection
/// finish its request (a few seconds at most) and returns.
pub(crate) async fn accept_loop(
    listener: TcpListener,
    app: Router,
    accept: Accept,
    shutdown: CancellationToken,
) -> std::io::Result<()> {
    let budget = Arc::new(Semaphore::new(accept.max.clamp(1, Semaphore::MAX_PERMITS)));
    let service = TowerToHyperService::new(app);
    let mut live = JoinSet::new();
    loop {
        let (stream, peer) = tokio::select! {
            () = shutdown.cancelled() => break,
            Some(_) = live.join_next(), if !live.is_empty() => continue,
            accepted = listener.accept() => match accepted {
                Ok(pair) => pair,
                // Out of descriptors and the like: back off briefly instead of spinning.
                Err(e) => {
                    crate::warn_throttled!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let Ok(permit) = budget.clone().try_acquire_owned() else {
            crate::warn_throttled!(%peer, "connection dropped: too many connections not upgraded");
            drop(stream);
            continue;
        };
        let _ = stream.set_nodelay(true);
        let service = service.clone();
        let stop = shutdown.clone();
        live.spawn(async move {
            let mut http = hyper::server::conn::http1::Builder::new();
            http.timer(TokioTimer::new())
                .header_read_timeout(accept.header_timeout);
            // Every request carries its peer's address, for per-client budgets.
            let service = hyper::service::service_fn(move |mut req: hyper::Request<_>| {
                req.extensions_mut()
                    .insert(axum::extract::ConnectInfo(peer));
                hyper::service::Service::call(&service, req)
            });
            let conn = http
                .serve_connection(TokioIo::new(stream), service)
                .with_upgrades();
            let mut conn = std::pin::pin!(conn);
            let lifetime = async {
                match accept.lifetime {
                    Some(t) => tokio::time::sleep(t).await,
                    None => std::future::pending().await,
                }
            };
            // The connection future ends once an upgrade is handed over (or the peer goes),
            // so the deadlines never reach a WebSocket.
            tokio::select! {
                _ = conn.as_mut() => {}
                () = lifetime => tracing::debug!(%peer, "connection dropped: not upgraded in time"),
                () = stop.cancelled() => {
                    conn.as_mut().graceful_shutdown();
                    let _ = tokio::time::timeout(SHUTDOWN_GRACE, conn).await;
                }
            }
            drop(permit);
        });
    }
    while live.join_next().await.is_some() {}
    Ok(())
}
