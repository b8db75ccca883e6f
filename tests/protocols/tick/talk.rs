//! tick's generated skeletons of every version on the wire: one server endpoint serving a
//! version 2 client and a version 1 client, a client offering version 2 falling back to a
//! server that speaks only version 1, an offer of an undeclared version answered with the
//! newest, a version named in `_meta` picking its version (or answered with the supported
//! versions when undeclared), and a client closing on an answer in a version it does not
//! speak.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use agentwire_runtime::jsonrpc::RpcError;
use agentwire_transport::jsonrpc::{Config, Connection, VersionError};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};
use tokio::time::timeout;

use crate::skeletons::tick::{
    ClientHandlers, NegotiatedClient, NegotiatedServer, ServerHandlers, v1, v2,
};
use crate::tick::Version;

const WAIT: Duration = Duration::from_secs(10);

/// A counter that answers the handshake with its own version, `version`.
struct Counter {
    version: &'static str,
    total: AtomicI64,
}

impl Counter {
    fn new(version: &'static str) -> Arc<Self> {
        Arc::new(Counter {
            version,
            total: AtomicI64::new(0),
        })
    }

    fn add(&self, step: i64) -> i64 {
        self.total.fetch_add(step, Ordering::SeqCst) + step
    }
}

impl v2::ServerHandler for Counter {
    async fn tick_open(
        &self,
        _: v2::ServerSender,
        _: crate::tick::v2::OpenParams,
    ) -> Result<crate::tick::v2::OpenResult, RpcError> {
        Ok(crate::tick::v2::OpenResult {
            version: self.version.to_owned(),
        })
    }

    async fn tick_count(
        &self,
        _: v2::ServerSender,
        p: crate::tick::v2::CountParams,
    ) -> Result<crate::tick::v2::CountResult, RpcError> {
        Ok(crate::tick::v2::CountResult {
            total: self.add(p.step),
        })
    }

    async fn tick_stop(
        &self,
        _: v2::ServerSender,
        _: crate::tick::v2::StopParams,
    ) -> Result<crate::tick::v2::StopResult, RpcError> {
        Ok(crate::tick::v2::StopResult {
            total: self.total.load(Ordering::SeqCst),
        })
    }
}

impl v1::ServerHandler for Counter {
    async fn tick_open(
        &self,
        _: v1::ServerSender,
        _: crate::tick::v1::OpenParams,
    ) -> Result<crate::tick::v1::OpenResult, RpcError> {
        Ok(crate::tick::v1::OpenResult {
            version: self.version.to_owned(),
        })
    }

    async fn tick_count(
        &self,
        _: v1::ServerSender,
        p: crate::tick::v1::CountParams,
    ) -> Result<crate::tick::v1::CountResult, RpcError> {
        Ok(crate::tick::v1::CountResult {
            total: self.add(p.step),
            state: None,
        })
    }
}

/// One endpoint serving both versions: version 2 streams to one counter, version 1 to another.
fn both() -> ServerHandlers<Counter, Counter> {
    ServerHandlers {
        v2: Counter::new("2"),
        v1: Counter::new("1"),
    }
}

type Halves = (ReadHalf<DuplexStream>, WriteHalf<DuplexStream>);

fn pipe() -> (Halves, Halves) {
    let (a, b) = tokio::io::duplex(64 * 1024);
    (tokio::io::split(a), tokio::io::split(b))
}

fn offer(version: &str) -> crate::tick::v2::OpenParams {
    crate::tick::v2::OpenParams {
        version: version.to_owned(),
    }
}

/// Serves `server_end` in a task (the first message comes only once the client writes).
fn serve(
    handlers: ServerHandlers<Counter, Counter>,
    (r, w): Halves,
) -> tokio::task::JoinHandle<std::io::Result<(NegotiatedServer, Connection)>> {
    tokio::spawn(async move { handlers.serve(r, w, Config::default()).await })
}

