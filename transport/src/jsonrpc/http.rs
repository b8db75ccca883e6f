//! JSON-RPC over Streamable HTTP: the generic server and client ends joined to
//! [`crate::streamable_http`], so that a generated skeleton's `Server` and client serve and
//! connect over HTTP with the profile its spec declares (`STREAMABLE_HTTP`), and no glue is
//! left to write. One engine per HTTP session on the server; one engine per client.

use std::sync::Arc;

use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::ends::{Answers, Hears, Server};
use super::handle::{Bound, Handle, Notifications};
use super::{Config, Connection};
use crate::http_ws::ServerHandle;
use crate::streamable_http::{self, ClientConfig, ClientError, Outgoing, Profile, SessionPipe};

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
            pipe.bridge(link.incoming, link.outgoing, |o| Outgoing {
                json: o.text,
                // A response is routed by its own id.
                related: if o.answers.is_some() { None } else { o.related },
            });
        };
        streamable_http::serve_wrapped(listener, session, http, wrap)
    }
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
