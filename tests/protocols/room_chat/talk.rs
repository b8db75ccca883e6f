//! room_chat's generated skeletons talking to each other over loopback WebSocket: one
//! exchange each way, and the hub refusing a bad frame with the protocol's `error` message.

use std::time::Duration;

use agentwire_transport::ws::{ClientConfig, ServerConfig};
use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::Message;

use crate::room_chat::{
    Content, DiceContent, HeardMessage, HubMessage, JoinMessage, JoinedMessage, LeaveMessage,
    RoomId, SayMessage,
};
use crate::skeletons::room_chat::{Client, Handler, Sender, serve};

const WAIT: Duration = Duration::from_secs(10);

/// A hub with one member per room: confirms every join and echoes what is said.
struct Hub;

impl Handler for Hub {
    async fn join(&self, out: &Sender, msg: JoinMessage) {
        let joined = JoinedMessage {
            room: msg.room,
            members: 1,
        };
        out.joined(joined).await.unwrap();
    }

    async fn say(&self, out: &Sender, msg: SayMessage) {
        let heard = HeardMessage {
            room: msg.room,
            nick: "echo".to_owned(),
            content: msg.content,
        };
        out.heard(heard).await.unwrap();
    }

    async fn leave(&self, _: &Sender, _: LeaveMessage) {}
}

async fn next(client: &mut Client) -> HubMessage {
    let got = tokio::time::timeout(WAIT, client.next()).await.unwrap();
    got.expect("connection open").expect("a valid frame")
}

#[tokio::test]
async fn member_and_hub_exchange_messages_both_ways() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = serve(listener, Hub, ServerConfig::default()).await.unwrap();
    let mut client = Client::connect(&server.url(), ClientConfig::default())
        .await
        .unwrap();
    let room = RoomId("lobby".to_owned());
    let join = JoinMessage {
        room: room.clone(),
        nick: "ada".to_owned(),
    };
    client.join(join).await.unwrap();
    let HubMessage::Joined(joined) = next(&mut client).await else {
        panic!("expected joined");
    };
    assert_eq!((joined.room.0.as_str(), joined.members), ("lobby", 1));

    let say = SayMessage {
        room: room.clone(),
        content: Content::Dice(DiceContent { value: 6 }),
    };
    client.say(say).await.unwrap();
    let HubMessage::Heard(heard) = next(&mut client).await else {
        panic!("expected heard");
    };
    assert!(matches!(
        heard.content,
        Content::Dice(DiceContent { value: 6 })
    ));

    client.close().await;
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn the_hub_refuses_a_bad_frame_with_an_error_message() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = serve(listener, Hub, ServerConfig::default()).await.unwrap();
    let (mut raw, _) = tokio_tungstenite::connect_async(server.url())
        .await
        .unwrap();
    let bad = r#"{"type":"join","room":"Not A Room!","nick":"ada"}"#;
    raw.send(Message::text(bad)).await.unwrap();
    let frame = tokio::time::timeout(WAIT, raw.next())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    let text = frame.into_text().unwrap();
    let HubMessage::Error(error) = HubMessage::from_json(&text).unwrap() else {
        panic!("expected an error frame, got {text}");
    };
    assert!(error.payload.message.contains("/room"), "{text}");
    assert!(text.contains("pattern"), "{text}");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn the_hub_names_a_frame_only_the_hub_sends() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = serve(listener, Hub, ServerConfig::default()).await.unwrap();
    let (mut raw, _) = tokio_tungstenite::connect_async(server.url())
        .await
        .unwrap();
    let theirs = r#"{"type":"joined","room":"lobby","members":1}"#;
    raw.send(Message::text(theirs)).await.unwrap();
    let frame = tokio::time::timeout(WAIT, raw.next())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    let text = frame.into_text().unwrap();
    let HubMessage::Error(error) = HubMessage::from_json(&text).unwrap() else {
        panic!("expected an error frame, got {text}");
    };
    assert!(
        error
            .payload
            .message
            .contains("`joined` is sent by the hub, not the member"),
        "{text}"
    );
    server.shutdown().await.unwrap();
}
