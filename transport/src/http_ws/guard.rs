//! The agent server's defences against a hostile peer, kept apart from the protocol logic:
//! a deadline on every request body and a refusal of a declared length over the limit from
//! the header alone, caps on the forwards to `inputUrl` in flight (per session and in total),
//! an optional shared token on every route and the WebSocket, the origin policy, and
//! unguessable generated session ids.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::Request;
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use futures_util::StreamExt;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::origin::{Hosts, Origins, SitePolicy};

/// Every defence setting; the defaults are safe for an exposed port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Guard {
    /// Deadline for a request's header (and for a keep-alive connection to start its next
    /// request): a peer that trickles it is disconnected when it passes.
    pub header_timeout: Duration,
    /// Deadline for reading a request body, from the first poll: a slower body is cut off
    /// and answered like an oversized one (413).
    pub body_timeout: Duration,
    /// HTTP connections open at once that have not become WebSockets (those count in
    /// `Limits::max_connections` instead); one more is closed on accept.
    pub max_http_connections: usize,
    /// Forwards to `inputUrl` in flight for one session; one more is shed.
    pub max_forwards_per_session: usize,
    /// Forwards to `inputUrl` in flight in total; one more is shed.
    pub max_forwards: usize,
    /// When set, every route (the create, the callback) and the WebSocket demand this token,
    /// as `Authorization: Bearer <token>`, or on the WebSocket only (browsers cannot set
    /// headers there) a `token` query parameter; a missing or wrong one gets 401. `None` (the
    /// default, as in the protocol's first version) asks for nothing.
    pub token: Option<String>,
    /// Accepted `Origin` headers (browser pages), on every route and the WebSocket upgrade;
    /// another, and `null`, gets 403. Default: loopback pages on a server bound to loopback,
    /// none otherwise ([`crate::origin`]).
    pub origins: Origins,
    /// Accepted `Host` headers; another gets 403. Default: loopback names on a server bound
    /// to loopback, any otherwise.
    pub hosts: Hosts,
}

impl Default for Guard {
    fn default() -> Self {
        Self {
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(10),
            max_http_connections: 1024,
            max_forwards_per_session: 8,
            max_forwards: 256,
            token: None,
            origins: Origins::ByAddress,
            hosts: Hosts::ByAddress,
        }
    }
}

impl Guard {
    /// The origin policy of a server bound at `addr` (`None`: unknown, checked as loopback).
    pub fn sites(&self, addr: Option<std::net::SocketAddr>) -> SitePolicy {
        SitePolicy::new(self.origins.clone(), self.hosts.clone(), addr)
    }
}

/// The answer a request without the right token gets, built by the protocol's binding (its
/// own error body).
pub type Unauthorized = Arc<dyn Fn() -> Response + Send + Sync>;

/// Puts `router`'s request bodies under the guard: a deadline, and a declared length over
/// `max_body_bytes` refused from the header.
pub fn wrap_bodies(router: Router, guard: &Guard, max_body_bytes: usize) -> Router {
    let bodies = BodyGuard {
        timeout: guard.body_timeout,
        max: max_body_bytes,
    };
    router.layer(axum::middleware::from_fn(move |req, next| {
        guard_body(bodies, req, next)
    }))
}

/// Demands `guard.token` (when one is configured) on every route of `router`; the routes a
/// protocol guards are its callback and its WebSocket, which the engine puts in `router`.
pub fn with_token<S>(router: Router<S>, guard: &Guard, unauthorized: Unauthorized) -> Router<S>
where
    S: Clone + Send + Sync + 'static,
{
    match guard.token.clone() {
        Some(token) => {
            let token: Arc<str> = token.into();
            router.route_layer(axum::middleware::from_fn(move |req, next| {
                require_token(token.clone(), unauthorized.clone(), req, next)
            }))
        }
        None => router,
    }
}

#[derive(Debug, Clone, Copy)]
struct BodyGuard {
    timeout: Duration,
    max: usize,
}

