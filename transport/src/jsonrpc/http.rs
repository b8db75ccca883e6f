//! JSON-RPC over Streamable HTTP: the generic server and client ends joined to
//! [`crate::streamable_http`], so that a generated skeleton's `Server` and client serve and
//! connect over HTTP with the profile its spec declares (`STREAMABLE_HTTP`), and no glue is
//! left to write. One engine per HTTP session on the server; one engine per client.

use std::sync::Arc;
use std::time::Duration;

use agentwire_runtime::jsonrpc::{MethodSet, RequestSet};

use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::ends::{Answers, Hears, Server};
use super::handle::{Bound, Handle, Notifications};
use super::link::Outgoing as EngineOutgoing;
use super::versions::{Pick, ServeVersions, pick};
use super::{Config, Connection};
use crate::http_ws::ServerHandle;
use crate::streamable_http::{
    self, ClientConfig, ClientError, Era, Outgoing, Profile, SessionPipe,
};

impl<S: Bound> Server<S> {
    /// Serves `handler` over Streamable HTTP on `listener` (bind it to loopback unless it
    /// must be reachable), with `http`'s profile and limits, until the handle's shutdown.
    /// Each session gets its own engine, configured by `config`.
    pub fn serve_http<H>(
        listener: TcpListener,
        handler: Arc<H>,
        http: streamable_http::ServerConfig,
        config: Config,
    ) -> std::io::Result<ServerHandle>
    where
        S: Answers<H> + Hears<H>,
        H: Send + Sync + 'static,
    {
        Self::serve_http_wrapped(listener, handler, http, config, |router| router)
    }

    /// [`Self::serve_http`] behind a layer: the endpoint's router goes through `wrap` (an
    /// OAuth resource server's `protect`, say), and what that layer puts in a request's
    /// extensions reaches the handler of the JSON-RPC request it carried, through
    /// [`super::Handle::extension`].
    pub fn serve_http_wrapped<H>(
        listener: TcpListener,
        handler: Arc<H>,
        http: streamable_http::ServerConfig,
        config: Config,
        wrap: impl FnOnce(axum::Router) -> axum::Router,
    ) -> std::io::Result<ServerHandle>
    where
        S: Answers<H> + Hears<H>,
        H: Send + Sync + 'static,
    {
        let session = move |pipe: SessionPipe| {
            let cancel = CancellationToken::new();
            let (_sender, link, _connection) =
                Self::serve_messages(Arc::clone(&handler), cancel, config.clone());
            pipe.bridge(link.incoming, link.outgoing, routed);
        };
        streamable_http::serve_wrapped(listener, session, http, wrap)
    }
}

/// An engine's message as the HTTP transport routes it.
fn routed(o: EngineOutgoing) -> Outgoing {
    Outgoing {
        json: o.text,
        // A response is routed by its own id.
        related: if o.answers.is_some() { None } else { o.related },
    }
}

/// Serves every version of a protocol over Streamable HTTP on `listener` (bind it to
/// loopback unless it must be reachable), on one endpoint, until the handle's shutdown:
///
/// - a session opened by the profile's opening request (a handshake) runs as the version
///   that request offers (or the newest, whose answer names its own), with one engine for
///   the session, as [`super::serve_versions`] chooses on a byte stream;
/// - when the protocol's messages name their version (`Profile::version_source`), a message
///   sent outside any session is served on its own, as the version it names, by an engine
///   made for it alone and ended with its answer; the transport refuses an undeclared
///   version (400, the profile's unsupported-version code) and headers that disagree with
///   the body (400, its mismatch code) before any engine sees them.
///
/// `versions` is a generated skeleton's `<Server>Handlers`.
pub fn serve_versions_http<V: ServeVersions>(
    versions: Arc<V>,
    listener: TcpListener,
    http: streamable_http::ServerConfig,
    config: Config,
) -> std::io::Result<ServerHandle> {
    let session = move |pipe: SessionPipe| {
        tokio::spawn(open_version(Arc::clone(&versions), pipe, config.clone()));
    };
    streamable_http::serve(listener, session, http)
}

