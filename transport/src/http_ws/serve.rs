//! Running an axum router on a listener with a shutdown handle.

use std::net::SocketAddr;

use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// A running server: its address, and the way to stop it.
#[derive(Debug)]
pub struct ServerHandle {
    addr: SocketAddr,
    shutdown: CancellationToken,
    task: JoinHandle<std::io::Result<()>>,
}

impl ServerHandle {
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// A token that, once cancelled, stops the server (shared with its connections).
    pub fn shutdown_token(&self) -> CancellationToken {
        self.shutdown.clone()
    }

    /// Stops accepting, lets open connections close, and waits for the server to end.
    pub async fn shutdown(self) -> std::io::Result<()> {
        self.shutdown.cancel();
        self.wait().await
    }

    /// Waits until the server ends (after a shutdown, or a listener error).
    pub async fn wait(self) -> std::io::Result<()> {
        match self.task.await {
            Ok(r) => r,
            Err(e) => Err(std::io::Error::other(e)),
        }
    }
}

/// Serves `router` on `listener` until `shutdown` is cancelled, with the default guard.
pub fn serve_router(
    listener: TcpListener,
    router: axum::Router,
    shutdown: CancellationToken,
) -> std::io::Result<ServerHandle> {
    serve_router_guarded(listener, router, shutdown, &super::Guard::default())
}

/// The same with `guard`'s header timeout, cap on connections not upgraded and origin
/// policy (a refused request gets 403 and the rule as text).
pub fn serve_router_guarded(
    listener: TcpListener,
    router: axum::Router,
    shutdown: CancellationToken,
    guard: &super::Guard,
) -> std::io::Result<ServerHandle> {
    let sites = guard.sites(Some(listener.local_addr()?));
    let router = sites.layer(router, crate::origin::plain_refusal());
    serve_router_checked(listener, router, shutdown, guard)
}

/// [`serve_router_guarded`] for a router that checks the origin policy itself, answering
/// in its protocol's error format.
pub(crate) fn serve_router_checked(
    listener: TcpListener,
    router: axum::Router,
    shutdown: CancellationToken,
    guard: &super::Guard,
) -> std::io::Result<ServerHandle> {
    let addr = listener.local_addr()?;
    let accept = crate::ws::accept::Accept {
        header_timeout: guard.header_timeout,
        lifetime: None,
        max: guard.max_http_connections,
    };
    let task = tokio::spawn(crate::ws::accept::accept_loop(
        listener,
        router,
        accept,
        shutdown.clone(),
    ));
    Ok(ServerHandle {
        addr,
        shutdown,
        task,
    })
}
