//! tick's every version on one Streamable HTTP endpoint: a stream opened by `tick/open` is a
//! session of the version it offers; a request naming its version (in `_meta` and the
//! `Tick-Version` header) is served on its own, with no session, by that version's handler
//! and machine; an undeclared version, a version named twice differently, a missing or
//! disagreeing mirrored header are refused with the spec's codes before any handler runs;
//! and state a handler answers with is sealed, so that a retry reaching another instance
//! holding the key continues the flow while a changed, foreign or expired one is refused.
//! The negotiating client (`streamable_http::negotiate`) probes such an endpoint, and scripted
//! ones, and settles on a version or falls back to the handshake as the answers say.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use std::time::Duration;

use agentwire_runtime::jsonrpc::RpcError;
use agentwire_test_protocols::skeletons::tick::v2::STREAMABLE_HTTP;
use agentwire_test_protocols::skeletons::tick::{ServerHandlers, v1, v2};
use agentwire_test_protocols::tick::{v1 as t1, v2 as t2};
use agentwire_transport::jsonrpc::{Config, serve_versions_http};
use agentwire_transport::seal::Sealer;
use agentwire_transport::streamable_http::{
    ClientConfig, ClientError, Era, ServerConfig, SharedSealer, negotiate,
};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const KEY: &[u8] = b"tick test key, thirty-two bytes!";

/// A counter of both versions; a v1 count over 5 asks to be confirmed first: it answers
/// with its state (the step it was asked for) and counts only when that state comes back.
#[derive(Default)]
struct Counter {
    total: AtomicI64,
    calls: AtomicUsize,
}

impl v2::ServerHandler for Counter {
    async fn tick_open(
        &self,
        _: v2::ServerSender,
        _: t2::OpenParams,
    ) -> Result<t2::OpenResult, RpcError> {
        Ok(t2::OpenResult {
            version: "2".to_owned(),
        })
    }

    async fn tick_count(
        &self,
        _: v2::ServerSender,
        p: t2::CountParams,
    ) -> Result<t2::CountResult, RpcError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        Ok(t2::CountResult {
            total: self.total.fetch_add(p.step, Ordering::SeqCst) + p.step,
        })
    }

    async fn tick_stop(
        &self,
        _: v2::ServerSender,
        _: t2::StopParams,
    ) -> Result<t2::StopResult, RpcError> {
        Ok(t2::StopResult {
            total: self.total.load(Ordering::SeqCst),
        })
    }
}

impl v1::ServerHandler for Counter {
    async fn tick_open(
        &self,
        _: v1::ServerSender,
        _: t1::OpenParams,
    ) -> Result<t1::OpenResult, RpcError> {
        Ok(t1::OpenResult {
            version: "1".to_owned(),
        })
    }

    async fn tick_count(
        &self,
        _: v1::ServerSender,
        p: t1::CountParams,
    ) -> Result<t1::CountResult, RpcError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let confirmed = p.state.as_deref().map(serde_json::from_str::<Value>);
        match confirmed {
            None if p.step > 5 => Ok(t1::CountResult {
                total: self.total.load(Ordering::SeqCst),
                state: Some(json!({"confirm": p.step}).to_string()),
            }),
            Some(Ok(state)) if state["confirm"] != p.step => Err(RpcError {
                code: -32602,
                message: "the state is for another step".to_owned(),
                data: None,
            }),
            _ => Ok(t1::CountResult {
                total: self.total.fetch_add(p.step, Ordering::SeqCst) + p.step,
                state: None,
            }),
        }
    }
}

/// One server instance of both versions; `key`: its sealing key.
async fn start(counter: Arc<Counter>, key: &[u8], ttl: Duration) -> String {
    let handlers = ServerHandlers {
        v2: Arc::clone(&counter),
        v1: counter,
    };
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let mut http = ServerConfig::new(STREAMABLE_HTTP);
    http.sealer = Some(SharedSealer(Arc::new(Sealer::new(key, ttl).unwrap())));
    let server =
        serve_versions_http(Arc::new(handlers), listener, http, Config::default()).unwrap();
    let addr = server.local_addr();
    // The test ends the process; the server lives as long.
    std::mem::forget(server);
    addr.to_string()
}