/// Runs one HTTP session (or one message served alone) as the version its first message
/// chooses, or the one the transport read for it.
async fn open_version<V: ServeVersions>(versions: Arc<V>, mut pipe: SessionPipe, config: Config) {
    let first = tokio::select! {
        biased;
        m = pipe.inbound.recv() => m,
        () = pipe.ended.cancelled() => None,
    };
    let Some(first) = first else { return };
    let named = pipe
        .version
        .as_deref()
        .and_then(|v| V::VERSIONS.iter().position(|x| *x == v));
    let index = named.unwrap_or_else(|| {
        match pick(V::VERSIONS, V::WITHOUT_HANDSHAKE, V::SOURCE, &first.text) {
            Pick::Version(i) => i,
            // The opening request offers its version, so only a request the transport let in
            // without one gets here: the newest answers it.
            Pick::Unsupported { .. } => 0,
        }
    });
    let (_served, link, _connection) = versions.serve_messages_as(index, config);
    if link.incoming.send(first).await.is_err() {
        return;
    }
    pipe.bridge(link.incoming, link.outgoing, routed);
}

/// A client's Streamable HTTP session: the HTTP client and the task joining it to the engine.
#[derive(Debug)]
pub struct HttpSession {
    /// The HTTP client: its session id, protocol version, GET stream (`open_stream`).
    pub http: streamable_http::Client,
    bridge: JoinHandle<()>,
}

impl HttpSession {
    /// Ends the session: the engine of `client` is closed, then the server is told (DELETE).
    pub async fn close<S: Bound>(self, client: &Handle<S>) -> Result<(), ClientError> {
        client.close();
        let result = self.http.terminate().await;
        self.bridge.abort();
        result
    }
}

/// What [`Handle::connect_http`] gives: the client, the other side's notifications, the HTTP
/// session and the engine's connection.
pub type HttpConnected<S> = (
    Handle<S>,
    Notifications<<S as super::Side>::InNotification>,
    HttpSession,
    Connection,
);

impl<S: Bound> Handle<S> {
    /// Connects to the Streamable HTTP endpoint `url` speaking `profile` (the skeleton's
    /// `STREAMABLE_HTTP`), answering the other side's requests with `handler`. Nothing is
    /// sent until the first request, which must be the profile's opening request.
    pub fn connect_http<H>(
        url: &str,
        profile: Profile,
        handler: Arc<H>,
        http: ClientConfig,
        config: Config,
    ) -> Result<HttpConnected<S>, ClientError>
    where
        S: Answers<H>,
        H: Send + Sync + 'static,
    {
        let (client, received) = streamable_http::Client::new(url, profile, http)?;
        let cancel = CancellationToken::new();
        let (handle, notes, link, connection) = Self::connect_messages(handler, cancel, config);
        let bridge = client
            .clone()
            .bridge(received, link.incoming, link.outgoing, |o| o.text);
        let session = HttpSession {
            http: client,
            bridge,
        };
        Ok((handle, notes, session, connection))
    }
}

impl<S: Bound> Handle<S> {
    /// Learns which version to speak with the Streamable HTTP endpoint `url` before
    /// connecting, as a client of several eras does ([`streamable_http::negotiate`]): `probe`,
    /// a request of this side's version that the server answers outside any session without
    /// side effects it minds, is sent naming each version of `profile` in turn where
    /// messages name their own (newest first, then the newest the server lists as
    /// supported); each probe waits `wait` for its answer. [`Era::Named`]: send every
    /// request naming that version, outside any session; [`Era::Handshake`]: open a session
    /// with the profile's opening request, as [`Self::connect_http`] does.
    pub async fn negotiate_http(
        url: &str,
        profile: Profile,
        probe: &S::OutRequest,
        http: ClientConfig,
        wait: Duration,
    ) -> Result<Era, ClientError>
    where
        S::OutRequest: RequestSet,
    {
        let (params, accepts) = super::era::typed_probe(probe);
        let method = probe.method();
        streamable_http::negotiate(url, profile, http, (method, params), accepts, wait).await
    }
}
