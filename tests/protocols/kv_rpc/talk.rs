//! kv_rpc's generated skeletons talking to each other over an in-memory pipe: a request
//! answered, a notification each way, and the server refusing bad params with a JSON-RPC
//! error response.

use std::sync::Arc;
use std::time::Duration;

use agentwire_runtime::jsonrpc::{Outcome, RpcError};
use agentwire_transport::jsonrpc::{Config, Connection};

use crate::kv_rpc::{
    ChangedParams, CloseParams, Handle, OpenParams, OpenResult, PutParams, PutResult,
    ServerNotification, TextValue, Value,
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
}

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
