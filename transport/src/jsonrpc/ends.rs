//! The entry points of a generated JSON-RPC skeleton, once for every protocol: the answering
//! side's `serve*` ([`Server`]) and the connecting side's `connect*`/`spawn*` (on
//! [`Handle`]), with the two dispatchers that route a connection's traffic to a handler.
//!
//! A skeleton binds its handler traits through [`Answers`] (a request to the handler method
//! for it) and [`Hears`] (a notification likewise); the connecting side's notifications go
//! to a [`Notifications`] stream instead.

use std::future::Future;
use std::marker::PhantomData;
use std::sync::Arc;

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream, ToSocketAddrs};
use tokio::process::{Child, Command};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::handle::{Bound, Handle, Notifications};
use super::listen::{TcpServer, serve_tcp};
use super::peer::{Answer, Connection, Dispatch, Incoming, MessageLink, Peer};
use super::{Config, spawn_child};

/// A side that answers its peer's requests with handler `H`: the generated match from each
/// request to the handler's method for it.
pub trait Answers<H>: Bound {
    /// Answers one request. Runs in its own task, aborted when the peer cancels it.
    fn answer(
        handler: Arc<H>,
        handle: Handle<Self>,
        request: Self::InRequest,
    ) -> impl Future<Output = Answer> + Send + 'static;
}

/// A side whose handler `H` takes its peer's notifications (the answering side; the
/// connecting side's go to its [`Notifications`] stream).
pub trait Hears<H>: Bound {
    /// Takes one notification; notifications run one at a time, in arrival order.
    fn hear(
        handler: Arc<H>,
        handle: Handle<Self>,
        notification: Self::InNotification,
    ) -> impl Future<Output = ()> + Send + 'static;
}

/// The handler of a connecting side that answers every request "method not found" (the
/// default of every method of a generated client handler trait).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoRequests;

/// The answering side's dispatch: requests and notifications to the handler.
pub(super) struct Serving<H>(pub(super) Arc<H>);

impl<S: Answers<H> + Hears<H>, H: Send + Sync + 'static> Dispatch<S> for Serving<H> {
    fn request(
        &self,
        call: Incoming<S>,
        request: S::InRequest,
    ) -> impl Future<Output = Answer> + Send + 'static {
        S::answer(Arc::clone(&self.0), Handle::for_call(call), request)
    }

    fn notification(
        &self,
        peer: Peer<S>,
        notification: S::InNotification,
    ) -> impl Future<Output = ()> + Send + 'static {
        S::hear(Arc::clone(&self.0), Handle::new(peer), notification)
    }
}

/// The connecting side's dispatch: requests to the handler, notifications into the stream.
pub(super) struct Connecting<H, N> {
    pub(super) handler: Arc<H>,
    pub(super) tx: mpsc::Sender<N>,
}

impl<S: Answers<H>, H: Send + Sync + 'static> Dispatch<S> for Connecting<H, S::InNotification> {
    fn request(
        &self,
        call: Incoming<S>,
        request: S::InRequest,
    ) -> impl Future<Output = Answer> + Send + 'static {
        S::answer(Arc::clone(&self.handler), Handle::for_call(call), request)
    }

    fn notification(
        &self,
        _peer: Peer<S>,
        notification: S::InNotification,
    ) -> impl Future<Output = ()> + Send + 'static {
        let tx = self.tx.clone();
        async move {
            // A dropped stream means nobody listens: the notification is discarded.
            let _ = tx.send(notification).await;
        }
    }
}

/// The entry points of the answering side `S` (a generated skeleton names it
/// `pub type Server = Server<ServerSide>`).
pub struct Server<S>(PhantomData<fn() -> S>);