/// One POST of `body` with `headers` to `addr`'s endpoint, on a connection of its own:
/// the status, the answer's headers (lower case) and its JSON body (or null).
async fn post(addr: &str, headers: &[(&str, &str)], body: &Value) -> (u16, String, Value) {
    let body = body.to_string();
    let mut head = format!(
        "POST /tick HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nConnection: close\r\n\
         Content-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(format!("{head}\r\n{body}").as_bytes())
        .await
        .unwrap();
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut raw))
        .await
        .unwrap()
        .unwrap();
    let text = String::from_utf8(raw).unwrap();
    let (head, rest) = text.split_once("\r\n\r\n").unwrap();
    let status = head[9..12].parse().unwrap();
    let head = head.to_ascii_lowercase();
    // An SSE answer: the last `data:` line is the response.
    let json = rest
        .lines()
        .filter_map(|l| l.strip_prefix("data: ").or(l.strip_prefix("data:")))
        .rfind(|d| !d.trim().is_empty())
        .map(str::to_owned)
        .unwrap_or_else(|| rest.trim().to_owned());
    (
        status,
        head,
        serde_json::from_str(&json).unwrap_or(Value::Null),
    )
}

fn count(id: i64, version: &str, step: i64, state: Option<&str>) -> Value {
    let mut params = json!({"step": step, "_meta": {"tick.example/version": version}});
    if let Some(s) = state {
        params["state"] = json!(s);
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tick/count", "params": params})
}

#[tokio::test]
async fn a_request_naming_its_version_is_served_alone_in_that_version() {
    let counter = Arc::new(Counter::default());
    let addr = start(Arc::clone(&counter), KEY, Duration::from_secs(60)).await;
    let (status, head, answer) =
        post(&addr, &[("Tick-Version", "1")], &count(1, "1", 3, None)).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["result"]["total"], 3, "{answer}");
    assert!(!head.contains("tick-session"), "no session is made: {head}");
    let (_, _, answer) = post(&addr, &[("Tick-Version", "1")], &count(2, "1", 4, None)).await;
    assert_eq!(answer["result"]["total"], 7, "{answer}");
    // Version 2's machine wants the stream opened before it counts: alone, a count is out of
    // sequence, refused by that version's own checker.
    let v2 = [
        ("Tick-Version", "2"),
        ("Tick-Method", "tick/count"),
        ("Tick-Step", "5"),
    ];
    let (status, _, answer) = post(&addr, &v2, &count(3, "2", 5, None)).await;
    assert_eq!(
        (status, answer["error"]["code"].clone()),
        (200, json!(-32600)),
        "{answer}"
    );
    assert_eq!(counter.total.load(Ordering::SeqCst), 7);
}

