//! The endpoint on axum: POST carries one client message, GET opens the session's
//! server-to-client stream, DELETE ends the session; each status rule of the transport lives
//! here, every protocol-specific name coming from the configuration's [`Profile`].

use std::sync::Arc;

use agentwire_runtime::jsonrpc::{RequestId, codes};
use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{Extensions, HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use super::body::{self, BodyError};
use super::config::ServerConfig;
use super::message::{Kind, NotAMessage, check_members, classify, error_answer, error_body};
use super::profile::Profile;
use super::sealing::Sealing;
use super::service::{Delivered, Service};
use super::session::{Alone, OpenError, Parked, Register, Session, Sessions};
use super::stream::{Feed, FeedConfig, parse_event_id};
use crate::budget::{ClientKey, Exhausted};
use crate::http_ws::{Guard, ServerHandle, serve_router_checked};
use crate::origin::SitePolicy;

/// An error not covered by the JSON-RPC codes (the TypeScript SDK uses it the same way).
pub(super) const TRANSPORT_ERROR: i64 = -32000;
/// "Session not found", as the TypeScript SDK answers it.
const NO_SESSION: i64 = -32001;

pub(super) struct Shared {
    pub(super) service: Box<dyn Service>,
    pub(super) config: ServerConfig,
    pub(super) sessions: Arc<Sessions>,
    /// Opens the state requests give back (`ServerConfig::sealer`).
    sealing: Option<Sealing>,
    /// The profile's session header, checked once.
    session_header: HeaderName,
    /// The profile's version header, checked once.
    pub(super) version_header: HeaderName,
}

impl Shared {
    pub(super) fn profile(&self) -> &Profile {
        &self.config.profile
    }
}

/// The endpoint as an axum router (at the profile's path), sessions handed to `service`.
/// Must be called inside a Tokio runtime (it starts the idle-session sweeper). Dropping the
/// router ends every session. Its address unknown, the origin policy's defaults check it as
/// a server bound to loopback. A profile that fails [`Profile::check`] is an
/// `InvalidInput` error.
pub fn router(service: impl Service, config: ServerConfig) -> std::io::Result<Router> {
    Ok(build(service, config, None)?.0)
}

fn build(
    service: impl Service,
    config: ServerConfig,
    addr: Option<std::net::SocketAddr>,
) -> std::io::Result<(Router, Arc<Sessions>)> {
    let bad = |why: String| {
        let why = format!("bad Streamable HTTP profile: {why}");
        std::io::Error::new(std::io::ErrorKind::InvalidInput, why)
    };
    let profile = config.profile;
    profile.check().map_err(bad)?;
    let (Some(session_header), Some(version_header)) =
        (profile.session_name(), profile.version_name())
    else {
        return Err(bad("a header name is not valid".to_owned()));
    };
    let sealing = match (&config.sealer, profile.sealed_state) {
        (Some(sealer), Some(members)) => Some(Sealing {
            sealer: Arc::clone(&sealer.0),
            members,
        }),
        _ => None,
    };
    let shared = Arc::new(Shared {
        service: Box::new(service),
        sessions: Sessions::new(config.limits.clone(), sealing.clone()),
        sealing,
        config,
        session_header,
        version_header,
    });
    let access = Arc::new(Access {
        sites: SitePolicy::new(
            shared.config.origins.clone(),
            shared.config.hosts.clone(),
            addr,
        ),
        token: shared.config.token.clone(),
    });
    let endpoint = post(on_post).get(on_get).delete(on_delete);
    let router = Router::new()
        .route(profile.path, endpoint)
        .with_state(shared.clone());
    let router = router.layer(axum::middleware::from_fn(
        move |req: Request, next: Next| {
            let refused = access.refusal(req.headers());
            async move {
                match refused {
                    Some(r) => r,
                    None => next.run(req).await,
                }
            }
        },
    ));
    Ok((router, shared.sessions.clone()))
}

/// Who may reach the endpoint: the origin policy and the optional token.
struct Access {
    sites: SitePolicy,
    token: Option<String>,
}

impl Access {
    /// The answer refusing a request (403 rebinding, 401 token), or `None` to let it in.
    fn refusal(&self, headers: &HeaderMap) -> Option<Response> {
        if let Err(rule) = self.sites.check(headers) {
            return Some(refuse(StatusCode::FORBIDDEN, TRANSPORT_ERROR, rule));
        }
        let token = self.token.as_deref()?;
        if bearer_matches(headers, token) {
            return None;
        }
        let mut r = refuse(
            StatusCode::UNAUTHORIZED,
            TRANSPORT_ERROR,
            "missing or wrong bearer token",
        );
        r.headers_mut()
            .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        Some(r)
    }
}

/// Whether the request carries `Authorization: Bearer <token>`, compared in constant time.
fn bearer_matches(headers: &HeaderMap, token: &str) -> bool {
    let Some(given) = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
    else {
        return false;
    };
    let (a, b) = (given.as_bytes(), token.as_bytes());
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Serves the endpoint on `listener` (bind it to loopback unless it must be reachable)
/// until the handle's shutdown.
pub fn serve(
    listener: TcpListener,
    service: impl Service,
    config: ServerConfig,
) -> std::io::Result<ServerHandle> {
    serve_wrapped(listener, service, config, |router| router)
}

/// [`serve`] with the endpoint's router passed through `wrap` first: a layer in front of the
/// endpoint, such as an OAuth resource server's `protect`. What that layer puts in a
/// request's extensions reaches the engine with the message the request carries.
pub fn serve_wrapped(
    listener: TcpListener,
    service: impl Service,
    config: ServerConfig,
    wrap: impl FnOnce(Router) -> Router,
) -> std::io::Result<ServerHandle> {
    let guard = Guard {
        header_timeout: config.limits.header_timeout,
        max_http_connections: config.limits.max_connections,
        ..Guard::default()
    };
    let addr = listener.local_addr()?;
    let (app, sessions) = build(service, config, Some(addr))?;
    let app = wrap(app);
    let shutdown = CancellationToken::new();
    // The endpoint checks the origin policy itself (answering in JSON-RPC).
    let handle = serve_router_checked(listener, app, shutdown.clone(), &guard)?;
    // Shutting down ends the sessions at once, so that open SSE streams close and their
    // connections do not hold the shutdown for its grace period.
    let sessions = Arc::downgrade(&sessions);
    tokio::spawn(async move {
        shutdown.cancelled().await;
        if let Some(s) = sessions.upgrade() {
            s.end_all();
        }
    });
    Ok(handle)
}

/// An error answer with a JSON-RPC error body whose id is null.
pub(super) fn refuse(status: StatusCode, code: i64, message: &str) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        error_body(code, message),
    )
        .into_response()
}

