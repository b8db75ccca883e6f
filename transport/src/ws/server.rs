//! The axum WebSocket server: one task per connection, every inbound text frame decoded,
//! validated and checked before the handler sees it, with a connection cap, the origin
//! policy on every upgrade, and a shutdown handle.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::Router;
use axum::extract::State;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;
use tokio::net::TcpListener;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::accept::{Accept, DEFAULT_HANDSHAKE_TIMEOUT, DEFAULT_MAX_HANDSHAKES, accept_loop};
use super::close::{self, CloseReason};
use super::link::{Outgoing, write_loop};
use super::{
    DEFAULT_MAX_FRAME_BYTES, DEFAULT_MAX_IN_FLIGHT, DEFAULT_MAX_SESSIONS, DEFAULT_OUTBOUND_QUEUE,
    Link, Refused, Side,
};
use crate::budget::{Budget, ClientKey, Lease};
use crate::check::CheckMode;
use crate::origin::{Hosts, Origins, SitePolicy, plain_refusal};

/// Default share of one client in a server's connections: a quarter of the default cap.
pub const DEFAULT_MAX_CONNECTIONS_PER_CLIENT: usize = 256;

/// How long a closing connection may take to flush its close frame.
const CLOSE_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

/// Default idle timeout: a connection that sends nothing, not even a pong to the pings the
/// server sends when it is quiet, is closed after this long.
pub const DEFAULT_IDLE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(300);

/// Limits and checking of a server.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// What the checker does with out-of-sequence messages, both directions.
    pub mode: CheckMode,
    /// Largest inbound message; a bigger one ends its connection (the WebSocket layer cannot
    /// skip it without reading it).
    pub max_frame_bytes: usize,
    /// Live connections at most; one more gets HTTP 503 before the upgrade.
    pub max_connections: usize,
    /// Live connections of one client (peer address, IPv6 by /64: [`crate::budget`]) at
    /// most; one more gets HTTP 429 before the upgrade, so one client cannot take every
    /// connection. Behind a proxy, raise it to `max_connections`.
    pub max_connections_per_client: usize,
    /// Live sequence instances (sessions, turns) per connection, per machine; one more is
    /// refused as a violation.
    pub max_sessions: usize,
    /// Handler calls running at once per connection.
    pub max_in_flight: usize,
    /// Depth of each connection's outbound queue.
    pub outbound_queue: usize,
    /// Deadline for a connection's HTTP upgrade, from accept to the `101` answer (a peer
    /// trickling its header is dropped when it passes).
    pub handshake_timeout: std::time::Duration,
    /// Connections in their HTTP upgrade at most, counted apart from `max_connections` so
    /// they cannot take an upgraded peer's slot; one more is closed on accept.
    pub max_handshakes: usize,
    /// A connection that sends nothing for this long is closed (code 1000, "idle timeout").
    /// The server pings a quiet peer every third of it, so a live peer, whose WebSocket
    /// stack answers pings, is never cut. `None`: no idle timeout.
    pub idle_timeout: Option<std::time::Duration>,
    /// Accepted `Origin` headers (the pages a browser may open a WebSocket from); another,
    /// and `null`, gets 403 before the upgrade. Default: loopback pages on a server bound to
    /// loopback, none otherwise ([`crate::origin`]).
    pub origins: Origins,
    /// Accepted `Host` headers; another gets 403. Default: loopback names on a server bound
    /// to loopback, any otherwise.
    pub hosts: Hosts,
}

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            mode: CheckMode::Enforce,
            max_frame_bytes: DEFAULT_MAX_FRAME_BYTES,
            max_connections: 1024,
            max_connections_per_client: DEFAULT_MAX_CONNECTIONS_PER_CLIENT,
            max_sessions: DEFAULT_MAX_SESSIONS,
            max_in_flight: DEFAULT_MAX_IN_FLIGHT,
            outbound_queue: DEFAULT_OUTBOUND_QUEUE,
            handshake_timeout: DEFAULT_HANDSHAKE_TIMEOUT,
            max_handshakes: DEFAULT_MAX_HANDSHAKES,
            idle_timeout: Some(DEFAULT_IDLE_TIMEOUT),
            origins: Origins::ByAddress,
            hosts: Hosts::ByAddress,
        }
    }
}

/// What a server does with the messages it admits. Generated skeletons implement it over a
/// typed handler trait; each call runs in its own task, so a long reply never blocks the
/// next inbound message of the same connection.
pub trait Handler<S: Side>: Send + Sync + 'static {
    /// One admitted inbound message; `link` answers on the same connection.
    fn message(&self, link: Link<S>, msg: S::Inbound) -> impl Future<Output = ()> + Send;
    /// The connection ended (peer closed, error or shutdown).
    fn closed(&self, _connection: u64) -> impl Future<Output = ()> + Send {
        async {}
    }
}

