//! The Streamable HTTP proxy: a reverse proxy listening on `--listen` that relays every
//! request to `--upstream` and the answer back, bytes and headers unchanged (session and
//! version headers included), SSE streams event by event as they come. Each JSON-RPC
//! message is recorded with its sender and checked: a POST body as the client's, a JSON
//! answer or an SSE event's data as the server's. The listening side is the transport's own
//! server loop, so it has its header deadline, its connection cap and its Origin and Host
//! checks (a browser page from another site gets 403). Bodies are capped at
//! `--max-frame-size`, each is due whole within `--frame-timeout`, and an SSE stream is
//! relayed through a bounded queue: a client that stops reading costs its own stream.
//! Each session is a stream of its own (`sessions` tells which an exchange belongs to), so
//! concurrent clients are checked apart.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::events::{Cut, Events};
use super::rules::Rules;
use super::sessions::{Ended, Sessions};
use super::verdict::{Verdict, judge};

/// How long the upstream may take to start its answer (its headers).
const ANSWER_TIMEOUT: Duration = Duration::from_secs(300);
/// How long connecting to the upstream may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// SSE chunks waiting for a slow client, at most.
const QUEUE: usize = 16;
/// Headers that belong to one hop, never relayed.
const HOP: [&str; 9] = [
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
];

/// What every request's handler shares.
struct Shared {
    rules: Rules<'static>,
    client: &'static str,
    server: &'static str,
    upstream: reqwest::Url,
    http: reqwest::Client,
    sessions: Sessions,
}

impl Shared {
    /// The rules of an exchange of `stream`.
    fn rules<'a>(&'a self, stream: &'a str) -> Rules<'a> {
        Rules {
            stream: Some(stream),
            ..self.rules
        }
    }

    /// Ends each of `streams`, reporting what it left mid-flow.
    fn end(&self, streams: Ended) {
        for stream in streams {
            self.rules.session.end(&stream);
        }
    }
}

/// Listens on `listen` and relays to `upstream` until Ctrl-C or SIGTERM.
pub async fn run(
    rules: Rules<'static>,
    sides: super::stdio::Sides<'static>,
    listen: &str,
    upstream: &str,
    session_header: Option<&str>,
) -> Result<(), String> {
    let session_header = session_header
        .map(|h| {
            axum::http::HeaderName::from_bytes(h.to_ascii_lowercase().as_bytes())
                .map_err(|_| format!("--session-header {h} is no header name"))
        })
        .transpose()?;
    let upstream = reqwest::Url::parse(upstream)
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https"))
        .ok_or_else(|| format!("--upstream {upstream} is no http:// or https:// URL"))?;
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(CONNECT_TIMEOUT)
        .build()
        .map_err(|e| format!("no HTTP client: {e}"))?;
    let listener = TcpListener::bind(listen)
        .await
        .map_err(|e| format!("cannot listen on {listen}: {e}"))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    eprintln!("agentwire proxy: listening on http://{addr}, relaying to {upstream}");
    let shared = Arc::new(Shared {
        rules,
        client: sides.client,
        server: sides.server,
        upstream,
        http,
        sessions: Sessions::new(session_header),
    });
    let router = Router::new().fallback(relay).with_state(shared);
    let stop = CancellationToken::new();
    let guard = agentwire_transport::http_ws::Guard::default();
    let server = agentwire_transport::http_ws::serve_router_guarded(listener, router, stop, &guard)
        .map_err(|e| e.to_string())?;
    super::signal::stop().await;
    let _ = server.shutdown().await;
    Ok(())
}