/// 400 for a body that is not one acceptable message, answering the request's id when it
/// could be read.
fn not_a_message(e: &NotAMessage) -> Response {
    (
        StatusCode::BAD_REQUEST,
        [(header::CONTENT_TYPE, "application/json")],
        error_answer(e.id.as_ref(), e.code, &e.rule),
    )
        .into_response()
}

fn accepts(headers: &HeaderMap, types: &[&str]) -> bool {
    let accept = headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect::<Vec<_>>()
        .join(",")
        .to_ascii_lowercase();
    types
        .iter()
        .all(|t| accept.contains(t) || accept.contains("*/*"))
}

fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"))
}

/// The session named by the request's header: 400 without one, 404 for an unknown or ended one.
fn session_of(shared: &Shared, headers: &HeaderMap) -> Result<Arc<Session>, Response> {
    let Some(value) = headers.get(&shared.session_header) else {
        let profile = shared.profile();
        let why = format!(
            "{} header is required (send {} first)",
            profile.session_header, profile.opens_with
        );
        return Err(refuse(StatusCode::BAD_REQUEST, TRANSPORT_ERROR, &why));
    };
    value
        .to_str()
        .ok()
        .and_then(|id| shared.sessions.get(id))
        .ok_or_else(|| refuse(StatusCode::NOT_FOUND, NO_SESSION, "Session not found"))
}

