//! The WebSocket proxy (transport kinds `websocket` and `http+websocket`): listens on
//! `--listen` and, for each WebSocket handshake, opens one to `--upstream` (`ws://HOST:PORT`,
//! the client's path kept unless the URL names one, its headers relayed) before accepting the
//! client's, then relays both directions message by message. Each text message is one of
//! the protocol's messages, judged as every transport judges them (`verdict`); a binary one
//! is a finding. Each connection is a stream of its own, ended when it closes. Plain HTTP
//! requests (the `http+websocket` kind's routes) are relayed by `exchange`. The listening
//! side is the transport's guarded server loop (header deadline, connection cap, Origin and
//! Host checks: a page of another site gets 403 before any upstream is dialled); messages
//! are capped at `--max-frame-size` on both sides, a side that does not take a message
//! within the write deadline ends its connection, and a connection that carries nothing
//! either way for `--idle-timeout` is closed on both sides (a peer gone silent mid-session
//! holds no connection slot for ever).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::ws::{self, WebSocket, WebSocketUpgrade};
use axum::extract::{FromRequestParts, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use futures_util::{Sink, SinkExt, Stream, StreamExt, future};
use tokio::net::TcpListener;
use tokio::sync::Mutex;
use tokio_tungstenite::tungstenite::{self as tung, client::IntoClientRequest};
use tokio_util::sync::CancellationToken;

use super::rules::Rules;
use super::stdio::Sides;
use super::verdict::{Verdict, judge};

/// How long the upstream's handshake may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long one side may stay open once the other closed.
const GRACE: Duration = Duration::from_secs(5);
/// The close code sent to both sides of an idle connection ("going away").
const GOING_AWAY: u16 = 1001;
/// Request headers that belong to the client's own handshake, never relayed.
const OWN: [&str; 8] = [
    "host",
    "connection",
    "upgrade",
    "sec-websocket-key",
    "sec-websocket-version",
    "sec-websocket-extensions",
    "content-length",
    "transfer-encoding",
];

/// What every connection shares.
pub(super) struct Shared {
    pub rules: Rules<'static>,
    pub client: &'static str,
    pub server: &'static str,
    /// The upstream, `ws://` or `wss://`.
    pub upstream: reqwest::Url,
    /// Connections so far, naming each one's stream.
    connections: AtomicU64,
    /// Plain HTTP requests are relayed there (`http+websocket`); `None`: refused.
    pub http: Option<reqwest::Client>,
}

/// One message of either side, whichever library read it.
enum Frame {
    Text(String),
    Binary(Vec<u8>),
    Close(Option<(u16, String)>),
    /// A ping or pong: each hop answers its own.
    Control,
}

/// Listens on `listen` and relays to `upstream` until Ctrl-C or SIGTERM; plain HTTP
/// requests too when `http` is set.
pub async fn run(
    rules: Rules<'static>,
    sides: Sides<'static>,
    listen: &str,
    upstream: &str,
    http: bool,
) -> Result<(), String> {
    let upstream = reqwest::Url::parse(upstream)
        .ok()
        .filter(|u| u.scheme() == "ws")
        .ok_or_else(|| format!("--upstream {upstream} is no ws:// URL"))?;
    let http = if http {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(CONNECT_TIMEOUT)
            .build()
            .map_err(|e| format!("no HTTP client: {e}"))?;
        Some(client)
    } else {
        None
    };
    let listener = TcpListener::bind(listen)
        .await
        .map_err(|e| format!("cannot listen on {listen}: {e}"))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    eprintln!("agentwire proxy: listening on ws://{addr}, relaying to {upstream}");
    let shared = Arc::new(Shared {
        rules,
        client: sides.client,
        server: sides.server,
        upstream,
        connections: AtomicU64::new(0),
        http,
    });
    let router = Router::new().fallback(handshake).with_state(shared);
    let stop = CancellationToken::new();
    let guard = agentwire_transport::http_ws::Guard::default();
    let server = agentwire_transport::http_ws::serve_router_guarded(listener, router, stop, &guard)
        .map_err(|e| e.to_string())?;
    super::signal::stop().await;
    let _ = server.shutdown().await;
    Ok(())
}

/// A request to the listening side: a WebSocket handshake is relayed to a fresh upstream
/// connection; anything else is an HTTP exchange (or refused).
async fn handshake(State(s): State<Arc<Shared>>, req: Request) -> Response {
    let (mut parts, body) = req.into_parts();
    let upgrade = match WebSocketUpgrade::from_request_parts(&mut parts, &()).await {
        Ok(u) => u,
        Err(refusal) => {
            return match &s.http {
                Some(http) => {
                    let req = Request::from_parts(parts, body);
                    super::exchange::relay(&s, http, req).await
                }
                None => refusal.into_response(),
            };
        }
    };
    let url = upstream_url(&s.upstream, &parts.uri);
    let mut request = match url.as_str().into_client_request() {
        Ok(r) => r,
        Err(e) => return plain(StatusCode::BAD_GATEWAY, format!("upstream: {e}")),
    };
    for (name, value) in &parts.headers {
        if !OWN.contains(&name.as_str()) {
            request.headers_mut().append(name.clone(), value.clone());
        }
    }
    let max = s.rules.max_frame_size;
    let config = tung::protocol::WebSocketConfig::default()
        .max_message_size(Some(max))
        .max_frame_size(Some(max));
    let connect = tokio_tungstenite::connect_async_with_config(request, Some(config), false);
    let (upstream, answer) = match tokio::time::timeout(CONNECT_TIMEOUT, connect).await {
        Ok(Ok(done)) => done,
        Ok(Err(e)) => return plain(StatusCode::BAD_GATEWAY, format!("upstream: {e}")),
        Err(_) => {
            return plain(
                StatusCode::GATEWAY_TIMEOUT,
                "upstream did not accept".into(),
            );
        }
    };
    // The subprotocol the upstream chose is the one the client gets.
    let chosen = answer
        .headers()
        .get("sec-websocket-protocol")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let upgrade = match chosen {
        Some(p) => upgrade.protocols([p]),
        None => upgrade,
    };
    let n = s.connections.fetch_add(1, Ordering::Relaxed) + 1;
    upgrade
        .max_message_size(max)
        .max_frame_size(max)
        .on_upgrade(move |client| async move {
            // HTTP + WebSocket sessions span requests and connections (a session made over
            // HTTP, then attached to): their one stream is the proxy's. A WebSocket
            // protocol's connection is a stream of its own.
            let stream = n.to_string();
            let own = s.http.is_none().then_some(stream.as_str());
            let rules = Rules {
                stream: own,
                ..s.rules
            };
            connection(rules, &s, client, upstream).await;
            if let Some(stream) = own {
                rules.session.end(stream);
            }
        })
}

/// The upstream URL of a handshake for `uri`: the client's path unless the upstream names
/// one, and the client's query.
pub(super) fn upstream_url(upstream: &reqwest::Url, uri: &axum::http::Uri) -> reqwest::Url {
    let mut url = upstream.clone();
    if url.path() == "/" {
        url.set_path(uri.path());
    }
    if uri.query().is_some() {
        url.set_query(uri.query());
    }
    url
}

/// Relays one connection until either side is done.
async fn connection<U>(rules: Rules<'_>, s: &Shared, client: WebSocket, upstream: U)
where
    U: Stream<Item = Result<tung::Message, tung::Error>>
        + Sink<tung::Message, Error = tung::Error>
        + Unpin,
{
    let (client_out, client_in) = client.split();
    let (server_out, server_in) = upstream.split();
    let client_out =
        Mutex::new(client_out.with(|f: Frame| future::ready(Ok::<_, axum::Error>(to_axum(f)))));
    let server_out =
        Mutex::new(server_out.with(|f: Frame| future::ready(Ok::<_, tung::Error>(to_tung(f)))));
    let client_in = client_in.map(|m| m.map(from_axum).map_err(|e| e.to_string()));
    let server_in = server_in.map(|m| m.map(from_tung).map_err(|e| e.to_string()));
    let heard = Heard::new();
    let up = pump(rules, s.client, client_in, &server_out, &client_out, &heard);
    let down = pump(rules, s.server, server_in, &client_out, &server_out, &heard);
    tokio::pin!(up, down);
    tokio::select! {
        () = &mut up => { let _ = tokio::time::timeout(GRACE, down).await; }
        () = &mut down => { let _ = tokio::time::timeout(GRACE, up).await; }
        () = heard.silence(rules.idle_timeout) => {
            let secs = rules.idle_timeout.as_secs();
            let stream = rules.stream.map_or_else(String::new, |s| format!(" (stream {s})"));
            eprintln!("agentwire proxy: a connection{stream} carried nothing for {secs} s; closed");
            let bye = || Frame::Close(Some((GOING_AWAY, "idle".to_owned())));
            let _ = send(rules, &client_out, bye()).await;
            let _ = send(rules, &server_out, bye()).await;
        }
    }
}

/// When a connection last carried a message, either way.
struct Heard {
    start: Instant,
    /// Milliseconds from `start`.
    last: AtomicU64,
}

impl Heard {
    fn new() -> Self {
        Heard {
            start: Instant::now(),
            last: AtomicU64::new(0),
        }
    }

    fn now(&self) {
        let ms = u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last.store(ms, Ordering::Relaxed);
    }

    /// Returns once nothing was heard for `idle`.
    async fn silence(&self, idle: Duration) {
        loop {
            let last = Duration::from_millis(self.last.load(Ordering::Relaxed));
            let quiet = self.start.elapsed().saturating_sub(last);
            match idle.checked_sub(quiet) {
                Some(left) if !left.is_zero() => tokio::time::sleep(left).await,
                _ => return,
            }
        }
    }
}

/// Relays what `from` sends until it closes or a write fails; then closes the other side.
async fn pump<R, W, B>(
    rules: Rules<'_>,
    from: &str,
    mut reader: R,
    onward: &Mutex<W>,
    back: &Mutex<B>,
    heard: &Heard,
) where
    R: Stream<Item = Result<Frame, String>> + Unpin,
    W: Sink<Frame> + Unpin,
    B: Sink<Frame> + Unpin,
{
    while let Some(read) = reader.next().await {
        heard.now();
        let frame = match read {
            Ok(f) => f,
            Err(e) => {
                judge(rules, from, Err(&format!("the connection failed: {e}")));
                break;
            }
        };
        let verdict = match &frame {
            Frame::Text(text) => judge(rules, from, Ok(text)),
            Frame::Binary(bytes) => {
                let why = format!(
                    "a binary message of {} bytes; the protocol's messages are JSON text",
                    bytes.len()
                );
                judge(rules, from, Err(&why))
            }
            Frame::Close(_) => {
                let _ = send(rules, onward, frame).await;
                return;
            }
            Frame::Control => continue,
        };
        let sent = match verdict {
            _ if !rules.enforce => send(rules, onward, frame).await,
            Verdict::Forward => send(rules, onward, frame).await,
            Verdict::On(text) => send(rules, onward, Frame::Text(text)).await,
            Verdict::Back(text) => send(rules, back, Frame::Text(text)).await,
            Verdict::Drop => Ok(()),
        };
        if sent.is_err() {
            break;
        }
    }
    let _ = send(rules, onward, Frame::Close(None)).await;
}

/// Writes `frame`, which `to` has the write deadline to take.
async fn send<W: Sink<Frame> + Unpin>(
    rules: Rules<'_>,
    to: &Mutex<W>,
    frame: Frame,
) -> Result<(), ()> {
    let mut to = to.lock().await;
    match tokio::time::timeout(rules.write_timeout, to.send(frame)).await {
        Ok(Ok(())) => Ok(()),
        _ => Err(()),
    }
}

fn from_axum(m: ws::Message) -> Frame {
    match m {
        ws::Message::Text(t) => Frame::Text(t.as_str().to_owned()),
        ws::Message::Binary(b) => Frame::Binary(b.to_vec()),
        ws::Message::Close(c) => Frame::Close(c.map(|c| (c.code, c.reason.as_str().to_owned()))),
        ws::Message::Ping(_) | ws::Message::Pong(_) => Frame::Control,
    }
}

fn to_axum(f: Frame) -> ws::Message {
    match f {
        Frame::Text(t) => ws::Message::Text(t.into()),
        Frame::Binary(b) => ws::Message::Binary(b.into()),
        Frame::Close(c) => ws::Message::Close(c.map(|(code, reason)| ws::CloseFrame {
            code,
            reason: reason.into(),
        })),
        Frame::Control => ws::Message::Pong(Default::default()),
    }
}

fn from_tung(m: tung::Message) -> Frame {
    match m {
        tung::Message::Text(t) => Frame::Text(t.as_str().to_owned()),
        tung::Message::Binary(b) => Frame::Binary(b.to_vec()),
        tung::Message::Close(c) => {
            Frame::Close(c.map(|c| (u16::from(c.code), c.reason.as_str().to_owned())))
        }
        _ => Frame::Control,
    }
}

fn to_tung(f: Frame) -> tung::Message {
    match f {
        Frame::Text(t) => tung::Message::Text(t.into()),
        Frame::Binary(b) => tung::Message::Binary(b.into()),
        Frame::Close(c) => {
            tung::Message::Close(c.map(|(code, reason)| tung::protocol::CloseFrame {
                code: code.into(),
                reason: reason.into(),
            }))
        }
        Frame::Control => tung::Message::Pong(Default::default()),
    }
}

pub(super) fn plain(status: StatusCode, why: String) -> Response {
    (status, format!("agentwire proxy: {why}")).into_response()
}