/// One request: its body checked, relayed, its answer checked and relayed back.
async fn relay(State(s): State<Arc<Shared>>, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    let asked = s.sessions.id(&parts.headers);
    let (stream, ended) = s.sessions.of_request(asked.as_deref());
    s.end(ended);
    let closing = parts.method == axum::http::Method::DELETE;
    match forward(&s, &stream, parts, body).await {
        Ok(answer) => {
            let given = s.sessions.id(answer.headers());
            let ok = answer.status().is_success();
            let ended =
                s.sessions
                    .answered(&stream, asked.as_deref(), given.as_deref(), ok, closing);
            let out = back(s.clone(), stream, answer).await;
            s.end(ended);
            out
        }
        Err(out) => {
            // No answer came: a stream this request opened holds nothing more.
            s.end(
                s.sessions
                    .answered(&stream, asked.as_deref(), None, false, false),
            );
            out
        }
    }
}

/// Checks the request's body and sends it upstream; `Err` is the proxy's own answer when
/// it does not reach the upstream or gets no answer from it.
async fn forward(
    s: &Shared,
    stream: &str,
    parts: axum::http::request::Parts,
    body: Body,
) -> Result<reqwest::Response, Response> {
    let rules = s.rules(stream);
    let read = tokio::time::timeout(
        rules.frame_timeout,
        axum::body::to_bytes(body, rules.max_frame_size),
    );
    let body = match read.await {
        Ok(Ok(b)) => b,
        Ok(Err(_)) => {
            let why = format!("request body over {} bytes", rules.max_frame_size);
            judge(rules, s.client, Err(&why));
            return Err(plain(StatusCode::PAYLOAD_TOO_LARGE, why));
        }
        Err(_) => {
            let why = "request body too slow".into();
            return Err(plain(StatusCode::REQUEST_TIMEOUT, why));
        }
    };
    let body = if body.is_empty() {
        body
    } else {
        match judge(rules, s.client, utf8(&body)) {
            Verdict::Forward => body,
            Verdict::On(text) => Bytes::from(text),
            Verdict::Back(text) => return Err(json(StatusCode::OK, text)),
            Verdict::Drop => return Err(StatusCode::ACCEPTED.into_response()),
        }
    };
    let mut url = s.upstream.clone();
    if url.path() == "/" {
        url.set_path(parts.uri.path());
    }
    url.set_query(parts.uri.query());
    let sent = s
        .http
        .request(parts.method, url)
        .headers(relayed(&parts.headers))
        .body(body)
        .send();
    match tokio::time::timeout(ANSWER_TIMEOUT, sent).await {
        Ok(Ok(answer)) => Ok(answer),
        Ok(Err(e)) => Err(plain(StatusCode::BAD_GATEWAY, format!("upstream: {e}"))),
        Err(_) => Err(plain(
            StatusCode::GATEWAY_TIMEOUT,
            "upstream did not answer".into(),
        )),
    }
}

/// The upstream's answer, relayed: an SSE stream as it comes, anything else whole.
async fn back(s: Arc<Shared>, stream: Arc<str>, mut answer: reqwest::Response) -> Response {
    let status = answer.status();
    let headers = relayed(answer.headers());
    let kind = content_type(&headers);
    let body = if kind.starts_with("text/event-stream") {
        let (tx, rx) = mpsc::channel(QUEUE);
        tokio::spawn(relay_events(s, stream, answer, tx));
        Body::from_stream(tokio_stream::wrappers::ReceiverStream::new(rx))
    } else {
        let rules = s.rules(&stream);
        let mut whole = Vec::new();
        loop {
            match tokio::time::timeout(rules.frame_timeout, answer.chunk()).await {
                Ok(Ok(Some(c))) if whole.len() + c.len() <= rules.max_frame_size => {
                    whole.extend_from_slice(&c);
                }
                Ok(Ok(None)) => break,
                Ok(Ok(Some(_))) => {
                    let why = format!("answer body over {} bytes", rules.max_frame_size);
                    judge(rules, s.server, Err(&why));
                    return plain(StatusCode::BAD_GATEWAY, why);
                }
                Ok(Err(_)) | Err(_) => {
                    return plain(StatusCode::BAD_GATEWAY, "upstream answer cut off".into());
                }
            }
        }
        if !whole.is_empty() && kind.contains("json") {
            match judge(rules, s.server, utf8(&whole)) {
                Verdict::Forward => {}
                Verdict::On(text) => return json(status, text),
                Verdict::Back(_) | Verdict::Drop => {
                    return plain(StatusCode::BAD_GATEWAY, "refused upstream message".into());
                }
            }
        }
        Body::from(whole)
    };
    let mut out = Response::new(body);
    *out.status_mut() = status;
    *out.headers_mut() = headers;
    out
}