/// 400 for a version header naming a version the profile does not accept; none is fine.
fn check_version(shared: &Shared, headers: &HeaderMap) -> Result<(), Response> {
    let Some(value) = headers.get(&shared.version_header) else {
        return Ok(());
    };
    let versions = shared.profile().versions;
    if value.to_str().is_ok_and(|v| versions.contains(&v)) {
        return Ok(());
    }
    let message = format!(
        "Unsupported {} {:?} (supported: {})",
        shared.profile().version_header,
        String::from_utf8_lossy(value.as_bytes()),
        versions.join(", ")
    );
    Err(refuse(StatusCode::BAD_REQUEST, TRANSPORT_ERROR, &message))
}

fn body_refusal(e: BodyError) -> Response {
    match e {
        BodyError::TooLarge(max) => refuse(
            StatusCode::PAYLOAD_TOO_LARGE,
            TRANSPORT_ERROR,
            &format!("request body over the {max}-byte limit"),
        ),
        BodyError::Timeout(t) => refuse(
            StatusCode::REQUEST_TIMEOUT,
            TRANSPORT_ERROR,
            &format!("request body not received within {t:?}"),
        ),
        BodyError::Broken(e) => refuse(StatusCode::BAD_REQUEST, TRANSPORT_ERROR, &e),
        BodyError::NotUtf8 => refuse(
            StatusCode::BAD_REQUEST,
            codes::PARSE_ERROR,
            "body is not UTF-8 JSON",
        ),
    }
}

async fn on_post(
    State(shared): State<Arc<Shared>>,
    extensions: Extensions,
    headers: HeaderMap,
    body: Body,
) -> Response {
    if !accepts(&headers, &["application/json", "text/event-stream"]) {
        return refuse(
            StatusCode::NOT_ACCEPTABLE,
            TRANSPORT_ERROR,
            "Accept must list both application/json and text/event-stream",
        );
    }
    if !is_json(&headers) {
        return refuse(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            TRANSPORT_ERROR,
            "Content-Type must be application/json",
        );
    }
    let limits = &shared.config.limits;
    let text = match body::read(&headers, body, limits.max_body_bytes, limits.body_timeout).await {
        Ok(t) => t,
        Err(e) => return body_refusal(e),
    };
    // What the engine would refuse is refused here, with the same answer: the engine's
    // refusal of a message it cannot read carries no id, which would leave the POST open.
    let kind = match classify(&text).and_then(|k| check_members(&text, &k).map(|()| k)) {
        Ok(k) => k,
        Err(e) => return not_a_message(&e),
    };
    let client = ClientKey::of_request(&extensions);
    // The engine hands the request's extensions to the request's handler, so that what a
    // layer in front of the endpoint learnt (the caller's identity) reaches it.
    let delivered = Delivered { text, extensions };
    let per_message = shared
        .profile()
        .version_source
        .is_some_and(|s| s.per_message());
    if let Kind::Request { id, method } = &kind
        && method == shared.profile().opens_with
        && !names_itself(shared.profile(), &headers, &delivered.text)
    {
        return open_session(&shared, &headers, client, id.clone(), delivered).await;
    }
    if !headers.contains_key(&shared.session_header) && per_message {
        return super::alone::on_post(&shared, &headers, client, kind, delivered).await;
    }
    let session = match session_of(&shared, &headers).and_then(|s| {
        check_version(&shared, &headers)?;
        Ok(s)
    }) {
        Ok(s) => s,
        Err(r) => return r,
    };
    let version = headers
        .get(&shared.version_header)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    if shared.profile().mirrors(version.as_deref())
        && let Err(r) = mirrored(&shared, &headers, &kind, &delivered.text)
    {
        return r;
    }
    match kind {
        Kind::Request { id, method } => {
            let call = Call {
                id,
                method,
                delivered,
            };
            on_request(&shared, session, call, false, version, None).await
        }
        _ => {
            let _busy = session.busy();
            if pass_in(&session, delivered).await {
                StatusCode::ACCEPTED.into_response()
            } else {
                refuse(StatusCode::NOT_FOUND, NO_SESSION, "Session not found")
            }
        }
    }
}