struct Shared<H> {
    handler: Arc<H>,
    config: ServerConfig,
    permits: Arc<Semaphore>,
    /// Each client's share of the connections.
    shares: Budget,
    shutdown: CancellationToken,
    next_id: AtomicU64,
}

/// A running server. Dropping it leaves the server running; call [`Server::shutdown`].
#[derive(Debug)]
pub struct Server {
    addr: SocketAddr,
    shutdown: CancellationToken,
    permits: Arc<Semaphore>,
    max_connections: usize,
    task: JoinHandle<std::io::Result<()>>,
}

impl Server {
    /// The bound address (useful after binding port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// `ws://addr/`.
    pub fn url(&self) -> String {
        format!("ws://{}/", self.addr)
    }

    /// Live connections right now.
    pub fn live_connections(&self) -> usize {
        self.max_connections - self.permits.available_permits()
    }

    /// A token that, once cancelled, shuts the server down (for signal handlers).
    pub fn shutdown_token(&self) -> CancellationToken {
        self.shutdown.clone()
    }

    /// Stops accepting, sends every connection a close frame and waits until all have ended.
    pub async fn shutdown(self) -> std::io::Result<()> {
        self.shutdown.cancel();
        let served = self
            .task
            .await
            .map_err(|e| std::io::Error::other(format!("server task failed: {e}")))?;
        // Every connection holds a permit until its task ends.
        let all = u32::try_from(self.max_connections).unwrap_or(u32::MAX);
        let _ = self.permits.acquire_many(all).await;
        served
    }
}

/// Serves `S` on `listener` (any path) until [`Server::shutdown`].
pub async fn serve<S: Side, H: Handler<S>>(
    listener: TcpListener,
    handler: H,
    config: ServerConfig,
) -> std::io::Result<Server> {
    let addr = listener.local_addr()?;
    let shutdown = CancellationToken::new();
    let max_connections = config.max_connections.clamp(1, Semaphore::MAX_PERMITS);
    let permits = Arc::new(Semaphore::new(max_connections));
    let handshakes = Accept {
        header_timeout: config.handshake_timeout,
        lifetime: Some(config.handshake_timeout),
        max: config.max_handshakes,
    };
    let sites = SitePolicy::new(config.origins.clone(), config.hosts.clone(), Some(addr));
    let shares = Budget::new(usize::MAX, config.max_connections_per_client);
    let shared = Arc::new(Shared {
        handler: Arc::new(handler),
        config,
        permits: permits.clone(),
        shares,
        shutdown: shutdown.clone(),
        next_id: AtomicU64::new(1),
    });
    let app = Router::new().fallback(upgrade::<S, H>).with_state(shared);
    let app = sites.layer(app, plain_refusal());
    let stop = shutdown.clone();
    let task = tokio::spawn(accept_loop(listener, app, handshakes, stop));
    Ok(Server {
        addr,
        shutdown,
        permits,
        max_connections,
        task,
    })
}

async fn upgrade<S: Side, H: Handler<S>>(
    State(shared): State<Arc<Shared<H>>>,
    extensions: axum::http::Extensions,
    ws: WebSocketUpgrade,
) -> Response {
    if shared.shutdown.is_cancelled() {
        return (StatusCode::SERVICE_UNAVAILABLE, "shutting down").into_response();
    }
    let Ok(share) = shared.shares.try_take(ClientKey::of_request(&extensions)) else {
        let why = "too many connections from this client";
        return (StatusCode::TOO_MANY_REQUESTS, why).into_response();
    };
    let Ok(permit) = shared.permits.clone().try_acquire_owned() else {
        crate::warn_throttled!(
            role = S::ROLE,
            "connection refused: connection limit reached"
        );
        return (StatusCode::SERVICE_UNAVAILABLE, "too many connections").into_response();
    };
    let max = shared.config.max_frame_bytes;
    ws.max_message_size(max)
        .max_frame_size(max)
        .on_upgrade(move |socket| connection::<S, H>(socket, shared, (permit, share)))
}