/// Gives the body a deadline, and replaces a body declared longer than the limit by one
/// that fails at once, so the handler answers 413 before a byte of it is read.
async fn guard_body(guard: BodyGuard, req: Request, next: Next) -> Response {
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    let req = match declared {
        Some(n) if n > guard.max as u64 => req.map(|_| {
            Body::from_stream(futures_util::stream::once(async move {
                Err::<bytes::Bytes, _>(std::io::Error::other(format!(
                    "declared length {n} is over the limit"
                )))
            }))
        }),
        Some(0) => req,
        // No declared length and no chunked body: nothing to read.
        None if !req.headers().contains_key(header::TRANSFER_ENCODING) => req,
        _ => req.map(|body| deadline_body(body, guard.timeout)),
    };
    next.run(req).await
}

/// `body` ending with an error once `timeout` has passed since it was first polled.
fn deadline_body(body: Body, timeout: Duration) -> Body {
    let chunks = body.into_data_stream();
    let deadline = tokio::time::Instant::now() + timeout;
    Body::from_stream(futures_util::stream::unfold(
        Some(chunks),
        move |chunks| async move {
            let mut chunks = chunks?;
            match tokio::time::timeout_at(deadline, chunks.next()).await {
                Ok(Some(Ok(bytes))) => Some((Ok(bytes), Some(chunks))),
                Ok(Some(Err(e))) => Some((Err(std::io::Error::other(e)), None)),
                Ok(None) => None,
                Err(_) => Some((
                    Err(std::io::Error::other("the body was not sent in time")),
                    None,
                )),
            }
        },
    ))
}

/// Whether the request presents the token; otherwise the protocol's 401 answer.
async fn require_token(
    token: Arc<str>,
    unauthorized: Unauthorized,
    req: Request,
    next: Next,
) -> Response {
    if presented(&req).is_some_and(|t| constant_time_eq(t.as_bytes(), token.as_bytes())) {
        return next.run(req).await;
    }
    let mut answer = unauthorized();
    *answer.status_mut() = StatusCode::UNAUTHORIZED;
    answer.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        header::HeaderValue::from_static("Bearer"),
    );
    answer
}

/// The token a request presents: the bearer credential, else, on a WebSocket upgrade only,
/// the `token` query parameter (a browser cannot set headers there). Plain HTTP routes take
/// the header alone: a token in a URL ends up in access logs and proxies' histories.
fn presented(req: &Request) -> Option<String> {
    if let Some(auth) = req.headers().get(header::AUTHORIZATION) {
        let auth = auth.to_str().ok()?;
        let (scheme, rest) = auth.split_once(' ')?;
        return scheme
            .eq_ignore_ascii_case("bearer")
            .then(|| rest.trim().to_owned());
    }
    let upgrade = req
        .headers()
        .get(header::UPGRADE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("websocket"));
    if !upgrade {
        return None;
    }
    form_value(req.uri().query()?, "token")
}

