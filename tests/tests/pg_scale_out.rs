//! Two external_agents agent-server instances on one PostgreSQL database, each a separate
//! process (the `external_agent_server` example built with `--features postgres`), behind
//! no balancer: a session created on A is attached on B; a callback posted to A reaches a web
//! UI connected to B, in order; a session deleted elsewhere gets 404 on both; 50 racing
//! creates spread over both give one owner; `kill -9` of A while callbacks stream loses no
//! acknowledged message and B keeps serving. The server is the distribution's PostgreSQL,
//! started once for this test binary (`agentwire_tests::postgres`).

use std::net::TcpListener;
use std::process::Stdio;
use std::time::Duration;

use agentwire_protocols::external_agents as proto;
use agentwire_protocols::skeletons::external_agents as sk;
use agentwire_tests::examples::example_binary_with;
use agentwire_tests::postgres;
use agentwire_transport::CheckMode;
use agentwire_transport::store::open_session_store;
use tokio::process::{Child, Command};
use tokio::time::timeout;

const EXT: &str = "external-agent-a";
const CHAT: &str = "chat-agent";

/// One agent-server process.
struct Instance {
    base: String,
    child: Child,
}

impl Instance {
    async fn start(db: &str) -> Self {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new(example_binary_with("external_agent_server", &["postgres"]))
            .env("EA_ADDR", format!("127.0.0.1:{port}"))
            .env("EA_DB", db)
            // Nothing listens there: these tests post callbacks, not user input.
            .env("EA_INPUT_URL", "http://127.0.0.1:9/v1/input")
            .env("RUST_LOG", "warn")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("start the agent server");
        let addr = format!("127.0.0.1:{port}");
        let up = async {
            while tokio::net::TcpStream::connect(&addr).await.is_err() {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        };
        timeout(Duration::from_secs(60), up)
            .await
            .expect("the agent server listens");
        Self {
            base: format!("http://{addr}"),
            child,
        }
    }

    fn ws(&self) -> String {
        format!("{}/ws", self.base.replacen("http", "ws", 1))
    }

    async fn create(&self, agent: &str, session: &str) -> sk::CreateSessionReply {
        sk::WebUiHttp::new(&self.base)
            .create_session(&proto::CreateSessionRequest {
                agent_id: agent.into(),
                session_id: Some(proto::SessionId(session.into())),
            })
            .await
            .unwrap()
    }

    async fn callback(&self, session: &str, text: &str) -> Option<sk::InjectMessageReply> {
        callback_to(&self.base, session, text).await
    }

    async fn attached(&self, session: &str) -> sk::WebUiClient {
        let mut ui = sk::WebUiClient::connect(&self.ws(), CheckMode::Enforce)
            .await
            .unwrap();
        ui.hello(proto::HelloMessage {
            session_id: proto::SessionId(session.into()),
        })
        .await
        .unwrap();
        match next(&mut ui).await {
            proto::AgentServerMessage::SessionReady(r) => assert_eq!(r.session_id.0, session),
            other => panic!("expected session_ready, got {other:?}"),
        }
        ui
    }
}

/// Posts a callback; `None` when the server did not answer (it is gone).
async fn callback_to(base: &str, session: &str, text: &str) -> Option<sk::InjectMessageReply> {
    sk::ExternalSystemHttp::new(base)
        .inject_message(session, text)
        .await
        .ok()
}

async fn next(ui: &mut sk::WebUiClient) -> proto::AgentServerMessage {
    timeout(Duration::from_secs(20), ui.next())
        .await
        .expect("a frame in time")
        .expect("connection open")
        .expect("valid, in-sequence frame")
}

/// The text of the next broadcast.
async fn next_text(ui: &mut sk::WebUiClient) -> String {
    match next(ui).await {
        proto::AgentServerMessage::Message(m) => m.text,
        other => panic!("expected a message, got {other:?}"),
    }
}

fn ok(reply: Option<sk::InjectMessageReply>) -> bool {
    matches!(reply, Some(sk::InjectMessageReply::Status200(_)))
}

async fn pair() -> (String, Instance, Instance) {
    let db = postgres::server().database();
    let a = Instance::start(&db).await;
    let b = Instance::start(&db).await;
    (db, a, b)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_created_on_a_is_attached_on_b_and_callbacks_reach_b_in_order() {
    let (db, a, b) = pair().await;
    let created = match a.create(EXT, "S-1").await {
        sk::CreateSessionReply::Status201(r) => r,
        other => panic!("expected 201, got {other:?}"),
    };
    match b.create(EXT, "S-1").await {
        sk::CreateSessionReply::Status200(r) => {
            assert_eq!(r.result.created_at, created.result.created_at)
        }
        other => panic!("expected 200 (attach) on B, got {other:?}"),
    }
    assert!(matches!(
        b.create(CHAT, "S-1").await,
        sk::CreateSessionReply::Status409(_)
    ));
    let mut on_b = b.attached("S-1").await;
    let mut on_a = a.attached("S-1").await;
    // Mostly to A, some to B: every UI gets every entry once, in the store's order.
    let mut sent = Vec::new();
    for i in 0..40 {
        let text = format!("reply {i}");
        let to = if i % 5 == 4 { &b } else { &a };
        assert!(ok(to.callback("S-1", &text).await), "callback {i}");
        sent.push(text);
    }
    for ui in [&mut on_b, &mut on_a] {
        for text in &sent {
            assert_eq!(&next_text(ui).await, text);
        }
    }
    // The log agrees.
    let store = open_session_store(&db).unwrap();
    let logged: Vec<String> = store
        .log("S-1")
        .unwrap()
        .iter()
        .map(|e| e.value["text"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(logged, sent);
    // Deleted by someone else (here: through the store), the session is gone on both.
    assert!(store.delete_session("S-1").unwrap());
    for instance in [&a, &b] {
        assert!(matches!(
            instance.callback("S-1", "late").await,
            Some(sk::InjectMessageReply::Status404(_))
        ));
    }
    // Revived on B by its agent, it takes callbacks on A again.
    assert!(matches!(
        b.create(EXT, "S-1").await,
        sk::CreateSessionReply::Status200(_)
    ));
    assert!(ok(a.callback("S-1", "back").await));
}

/// Ends every instance's listener connection (as a database failover or a network cut
/// would), leaving their other connections alone; first waits until both instances listen
/// (again). Returns how many it ended.
async fn cut_listeners(db: &str) -> usize {
    let (client, conn) = tokio_postgres::connect(db, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(conn);
    let listeners = "FROM pg_stat_activity
         WHERE datname = current_database() AND query = 'LISTEN agentwire_log'";
    let count = format!("SELECT count(*) {listeners}");
    let listening = async {
        while client
            .query_one(&count, &[])
            .await
            .unwrap()
            .get::<_, i64>(0)
            < 2
        {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    timeout(Duration::from_secs(20), listening)
        .await
        .expect("both listeners (re)connect");
    let cut = format!("SELECT pg_terminate_backend(pid) {listeners}");
    client.query(&cut, &[]).await.unwrap().len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listener_that_reconnects_catches_up_without_gaps_or_duplicates() {
    let (db, a, b) = pair().await;
    assert!(matches!(
        a.create(EXT, "L-1").await,
        sk::CreateSessionReply::Status201(_)
    ));
    let mut on_b = b.attached("L-1").await;
    let mut sent = Vec::new();
    for round in 0..3 {
        for i in 0..15 {
            let text = format!("round {round} line {i}");
            assert!(ok(a.callback("L-1", &text).await));
            sent.push(text);
        }
        // Cut while B may still be relaying: what was announced in the gap is read back
        // from the log when the listener is back.
        assert_eq!(cut_listeners(&db).await, 2, "one listener per instance");
    }
    for text in &sent {
        assert_eq!(&next_text(&mut on_b).await, text);
    }
    // Nothing more (no duplicate) arrives; the next entry is the next one.
    assert!(ok(a.callback("L-1", "last").await));
    assert_eq!(next_text(&mut on_b).await, "last");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_racing_creates_over_both_instances_give_one_owner() {
    let (db, a, b) = pair().await;
    let (a, b) = (std::sync::Arc::new(a), std::sync::Arc::new(b));
    let barrier = std::sync::Arc::new(tokio::sync::Barrier::new(50));
    let tasks: Vec<_> = (0..50)
        .map(|i| {
            let instance = if i % 2 == 0 { a.clone() } else { b.clone() };
            let barrier = barrier.clone();
            // Owners alternate independently of instances.
            let agent = if (i / 2) % 2 == 0 { EXT } else { CHAT };
            tokio::spawn(async move {
                barrier.wait().await;
                (agent, instance.create(agent, "RACE-1").await)
            })
        })
        .collect();
    let mut created = Vec::new();
    let mut attached = Vec::new();
    let mut refused = Vec::new();
    for t in tasks {
        match t.await.unwrap() {
            (agent, sk::CreateSessionReply::Status201(_)) => created.push(agent),
            (agent, sk::CreateSessionReply::Status200(_)) => attached.push(agent),
            (agent, sk::CreateSessionReply::Status409(_)) => refused.push(agent),
            (_, other) => panic!("unexpected answer {other:?}"),
        }
    }
    assert_eq!(created.len(), 1, "exactly one create wins");
    let owner = created[0];
    assert!(attached.iter().all(|a| *a == owner), "{attached:?}");
    assert!(refused.iter().all(|a| *a != owner), "{refused:?}");
    // 26 creates name the external agent, 24 the chat agent.
    let of_owner = if owner == EXT { 26 } else { 24 };
    assert_eq!(
        (attached.len(), refused.len()),
        (of_owner - 1, 50 - of_owner)
    );
    let store = open_session_store(&db).unwrap();
    assert_eq!(store.session("RACE-1").unwrap().unwrap().owner, owner);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_of_a_while_callbacks_stream_loses_no_acknowledged_message() {
    let (db, a, b) = pair().await;
    assert!(matches!(
        a.create(EXT, "K-1").await,
        sk::CreateSessionReply::Status201(_)
    ));
    let mut on_b = b.attached("K-1").await;
    let Instance {
        base: a_base,
        mut child,
    } = a;
    let b = std::sync::Arc::new(b);
    let (acked_tx, mut acked_rx) = tokio::sync::mpsc::unbounded_channel::<String>();
    // The external system streams callbacks to A and, once A stops answering, to B (what a
    // balancer would do); every acknowledged text is reported.
    let streamer = {
        let b = b.clone();
        tokio::spawn(async move {
            let mut on_a = true;
            let mut after_failover = 0;
            for i in 0.. {
                let text = format!("chunk {i}");
                if on_a {
                    if ok(callback_to(&a_base, "K-1", &text).await) {
                        acked_tx.send(text).unwrap();
                        continue;
                    }
                    on_a = false;
                }
                assert!(ok(b.callback("K-1", &text).await), "B keeps serving");
                acked_tx.send(text).unwrap();
                after_failover += 1;
                if after_failover == 30 {
                    return;
                }
            }
        })
    };
    let mut acked = Vec::new();
    while acked.len() < 60 {
        acked.push(acked_rx.recv().await.expect("callbacks keep streaming"));
    }
    child.start_kill().unwrap(); // SIGKILL
    child.wait().await.unwrap();
    timeout(Duration::from_secs(60), streamer)
        .await
        .expect("the stream finishes on B")
        .unwrap();
    while let Some(text) = acked_rx.recv().await {
        acked.push(text);
    }
    // Every acknowledged text is in the log, in order; an unacknowledged one that made it
    // into the store before the kill may be there too.
    let store = open_session_store(&db).unwrap();
    let logged: Vec<String> = store
        .log("K-1")
        .unwrap()
        .iter()
        .map(|e| e.value["text"].as_str().unwrap().to_owned())
        .collect();
    let mut rest = logged.iter();
    for text in &acked {
        assert!(
            rest.any(|l| l == text),
            "acknowledged {text:?} missing or out of order in the log"
        );
    }
    assert!(logged.len() <= acked.len() + 1, "{} logged", logged.len());
    // The UI on B saw the whole log, in order, through the kill.
    for text in &logged {
        assert_eq!(&next_text(&mut on_b).await, text);
    }
}