/// Whether `text` (an opening request, sent with `headers`) is no handshake but a request
/// naming its own version: it offers none in its params' version member, and names one where
/// the profile's version source says messages do. It is then served alone as that version
/// (which may not have such a request at all, and answers as it says).
fn names_itself(profile: &Profile, headers: &HeaderMap, text: &str) -> bool {
    let Some(source) = profile.version_source.filter(|s| s.per_message()) else {
        return false;
    };
    let Ok(message) = serde_json::from_str::<serde_json::Value>(text) else {
        return false;
    };
    if message["params"].get(profile.version_member).is_some() {
        return false;
    }
    let header_name = source.header().unwrap_or(profile.version_header);
    let header = headers.get(header_name).and_then(|v| v.to_str().ok());
    !matches!(
        source.named_in(&message, header),
        agentwire_runtime::version::Named::Nowhere
    )
}

/// 400 with the profile's mismatch code for a message whose mirrored headers disagree
/// with its body.
fn mirrored(shared: &Shared, headers: &HeaderMap, kind: &Kind, text: &str) -> Result<(), Response> {
    let message = serde_json::from_str::<serde_json::Value>(text).unwrap_or_default();
    let expected = shared.config.expected.as_ref();
    super::mirror::check_with(shared.profile(), expected, headers, &message).map_err(|why| {
        (
            StatusCode::BAD_REQUEST,
            [(header::CONTENT_TYPE, "application/json")],
            error_answer(kind.id(), shared.profile().mismatch_code, &why),
        )
            .into_response()
    })
}

/// The opening request: opens a session (400 inside one, 503 when the table is full, 429
/// when the client holds its share) and answers the request, with the new session's id.
async fn open_session(
    shared: &Shared,
    headers: &HeaderMap,
    client: Option<ClientKey>,
    id: RequestId,
    delivered: Delivered,
) -> Response {
    if headers.contains_key(&shared.session_header) {
        let profile = shared.profile();
        let why = format!(
            "{} opens a new session: send it without {}",
            profile.opens_with, profile.session_header
        );
        return refuse(StatusCode::BAD_REQUEST, codes::INVALID_REQUEST, &why);
    }
    let session = match shared.sessions.open(shared.service.as_ref(), client) {
        Ok(s) => s,
        Err(e) => return open_refusal(e),
    };
    // The version the client asks for decides whether its streams get a priming event.
    let member = shared.profile().version_member;
    let version = serde_json::from_str::<serde_json::Value>(&delivered.text)
        .ok()
        .and_then(|v| v.get("params")?.get(member)?.as_str().map(str::to_owned));
    let method = shared.profile().opens_with.to_owned();
    on_request(
        shared,
        session,
        Call {
            id,
            method,
            delivered,
        },
        true,
        version,
        None,
    )
    .await
}

/// A request as the transport passes it in: its id, method and message.
pub(super) struct Call {
    pub id: RequestId,
    pub method: String,
    pub delivered: Delivered,
}

/// The answer to a session that cannot be opened: 429 when the client holds its share, else
/// 503.
pub(super) fn open_refusal(e: OpenError) -> Response {
    match e {
        OpenError::Full(Exhausted::Client(n)) => {
            let why = format!("this client already holds {n} sessions; end one first");
            refuse(StatusCode::TOO_MANY_REQUESTS, TRANSPORT_ERROR, &why)
        }
        OpenError::Full(_) => refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            TRANSPORT_ERROR,
            "too many sessions",
        ),
        OpenError::NoRandomness => refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            TRANSPORT_ERROR,
            "no randomness for a session id",
        ),
    }
}