#[tokio::test]
async fn one_endpoint_serves_a_version_2_client_in_version_2() {
    let (server_end, (cr, cw)) = pipe();
    let served = serve(both(), server_end);
    let (client, _connection) = timeout(
        WAIT,
        ClientHandlers::none().connect(cr, cw, offer("2"), Config::default()),
    )
    .await
    .unwrap()
    .expect("the handshake agrees");
    assert_eq!(client.version(), Version::V2);
    let NegotiatedClient::V2(opened) = client else {
        panic!("version 2 expected");
    };
    assert_eq!(opened.result.version, "2");
    // A step of 50 is version 2's (version 1 allows at most 10).
    let counted = opened
        .handle
        .tick_count(crate::tick::v2::CountParams {
            step: 50,
            label: Some("fifty".to_owned()),
        })
        .await
        .unwrap();
    assert_eq!(counted.total, 50);
    let stopped = opened
        .handle
        .tick_stop(crate::tick::v2::StopParams { total: Some(50) })
        .await
        .unwrap();
    assert_eq!(stopped.total, 50);
    let (server, _) = served.await.unwrap().unwrap();
    assert_eq!(server.version(), Version::V2);
}

#[tokio::test]
async fn one_endpoint_serves_a_version_1_client_in_version_1() {
    let (server_end, (cr, cw)) = pipe();
    let handlers = both();
    let v1_counter = Arc::clone(&handlers.v1);
    let served = serve(handlers, server_end);
    // A client of version 1 alone, knowing nothing of version 2.
    let (client, _notes, _connection) = v1::Client::connect(cr, cw, Config::default());
    let opened = timeout(
        WAIT,
        client.tick_open(crate::tick::v1::OpenParams {
            version: "1".to_owned(),
        }),
    )
    .await
    .unwrap()
    .unwrap();
    assert_eq!(opened.version, "1");
    let counted = client
        .tick_count(crate::tick::v1::CountParams {
            step: 7,
            state: None,
        })
        .await
        .unwrap();
    assert_eq!(counted.total, 7);
    // `tick/reset` exists in version 1 only; the version 1 server takes it.
    client
        .tick_reset(crate::tick::v1::ResetParams { reason: None })
        .await
        .unwrap();
    // A step of 50 breaks version 1's bound: the client refuses to send it.
    let too_big = client
        .tick_count(crate::tick::v1::CountParams {
            step: 50,
            state: None,
        })
        .await;
    assert!(too_big.is_err(), "{too_big:?}");
    assert_eq!(v1_counter.total.load(Ordering::SeqCst), 7);
    let (server, _) = served.await.unwrap().unwrap();
    assert_eq!(server.version(), Version::V1);
}

#[tokio::test]
async fn a_client_offering_version_2_falls_back_to_a_version_1_server() {
    let ((sr, sw), (cr, cw)) = pipe();
    // A server of version 1 alone: it answers every offer with version 1.
    let (_server, _server_connection) =
        v1::Server::serve(Counter::new("1"), sr, sw, Config::default());
    let (client, _connection) = timeout(
        WAIT,
        ClientHandlers::none().connect(cr, cw, offer("2"), Config::default()),
    )
    .await
    .unwrap()
    .expect("falls back to version 1");
    let NegotiatedClient::V1(opened) = client else {
        panic!("version 1 expected");
    };
    assert_eq!(opened.result.version, "1");
    // The version 1 checker saw the handshake: counting after it is in order, and the
    // connection speaks version 1's types.
    let counted = opened
        .handle
        .tick_count(crate::tick::v1::CountParams {
            step: 3,
            state: None,
        })
        .await
        .unwrap();
    assert_eq!(counted.total, 3);
}

/// A raw peer on the other end of a pipe: writes lines, reads lines.
struct Raw {
    lines: tokio::io::Lines<BufReader<ReadHalf<DuplexStream>>>,
    writer: WriteHalf<DuplexStream>,
}

impl Raw {
    fn new((r, w): Halves) -> Self {
        Raw {
            lines: BufReader::new(r).lines(),
            writer: w,
        }
    }

    async fn send(&mut self, message: Value) {
        let line = format!("{message}\n");
        self.writer.write_all(line.as_bytes()).await.unwrap();
    }

    async fn recv(&mut self) -> Option<Value> {
        let line = timeout(WAIT, self.lines.next_line())
            .await
            .unwrap()
            .unwrap()?;
        Some(serde_json::from_str(&line).unwrap())
    }
}