#[tokio::test]
async fn undeclared_twice_named_and_unnamed_versions_are_refused_before_any_handler() {
    let counter = Arc::new(Counter::default());
    let addr = start(Arc::clone(&counter), KEY, Duration::from_secs(60)).await;
    let (status, _, answer) = post(&addr, &[("Tick-Version", "9")], &count(1, "9", 3, None)).await;
    assert_eq!(status, 400);
    assert_eq!(answer["id"], 1);
    assert_eq!(answer["error"]["code"], -32031, "{answer}");
    assert_eq!(
        answer["error"]["data"],
        json!({"supported": ["2", "1"], "requested": "9"})
    );
    let (status, _, answer) = post(&addr, &[("Tick-Version", "2")], &count(2, "1", 3, None)).await;
    assert_eq!(
        (status, answer["error"]["code"].clone()),
        (400, json!(-32030)),
        "{answer}"
    );
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("named twice")
    );
    // The header is required beside `_meta`.
    let (status, _, answer) = post(&addr, &[], &count(3, "1", 3, None)).await;
    assert_eq!(
        (status, answer["error"]["code"].clone()),
        (400, json!(-32030)),
        "{answer}"
    );
    let plain = json!({"jsonrpc": "2.0", "id": 4, "method": "tick/count", "params": {"step": 1}});
    let (status, _, answer) = post(&addr, &[], &plain).await;
    // Naming no version, it is a session's message without the session header.
    assert_eq!(
        (status, answer["error"]["code"].clone()),
        (400, json!(-32000)),
        "{answer}"
    );
    assert_eq!(counter.calls.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn mirrored_headers_must_agree_with_the_body() {
    let counter = Arc::new(Counter::default());
    let addr = start(Arc::clone(&counter), KEY, Duration::from_secs(60)).await;
    let version = ("Tick-Version", "2");
    let cases: [(&[(&str, &str)], &str); 4] = [
        (
            &[("Tick-Method", "tick/count")],
            "Tick-Step header is required",
        ),
        (
            &[("Tick-Method", "tick/stop"), ("Tick-Step", "5")],
            "does not match",
        ),
        (
            &[("Tick-Method", "tick/count"), ("Tick-Step", "6")],
            "does not match",
        ),
        (
            &[("Tick-Method", "tick/count"), ("Tick-Step", "=?b64?!?=")],
            "base64",
        ),
    ];
    for (headers, why) in cases {
        let mut all = vec![version];
        all.extend_from_slice(headers);
        let (status, _, answer) = post(&addr, &all, &count(1, "2", 5, None)).await;
        assert_eq!(
            (status, answer["error"]["code"].clone()),
            (400, json!(-32030)),
            "{answer}"
        );
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains(why), "{message}");
    }
    // A step written as a number with a fraction, or base64-encoded, still agrees: the
    // request reaches version 2 (whose machine then refuses a count before opening).
    for step in ["5.0", "=?b64?NQ==?="] {
        let headers = [version, ("Tick-Method", "tick/count"), ("Tick-Step", step)];
        let (status, _, answer) = post(&addr, &headers, &count(1, "2", 5, None)).await;
        assert_eq!(
            (status, answer["error"]["code"].clone()),
            (200, json!(-32600)),
            "{answer}"
        );
    }
    assert_eq!(counter.calls.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_session_opened_by_the_handshake_runs_in_its_version_with_mirrored_headers() {
    let counter = Arc::new(Counter::default());
    let addr = start(Arc::clone(&counter), KEY, Duration::from_secs(60)).await;
    let open =
        json!({"jsonrpc": "2.0", "id": 0, "method": "tick/open", "params": {"version": "2"}});
    let (status, head, answer) = post(&addr, &[], &open).await;
    assert_eq!(
        (status, answer["result"]["version"].clone()),
        (200, json!("2")),
        "{answer}"
    );
    let session = head
        .lines()
        .find_map(|l| l.strip_prefix("tick-session: "))
        .expect("a session is made")
        .trim()
        .to_owned();
    let step50 = json!({"jsonrpc": "2.0", "id": 1, "method": "tick/count", "params": {"step": 50}});
    let headers = [
        ("Tick-Session", session.as_str()),
        ("Tick-Version", "2"),
        ("Tick-Method", "tick/count"),
        ("Tick-Step", "50"),
    ];
    let (status, _, answer) = post(&addr, &headers, &step50).await;
    assert_eq!(
        (status, answer["result"]["total"].clone()),
        (200, json!(50)),
        "{answer}"
    );
    // In a session of version 2 too, a mirrored header must agree with the body.
    let wrong = [headers[0], headers[1], headers[2], ("Tick-Step", "49")];
    let (status, _, answer) = post(&addr, &wrong, &step50).await;
    assert_eq!(
        (status, answer["error"]["code"].clone()),
        (400, json!(-32030)),
        "{answer}"
    );
}

/// Relays each connection accepted on one address to the next of `backends` in turn.
async fn round_robin(backends: Vec<String>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    tokio::spawn(async move {
        let mut next = 0;
        while let Ok((mut inbound, _)) = listener.accept().await {
            let backend = backends[next % backends.len()].clone();
            next += 1;
            tokio::spawn(async move {
                if let Ok(mut outbound) = TcpStream::connect(backend).await {
                    let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                }
            });
        }
    });
    addr
}

#[tokio::test]
async fn sealed_state_continues_on_another_instance_and_is_refused_when_changed_or_foreign() {
    let (a, b) = (Arc::new(Counter::default()), Arc::new(Counter::default()));
    let ttl = Duration::from_secs(60);
    let front = round_robin(vec![
        start(Arc::clone(&a), KEY, ttl).await,
        start(Arc::clone(&b), KEY, ttl).await,
    ])
    .await;
    let v1 = [("Tick-Version", "1")];
    // The first instance asks for confirmation: the state it answers with is sealed.
    let (_, _, asked) = post(&front, &v1, &count(1, "1", 7, None)).await;
    let sealed = asked["result"]["state"].as_str().expect("state").to_owned();
    assert!(!sealed.contains("confirm"), "sealed, not plain: {sealed}");
    // The retry reaches the second instance, which opens it and counts.
    let (status, _, done) = post(&front, &v1, &count(2, "1", 7, Some(&sealed))).await;
    assert_eq!(
        (status, done["result"]["total"].clone()),
        (200, json!(7)),
        "{done}"
    );
    assert_eq!(
        (
            a.calls.load(Ordering::SeqCst),
            b.calls.load(Ordering::SeqCst)
        ),
        (1, 1)
    );
    // Changed, foreign or expired state reaches no handler.
    let mut changed = sealed.clone().into_bytes();
    changed[3] = if changed[3] == b'A' { b'B' } else { b'A' };
    let changed = String::from_utf8(changed).unwrap();
    let foreign = start(
        Arc::new(Counter::default()),
        b"another key, also thirty-two byte",
        ttl,
    )
    .await;
    let short = start(Arc::new(Counter::default()), KEY, Duration::from_secs(1)).await;
    let (_, _, asked) = post(&short, &v1, &count(3, "1", 8, None)).await;
    let expiring = asked["result"]["state"].as_str().unwrap().to_owned();
    tokio::time::sleep(Duration::from_millis(2100)).await;
    for (addr, state, reason) in [
        (&front, changed.as_str(), "does not verify"),
        (&foreign, sealed.as_str(), "does not verify"),
        (&short, expiring.as_str(), "expired"),
    ] {
        let step = if addr == &short { 8 } else { 7 };
        let (status, _, refused) = post(addr, &v1, &count(4, "1", step, Some(state))).await;
        assert_eq!(
            (status, refused["error"]["code"].clone()),
            (400, json!(-32602)),
            "{refused}"
        );
        assert_eq!(refused["error"]["data"]["member"], "state");
        let got = refused["error"]["data"]["reason"].as_str().unwrap();
        assert!(got.contains(reason), "{got}");
    }
    assert_eq!(
        (
            a.calls.load(Ordering::SeqCst),
            b.calls.load(Ordering::SeqCst)
        ),
        (1, 1)
    );
    // State sealed for one method is refused on another (bound to `tick/count`): the same
    // token given to version 1's count of another step is opened, and the handler itself
    // sees it is for another step.
    let (_, _, other) = post(&front, &v1, &count(5, "1", 6, Some(&sealed))).await;
    assert_eq!(
        other["error"]["message"], "the state is for another step",
        "{other}"
    );
}

// ---- The negotiating client (`streamable_http::negotiate`) ---------------------------------

/// A scripted endpoint: answers each POST with what `answer` makes of the version its body
/// names (`status`, `body`); one connection per request. Returns its URL.
async fn scripted(answer: fn(&str) -> (u16, String)) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut raw = Vec::new();
                let mut buf = [0u8; 4096];
                // The head, then as many body bytes as it announces.
                let body = loop {
                    let Ok(n) = stream.read(&mut buf).await else {
                        return;
                    };
                    if n == 0 {
                        return;
                    }
                    raw.extend_from_slice(&buf[..n]);
                    let text = String::from_utf8_lossy(&raw).into_owned();
                    let Some((head, body)) = text.split_once("\r\n\r\n") else {
                        continue;
                    };
                    let length = head
                        .lines()
                        .find_map(|l| {
                            l.to_ascii_lowercase()
                                .strip_prefix("content-length:")
                                .map(|v| v.trim().to_owned())
                        })
                        .and_then(|v| v.parse::<usize>().ok())
                        .unwrap_or(0);
                    if body.len() >= length {
                        break body.to_owned();
                    }
                };
                let message: Value = serde_json::from_str(&body).unwrap_or_default();
                let version = message["params"]["_meta"]["tick.example/version"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned();
                let (status, body) = answer(&version);
                let reply = format!(
                    "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\n\
                     Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = stream.write_all(reply.as_bytes()).await;
            });
        }
    });
    format!("http://{addr}/tick")
}

