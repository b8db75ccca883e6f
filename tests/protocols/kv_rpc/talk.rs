//! kv_rpc's generated skeletons talking to each other over an in-memory pipe: a request
//! answered, a notification each way, a method sent both as a request and as a notification,
//! and the server refusing bad params with a JSON-RPC error response.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use agentwire_runtime::jsonrpc::{Outcome, RpcError};
use agentwire_transport::jsonrpc::{Config, Connection};

use crate::kv_rpc::{
    ChangedParams, ClientMessage, ClientNotification, ClientRequest, CloseParams, Handle,
    OpenParams, OpenResult, PutParams, PutResult, ServerNotification, TextValue, TouchParams,
    TouchResult, Value,
};
use crate::skeletons::kv_rpc::{Client, Server, ServerHandler, ServerNotifications, ServerSender};

const WAIT: Duration = Duration::from_secs(10);

/// A store that hands out one handle and announces every write.
struct Store;

impl ServerHandler for Store {
    async fn store_open(&self, _: ServerSender, _: OpenParams) -> Result<OpenResult, RpcError> {
        Ok(OpenResult {
            handle: Handle("h1".to_owned()),
        })
    }

    async fn store_put(&self, sender: ServerSender, p: PutParams) -> Result<PutResult, RpcError> {
        let changed = ChangedParams {
            handle: p.handle,
            key: p.key,
            value: p.value,
            version: 1,
        };
        sender.store_changed(changed).await.unwrap();
        Ok(PutResult { version: 1 })
    }

    async fn store_touch(&self, _: ServerSender, _: TouchParams) -> Result<TouchResult, RpcError> {
        Ok(TouchResult { keys: 1 })
    }

    async fn store_touch_notification(&self, _: ServerSender, _: TouchParams) {
        TOUCHED.fetch_add(1, Ordering::SeqCst);
    }
}

/// How many `store/touch` notifications the server has handled.
static TOUCHED: AtomicUsize = AtomicUsize::new(0);

/// Both ends over an in-memory pipe; the connections are returned so they stay open.
fn connect() -> (Client, ServerNotifications, [Connection; 2]) {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let (sr, sw) = tokio::io::split(server_end);
    let (cr, cw) = tokio::io::split(client_end);
    let (_, server) = Server::serve(Arc::new(Store), sr, sw, Config::default());
    let (client, notifications, connection) = Client::connect(cr, cw, Config::default());
    (client, notifications, [server, connection])
}

#[tokio::test]
async fn client_and_server_exchange_requests_and_notifications() {
    let (client, mut notifications, _connections) = connect();
    let opened = client
        .store_open(OpenParams {
            name: "notes".to_owned(),
        })
        .await
        .unwrap();
    assert_eq!(opened.handle.0, "h1");
    let put = PutParams {
        handle: opened.handle.clone(),
        key: "greeting".to_owned(),
        value: Value::Text(TextValue {
            text: "hello".to_owned(),
        }),
    };
    assert_eq!(client.store_put(put).await.unwrap().version, 1);
    let changed = tokio::time::timeout(WAIT, notifications.recv())
        .await
        .unwrap()
        .unwrap();
    let ServerNotification::StoreChanged(changed) = changed;
    assert_eq!(changed.key, "greeting");
    client
        .store_close(CloseParams {
            handle: opened.handle,
        })
        .await
        .unwrap();
    client.close();
}

#[tokio::test]
async fn the_server_refuses_bad_params_with_an_error_response() {
    let (client, _notifications, _connections) = connect();
    let bad = serde_json::json!({"handle": "not-a-handle", "key": "", "value": {"kind": "text", "text": "x"}});
    let response = tokio::time::timeout(WAIT, client.peer().request_raw("store/put", Some(bad)))
        .await
        .unwrap()
        .unwrap();
    let Outcome::Error(error) = response.outcome else {
        panic!("expected an error response");
    };
    assert_eq!(error.code, -32602, "{error:?}");
    let text = format!("{} {:?}", error.message, error.data);
    assert!(text.contains("/params/handle"), "{text}");
    client.close();
}

#[tokio::test]
async fn one_method_is_a_request_with_an_id_and_a_notification_without() {
    let touch = |id: &str| {
        format!(
            r#"{{"jsonrpc": "2.0", {id}"method": "store/touch", "params": {{"handle": "h1"}}}}"#
        )
    };
    let handle = || TouchParams {
        handle: Handle("h1".to_owned()),
    };
    match ClientMessage::from_json(&touch(r#""id": 7, "#)).unwrap() {
        ClientMessage::Request { request, .. } => {
            assert_eq!(request, ClientRequest::StoreTouch(handle()))
        }
        other => panic!("{other:?}"),
    }
    match ClientMessage::from_json(&touch("")).unwrap() {
        ClientMessage::Notification(n) => assert_eq!(n, ClientNotification::StoreTouch(handle())),
        other => panic!("{other:?}"),
    }
    // Over the wire: the request is answered, the notification reaches its own handler.
    let (client, _notifications, _connections) = connect();
    assert_eq!(client.store_touch(handle()).await.unwrap().keys, 1);
    client.store_touch_notification(handle()).await.unwrap();
    tokio::time::timeout(WAIT, async {
        while TOUCHED.load(Ordering::SeqCst) == 0 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("the notification is handled");
    client.close();
}
