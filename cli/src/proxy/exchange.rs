//! The plain HTTP requests of an `http+websocket` protocol (its routes), relayed by the
//! WebSocket proxy to the upstream's `http://` form and recorded as the exchanges
//! `trace check` reads (`{"from": ROLE, "http": {"method", "path", "status", "body"}}`,
//! the request's body), once the answer's status is known. Bodies are capped at
//! `--max-frame-size` both ways and due within `--frame-timeout`; a body that is not JSON
//! is recorded as text.

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;
use serde_json::{Value, json};

use super::ws::{Shared, plain};

/// How long the upstream may take to answer.
const ANSWER_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(300);
/// Headers that belong to one hop, never relayed.
const HOP: [&str; 8] = [
    "connection",
    "keep-alive",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
    "content-length",
];

/// Relays one request and records the exchange.
pub async fn relay(s: &Shared, http: &reqwest::Client, req: Request) -> Response {
    let rules = s.rules;
    let (parts, body) = req.into_parts();
    let read = tokio::time::timeout(
        rules.frame_timeout,
        axum::body::to_bytes(body, rules.max_frame_size),
    );
    let body = match read.await {
        Ok(Ok(b)) => b,
        Ok(Err(_)) => {
            let why = format!("request body over {} bytes", rules.max_frame_size);
            return plain(StatusCode::PAYLOAD_TOO_LARGE, why);
        }
        Err(_) => return plain(StatusCode::REQUEST_TIMEOUT, "request body too slow".into()),
    };
    let mut url = super::ws::upstream_url(&s.upstream, &parts.uri);
    if url.set_scheme("http").is_err() {
        return plain(
            StatusCode::BAD_GATEWAY,
            "no http:// form of the upstream".into(),
        );
    }
    let sent = http
        .request(parts.method.clone(), url)
        .headers(without_hop(&parts.headers))
        .body(body.clone())
        .send();
    let answer = match tokio::time::timeout(ANSWER_TIMEOUT, sent).await {
        Ok(Ok(a)) => a,
        Ok(Err(e)) => return plain(StatusCode::BAD_GATEWAY, format!("upstream: {e}")),
        Err(_) => {
            return plain(
                StatusCode::GATEWAY_TIMEOUT,
                "upstream did not answer".into(),
            );
        }
    };
    let status = answer.status();
    let headers = without_hop(answer.headers());
    let whole = match whole(rules, answer).await {
        Ok(w) => w,
        Err(why) => return plain(StatusCode::BAD_GATEWAY, why),
    };
    let exchange = json!({
        "method": parts.method.as_str(),
        "path": parts.uri.path(),
        "status": status.as_u16(),
        "body": value(&body),
    });
    rules.session.exchange(rules.stream, s.client, &exchange);
    let mut out = Response::new(Body::from(whole));
    *out.status_mut() = status;
    *out.headers_mut() = headers;
    out
}

/// The answer's body, whole, within the size cap and the frame deadline per chunk.
async fn whole(
    rules: super::rules::Rules<'_>,
    mut answer: reqwest::Response,
) -> Result<Vec<u8>, String> {
    let mut whole = Vec::new();
    loop {
        match tokio::time::timeout(rules.frame_timeout, answer.chunk()).await {
            Ok(Ok(Some(c))) if whole.len() + c.len() <= rules.max_frame_size => {
                whole.extend_from_slice(&c);
            }
            Ok(Ok(None)) => return Ok(whole),
            Ok(Ok(Some(_))) => {
                return Err(format!("answer body over {} bytes", rules.max_frame_size));
            }
            Ok(Err(_)) | Err(_) => return Err("upstream answer cut off".into()),
        }
    }
}

/// A body as the trace holds it: its JSON, its text, or null when empty.
fn value(body: &Bytes) -> Value {
    if body.is_empty() {
        return Value::Null;
    }
    serde_json::from_slice(body)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(body).into_owned()))
}

fn without_hop(headers: &HeaderMap) -> HeaderMap {
    let mut out = headers.clone();
    for name in HOP {
        out.remove(name);
    }
    out.remove(header::CONTENT_LENGTH);
    out
}
