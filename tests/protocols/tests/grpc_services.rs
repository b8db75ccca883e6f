//! gauge's generated server and client (plain gRPC services, `transport: {kind: grpc}` and
//! nothing else) over a loopback h2c connection: one call of each kind (unary, server
//! streaming, client streaming, bidirectional) and one taking `google.protobuf.Empty`; the
//! spec's validators refusing a bad request on the server (`INVALID_ARGUMENT` naming the
//! pointer and the rule), a bad request the client does not send, and a bad reply
//! (`INTERNAL`); a deadline, and a call the client cancels.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use agentwire_transport::futures_util::StreamExt;
use agentwire_transport::grpc::BoxStream;
use agentwire_transport::tokio::{self, sync::mpsc};
use agentwire_transport::tonic::codegen::tokio_stream::wrappers::{
    ReceiverStream, TcpListenerStream,
};
use agentwire_transport::tonic::{self, Code, Request, Response, Status, Streaming};

use agentwire_test_protocols::gauge::{ReadRequest, Reading, Sample, Summary, WatchRequest};
use agentwire_test_protocols::skeletons::gauge::meter_client::MeterClient;
use agentwire_test_protocols::skeletons::gauge::meter_server::{Meter, MeterServer};

const LIMIT: Duration = Duration::from_secs(20);

/// Answers every call; `bad-reply` gets a reading that breaks the spec, `slow` waits.
struct TestMeter {
    /// Calls that reached the handler.
    calls: Arc<AtomicUsize>,
    /// The sensor of each watch whose client went away before it finished.
    gone: mpsc::UnboundedSender<String>,
}

fn reading(sensor: &str, value: f64, seq: u64) -> Reading {
    Reading {
        sensor: sensor.to_owned(),
        value,
        seq,
    }
}

#[tonic::async_trait]
impl Meter for TestMeter {
    async fn read(&self, request: Request<ReadRequest>) -> Result<Response<Reading>, Status> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let sensor = request.into_inner().sensor;
        match sensor.as_str() {
            "bad-reply" => Ok(Response::new(reading("", 0.0, 0))),
            "slow" => {
                tokio::time::sleep(LIMIT).await;
                Ok(Response::new(reading(&sensor, 0.0, 0)))
            }
            _ => Ok(Response::new(reading(&sensor, 1.5, 1))),
        }
    }

    type WatchStream = BoxStream<Reading>;

    async fn watch(
        &self,
        request: Request<WatchRequest>,
    ) -> Result<Response<Self::WatchStream>, Status> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let w = request.into_inner();
        let (tx, rx) = mpsc::channel(1);
        let gone = self.gone.clone();
        tokio::spawn(async move {
            for seq in 0..u64::from(w.count) {
                if tx.send(Ok(reading(&w.sensor, 0.5, seq))).await.is_err() {
                    let _ = gone.send(w.sensor);
                    return;
                }
                tokio::time::sleep(Duration::from_millis(w.every_ms.into())).await;
            }
        });
        Ok(Response::new(Box::pin(ReceiverStream::new(rx))))
    }

    async fn upload(
        &self,
        request: Request<Streaming<Sample>>,
    ) -> Result<Response<Summary>, Status> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let mut samples = request.into_inner();
        let mut summary = Summary::default();
        // An invalid sample arrives as the status that ends the call.
        while let Some(sample) = samples.message().await? {
            summary.samples += 1;
            summary.total += sample.value;
        }
        Ok(Response::new(summary))
    }

    type TuneStream = BoxStream<Reading>;

    async fn tune(
        &self,
        request: Request<Streaming<Sample>>,
    ) -> Result<Response<Self::TuneStream>, Status> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let answers = request.into_inner().enumerate().map(|(seq, sample)| {
            let s = sample?;
            let sensor = if s.sensor == "bad-reply" {
                ""
            } else {
                &s.sensor
            };
            Ok(reading(sensor, s.value * 2.0, seq as u64))
        });
        Ok(Response::new(Box::pin(answers)))
    }

    async fn reset(
        &self,
        _request: Request<pbjson_types::Empty>,
    ) -> Result<Response<pbjson_types::Empty>, Status> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        Ok(Response::new(pbjson_types::Empty {}))
    }
}

struct Running {
    url: String,
    calls: Arc<AtomicUsize>,
    gone: mpsc::UnboundedReceiver<String>,
}