#[tokio::test]
async fn an_offer_of_an_undeclared_version_is_answered_with_the_newest() {
    let (server_end, client_end) = pipe();
    let served = serve(both(), server_end);
    let mut raw = Raw::new(client_end);
    raw.send(json!({"jsonrpc": "2.0", "id": 0, "method": "tick/open", "params": {"version": "7"}}))
        .await;
    let answer = raw.recv().await.unwrap();
    assert_eq!(answer["result"]["version"], "2", "{answer}");
    let (server, _) = served.await.unwrap().unwrap();
    assert_eq!(server.version(), Version::V2);
}

#[tokio::test]
async fn a_version_named_in_meta_picks_it_and_an_undeclared_one_is_refused() {
    let (server_end, client_end) = pipe();
    let served = serve(both(), server_end);
    let mut raw = Raw::new(client_end);
    let count = |id: i64, version: &str, step: i64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tick/count",
               "params": {"step": step, "_meta": {"tick.example/version": version}}})
    };
    raw.send(count(1, "9", 5)).await;
    let refused = raw.recv().await.unwrap();
    assert_eq!(refused["error"]["code"], -32031, "{refused}");
    assert_eq!(
        refused["error"]["data"],
        json!({"supported": ["2", "1"], "requested": "9"})
    );
    // The stream is still open: a request naming version 1 opens it as version 1, whose
    // machine lets it count without opening first.
    raw.send(count(2, "1", 5)).await;
    let counted = raw.recv().await.unwrap();
    assert_eq!(
        counted,
        json!({"jsonrpc": "2.0", "id": 2, "result": {"total": 5}})
    );
    let (server, _) = served.await.unwrap().unwrap();
    assert_eq!(server.version(), Version::V1);
}

#[tokio::test]
async fn a_stream_named_version_2_is_checked_by_version_2s_machine() {
    let (server_end, client_end) = pipe();
    let served = serve(both(), server_end);
    let mut raw = Raw::new(client_end);
    // Version 2 forbids counting before the counter is opened.
    raw.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tick/count",
                    "params": {"step": 5, "_meta": {"tick.example/version": "2"}}}))
        .await;
    let refused = raw.recv().await.unwrap();
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    let (server, _) = served.await.unwrap().unwrap();
    assert_eq!(server.version(), Version::V2);
}

#[tokio::test]
async fn a_client_closes_on_an_answer_in_a_version_it_does_not_speak() {
    let ((sr, sw), (cr, cw)) = pipe();
    let mut raw = Raw::new((sr, sw));
    let client = tokio::spawn(async move {
        ClientHandlers::none()
            .connect(cr, cw, offer("2"), Config::default())
            .await
    });
    let request = raw.recv().await.unwrap();
    assert_eq!(request["method"], "tick/open");
    assert_eq!(request["params"]["version"], "2");
    raw.send(json!({"jsonrpc": "2.0", "id": request["id"], "result": {"version": "9"}}))
        .await;
    let failed = timeout(WAIT, client).await.unwrap().unwrap();
    match failed {
        Err(VersionError::Unsupported {
            offered, answered, ..
        }) => {
            assert_eq!(offered.as_deref(), Some("2"));
            assert_eq!(answered.as_deref(), Some("9"));
        }
        other => panic!("expected Unsupported, got {other:?}"),
    }
    // The client said nothing more and closed its end.
    assert_eq!(raw.recv().await, None);
}

#[tokio::test]
async fn a_refused_handshake_is_a_typed_error() {
    let ((sr, sw), (cr, cw)) = pipe();
    let mut raw = Raw::new((sr, sw));
    let client = tokio::spawn(async move {
        ClientHandlers::none()
            .connect(cr, cw, offer("2"), Config::default())
            .await
    });
    let request = raw.recv().await.unwrap();
    raw.send(json!({"jsonrpc": "2.0", "id": request["id"],
                    "error": {"code": -32603, "message": "not today"}}))
        .await;
    let failed = timeout(WAIT, client).await.unwrap().unwrap();
    assert!(
        matches!(&failed, Err(VersionError::Refused(e)) if e.message == "not today"),
        "{failed:?}"
    );
}