async fn connection<S: Side, H: Handler<S>>(
    socket: WebSocket,
    shared: Arc<Shared<H>>,
    _held: (OwnedSemaphorePermit, Lease),
) {
    let id = shared.next_id.fetch_add(1, Ordering::Relaxed);
    let (sink, mut stream) = socket.split();
    let (tx, rx) = mpsc::channel(shared.config.outbound_queue.max(1));
    let link = Link::<S>::new(id, shared.config.mode, shared.config.max_sessions, tx);
    let in_flight = Arc::new(Semaphore::new(
        shared.config.max_in_flight.clamp(1, Semaphore::MAX_PERMITS),
    ));
    let writer = tokio::spawn(write_loop(sink, rx, frame));
    tracing::debug!(role = S::ROLE, connection = id, "connection open");
    let mut idle = Idle::new(shared.config.idle_timeout);
    let mut close_reason = None;
    loop {
        let frame = tokio::select! {
            _ = shared.shutdown.cancelled() => break,
            frame = stream.next() => frame,
            () = idle.tick() => {
                if idle.expired() {
                    close_reason = Some(close::IDLE);
                    break;
                }
                link.ping();
                continue;
            }
        };
        idle.seen();
        let text = match frame {
            Some(Ok(Message::Text(text))) => text,
            Some(Ok(Message::Binary(bytes))) => {
                link.refuse(Refused::Binary(bytes.len())).await;
                continue;
            }
            // Pings are answered by the WebSocket layer.
            Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
            Some(Ok(Message::Close(_))) | None => break,
            Some(Err(e)) => {
                crate::warn_throttled!(role = S::ROLE, connection = id, error = %e, "connection failed");
                close_reason = close::for_axum_error(&e);
                break;
            }
        };
        // Admitting a frame can wait (for the checker while a send is blocked on a peer
        // that stopped reading, for a free handler slot); shutdown must not.
        tokio::select! {
            _ = shared.shutdown.cancelled() => break,
            () = admit(&shared, &link, &in_flight, text.as_str()) => {}
        }
    }
    // A peer that stopped reading could keep the close frame queued forever; give it a
    // moment, then drop the socket.
    let abort = writer.abort_handle();
    let closing = async move {
        link.close_with(close_reason).await;
        drop(link);
        let _ = writer.await;
    };
    if tokio::time::timeout(CLOSE_GRACE, closing).await.is_err() {
        abort.abort();
    }
    shared.handler.closed(id).await;
    tracing::debug!(role = S::ROLE, connection = id, "connection closed");
}

/// Decodes, validates and checks one text frame, then hands it to the handler in a task of
/// its own, or refuses it.
async fn admit<S: Side, H: Handler<S>>(
    shared: &Shared<H>,
    link: &Link<S>,
    in_flight: &Arc<Semaphore>,
    text: &str,
) {
    let msg = match S::decode(text) {
        Ok(msg) => msg,
        Err(invalid) => return link.refuse(Refused::Invalid(invalid)).await,
    };
    if let Err(v) = link.admit_inbound(&msg).await {
        return link.refuse(Refused::Violation(v)).await;
    }
    let Ok(permit) = in_flight.clone().acquire_owned().await else {
        return;
    };
    let handler = shared.handler.clone();
    let link = link.clone();
    tokio::spawn(async move {
        handler.message(link, msg).await;
        drop(permit);
    });
}

/// The WebSocket message for a queued frame.
fn frame(item: Outgoing) -> Message {
    match item {
        Outgoing::Text(t) => Message::Text(t.into()),
        Outgoing::Ping => Message::Ping(Default::default()),
        Outgoing::Close(reason) => {
            Message::Close(reason.map(|(code, reason): CloseReason| CloseFrame {
                code,
                reason: reason.into(),
            }))
        }
    }
}

/// The idle timeout of one connection: a ticker at a third of the timeout, and whether a
/// frame arrived since the last tick. Marking a frame is one store, so traffic pays nothing.
struct Idle {
    ticker: Option<tokio::time::Interval>,
    seen: bool,
    quiet_ticks: u8,
}

impl Idle {
    fn new(timeout: Option<std::time::Duration>) -> Self {
        let ticker = timeout.map(|t| {
            let period = (t / 3).max(std::time::Duration::from_millis(1));
            let mut ticker = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
            ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            ticker
        });
        Self {
            ticker,
            seen: false,
            quiet_ticks: 0,
        }
    }

    fn seen(&mut self) {
        self.seen = true;
    }

    /// Waits for the next tick (forever without a timeout) and counts it.
    async fn tick(&mut self) {
        match &mut self.ticker {
            Some(ticker) => {
                ticker.tick().await;
            }
            None => std::future::pending().await,
        }
        if std::mem::take(&mut self.seen) {
            self.quiet_ticks = 0;
        } else {
            self.quiet_ticks = self.quiet_ticks.saturating_add(1);
        }
    }

    /// Three quiet ticks in a row: the whole timeout passed without a frame.
    fn expired(&self) -> bool {
        self.quiet_ticks >= 3
    }
}