impl<S: Bound> Server<S> {
    /// Serves one connection over `reader`/`writer` (pipes, a TCP stream, an in-memory
    /// duplex). The returned `Connection` ends when the peer hangs up or the sender closes.
    pub fn serve<H, R, W>(
        handler: Arc<H>,
        reader: R,
        writer: W,
        config: Config,
    ) -> (Handle<S>, Connection)
    where
        S: Answers<H> + Hears<H>,
        H: Send + Sync + 'static,
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        let checker = S::checker(config.checker_limits);
        let (peer, connection) = Peer::spawn(reader, writer, checker, config, Serving(handler));
        (Handle::new(peer), connection)
    }

    /// Serves one connection whose messages arrive and leave whole (an HTTP transport):
    /// push each inbound JSON text into the link's `incoming`, take each outbound message
    /// (tagged with the request it belongs to) from its `outgoing`.
    pub fn serve_messages<H>(
        handler: Arc<H>,
        cancel: CancellationToken,
        config: Config,
    ) -> (Handle<S>, MessageLink, Connection)
    where
        S: Answers<H> + Hears<H>,
        H: Send + Sync + 'static,
    {
        let checker = S::checker(config.checker_limits);
        let (peer, link, connection) =
            Peer::spawn_messages(cancel, checker, config, Serving(handler));
        (Handle::new(peer), link, connection)
    }

    /// Serves one connection on this process's stdin and stdout, until stdin ends, a read
    /// deadline passes or the handler closes the connection; no read or write of stdio
    /// left blocked keeps the process alive afterwards.
    pub async fn serve_stdio<H>(handler: H, config: Config) -> std::io::Result<()>
    where
        S: Answers<H> + Hears<H>,
        H: Send + Sync + 'static,
    {
        let (_handle, connection) = Self::serve(
            Arc::new(handler),
            crate::stdio::stdin(),
            crate::stdio::stdout(),
            config,
        );
        connection.join().await
    }

    /// Serves every connection `listener` accepts, each with its own checker, sharing one
    /// handler; at most `max_connections` at once.
    pub fn serve_tcp<H>(
        handler: Arc<H>,
        listener: TcpListener,
        config: Config,
        max_connections: usize,
    ) -> std::io::Result<TcpServer>
    where
        S: Answers<H> + Hears<H>,
        H: Send + Sync + 'static,
    {
        let limits = config.checker_limits;
        serve_tcp::<S, _, _>(listener, config, max_connections, move || {
            (S::checker(limits), Serving(Arc::clone(&handler)))
        })
    }
}

/// What a connection made by `connect*` returns: the handle, the other side's
/// notifications and the connection.
pub type Connected<S> = (
    Handle<S>,
    Notifications<<S as super::Side>::InNotification>,
    Connection,
);

/// What `spawn*` returns: [`Connected`] and the child process (killed on drop).
pub type Spawned<S> = (
    Handle<S>,
    Notifications<<S as super::Side>::InNotification>,
    Connection,
    Child,
);

impl<S: Bound> Handle<S> {
    /// Runs the connecting side over `reader`/`writer` (a child's pipes, a TCP stream, an
    /// in-memory duplex), answering the other side's requests "method not found".
    pub fn connect<R, W>(reader: R, writer: W, config: Config) -> Connected<S>
    where
        S: Answers<NoRequests>,
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        Self::connect_with(Arc::new(NoRequests), reader, writer, config)
    }

    /// Runs the connecting side over `reader`/`writer`, answering the other side's requests
    /// with `handler`.
    pub fn connect_with<H, R, W>(
        handler: Arc<H>,
        reader: R,
        writer: W,
        config: Config,
    ) -> Connected<S>
    where
        S: Answers<H>,
        H: Send + Sync + 'static,
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        let (tx, rx) = mpsc::channel(config.queue.max(1));
        let checker = S::checker(config.checker_limits);
        let dispatch = Connecting { handler, tx };
        let (peer, connection) = Peer::spawn(reader, writer, checker, config, dispatch);
        (Handle::new(peer), Notifications::new(rx), connection)
    }

    /// Runs the connecting side over whole messages (an HTTP transport): push each inbound
    /// JSON text into the link's `incoming`, take each outbound one from `outgoing`.
    pub fn connect_messages<H>(
        handler: Arc<H>,
        cancel: CancellationToken,
        config: Config,
    ) -> (
        Handle<S>,
        Notifications<S::InNotification>,
        MessageLink,
        Connection,
    )
    where
        S: Answers<H>,
        H: Send + Sync + 'static,
    {
        let (tx, rx) = mpsc::channel(config.queue.max(1));
        let checker = S::checker(config.checker_limits);
        let dispatch = Connecting { handler, tx };
        let (peer, link, connection) = Peer::spawn_messages(cancel, checker, config, dispatch);
        (Handle::new(peer), Notifications::new(rx), link, connection)
    }

    /// Connects to a peer listening on TCP.
    pub async fn connect_tcp(
        addr: impl ToSocketAddrs,
        config: Config,
    ) -> std::io::Result<Connected<S>>
    where
        S: Answers<NoRequests>,
    {
        let stream = TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        let (reader, writer) = stream.into_split();
        Ok(Self::connect(reader, writer, config))
    }

    /// Starts `command` as the answering side speaking on its stdin and stdout, and
    /// connects to it (answering its requests with `handler`). The child is killed when the
    /// returned handle is dropped.
    pub fn spawn_with<H>(
        handler: Arc<H>,
        command: Command,
        config: Config,
    ) -> std::io::Result<Spawned<S>>
    where
        S: Answers<H>,
        H: Send + Sync + 'static,
    {
        let (child, stdout, stdin) = spawn_child(command)?;
        let (handle, stream, connection) = Self::connect_with(handler, stdout, stdin, config);
        Ok((handle, stream, connection, child))
    }

    /// [`Self::spawn_with`] answering the other side's requests "method not found".
    pub fn spawn(command: Command, config: Config) -> std::io::Result<Spawned<S>>
    where
        S: Answers<NoRequests>,
    {
        Self::spawn_with(Arc::new(NoRequests), command, config)
    }
}