type Chunk = Result<Bytes, std::io::Error>;

/// Relays one SSE stream, checking each event's message; ends when either side does, when
/// an event stays unfinished past the frame deadline, or when the client takes nothing for
/// the write deadline. Without `--enforce` chunks go on as they come; with it each event
/// goes on (unchanged) once it passed, or is replaced by the error answer it earned.
async fn relay_events(
    s: Arc<Shared>,
    stream: Arc<str>,
    mut answer: reqwest::Response,
    tx: mpsc::Sender<Chunk>,
) {
    let rules = s.rules(&stream);
    let mut events = Events::new(rules.max_frame_size);
    let mut cuts = Vec::new();
    loop {
        let next = async {
            if events.mid_event() {
                tokio::time::timeout(rules.frame_timeout, answer.chunk()).await
            } else {
                Ok(answer.chunk().await)
            }
        };
        let chunk = tokio::select! {
            () = tx.closed() => return,
            next = next => match next {
                Ok(Ok(Some(c))) => c,
                Ok(Ok(None)) => return,
                Ok(Err(e)) => {
                    let _ = send(rules, &tx, Err(std::io::Error::other(e))).await;
                    return;
                }
                Err(_) => {
                    judge(rules, s.server, Err("an SSE event stayed unfinished past the frame deadline"));
                    return;
                }
            },
        };
        if !rules.enforce && send(rules, &tx, Ok(chunk.clone())).await.is_err() {
            return;
        }
        events.push(&chunk, &mut cuts);
        for cut in cuts.drain(..) {
            let out = match cut {
                Cut::Event { raw, data: Some(d) } if !d.trim().is_empty() => {
                    match judge(rules, s.server, Ok(&d)) {
                        Verdict::Forward => Some(raw),
                        Verdict::On(text) => Some(sse_event(&text)),
                        Verdict::Back(_) | Verdict::Drop => None,
                    }
                }
                Cut::Event { raw, .. } => Some(raw),
                Cut::TooLarge(max) => {
                    judge(rules, s.server, Err(&format!("SSE event over {max} bytes")));
                    None
                }
            };
            if let Some(out) = out.filter(|_| rules.enforce)
                && send(rules, &tx, Ok(Bytes::from(out))).await.is_err()
            {
                return;
            }
        }
    }
}

/// Queues a chunk for the client, which has the write deadline to make room.
async fn send(rules: Rules<'_>, tx: &mpsc::Sender<Chunk>, chunk: Chunk) -> Result<(), ()> {
    match tokio::time::timeout(rules.write_timeout, tx.send(chunk)).await {
        Ok(Ok(())) => Ok(()),
        _ => Err(()),
    }
}

fn sse_event(json: &str) -> Vec<u8> {
    format!("event: message\ndata: {json}\n\n").into_bytes()
}

fn utf8(bytes: &[u8]) -> Result<&str, &'static str> {
    std::str::from_utf8(bytes).map_err(|_| "body is not UTF-8")
}

/// `headers` without the ones that belong to one hop (and without the length, which the
/// relayed body sets again).
fn relayed(headers: &HeaderMap) -> HeaderMap {
    let mut out = headers.clone();
    for name in HOP {
        out.remove(name);
    }
    out.remove(header::CONTENT_LENGTH);
    out
}

fn content_type(headers: &HeaderMap) -> String {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase()
}

fn json(status: StatusCode, text: String) -> Response {
    let mut out = Response::new(Body::from(text));
    *out.status_mut() = status;
    out.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    out
}

fn plain(status: StatusCode, why: String) -> Response {
    (status, format!("agentwire proxy: {why}")).into_response()
}
