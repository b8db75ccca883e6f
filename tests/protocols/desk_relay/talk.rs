//! desk_relay's generated skeletons talking over loopback: the relay (the session engine
//! bound by this spec's `sessions:` section), the desk's HTTP and WebSocket clients, and
//! the backend's receiver and callback client. One exchange each way, and refusals in the
//! protocol's own forms.

use std::time::Duration;

use crate::desk_relay as proto;
use crate::skeletons::desk_relay as sk;
use agentwire_transport::CheckMode;
use agentwire_transport::http_ws::{Limits, ServerConfig};
use agentwire_transport::store::sessions::SqliteSessionStore;
use tokio::sync::mpsc;

struct Backend(mpsc::UnboundedSender<proto::Question>);

impl sk::BackendHandler for Backend {
    async fn push_question(&self, body: proto::Question) -> Result<(), sk::HandlerError> {
        let _ = self.0.send(body);
        Ok(())
    }
}

async fn next(desk: &mut sk::DeskClient) -> proto::RelayFrame {
    tokio::time::timeout(Duration::from_secs(5), desk.next())
        .await
        .expect("a frame in time")
        .expect("connection open")
        .expect("valid, in-sequence frame")
}

fn entry(frame: proto::RelayFrame) -> proto::EntryFrame {
    match frame {
        proto::RelayFrame::Entry(e) => e,
        other => panic!("expected an entry, got {other:?}"),
    }
}

#[tokio::test]
async fn the_desk_and_the_backend_talk_through_the_relay_and_a_bad_frame_is_refused() {
    let (tx, mut questions) = mpsc::unbounded_channel();
    let backend_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let backend_url = format!("http://{}/q", backend_listener.local_addr().unwrap());
    let backend = sk::BackendServer::new(Backend(tx))
        .serve(backend_listener, "/q")
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let desks = [proto::DeskConfig {
        name: "front".into(),
        backend: Some(backend_url),
        public_base: Some(base.clone()),
    }];
    let config = ServerConfig {
        owners: sk::owners(&desks),
        limits: Limits::default(),
        mode: CheckMode::Enforce,
        guard: Default::default(),
    };
    let store = std::sync::Arc::new(SqliteSessionStore::in_memory().unwrap());
    let relay = sk::Relay::new(config, store);
    let server = relay.serve(listener).unwrap();

    // HTTP (PUT, as the spec says): open a ticket.
    let opened = sk::DeskHttp::new(&base)
        .open_ticket(&proto::OpenTicket {
            desk: "front".into(),
            ticket: Some(proto::TicketId("T-7".into())),
        })
        .await
        .unwrap();
    assert!(
        matches!(opened, sk::OpenTicketReply::Status201(_)),
        "{opened:?}"
    );

    // WebSocket at the spec's path: join, answered by `joined`.
    let ws = format!("{}/live", base.replacen("http", "ws", 1));
    let mut desk = sk::DeskClient::connect(&ws, CheckMode::Enforce)
        .await
        .unwrap();
    desk.join(proto::JoinFrame {
        ticket: proto::TicketId(" T-7 ".into()),
    })
    .await
    .unwrap();
    match next(&mut desk).await {
        proto::RelayFrame::Joined(j) => {
            assert_eq!((j.ticket.0.as_str(), j.desk.as_str()), ("T-7", "front"))
        }
        other => panic!("expected joined, got {other:?}"),
    }

    // One exchange desk -> backend: the question is echoed and forwarded.
    desk.ask(proto::AskFrame {
        question: "where is my order?".into(),
    })
    .await
    .unwrap();
    let echo = entry(next(&mut desk).await);
    assert_eq!(echo.author, proto::EntryFrameAuthor::Desk);
    let q = tokio::time::timeout(Duration::from_secs(5), questions.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (q.ticket.0.as_str(), q.question.as_str()),
        ("T-7", "where is my order?")
    );
    assert_eq!(q.at, echo.at);
    assert_eq!(q.reply_to, format!("{base}/tickets/T-7/answers"));

    // One exchange backend -> desk: the answer comes back through the callback route.
    let reply = sk::BackendHttp::new(&base)
        .post_answer("T-7", "it ships today")
        .await
        .unwrap();
    assert!(
        matches!(reply, sk::PostAnswerReply::Status200(_)),
        "{reply:?}"
    );
    let answer = entry(next(&mut desk).await);
    assert_eq!(
        (answer.author, answer.body.as_str()),
        (proto::EntryFrameAuthor::Backend, "it ships today")
    );

    // A bad message is refused in the protocol's own form, and the connection goes on.
    {
        use futures_util::{SinkExt, StreamExt};
        use tokio_tungstenite::tungstenite::Message as M;
        let (mut raw, _) = tokio_tungstenite::connect_async(&ws).await.unwrap();
        raw.send(M::text(r#"{"op":"ask","question":"too early"}"#))
            .await
            .unwrap();
        let got = tokio::time::timeout(Duration::from_secs(5), raw.next())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        match proto::RelayFrame::from_json(got.into_text().unwrap().as_str()).unwrap() {
            proto::RelayFrame::Refused(r) => {
                assert_eq!(r.reason, proto::RefusedFrameReason::JoinFirst)
            }
            other => panic!("expected refused, got {other:?}"),
        }
        raw.send(M::text(r#"{"op":"join","ticket":"nope"}"#))
            .await
            .unwrap();
        let got = raw.next().await.unwrap().unwrap();
        match proto::RelayFrame::from_json(got.into_text().unwrap().as_str()).unwrap() {
            proto::RelayFrame::Refused(r) => {
                assert_eq!(r.reason, proto::RefusedFrameReason::BadTicket)
            }
            other => panic!("expected refused, got {other:?}"),
        }
        // A frame only the relay sends is named as such.
        raw.send(M::text(r#"{"op":"joined","ticket":"T-7","desk":"front"}"#))
            .await
            .unwrap();
        let got = raw.next().await.unwrap().unwrap();
        match proto::RelayFrame::from_json(got.into_text().unwrap().as_str()).unwrap() {
            proto::RelayFrame::Refused(r) => assert!(
                r.detail
                    .contains("`joined` is sent by the relay, not the desk"),
                "{r:?}"
            ),
            other => panic!("expected refused, got {other:?}"),
        }
    }
    // An unknown ticket on the callback route gets the protocol's HTTP error body.
    match sk::BackendHttp::new(&base)
        .post_answer("T-99", "?")
        .await
        .unwrap()
    {
        sk::PostAnswerReply::Status404(p) => assert_eq!(p.reason, proto::ProblemReason::NoTicket),
        other => panic!("expected 404, got {other:?}"),
    }
    assert_eq!(relay.violations(), 0);
    server.shutdown().await.unwrap();
    backend.shutdown().await.unwrap();
}