async fn start() -> Running {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let calls = Arc::new(AtomicUsize::new(0));
    let (tx, gone) = mpsc::unbounded_channel();
    let meter = TestMeter {
        calls: calls.clone(),
        gone: tx,
    };
    let incoming = TcpListenerStream::new(listener);
    tokio::spawn(
        tonic::transport::Server::builder().serve_with_incoming(MeterServer::new(meter), incoming),
    );
    Running { url, calls, gone }
}

fn sample(sensor: &str, value: f64) -> Sample {
    Sample {
        sensor: sensor.to_owned(),
        value,
    }
}

#[tokio::test]
async fn every_call_kind_round_trips() {
    let run = start().await;
    let mut client = MeterClient::connect(run.url.clone()).await.unwrap();
    tokio::time::timeout(LIMIT, async {
        let r = client
            .read(ReadRequest {
                sensor: "t1".into(),
            })
            .await
            .unwrap();
        assert_eq!(r.into_inner(), reading("t1", 1.5, 1));

        let watch = WatchRequest {
            sensor: "t2".into(),
            count: 3,
            every_ms: 1,
        };
        let stream = client.watch(watch).await.unwrap().into_inner();
        let seqs: Vec<u64> = stream.map(|r| r.unwrap().seq).collect().await;
        assert_eq!(seqs, [0, 1, 2]);

        let samples = [sample("a", 1.0), sample("b", 2.5), sample("c", -0.5)];
        let summary = client
            .upload(futures_util::stream::iter(samples.clone()))
            .await
            .unwrap()
            .into_inner();
        assert_eq!((summary.samples, summary.total), (3, 3.0));

        let answers = client
            .tune(futures_util::stream::iter(samples))
            .await
            .unwrap()
            .into_inner();
        let values: Vec<f64> = answers.map(|r| r.unwrap().value).collect().await;
        assert_eq!(values, [2.0, 5.0, -1.0]);

        client.reset(pbjson_types::Empty {}).await.unwrap();
    })
    .await
    .unwrap();
    assert_eq!(run.calls.load(Ordering::SeqCst), 5);
}

/// The refusal a status carries: its code, and the pointer and rule in its message.
fn assert_refused(status: &Status, code: Code, pointer: &str, rule: &str) {
    assert_eq!(status.code(), code, "{status:?}");
    let msg = status.message();
    assert!(msg.contains(pointer) && msg.contains(rule), "{msg}");
}

/// Meter's calls on tonic's bare client and prost's codec (the codec a handshake layer's rpc
/// takes, `LayerCodec`): nothing is checked on the way out.
struct Unchecked(tonic::client::Grpc<tonic::transport::Channel>);

impl Unchecked {
    async fn connect(url: &str) -> Self {
        let channel = tonic::transport::Endpoint::new(url.to_owned())
            .unwrap()
            .connect()
            .await
            .unwrap();
        Self(tonic::client::Grpc::new(channel))
    }

    async fn path(&mut self, rpc: &'static str) -> tonic::codegen::http::uri::PathAndQuery {
        self.0.ready().await.unwrap();
        tonic::codegen::http::uri::PathAndQuery::from_static(rpc)
    }

    async fn read(&mut self, q: ReadRequest) -> Result<Response<Reading>, Status> {
        let path = self.path("/gauge.Meter/Read").await;
        let codec = agentwire_transport::grpc::LayerCodec::default();
        self.0.unary(Request::new(q), path, codec).await
    }

    async fn upload(
        &mut self,
        q: impl tonic::codegen::tokio_stream::Stream<Item = Sample> + Send + 'static,
    ) -> Result<Response<Summary>, Status> {
        let path = self.path("/gauge.Meter/Upload").await;
        let codec = agentwire_transport::grpc::LayerCodec::default();
        self.0.client_streaming(Request::new(q), path, codec).await
    }

    async fn tune(
        &mut self,
        q: impl tonic::codegen::tokio_stream::Stream<Item = Sample> + Send + 'static,
    ) -> Result<Response<Streaming<Reading>>, Status> {
        let path = self.path("/gauge.Meter/Tune").await;
        let codec = agentwire_transport::grpc::LayerCodec::default();
        self.0.streaming(Request::new(q), path, codec).await
    }
}