async fn negotiated(url: &str) -> Result<Era, ClientError> {
    negotiate(
        url,
        STREAMABLE_HTTP,
        ClientConfig::default(),
        ("tick/count", json!({"step": 0})),
        |result| result.get("total").is_some(),
        Duration::from_secs(60),
    )
    .await
}

#[tokio::test]
async fn the_negotiating_client_retries_in_a_version_the_server_lists_and_falls_back_to_the_handshake()
 {
    // Version 2 refused with the unsupported code listing 1; the probe in 1 is answered.
    let url = scripted(|version| match version {
        "1" => (
            200,
            json!({"jsonrpc": "2.0", "id": 0, "result": {"total": 0}}).to_string(),
        ),
        v => (
            400,
            json!({"jsonrpc": "2.0", "id": 0, "error": {"code": -32031, "message": "unsupported",
                "data": {"supported": ["1"], "requested": v}}})
            .to_string(),
        ),
    })
    .await;
    assert_eq!(negotiated(&url).await, Ok(Era::Named("1".into())));
    // A 400 whose body names no error this protocol knows: a server of the handshake era.
    let url = scripted(|_| (400, "Bad Request: no session".to_owned())).await;
    assert_eq!(negotiated(&url).await, Ok(Era::Handshake(None)));
    // A server answering every method with an empty result (no `total`): not of the era that
    // names its version per message, whatever it says.
    let url = scripted(|_| {
        let answer = json!({"jsonrpc": "2.0", "id": 0, "result": {}});
        (200, answer.to_string())
    })
    .await;
    assert_eq!(negotiated(&url).await, Ok(Era::Handshake(None)));
    // A server that lists only versions this client does not speak.
    let url = scripted(|v| {
        let error = json!({"code": -32031, "message": "unsupported", "data": {"supported": ["9"], "requested": v}});
        (400, json!({"jsonrpc": "2.0", "id": 0, "error": error}).to_string())
    })
    .await;
    let none = negotiated(&url).await.unwrap_err().to_string();
    assert!(
        none.contains("none of this client's versions (2, 1)"),
        "{none}"
    );
    // A modern refusal of the probe's headers is reported, not taken for an older server.
    let url = scripted(|_| {
        let error = json!({"code": -32030, "message": "header mismatch"});
        (
            400,
            json!({"jsonrpc": "2.0", "id": 0, "error": error}).to_string(),
        )
    })
    .await;
    let mismatch = negotiated(&url).await.unwrap_err().to_string();
    assert!(mismatch.contains("error -32030"), "{mismatch}");
}

#[tokio::test]
async fn against_both_versions_the_probe_finds_the_newest_spoken_after_the_handshake() {
    // tick 2 counts only on an opened stream: its probe is refused by version 2's own machine
    // (not for its version), so version 2 is spoken, after the handshake.
    let counter = Arc::new(Counter::default());
    let addr = start(Arc::clone(&counter), KEY, Duration::from_secs(60)).await;
    let url = format!("http://{addr}/tick");
    assert_eq!(negotiated(&url).await, Ok(Era::Handshake(Some("2".into()))));
    // The same through the generated client, with a typed probe of the newest version.
    let probe = t2::ClientRequest::TickCount(t2::CountParams::new(1));
    let era = v2::Client::negotiate_http(
        &url,
        STREAMABLE_HTTP,
        &probe,
        ClientConfig::default(),
        Duration::from_secs(60),
    )
    .await;
    assert_eq!(era, Ok(Era::Handshake(Some("2".into()))));
    // Refused before any handler ran: the probe counted nothing.
    assert_eq!(counter.calls.load(Ordering::SeqCst), 0);
}