/// Hands a message to the session's engine; `false` when the session ended first.
pub(super) async fn pass_in(session: &Session, delivered: Delivered) -> bool {
    tokio::select! {
        sent = session.inbound.send(delivered) => sent.is_ok(),
        () = session.ended.cancelled() => false,
    }
}

/// A request: registers its POST, passes it in, and answers with JSON when the first message
/// for it is its response, else with an SSE stream carrying everything up to the response.
/// `alone`: the session serves this request only; it ends with the answer (its id is never
/// sent).
pub(super) async fn on_request(
    shared: &Shared,
    session: Arc<Session>,
    call: Call,
    opens: bool,
    version: Option<String>,
    alone: Option<Alone>,
) -> Response {
    let named = if alone.is_some() {
        None
    } else {
        Some(session.id.as_str())
    };
    let Call {
        id,
        method,
        mut delivered,
    } = call;
    match shared
        .sealing
        .as_ref()
        .map(|s| s.open(&method, &delivered.text))
    {
        None | Some(Ok(None)) => {}
        Some(Ok(Some(opened))) => delivered.text = opened,
        Some(Err(error)) => {
            if opens {
                shared.sessions.end(&session.id);
            }
            let body = serde_json::json!({"jsonrpc": "2.0", "id": id, "error": error});
            return (
                StatusCode::BAD_REQUEST,
                [(header::CONTENT_TYPE, "application/json")],
                body.to_string(),
            )
                .into_response();
        }
    };
    let _busy = session.busy();
    let mut rx = match session.register(&id, &method, shared.config.limits.max_in_flight) {
        Ok(rx) => rx,
        Err(Register::Duplicate) => {
            return refuse(
                StatusCode::BAD_REQUEST,
                codes::INVALID_REQUEST,
                &format!("request id {id} is already in flight in this session"),
            );
        }
        Err(Register::TooMany) => {
            return refuse(
                StatusCode::TOO_MANY_REQUESTS,
                TRANSPORT_ERROR,
                "too many requests in flight in this session",
            );
        }
    };
    let waited = if pass_in(&session, delivered).await {
        tokio::select! {
            m = rx.recv() => m.map(Some),
            () = session.ended.cancelled() => None,
            // A long call: answer with a stream now, so the client sees headers and
            // keep-alives instead of a silent connection.
            () = tokio::time::sleep(shared.config.json_wait) => Some(None),
        }
    } else {
        None
    };
    let Some(first) = waited else {
        drop(rx);
        session.unregister(&id);
        if opens {
            shared.sessions.end(&session.id);
        }
        return refuse(
            StatusCode::NOT_FOUND,
            NO_SESSION,
            "Session ended before answering",
        );
    };
    if let Some(first) = &first
        && matches!(classify(first), Ok(Kind::Response { .. }))
    {
        if opens && is_error(first) {
            // A refused opening request opens nothing.
            shared.sessions.end(&session.id);
            return json_answer(shared, first.clone(), None);
        }
        let mut answer = json_answer(shared, first.clone(), named);
        if alone.is_some()
            && let Some(status) = error_status(shared.profile(), first)
        {
            *answer.status_mut() = status;
        }
        return answer;
    }
    // Older clients would choke on the empty priming event; newer ones expect it. A stream
    // of a request served alone cannot be resumed: it has no priming event to resume from.
    let primed = alone.is_none() && shared.profile().primes(version.as_deref());
    let key = session.new_stream();
    let config = feed_config(&shared.config, primed);
    let mut feed = Feed::new(session.clone(), key, Parked::new(rx), None, config);
    if let Some(first) = first {
        feed.push(first);
    }
    if let Some(alone) = alone {
        feed.end_with(alone);
    }
    sse_answer(shared, feed, named)
}