#[tokio::test]
async fn the_server_refuses_an_invalid_request_with_invalid_argument() {
    let run = start().await;
    // tonic's client on prost's codec, which checks nothing, sends what ours would not.
    let mut raw = Unchecked::connect(&run.url).await;
    let bad = ReadRequest {
        sensor: "Not OK".into(),
    };
    let status = raw.read(bad).await.unwrap_err();
    assert_refused(&status, Code::InvalidArgument, "/sensor", "pattern");
    assert!(
        status.message().starts_with("invalid message: "),
        "{status:?}"
    );

    // Client streaming: the bad sample (the second) ends the call; the handler saw the first.
    let samples = [sample("a", 1.0), sample("b", 5000.0), sample("c", 1.0)];
    let status = raw
        .upload(futures_util::stream::iter(samples))
        .await
        .unwrap_err();
    assert_refused(&status, Code::InvalidArgument, "/value", "maximum 1000");

    // Bidirectional: the answer to the good sample arrives, then the refusal.
    let samples = [sample("a", 1.0), sample("", 1.0)];
    let mut answers = raw
        .tune(futures_util::stream::iter(samples))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(answers.message().await.unwrap().unwrap().value, 2.0);
    let status = answers.message().await.unwrap_err();
    assert_refused(&status, Code::InvalidArgument, "/sensor", "min_length 1");
}

#[tokio::test]
async fn the_client_does_not_send_an_invalid_request() {
    let run = start().await;
    let mut client = MeterClient::connect(run.url.clone()).await.unwrap();
    let bad = WatchRequest {
        sensor: "t".into(),
        count: 0,
        every_ms: 1,
    };
    // The encode fails, the stream is reset: tonic reports the reset (the reason is logged).
    let status = client.watch(bad).await.unwrap_err();
    assert_eq!(status.code(), Code::Internal, "{status:?}");
    assert_eq!(run.calls.load(Ordering::SeqCst), 0, "the handler saw it");
}

#[tokio::test]
async fn an_invalid_reply_is_not_sent_and_the_client_gets_internal() {
    let run = start().await;
    let mut client = MeterClient::connect(run.url.clone()).await.unwrap();
    let status = client
        .read(ReadRequest {
            sensor: "bad-reply".into(),
        })
        .await
        .unwrap_err();
    assert_refused(&status, Code::Internal, "/sensor", "min_length 1");
    assert!(status.message().contains("not sent"), "{status:?}");

    // On a stream, the reply that breaks the spec ends the call. (tonic encodes the replies
    // ready at once together and drops the batch a failing one is in, so the bad reply comes
    // first here: what was sent before it depends on timing.)
    let samples = [sample("bad-reply", 1.0), sample("a", 1.0)];
    let answers = client.tune(futures_util::stream::iter(samples)).await;
    let status = match answers {
        Ok(answers) => answers.into_inner().message().await.unwrap_err(),
        Err(status) => status,
    };
    assert_refused(&status, Code::Internal, "/sensor", "min_length 1");
}

#[tokio::test]
async fn a_deadline_ends_the_call_and_a_dropped_stream_cancels_it() {
    let mut run = start().await;
    let mut client = MeterClient::connect(run.url.clone()).await.unwrap();
    let mut slow = Request::new(ReadRequest {
        sensor: "slow".into(),
    });
    slow.set_timeout(Duration::from_millis(200));
    let started = std::time::Instant::now();
    let status = client.read(slow).await.unwrap_err();
    // tonic reports a deadline its client enforced as `CANCELLED`, "Timeout expired".
    assert_eq!(status.code(), Code::Cancelled, "{status:?}");
    assert!(status.message().contains("Timeout expired"), "{status:?}");
    assert!(started.elapsed() < LIMIT / 2);

    // The client reads one reading of many and drops the stream: the server's producer
    // finds the call gone.
    let watch = WatchRequest {
        sensor: "long".into(),
        count: 1000,
        every_ms: 10,
    };
    let mut stream = client.watch(watch).await.unwrap().into_inner();
    assert_eq!(stream.message().await.unwrap().unwrap().seq, 0);
    drop(stream);
    let gone = tokio::time::timeout(LIMIT, run.gone.recv()).await.unwrap();
    assert_eq!(gone.as_deref(), Some("long"));
}
