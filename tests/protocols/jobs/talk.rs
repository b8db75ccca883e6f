//! jobs' generated hub and worker over a real tonic connection: a job streamed to its
//! terminal update (hub -> worker -> hub), a note answered by a log line (hub -> worker ->
//! hub), an abort, the hub's own refusal (`denied`) of a worker, gRPC statuses for a bad
//! hello and for a stream that does not start with one, and a clean shutdown.

use std::time::Duration;

use agentwire_transport::grpc::{ConnectError, SendError};
use agentwire_transport::tokio::{self, sync::mpsc};
use agentwire_transport::tonic::Code;

use crate::jobs::{
    Abort, Denied, Finished, Hello, HubMessage, Job, Log, Note, Ready, WorkerMessage, progress,
    worker_message,
};
use crate::skeletons::jobs::job_hub_client::JobHubClient;
use crate::skeletons::jobs::{
    Hub, HubHandler, Reply, Session, WorkerConfig, WorkerHandle, WorkerHandler, connect,
};

const LIMIT: Duration = Duration::from_secs(20);

/// Accepts every worker except those named `banned-*`; forwards handles and log lines.
struct TestHub {
    connected: mpsc::UnboundedSender<WorkerHandle>,
    logs: mpsc::UnboundedSender<String>,
}

impl HubHandler for TestHub {
    async fn on_hello(&self, hello: &Hello) -> Result<Ready, Denied> {
        if hello.name.starts_with("banned") {
            return Err(Denied {
                why: "not on the list".to_owned(),
            });
        }
        Ok(Ready::default())
    }

    async fn on_connected(&self, peer: WorkerHandle) {
        let _ = self.connected.send(peer);
    }

    async fn on_log(&self, _peer: &WorkerHandle, msg: Log) {
        let _ = self.logs.send(msg.line);
    }
}

/// Runs `build` at once; `wait` waits for an abort.
struct TestWorker;

impl WorkerHandler for TestWorker {
    async fn on_job(&self, job: Job, mut reply: Reply) {
        if job.command == "wait" {
            reply.cancelled().await;
            let _ = reply.cancel_done().await;
            return;
        }
        let _ = reply.output(format!("running {}", job.command)).await;
        let _ = reply.finished(format!("{} ok", job.command)).await;
    }

    async fn on_note(&self, session: &Session, msg: Note) {
        let line = format!("noted: {}", msg.text);
        session.log(Log { line }).await.unwrap();
    }
}

fn hello(name: &str, caps: &[&str]) -> Hello {
    Hello {
        name: name.to_owned(),
        caps: caps.iter().map(|c| (*c).to_owned()).collect(),
    }
}

fn job(id: &str, command: &str) -> Job {
    Job {
        job_id: id.to_owned(),
        command: command.to_owned(),
    }
}

/// Opens a raw stream that sends `first` and returns the status that ends it.
async fn raw_status(addr: &str, first: WorkerMessage) -> Code {
    let mut client = JobHubClient::connect(addr.to_owned()).await.unwrap();
    let (tx, rx) = mpsc::channel::<WorkerMessage>(4);
    tx.send(first).await.unwrap();
    let out =
        futures_util::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|m| (m, rx)) });
    let mut stream = match client.work(out).await {
        Ok(r) => r.into_inner(),
        Err(status) => return status.code(),
    };
    loop {
        match stream.message().await {
            Ok(Some(HubMessage { .. })) => continue,
            Ok(None) => return Code::Ok,
            Err(status) => return status.code(),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hub_and_worker_talk_and_refuse_bad_input() {
    tokio::time::timeout(LIMIT, async {
        let (connected_tx, mut connected) = mpsc::unbounded_channel();
        let (logs_tx, mut logs) = mpsc::unbounded_channel();
        let hub = Hub::new(
            TestHub {
                connected: connected_tx,
                logs: logs_tx,
            },
            Default::default(),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = format!("http://{}", listener.local_addr().unwrap());
        let server = tokio::spawn(hub.clone().serve(listener));

        let config = WorkerConfig::new(hello("w-1", &["abort"]));
        let worker = connect(addr.clone(), config, TestWorker).await.unwrap();
        // `accept_id: worker`: the empty id in the handler's Ready is filled in.
        assert_eq!(worker.session().ready().worker, "w-1");
        let handle = connected.recv().await.unwrap();
        assert_eq!(handle.name(), "w-1");

        // Hub -> worker -> hub: a job streamed to its terminal update.
        let updates = handle
            .job(job("j1", "build"))
            .await
            .unwrap()
            .collect()
            .await;
        let updates: Vec<_> = updates.into_iter().filter_map(|p| p.update).collect();
        assert_eq!(
            updates,
            [
                progress::Update::Output("running build".to_owned()),
                progress::Update::Finished(Finished {
                    summary: "build ok".to_owned()
                }),
            ]
        );
        // The other way: a note the worker answers with a log line of its own.
        let note = Note {
            text: "hello".to_owned(),
        };
        handle.note(note).await.unwrap();
        assert_eq!(logs.recv().await.unwrap(), "noted: hello");

        // An abort ends the job in flight with `aborted`, echoing the reason.
        let waiting = handle.job(job("j2", "wait")).await.unwrap();
        assert!(matches!(
            handle.job(job("j3", "build")).await,
            Err(SendError::Busy(id)) if id == "j2"
        ));
        let abort = Abort {
            job_id: "j2".to_owned(),
            why: Some("user".to_owned()),
        };
        handle.abort(abort).await.unwrap();
        let updates: Vec<_> = waiting
            .collect()
            .await
            .into_iter()
            .filter_map(|p| p.update)
            .collect();
        assert!(
            matches!(&updates[..], [progress::Update::Aborted(a)] if a.why == "user"),
            "{updates:?}"
        );

        // Refusals: the hub's own `denied`, and gRPC statuses for what it cannot take.
        let banned = WorkerConfig::new(hello("banned-1", &[]));
        match connect(addr.clone(), banned, TestWorker).await {
            Err(ConnectError::Rejected(d)) => assert_eq!(d.why, "not on the list"),
            other => panic!("expected a denial, got {:?}", other.map(|_| ())),
        }
        let bad_name = WorkerMessage {
            body: Some(worker_message::Body::Hello(hello("Not A Name", &[]))),
        };
        assert_eq!(raw_status(&addr, bad_name).await, Code::InvalidArgument);
        let log_first = WorkerMessage {
            body: Some(worker_message::Body::Log(Log::default())),
        };
        assert_eq!(raw_status(&addr, log_first).await, Code::FailedPrecondition);
        // `statuses.taken: UNAVAILABLE`: a hello naming a connected worker gets that status.
        let taken = WorkerMessage {
            body: Some(worker_message::Body::Hello(hello("w-1", &[]))),
        };
        assert_eq!(raw_status(&addr, taken).await, Code::Unavailable);

        // A worker that did not declare `abort` is never sent one.
        let plain = connect(
            addr.clone(),
            WorkerConfig::new(hello("w-2", &[])),
            TestWorker,
        )
        .await
        .unwrap();
        let plain_handle = connected.recv().await.unwrap();
        let abort = Abort {
            job_id: "j9".to_owned(),
            why: None,
        };
        assert!(matches!(
            plain_handle.abort(abort).await,
            Err(SendError::FeatureNotDeclared("abort"))
        ));

        hub.shutdown();
        worker.wait().await.unwrap();
        plain.wait().await.unwrap();
        server.await.unwrap().unwrap();
    })
    .await
    .unwrap();
}