fn feed_config(config: &ServerConfig, primed: bool) -> FeedConfig {
    let retry = config
        .retry
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    FeedConfig {
        keep_alive: config.limits.keep_alive,
        replay: config.limits.replay_events,
        max_parked: config.limits.max_parked_streams,
        priming: primed.then_some(retry),
    }
}

fn is_error(json: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(json).is_ok_and(|v| v.get("error").is_some())
}

/// The status the profile gives an error answer with `json`'s code (`error_status`).
fn error_status(profile: &Profile, json: &str) -> Option<StatusCode> {
    let message = serde_json::from_str::<serde_json::Value>(json).ok()?;
    let code = message.get("error")?.get("code")?.as_i64()?;
    let (_, status) = profile.error_status.iter().find(|(c, _)| *c == code)?;
    StatusCode::from_u16(*status).ok()
}

fn session_header(id: &str) -> Option<HeaderValue> {
    HeaderValue::from_str(id).ok()
}

pub(super) fn json_answer(shared: &Shared, json: String, session: Option<&str>) -> Response {
    let mut r = ([(header::CONTENT_TYPE, "application/json")], json).into_response();
    if let Some(v) = session.and_then(session_header) {
        r.headers_mut().insert(shared.session_header.clone(), v);
    }
    r
}

fn sse_answer(shared: &Shared, feed: Feed, session: Option<&str>) -> Response {
    let mut r = Response::new(feed.into_body());
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("no-cache, no-transform"),
    );
    if let Some(v) = session.and_then(session_header) {
        h.insert(shared.session_header.clone(), v);
    }
    r
}

/// GET: the session's server-to-client stream (one connection at a time), or with
/// `Last-Event-ID` the resumption of a stream whose connection went away: the events after
/// that id are replayed, then the stream goes on.
async fn on_get(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    if !shared.config.standalone_stream {
        let mut r = refuse(
            StatusCode::METHOD_NOT_ALLOWED,
            TRANSPORT_ERROR,
            "this server offers no GET stream",
        );
        r.headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("POST, DELETE"));
        return r;
    }
    if !accepts(&headers, &["text/event-stream"]) {
        return refuse(
            StatusCode::NOT_ACCEPTABLE,
            TRANSPORT_ERROR,
            "Accept must list text/event-stream",
        );
    }
    let session = match session_of(&shared, &headers) {
        Ok(s) => s,
        Err(r) => return r,
    };
    if let Err(r) = check_version(&shared, &headers) {
        return r;
    }
    let resume = match headers.get("last-event-id") {
        None => None,
        Some(v) => match v.to_str().ok().and_then(parse_event_id) {
            Some(at) => Some(at),
            None => {
                return refuse(
                    StatusCode::BAD_REQUEST,
                    TRANSPORT_ERROR,
                    "Last-Event-ID is not an event id of this server",
                );
            }
        },
    };
    let (key, after) = resume.map_or((0, None), |(k, n)| (k, Some(n)));
    let Some(stream) = session.take_stream(key) else {
        let (status, why) = if key == 0 {
            (
                StatusCode::CONFLICT,
                "this session's GET stream is already open",
            )
        } else {
            (
                StatusCode::BAD_REQUEST,
                "no stream to resume for this Last-Event-ID",
            )
        };
        return refuse(status, TRANSPORT_ERROR, why);
    };
    let feed = Feed::new(
        session.clone(),
        key,
        stream,
        after,
        feed_config(&shared.config, false),
    );
    sse_answer(&shared, feed, Some(&session.id))
}

/// DELETE: ends the session; later requests naming it get 404.
async fn on_delete(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    let session = match session_of(&shared, &headers) {
        Ok(s) => s,
        Err(r) => return r,
    };
    if let Err(r) = check_version(&shared, &headers) {
        return r;
    }
    shared.sessions.end(&session.id);
    StatusCode::OK.into_response()
}