/// One parameter of a query string, percent-decoded.
fn form_value(query: &str, name: &str) -> Option<String> {
    query.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=')?;
        (k == name).then(|| percent_decode(v))
    })
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (b, hex) {
            (b'%', Some(h)) => {
                out.push(h);
                i += 3;
            }
            (b'+', _) => {
                out.push(b' ');
                i += 1;
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Compares in time that depends only on the lengths, so the response time does not tell
/// an attacker how many leading bytes of a guess were right.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// A new session id: `s` and 128 random bits in hex, from the operating system's generator.
/// It fits the protocol's `^[A-Za-z0-9_-]+$` and cannot be guessed from earlier ones. When
/// the generator fails there is no id: a predictable fallback would undo the point.
pub fn random_session_id() -> Result<String, getrandom::Error> {
    let mut bits = [0u8; 16];
    getrandom::fill(&mut bits)?;
    Ok(hex_id(bits))
}

/// `s` and the bits in lower-case hex.
fn hex_id(bits: [u8; 16]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut id = String::with_capacity(33);
    id.push('s');
    for b in bits {
        id.push(char::from(HEX[usize::from(b >> 4)]));
        id.push(char::from(HEX[usize::from(b & 0xf)]));
    }
    id
}

/// Forwards in flight, per session and in total.
#[derive(Debug, Clone)]
pub struct ForwardSlots {
    total: Arc<Semaphore>,
    per_session: Arc<Mutex<HashMap<String, usize>>>,
    max_per_session: usize,
    max_total: usize,
}

/// One forward's place; freed when dropped.
#[derive(Debug)]
pub struct ForwardSlot {
    _total: OwnedSemaphorePermit,
    session: String,
    per_session: Arc<Mutex<HashMap<String, usize>>>,
}

/// Why a forward was shed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Shed {
    #[error("not forwarded: {0} forwards of this session are already in flight")]
    Session(usize),
    #[error("not forwarded: {0} forwards are already in flight")]
    Total(usize),
}

impl ForwardSlots {
    pub fn new(guard: &Guard) -> Self {
        let max_total = guard.max_forwards.clamp(1, Semaphore::MAX_PERMITS);
        Self {
            total: Arc::new(Semaphore::new(max_total)),
            per_session: Arc::default(),
            max_per_session: guard.max_forwards_per_session.max(1),
            max_total,
        }
    }

    /// A slot for one more forward of `session`, or why there is none. Never waits.
    pub fn try_start(&self, session: &str) -> Result<ForwardSlot, Shed> {
        let mut counts = self.per_session.lock().unwrap_or_else(|e| e.into_inner());
        let count = counts.get(session).copied().unwrap_or(0);
        if count >= self.max_per_session {
            return Err(Shed::Session(self.max_per_session));
        }
        let total = self
            .total
            .clone()
            .try_acquire_owned()
            .map_err(|_| Shed::Total(self.max_total))?;
        counts.insert(session.to_owned(), count + 1);
        Ok(ForwardSlot {
            _total: total,
            session: session.to_owned(),
            per_session: self.per_session.clone(),
        })
    }
}

impl Drop for ForwardSlot {
    fn drop(&mut self) {
        let mut counts = self.per_session.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = counts.get_mut(&self.session) {
            *n -= 1;
            if *n == 0 {
                counts.remove(&self.session);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_compare_whole() {
        assert!(constant_time_eq(b"secret", b"secret"));
        assert!(!constant_time_eq(b"secret", b"secreT"));
        assert!(!constant_time_eq(b"secret", b"secret2"));
        assert!(!constant_time_eq(b"", b"x"));
    }

    #[test]
    fn session_ids_are_random_and_fit_the_pattern() {
        let a = random_session_id().unwrap();
        let b = random_session_id().unwrap();
        assert_eq!(hex_id([0xab; 16]), format!("s{}", "ab".repeat(16)));
        assert_ne!(a, b);
        assert_eq!(a.len(), 33);
        assert!(a.bytes().all(|c| c.is_ascii_alphanumeric()));
    }

    #[test]
    fn query_tokens_are_percent_decoded() {
        assert_eq!(form_value("a=1&token=x%2By+z", "token").unwrap(), "x+y z");
        assert_eq!(form_value("tokens=1", "token"), None);
    }

    #[test]
    fn forwards_are_capped_per_session_and_in_total() {
        let slots = ForwardSlots::new(&Guard {
            max_forwards_per_session: 2,
            max_forwards: 3,
            ..Guard::default()
        });
        let a1 = slots.try_start("a").unwrap();
        let _a2 = slots.try_start("a").unwrap();
        assert_eq!(slots.try_start("a").unwrap_err(), Shed::Session(2));
        let _b1 = slots.try_start("b").unwrap();
        assert_eq!(slots.try_start("c").unwrap_err(), Shed::Total(3));
        drop(a1);
        assert!(slots.try_start("a").is_ok());
    }
}
